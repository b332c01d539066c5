package classify

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestReadableLayout(t *testing.T) {
	for layout, want := range map[string]string{
		"2006-01-02":                          "YYYY-MM-DD",
		"02/01/2006":                          "DD/MM/YYYY",
		"01/02/2006 3:04 PM":                  "MM/DD/YYYY h:mm AM/PM",
		"2. January 2006":                     "D. Month YYYY",
		"02-Jan-2006":                         "DD-Mon-YYYY",
		"1/2/06":                              "M/D/YY",
		"Mon, 2 Jan 2006 15:04:05 -0700":      "Dow, D Mon YYYY hh:mm:ss ±hhmm",
		"2006-01-02T15:04:05.999999999Z07:00": "YYYY-MM-DDThh:mm:ss.fff±hh:mm",
	} {
		if got := readableLayout(layout); got != want {
			t.Errorf("readableLayout(%q) = %q, want %q", layout, got, want)
		}
	}
	// Every layout the parser knows reads without Go's reference numbers.
	for _, l := range allLayouts {
		if got := readableLayout(l.l); strings.ContainsAny(got, "0123456789") {
			t.Errorf("readableLayout(%q) = %q keeps a digit", l.l, got)
		}
	}
}

func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		label, name string
		sample      []string
		want        Conformance
	}{
		{LabelIBAN, "iban", []string{"DE89 3704 0044 0532 0130 00", "DE89370400440532013000", "DE88 3704 0044 0532 0130 00", "DE89 3704 0044 0532 0130 00"},
			Conformance{Rule: "IBANs (country length and mod-97 check)", Checked: 4, Failed: 1, Examples: []string{"DE88 3704 0044 0532 0130 00"}}},
		{LabelEmail, "email", []string{"a@example.com", "b@", "c@example.org", "b@"},
			Conformance{Rule: "e-mail addresses", Checked: 4, Failed: 2, Examples: []string{"b@"}}},
		{LabelPhone, "phone", []string{"+46 70 123 45 67", "070-123 45 67", "12", "+33 6 12 34 56 78"},
			Conformance{Rule: "phone numbers (libphonenumber)", Checked: 4, Failed: 1, Examples: []string{"12"}}},
		{LabelDate, "day", []string{"2024-01-31", "31/01/2024", "2024-02-30", "2024-02-01", "Feb 1, 2024"},
			Conformance{Rule: "dates", Checked: 5, Failed: 1, Examples: []string{"2024-02-30"}, Formats: []FormatCount{
				{"YYYY-MM-DD", 2, "2024-01-31"}, {"DD/MM/YYYY", 1, "31/01/2024"}, {"Mon D, YYYY", 1, "Feb 1, 2024"}}}},
		{LabelMAC, "mac", []string{"00:1A:2B:3C:4D:5E", "001a.2b3c.4d5e", "00:1A:2B:3C:4D"},
			Conformance{Rule: "MAC addresses", Checked: 3, Failed: 1, Examples: []string{"00:1A:2B:3C:4D"}}},
		{LabelVIN, "vin", []string{"1HGCM82633A004352", "WVWZZZ1JZXW000001", "1HGCM82633A00435"},
			Conformance{Rule: "vehicle identification numbers (17 characters without I, O or Q)", Checked: 3, Failed: 1, Examples: []string{"1HGCM82633A00435"}}},
	} {
		c := newColumn(tc.name, tc.sample, testNow)
		if got := c.conformance(tc.label); got == nil || !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%s: conformance %+v, want %+v", tc.label, got, tc.want)
		}
	}
	if got := newColumn("x", []string{"a"}, testNow).conformance(LabelCategory); got != nil {
		t.Errorf("a category has no validator, got %+v", got)
	}
}

var testNow = time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
