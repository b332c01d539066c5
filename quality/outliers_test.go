package quality

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// amounts is a numeric column of 1000 values, quartiles 20 and 80 (hi =
// 99 + 180 = 279, lo = 1 − 180 = −179), with the given tails and sample.
func amounts(t *profile.Tails, sample ...string) profile.Column {
	return profile.Column{Name: "amount", Count: 1000, Distinct: 900, InferredType: profile.TypeInteger, TypeConformance: 1,
		Format: "9+", FormatConformance: 1, Tails: t, Sample: sample,
		Quantiles: map[string]float64{"p01": 1, "p05": 5, "p25": 20, "p50": 50, "p75": 80, "p95": 95, "p99": 99}}
}

func outlierIssue(t *testing.T, c profile.Column, m Meaning) *Issue {
	t.Helper()
	r := Assess(&profile.Profile{RowCount: c.Count, Columns: []profile.Column{c}}, func(string) Meaning { return m })
	return find(r.Issues, KindOutliers, c.Name)
}

func tail(xs ...float64) []profile.TailValue {
	out := make([]profile.TailValue, len(xs))
	for i, x := range xs {
		out[i] = profile.TailValue{X: x, Count: 1}
	}
	return out
}

func TestOutliersFromTheTailsAreExact(t *testing.T) {
	tails := &profile.Tails{Low: tail(-500, -179, 0, 1), High: tail(9_000_000, 300, 300.5, 279, 99)}
	tails.High[0].Count = 2
	is := outlierIssue(t, amounts(tails, "10", "50"), Meaning{})
	if is == nil || is.Count != 5 || is.Estimated || !reflect.DeepEqual(is.Examples, []string{"9000000", "-500", "300"}) {
		t.Fatalf("issue %+v, want 5 exact (2 at 9000000, 300, 300.5, -500)", is)
	}
	// Masked in a personal column; the message then gives no bounds.
	is = outlierIssue(t, amounts(tails), Meaning{Personal: true, Label: classify.LabelAge})
	if is == nil || !reflect.DeepEqual(is.Examples, []string{"*****00", "**00", "*00"}) || strings.Contains(is.Message, "279") {
		t.Fatalf("personal: %+v", is)
	}
}

// A full tail whose last number is still far out may not hold them all:
// the count is then estimated from the sample, and never below the tail's.
func TestOutliersPastAFullTailAreEstimated(t *testing.T) {
	var high []profile.TailValue
	for i := range profile.TailSize {
		high = append(high, profile.TailValue{X: float64(10_000 - i), Count: 1})
	}
	sample := make([]string, 100)
	for i := range sample {
		sample[i] = "50"
		if i%10 == 0 {
			sample[i] = "5000"
		}
	}
	is := outlierIssue(t, amounts(&profile.Tails{High: high}, sample...), Meaning{})
	if is == nil || !is.Estimated || is.Count != 100 { // 10% of the 1000 values
		t.Fatalf("issue %+v, want about 100, estimated", is)
	}
	is = outlierIssue(t, amounts(&profile.Tails{High: high}, "50"), Meaning{})
	if is == nil || is.Count != profile.TailSize {
		t.Fatalf("issue %+v, want at least the tail's %d", is, profile.TailSize)
	}
}

func TestNoOutliersWhereTheyMeanNothing(t *testing.T) {
	far := &profile.Tails{High: tail(1e9)}
	for _, label := range []string{classify.LabelIdentifier, classify.LabelPostalCode, classify.LabelCategory, classify.LabelPhone, classify.LabelDatetime} {
		if is := outlierIssue(t, amounts(far), Meaning{Label: label}); is != nil {
			t.Errorf("%s: %+v", label, is)
		}
	}
	for _, label := range []string{"", classify.LabelNumber, classify.LabelMoney, classify.LabelAge, classify.LabelUnknown} {
		if is := outlierIssue(t, amounts(far), Meaning{Label: label}); is == nil || is.Count != 1 {
			t.Errorf("%q: %+v", label, is)
		}
	}
	// No spread between the quartiles: a constant column with a few other
	// values, years of one year, has no outliers.
	c := amounts(far)
	c.Quantiles = map[string]float64{"p01": 2022, "p25": 2022, "p75": 2022, "p99": 2022}
	if is := outlierIssue(t, c, Meaning{}); is != nil {
		t.Errorf("IQR 0: %+v", is)
	}
}
