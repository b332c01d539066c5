package anomalies

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"
	"text/tabwriter"

	"github.com/dqs/dqs/anomaly"
)

// Targets of our detector at medium on the synthetic suite, pooled over
// every kind.
const (
	TargetRecall      = 0.95
	TargetPrecision   = 0.90
	TargetFalsePer100 = 0.5
	TargetDelay       = 1 // median, in scans
)

// On the real-world suite our detector must keep most of the plain
// z-score's recall (RealRecallShare of it) with a fraction of its false
// alarms (RealFalseShare of them), at medium. The plain z-score is the
// textbook one, judging each point on the window before it (PlainZ): the
// protocol of the whole suite and of `dqs anomalies`, where no point is
// judged on itself. Against the peers' variant (PeersZ, whose window holds
// the value under test and so caps every score and hides outliers in their
// own baseline) our detector must do at least as well on both counts.
const (
	RealRecallShare = 0.8
	RealFalseShare  = 0.5
	PlainZ          = "zscore-excl"
	PeersZ          = "zscore"
)

// Overall is the row pooling every other.
const Overall = "overall"

type cell struct {
	row, detector string
	sens          anomaly.Sensitivity
}

// Suite is the tallies of every detector at every sensitivity on a set of
// series, by row (a kind, or a real-world source) and overall.
type Suite struct {
	Title   string
	Rows    []string
	Series  int
	Crashes []string
	tallies map[cell]*Tally
}

// Tally is the pooled tally of one row (or Overall).
func (s *Suite) Tally(row, detector string, sens anomaly.Sensitivity) Tally {
	if t := s.tallies[cell{row, detector, sens}]; t != nil {
		return *t
	}
	return Tally{}
}

// evaluate runs every detector at every sensitivity on every series, in
// parallel, and pools the tallies by the series' Kind.
func evaluate(title string, series []Series) *Suite {
	type job struct {
		s    Series
		d    Detector
		sens anomaly.Sensitivity
		t    Tally
		err  error
	}
	var jobs []*job
	for _, s := range series {
		for _, d := range Detectors {
			for _, sens := range anomaly.Sensitivities {
				jobs = append(jobs, &job{s: s, d: d, sens: sens})
			}
		}
	}
	var wg sync.WaitGroup
	next := make(chan *job)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range next {
				alerts, err := run(j.d, j.s, j.sens)
				if err != nil {
					alerts = make([]bool, len(j.s.Points))
				}
				j.t, j.err = score(alerts, j.s.Windows, anomaly.WarmUp), err
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()

	su := &Suite{Title: title, Series: len(series), tallies: map[cell]*Tally{}}
	for _, j := range jobs {
		if j.err != nil {
			su.Crashes = append(su.Crashes, j.err.Error())
		}
		for _, row := range []string{j.s.Kind, Overall} {
			c := cell{row, j.d.Name, j.sens}
			if su.tallies[c] == nil {
				su.tallies[c] = &Tally{}
				if row != Overall && j.d.Name == Detectors[0].Name && j.sens == anomaly.Low {
					su.Rows = append(su.Rows, row)
				}
			}
			su.tallies[c].add(j.t)
		}
	}
	return su
}

// Print writes one table per sensitivity: a line per row and detector.
func (s *Suite) Print(w io.Writer) {
	o := s.Tally(Overall, Detectors[0].Name, anomaly.Medium)
	fmt.Fprintf(w, "%s: %d series, %d judged scans, %d labelled anomalies\n", s.Title, s.Series, o.Judged, o.Anomalies)
	for _, sens := range anomaly.Sensitivities {
		fmt.Fprintf(w, "\nsensitivity %s\n", sens)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "row\tdetector\tseries\tanomalies\tdetected\trecall\talerts\tfalse\tprecision\tfalse/100\tdelay p50\tp90\t")
		for _, row := range append(s.Rows, Overall) {
			for _, d := range Detectors {
				t := s.Tally(row, d.Name, sens)
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t\n", row, d.Name, t.Series, t.Anomalies, t.Detected,
					num(t.Recall(), 3), t.Alerts, t.False, num(t.Precision(), 3), num(t.FalsePer100(), 2), num(t.Delay(0.5), 0), num(t.Delay(0.9), 0))
			}
		}
		tw.Flush()
	}
	for _, c := range s.Crashes {
		fmt.Fprintf(w, "crash: %s\n", c)
	}
}

func num(v float64, decimals int) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.*f", decimals, v)
}

// Report is the whole anomaly evaluation.
type Report struct {
	Synthetic *Suite
	// Short is the crashes on series shorter than a baseline (0 to 12
	// points), where peers index out of range.
	Short []string
	// Real is nil when the fixtures were not found; Skipped says why.
	Real    *Suite
	Skipped string
	// Matched are the z-scores at the thresholds that match our recall
	// on the real-world suite, plain first.
	Matched []Matched
}

// Matched is a z-score at the threshold that matches our detector's
// recall on the real-world suite at medium: the largest threshold of a
// sweep (2 to 10 by 0.05) at which it still finds at least as many of the
// anomalies, and its tally there, so the fewest false alerts it raises
// for that recall. Comparing false alarms at equal recall takes the
// choice of a default threshold out of the comparison.
type Matched struct {
	Detector string
	// Threshold is NaN when no threshold of the sweep reaches the recall.
	Threshold float64
	Tally     Tally
}

// matchRecall is the z-score (inclusive or not) named name on series at
// the threshold matching recall.
func matchRecall(series []Series, name string, inclusive bool, recall float64) Matched {
	scores := make([][]float64, len(series))
	for i, s := range series {
		scores[i] = zScores(s, inclusive)
	}
	m := Matched{Detector: name, Threshold: math.NaN()}
	for step := range 161 {
		k := 2 + 0.05*float64(step)
		var t Tally
		for i, s := range series {
			t.add(score(zAlerts(scores[i], k), s.Windows, anomaly.WarmUp))
		}
		if t.Recall() < recall {
			break // a higher threshold alerts on a subset: recall only falls
		}
		m.Threshold, m.Tally = k, t
	}
	return m
}

// Evaluate runs both suites; fixtures is the shared fixtures folder. A
// missing folder skips the real-world suite, unless DQS_REQUIRE_FIXTURES=1.
func Evaluate(fixtures string) (*Report, error) {
	real, skipped, err := RealWorld(fixtures) // first: a missing folder may be an error
	if err != nil {
		return nil, err
	}
	r := &Report{
		Synthetic: evaluate("Synthetic scan metrics", Generate()),
		Short:     shortCrashes(),
		Skipped:   skipped,
	}
	if skipped == "" {
		r.Real = evaluate("Real-world series with injected anomalies (shared fixtures)", real)
		ours := r.Real.Tally(Overall, Detectors[0].Name, anomaly.Medium).Recall()
		r.Matched = []Matched{matchRecall(real, PlainZ, false, ours), matchRecall(real, PeersZ, true, ours)}
	}
	return r, nil
}

// shortCrashes runs every detector on every prefix of up to 12 points of
// one series of each kind, and on empty and one-point series.
func shortCrashes() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range Generate() {
		if seen[s.Kind] {
			continue
		}
		seen[s.Kind] = true
		for n := range 13 {
			short := s
			short.Points, short.Windows = s.Points[:n], nil
			for _, d := range Detectors {
				for _, sens := range anomaly.Sensitivities {
					if _, err := run(d, short, sens); err != nil {
						out = append(out, err.Error())
					}
				}
			}
		}
	}
	return out
}

// Print writes both suites and the short-series check.
func (r *Report) Print(w io.Writer) {
	fmt.Fprintf(w, "Targets for dqs at medium, all kinds pooled: recall ≥ %.2f, precision ≥ %.2f, false alerts ≤ %.1f per 100 scans, median delay ≤ %d scan.\n",
		TargetRecall, TargetPrecision, TargetFalsePer100, TargetDelay)
	fmt.Fprintf(w, "Precision counts a window once however many alerts fall in it; zscore's window includes the value under test, zscore-excl's does not (%d scans, threshold 3.5/3/2.5 for low/medium/high).\n\n", zWindow)
	r.Synthetic.Print(w)
	fmt.Fprintf(w, "\nShort series (0 to 12 points): %d crashes\n", len(r.Short))
	for _, c := range r.Short {
		fmt.Fprintf(w, "  %s\n", c)
	}
	fmt.Fprintln(w)
	if r.Real == nil {
		fmt.Fprintf(w, "Real-world series: skipped: %s\n", r.Skipped)
		return
	}
	plain := r.Real.Tally(Overall, PlainZ, anomaly.Medium)
	peers := r.Real.Tally(Overall, PeersZ, anomaly.Medium)
	fmt.Fprintf(w, "Targets for dqs at medium: at least %.0f%% of the plain z-score's (%s) recall with at most %.0f%% of its false alerts per 100 points (here: recall ≥ %.3f, false/100 ≤ %.2f), and at least the recall with at most the false alerts of the peers' z-score (%s: recall ≥ %.3f, false/100 ≤ %.2f).\n",
		100*RealRecallShare, PlainZ, 100*RealFalseShare, RealRecallShare*plain.Recall(), RealFalseShare*plain.FalsePer100(),
		PeersZ, peers.Recall(), peers.FalsePer100())
	r.Real.Print(w)
	ours := r.Real.Tally(Overall, Detectors[0].Name, anomaly.Medium)
	fmt.Fprintf(w, "\nAt equal recall (medium): the fewest false alerts each z-score raises while finding at least dqs's %.3f of the anomalies (thresholds 2 to 10 by 0.05); target for dqs: at most %.0f%% of each.\n",
		ours.Recall(), 100*RealFalseShare)
	fmt.Fprintf(w, "  %-12s false/100 %.2f\n", Detectors[0].Name, ours.FalsePer100())
	for _, m := range r.Matched {
		if math.IsNaN(m.Threshold) {
			fmt.Fprintf(w, "  %-12s no threshold reaches that recall\n", m.Detector)
			continue
		}
		fmt.Fprintf(w, "  %-12s false/100 %.2f at threshold %.2f (recall %.3f)\n", m.Detector, m.Tally.FalsePer100(), m.Threshold, m.Tally.Recall())
	}
}

// Failures lists the targets missed.
func (r *Report) Failures() []string {
	var out []string
	ours := r.Synthetic.Tally(Overall, Detectors[0].Name, anomaly.Medium)
	check := func(ok bool, format string, args ...any) {
		if !ok {
			out = append(out, "anomaly detection: "+fmt.Sprintf(format, args...))
		}
	}
	check(ours.Recall() >= TargetRecall, "recall %.3f at medium, below %.2f", ours.Recall(), TargetRecall)
	check(ours.Precision() >= TargetPrecision, "precision %.3f at medium, below %.2f", ours.Precision(), TargetPrecision)
	check(ours.FalsePer100() <= TargetFalsePer100, "%.2f false alerts per 100 scans at medium, above %.1f", ours.FalsePer100(), TargetFalsePer100)
	check(ours.Delay(0.5) <= TargetDelay, "median delay %s scans at medium, above %d", num(ours.Delay(0.5), 0), TargetDelay)
	check(len(r.Synthetic.Crashes)+len(r.Short) == 0, "%d crashes", len(r.Synthetic.Crashes)+len(r.Short))
	if r.Real != nil {
		ours := r.Real.Tally(Overall, Detectors[0].Name, anomaly.Medium)
		plain, peers := r.Real.Tally(Overall, PlainZ, anomaly.Medium), r.Real.Tally(Overall, PeersZ, anomaly.Medium)
		check(ours.Recall() >= RealRecallShare*plain.Recall(), "real-world recall %.3f at medium, below %.0f%% of the plain z-score's %.3f",
			ours.Recall(), 100*RealRecallShare, plain.Recall())
		check(ours.FalsePer100() <= RealFalseShare*plain.FalsePer100(), "real-world %.2f false alerts per 100 points at medium, above %.0f%% of the plain z-score's %.2f",
			ours.FalsePer100(), 100*RealFalseShare, plain.FalsePer100())
		check(ours.Recall() >= peers.Recall(), "real-world recall %.3f at medium, below the peers' z-score's %.3f", ours.Recall(), peers.Recall())
		check(ours.FalsePer100() <= peers.FalsePer100(), "real-world %.2f false alerts per 100 points at medium, above the peers' z-score's %.2f",
			ours.FalsePer100(), peers.FalsePer100())
		for _, m := range r.Matched {
			check(math.IsNaN(m.Threshold) || ours.FalsePer100() <= RealFalseShare*m.Tally.FalsePer100(),
				"real-world %.2f false alerts per 100 points at medium, above %.0f%% of the %.2f %s raises at equal recall",
				ours.FalsePer100(), 100*RealFalseShare, m.Tally.FalsePer100(), m.Detector)
		}
		check(len(r.Real.Crashes) == 0, "%d crashes on real-world series", len(r.Real.Crashes))
	}
	return out
}
