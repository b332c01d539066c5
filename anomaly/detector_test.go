package anomaly

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
)

var day0 = time.Date(2026, 9, 1, 2, 0, 0, 0, time.UTC) // a Tuesday

// daily is a series of one value a day from day0.
func daily(vals ...float64) []Point {
	out := make([]Point, len(vals))
	for i, v := range vals {
		out[i] = Point{At: day0.Add(time.Duration(i) * 24 * time.Hour), Value: v}
	}
	return out
}

// noisy is n daily values around level, with a seeded uniform noise of
// +-amp.
func noisy(seed uint64, n int, level, amp float64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, n)
	for i := range out {
		out[i] = level + amp*(2*r.Float64()-1)
	}
	return out
}

func flagged(vs []Verdict) []int {
	var out []int
	for i, v := range vs {
		if v.Anomalous {
			out = append(out, i)
		}
	}
	return out
}

// sortedMedian is the oracle of a median: sort, take the middle (or the
// mean of the two middles).
func sortedMedian(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// TestEvaluateOracle: a level metric's verdict is the median and MAD of the
// window before the value (never the value itself), its spread 1.4826 MAD
// (at least 0.9 of the standard deviation, and half the least step
// between two values), the score and band from them, computed here the
// slow, obvious way. A full window (Window values) is not widened.
func TestEvaluateOracle(t *testing.T) {
	vals := noisy(7, Window, 100, 2)
	history := daily(vals...)
	current := Point{At: day0.Add(Window * 24 * time.Hour), Value: 125}
	v := Evaluate(history, current, Options{Sensitivity: Medium, Scale: Level})

	med := sortedMedian(vals)
	dev := make([]float64, len(vals))
	var sum float64
	for i, x := range vals {
		dev[i] = math.Abs(x - med)
		sum += x
	}
	madv := sortedMedian(dev)
	mean := sum / float64(len(vals))
	var ss float64
	for _, x := range vals {
		ss += (x - mean) * (x - mean)
	}
	sd := math.Sqrt(ss / float64(len(vals)-1))
	step := math.Inf(1)
	for i, x := range vals {
		for _, y := range vals[i+1:] {
			if d := math.Abs(x - y); d > 0 {
				step = math.Min(step, d)
			}
		}
	}
	spread := math.Max(math.Max(1.4826*madv, 0.9*sd), step/2)
	want := Baseline{Center: med, Spread: spread, Mean: mean, StdDev: sd, Median: med, MAD: madv, N: Window,
		WindowStart: day0, WindowEnd: day0.Add((Window - 1) * 24 * time.Hour)}
	if !closeBaseline(v.Baseline, want) {
		t.Fatalf("baseline = %+v, want %+v", v.Baseline, want)
	}
	if !v.Anomalous || v.WarmingUp || !near(v.Score, (125-med)/spread) || !near(v.Low, med-4.5*spread) || !near(v.High, med+4.5*spread) ||
		!near(v.Change, (125-med)/med) || v.Threshold != 4.5 || v.Sensitivity != Medium {
		t.Fatalf("verdict = %+v", v)
	}
	// A value inside the band is not anomalous.
	if v := Evaluate(history, Point{At: current.At, Value: med + spread}, Options{Scale: Level}); v.Anomalous || v.Sensitivity != Medium {
		t.Fatalf("a value one spread off = %+v", v)
	}
	// Later points of the history are not read (no look-ahead).
	later := append(daily(vals...), Point{At: current.At.Add(time.Hour), Value: 125}, Point{At: current.At.Add(48 * time.Hour), Value: 125})
	if v2 := Evaluate(later, current, Options{Scale: Level}); !reflect.DeepEqual(v2, v) {
		t.Fatalf("history after the value changed the verdict: %+v", v2)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func closeBaseline(a, b Baseline) bool {
	return near(a.Center, b.Center) && near(a.Spread, b.Spread) && near(a.Mean, b.Mean) && near(a.StdDev, b.StdDev) &&
		near(a.Median, b.Median) && near(a.MAD, b.MAD) && a.N == b.N && a.WindowStart.Equal(b.WindowStart) && a.WindowEnd.Equal(b.WindowEnd) &&
		a.Seasonal == b.Seasonal && near(a.Trend, b.Trend)
}

// TestJumpDoesNotHideInItsOwnBaseline: a 25% jump of a steady series is
// flagged at every sensitivity (a baseline holding the value under test
// would absorb it).
func TestJumpDoesNotHideInItsOwnBaseline(t *testing.T) {
	series := daily(append(noisy(1, 20, 1000, 5), 1250)...)
	for _, s := range Sensitivities {
		if got := flagged(Replay(series, Options{Sensitivity: s, Scale: Level})); !reflect.DeepEqual(got, []int{20}) {
			t.Errorf("%s: flagged %v, want [20]", s, got)
		}
	}
}

// TestRepeatIncidentIsFlaggedAgain: a spike flagged once stays out of later
// baselines, so the same spike weeks later is flagged again; marked
// expected, it trains the baseline.
func TestRepeatIncidentIsFlaggedAgain(t *testing.T) {
	vals := noisy(2, 60, 0.05, 0.004)
	vals[20], vals[45] = 0.30, 0.30
	series := daily(vals...)
	if got := flagged(Replay(series, Options{Scale: Share})); !reflect.DeepEqual(got, []int{20, 45}) {
		t.Fatalf("flagged %v, want both spikes [20 45]", got)
	}
	// A value marked expected is in later windows; flagged, it is not.
	v := Evaluate(withState(series[:30], 20, Expected), series[30], Options{Scale: Share})
	w := Evaluate(withState(series[:30], 20, Flagged), series[30], Options{Scale: Share})
	if v.Baseline.N != w.Baseline.N+1 {
		t.Fatalf("window with the expected value: %d values; with it flagged: %d; want one more", v.Baseline.N, w.Baseline.N)
	}
}

func withState(points []Point, i int, s State) []Point {
	out := append([]Point(nil), points...)
	out[i].State = s
	return out
}

// TestFlatSeriesFloor: a share that is exactly 0 for months does not alert
// on a trace (0.1 percentage point) but does on a real spike.
func TestFlatSeriesFloor(t *testing.T) {
	vals := make([]float64, 40)
	vals[30] = 0.001
	vals[35] = 0.05
	if got := flagged(Replay(daily(vals...), Options{Scale: Share})); !reflect.DeepEqual(got, []int{35}) {
		t.Fatalf("flagged %v, want [35]", got)
	}
	// A flat count: 1,000 rows, then 1,003 (noise), then 800 (a drop).
	counts := make([]float64, 30)
	for i := range counts {
		counts[i] = 1000
	}
	counts[20], counts[25] = 1003, 800
	if got := flagged(Replay(daily(counts...), Options{Scale: Count})); !reflect.DeepEqual(got, []int{25}) {
		t.Fatalf("flat count flagged %v, want [25]", got)
	}
}

// TestWarmUp: nothing is judged before WarmUp values, and short or empty
// series do not fail.
func TestWarmUp(t *testing.T) {
	for n := 0; n <= WarmUp; n++ {
		history := daily(make([]float64, n)...)
		v := Evaluate(history, Point{At: day0.Add(time.Duration(n) * 24 * time.Hour), Value: 1e9}, Options{Scale: Level})
		if (n < WarmUp) != v.WarmingUp || (n < WarmUp && v.Anomalous) {
			t.Errorf("%d earlier values: %+v", n, v)
		}
	}
	if got := Replay(nil, Options{}); len(got) != 0 {
		t.Fatalf("Replay(nil) = %v", got)
	}
}

// TestLevelShiftBecomesNormal: a deliberate, lasting change alerts on its
// first AdaptAfter scans at most, then is the new normal; a return to the
// old level while the new one is young is not an anomaly either.
func TestLevelShiftBecomesNormal(t *testing.T) {
	vals := append(noisy(3, 30, 100, 1), noisy(4, 30, 150, 1)...)
	got := flagged(Replay(daily(vals...), Options{Scale: Level}))
	if len(got) == 0 || len(got) > AdaptAfter || got[0] != 30 || got[len(got)-1] >= 30+AdaptAfter {
		t.Fatalf("flagged %v, want the onset (30) and at most its %d first scans", got, AdaptAfter)
	}
	// An incident of a few scans that is undone: its values are flagged,
	// the return is not.
	vals = append(noisy(5, 30, 100, 1), 150, 151, 149, 150, 100, 101, 99, 100, 100, 100)
	got = flagged(Replay(daily(vals...), Options{Scale: Level}))
	for _, i := range got {
		if i >= 34 {
			t.Fatalf("flagged %v: the return to the old level (34 on) is not an anomaly", got)
		}
	}
	if len(got) == 0 || got[0] != 30 {
		t.Fatalf("flagged %v, want the incident's onset", got)
	}
}

// TestCountsFollowTheirTrend: a table that grows by about 1% a day does not
// alert; a broken load that loses 30% of it does.
func TestCountsFollowTheirTrend(t *testing.T) {
	vals := make([]float64, 50)
	r := rand.New(rand.NewPCG(9, 9))
	for i := range vals {
		vals[i] = 100000 + 1000*float64(i) + float64(r.IntN(200))
	}
	vals[45] *= 0.7
	got := flagged(Replay(daily(vals...), Options{Scale: Count}))
	if !reflect.DeepEqual(got, []int{45}) {
		t.Fatalf("flagged %v, want [45]", got)
	}
	v := Evaluate(daily(vals[:40]...), Point{At: day0.Add(40 * 24 * time.Hour), Value: vals[40]}, Options{Scale: Count})
	if v.Baseline.Trend < 900 || v.Baseline.Trend > 1100 {
		t.Fatalf("trend = %v a day, want about 1000", v.Baseline.Trend)
	}
	// A share does not follow a trend: a slow decay is caught.
	decay := noisy(10, 40, 0.99, 0.001)
	for i := 20; i < 40; i++ {
		decay[i] -= 0.002 * float64(i-19)
	}
	got = flagged(Replay(daily(decay...), Options{Scale: Share}))
	if len(got) == 0 || got[0] > 30 {
		t.Fatalf("decay flagged at %v, want it caught within 10 scans of its start (20)", got)
	}
}

// TestWeeklyPattern: once three weeks are seen, a weekend dip is normal and
// a weekday at the weekend's level is not.
func TestWeeklyPattern(t *testing.T) {
	vals := noisy(11, 63, 100, 1)
	for i := range vals {
		if wd := day0.Add(time.Duration(i) * 24 * time.Hour).Weekday(); wd == time.Saturday || wd == time.Sunday {
			vals[i] -= 50
		}
	}
	wednesday := 57 // day0 is a Tuesday
	vals[wednesday] = 50
	got := flagged(Replay(daily(vals...), Options{Scale: Level}))
	var late []int
	for _, i := range got {
		if i >= 21 {
			late = append(late, i)
		}
	}
	if !reflect.DeepEqual(late, []int{wednesday}) {
		t.Fatalf("after three weeks, flagged %v, want only the Wednesday at the weekend's level (%d)", late, wednesday)
	}
	saturday := 53
	v := Evaluate(daily(vals[:saturday]...), Point{At: day0.Add(time.Duration(saturday) * 24 * time.Hour), Value: vals[saturday]}, Options{Scale: Level})
	if !v.Baseline.Seasonal || math.Abs(v.Baseline.Center-50) > 2 || v.Anomalous {
		t.Fatalf("Saturday: %+v, want the weekend's level, 50, from the weekly pattern", v)
	}
}

// TestReplayIsEvaluateInTurn: Replay is Evaluate on each prefix, the
// flagged points marked.
func TestReplayIsEvaluateInTurn(t *testing.T) {
	vals := noisy(12, 50, 10, 0.5)
	vals[15], vals[33] = 30, -5
	series := daily(vals...)
	got := Replay(series, Options{Sensitivity: High, Scale: Level})
	marked := append([]Point(nil), series...)
	for i := range marked {
		want := Evaluate(marked[:i], marked[i], Options{Sensitivity: High, Scale: Level})
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want) { // NaN changes are equal as text
			t.Fatalf("point %d: Replay %+v, Evaluate %+v", i, got[i], want)
		}
		if want.Anomalous {
			marked[i].State = Flagged
		}
	}
}

// TestSensitivities: high flags at least what medium flags, medium at least
// what low flags, on a volatile series.
func TestSensitivities(t *testing.T) {
	vals := noisy(13, 200, 50, 10)
	r := rand.New(rand.NewPCG(13, 13))
	for i := 10; i < len(vals); i += 17 {
		vals[i] += float64(r.IntN(80) - 40)
	}
	var prev map[int]bool
	for _, s := range Sensitivities {
		cur := map[int]bool{}
		for _, i := range flagged(Replay(daily(vals...), Options{Sensitivity: s, Scale: Level})) {
			cur[i] = true
		}
		for i := range prev {
			if !cur[i] {
				t.Errorf("%s does not flag %d, which a lower sensitivity flags", s, i)
			}
		}
		prev = cur
	}
}

// TestNotFinite: NaN and infinities in a history are left out; a value that
// is not finite is not judged.
func TestNotFinite(t *testing.T) {
	vals := noisy(14, 20, 5, 0.1)
	vals[3], vals[7] = math.NaN(), math.Inf(1)
	v := Evaluate(daily(vals...), Point{At: day0.Add(20 * 24 * time.Hour), Value: 5}, Options{Scale: Level})
	if v.Anomalous || v.Baseline.N != 18 || math.IsNaN(v.Baseline.Median) {
		t.Fatalf("verdict = %+v, want 18 finite values in the window", v)
	}
	if v := Evaluate(daily(vals...), Point{At: day0.Add(20 * 24 * time.Hour), Value: math.NaN()}, Options{}); v.Anomalous {
		t.Fatalf("NaN judged anomalous: %+v", v)
	}
}

// TestExplain: the explanation states the value, the band, the distance,
// the change, the window (dates and scans), the related metrics and the
// sensitivity.
func TestExplain(t *testing.T) {
	vals := make([]float64, 30)
	for i := range vals {
		vals[i] = 0.1
	}
	series := daily(vals...)
	at := day0.Add(30 * 24 * time.Hour)
	nulls := Finding{Table: "customers", Column: "email", Metric: "null_rate", Verdict: Evaluate(series, Point{At: at, Value: 0.4}, Options{Scale: Share})}
	rows := Finding{Table: "customers", Metric: "row_count", Verdict: Evaluate(daily(noisy(15, 30, 1000, 1)...), Point{At: at, Value: 600}, Options{Scale: Count})}
	calm := Finding{Table: "customers", Column: "age", Metric: "mean", Verdict: Evaluate(series, Point{At: at, Value: 0.1}, Options{Scale: Level})}
	other := Finding{Table: "orders", Metric: "row_count", Verdict: rows.Verdict}
	incidents := Group([]Finding{rows, calm, nulls, other})
	if len(incidents) != 2 || incidents[0].Table != "customers" || incidents[1].Table != "orders" {
		t.Fatalf("incidents = %+v", incidents)
	}
	in := incidents[0]
	if in.Primary.Metric != "null_rate" || len(in.Related) != 1 || in.Related[0].Metric != "row_count" {
		t.Fatalf("customers incident: primary %s, related %v; want null_rate (farthest) with row_count", in.Primary.Metric, in.Related)
	}
	text := in.Explain()
	for _, want := range []string{
		"null_rate of customers.email was 0.4 on 2026-10-01 02:00 UTC",
		"above the expected band 0.091 to 0.109",
		"150.0 spreads above the expected 0.1 (+300.0%)",
		"Compared with 30 scans from 2026-09-01 to 2026-09-30",
		"Sensitivity medium: 4.5 spreads",
		"In the same scan: row_count of customers 600 (expected",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("explanation lacks %q:\n%s", want, text)
		}
	}
	if s := calm.Explain(); !strings.Contains(s, "within the expected band") {
		t.Errorf("calm explanation: %s", s)
	}
	if s := (Finding{Metric: "row_count", Verdict: Evaluate(nil, Point{At: at, Value: 3}, Options{})}).Explain(); !strings.Contains(s, "too few to judge") {
		t.Errorf("warm-up explanation: %s", s)
	}
}

// FuzzEvaluate: any series, any value: no panic, a score and band that are
// numbers whenever the value is judged.
func FuzzEvaluate(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 200}, uint8(1), uint8(0))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255}, uint8(0), uint8(2))
	f.Fuzz(func(t *testing.T, raw []byte, scale, sens uint8) {
		points := make([]Point, len(raw))
		for i, b := range raw {
			step := time.Duration(1+int(b)%3) * 6 * time.Hour
			at := day0
			if i > 0 {
				at = points[i-1].At.Add(step)
			}
			points[i] = Point{At: at, Value: float64(b) - 100, State: State(int(b) % 4)}
		}
		opt := Options{Sensitivity: Sensitivities[int(sens)%3], Scale: Scale(int(scale) % 3)}
		for i, v := range Replay(points, opt) {
			if !v.WarmingUp && (math.IsNaN(v.Score) || math.IsNaN(v.Low) || math.IsNaN(v.High) || v.Low > v.High) {
				t.Fatalf("point %d: %+v", i, v)
			}
		}
	})
}

// TestMedianWithout: the constant-time median without one element is the
// median of a copy without it.
func TestMedianWithout(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 16))
	for n := 2; n < 12; n++ {
		vs := make([]float64, n)
		for i := range vs {
			vs[i] = float64(r.IntN(10))
		}
		sort.Float64s(vs)
		for i := range vs {
			others := append(append([]float64(nil), vs[:i]...), vs[i+1:]...)
			if got, want := medianWithout(vs, i), sortedMedian(others); got != want {
				t.Fatalf("medianWithout(%v, %d) = %v, want %v", vs, i, got, want)
			}
		}
	}
}

// TestVerdictJSON: a verdict with a change from zero (NaN) encodes, as
// null.
func TestVerdictJSON(t *testing.T) {
	v := Evaluate(daily(make([]float64, 20)...), Point{At: day0.Add(20 * 24 * time.Hour), Value: 0.5}, Options{Scale: Share})
	raw, err := json.Marshal(Finding{Metric: "null_rate", Verdict: v})
	if err != nil || !strings.Contains(string(raw), `"change":null`) || !strings.Contains(string(raw), `"anomalous":true`) {
		t.Fatalf("json = %s, %v", raw, err)
	}
}
