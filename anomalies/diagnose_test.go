package anomalies

import (
	"math"
	"strings"
	"testing"

	"github.com/dqs/dqs/anomaly"
)

func finding(metric, column string, score, change float64) anomaly.Finding {
	return anomaly.Finding{Table: "orders", Column: column, Metric: metric,
		Verdict: anomaly.Verdict{Anomalous: true, Score: score, Change: change}}
}

func incident(fs ...anomaly.Finding) anomaly.Incident {
	return anomaly.Incident{Table: "orders", Primary: fs[0], Related: fs[1:]}
}

// Each pattern of metrics moving together gets its cause and confidence,
// the first matching rule winning.
func TestDiagnose(t *testing.T) {
	for _, c := range []struct {
		name  string
		in    anomaly.Incident
		cause string
		conf  float64
		words string
	}{
		{"broken load", incident(finding("row_count", "", -9, -0.6), finding("null_rate", "email", 7, math.NaN()), finding("null_rate", "phone", 6, 2)),
			CausePartialLoad, 0.8, "email and phone went empty"},
		{"rows missing", incident(finding("row_count", "", -9, -0.4)), CausePartialLoad, 0.6, "fewer rows"},
		{"loaded twice", incident(finding("row_count", "", 9, 1.0), finding("distinct_count", "id", 3, 0.1)), CauseDuplicatedLoad, 0.7, "twice"},
		{"backfill", incident(finding("row_count", "", 9, 0.3)), CauseDuplicatedLoad, 0.5, "more rows"},
		{"field dropped", incident(finding("null_rate", "phone", 9, 4)), CauseColumnNotFilled, 0.7, "phone went empty"},
		{"empty strings", incident(finding("empty_rate", "city", 9, 4)), CauseColumnNotFilled, 0.7, "city"},
		{"placeholder", incident(finding("distinct_count", "country", -9, -0.9)), CausePlaceholder, 0.7, "country lost"},
		{"distinct dip", incident(finding("distinct_count", "country", -9, -0.3)), CauseUnknown, 0.3, "without a known pattern"},
		{"format", incident(finding("format_conformance", "signup_date", -9, -0.4)), CauseFormatChange, 0.75, "signup_date no longer"},
		{"cents", incident(finding("mean", "amount", 9, 99)), CauseScaleChange, 0.7, "power of ten"},
		{"grams", incident(finding("median", "weight", -9, -0.999)), CauseScaleChange, 0.7, "power of ten"},
		{"price rise", incident(finding("mean", "amount", 9, 0.3)), CauseUnknown, 0.3, "drifted"},
		{"mean from zero", incident(finding("mean", "amount", 9, math.NaN())), CauseUnknown, 0.3, "drifted"},
	} {
		d := Diagnose(c.in)
		if d.Cause != c.cause || d.Confidence != c.conf || !strings.Contains(d.Explanation, c.words) {
			t.Errorf("%s: %s %.2f %q, want %s %.2f containing %q", c.name, d.Cause, d.Confidence, d.Explanation, c.cause, c.conf, c.words)
		}
		if len(d.Metrics) != 1+len(c.in.Related) || len(d.Checks) == 0 || !strings.Contains(d.Explanation, d.Metrics[0]) {
			t.Errorf("%s: metrics %v, checks %v", c.name, d.Metrics, d.Checks)
		}
	}
}
