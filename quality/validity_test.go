package quality

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// assessColumn profiles values as one column named name, classifies it as
// the analysis does, and assesses it; the file's duplicate rows are left out.
func assessColumn(t *testing.T, name string, values []string) (Report, profile.Column, classify.Result) {
	t.Helper()
	p := profile.New([]string{name}, profile.Options{})
	for _, v := range values {
		p.Add([]string{v}, []bool{false})
	}
	prof := p.Result()
	c := prof.Columns[0]
	cls := classify.Column(c.Name, c.Sample)
	m := Meaning{Personal: cls.Category != classify.CategoryNone, Label: cls.Label, Conformance: cls.Conformance}
	r := Assess(prof, func(string) Meaning { return m })
	// One column repeats rows by construction: only its own issues count.
	r.Issues = slices.DeleteFunc(r.Issues, func(is Issue) bool { return is.Kind == KindDuplicateRows })
	return r, c, cls
}

// repeat makes n values cycling through vs.
func repeat(n int, vs ...string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = vs[i%len(vs)]
	}
	return out
}

func kinds(issues []Issue) []string {
	var ks []string
	for _, is := range issues {
		ks = append(ks, is.Kind)
	}
	return ks
}

// Values whose shapes differ but whose meaning holds are valid: names with
// apostrophes and hyphens, category values of two words, IBANs printed in
// groups, titles.
func TestValidityFollowsMeaningNotShape(t *testing.T) {
	for _, tc := range []struct {
		name, label string
		values      []string
	}{
		{"name", classify.LabelPersonName, repeat(400, "Mary Smith", "John Doe", "Sean O'Brien", "Anne-Marie Lefèvre",
			"José García", "Zoë Dupont", "D'Angelo Rossi", "Li Wei", "Björn Öberg", "Élodie Martin")},
		{"cut", classify.LabelCategory, repeat(400, "Ideal", "Premium", "Very Good", "Good", "Fair", "Ideal", "Premium")},
		{"iban", classify.LabelIBAN, repeat(400, "DE89 3704 0044 0532 0130 00", "GB82 WEST 1234 5698 7654 32",
			"DE89370400440532013000", "NL91 ABNA 0417 1643 00", "FR1420041010050500013M02606")},
		{"email", classify.LabelEmail, repeat(300, "ann@example.com", "bob.smith@mail.example.org", "c_d+news@x.io")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _, cls := assessColumn(t, tc.name, tc.values)
			if cls.Label != tc.label {
				t.Fatalf("label %q, want %q", cls.Label, tc.label)
			}
			if len(r.Issues) != 0 {
				t.Errorf("issues %+v, want none", r.Issues)
			}
			if d := r.Columns[0].Dimensions; d.Validity != 100 || d.Consistency != 100 {
				t.Errorf("dimensions %+v, want validity and consistency 100", d)
			}
		})
	}
}

// A validator column counts the values its validator refuses: 40 of 400
// IBANs with a wrong check digit (the sample holds every value, so exact).
func TestValidatorCountsInvalidValues(t *testing.T) {
	values := repeat(360, "DE89 3704 0044 0532 0130 00", "GB82 WEST 1234 5698 7654 32", "NL91ABNA0417164300")
	values = append(values, repeat(40, "DE88 3704 0044 0532 0130 00", "GB83 WEST 1234 5698 7654 32")...)
	r, _, cls := assessColumn(t, "iban", values)
	if cls.Label != classify.LabelIBAN {
		t.Fatalf("label %q", cls.Label)
	}
	is := find(r.Issues, KindInvalidFormat, "iban")
	if is == nil {
		t.Fatalf("no invalid_format in %+v", r.Issues)
	}
	want := Issue{Kind: KindInvalidFormat, Column: "iban", Severity: SeverityWarning, Count: 40,
		Message:  `40 of 400 values of "iban" (10.0%) are not valid IBANs (country length and mod-97 check).`,
		Examples: []string{Mask("DE88 3704 0044 0532 0130 00"), Mask("GB83 WEST 1234 5698 7654 32")}}
	if fmt.Sprint(*is) != fmt.Sprint(want) {
		t.Errorf("issue\n %+v\nwant\n %+v", *is, want)
	}
	if v := r.Columns[0].Dimensions.Validity; v != 90 {
		t.Errorf("validity %v, want 90", v)
	}
}

// Past the sample, the count is scaled from it and says so.
func TestValidatorCountIsEstimatedPastTheSample(t *testing.T) {
	var values []string
	for i := range 5000 {
		if i%10 == 0 {
			values = append(values, fmt.Sprintf("user%d@", i)) // not an address
			continue
		}
		values = append(values, fmt.Sprintf("user%d@example.com", i))
	}
	r, c, _ := assessColumn(t, "email", values)
	is := find(r.Issues, KindInvalidFormat, "email")
	if is == nil || !is.Estimated || !strings.HasPrefix(is.Message, "About ") {
		t.Fatalf("issue %+v, want an estimated invalid_format", is)
	}
	// The estimate is the sample's share, scaled to the 5000 values.
	failed := 0
	for _, v := range c.Sample {
		if strings.HasSuffix(v, "@") {
			failed++
		}
	}
	if want := int64(float64(failed) / float64(len(c.Sample)) * 5000); is.Count < want-1 || is.Count > want+1 {
		t.Errorf("count %d, want %d (%d of %d sampled)", is.Count, want, failed, len(c.Sample))
	}
}

// A date column written in several layouts is inconsistent_format, with the
// layouts and their counts, most used first; never invalid_format.
func TestMixedDateFormats(t *testing.T) {
	var values []string
	for i := range 300 {
		values = append(values, fmt.Sprintf("2023-%02d-%02d", i%12+1, i%28+1))
	}
	values = append(values, repeat(40, "15/01/2023", "28/02/2023")...)
	values = append(values, repeat(30, "15.01.2023")...)
	values = append(values, repeat(20, "Jan 15, 2023")...)
	values = append(values, repeat(10, "15-Jan-2023")...)
	r, _, cls := assessColumn(t, "order_date", values)
	if cls.Label != classify.LabelDate {
		t.Fatalf("label %q", cls.Label)
	}
	if slices.Contains(kinds(r.Issues), KindInvalidFormat) {
		t.Errorf("invalid_format raised: %+v", r.Issues)
	}
	is := find(r.Issues, KindInconsistentFormat, "order_date")
	if is == nil {
		t.Fatalf("no inconsistent_format in %+v", r.Issues)
	}
	want := Issue{Kind: KindInconsistentFormat, Column: "order_date", Severity: SeverityInfo, Count: 100,
		Message: `100 of 400 values of "order_date" (25.0%) are not written like the rest: the column mixes 5 formats, ` +
			`YYYY-MM-DD (300), DD/MM/YYYY (40), DD.MM.YYYY (30), Mon D, YYYY (20), DD-Mon-YYYY (10).`,
		Examples: []string{"15/01/2023", "15.01.2023", "Jan 15, 2023"}}
	if fmt.Sprint(*is) != fmt.Sprint(want) {
		t.Errorf("issue\n %+v\nwant\n %+v", *is, want)
	}
	if d := r.Columns[0].Dimensions; d.Validity != 100 || d.Consistency != 75 {
		t.Errorf("dimensions %+v, want validity 100, consistency 75", d)
	}
}

// A date column the profiler types (ISO and slash dates) is judged by its
// layouts too: slash dates among ISO ones are another format, not invalid.
func TestTypedDateColumnMixingLayouts(t *testing.T) {
	var values []string
	for i := range 90 {
		values = append(values, fmt.Sprintf("2024-03-%02d", i%28+1))
	}
	for i := range 10 {
		values = append(values, fmt.Sprintf("%02d/03/2024", i+13))
	}
	r, c, _ := assessColumn(t, "day", values)
	if c.InferredType != profile.TypeDate {
		t.Fatalf("type %q, want date", c.InferredType)
	}
	if got := kinds(r.Issues); !slices.Equal(got, []string{KindInconsistentFormat}) {
		t.Fatalf("issues %v, want only inconsistent_format: %+v", got, r.Issues)
	}
	if is := r.Issues[0]; is.Count != 10 || is.Estimated {
		t.Errorf("count %d (estimated %v), want exactly 10", is.Count, is.Estimated)
	}
}

// A category column's set is its repeated values; a value seen once among
// them is outside it. An open list (many singletons) has no set to check.
func TestCategoryMembership(t *testing.T) {
	values := append(repeat(397, "Ideal", "Premium", "Very Good", "Good"), "Premum", "Very good", "Idael")
	r, _, cls := assessColumn(t, "cut", values)
	if cls.Label != classify.LabelCategory {
		t.Fatalf("label %q", cls.Label)
	}
	is := find(r.Issues, KindInvalidFormat, "cut")
	want := Issue{Kind: KindInvalidFormat, Column: "cut", Severity: SeverityWarning, Count: 3,
		Message:  `3 of 400 values of "cut" (0.8%) occur only once, outside the column's 4 repeated values.`,
		Examples: []string{"Idael", "Premum", "Very good"}}
	if is == nil || fmt.Sprint(*is) != fmt.Sprint(want) {
		t.Fatalf("issue %+v, want %+v", is, want)
	}
	if v := r.Columns[0].Dimensions.Validity; v != 99.3 {
		t.Errorf("validity %v, want 99.3", v)
	}

	open := repeat(300, "Ideal", "Premium", "Very Good", "Good")
	for i := range 30 {
		open = append(open, fmt.Sprintf("Special %d", i))
	}
	r, _, _ = assessColumn(t, "cut", open)
	if is := find(r.Issues, KindInvalidFormat, "cut"); is != nil {
		t.Errorf("open list flagged: %+v", is)
	}
}

// Codes keep the pattern rule: the meaning has no better check.
func TestCodesKeepThePatternRule(t *testing.T) {
	var values []string
	for i := range 200 {
		values = append(values, fmt.Sprintf("AB-%04d", i))
	}
	values = append(values, repeat(20, "AB 12", "X99")...)
	r, _, _ := assessColumn(t, "sku", values)
	is := find(r.Issues, KindInvalidFormat, "sku")
	if is == nil || is.Count != 20 || !strings.Contains(is.Message, "usual format A+-9+") {
		t.Fatalf("issue %+v, want invalid_format of 20 values against A+-9+", is)
	}
}
