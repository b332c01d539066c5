package anomalies

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dqs/dqs/anomaly"
)

// TestDiagnoseRealWorld explains the real-world table. It is a tool, not
// a check: it runs only with DQS_ANOMALY_DIAG set (and the fixtures), so
// that `go test` stays quiet:
//
//	DQS_ANOMALY_DIAG=1 DQS_FIXTURES=/path/to/fixtures go test ./evaluation/anomalies -run Diagnose -v
//
// It prints, per source, the lag-1 autocorrelation of the clean series'
// deviations from their rolling median (how much a value says of the
// next), the windows caught by dqs and by zscore per injected kind, and
// dqs's false alerts split into onsets (the scan before did not alert)
// and continuations; then, per series, each labelled window (its kind,
// its step in the series' noise and in the z-score window's standard
// deviation, whether dqs and zscore caught it, dqs's score and baseline
// there) and each false alert of dqs. DQS_ANOMALY_DIAG=summary leaves the
// per-series part out; DQS_ANOMALY_SENS picks the sensitivity (default
// medium); DQS_ANOMALY_ONLY keeps the series whose name contains it.
func TestDiagnoseRealWorld(t *testing.T) {
	mode := os.Getenv("DQS_ANOMALY_DIAG")
	if mode == "" {
		t.Skip("set DQS_ANOMALY_DIAG=1 (or summary) to print the diagnosis")
	}
	dir := os.Getenv("DQS_FIXTURES")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "fixtures")
	}
	pieces, skipped, err := realPieces(dir)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != "" {
		t.Skip(skipped)
	}
	sens := anomaly.Medium
	if s := os.Getenv("DQS_ANOMALY_SENS"); s != "" {
		if sens, err = anomaly.ParseSensitivity(s); err != nil {
			t.Fatal(err)
		}
	}
	only := os.Getenv("DQS_ANOMALY_ONLY")

	type row struct {
		autocorr                    []float64
		windows, ours, theirs       map[string]int // by injected kind
		onsets, continued, zsFalse  int
		series, judged, falseAlerts int
	}
	rows := map[string]*row{}
	var order []string
	var detail strings.Builder
	for _, p := range pieces {
		s, clean := inject(p), p.Points
		if only != "" && !strings.Contains(s.Name, only) {
			continue
		}
		r := rows[s.Kind]
		if r == nil {
			r = &row{windows: map[string]int{}, ours: map[string]int{}, theirs: map[string]int{}}
			rows[s.Kind] = r
			order = append(order, s.Kind)
		}
		r.autocorr = append(r.autocorr, lag1(valuesOf(clean))...)
		vs := anomaly.Replay(s.Points, anomaly.Options{Sensitivity: sens, Scale: s.Scale, Rows: s.Rows})
		ours := make([]bool, len(vs))
		for i, v := range vs {
			ours[i] = v.Anomalous
		}
		z := zscore(s, sens, true)
		to, tz := score(ours, s.Windows, anomaly.WarmUp), score(z, s.Windows, anomaly.WarmUp)
		r.series++
		r.judged += to.Judged
		r.falseAlerts += to.False
		r.zsFalse += tz.False
		fmt.Fprintf(&detail, "%-58s n=%3d noise=%-9.4g dqs %2d/%2d false %2d | zscore %2d/%2d false %2d\n",
			s.Name, len(s.Points), noise(clean), to.Detected, to.Anomalies, to.False, tz.Detected, tz.Anomalies, tz.False)
		for _, w := range s.Windows {
			kind := "spike"
			if w.End > w.Start {
				kind = "shift"
			}
			caught := func(a []bool) bool { return slices.Contains(a[w.Start:min(w.End+1, len(a))], true) }
			r.windows[kind]++
			if caught(ours) {
				r.ours[kind]++
			}
			if caught(z) {
				r.theirs[kind]++
			}
			// The step at the window's start, net of an earlier shift.
			step := s.Points[w.Start].Value - clean[w.Start].Value
			if w.Start > 0 {
				step -= s.Points[w.Start-1].Value - clean[w.Start-1].Value
			}
			_, sd := meanSD(valuesOf(clean[max(0, w.Start-zWindow):w.Start]))
			v := vs[w.Start]
			fmt.Fprintf(&detail, "    %s@%-4d step %+5.1f noises %+6.2f z-sds  dqs %-5v zscore %-5v score %+7.2f %s\n",
				kind, w.Start, step/noise(clean), step/sd, caught(ours), caught(z), v.Score, describe(v))
		}
		for i := anomaly.WarmUp; i < len(vs); i++ {
			if !ours[i] || slices.ContainsFunc(s.Windows, func(w Window) bool { return w.contains(i) }) {
				continue
			}
			if ours[i-1] {
				r.continued++
			} else {
				r.onsets++
			}
			v := vs[i]
			fmt.Fprintf(&detail, "    false@%-4d value %-10.4g (before %-10.4g alert %-5v) score %+7.2f %s\n",
				i, v.Value, vs[i-1].Value, ours[i-1], v.Score, describe(v))
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "\nat %s: source, lag-1 autocorrelation (median), windows caught by dqs / zscore of all, per injected kind; false alerts\n", sens)
	for _, kind := range order {
		r := rows[kind]
		fmt.Fprintf(&b, "  %-22s %d series  autocorr %5.2f  spikes %3d / %3d of %3d  shifts %2d / %2d of %2d  false: dqs %3d (%d onsets, %d continuing), zscore %3d, in %d scans\n",
			kind, r.series, median(r.autocorr), r.ours["spike"], r.theirs["spike"], r.windows["spike"],
			r.ours["shift"], r.theirs["shift"], r.windows["shift"], r.falseAlerts, r.onsets, r.continued, r.zsFalse, r.judged)
	}
	if mode != "summary" {
		b.WriteString("\n" + detail.String())
	}
	t.Log(b.String())
}

// lag1 is the lag-1 autocorrelation of vals' deviations from the median
// of the Window values before each, every ten values.
func lag1(vals []float64) []float64 {
	var out []float64
	for i := anomaly.Window + 8; i < len(vals); i += 10 {
		w := vals[i-anomaly.Window : i]
		m := median(w)
		var num, den float64
		for j := range w {
			den += (w[j] - m) * (w[j] - m)
			if j > 0 {
				num += (w[j] - m) * (w[j-1] - m)
			}
		}
		if den > 0 {
			out = append(out, num/den)
		}
	}
	return out
}

// describe is a verdict's baseline in a few words.
func describe(v anomaly.Verdict) string {
	bl := v.Baseline
	kind := "median"
	switch {
	case bl.Seasonal:
		kind = "seasonal"
	case bl.Trend != 0:
		kind = fmt.Sprintf("trend %+.3g/day", bl.Trend)
	}
	if !bl.Seasonal && math.Abs(bl.Center-bl.Median) > 1e-9*math.Max(1, math.Abs(bl.Median)) && bl.Trend == 0 {
		kind = "last value"
	}
	return fmt.Sprintf("center %.6g spread %.3g (MAD-sd %.3g, sd %.3g, %d values, %s)", bl.Center, bl.Spread, 1.4826*bl.MAD, bl.StdDev, bl.N, kind)
}

func valuesOf(ps []anomaly.Point) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = p.Value
	}
	return out
}
