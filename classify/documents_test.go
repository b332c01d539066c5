package classify

import (
	"strconv"
	"testing"
)

func TestVINValues(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want vinValue
	}{
		{"1HGCM82633A004352", vinChecked}, // the check digit 3 holds
		{"1hgcm82633a004352", vinChecked}, // typed in lower case
		{"5YJSA1DG9DFP14705", vinChecked},
		{"1M8GDM9AXKP042788", vinChecked}, // check digit X (remainder 10)
		{"1HGCM82643A004352", vinShaped},  // wrong check digit
		{"WVWZZZ1JZXW000001", vinShaped},  // European: position 9 is filler
		{"1HGCM82633A00435", vinNone},     // 16 characters
		{"1HGCM82633A0O4352", vinNone},    // letter O
		{"11111111111111111", vinNone},    // no letter
		{"ABCDEFGHJKLMNPRST", vinNone},    // no digit
		{"1HGCM8263UZ004352", vinNone},    // model year U is never used
	} {
		if got := classifyVIN(tc.v); got != tc.want {
			t.Errorf("classifyVIN(%q) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

func TestDocumentAndAccountShapes(t *testing.T) {
	for _, tc := range []struct {
		v            string
		groups, want bool
	}{
		{"123456789", false, true},
		{"C01X00T47", false, true},
		{"12AB34567", false, true},
		{"A1234567", false, true},
		{"123 456 789", false, false}, // passports are one run
		{"123 456 789", true, true},   // New York licences are grouped
		{"S123-4567-8901", true, true},
		{"BSD-3-Clause", true, false}, // one digit: a licence name
		{"ABCDEFGH", false, false},
		{"12345", false, false},           // too short
		{"1234567890123", false, false},   // too long
		{"AB12#3456", false, false},       // punctuation
		{"Anna Svensson 12", true, false}, // a name
		{"2031-05-12", true, true},        // shaped, dates are left out by the detector
		{"A1234567", true, true},
	} {
		if got := documentNumber(tc.v, tc.groups); got != tc.want {
			t.Errorf("documentNumber(%q, %v) = %v, want %v", tc.v, tc.groups, got, tc.want)
		}
	}
	for v, want := range map[string]string{"12345678": "12345678", "123-456789-01": "12345678901", "1234 5678 90": "1234567890",
		"12345": "", "123456789012345678": "", "GB82WEST12345698765432": "", "12--345678": ""} {
		d, ok := bankAccountDigits(v)
		if ok != (want != "") || d != want && ok {
			t.Errorf("bankAccountDigits(%q) = %q, %v; want %q", v, d, ok, want)
		}
	}
}

// TestDocumentColumns: passport, licence, account and VIN columns are
// recognised with their name and never without it (except VINs whose check
// digits hold); dates under a passport name stay dates.
func TestDocumentColumns(t *testing.T) {
	g := newGen(31)
	seqAccounts := func() []string {
		var out []string
		for i := 0; i < 100; i++ {
			out = append(out, strconv.Itoa(100000+i))
		}
		return out
	}()
	passports := g.column(120, 0, func() string {
		return g.Pick(g.Digits(9), g.Chars(1, "CFGHJK")+g.Digits(8), g.Digits(2)+"AB"+g.Digits(5))
	})
	licences := g.column(120, 0, func() string {
		return g.Pick(g.Chars(1, "ABCDEFG")+g.Digits(7), g.Digits(3)+" "+g.Digits(3)+" "+g.Digits(3))
	})
	accounts := g.column(120, 0, func() string { return g.Digits(g.Between(8, 12)) })
	naVINs := []string{"1HGCM82633A004352", "5YJSA1DG9DFP14705", "1M8GDM9AXKP042788"}
	euVINs := g.column(60, 0, func() string { return "WVW" + g.Chars(14, "ABCDEFGHJKLMNPRSTVWXYZ123456789") })
	for _, tc := range []struct {
		name   string
		values []string
		want   string
	}{
		{"Passport No.", passports, LabelPassport},
		{"passport_number", passports, LabelPassport},
		{"reference", passports, LabelIdentifier},
		{"Driver License #", licences, LabelDriverLic},
		{"DL Number", licences, LabelDriverLic},
		{"License", licences, LabelUnknown}, // a bare licence may be a software licence or a plate
		{"Account Number", accounts, LabelBankAccount},
		{"acct_no", accounts, LabelBankAccount},
		{"Account Number", seqAccounts, LabelIdentifier}, // a CRM's running numbers
		{"passport_issue_date", g.column(80, 0, func() string { return g.Date(2015, 2024).Format("2006-01-02") }), LabelDate},
		{"VIN", euVINs, LabelVIN},
		{"vehicle", repeatTo(naVINs, 60), LabelVIN},
		{"part_number", euVINs, LabelIdentifier},
	} {
		if r := Column(tc.name, tc.values); r.Label != tc.want {
			t.Errorf("%s: label %s (%.3f, %v), want %s", tc.name, r.Label, r.Confidence, r.Evidence, tc.want)
		}
	}
}

func repeatTo(vs []string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = vs[i%len(vs)]
	}
	return out
}
