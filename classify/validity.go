package classify

import (
	"cmp"
	"slices"
	"strings"
)

// Conformance is how the sampled values of a classified column measure up
// to what its label says they are, by the label's own validator: the check
// the detector ran, value by value (IBAN mod-97 whatever the spacing, e-mail
// syntax, libphonenumber, Luhn, national-ID control digits, date layouts).
// It is what the quality checks use for the validity of a column whose
// meaning has a validator, instead of the shape of its values.
type Conformance struct {
	// Rule completes "not valid …": "IBANs (country length and mod-97 check)".
	Rule string
	// Checked is the number of non-blank sample values checked, Failed how
	// many of them fail the rule.
	Checked, Failed int
	// Examples are up to three distinct failing values, in sample order.
	Examples []string
	// Formats are the layouts the values are written in, most used first,
	// with their counts in the sample (dates and timestamps only).
	Formats []FormatCount
}

// FormatCount is a written layout ("DD/MM/YYYY") and how many sampled values
// use it.
type FormatCount struct {
	Format  string
	Count   int
	Example string // the first sampled value written so
}

// valueRule is a label's per-value validator over a column: the column is
// given so that checks which depend on it (phone numbering plans, the name
// saying "national ID") read it as the detector did.
type valueRule struct {
	rule  string
	check func(c *column) func(v string) bool
}

var valueRules = map[string]valueRule{
	LabelEmail: {"e-mail addresses", func(*column) func(string) bool { return emailList }},
	LabelIBAN:  {"IBANs (country length and mod-97 check)", func(*column) func(string) bool { return validIBAN }},
	LabelPaymentCard: {"card numbers (issuer prefix and Luhn check)", func(*column) func(string) bool {
		return func(v string) bool {
			d, ok := cardDigits(v)
			return ok && cardBrand(d) != "" && luhnValid(d)
		}
	}},
	LabelSSN: {"US social security numbers", func(c *column) func(string) bool {
		bare := c.hint(LabelNationalID)
		return func(v string) bool {
			d, ok := ssnDigits(v, bare)
			return ok && validSSNDigits(d)
		}
	}},
	LabelSEPnr: {"Swedish personnummer (date and Luhn check digit)", func(c *column) func(string) bool {
		return func(v string) bool { return validSEPersonnummer(v, c.now) }
	}},
	LabelFIHetu: {"Finnish henkilötunnus (date and check character)", func(*column) func(string) bool { return validFIHETU }},
	LabelNOFnr:  {"Norwegian fødselsnummer (date and control digits)", func(*column) func(string) bool { return validNOFodselsnummer }},
	LabelDKCPR: {"Danish CPR numbers (birth date)", func(c *column) func(string) bool {
		bare := c.hint(LabelNationalID)
		return func(v string) bool { ok, _ := dkCPR(v, bare); return ok }
	}},
	LabelIP:    {"IP addresses", func(*column) func(string) bool { return func(v string) bool { _, ok := parseIP(v); return ok } }},
	LabelPhone: {"phone numbers (libphonenumber)", phoneCheck},
	LabelMAC:   {"MAC addresses", func(*column) func(string) bool { return isMAC }},
	LabelURL:   {"web addresses (http, https or ftp with a host)", func(*column) func(string) bool { return isURL }},
	// A VIN's check digit is only required in North America: the shape is
	// what every VIN has.
	LabelVIN: {"vehicle identification numbers (17 characters without I, O or Q)", func(*column) func(string) bool {
		return func(v string) bool { return classifyVIN(v) != vinNone }
	}},
	LabelDate:     {"dates", timeCheck},
	LabelDatetime: {"dates or timestamps", timeCheck},
	LabelDateOfBirth: {"dates", func(c *column) func(string) bool {
		t := timeCheck(c)
		return func(v string) bool {
			_, serial := excelSerialDate(v)
			return t(v) || serial
		}
	}},
}

// conformance checks the column's sample against label's validator; nil when
// the label has none.
func (c *column) conformance(label string) *Conformance {
	r, ok := valueRules[label]
	if !ok || c.n == 0 {
		return nil
	}
	check := r.check(c)
	out := &Conformance{Rule: r.rule, Checked: c.n}
	for _, it := range c.items {
		if check(it.v) {
			continue
		}
		out.Failed += it.c
		if len(out.Examples) < 3 {
			out.Examples = append(out.Examples, it.v)
		}
	}
	if label == LabelDate || label == LabelDatetime || label == LabelDateOfBirth {
		out.Formats = c.timeFormats()
	}
	return out
}

// timeCheck accepts the values the date detectors parse.
func timeCheck(c *column) func(string) bool {
	p := &timeParser{compact: c.name.hints[LabelDate] || c.name.hints[LabelDateOfBirth]}
	return func(v string) bool { _, k := p.parse(v); return k != notTime }
}

// phoneCheck accepts what detPhone counts as a phone number: an
// international number, or a national one in the numbering plan of one of
// the column's international numbers or of the default regions.
func phoneCheck(c *column) func(string) bool {
	pn := newPhoneValidator()
	regions := []string{}
	for _, it := range c.items {
		if d, f, ok := phoneShape(stripPhoneDecorations(it.v)); ok && f == pfIntl {
			if r, ok := pn.validIntl(d); ok && !slices.Contains(regions, r) {
				regions = append(regions, r)
			}
		}
	}
	for _, r := range defaultPhoneRegions {
		if !slices.Contains(regions, r) {
			regions = append(regions, r)
		}
	}
	return func(v string) bool {
		v = stripPhoneDecorations(v)
		d, f, ok := phoneShape(v)
		if !ok {
			return false
		}
		if f == pfIntl {
			_, ok = pn.validIntl(d)
			return ok
		}
		if _, ok = pn.validNational(v, d, regions); !ok && f != pfTrunk && len(d) >= 10 {
			_, ok = pn.validIntl(d) // the '+' lost
		}
		return ok
	}
}

// timeFormats counts the layouts the sampled values are written in, in a
// notation people read (YYYY-MM-DD, DD/MM/YYYY); values that parse as no
// layout are left out. An ambiguous slash date (03/04/2024) counts under the
// layout that first reads it, which is the day-first one.
func (c *column) timeFormats() []FormatCount {
	p := &timeParser{compact: c.name.hints[LabelDate] || c.name.hints[LabelDateOfBirth]}
	byFormat := map[string]int{} // format -> index in out
	var out []FormatCount
	for _, it := range c.items {
		if _, k := p.parse(it.v); k == notTime {
			continue
		}
		f := "YYYYMMDD"
		if !allDigits(it.v) {
			i := p.sigs[timeShape(it.v)]
			if i <= 0 {
				continue
			}
			f = readableLayout(allLayouts[i-1].l)
		}
		if i, ok := byFormat[f]; ok {
			out[i].Count += it.c
			continue
		}
		byFormat[f] = len(out)
		out = append(out, FormatCount{Format: f, Count: it.c, Example: it.v})
	}
	slices.SortFunc(out, func(a, b FormatCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return strings.Compare(a.Format, b.Format)
	})
	return out
}

// layoutWords turn a Go time layout into the notation of spreadsheets and
// databases; longer tokens first, so that "2006" is not read as "2" "006".
var layoutWords = strings.NewReplacer(
	"2006", "YYYY", "January", "Month", "Monday", "Weekday", "Jan", "Mon", "Mon", "Dow",
	"Z07:00", "±hh:mm", "-07:00", "±hh:mm", "-0700", "±hhmm", "Z0700", "±hhmm", "-07", "±hh", "MST", "TZ",
	".999999999", ".fff", "15", "hh", "04", "mm", "05", "ss", "PM", "AM/PM",
	"01", "MM", "02", "DD", "06", "YY", "_2", "D", "1", "M", "2", "D", "3", "h",
)

// readableLayout renders a Go layout for people: "02/01/2006" -> "DD/MM/YYYY".
func readableLayout(l string) string { return layoutWords.Replace(l) }
