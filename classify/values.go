package classify

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// ---------------------------------------------------------------------------
// Dates and times

type timeKind int

const (
	notTime timeKind = iota
	kindDate
	kindDateTime
)

var dateLayouts = []string{
	"2006-01-02", "2006/01/02", "2006.01.02", "02/01/2006", "01/02/2006", "02.01.2006", "2.1.2006",
	"02-01-2006", "2006-1-2", "1/2/2006", "Jan 2, 2006", "January 2, 2006", "2 Jan 2006",
	"2 January 2006", "Jan 2 2006", "02-Jan-2006", "2. January 2006",
	// Two-digit years (German and Nordic, US, British short forms); see
	// shortYear for birth dates.
	"02.01.06", "01/02/06", "02/01/06", "1/2/06",
}

var dateTimeLayouts = []string{
	time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04",
	"2006-01-02T15:04", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05-07",
	"2006-01-02 15:04:05 MST", "02/01/2006 15:04", "02/01/2006 15:04:05", "01/02/2006 15:04:05",
	"01/02/2006 3:04 PM", "1/2/2006 3:04:05 PM", "02.01.2006 15:04", "02.01.2006 15:04:05",
	"1/2/2006 15:04:05", "1/2/2006 15:04", // spreadsheet and form exports (Google Forms, UCI Online Retail)
	"1/2/06 15:04", "1/2/06 15:04:05", "1/2/06 3:04 PM", "1/2/2006 3:04 PM", "01/02/2006 3:04:05 PM", // spreadsheets, two-digit years
	"02/Jan/2006:15:04:05 -0700", // web server access logs (common log format)
	time.RFC1123, time.RFC1123Z, time.RFC822, time.RFC822Z, time.ANSIC, time.UnixDate,
	"Mon, 2 Jan 2006 15:04:05 -0700", "2006-01-02T15:04:05Z0700",
}

type layout struct {
	l    string
	kind timeKind
}

var allLayouts = func() []layout {
	var ls []layout
	for _, l := range dateLayouts {
		ls = append(ls, layout{l, kindDate})
	}
	for _, l := range dateTimeLayouts {
		ls = append(ls, layout{l, kindDateTime})
	}
	return ls
}()

// timeParser parses dates and timestamps. It caches, per value shape (digits
// → 9, letters → a), the layout that worked, and gives up on shapes that
// repeatedly match no layout, so a column costs about one time.Parse per value.
type timeParser struct {
	compact bool           // accept YYYYMMDD (only when the name says date)
	sigs    map[string]int // shape → layout index+1, or −failures
}

// timeShape returns the value's shape signature, or "" when v cannot be a
// date or timestamp (wrong length, too few digits, foreign characters).
func timeShape(v string) string {
	if len(v) < 6 || len(v) > 40 {
		return ""
	}
	b := make([]byte, 0, len(v))
	digits := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case isDigit(c):
			digits++
			b = append(b, '9')
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			b = append(b, 'a')
		case strings.IndexByte(" -/.:,+()", c) >= 0:
			b = append(b, c)
		default:
			return ""
		}
	}
	if digits < 4 {
		return ""
	}
	return string(b)
}

// parse returns the time and whether v is a date or a date-time. A date-time
// at exactly midnight with no zone counts as a date (DB exports of DATE).
func (p *timeParser) parse(v string) (time.Time, timeKind) {
	if allDigits(v) {
		if p.compact && len(v) == 8 {
			if t, err := time.Parse("20060102", v); err == nil {
				return t, kindDate
			}
		}
		return time.Time{}, notTime
	}
	sig := timeShape(v)
	if sig == "" {
		return time.Time{}, notTime
	}
	if p.sigs == nil {
		p.sigs = map[string]int{}
	}
	state := p.sigs[sig]
	if state > 0 {
		if t, err := time.Parse(allLayouts[state-1].l, v); err == nil {
			return t, p.kind(v, allLayouts[state-1].kind)
		}
	} else if state <= -3 {
		return time.Time{}, notTime
	}
	for i, l := range allLayouts {
		if i == state-1 {
			continue
		}
		if t, err := time.Parse(l.l, v); err == nil {
			p.sigs[sig] = i + 1
			return t, p.kind(v, l.kind)
		}
	}
	if state <= 0 {
		p.sigs[sig] = state - 1
	}
	return time.Time{}, notTime
}

// kind treats a timestamp at exactly midnight, without zone or in UTC, as a
// date: that is how databases and JSON serialisers export DATE values
// (1985-03-12 00:00:00, 1985-03-12T00:00:00Z).
func (p *timeParser) kind(v string, k timeKind) timeKind {
	if k != kindDateTime {
		return k
	}
	for _, utc := range []string{"Z", ".000Z", "+00:00", "+0000", ".000"} {
		v = strings.TrimSuffix(v, utc)
	}
	if strings.HasSuffix(v, " 00:00:00") || strings.HasSuffix(v, "T00:00:00") {
		return kindDate
	}
	return k
}

// looksLikeDateShape is a cheap check for date-like digit groupings, used to
// keep dates out of phone-number validation.
func looksLikeDateShape(v string) bool {
	if len(v) < 8 {
		return false
	}
	// YYYY-MM-DD / YYYY/MM/DD / YYYY.MM.DD
	if len(v) >= 10 && allDigits(v[:4]) && (v[4] == '-' || v[4] == '/' || v[4] == '.') && allDigits(v[5:7]) && v[7] == v[4] && allDigits(v[8:10]) {
		return true
	}
	// DD.MM.YYYY / MM/DD/YYYY / DD-MM-YYYY
	if len(v) >= 10 && allDigits(v[:2]) && (v[2] == '-' || v[2] == '/' || v[2] == '.') && allDigits(v[3:5]) && v[5] == v[2] && allDigits(v[6:10]) {
		return true
	}
	return false
}

// ---------------------------------------------------------------------------
// Numbers and money

// parseNumber accepts plain and locale-formatted numbers: optional sign,
// thousands separators (space, NBSP, apostrophe, comma or dot) and a decimal
// point or comma. decimals is the number of fraction digits.
func parseNumber(s string) (f float64, decimals int, ok bool) {
	if s == "" || len(s) > 40 || !spaceGroupsOK(s) {
		return 0, 0, false
	}
	var b strings.Builder
	b.Grow(len(s))
	dots, commas, lastDot, lastComma := 0, 0, -1, -1
	digits := 0
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
			digits++
		case r == '.':
			dots++
			lastDot = b.Len()
			b.WriteRune(r)
		case r == ',':
			commas++
			lastComma = b.Len()
			b.WriteRune(r)
		case (r == '-' || r == '+') && i == 0:
			b.WriteRune(r)
		case r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\'' || r == '_':
			// thousands separator
		case (r == 'e' || r == 'E') && digits > 0:
			b.WriteRune(r)
		default:
			return 0, 0, false
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	t := b.String()
	decSep := byte(0)
	switch {
	case dots > 0 && commas > 0:
		if lastDot > lastComma {
			decSep = '.'
		} else {
			decSep = ','
		}
		if (decSep == '.' && dots > 1) || (decSep == ',' && commas > 1) {
			return 0, 0, false
		}
	case dots == 1:
		decSep = '.'
	case commas == 1:
		after := len(t) - lastComma - 1
		before := lastComma
		if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
			before--
		}
		if !(after == 3 && before >= 1 && before <= 3) {
			decSep = ','
		}
	}
	if !thousandsGroupsOK(t, decSep) {
		return 0, 0, false
	}
	var out strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == decSep:
			out.WriteByte('.')
			decimals = len(t) - i - 1
		case c == '.' || c == ',':
		default:
			out.WriteByte(c)
		}
	}
	f, err := strconv.ParseFloat(out.String(), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, 0, false
	}
	return f, decimals, true
}

func isSpaceSeparator(r rune) bool {
	return r == ' ' || r == '\u00a0' || r == '\u202f' || r == '\'' || r == '_'
}

// spaceGroupsOK checks that spaces, apostrophes and underscores, which
// parseNumber takes for thousands separators, split the integer part into
// groups of three after a first group of one to three digits (1 234 567,
// 1'234.50), so that a phone number such as +91 98765 43210 is no number.
func spaceGroupsOK(s string) bool {
	if !strings.ContainsFunc(s, isSpaceSeparator) {
		return true
	}
	parts := strings.FieldsFunc(strings.TrimLeft(s, "+-"), isSpaceSeparator)
	for i, p := range parts {
		if i == len(parts)-1 {
			if j := strings.IndexAny(p, ".,"); j >= 0 {
				p = p[:j] // the decimals
			}
		}
		if i == 0 && (len(p) < 1 || len(p) > 3) || i > 0 && len(p) != 3 {
			return false
		}
	}
	return true
}

// thousandsGroupsOK checks that '.' or ',' used as thousands separators
// split the integer part into groups of exactly three digits after the first
// (1.234.567 yes, 1.2.3 no).
func thousandsGroupsOK(t string, decSep byte) bool {
	intPart := t
	if decSep != 0 {
		intPart = t[:strings.LastIndexByte(t, decSep)]
	}
	intPart = strings.TrimLeft(intPart, "+-")
	groups := strings.FieldsFunc(intPart, func(r rune) bool { return r == '.' || r == ',' })
	if len(groups) <= 1 {
		return !strings.ContainsAny(intPart, ".,") || intPart == ""
	}
	if len(groups[0]) < 1 || len(groups[0]) > 3 {
		return false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return false
		}
	}
	return strings.Count(intPart, ".")+strings.Count(intPart, ",") == len(groups)-1
}

// parseInt accepts optionally signed decimal integers only.
func parseInt(s string) (int64, bool) {
	if s == "" || len(s) > 19 {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// wholeNumber parses an integer, also when written as a float with a zero
// fraction ("34.0"), as spreadsheets and dataframes export integer columns
// that have gaps.
func wholeNumber(s string) (int64, bool) {
	if n, ok := parseInt(s); ok {
		return n, true
	}
	i := strings.IndexByte(s, '.')
	if i <= 0 || len(s)-i-1 > 2 || strings.Trim(s[i+1:], "0") != "" {
		return 0, false
	}
	return parseInt(s[:i])
}

// stripCurrency removes a currency symbol or ISO code at either end of v and
// reports whether one was found.
func stripCurrency(v string) (string, bool) {
	found := false
	for _, c := range currencyTokens {
		if len(v) > len(c) && strings.HasPrefix(v, c) {
			v, found = strings.TrimSpace(v[len(c):]), true
			break
		}
	}
	for _, c := range currencyTokens {
		if len(v) > len(c) && strings.HasSuffix(v, c) {
			v, found = strings.TrimSpace(v[:len(v)-len(c)]), true
			break
		}
	}
	// "-$12.50" / "$-12.50"
	if !found && strings.HasPrefix(v, "-") {
		if rest, ok := stripCurrency(v[1:]); ok {
			return "-" + rest, true
		}
	}
	return v, found
}

// ---------------------------------------------------------------------------
// Strings

// shannonEntropy returns bits per character.
func shannonEntropy(s string) float64 {
	if s == "" {
		return 0
	}
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// isTokenChars reports whether s consists of characters found in API keys,
// base64(url) and hex strings.
func isTokenChars(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.IndexByte("-_+/=.~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

func isUUID(s string) bool {
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return false
			}
		default:
			c := s[i]
			if !(isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// wordCount counts whitespace-separated words containing a letter.
func wordCount(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		for _, r := range w {
			if unicode.IsLetter(r) {
				n++
				break
			}
		}
	}
	return n
}

func hasLetter(s string) bool {
	for _, r := range s {
		if unicode.IsLetter(r) {
			return true
		}
	}
	return false
}
