// Package anomaly judges whether a metric's new value is out of line with
// its history: one series per (source, table, column, metric), one value
// per scan. It is a pure engine: points in, verdicts out; the scan
// activities feed it the metric history and keep what it says.
//
// The baseline is robust and never contains the value under test: the
// median of the window before it, with the median absolute deviation
// (MAD) as its spread (and at least 0.9 of the window's standard
// deviation, which sees structure a MAD overlooks), so one past outlier
// moves neither. Values once flagged stay out of later baselines (a repeat
// of the same failure is flagged again) unless a user marked them
// expected; a run of AdaptAfter values at a consistent new level becomes
// the new normal, so a deliberate change does not alert for ever, and a
// return to the old level while the new one is young is no anomaly. A
// floor on the spread, by the metric's scale (a share's sampling noise
// over the table's rows, a count's Poisson noise, half the resolution a
// level is recorded at), keeps flat series from alerting on noise. Counts
// (row_count, distinct_count) follow their trend, since tables grow;
// levels do when it carries them across weeks; shares never, so a slow
// decay of conformance is an anomaly, not a trend.
//
// A count or a level whose deviations from that baseline persist from one
// value to the next (lag-1 autocorrelation beyond what noise gives: a
// random walk, the weather, a smooth curve) is judged against where it
// just was, an AR(1) forecast from its last trained value with the spread
// of such forecasts; when its last value was flagged, a value that the
// forecast from that one explains is no new anomaly (the series moved, and
// the move was flagged once). Once a series spans two weeks (two days for
// one scanned more than four times a day), a weekly (daily) pattern is
// used when values a period apart differ much less than consecutive ones;
// before that, a value like the same weekday's a week earlier, which was
// as far from the baseline, is its second sighting, not an anomaly. A
// baseline learnt from fewer than Window values has its band widened by
// Student's t (a share's is not: its noise is known, and a slow decay must
// be caught early).
//
// A flagged move is flagged once: a value at the level the series moved
// to, all values since having stayed there, continues it.
//
// A series is silent until it has WarmUp points. docs/decisions.md
// "Anomaly detection" has the thresholds and the evaluation.
package anomaly

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Sensitivity sets how far outside its baseline a value must be.
type Sensitivity string

// Sensitivities, from the fewest alerts to the most.
const (
	Low    Sensitivity = "low"
	Medium Sensitivity = "medium"
	High   Sensitivity = "high"
)

// Sensitivities lists them in order.
var Sensitivities = []Sensitivity{Low, Medium, High}

// ParseSensitivity reads low, medium or high.
func ParseSensitivity(s string) (Sensitivity, error) {
	for _, v := range Sensitivities {
		if string(v) == s {
			return v, nil
		}
	}
	return "", fmt.Errorf("sensitivity %q is not low, medium or high", s)
}

// Threshold is the number of robust standard deviations (1.4826 MAD, or
// the floor) a value must be from its baseline to be flagged.
func (s Sensitivity) Threshold() float64 {
	switch s {
	case Low:
		return 6
	case High:
		return 3.5
	}
	return 4.5
}

// State is what became of a past point.
type State int

const (
	// Normal points train the baseline.
	Normal State = iota
	// Flagged points were anomalies and stay out of baselines.
	Flagged
	// Expected points were flagged, then marked expected by a user: they
	// train the baseline again.
	Expected
	// Confirmed points were flagged and confirmed by a user: they stay
	// out of baselines for good, even in a run of them.
	Confirmed
)

// Point is one value of a series.
type Point struct {
	At    time.Time
	Value float64
	State State
}

// Scale is how a metric's values are measured, which decides the floor of
// the spread and whether the baseline follows a trend.
type Scale int

const (
	// Share is a fraction in [0, 1]: null_rate, empty_rate,
	// format_conformance.
	Share Scale = iota
	// Count is a non-negative count that may grow: row_count,
	// distinct_count, column_count.
	Count
	// Level is any other number: mean, median, stddev, min, max,
	// quality_score.
	Level
)

// ScaleOf is the scale of a metric a scan records.
func ScaleOf(metric string) Scale {
	switch metric {
	case "null_rate", "empty_rate", "format_conformance":
		return Share
	case "row_count", "distinct_count", "column_count":
		return Count
	}
	return Level
}

// Options are what a series is judged with.
type Options struct {
	Sensitivity Sensitivity
	Scale       Scale
	// Rows is the number of rows a share was measured over (the table's
	// row count), whose sampling noise bounds the spread from below; 0
	// when unknown.
	Rows int64
}

// Baseline is what a value was compared with.
type Baseline struct {
	// Center is the expected value: the window's median, or its trend's
	// or its weekly pattern's value at the point's time, or (for a series
	// that follows its last value) the forecast from its last value.
	Center float64 `json:"center"`
	// Spread is the robust standard deviation used (1.4826 MAD of the
	// residuals or of the forecasts' errors, widened for a short window,
	// or the floor when that is smaller).
	Spread float64 `json:"spread"`
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stddev"`
	Median float64 `json:"median"`
	MAD    float64 `json:"mad"`
	// N is the number of past values in the window.
	N           int       `json:"n"`
	WindowStart time.Time `json:"window_start"`
	WindowEnd   time.Time `json:"window_end"`
	// Seasonal is set when the weekly (or daily) pattern was used.
	Seasonal bool `json:"seasonal"`
	// Trend is the slope per day followed by a count's baseline; 0 when
	// none.
	Trend float64 `json:"trend"`
}

// Verdict is the judgement of one value.
type Verdict struct {
	At    time.Time `json:"at"`
	Value float64   `json:"value"`
	// WarmingUp is set while the series has fewer than WarmUp points to
	// learn from; such a value is never anomalous.
	WarmingUp bool `json:"warming_up"`
	Anomalous bool `json:"anomalous"`
	// Score is the signed distance from the baseline's center, in
	// spreads.
	Score float64 `json:"score"`
	// Low and High bound the expected band at the sensitivity.
	Low      float64  `json:"low"`
	High     float64  `json:"high"`
	Baseline Baseline `json:"baseline"`
	// Change is the relative change from the center (0.25 is +25%); NaN
	// when the center is 0.
	Change      float64     `json:"change"`
	Sensitivity Sensitivity `json:"sensitivity"`
	Threshold   float64     `json:"threshold"`
}

// MarshalJSON writes the numbers that are not finite (the change from a
// center of 0, a warming-up verdict's) as null, which JSON can hold.
func (v Verdict) MarshalJSON() ([]byte, error) {
	type plain Verdict
	return json.Marshal(struct {
		plain
		Score  *float64 `json:"score"`
		Low    *float64 `json:"low"`
		High   *float64 `json:"high"`
		Change *float64 `json:"change"`
	}{plain(v), finiteOrNil(v.Score), finiteOrNil(v.Low), finiteOrNil(v.High), finiteOrNil(v.Change)})
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
