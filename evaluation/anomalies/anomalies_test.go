package anomalies

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/anomaly"
)

// TestGenerateIsDeterministic: the same seed gives the same series, and
// the series are what the report says they are.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(), Generate()
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two generations differ")
	}
	if reflect.DeepEqual(a[0].Points, a[1].Points) {
		t.Error("two runs drew the same series: the streams are not independent")
	}
	kinds := map[string]int{}
	names := map[string]bool{}
	for _, s := range a {
		kinds[s.Kind]++
		if names[s.Name] {
			t.Errorf("duplicate name %s", s.Name)
		}
		names[s.Name] = true
		if n := len(s.Points); n < 60 || n > 400 {
			t.Errorf("%s: %d points, want 60 to 400", s.Name, n)
		}
		if (s.Kind == "clean") != (len(s.Windows) == 0) {
			t.Errorf("%s: %d windows", s.Name, len(s.Windows))
		}
		for _, w := range s.Windows {
			if w.Start < anomaly.WarmUp || w.End < w.Start || w.End >= len(s.Points) {
				t.Errorf("%s: window %v out of range", s.Name, w)
			}
		}
		for i, p := range s.Points {
			if s.Scale == anomaly.Share && (p.Value < 0 || p.Value > 1) || s.Scale == anomaly.Count && p.Value < 0 {
				t.Fatalf("%s[%d] = %v out of its scale", s.Name, i, p.Value)
			}
			if i > 0 && !p.At.After(s.Points[i-1].At) {
				t.Fatalf("%s[%d]: times not increasing", s.Name, i)
			}
		}
	}
	for _, k := range Kinds {
		if kinds[k.Name] < 30 {
			t.Errorf("kind %s has %d series, want at least 30", k.Name, kinds[k.Name])
		}
	}
}

// TestScoreOracle: alerts at 2, 5, 6 and 12 of 20 scans, warm-up 0,
// windows 5–7, 10–11 and 15: the first window is detected (once, though
// two alerts fall in it) with delay 0, the others missed; 2 and 12 are
// false.
func TestScoreOracle(t *testing.T) {
	alerts := make([]bool, 20)
	for _, i := range []int{2, 5, 6, 12} {
		alerts[i] = true
	}
	got := score(alerts, []Window{{5, 7}, {10, 11}, {15, 15}}, 0)
	want := Tally{Series: 1, Judged: 20, Anomalies: 3, Detected: 1, Alerts: 4, False: 2, Delays: []int{0}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if r, p, f := got.Recall(), got.Precision(), got.FalsePer100(); r != 1.0/3 || p != 1.0/3 || f != 10 {
		t.Errorf("recall %v precision %v false/100 %v, want 1/3, 1/3, 10", r, p, f)
	}

	// Warm-up: scans before judgedFrom neither count nor detect; a late
	// alert in a window is a delay.
	alerts = make([]bool, 10)
	alerts[1], alerts[4], alerts[8] = true, true, true
	got = score(alerts, []Window{{0, 1}, {3, 5}}, 2)
	want = Tally{Series: 1, Judged: 8, Anomalies: 2, Detected: 1, Alerts: 2, False: 1, Delays: []int{1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if f := got.FalsePer100(); f != 12.5 {
		t.Errorf("false/100 %v, want 12.5", f)
	}

	var pooled Tally
	pooled.add(Tally{Delays: []int{7, 0, 3}})
	pooled.add(Tally{Delays: []int{1, 0}})
	if p50, p90 := pooled.Delay(0.5), pooled.Delay(0.9); p50 != 1 || p90 != 7 {
		t.Errorf("delays 0 0 1 3 7: p50 %v p90 %v, want 1 and 7 (nearest rank)", p50, p90)
	}
	if r := (Tally{}).Recall(); !math.IsNaN(r) {
		t.Errorf("recall without anomalies %v, want NaN", r)
	}
}

func points(vals ...float64) Series {
	s := Series{Name: "hand", Scale: anomaly.Level}
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, v := range vals {
		s.Points = append(s.Points, anomaly.Point{At: t0.AddDate(0, 0, i), Value: v})
	}
	return s
}

// TestZScoreByHand: 1 to 8 then 15. Without the value, mean 4.5 and sample
// sd √6 = 2.449 make z = 10.5/2.449 = 4.29: an alert at every
// sensitivity. With it, mean 51/9 = 5.667 and sd √17.5 = 4.183 make
// z = 9.333/4.183 = 2.23: no alert even at high (2.5); the jump hides in
// its own baseline.
func TestZScoreByHand(t *testing.T) {
	s := points(1, 2, 3, 4, 5, 6, 7, 8, 15)
	for _, sens := range anomaly.Sensitivities {
		if excl := zscore(s, sens, false); !excl[8] {
			t.Errorf("%s: excluding the value, 15 after 1..8 should alert", sens)
		}
		if incl := zscore(s, sens, true); incl[8] {
			t.Errorf("%s: including the value, 15 after 1..8 should hide (z = 2.23)", sens)
		}
	}
	// A lone outlier among n equal values scores (n-1)/√n with the value
	// in the window: 10/√11 = 3.015 for n = 11, over 3 but under 3.5.
	flat := points(10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 99)
	if a := zscore(flat, anomaly.Medium, true); !a[10] {
		t.Error("medium: z 3.015 should alert")
	}
	if a := zscore(flat, anomaly.Low, true); a[10] {
		t.Error("low: z 3.015 should not alert at 3.5")
	}
	// Excluding the value, a flat window has no spread: any other value
	// alerts, the same value does not.
	if a := zscore(points(5, 5, 5, 5, 5, 5, 5, 5, 5, 6), anomaly.Low, false); !a[9] || a[8] {
		t.Errorf("flat window: got %v", a)
	}
	// Nothing is judged in the warm-up.
	for i, a := range zscore(points(0, 100, 0, 100, 0, 100, 0, 1e9), anomaly.High, false) {
		if a {
			t.Errorf("alert at %d, in the warm-up", i)
		}
	}
}

// TestShortSeries: no detector crashes on 0 to 12 points.
func TestShortSeries(t *testing.T) {
	if c := shortCrashes(); len(c) > 0 {
		t.Fatal(strings.Join(c, "\n"))
	}
}

// TestRunReportsACrash: a panicking detector is an error, not the end of
// the evaluation.
func TestRunReportsACrash(t *testing.T) {
	d := Detector{"broken", func(s Series, _ anomaly.Sensitivity) []bool { return make([]bool, 1)[:len(s.Points)] }}
	if _, err := run(d, points(1, 2, 3), anomaly.Medium); err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Errorf("got %v", err)
	}
}

// TestInjectSizes: injected anomalies are 6 to 10 times the series'
// noise, windows as labelled, and the rest of the series untouched.
func TestInjectSizes(t *testing.T) {
	vals := make([]float64, 300)
	for i := range vals {
		vals[i] = 100 + 10*math.Sin(float64(i)/5) + float64(i%3)
	}
	s := points(vals...)
	got := inject(s)
	if len(got.Windows) < 3 {
		t.Fatalf("%d windows in 300 points", len(got.Windows))
	}
	// Each window's first point steps 6 to 10 noises from the point
	// before it; the points outside windows are moved only by an earlier
	// level shift.
	sd := noise(s.Points)
	moved := func(i int) float64 { return got.Points[i].Value - vals[i] }
	shift := 0.0
	for _, w := range got.Windows {
		if d := math.Abs(moved(w.Start) - shift); d < 6*sd-1e-9 || d > 10*sd+1e-9 {
			t.Errorf("window %v moved %v, noise %v", w, d, sd)
		}
		if w.End > w.Start {
			shift = moved(w.Start)
		}
		if after := w.End + 1; after < len(vals) && math.Abs(moved(after)-shift) > 1e-9 {
			t.Errorf("point %d after window %v moved %v, want %v", after, w, moved(after), shift)
		}
	}
	if !reflect.DeepEqual(inject(s), got) {
		t.Error("injection is not deterministic")
	}
}

// TestRealWorld reads the fixtures in place; skipped without them unless
// DQS_REQUIRE_FIXTURES=1.
func TestRealWorld(t *testing.T) {
	dir := os.Getenv("DQS_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "fixtures")
	}
	series, skipped, err := RealWorld(dir)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != "" {
		t.Skip(skipped)
	}
	rows := map[string]int{}
	for _, s := range series {
		rows[s.Kind]++
		if len(s.Points) < minRealLength || len(s.Points) > maxRealLength || len(s.Windows) == 0 {
			t.Errorf("%s: %d points, %d windows", s.Name, len(s.Points), len(s.Windows))
		}
	}
	for _, src := range sources {
		if rows[src.row] == 0 {
			t.Errorf("no series from %s", src.file)
		}
	}
	if _, skipped, _ := RealWorld(t.TempDir()); skipped == "" && os.Getenv("DQS_REQUIRE_FIXTURES") != "1" {
		t.Error("an empty folder should skip the suite")
	}
}

// TestEvaluateSmall: the report has a row per kind and overall, for every
// detector and sensitivity.
func TestEvaluateSmall(t *testing.T) {
	var series []Series
	seen := map[string]bool{}
	for _, s := range Generate() {
		if !seen[s.Kind] {
			seen[s.Kind] = true
			series = append(series, s)
		}
	}
	su := evaluate("small", series)
	var out strings.Builder
	su.Print(&out)
	for _, k := range Kinds {
		if !strings.Contains(out.String(), k.Name) {
			t.Errorf("no row for %s:\n%s", k.Name, out.String())
		}
	}
	for _, d := range Detectors {
		if o := su.Tally(Overall, d.Name, anomaly.Medium); o.Series != len(series) || o.Judged == 0 {
			t.Errorf("%s: overall %+v", d.Name, o)
		}
	}
}

// TestRealWorldTargets: the real-world suite is judged against the plain
// z-score (most of its recall, half its false alerts at most) and against
// the peers' (at least its recall, at most its false alerts); missing any
// of the four fails the report.
func TestRealWorldTargets(t *testing.T) {
	synthetic := &Suite{tallies: map[cell]*Tally{
		{Overall, Detectors[0].Name, anomaly.Medium}: {Anomalies: 10, Detected: 10, Judged: 1000, Delays: []int{0}},
	}}
	// tally is a real-world overall row: detected of 100 anomalies and
	// false alerts over 10,000 judged points.
	tally := func(detected, false int) *Tally {
		return &Tally{Anomalies: 100, Detected: detected, False: false, Judged: 10_000}
	}
	report := func(ours, plain, peers *Tally) *Report {
		return &Report{Synthetic: synthetic, Real: &Suite{tallies: map[cell]*Tally{
			{Overall, Detectors[0].Name, anomaly.Medium}: ours,
			{Overall, PlainZ, anomaly.Medium}:            plain,
			{Overall, PeersZ, anomaly.Medium}:            peers,
		}}}
	}
	for _, c := range []struct {
		name              string
		ours, plain, peer *Tally
		wantMissing       string
	}{
		{"met", tally(64, 33), tally(68, 138), tally(58, 43), ""},
		{"recall below 80% of the plain z-score's", tally(60, 30), tally(80, 138), tally(58, 43), "below 80% of the plain"},
		{"false alerts above half the plain z-score's", tally(64, 70), tally(68, 138), tally(58, 80), "above 50% of the plain"},
		{"recall below the peers' z-score's", tally(57, 30), tally(68, 138), tally(58, 43), "below the peers'"},
		{"false alerts above the peers' z-score's", tally(64, 44), tally(68, 138), tally(58, 43), "above the peers'"},
	} {
		f := report(c.ours, c.plain, c.peer).Failures()
		switch {
		case c.wantMissing == "" && len(f) != 0:
			t.Errorf("%s: failures %q", c.name, f)
		case c.wantMissing != "" && (len(f) != 1 || !strings.Contains(f[0], c.wantMissing)):
			t.Errorf("%s: failures %q, want one saying %q", c.name, f, c.wantMissing)
		}
	}
}

// TestRealWorldTargetsAtEqualRecall: our false alerts must also be at
// most half of what each z-score raises at the threshold matching our
// recall; a z-score no threshold brings to our recall sets no bound.
func TestRealWorldTargetsAtEqualRecall(t *testing.T) {
	synthetic := &Suite{tallies: map[cell]*Tally{
		{Overall, Detectors[0].Name, anomaly.Medium}: {Anomalies: 10, Detected: 10, Judged: 1000, Delays: []int{0}},
	}}
	tally := func(detected, false int) *Tally {
		return &Tally{Anomalies: 100, Detected: detected, False: false, Judged: 10_000}
	}
	r := &Report{Synthetic: synthetic, Real: &Suite{tallies: map[cell]*Tally{
		{Overall, Detectors[0].Name, anomaly.Medium}: tally(64, 33),
		{Overall, PlainZ, anomaly.Medium}:            tally(68, 138),
		{Overall, PeersZ, anomaly.Medium}:            tally(58, 43),
	}}}
	r.Matched = []Matched{{PlainZ, 3.2, *tally(64, 99)}, {PeersZ, math.NaN(), Tally{}}}
	if f := r.Failures(); len(f) != 0 {
		t.Errorf("failures %q", f)
	}
	r.Matched[0].Tally = *tally(64, 60)
	if f := r.Failures(); len(f) != 1 || !strings.Contains(f[0], "at equal recall") {
		t.Errorf("failures %q, want one at equal recall", f)
	}
}

// TestMatchRecall: the threshold matching a recall is the largest of the
// sweep that still finds the anomalies, and the tally is the z-score's
// there.
func TestMatchRecall(t *testing.T) {
	var pts []anomaly.Point
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 40 {
		v := 10.0 + float64(i%2)
		if i == 30 {
			v = 12 // about 2.9 deviations above the 30 values before it
		}
		pts = append(pts, anomaly.Point{At: at.AddDate(0, 0, i), Value: v})
	}
	s := Series{Points: pts, Windows: []Window{{30, 30}}}
	z := zScores(s, false)[30]
	m := matchRecall([]Series{s}, PlainZ, false, 1)
	if want := 2 + 0.05*math.Floor((z-2)/0.05); math.Abs(m.Threshold-want) > 1e-9 || m.Tally.Detected != 1 || m.Tally.False != 0 {
		t.Errorf("matched %+v, want threshold %.2f (the spike scores %.3f) with the spike found and nothing else", m, want, z)
	}
	if m := matchRecall([]Series{{Points: pts[:20], Windows: []Window{{15, 15}}}}, PlainZ, false, 1); !math.IsNaN(m.Threshold) {
		t.Errorf("a recall no threshold reaches matched %+v", m)
	}
}
