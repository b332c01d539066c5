package columns

import (
	"math"
	"strings"
	"testing"

	"github.com/dqs/dqs/classify"
)

func pred(id, truth, label string, conf float64) Prediction {
	return Prediction{ID: id, Name: id, Truth: truth,
		Result: classify.Result{Label: label, Category: classify.CategoryOf(label), Confidence: conf}}
}

// handMade is a small set of results whose scores are worked out by hand in
// TestReportArithmetic.
func handMade() []Prediction {
	return []Prediction{
		pred("a", "email", "email", 0.97),           // right
		pred("b", "email", "phone", 0.85),           // wrong, confident
		pred("c", "phone", "phone", 0.55),           // right, unsure
		pred("d", "identifier", "identifier", 0.90), // right
		pred("e", "identifier", "phone", 0.82),      // false positive
		pred("f", "category", "unknown", 0.30),      // wrong, not personal
		pred("g", "health", "health", 1.00),         // right
		pred("h", "health", "category", 0.70),       // missed special category
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestReportArithmetic(t *testing.T) {
	r := newReport(handMade())

	want := map[string]LabelScore{
		// label: support, predicted, correct, P, R, F1
		"email":      {Support: 2, Predicted: 1, Correct: 1, Precision: 1, Recall: 0.5, F1: 2.0 / 3},
		"phone":      {Support: 1, Predicted: 3, Correct: 1, Precision: 1.0 / 3, Recall: 1, F1: 0.5},
		"health":     {Support: 2, Predicted: 1, Correct: 1, Precision: 1, Recall: 0.5, F1: 2.0 / 3},
		"identifier": {Support: 2, Predicted: 1, Correct: 1, Precision: 1, Recall: 0.5, F1: 2.0 / 3},
		"category":   {Support: 1, Predicted: 1, Correct: 0, Precision: 0, Recall: 0, F1: 0},
	}
	if len(r.Labels) != len(want) {
		t.Fatalf("%d label rows, want %d (labels absent from the truth, like unknown, get none): %+v", len(r.Labels), len(want), r.Labels)
	}
	for _, s := range r.Labels {
		w, ok := want[s.Label]
		if !ok {
			t.Errorf("unexpected label row %s", s.Label)
			continue
		}
		if s.Support != w.Support || s.Predicted != w.Predicted || s.Correct != w.Correct ||
			!near(s.Precision, w.Precision) || !near(s.Recall, w.Recall) || !near(s.F1, w.F1) {
			t.Errorf("%s: got %+v, want %+v", s.Label, s, w)
		}
	}
	// Personal first, then special, then the rest, by name within.
	var order []string
	for _, s := range r.Labels {
		order = append(order, s.Label)
	}
	if got := strings.Join(order, " "); got != "email phone health category identifier" {
		t.Errorf("label order %q", got)
	}

	if want := (2.0/3 + 0.5 + 2.0/3) / 3; !near(r.MacroF1, want) {
		t.Errorf("macro F1 = %v, want %v (email, phone, health only)", r.MacroF1, want)
	}
	if r.NonPersonal != 3 || r.FalsePositives != 1 || !near(r.FalsePositiveRate, 1.0/3) {
		t.Errorf("false positives %d of %d (%v), want 1 of 3", r.FalsePositives, r.NonPersonal, r.FalsePositiveRate)
	}
	if r.Confident != 4 || r.ConfidentCorrect != 2 || !near(r.ConfidentAccuracy, 0.5) {
		t.Errorf("confident %d/%d = %v, want 2/4", r.ConfidentCorrect, r.Confident, r.ConfidentAccuracy)
	}

	wantBuckets := []struct{ count, correct int }{{0, 0}, {1, 1}, {0, 0}, {0, 0}, {2, 0}, {0, 0}, {2, 2}}
	if len(r.Calibration) != len(wantBuckets) {
		t.Fatalf("%d buckets", len(r.Calibration))
	}
	for i, b := range r.Calibration {
		w := wantBuckets[i]
		if b.Count != w.count || b.Correct != w.correct {
			t.Errorf("bucket [%.2f, %.2f): %d/%d, want %d/%d", b.Lo, b.Hi, b.Correct, b.Count, w.correct, w.count)
		}
		if b.Count == 0 && !math.IsNaN(b.Accuracy) || b.Count > 0 && !near(b.Accuracy, float64(b.Correct)/float64(b.Count)) {
			t.Errorf("bucket %d accuracy %v", i, b.Accuracy)
		}
	}

	if f := r.Failures(); len(f) != 3 {
		t.Errorf("failures = %q, want all three targets missed", f)
	}
}

func TestBucketBoundaries(t *testing.T) {
	for _, tc := range []struct {
		conf float64
		want int
	}{
		{0, 0}, {0.4999, 0}, {0.5, 1}, {0.5999, 1}, {0.6, 2}, {0.7, 3}, {0.7999, 3}, {0.8, 4},
		{0.8999, 4}, {0.9, 5}, {0.9499, 5}, {0.95, 6}, {1, 6},
	} {
		if got := bucketOf(tc.conf); got != tc.want {
			t.Errorf("bucketOf(%v) = %d, want %d", tc.conf, got, tc.want)
		}
	}
}

func TestFailuresAtTheTargets(t *testing.T) {
	perfect := newReport([]Prediction{
		pred("a", "email", "email", 0.99),
		pred("b", "identifier", "identifier", 0.9),
	})
	if f := perfect.Failures(); len(f) != 0 {
		t.Errorf("perfect report fails: %q", f)
	}

	// 1 false positive in 50 non-personal columns is exactly 2%: allowed.
	preds := []Prediction{pred("p", "email", "email", 0.99), pred("fp", "identifier", "phone", 0.5)}
	for i := 0; i < 49; i++ {
		preds = append(preds, pred("n", "number", "number", 0.9))
	}
	if f := newReport(preds).Failures(); len(f) != 0 {
		t.Errorf("2%% false positives should pass, got %q", f)
	}
	preds = append(preds[:1], preds[2:]...) // drop the false positive …
	preds = append(preds, pred("fp1", "number", "age", 0.4), pred("fp2", "date", "date_of_birth", 0.6))
	// … two in 51 is 3.9%. Age and date_of_birth are no truth label here, so
	// they get no row and leave the macro F1 (email only) at 1.
	if f := newReport(preds).Failures(); len(f) != 1 || !strings.Contains(f[0], "false-positive rate is 3.9% (2 of 51") {
		t.Errorf("failures = %q, want only the false-positive rate", f)
	}

	noConfident := newReport([]Prediction{pred("a", "email", "email", 0.7)})
	if f := noConfident.Failures(); len(f) != 1 || !strings.Contains(f[0], "no personal prediction") {
		t.Errorf("failures = %q, want the missing confident predictions reported", f)
	}
}

func TestPrint(t *testing.T) {
	var b strings.Builder
	newReport(handMade()).Print(&b)
	out := b.String()
	for _, s := range []string{"PRECISION", "Macro F1", "False-positive rate: 33.3% (1 of 3", "[0.95, 1.00]", "TARGETS MISSED", "identifier → phone"} {
		if !strings.Contains(out, s) {
			t.Errorf("report lacks %q:\n%s", s, out)
		}
	}
	// False alarms are listed before other mistakes.
	if fp, miss := strings.Index(out, "  e "), strings.Index(out, "  b "); fp < 0 || miss < 0 || fp > miss {
		t.Errorf("the false positive should come first:\n%s", out)
	}
}

func TestEvaluateUsesTheProductPath(t *testing.T) {
	v := func(s string) *string { return &s }
	var vals []*string
	for _, e := range []string{"anna.svensson@example.se", "erik@firma.se", "  ", "lars.nilsson@telia.com"} {
		vals = append(vals, v(e), nil)
	}
	for i := 0; i < 40; i++ {
		vals = append(vals, v("user"+string(rune('a'+i%26))+"@example.org"))
	}
	r := Evaluate([]Case{{ID: "x", Name: "epost", Label: "email", Values: vals}})
	p := r.Predictions[0]
	if p.Result.Label != "email" {
		t.Fatalf("label %s, evidence %v", p.Result.Label, p.Result.Evidence)
	}
	// Nulls and blanks never reach the classifier: the profile samples
	// non-empty values only.
	if ev := strings.Join(p.Result.Evidence, " "); !strings.Contains(ev, "of 43 values") {
		t.Errorf("evidence %q should count the 43 non-empty values", ev)
	}
}
