package contracts

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/dqs/dqs/scanner"
)

// TestCompareOracle is the truth table of the operators, written out by
// hand: below, equal, within the tolerance, just outside it, above.
func TestCompareOracle(t *testing.T) {
	type row struct {
		actual, threshold      float64
		ge, le, gt, lt, eq, ne bool
	}
	const T = true
	const F = false
	rows := []row{
		{1, 2, F, T, F, T, F, T},
		{2, 1, T, F, T, F, F, T},
		{2, 2, T, T, F, F, T, F},
		{0, 0, T, T, F, F, T, F},
		{-0.0, 0, T, T, F, F, T, F},
		{0.1 + 0.2, 0.3, T, T, F, F, T, F},   // 0.30000000000000004 == 0.3
		{1e9 + 0.5, 1e9, T, T, F, F, T, F},   // within 1e-9 relative
		{1e9 + 2, 1e9, T, F, T, F, F, T},     // 2e-9 relative: not equal
		{1 - 1e-10, 1, T, T, F, F, T, F},     // share just under 1
		{1 - 1e-8, 1, F, T, F, T, F, T},      // a real difference
		{1e-12, 0, T, F, T, F, F, T},         // 0 equals only 0
		{0, 1e-300, F, T, F, T, F, T},        // relative: tiny is not zero
		{-5, -5.000000001, T, T, F, F, T, F}, // 2e-10 relative
		{-5, -4, F, T, F, T, F, T},
		{1e300, -1e300, T, F, T, F, F, T}, // difference overflows: not equal
		{0.05, 0.05, T, T, F, F, T, F},
		{0.0500001, 0.05, T, F, T, F, F, T},
		{3, 3.0000000029, T, T, F, F, T, F}, // < 1e-9 relative
		{3, 3.0000000031, F, T, F, T, F, T}, // > 1e-9 relative
	}
	for _, r := range rows {
		want := map[string]bool{">=": r.ge, "<=": r.le, ">": r.gt, "<": r.lt, "==": r.eq, "!=": r.ne}
		for _, op := range Operators {
			got, err := Compare(r.actual, op, r.threshold)
			if err != nil {
				t.Fatal(err)
			}
			if got != want[op] {
				t.Errorf("%v %s %v: got %v, want %v", r.actual, op, r.threshold, got, want[op])
			}
		}
	}
}

// TestCompareIsATrichotomy checks over many pairs that exactly one of <,
// ==, > holds and that <=, >=, != follow from them.
func TestCompareIsATrichotomy(t *testing.T) {
	vals := []float64{0, -0.0, 1, -1, 0.1, 0.3, 0.1 + 0.2, 1e-9, 1 + 1e-10, 1 + 1e-8, 1e15, 1e15 + 1, 1e300, -1e300, 5e-324}
	for _, a := range vals {
		for _, b := range vals {
			c := func(op string) bool { v, _ := Compare(a, op, b); return v }
			lt, eq, gt := c("<"), c("=="), c(">")
			if n := btoi(lt) + btoi(eq) + btoi(gt); n != 1 {
				t.Errorf("%v vs %v: < %v == %v > %v", a, b, lt, eq, gt)
			}
			if c("<=") != (lt || eq) || c(">=") != (gt || eq) || c("!=") == eq {
				t.Errorf("%v vs %v: derived operators disagree", a, b)
			}
			if Equal(a, b) != Equal(b, a) {
				t.Errorf("Equal(%v, %v) is not symmetric", a, b)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestCompareRejects(t *testing.T) {
	for _, tc := range []struct {
		a  float64
		op string
		b  float64
	}{{1, "=", 1}, {math.NaN(), "==", 1}, {1, "<", math.Inf(1)}, {math.Inf(-1), ">", 0}} {
		if ok, err := Compare(tc.a, tc.op, tc.b); ok || err == nil {
			t.Errorf("%v %s %v: got %v, %v", tc.a, tc.op, tc.b, ok, err)
		}
	}
}

// scanMetrics is the latest scan of an orders table: 1000 rows, an id
// column, a text email column (no mean), an amount column, no
// quality_score.
func scanMetrics() *Metrics {
	m := NewMetrics()
	m.Set("", "row_count", 1000)
	m.Set("", "column_count", 3)
	m.Set("id", "null_rate", 0)
	m.Set("id", "empty_rate", 0)
	m.Set("id", "distinct_count", 1000)
	m.Set("email", "null_rate", 0.02)
	m.Set("email", "empty_rate", 0.001)
	m.Set("email", "distinct_count", 950)
	m.Set("email", "format_conformance", 0.97)
	m.Set("amount", "null_rate", 0)
	m.Set("amount", "distinct_count", 400)
	m.Set("amount", "mean", 42.5)
	m.Set("amount", "min", -3)
	m.AddColumn("notes")
	return m
}

func TestEvaluateOracle(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		rule    Rule
		actual  *float64
		passed  bool
		skipped string // a word of the reason; "" when evaluated
	}{
		{Rule{Metric: "row_count", Operator: ">=", Threshold: 1000}, f(1000), true, ""},
		{Rule{Metric: "row_count", Operator: ">", Threshold: 1000}, f(1000), false, ""},
		{Rule{Metric: "row_count", Operator: "<", Threshold: 1000}, f(1000), false, ""},
		{Rule{Metric: "row_count", Operator: "<=", Threshold: 1000}, f(1000), true, ""},
		{Rule{Metric: "row_count", Operator: "==", Threshold: 1000}, f(1000), true, ""},
		{Rule{Metric: "row_count", Operator: "!=", Threshold: 1000}, f(1000), false, ""},
		{Rule{Metric: "row_count", Operator: ">", Threshold: 999}, f(1000), true, ""},
		{Rule{Metric: "column_count", Operator: "==", Threshold: 3}, f(3), true, ""},
		{Rule{Metric: "id", Column: "", Operator: "==", Threshold: 0}, nil, false, "invalid rule"},
		{Rule{Metric: "null_rate", Column: "id", Operator: "==", Threshold: 0}, f(0), true, ""},
		{Rule{Metric: "null_rate", Column: "email", Operator: "<=", Threshold: 0.02}, f(0.02), true, ""},
		{Rule{Metric: "null_rate", Column: "email", Operator: "<", Threshold: 0.02}, f(0.02), false, ""},
		{Rule{Metric: "null_rate", Column: "email", Operator: "<", Threshold: 0.01, Severity: "critical"}, f(0.02), false, ""},
		{Rule{Metric: "null_rate", Column: "email", Operator: "!=", Threshold: 0}, f(0.02), true, ""},
		{Rule{Metric: "empty_rate", Column: "email", Operator: "<=", Threshold: 0.001}, f(0.001), true, ""},
		{Rule{Metric: "format_conformance", Column: "email", Operator: ">=", Threshold: 0.95}, f(0.97), true, ""},
		{Rule{Metric: "distinct_count", Column: "id", Operator: "==", Threshold: 1000}, f(1000), true, ""},
		{Rule{Metric: "mean", Column: "amount", Operator: ">", Threshold: 42.5}, f(42.5), false, ""},
		{Rule{Metric: "min", Column: "amount", Operator: ">=", Threshold: 0, Severity: "info"}, f(-3), false, ""},
		{Rule{Metric: "mean", Column: "email", Operator: ">", Threshold: 1}, nil, false, "numeric columns only"},
		{Rule{Metric: "max", Column: "amount", Operator: "<", Threshold: 1}, nil, false, "numeric columns only"},
		{Rule{Metric: "format_conformance", Column: "amount", Operator: ">", Threshold: 0.5}, nil, false, "recognised format"},
		{Rule{Metric: "null_rate", Column: "notes", Operator: "==", Threshold: 0}, nil, false, "table without rows"},
		{Rule{Metric: "null_rate", Column: "phone", Operator: "==", Threshold: 0}, nil, false, `column "phone" is not in the latest scan`},
		{Rule{Metric: "quality_score", Operator: ">=", Threshold: 80}, nil, false, "sample has no rows"},
		{Rule{Metric: "null_rate", Column: "id", Operator: "=", Threshold: 0}, nil, false, "invalid rule"},
	}
	rules := make([]Rule, len(cases))
	for i, c := range cases {
		rules[i] = c.rule
	}
	ev := Evaluate(rules, scanMetrics())
	if len(ev.Results) != len(cases) {
		t.Fatalf("%d results for %d rules", len(ev.Results), len(cases))
	}
	failed, skipped := 0, 0
	for i, c := range cases {
		r := ev.Results[i]
		if r.Metric != c.rule.Metric || r.Column != c.rule.Column || r.Operator != c.rule.Operator || r.Threshold != c.rule.Threshold {
			t.Errorf("%d: result %+v does not echo the rule", i, r)
		}
		wantSev := c.rule.Severity
		if wantSev == "" {
			wantSev = "warning"
		}
		if r.Severity != wantSev {
			t.Errorf("%d: severity %q, want %q", i, r.Severity, wantSev)
		}
		switch {
		case c.skipped != "":
			skipped++
			if !r.Skipped || r.Passed || r.Actual != nil || !strings.Contains(r.Reason, c.skipped) {
				t.Errorf("%d %s: got %+v, want skipped for %q", i, c.rule, r, c.skipped)
			}
		default:
			if !c.passed {
				failed++
			}
			if r.Skipped || r.Reason != "" || r.Passed != c.passed || r.Actual == nil || *r.Actual != *c.actual {
				t.Errorf("%d %s: got %+v (actual %v), want passed=%v actual=%v", i, c.rule, r, deref(r.Actual), c.passed, *c.actual)
			}
		}
	}
	if ev.Passed || ev.Failed != failed || ev.Skipped != skipped || ev.Evaluated != len(cases)-skipped {
		t.Errorf("passed %v failed %d skipped %d evaluated %d; want false %d %d %d", ev.Passed, ev.Failed, ev.Skipped, ev.Evaluated, failed, skipped, len(cases)-skipped)
	}
	if len(ev.Violations()) != failed {
		t.Errorf("%d violations, want %d", len(ev.Violations()), failed)
	}
	if ev.WorstSeverity() != "critical" {
		t.Errorf("worst severity %q", ev.WorstSeverity())
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func TestEvaluateOverall(t *testing.T) {
	m := scanMetrics()
	pass := Rule{Metric: "row_count", Operator: ">", Threshold: 0}
	fail := Rule{Metric: "row_count", Operator: "<", Threshold: 10, Severity: "info"}
	skip := Rule{Metric: "mean", Column: "email", Operator: ">", Threshold: 0}
	cases := []struct {
		rules  []Rule
		passed bool
		worst  string
	}{
		{nil, true, ""},
		{[]Rule{pass}, true, ""},
		{[]Rule{skip}, true, ""},
		{[]Rule{pass, skip}, true, ""},
		{[]Rule{pass, fail, skip}, false, "info"},
		{[]Rule{fail, {Metric: "row_count", Operator: "<", Threshold: 10}}, false, "warning"},
	}
	for i, c := range cases {
		ev := Evaluate(c.rules, m)
		if ev.Passed != c.passed || ev.WorstSeverity() != c.worst {
			t.Errorf("%d: passed %v worst %q, want %v %q", i, ev.Passed, ev.WorstSeverity(), c.passed, c.worst)
		}
	}
	// Never scanned: every rule is skipped and says so.
	for _, m := range []*Metrics{nil, NewMetrics(), {}} {
		ev := Evaluate([]Rule{pass}, m)
		if ev.Skipped != 1 || !strings.Contains(ev.Results[0].Reason, "not been scanned") {
			t.Errorf("empty metrics: %+v", ev)
		}
	}
	// A non-finite recorded value is not compared.
	bad := NewMetrics()
	bad.Set("", "row_count", math.NaN())
	if ev := Evaluate([]Rule{pass}, bad); ev.Skipped != 1 {
		t.Errorf("NaN: %+v", ev)
	}
}

func TestEvaluateJSON(t *testing.T) {
	ev := Evaluate([]Rule{
		{Metric: "null_rate", Column: "email", Operator: "<=", Threshold: 0.05, Severity: "critical"},
		{Metric: "mean", Column: "email", Operator: ">", Threshold: 1},
	}, scanMetrics())
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"passed":true,"evaluated":1,"failed":0,"skipped":1,"results":[` +
		`{"metric":"null_rate","column":"email","operator":"\u003c=","threshold":0.05,"actual":0.02,"passed":true,"severity":"critical","skipped":false},` +
		`{"metric":"mean","column":"email","operator":"\u003e","threshold":1,"actual":null,"passed":false,"severity":"warning","skipped":true,"reason":"mean is recorded for numeric columns only, and column \"email\" is not numeric"}]}`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestMetricsFromScan(t *testing.T) {
	res := &scanner.Result{Rows: 4, Columns: []scanner.Column{{}, {}}}
	res.Columns[0].Name, res.Columns[0].Nulls, res.Columns[0].Distinct = "a", 1, 3
	res.Columns[1].Name, res.Columns[1].Distinct = "b", 4
	m := MetricsFromScan(res.Metrics())
	if v, ok := m.Value("a", "null_rate"); !ok || v != 0.25 {
		t.Errorf("a null_rate %v %v", v, ok)
	}
	if v, ok := m.Value("", "row_count"); !ok || v != 4 {
		t.Errorf("row_count %v %v", v, ok)
	}
	if !m.HasColumn("b") || m.HasColumn("c") {
		t.Error("columns")
	}
	ev := Evaluate([]Rule{
		{Metric: "null_rate", Column: "a", Operator: "<=", Threshold: 0.25},
		{Metric: "null_rate", Column: "b", Operator: "==", Threshold: 0},
		{Metric: "mean", Column: "b", Operator: ">", Threshold: 0},
	}, m)
	if !ev.Passed || ev.Evaluated != 2 || ev.Skipped != 1 {
		t.Errorf("%+v", ev)
	}
}
