package contracts

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/dqs/dqs/scanner"
)

func TestValidateAcceptsGoodRules(t *testing.T) {
	var rules []Rule
	for _, m := range scanner.MetricNames {
		col := "c"
		if IsTableMetric(m) {
			col = ""
		}
		for _, op := range Operators {
			for _, sev := range append([]string{""}, Severities...) {
				rules = append(rules, Rule{Metric: m, Column: col, Operator: op, Threshold: 0, Severity: sev})
			}
		}
	}
	// Split: the combinations are more than one contract may hold.
	for len(rules) > 0 {
		n := min(len(rules), MaxRules)
		if err := Validate(rules[:n]); err != nil {
			t.Fatal(err)
		}
		rules = rules[n:]
	}
	edge := []Rule{
		{Metric: "null_rate", Column: "a", Operator: "<=", Threshold: 1},
		{Metric: "format_conformance", Column: "a", Operator: ">=", Threshold: 1},
		{Metric: "quality_score", Operator: ">=", Threshold: 100},
		{Metric: "mean", Column: "a", Operator: ">", Threshold: -1e300},
		{Metric: "row_count", Operator: ">", Threshold: 1e15},
		{Metric: "distinct_count", Column: strings.Repeat("é", MaxIdentifierLen/2), Operator: "==", Threshold: 3},
	}
	if err := Validate(edge); err != nil {
		t.Fatal(err)
	}
	if err := Validate(nil); err != nil {
		t.Fatal(err)
	}
}

func TestValidateNamesTheBadField(t *testing.T) {
	good := Rule{Metric: "null_rate", Column: "email", Operator: "<=", Threshold: 0.05, Severity: "warning"}
	cases := []struct {
		name   string
		edit   func(*Rule)
		field  string
		reason string
	}{
		{"no metric", func(r *Rule) { r.Metric = "" }, "metric", "required"},
		{"unknown metric", func(r *Rule) { r.Metric = "nulls" }, "metric", `unknown metric "nulls"`},
		{"metric case", func(r *Rule) { r.Metric = "NULL_RATE" }, "metric", "unknown metric"},
		{"column metric without column", func(r *Rule) { r.Column = "" }, "column", "needs a column"},
		{"blank column", func(r *Rule) { r.Column = "  " }, "column", "required"},
		{"long column", func(r *Rule) { r.Column = strings.Repeat("x", MaxIdentifierLen+1) }, "column", "at most 1024 bytes"},
		{"control in column", func(r *Rule) { r.Column = "a\nb" }, "column", "control characters"},
		{"bad utf-8 column", func(r *Rule) { r.Column = "a\xffb" }, "column", "UTF-8"},
		{"table metric with column", func(r *Rule) { r.Metric, r.Threshold = "row_count", 5 }, "column", "takes no column"},
		{"no operator", func(r *Rule) { r.Operator = "" }, "operator", "unknown operator"},
		{"sql operator", func(r *Rule) { r.Operator = "=" }, "operator", `unknown operator "="`},
		{"word operator", func(r *Rule) { r.Operator = "gte" }, "operator", "unknown operator"},
		{"nan", func(r *Rule) { r.Threshold = math.NaN() }, "threshold", "finite"},
		{"inf", func(r *Rule) { r.Threshold = math.Inf(1) }, "threshold", "finite"},
		{"-inf", func(r *Rule) { r.Threshold = math.Inf(-1) }, "threshold", "finite"},
		{"percent as share", func(r *Rule) { r.Threshold = 5 }, "threshold", "share"},
		{"negative share", func(r *Rule) { r.Threshold = -0.01 }, "threshold", "share"},
		{"share above one", func(r *Rule) { r.Metric, r.Threshold = "format_conformance", 1.0000001 }, "threshold", "share"},
		{"empty share", func(r *Rule) { r.Metric, r.Threshold = "empty_rate", 2 }, "threshold", "share"},
		{"score above 100", func(r *Rule) { r.Metric, r.Column, r.Threshold = "quality_score", "", 101 }, "threshold", "[0, 100]"},
		{"negative count", func(r *Rule) { r.Metric, r.Column, r.Threshold = "row_count", "", -1 }, "threshold", "cannot be negative"},
		{"negative distinct", func(r *Rule) { r.Metric, r.Threshold = "distinct_count", -3 }, "threshold", "cannot be negative"},
		{"unknown severity", func(r *Rule) { r.Severity = "error" }, "severity", `unknown severity "error"`},
		{"severity case", func(r *Rule) { r.Severity = "Critical" }, "severity", "unknown severity"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := good
			tc.edit(&bad)
			rules := []Rule{good, good, bad, good}
			err := Validate(rules)
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want a *FieldError", err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Error("not ErrInvalid")
			}
			if fe.Index != 2 || fe.Field != tc.field {
				t.Errorf("got rules[%d].%s, want rules[2].%s (%v)", fe.Index, fe.Field, tc.field, err)
			}
			if !strings.HasPrefix(err.Error(), "rules[2]."+tc.field+": ") || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("message %q does not name rules[2].%s and say %q", err, tc.field, tc.reason)
			}
		})
	}
}

func TestValidateBoundsRules(t *testing.T) {
	rules := make([]Rule, MaxRules+1)
	for i := range rules {
		rules[i] = Rule{Metric: "row_count", Operator: ">", Threshold: 0}
	}
	if err := Validate(rules[:MaxRules]); err != nil {
		t.Fatal(err)
	}
	err := Validate(rules)
	if err == nil || !strings.HasPrefix(err.Error(), "rules: at most 200") {
		t.Fatalf("got %v", err)
	}
}

func TestContractValidate(t *testing.T) {
	ok := Contract{Name: "orders", TableName: "orders", Rules: []Rule{{Metric: "row_count", Operator: ">", Threshold: 0}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		edit  func(*Contract)
		field string
	}{
		{func(c *Contract) { c.Name = "" }, "name"},
		{func(c *Contract) { c.Name = strings.Repeat("n", MaxNameLen+1) }, "name"},
		{func(c *Contract) { c.TableName = "" }, "table_name"},
		{func(c *Contract) { c.TableName = "t\x00" }, "table_name"},
		{func(c *Contract) { c.Rules = nil }, "rules"},
		{func(c *Contract) { c.Rules = []Rule{{Metric: "row_count", Operator: "~", Threshold: 0}} }, "operator"},
	}
	for _, tc := range cases {
		c := ok
		tc.edit(&c)
		var fe *FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != tc.field {
			t.Errorf("%+v: got %v, want field %s", c, err, tc.field)
		}
	}
}

func TestNormalizeDefaultsSeverity(t *testing.T) {
	in := []Rule{{Metric: "row_count", Operator: ">", Severity: ""}, {Metric: "row_count", Operator: ">", Severity: "critical"}}
	out := Normalize(in)
	if out[0].Severity != "warning" || out[1].Severity != "critical" {
		t.Fatalf("%+v", out)
	}
	if in[0].Severity != "" {
		t.Error("Normalize changed its argument")
	}
}
