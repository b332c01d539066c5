package anomalies

import (
	"math"
	"slices"
)

// Tally is how a detector did on some series (see the package doc for the
// rules).
type Tally struct {
	Series    int
	Judged    int // scans from anomaly.WarmUp on
	Anomalies int // labelled windows
	Detected  int // windows with at least one alert
	Alerts    int // judged scans alerting
	False     int // alerts outside every window
	Delays    []int
}

// score tallies one series' alerts against its windows, judging scans
// from judgedFrom on.
func score(alerts []bool, windows []Window, judgedFrom int) Tally {
	t := Tally{Series: 1, Judged: max(0, len(alerts)-judgedFrom), Anomalies: len(windows)}
	for _, w := range windows {
		for i := max(w.Start, judgedFrom); i <= w.End && i < len(alerts); i++ {
			if alerts[i] {
				t.Detected++
				t.Delays = append(t.Delays, i-w.Start)
				break
			}
		}
	}
	for i := judgedFrom; i < len(alerts); i++ {
		if !alerts[i] {
			continue
		}
		t.Alerts++
		if !slices.ContainsFunc(windows, func(w Window) bool { return w.contains(i) }) {
			t.False++
		}
	}
	return t
}

// add pools o into t.
func (t *Tally) add(o Tally) {
	t.Series += o.Series
	t.Judged += o.Judged
	t.Anomalies += o.Anomalies
	t.Detected += o.Detected
	t.Alerts += o.Alerts
	t.False += o.False
	t.Delays = append(t.Delays, o.Delays...)
}

// Recall is detected / labelled windows; NaN without any.
func (t Tally) Recall() float64 { return ratio(t.Detected, t.Anomalies) }

// Precision is detected windows / (detected windows + false alerts); NaN
// when there was no alert.
func (t Tally) Precision() float64 { return ratio(t.Detected, t.Detected+t.False) }

// FalsePer100 is false alerts per 100 judged scans.
func (t Tally) FalsePer100() float64 { return 100 * ratio(t.False, t.Judged) }

// Delay is the nearest-rank q-quantile of the detection delays, in scans;
// NaN without a detection.
func (t Tally) Delay(q float64) float64 {
	if len(t.Delays) == 0 {
		return math.NaN()
	}
	d := slices.Sorted(slices.Values(t.Delays))
	return float64(d[max(0, int(math.Ceil(q*float64(len(d))))-1)])
}

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}
