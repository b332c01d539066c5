package profile

import (
	"math"
	"testing"
)

func TestReadNumeral(t *testing.T) {
	for _, tc := range []struct {
		in           string
		kind         numeral
		pt, cm       float64
		ptInt, cmInt bool
	}{
		{"1.234", dotGrouped, 1.234, 1234, false, true},
		{"-1.234", dotGrouped, -1.234, -1234, false, true},
		{"1,234", commaGrouped, 1234, 1.234, true, false},
		{"1,234.5", pointOnly, 1234.5, 1234.5, false, false},
		{"1,234,567", pointOnly, 1234567, 1234567, true, true},
		{"1.234,5", commaOnly, 1234.5, 1234.5, false, false},
		{"1004,14", commaOnly, 1004.14, 1004.14, false, false},
		{"0,5", commaOnly, 0.5, 0.5, false, false},
		{"1.234.567", commaOnly, 1234567, 1234567, true, true},
		{"1 234 567,89", sameNumeral, 1234567.89, 1234567.89, false, false},
		{"1\u00a0234,5", sameNumeral, 1234.5, 1234.5, false, false},
		{"1'234'567.89", sameNumeral, 1234567.89, 1234567.89, false, false},
		{"1 234", sameNumeral, 1234, 1234, true, true},
		{"$12.50", sameNumeral, 12.5, 12.5, false, false},
		{"$1,234.50", pointOnly, 1234.5, 1234.5, false, false},
		{"-$12", sameNumeral, -12, -12, true, true},
		{"$-12", sameNumeral, -12, -12, true, true},
		{"€ 12,50", commaOnly, 12.5, 12.5, false, false},
		{"12,50 €", commaOnly, 12.5, 12.5, false, false},
		{"1.234,56 €", commaOnly, 1234.56, 1234.56, false, false},
		{"12.5%", sameNumeral, 12.5, 12.5, false, false},
		{"12,5 %", commaOnly, 12.5, 12.5, false, false},
		{"45%", sameNumeral, 45, 45, true, true},
		{"£1,000", commaGrouped, 1000, 1, true, false},
		{"12.5", sameNumeral, 12.5, 12.5, false, false},
		{"0.125", sameNumeral, 0.125, 0.125, false, false},
	} {
		r := readNumeral(tc.in)
		want := reading{tc.kind, tc.pt, tc.cm, tc.ptInt, tc.cmInt}
		if r != want {
			t.Errorf("readNumeral(%q) = %+v, want %+v", tc.in, r, want)
		}
	}
	for _, in := range []string{"", "12", "007", "1,23,456", "1.23.456", "12.34.56", "1,2345,6", "1 23", "12 %%", "$", "%", "1..2",
		"1,234 5", "1.234.5,6,7", "1,234.567,8", "abc", "12a", "$$12", "12 $ ", "12/01/2024", "31.01.2024", "1e5", "1.5e3", "- 12", ",5", "5,", "€", "0,123,456"} {
		if r := readNumeral(in); r.kind != notNumeral {
			t.Errorf("readNumeral(%q) = %+v, want no numeral", in, r)
		}
	}
}

func TestPlainDotGrouped(t *testing.T) {
	for in, want := range map[string]bool{"1.234": true, "12.345": true, "999.999": true, "-1.234": true, "+100.000": true,
		"0.123": false, "1234.567": false, "1.23": false, "1.2345": false, "12": false, "1.234e5": false} {
		if got := plainDotGrouped(in); got != want {
			t.Errorf("plainDotGrouped(%q) = %v", in, got)
		}
	}
}

func TestNumberAs(t *testing.T) {
	for _, tc := range []struct {
		in    string
		comma bool
		want  float64
		ok    bool
	}{
		{"1.234", false, 1.234, true}, {"1.234", true, 1234, true},
		{"1,234", false, 1234, true}, {"1,234", true, 1.234, true},
		{"1,234.5", true, 0, false}, {"1.234,5", false, 0, false},
		{"12", true, 12, true}, {"1e3", true, 1000, true}, {"12.5%", true, 12.5, true}, {"x", false, 0, false},
	} {
		got, ok := NumberAs(tc.in, tc.comma)
		if ok != tc.ok || got != tc.want {
			t.Errorf("NumberAs(%q, %v) = %v, %v; want %v, %v", tc.in, tc.comma, got, ok, tc.want, tc.ok)
		}
	}
}

// profileOf profiles values as one text column.
func profileOf(values ...string) Column {
	p := New([]string{"x"}, Options{})
	for _, v := range values {
		p.Add([]string{v}, []bool{false})
	}
	return p.Result().Columns[0]
}

func TestColumnsOfNumerals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		values   []string
		typ      string
		min, max string
		mean     float64
		median   float64
		notation string
	}{
		{"decimal comma", []string{"1004,14", "1.234,56", "12,5", "1.234", "0,99"}, TypeFloat, "0.99", "1234.56", (1004.14 + 1234.56 + 12.5 + 1234 + 0.99) / 5, 1004.14,
			"decimal comma, dot or space between thousands (1.234,5); 1 value such as 1,234 or 1.234 read both ways: read as the rest of the column"},
		{"comma thousands", []string{"1,234", "12,345", "1,234,567", "999"}, TypeInteger, "999", "1234567", (1234 + 12345 + 1234567 + 999) / 4.0, 1234,
			"decimal point, comma or space between thousands (1,234.5); 2 values such as 1,234 or 1.234 read both ways: read as the rest of the column"},
		{"two-way only", []string{"1,234", "5,678"}, TypeInteger, "1234", "5678", 3456, 1234,
			"decimal point, comma or space between thousands (1,234.5); 2 values such as 1,234 or 1.234 read both ways, and nothing in the column tells which: read so"},
		{"plain decimals shaped like thousands", []string{"1.234", "12.5", "2.345"}, TypeFloat, "1.234", "12.5", (1.234 + 12.5 + 2.345) / 3, 2.345, ""},
		{"currency and percent", []string{"$12.50", "$3", "45%", "1 234"}, TypeFloat, "3", "1234", (12.5 + 3 + 45 + 1234) / 4, 12.5, ""},
		{"currency integers", []string{"$12", "$3", "€ 45"}, TypeInteger, "3", "45", 20, 12, ""},
	} {
		c := profileOf(tc.values...)
		if c.InferredType != tc.typ || deref(c.Min) != tc.min || deref(c.Max) != tc.max || c.Notation != tc.notation {
			t.Errorf("%s: type %s, min %s, max %s, notation %q; want %s, %s, %s, %q", tc.name, c.InferredType, deref(c.Min), deref(c.Max), c.Notation, tc.typ, tc.min, tc.max, tc.notation)
		}
		if c.Mean == nil || math.Abs(*c.Mean-tc.mean) > 1e-9 || c.Median == nil || *c.Median != tc.median {
			t.Errorf("%s: mean %v, median %v; want %v, %v", tc.name, fderef(c.Mean), fderef(c.Median), tc.mean, tc.median)
		}
		if c.TypeConformance != 1 {
			t.Errorf("%s: type conformance %v", tc.name, c.TypeConformance)
		}
	}
	// A value of the other convention is not a number of the column.
	c := profileOf(append(repeatValue("1.234,5", 40), "1,234.5")...)
	if c.InferredType != TypeFloat || c.TypeConformance != 40.0/41 || deref(c.Max) != "1234.5" {
		t.Errorf("mixed conventions: %s %v max %s", c.InferredType, c.TypeConformance, deref(c.Max))
	}
}

func repeatValue(v string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// Merged halves read as the whole: the conventions' numbers and votes merge.
func TestNumeralsMerge(t *testing.T) {
	values := []string{"1,5", "2.000", "1.234,5", "7", "3,25", "12.000.000", "2"}
	whole := profileOf(values...)
	a, b := New([]string{"x"}, Options{}), New([]string{"x"}, Options{})
	for i, v := range values {
		p := a
		if i >= 3 {
			p = b
		}
		p.Add([]string{v}, []bool{false})
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	got := a.Result().Columns[0]
	if got.InferredType != whole.InferredType || deref(got.Min) != deref(whole.Min) || deref(got.Max) != deref(whole.Max) ||
		got.Notation != whole.Notation || fderef(got.Median) != fderef(whole.Median) || math.Abs(*got.Mean-*whole.Mean) > 1e-9 {
		t.Errorf("merged %+v\nwhole %+v", got, whole)
	}
	if deref(whole.Max) != "12000000" || whole.InferredType != TypeFloat {
		t.Errorf("whole: %s max %s", whole.InferredType, deref(whole.Max))
	}
}

func fderef(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

// Integers with some decimals among them are a decimal column, not an
// integer one with type mismatches; integers with some words stay integer.
func TestIntegersWithDecimalsAreFloat(t *testing.T) {
	values := append(repeatValue("12", 97), "2.5", "3.75", "1")
	if c := profileOf(values...); c.InferredType != TypeFloat || c.TypeConformance != 1 {
		t.Errorf("ints with decimals: %s, conformance %v", c.InferredType, c.TypeConformance)
	}
	values = append(repeatValue("12", 97), "n.a.", "tbd", "1")
	if c := profileOf(values...); c.InferredType != TypeInteger || c.TypeConformance != 0.98 {
		t.Errorf("ints with words: %s, conformance %v", c.InferredType, c.TypeConformance)
	}
}
