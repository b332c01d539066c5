package classify

import (
	"testing"

	"github.com/dqs/dqs/internal/colgen"
)

func TestAgeBandsGroupedPhonesStreetNames(t *testing.T) {
	for v, want := range map[string]bool{
		"18-24": true, "25 - 34": true, "25–34": true, "18 to 24": true, "65+": true, "65 and over": true,
		"under 18": true, "<18": true, "65 or older": true,
		"24-18": false, "18-130": false, "18": false, "a-b": false, "2023-01": false, "+65": false,
	} {
		if got := ageBand(v); got != want {
			t.Errorf("ageBand(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]bool{
		"(555) 123-4567": true, "555.123.4567": true, "555-123-4567": true, "020 7946 0958": true,
		"06 12 34 56 78": true, "12-34-56": false, "1234 5678": false, "(555) 1234567": false, "12 34 56 78 90 12": false,
	} {
		if got := groupedPhone(v); got != want {
			t.Errorf("groupedPhone(%q) = %v, want %v", v, got, want)
		}
	}
	for v, want := range map[string]bool{
		"Main Street": true, "Rue de la Paix": true, "Storgatan": true, "Oak Ave": true,
		"Street": false, "Stockholm": false, "12 Main Street": false, "anna@street.com": false,
	} {
		if got := streetName(v); got != want {
			t.Errorf("streetName(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestRealWorldMisses covers the columns the issue found missed on public
// data, each next to the column without the name that makes it readable.
func TestRealWorldMisses(t *testing.T) {
	g := newGen(53)
	testCards := g.column(150, 0, func() string {
		for {
			v := g.Pick("4", "51", "55") + g.Digits(15)
			if v = v[:16]; colgen.LuhnComplete(v[:15]) != v {
				return v
			}
		}
	})
	realCards := g.column(150, 0, func() string { return g.PAN(g.Pick("4", "51", "55"), 16) })
	otherDigits := g.column(150, 0, func() string { return "9" + g.Digits(15) })
	phones555 := g.column(120, 0, func() string { return "(555) " + g.Digits(3) + "-" + g.Digits(4) })
	streets := g.column(120, 0, func() string {
		return g.Pick("Main", "Oak", "Elm", "Baker", "Church") + " " + g.Pick("Street", "Avenue", "Road", "Lane")
	})
	bands := g.column(120, 0, func() string { return g.Pick("18-24", "25-34", "35-44", "45-54", "55-64", "65+") })
	names := g.column(200, 0, func() string {
		if g.Chance(0.15) {
			return g.Pick("Acme Corp", "Northwind Traders", "Globex Corporation", "Initech LLC")
		}
		return g.Pick(tGiven...) + " " + g.Pick(tSurname...)
	})
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"Card Number", testCards, LabelPaymentCard},
		{"ref", testCards, LabelIdentifier},           // Luhn failures need the name
		{"Card Number", otherDigits, LabelIdentifier}, // no issuer prefix
		{"Sex", g.column(100, 0, func() string { return g.Pick("M", "F") }), LabelGender},
		{"SEX", g.column(100, 0, func() string { return g.Pick("M", "F", "F") }), LabelGender},
		{"Age", bands, LabelAge},
		{"age_group", bands, LabelAge},                                                                           // the name qualifies age, but bands are ages
		{"age_group", g.column(100, 0, func() string { return g.Pick("1", "2", "3", "4", "5") }), LabelCategory}, // group codes
		{"bucket", bands, LabelCategory},
		{"Name", names, LabelPersonName},
		{"Phone", phones555, LabelPhone},
		{"ref", phones555, LabelUnknown}, // no numbering plan, no name: nothing to go on
		{"Address", streets, LabelStreet},
		{"road", streets, LabelCategory},
	} {
		if r := Column(tc.name, tc.values); r.Label != tc.want {
			t.Errorf("%s: label %s (%.3f, %v), want %s", tc.name, r.Label, r.Confidence, r.Evidence, tc.want)
		}
	}
	// Failing the checksum costs confidence.
	if test, real := Column("Card Number", testCards), Column("Card Number", realCards); !(test.Confidence < real.Confidence) {
		t.Errorf("Luhn-failing cards %.3f should be less sure than valid ones %.3f", test.Confidence, real.Confidence)
	}
}
