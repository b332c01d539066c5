package anomalies

import (
	"fmt"
	"math"

	"github.com/dqs/dqs/anomaly"
)

// Detector says, for each point of a series, whether it alerts.
type Detector struct {
	Name   string
	Alerts func(s Series, sens anomaly.Sensitivity) []bool
}

// zWindow is the trailing window of the z-score baselines, in scans.
const zWindow = 30

// zThreshold is the z-score baselines' threshold per sensitivity: 3 at
// medium, as the peers ship it.
func zThreshold(sens anomaly.Sensitivity) float64 {
	switch sens {
	case anomaly.Low:
		return 3.5
	case anomaly.High:
		return 2.5
	}
	return 3
}

// Detectors are ours and the two baselines, in report order.
var Detectors = []Detector{
	{"dqs", ours},
	// As the peers do it: the window holds the value under test, so a
	// lone outlier among n values can never score above (n-1)/√n (5.3
	// for 30 values, under 3 for 10 or fewer): it hides in its own
	// baseline. Past incidents stay in the window too.
	{PeersZ, func(s Series, sens anomaly.Sensitivity) []bool { return zscore(s, sens, true) }},
	// The same without the value under test: the fair textbook version.
	{PlainZ, func(s Series, sens anomaly.Sensitivity) []bool { return zscore(s, sens, false) }},
}

// ours replays the series through the detector, as scans would.
func ours(s Series, sens anomaly.Sensitivity) []bool {
	vs := anomaly.Replay(s.Points, anomaly.Options{Sensitivity: sens, Scale: s.Scale, Rows: s.Rows})
	out := make([]bool, len(vs))
	for i, v := range vs {
		out[i] = v.Anomalous
	}
	return out
}

// zscore alerts when a value is at least zThreshold sample standard
// deviations from the mean of the trailing zWindow values, which end at
// the value when inclusive and just before it otherwise. Scans before
// anomaly.WarmUp are not judged, as for ours.
func zscore(s Series, sens anomaly.Sensitivity, inclusive bool) []bool {
	return zAlerts(zScores(s, inclusive), zThreshold(sens))
}

// zScores is each point's distance from the mean of its trailing window
// in standard deviations (see zscore): 0 before anomaly.WarmUp, and for a
// value equal to a window with no spread; +Inf for any other value of
// such a window (infinitely far; an inclusive one cannot have any).
func zScores(s Series, inclusive bool) []float64 {
	out := make([]float64, len(s.Points))
	for i := anomaly.WarmUp; i < len(s.Points); i++ {
		from, to := max(0, i-zWindow), i
		if inclusive {
			from, to = max(0, i+1-zWindow), i+1
		}
		var w []float64
		for _, p := range s.Points[from:to] {
			w = append(w, p.Value)
		}
		mean, sd := meanSD(w)
		switch x := s.Points[i].Value; {
		case sd > 0:
			out[i] = math.Abs(x-mean) / sd
		case x != mean:
			out[i] = math.Inf(1)
		}
	}
	return out
}

// zAlerts alerts where a score reaches the threshold k.
func zAlerts(scores []float64, k float64) []bool {
	out := make([]bool, len(scores))
	for i, z := range scores {
		out[i] = z > 0 && z >= k
	}
	return out
}

// meanSD is the mean and the sample (n-1) standard deviation.
func meanSD(vs []float64) (mean, sd float64) {
	for _, v := range vs {
		mean += v
	}
	mean /= float64(len(vs))
	if len(vs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range vs {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(vs)-1))
}

// run calls d on s, turning a panic into an error: a detector that
// crashes on a series is reported, not the end of the evaluation.
func run(d Detector, s Series, sens anomaly.Sensitivity) (alerts []bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s crashed on %s (%d points): %v", d.Name, s.Name, len(s.Points), r)
		}
	}()
	alerts = d.Alerts(s, sens)
	if len(alerts) != len(s.Points) {
		return nil, fmt.Errorf("%s returned %d verdicts for %d points of %s", d.Name, len(alerts), len(s.Points), s.Name)
	}
	return alerts, nil
}
