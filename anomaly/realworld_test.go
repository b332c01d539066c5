package anomaly

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

// hourly is a series of one value an hour from day0.
func hourly(vals ...float64) []Point {
	out := make([]Point, len(vals))
	for i, v := range vals {
		out[i] = Point{At: day0.Add(time.Duration(i) * time.Hour), Value: v}
	}
	return out
}

// round10 rounds to one decimal, as many sources record their values.
func round10(v float64) float64 { return math.Round(10*v) / 10 }

// TestDailyCycleIsNotPinnedByAMissedSpike: an hourly series with a daily
// cycle, recorded to 0.1, with a spike on its second day (before the
// cycle can be known, so it may train the baseline): the cycle is
// learnt, and the spike's hour is not flagged day after day after it.
func TestDailyCycleIsNotPinnedByAMissedSpike(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 21))
	vals := make([]float64, 24*14)
	for i := range vals {
		vals[i] = round10(10 + 3*math.Sin(2*math.Pi*float64(i)/24) + 0.05*r.NormFloat64())
	}
	vals[30] -= 2
	vs := Replay(hourly(vals...), Options{Scale: Level})
	var late []int
	for _, i := range flagged(vs) {
		if i >= 3*24 {
			late = append(late, i)
		}
	}
	if len(late) > 0 {
		t.Fatalf("after three days, flagged %v; want none", late)
	}
	if v := vs[len(vs)-1]; !v.Baseline.Seasonal {
		t.Fatalf("last hour: %+v, want the daily pattern", v)
	}
}

// TestDailyCycleFollowsANewLevel: the same cycle moved up by a lasting 1.5
// alerts on its first scans only: the pattern of the old level is not the
// forecast of the new one.
func TestDailyCycleFollowsANewLevel(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 22))
	vals := make([]float64, 24*14)
	for i := range vals {
		vals[i] = round10(10 + 3*math.Sin(2*math.Pi*float64(i)/24) + 0.05*r.NormFloat64())
		if i >= 24*8 {
			vals[i] += 1.5
		}
	}
	got := flagged(Replay(hourly(vals...), Options{Scale: Level}))
	if len(got) == 0 || got[0] != 24*8 || len(got) > AdaptAfter || got[len(got)-1] >= 24*8+AdaptAfter {
		t.Fatalf("flagged %v, want the change (%d) and at most its %d first scans", got, 24*8, AdaptAfter)
	}
}

// TestLevelFloorIsItsResolution: an air pressure around 1016 hPa recorded
// to 0.1 is judged on its own noise, not on 1% of 1016 (10 hPa): a jump
// of 1.5 hPa is flagged, a step of one resolution is not.
func TestLevelFloorIsItsResolution(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 23))
	vals := make([]float64, 60)
	for i := range vals {
		vals[i] = round10(1016 + 0.15*r.NormFloat64())
	}
	series := daily(vals...)
	at := day0.Add(60 * 24 * time.Hour)
	if v := Evaluate(series, Point{At: at, Value: 1017.5}, Options{Scale: Level}); !v.Anomalous || v.Baseline.Spread > 0.5 {
		t.Fatalf("1017.5: %+v, want flagged on a spread of its noise", v)
	}
	if v := Evaluate(series, Point{At: at, Value: round10(vals[59] + 0.1)}, Options{Scale: Level}); v.Anomalous {
		t.Fatalf("one step of 0.1: %+v", v)
	}
	// A level that never moved keeps the floor of 1% of it: nothing is
	// known of its noise.
	flat := daily(make([]float64, 30)...)
	for i := range flat {
		flat[i].Value = 50
	}
	if v := Evaluate(flat, Point{At: day0.Add(30 * 24 * time.Hour), Value: 50.2}, Options{Scale: Level}); v.Anomalous || v.Baseline.Spread != 0.5 {
		t.Fatalf("a flat level's small change: %+v", v)
	}
}

// randomWalk is n daily values of a seeded Gaussian random walk from
// level, steps of standard deviation step.
func randomWalk(seed uint64, n int, level, step float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	out := make([]float64, n)
	for i := range out {
		out[i] = level
		level += step * r.NormFloat64()
	}
	return out
}

// TestRandomWalkFollowsItsLastValue: a price-like random walk wanders far
// from any window's median; it is judged against where it just was. It
// alerts seldom, a one-day spike of 8 steps is flagged, and a lasting
// jump of 8 steps is flagged once, not for each scan at its new level.
func TestRandomWalkFollowsItsLastValue(t *testing.T) {
	for seed := range uint64(5) {
		vals := randomWalk(seed, 300, 100, 1)
		if got := flagged(Replay(daily(vals...), Options{Scale: Level})); len(got) > 2 {
			t.Errorf("seed %d: clean walk flagged %v", seed, got)
		}
		vals[200] += 8
		for i := 250; i < len(vals); i++ {
			vals[i] -= 8
		}
		got := flagged(Replay(daily(vals...), Options{Scale: Level}))
		var at200, after250 int
		for _, i := range got {
			switch {
			case i == 200:
				at200++
			case i >= 250 && i < 260:
				after250++
			}
		}
		if at200 != 1 || after250 < 1 || after250 > 2 {
			t.Errorf("seed %d: flagged %v, want 200, and 250 once or twice", seed, got)
		}
	}
}

// TestWhiteNoiseIsNotFollowed: values that do not persist are judged
// against their median, not their last value.
func TestWhiteNoiseIsNotFollowed(t *testing.T) {
	vals := noisy(24, Window, 100, 2)
	v := Evaluate(daily(vals...), Point{At: day0.Add(Window * 24 * time.Hour), Value: 100}, Options{Scale: Level})
	if v.Baseline.Center != v.Baseline.Median {
		t.Fatalf("baseline %+v: center is not the median", v.Baseline)
	}
}

// TestSecondSightingMustBeTheSameDeparture: an ordinary value a week
// before does not excuse a jump: only a value that was as far from the
// baseline (the weekend dip seen again) does.
func TestSecondSightingMustBeTheSameDeparture(t *testing.T) {
	points := daily(noisy(25, 11, 100, 1)...)
	current := Point{At: day0.Add(11 * 24 * time.Hour), Value: 110}
	points[4].Value = 105 // a week before
	if likeLastWeek(points, current, 100, 6) {
		t.Error("105 a week before, 5 from the center, excused 110")
	}
	points[4].Value = 109
	if !likeLastWeek(points, current, 100, 6) {
		t.Error("109 a week before, as far from the center, did not excuse 110")
	}
}

// TestShortWindowIsWidened: a baseline learnt from few values has a wider
// band, by Student's t over a full window's; a full window's is not
// widened, nor is a share's (a slow decay must be caught early).
func TestShortWindowIsWidened(t *testing.T) {
	// Student's t quantiles from tables.
	for _, c := range []struct{ tail, df, want float64 }{{0.025, 10, 2.2281}, {0.005, 5, 4.0321}, {0.001, 1, 318.31}, {0.025, 1e6, 1.9600}} {
		if got := studentQuantile(c.tail, c.df); math.Abs(got-c.want) > 1e-4*c.want {
			t.Errorf("t(%v, %v) = %v, want %v", c.tail, c.df, got, c.want)
		}
	}
	prev := math.Inf(1)
	for n := WarmUp; n <= Window; n++ {
		f := shortWindow(n, Medium.Threshold())
		if f > prev || f < 1 || (n == Window) != (f == 1) {
			t.Fatalf("shortWindow(%d) = %v after %v", n, f, prev)
		}
		prev = f
	}
	vals := noisy(26, 10, 100, 2)
	v := Evaluate(daily(vals...), Point{At: day0.Add(10 * 24 * time.Hour), Value: 100}, Options{Scale: Level})
	if want := max(1.4826*v.Baseline.MAD, 0.9*v.Baseline.StdDev) * shortWindow(10, 4.5); !near(v.Baseline.Spread, want) {
		t.Fatalf("spread %v from 10 values, want %v", v.Baseline.Spread, want)
	}
	shares := noisy(27, 10, 0.5, 0.05)
	v = Evaluate(daily(shares...), Point{At: day0.Add(10 * 24 * time.Hour), Value: 0.5}, Options{Scale: Share})
	if want := max(1.4826*v.Baseline.MAD, 0.9*v.Baseline.StdDev); !near(v.Baseline.Spread, want) {
		t.Fatalf("share spread %v, want %v (not widened)", v.Baseline.Spread, want)
	}
}

// TestFallBecomesNormal: a level that rose for weeks falls over three
// days to below where it was a month before, and stays there. The run of
// flagged values starts above the window's median and ends below it; it
// is on one side of where the series just was, so it is the new normal
// after AdaptAfter scans, not an alert for every scan after.
func TestFallBecomesNormal(t *testing.T) {
	vals := noisy(28, 90, 0, 0.3)
	for i := range vals {
		switch {
		case i < 60:
			vals[i] += 100 + float64(i)
		case i < 63:
			vals[i] += 150 - 10*float64(i-60)
		default:
			vals[i] += 130
		}
	}
	// (Its first scan may pass as the series' value of a week or two
	// before: a weekly pattern's second sighting.)
	got := flagged(Replay(daily(vals...), Options{Scale: Level}))
	if len(got) == 0 || got[0] < 60 || got[len(got)-1] > 60+AdaptAfter {
		t.Fatalf("flagged %v, want the fall (60) and no more than its %d first scans after it", got, AdaptAfter)
	}
}

// TestExtremeSeries: constant, alternating, quantized, huge, tiny and
// half-missing series, any scale, cadence and states: every judged value
// has a score and a band that are numbers.
func TestExtremeSeries(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 29))
	gens := map[string]func(i int) float64{
		"constant":    func(int) float64 { return 5 },
		"alternating": func(i int) float64 { return float64(i % 2) },
		"quantized":   func(int) float64 { return math.Round(r.NormFloat64()) },
		"huge":        func(int) float64 { return 1e300 * (1 + r.Float64()) },
		"huge walk":   func(i int) float64 { return 1e307 * math.Sin(float64(i)) },
		"tiny":        func(int) float64 { return 1e-300 * r.Float64() },
		"missing": func(i int) float64 {
			if i%3 == 0 {
				return math.NaN()
			}
			return r.NormFloat64()
		},
		"spiky": func(int) float64 {
			if r.IntN(10) == 0 {
				return 1e6
			}
			return 1
		},
	}
	for name, g := range gens {
		for _, step := range []time.Duration{time.Second, time.Hour, 24 * time.Hour, 31 * 24 * time.Hour} {
			for _, scale := range []Scale{Share, Count, Level} {
				pts := make([]Point, 80)
				for i := range pts {
					pts[i] = Point{At: day0.Add(time.Duration(i) * step), Value: g(i), State: State(r.IntN(8) % 4)}
				}
				for i, v := range Replay(pts, Options{Scale: scale, Rows: int64(r.IntN(1000))}) {
					if !v.WarmingUp && (math.IsNaN(v.Score) || math.IsNaN(v.Low) || math.IsNaN(v.High) || v.Low > v.High) {
						t.Fatalf("%s, every %v, scale %d, point %d: %+v", name, step, scale, i, v)
					}
				}
			}
		}
	}
}

// TestExplainFollowingTheLastValue: the explanation of a baseline that
// follows the series' last value says so.
func TestExplainFollowingTheLastValue(t *testing.T) {
	vals := noisy(30, 60, 100, 0.2)
	for i := range vals {
		vals[i] += 5 * math.Sin(2*math.Pi*float64(i)/40) // a slow wander, no trend
	}
	v := Evaluate(daily(vals...), Point{At: day0.Add(60 * 24 * time.Hour), Value: vals[59] + 5}, Options{Scale: Level})
	text := Finding{Metric: "mean", Table: "prices", Column: "close", Verdict: v}.Explain()
	if !v.Anomalous || !strings.Contains(text, "from where the last of them left the series") {
		t.Fatalf("verdict %+v explained as %q", v, text)
	}
}

// TestMoveIsFlaggedOnce: a level that jumps and stays there is flagged at
// the jump only: the values after it are at the level it moved to (one
// incident, one alert), and after AdaptAfter it is the new level. A
// two-day spike is one alert too, and a later spike is flagged again.
func TestMoveIsFlaggedOnce(t *testing.T) {
	vals := noisy(31, 60, 100, 1)
	for i := 40; i < len(vals); i++ {
		vals[i] += 20
	}
	if got := flagged(Replay(daily(vals...), Options{Scale: Level})); !slices.Equal(got, []int{40}) {
		t.Errorf("move: flagged %v, want [40]", got)
	}
	vals = noisy(32, 60, 100, 1)
	vals[40] += 20
	vals[41] += 20
	vals[50] += 20
	if got := flagged(Replay(daily(vals...), Options{Scale: Level})); !slices.Equal(got, []int{40, 50}) {
		t.Errorf("two-day spike, then a spike: flagged %v, want [40 50]", got)
	}
}
