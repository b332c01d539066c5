package quality

import (
	"strings"
	"testing"

	"github.com/dqs/dqs/profile"
)

func TestIssueMessages(t *testing.T) {
	p := &profile.Profile{RowCount: 1000, DuplicateRows: 30, Columns: []profile.Column{
		{Name: "email", Count: 1000, Nulls: 100, Empty: 20, Distinct: 800, InferredType: profile.TypeString, TypeConformance: 1,
			Format: "A+@A+.A+", FormatConformance: 0.9, Sample: []string{"ann@x.se", "bob@@x", "eve@x.se"}},
		{Name: "age", Count: 1000, Distinct: 60, InferredType: profile.TypeInteger, TypeConformance: 0.99, Format: "9+", FormatConformance: 0.99,
			Sample: []string{"12", "n/a"}},
		{Name: "amount", Count: 1000, Distinct: 900, InferredType: profile.TypeFloat, TypeConformance: 1, Format: "9+.9+", FormatConformance: 1,
			Quantiles: map[string]float64{"p01": 1, "p25": 20, "p75": 80, "p99": 99},
			Sample:    []string{"10", "50.5", "1000", "-200"}},
		{Name: "country", Count: 1000, Distinct: 1, InferredType: profile.TypeString, TypeConformance: 1, Format: "A+", FormatConformance: 1,
			TopValues: []profile.ValueCount{{Value: "SE", Count: 1000}}},
		{Name: "city", Count: 4, Distinct: 2, InferredType: profile.TypeString, TypeConformance: 1, Format: "A+", FormatConformance: 1,
			Sample: []string{"Paris", "PARIS", "Paris", "Rome"}},
	}}
	want := map[string]string{
		"duplicate_rows:":         "30 of 1000 rows (3.0%) repeat an earlier row exactly.",
		"missing_values:email":    `120 of 1000 values of "email" (12.0%) are missing: null, empty or a null token.`,
		"invalid_format:email":    `88 of 880 values of "email" (10.0%) do not have the column's usual format A+@A+.A+ (letters, "@", letters, ".", letters).`,
		"type_mismatch:age":       `10 of 1000 values of "age" (1.0%) are not integer values, unlike the rest of the column.`,
		"outliers:amount":         `About 500 of 1000 values of "amount" (50.0%) lie far outside the range of the others (below -179 or above 279).`,
		"constant_column:country": `All 1000 values of "country" are the same, so the column tells nothing apart.`,
		"inconsistent_case:city":  `1 of 4 values of "city" (25.0%) are spelt in another letter case than the same value elsewhere in the column.`,
	}
	r := Assess(p, func(c string) Meaning { return Meaning{Personal: c == "email"} })
	got := map[string]string{}
	for _, is := range r.Issues {
		got[is.Kind+":"+is.Column] = is.Message
		if wantEst := is.Kind == KindOutliers; is.Estimated != wantEst {
			t.Errorf("%s on %q: estimated = %v, want %v", is.Kind, is.Column, is.Estimated, wantEst)
		}
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s:\n got  %q\n want %q", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("issues %v", got)
	}
}

// A message never quotes a value of the column: values go in Examples,
// masked in personal columns; messages go wherever issues go.
func TestMessagesQuoteNoValue(t *testing.T) {
	p := &profile.Profile{RowCount: 100, Columns: []profile.Column{
		{Name: "phone", Count: 100, Distinct: 1, InferredType: profile.TypeInteger, TypeConformance: 0.98, Format: "9+", FormatConformance: 0.98,
			TopValues: []profile.ValueCount{{Value: "0612345678", Count: 100}}, Sample: []string{"0612345678", "06-12345678"},
			Quantiles: map[string]float64{"p01": 612345678, "p25": 612345678, "p75": 612345678, "p99": 612345678}},
		{Name: "salary", Count: 100, Distinct: 90, InferredType: profile.TypeFloat, TypeConformance: 1, Format: "9+", FormatConformance: 1,
			Quantiles: map[string]float64{"p01": 30000, "p25": 40000, "p75": 50000, "p99": 61234}, Sample: []string{"45000", "987654"}},
	}}
	r := Assess(p, func(string) Meaning { return Meaning{Personal: true} })
	if len(r.Issues) < 3 {
		t.Fatalf("issues %+v", r.Issues)
	}
	for _, is := range r.Issues {
		for _, v := range []string{"12345678", "61234", "987654", "91234"} {
			if strings.Contains(is.Message, v) {
				t.Errorf("%s message quotes %s: %q", is.Kind, v, is.Message)
			}
		}
	}
}

func TestDescribeFormat(t *testing.T) {
	for sig, want := range map[string]string{
		"A+-9+":          `letters, "-", digits`,
		"9+/9+/9+ 9+:9+": `digits, "/", digits, "/", digits, a space, digits, ":", digits`,
		"X+-X+":          `letters and digits, "-", letters and digits`,
		"A+ A+…":         "letters, a space, letters, and more",
		"é":              `"é"`,
		"":               "empty",
	} {
		if got := DescribeFormat(sig); got != want {
			t.Errorf("DescribeFormat(%q) = %q; want %q", sig, got, want)
		}
	}
}

func TestPercent(t *testing.T) {
	for _, tc := range []struct {
		part, whole int64
		want        string
	}{{1, 3, "33.3%"}, {1, 100000, "<0.1%"}, {0, 10, "0.0%"}, {5, 0, "0.0%"}, {10, 10, "100.0%"}} {
		if got := percent(tc.part, tc.whole); got != tc.want {
			t.Errorf("percent(%d, %d) = %q; want %q", tc.part, tc.whole, got, tc.want)
		}
	}
}
