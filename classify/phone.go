package classify

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// phoneValidator wraps libphonenumber, reusing one PhoneNumber value.
type phoneValidator struct {
	num phonenumbers.PhoneNumber
}

func newPhoneValidator() *phoneValidator { return &phoneValidator{} }

// validIntl validates a number given its digits after the international
// prefix (country calling code first) and returns its region.
func (p *phoneValidator) validIntl(digits string) (string, bool) {
	p.num.Reset()
	if err := phonenumbers.ParseToNumber("+"+digits, "ZZ", &p.num); err != nil {
		return "", false
	}
	if !phonenumbers.IsValidNumber(&p.num) {
		return "", false
	}
	return phonenumbers.GetRegionCodeForNumber(&p.num), true
}

// validNational validates a nationally formatted number (digits are its
// digits) against each region in turn and returns the first region it is
// valid for. Where the numbering plan has the trunk prefix 0 (SE, DE, GB, FR,
// FI …) people write it, so a number without it is not that country's:
// libphonenumber alone would accept 1234567-8 as a Swedish number.
func (p *phoneValidator) validNational(v, digits string, regions []string) (string, bool) {
	for _, r := range regions {
		if digits[0] != '0' && phonenumbers.GetNddPrefixForRegion(r, true) == "0" {
			continue
		}
		p.num.Reset()
		if err := phonenumbers.ParseToNumber(v, r, &p.num); err != nil {
			continue
		}
		if phonenumbers.IsValidNumber(&p.num) {
			return r, true
		}
	}
	return "", false
}

// validPhone reports whether v is a valid phone number, trying an explicit
// +CC / 00CC prefix first and then the default regions. It is the single-value
// form of the column logic in detPhone.
func validPhone(v string) bool {
	v = stripPhoneDecorations(v)
	d, form, ok := phoneShape(v)
	if !ok {
		return false
	}
	p := newPhoneValidator()
	if form == pfIntl {
		_, ok = p.validIntl(d)
		return ok
	}
	_, ok = p.validNational(v, d, defaultPhoneRegions)
	return ok
}

// phoneLabels are labels typed before a number ("Tel: 070-…").
var phoneLabels = []string{"tel:", "tel.", "tel", "phone:", "mob:", "mob.", "mobile:", "cell:", "tlf:", "tlf.",
	"puh:", "puh.", "fax:", "t:", "m:"}

// phoneExtensions introduce an extension after the number ("… ext. 45").
var phoneExtensions = []string{" ext. ", " ext.", " ext ", " extension ", " x", " #", " anknytning "}

// stripPhoneDecorations removes a leading label and a trailing extension of
// up to five digits, leaving the number itself.
func stripPhoneDecorations(v string) string {
	low := strings.ToLower(v)
	if len(low) != len(v) {
		return v // non-ASCII: byte offsets would not line up, and no label applies
	}
	for _, p := range phoneLabels {
		// A label ends in punctuation or is followed by a space ("tel 070…").
		rest, ok := strings.CutPrefix(low, p)
		if ok && rest != "" && (strings.HasSuffix(p, ":") || strings.HasSuffix(p, ".") || rest[0] == ' ') {
			v = strings.TrimSpace(v[len(p):])
			low = strings.ToLower(v)
			break
		}
	}
	for _, e := range phoneExtensions {
		i := strings.LastIndex(low, e)
		if i <= 0 {
			continue
		}
		if ext := strings.TrimSpace(low[i+len(e):]); len(ext) <= 5 && allDigits(ext) {
			return strings.TrimSpace(v[:i])
		}
	}
	return v
}

// groupedPhoneStrength is the strength of a number that is written like a
// phone number, under a phone name, but that libphonenumber rejects.
const groupedPhoneStrength = 0.8

// groupedPhone reports whether v, already shaped by phoneShape, is written
// in digit groups the way national phone numbers are — (555) 123-4567,
// 555.123.4567, 020 7946 0958, 06 12 34 56 78: 9 to 12 digits in three to
// five groups of two to four digits, the first group allowed one more.
func groupedPhone(v string) bool {
	groups := strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(" -./()", r) })
	if len(groups) < 3 || len(groups) > 5 {
		return false
	}
	digits := 0
	for i, g := range groups {
		if !allDigits(g) || len(g) < 2 || len(g) > 4 && !(i == 0 && len(g) == 5) {
			return false
		}
		digits += len(g)
	}
	return digits >= 9 && digits <= 12
}
