package classify

import "github.com/nyaruka/phonenumbers"

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

// validNational validates a nationally formatted number against each region
// in turn and returns the first region it is valid for.
func (p *phoneValidator) validNational(v string, regions []string) (string, bool) {
	for _, r := range regions {
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
	d, form, ok := phoneShape(v)
	if !ok {
		return false
	}
	p := newPhoneValidator()
	if form == pfIntl {
		_, ok = p.validIntl(d)
		return ok
	}
	_, ok = p.validNational(v, defaultPhoneRegions)
	return ok
}
