package classify

import (
	"net/netip"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ---------------------------------------------------------------------------
// Generic helpers

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// compactDigits removes the separator characters in seps from s and reports
// whether what remains is all digits. Separators may not lead, trail or repeat.
func compactDigits(s, seps string) (string, bool) {
	if s == "" {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(s))
	prevSep := true // disallow a leading separator
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			b.WriteByte(c)
			prevSep = false
		case strings.IndexByte(seps, c) >= 0:
			if prevSep {
				return "", false
			}
			prevSep = true
		default:
			return "", false
		}
	}
	if prevSep {
		return "", false
	}
	return b.String(), true
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

// validDate reports whether y-m-d is a real calendar date.
func validDate(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && isLeap(y) {
		days = 29
	}
	return d <= days
}

// ---------------------------------------------------------------------------
// Luhn and payment cards

// luhnValid reports whether the digit string d passes the Luhn (mod 10) check.
func luhnValid(d string) bool {
	if len(d) < 2 {
		return false
	}
	sum, dbl := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		if !isDigit(d[i]) {
			return false
		}
		c := int(d[i] - '0')
		if dbl {
			c *= 2
			if c > 9 {
				c -= 9
			}
		}
		sum += c
		dbl = !dbl
	}
	return sum%10 == 0
}

type iinRule struct {
	brand      string
	lo, hi     int // inclusive prefix range
	digits     int // number of leading digits the range is expressed in
	minL, maxL int
	lengths    []int // when non-nil, only these lengths
}

// iinRules is a compact table of issuer identification number ranges and the
// PAN lengths each scheme issues.
var iinRules = []iinRule{
	{brand: "Visa", lo: 4, hi: 4, digits: 1, lengths: []int{13, 16, 19}},
	{brand: "Mastercard", lo: 51, hi: 55, digits: 2, minL: 16, maxL: 16},
	{brand: "Mastercard", lo: 2221, hi: 2720, digits: 4, minL: 16, maxL: 16},
	{brand: "American Express", lo: 34, hi: 34, digits: 2, minL: 15, maxL: 15},
	{brand: "American Express", lo: 37, hi: 37, digits: 2, minL: 15, maxL: 15},
	{brand: "Discover", lo: 6011, hi: 6011, digits: 4, minL: 16, maxL: 19},
	{brand: "Discover", lo: 644, hi: 649, digits: 3, minL: 16, maxL: 19},
	{brand: "Discover", lo: 65, hi: 65, digits: 2, minL: 16, maxL: 19},
	{brand: "JCB", lo: 3528, hi: 3589, digits: 4, minL: 16, maxL: 19},
	{brand: "Diners Club", lo: 300, hi: 305, digits: 3, minL: 14, maxL: 19},
	{brand: "Diners Club", lo: 36, hi: 36, digits: 2, minL: 14, maxL: 19},
	{brand: "Diners Club", lo: 38, hi: 39, digits: 2, minL: 16, maxL: 19},
	{brand: "UnionPay", lo: 62, hi: 62, digits: 2, minL: 16, maxL: 19},
	{brand: "Maestro", lo: 5018, hi: 5018, digits: 4, minL: 13, maxL: 19},
	{brand: "Maestro", lo: 5020, hi: 5020, digits: 4, minL: 13, maxL: 19},
	{brand: "Maestro", lo: 5038, hi: 5038, digits: 4, minL: 13, maxL: 19},
	{brand: "Maestro", lo: 5893, hi: 5893, digits: 4, minL: 13, maxL: 19},
	{brand: "Maestro", lo: 6304, hi: 6304, digits: 4, minL: 13, maxL: 19},
	{brand: "Maestro", lo: 6759, hi: 6759, digits: 4, minL: 13, maxL: 19},
	{brand: "Maestro", lo: 6761, hi: 6763, digits: 4, minL: 13, maxL: 19},
	{brand: "Mir", lo: 2200, hi: 2204, digits: 4, minL: 16, maxL: 19},
}

// cardBrand returns the scheme whose IIN range and length rules the PAN d
// satisfies, or "" when none does. It does not check Luhn.
func cardBrand(d string) string {
	l := len(d)
	if l < 13 || l > 19 {
		return ""
	}
	for _, r := range iinRules {
		p := atoi(d[:r.digits])
		if p < r.lo || p > r.hi {
			continue
		}
		if r.lengths != nil {
			for _, x := range r.lengths {
				if x == l {
					return r.brand
				}
			}
			continue
		}
		if l >= r.minL && l <= r.maxL {
			return r.brand
		}
	}
	return ""
}

// cardDigits extracts the PAN digits from a value written plain or in groups
// separated by single spaces or dashes.
func cardDigits(v string) (string, bool) {
	d, ok := compactDigits(v, " -")
	if !ok || len(d) < 13 || len(d) > 19 {
		return "", false
	}
	return d, true
}

// validCard reports whether v is a plausible payment card number: 13–19
// digits, an issuer prefix whose scheme issues that length, and a Luhn pass.
func validCard(v string) bool {
	d, ok := cardDigits(v)
	return ok && cardBrand(d) != "" && luhnValid(d)
}

// ---------------------------------------------------------------------------
// IBAN (ISO 13616)

// ibanLengths is the IBAN length per country from the SWIFT IBAN registry.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BI": 27,
	"BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DJ": 27, "DK": 18, "DO": 28,
	"EE": 20, "EG": 29, "ES": 24, "FI": 18, "FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23,
	"GL": 18, "GR": 27, "GT": 28, "HN": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26,
	"IT": 27, "JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21,
	"LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27, "MT": 31, "MU": 30, "NI": 28,
	"NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22,
	"RU": 33, "SA": 24, "SC": 31, "SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}

// normalizeIBAN strips spaces and dashes and upper-cases v.
func normalizeIBAN(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 5 && strings.EqualFold(v[:5], "IBAN ") {
		v = v[5:]
	}
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == ' ' || c == '-':
		case c >= 'a' && c <= 'z':
			b.WriteByte(c - 32)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// validIBAN checks country code, the per-country length and the mod-97 check.
func validIBAN(v string) bool {
	s := normalizeIBAN(v)
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	want, ok := ibanLengths[s[:2]]
	if !ok || len(s) != want || !isDigit(s[2]) || !isDigit(s[3]) {
		return false
	}
	return ibanMod97(s[4:]+s[:4]) == 1
}

// ibanMod97 computes the ISO 7064 mod 97-10 remainder of an alphanumeric
// string (letters count as 10..35). It returns -1 for other characters.
func ibanMod97(s string) int {
	r := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			r = (r*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return -1
		}
	}
	return r
}

// ---------------------------------------------------------------------------
// National identifiers

// knownFakeSSNs are famous example numbers (the Woolworth wallet card
// 078-05-1120, the ubiquitous 123-45-6789 and 219-09-9999 from SSA
// advertising). They satisfy the structural rules, so they are accepted as
// SSN-shaped; the detector reports how many it saw as evidence instead of
// rejecting the column, because a column full of real SSNs may contain
// them as test rows.
var knownFakeSSNs = map[string]bool{"078051120": true, "123456789": true, "219099999": true}

// ssnDigits returns the nine digits of a US SSN written AAA-GG-SSSS,
// AAA GG SSSS or (when bare is true) AAAGGSSSS.
func ssnDigits(v string, bare bool) (string, bool) {
	switch {
	case len(v) == 11 && (v[3] == '-' && v[6] == '-' || v[3] == ' ' && v[6] == ' '):
		d := v[:3] + v[4:6] + v[7:]
		return d, allDigits(d)
	case bare && len(v) == 9 && allDigits(v):
		return v, true
	}
	return "", false
}

// validSSNDigits applies the SSA rules: area not 000, 666 or 900–999; group
// not 00; serial not 0000.
func validSSNDigits(d string) bool {
	if len(d) != 9 {
		return false
	}
	area, group, serial := atoi(d[:3]), atoi(d[3:5]), atoi(d[5:])
	return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0
}

// validSSN reports whether v is a structurally valid SSN (formatted, or bare
// when bare is true).
func validSSN(v string, bare bool) bool {
	d, ok := ssnDigits(v, bare)
	return ok && validSSNDigits(d)
}

// validSEPersonnummer validates a Swedish personnummer or samordningsnummer in
// the forms YYMMDD-XXXX, YYMMDD+XXXX (100 years or older), YYYYMMDD-XXXX,
// YYYYMMDDXXXX and YYMMDDXXXX: a real date (day+60 for samordningsnummer),
// not in the future, and the Luhn check over the ten-digit form.
func validSEPersonnummer(v string, now time.Time) bool {
	var ten string
	century := -1
	plus := false
	switch {
	case len(v) == 11 && (v[6] == '-' || v[6] == '+'):
		ten = v[:6] + v[7:]
		plus = v[6] == '+'
	case len(v) == 13 && v[8] == '-':
		century = atoi(v[:2])
		ten = v[2:8] + v[9:]
	case len(v) == 12:
		century = atoi(v[:2])
		ten = v[2:]
		if !allDigits(v[:2]) {
			return false
		}
	case len(v) == 10:
		ten = v
	default:
		return false
	}
	if !allDigits(ten) {
		return false
	}
	yy, mm, dd := atoi(ten[:2]), atoi(ten[2:4]), atoi(ten[4:6])
	if dd > 60 {
		dd -= 60
	}
	var year int
	if century >= 0 {
		if century < 18 || century > 20 {
			return false
		}
		year = century*100 + yy
	} else {
		year = now.Year() - (now.Year()%100-yy+100)%100
		if plus {
			year -= 100
		}
	}
	if !validDate(year, mm, dd) {
		return false
	}
	if time.Date(year, time.Month(mm), dd, 0, 0, 0, 0, time.UTC).After(now) {
		return false
	}
	return luhnValid(ten)
}

const hetuCheckChars = "0123456789ABCDEFHJKLMNPRSTUVWXY"

// validFIHETU validates a Finnish henkilötunnus DDMMYYCZZZQ: a real date, a
// century sign (+ 1800s; - Y X W V U 1900s; A B C D E F 2000s), and the check
// character DDMMYYZZZ mod 31 looked up in 0123456789ABCDEFHJKLMNPRSTUVWXY.
func validFIHETU(v string) bool {
	if len(v) != 11 {
		return false
	}
	v = strings.ToUpper(v)
	if !allDigits(v[:6]) || !allDigits(v[7:10]) {
		return false
	}
	var century int
	switch v[6] {
	case '+':
		century = 1800
	case '-', 'Y', 'X', 'W', 'V', 'U':
		century = 1900
	case 'A', 'B', 'C', 'D', 'E', 'F':
		century = 2000
	default:
		return false
	}
	if !validDate(century+atoi(v[4:6]), atoi(v[2:4]), atoi(v[:2])) {
		return false
	}
	if atoi(v[7:10]) < 2 {
		return false
	}
	n := atoi(v[:6] + v[7:10])
	return hetuCheckChars[n%31] == v[10]
}

// noControlDigits computes the two mod-11 control digits of a Norwegian
// fødselsnummer from its first nine digits; ok is false when a control digit
// would be 10 (such numbers are never issued).
func noControlDigits(d9 string) (k1, k2 int, ok bool) {
	w1 := [...]int{3, 7, 6, 1, 8, 9, 4, 5, 2}
	w2 := [...]int{5, 4, 3, 2, 7, 6, 5, 4, 3, 2}
	s := 0
	for i := 0; i < 9; i++ {
		s += int(d9[i]-'0') * w1[i]
	}
	k1 = (11 - s%11) % 11
	if k1 == 10 {
		return 0, 0, false
	}
	s = 0
	for i := 0; i < 9; i++ {
		s += int(d9[i]-'0') * w2[i]
	}
	s += k1 * w2[9]
	k2 = (11 - s%11) % 11
	if k2 == 10 {
		return 0, 0, false
	}
	return k1, k2, true
}

// validNOFodselsnummer validates an 11-digit Norwegian fødselsnummer (also
// written DDMMYY IIIKK): both mod-11 control digits and a real date. D-numbers
// (day+40), H-numbers (month+40) and synthetic test numbers (month+80) are
// accepted.
func validNOFodselsnummer(v string) bool {
	if len(v) == 12 && v[6] == ' ' {
		v = v[:6] + v[7:]
	}
	if len(v) != 11 || !allDigits(v) {
		return false
	}
	k1, k2, ok := noControlDigits(v[:9])
	if !ok || int(v[9]-'0') != k1 || int(v[10]-'0') != k2 {
		return false
	}
	dd, mm, yy, ind := atoi(v[:2]), atoi(v[2:4]), atoi(v[4:6]), atoi(v[6:9])
	if dd > 40 {
		dd -= 40
	}
	switch {
	case mm > 80:
		mm -= 80
	case mm > 40:
		mm -= 40
	}
	year := 1900 + yy
	switch {
	case ind >= 500 && ind <= 749 && yy >= 54:
		year = 1800 + yy
	case ind >= 500 && yy <= 39:
		year = 2000 + yy
	}
	return validDate(year, mm, dd)
}

// dkCPR parses a Danish CPR number DDMMYY-SSSS (or DDMMYYSSSS when bare is
// true). ok means the date is real (century from the 7th digit); mod11 says
// whether it also passes the legacy mod-11 check, which numbers issued after
// 2007 need not satisfy.
func dkCPR(v string, bare bool) (ok, mod11 bool) {
	var d string
	switch {
	case len(v) == 11 && v[6] == '-':
		d = v[:6] + v[7:]
	case bare && len(v) == 10:
		d = v
	default:
		return false, false
	}
	if !allDigits(d) {
		return false, false
	}
	dd, mm, yy, c7 := atoi(d[:2]), atoi(d[2:4]), atoi(d[4:6]), int(d[6]-'0')
	year := 1900 + yy
	switch {
	case (c7 == 4 || c7 == 9) && yy <= 36:
		year = 2000 + yy
	case c7 >= 5 && c7 <= 8 && yy <= 57:
		year = 2000 + yy
	case c7 >= 5 && c7 <= 8:
		year = 1800 + yy
	}
	if !validDate(year, mm, dd) {
		return false, false
	}
	w := [...]int{4, 3, 2, 7, 6, 5, 4, 3, 2, 1}
	s := 0
	for i := 0; i < 10; i++ {
		s += int(d[i]-'0') * w[i]
	}
	return true, s%11 == 0
}

// ---------------------------------------------------------------------------
// E-mail and IP

// emailAddress extracts the address from v when the whole value is an e-mail
// address (optionally "mailto:addr" or "Display Name <addr>").
func emailAddress(v string) (string, bool) {
	if strings.HasPrefix(v, "mailto:") {
		v = v[7:]
	}
	if strings.HasSuffix(v, ">") {
		i := strings.LastIndexByte(v, '<')
		if i < 0 {
			return "", false
		}
		v = v[i+1 : len(v)-1]
	}
	return v, isEmail(v)
}

// emailList reports whether v is an e-mail address or a short list of them
// separated by semicolons or commas (cc fields, contact lists).
func emailList(v string) bool {
	if _, ok := emailAddress(v); ok {
		return true
	}
	for _, sep := range []string{";", ","} {
		parts := strings.Split(v, sep)
		if len(parts) < 2 || len(parts) > 10 {
			continue
		}
		all := true
		for _, p := range parts {
			if _, ok := emailAddress(strings.TrimSpace(p)); !ok {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	return false
}

const emailLocalSpecials = ".!#$%&'*+/=?^_`{|}~-"

// isEmail is a pragmatic RFC 5321/5322 syntax check: a dot-atom local part of
// at most 64 characters, and a domain of at least two labels whose top-level
// label is alphabetic (or punycode). Unicode letters are allowed (EAI/IDN).
func isEmail(s string) bool {
	if len(s) < 6 || len(s) > 254 {
		return false
	}
	at := strings.LastIndexByte(s, '@')
	if at < 1 || at > 64 || at == len(s)-1 {
		return false
	}
	local, domain := s[:at], s[at+1:]
	if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return false
	}
	for _, r := range local {
		if r < 128 && !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(emailLocalSpecials, r)) {
			return false
		}
		if r >= 128 && !unicode.IsLetter(r) {
			return false
		}
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-') {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	if strings.HasPrefix(strings.ToLower(tld), "xn--") {
		return true
	}
	if utf8.RuneCountInString(tld) < 2 {
		return false
	}
	for _, r := range tld {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return true
}

// parseIP accepts IPv4, IPv6 (with optional zone) and address:port forms.
func parseIP(v string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(v); err == nil {
		return a, true
	}
	if ap, err := netip.ParseAddrPort(v); err == nil {
		return ap.Addr(), true
	}
	return netip.Addr{}, false
}
