package corrections

import (
	"context"
	"errors"
	"strings"
	"testing"
)

var testCols = []string{"id", "name", "city", "price", "when", "phone"}

func TestValidateAcceptsEveryStrategy(t *testing.T) {
	for _, s := range []Step{
		step("a", TypeNullFill, "city", StrategyConstant, map[string]any{"value": "unknown"}),
		step("b", TypeNullFill, "price", StrategyConstant, map[string]any{"value": 0.0}),
		step("c", TypeNullFill, "price", StrategyMean, nil),
		step("d", TypeNullFill, "price", StrategyMedian, nil),
		step("e", TypeNullFill, "city", StrategyMode, nil),
		step("f", TypeNullFill, "city", StrategyForwardFill, nil),
		fix("when", StrategyDateISO, nil),
		fix("when", StrategyDateISO, map[string]any{"input_formats": []any{"%d/%m/%Y", "Jan 2, 2006"}}),
		fix("when", StrategyDateISO, map[string]any{"month_first": true}),
		fix("phone", StrategyPhoneE164, map[string]any{"default_region": "gb"}),
		fix("name", StrategyEmailNormalize, nil),
		fix("name", StrategyTrim, nil),
		fix("name", StrategyLower, nil),
		fix("name", StrategyUpper, nil),
		fix("name", StrategyTitle, nil),
		fix("price", StrategyDecimalPoint, nil),
		fix("city", StrategyStandardize, map[string]any{"mapping": map[string]any{"NYC": "New York"}, "ignore_case": true}),
		step("g", TypeDedupe, "", StrategyExact, map[string]any{"keep": "last"}),
		step("h", TypeDedupe, "", StrategyKeys, map[string]any{"columns": []any{"name", "city"}}),
		step("i", TypeDedupe, "id", StrategyKeys, nil),
		step("j", TypeRegexReplace, "phone", "", map[string]any{"pattern": `[^0-9+]`, "replacement": ""}),
		step("k", TypeCustom, "name", "", map[string]any{"expression": `upper(row.name) + " " + row["city"]`}),
	} {
		if err := s.Validate(testCols); err != nil {
			t.Errorf("%s %s: %v", s.Type, s.Strategy, err)
		}
	}
}

func TestValidateRefuses(t *testing.T) {
	for _, c := range []struct {
		step  Step
		field string
		msg   string
	}{
		{step("1", "fill", "city", "", nil), "correction_type", "unknown correction type"},
		{step("2", TypeNullFill, "city", "average", nil), "strategy", "unknown null_fill strategy"},
		{step("3", TypeRegexReplace, "city", "x", map[string]any{"pattern": "a", "replacement": ""}), "strategy", "takes no strategy"},
		{step("4", TypeNullFill, "", StrategyMean, nil), "column", "needs a column"},
		{step("5", TypeFormatFix, "town", StrategyTrim, nil), "column", `no column "town"`},
		{step("6", TypeNullFill, "city", StrategyConstant, nil), "params.value", "is required"},
		{step("7", TypeNullFill, "city", StrategyConstant, map[string]any{"value": "  "}), "params.value", "blank"},
		{step("8", TypeFormatFix, "city", StrategyTrim, map[string]any{"vaule": 1.0}), "params", `unknown parameter "vaule"`},
		{step("9", TypeRegexReplace, "city", "", map[string]any{"pattern": "a(b", "replacement": ""}), "params.pattern", "does not compile"},
		{step("10", TypeRegexReplace, "city", "", map[string]any{"pattern": strings.Repeat("a", MaxPatternBytes+1), "replacement": ""}), "params.pattern", "more than the limit"},
		{step("11", TypeRegexReplace, "city", "", map[string]any{"pattern": "a"}), "params.replacement", "is required"},
		{step("12", TypeCustom, "city", "", map[string]any{"expression": "row.city +"}), "params.expression", "unexpected token"},
		{step("13", TypeCustom, "city", "", map[string]any{"expression": "row.town"}), "params.expression", `no column "town"`},
		{step("14", TypeCustom, "town", "", map[string]any{"expression": "row.city"}), "column", `no column "town"`},
		{step("15", TypeFormatFix, "phone", StrategyPhoneE164, map[string]any{"default_region": "XX"}), "params.default_region", "not a region"},
		{fix("when", StrategyDateISO, map[string]any{"input_formats": []any{"dd/mm/yyyy"}}), "params.input_formats", "does not read a whole date"},
		{fix("when", StrategyDateISO, map[string]any{"input_formats": []any{"%Q"}}), "params.input_formats", "cannot read the date format"},
		{fix("when", StrategyDateISO, map[string]any{"input_formats": []any{"%Y-%m-%d"}, "month_first": true}), "params.month_first", "applies to"},
		{fix("city", StrategyStandardize, nil), "params.mapping", "is required"},
		{fix("city", StrategyStandardize, map[string]any{"mapping": map[string]any{"ny": "A", "NY": "B"}, "ignore_case": true}), "params.mapping", "only in case"},
		{step("16", TypeDedupe, "", StrategyKeys, nil), "params.columns", "needs the key columns"},
		{step("17", TypeDedupe, "", StrategyKeys, map[string]any{"columns": []any{"name", "town"}}), "params.columns", `no column "town"`},
		{step("18", TypeDedupe, "", StrategyExact, map[string]any{"keep": "middle"}), "params.keep", "first or last"},
		{step("19", TypeDedupe, "", StrategyExact, map[string]any{"columns": []any{"name"}}), "params.columns", "whole rows"},
		{step("20", TypeDedupe, "", StrategyKeys, map[string]any{"columns": []any{"name", "name"}}), "params.columns", "twice"},
	} {
		err := c.step.Validate(testCols)
		var se *StepError
		if !errors.As(err, &se) {
			t.Errorf("step %s: got %v, want a *StepError", c.step.ID, err)
			continue
		}
		if se.Field != c.field || !strings.Contains(se.Message, c.msg) || se.StepID != c.step.ID {
			t.Errorf("step %s: got %q on %s (step %q), want %q on %s", c.step.ID, se.Message, se.Field, se.StepID, c.msg, c.field)
		}
	}
}

func TestApplyValidatesFirst(t *testing.T) {
	w := &tableWriter{}
	bad := Pipeline{fix("name", StrategyTrim, nil), fix("town", StrategyTrim, nil)}
	_, err := Apply(context.Background(), newMem([]string{"name"}, table{{" a "}}), w, bad, Options{})
	var se *StepError
	if !errors.As(err, &se) || se.Field != "column" {
		t.Fatalf("got %v, want a StepError on the column", err)
	}
	if w.cols != nil || w.rows != nil {
		t.Fatal("Apply wrote before it validated")
	}
	long := make(Pipeline, MaxSteps+1)
	for i := range long {
		long[i] = fix("name", StrategyTrim, nil)
	}
	if err := long.Validate([]string{"name"}); !errors.As(err, &se) {
		t.Fatalf("a pipeline of %d steps: got %v", len(long), err)
	}
}
