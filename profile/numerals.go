package profile

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Numbers as people write them: with thousands separators (1,234,567.89,
// 1.234.567,89, 1 234 567,89, 1'234'567.89), a decimal comma (1004,14), a
// currency sign ($12.50, 12,50 €) or a percent sign (12.5%, 12,5 %).
//
// A numeral reads one way under the decimal-point convention (1,234.5) and
// another under the decimal-comma one (1.234,5) only when its one separator
// is followed by exactly three digits: 1.234 (1.234, or 1234 with a dot
// for thousands) and 1,234 (1234, or 1.234). Every other numeral reads one
// way: 1,234.5 and 1,234,567 only with a decimal point, 1.234,5, 12,5 and
// 1.234.567 only with a decimal comma, and 12.5, 1 234 or $12 in both the
// same. A column takes the convention most of its one-way numerals call
// for (the decimal point when none do or as many each way), and reads its
// two-way ones so; the profile says which (Column.Notation).
//
// Plain numbers (parseInt, decimalFloat) stay on the fast path; only
// values that fail them, and plain numbers shaped like 1.234, come here.

// numeral is the kind of a written number.
type numeral uint8

const (
	notNumeral   numeral = iota
	sameNumeral          // one value whatever the convention: 12.5, 1 234, $12, 12.5%
	dotGrouped           // 1.234: 1.234, or 1234 under the decimal comma
	commaGrouped         // 1,234: 1234, or 1.234 under the decimal comma
	pointOnly            // 1,234.5 or 1,234,567: a decimal point only
	commaOnly            // 1.234,5, 12,5 or 1.234.567: a decimal comma only
)

// reading is a numeral's value under the decimal point (pt) and under the
// decimal comma (cm), and whether each is whole.
type reading struct {
	kind         numeral
	pt, cm       float64
	ptInt, cmInt bool
}

// maxNumeralLen bounds what is read as a numeral (and the scratch buffer).
const maxNumeralLen = 48

// currencySigns are the signs read before or after a numeral.
var currencySigns = []string{"$", "€", "£", "¥", "₹", "₽", "₩", "₺"}

// isSpaceSep reports whether s starts with a thousands separator of the
// spaced kind (space, no-break spaces, apostrophe), and its length.
func isSpaceSep(s string) (int, bool) {
	switch {
	case s == "":
		return 0, false
	case s[0] == ' ' || s[0] == '\'':
		return 1, true
	case strings.HasPrefix(s, "\u00a0"):
		return len("\u00a0"), true
	case strings.HasPrefix(s, "\u202f"):
		return len("\u202f"), true
	}
	return 0, false
}

func cutSign(s string) (string, bool, bool) {
	if s != "" && (s[0] == '-' || s[0] == '+') {
		return s[1:], s[0] == '-', true
	}
	return s, false, false
}

// cutCurrency removes a currency sign at the start (before) or at the end
// of s, with one space between it and the number.
func cutCurrency(s string, before bool) (string, bool) {
	for _, c := range currencySigns {
		if before && strings.HasPrefix(s, c) {
			s = s[len(c):]
			if n, ok := isSpaceSep(s); ok && s[0] != '\'' {
				s = s[n:]
			}
			return s, true
		}
		if !before && strings.HasSuffix(s, c) {
			return trimSpaceSep(s[:len(s)-len(c)]), true
		}
	}
	return s, false
}

// trimSpaceSep removes one space (or no-break space) at the end of s.
func trimSpaceSep(s string) string {
	for _, sp := range []string{" ", "\u00a0", "\u202f"} {
		if strings.HasSuffix(s, sp) {
			return s[:len(s)-len(sp)]
		}
	}
	return s
}

// readNumeral reads v as a written number; kind is notNumeral when it is
// none. It does not allocate.
func readNumeral(v string) (r reading) {
	if v == "" || len(v) > maxNumeralLen {
		return r
	}
	s, neg, signed := cutSign(v)
	s, prefixed := cutCurrency(s, true)
	if prefixed && !signed {
		s, neg, signed = cutSign(s) // $-12.50
	}
	suffixed := false
	if strings.HasSuffix(s, "%") {
		s, suffixed = trimSpaceSep(s[:len(s)-1]), true
	} else if !prefixed {
		s, suffixed = cutCurrency(s, false)
	}
	// The separators between the runs of digits of s, and the runs' lengths.
	const maxRuns = 16
	var seps [maxRuns]byte // '.', ',' or ' ' (any spaced separator)
	var runs [maxRuns]int
	m, i := 0, 0
	for {
		j := i
		for j < len(s) && s[j]-'0' <= 9 {
			j++
		}
		if j == i {
			return r // a separator not between digits, or no digits
		}
		runs[m] = j - i
		if j == len(s) {
			break
		}
		if m == maxRuns-1 {
			return r
		}
		switch n, spaced := isSpaceSep(s[j:]); {
		case s[j] == '.' || s[j] == ',':
			seps[m], i = s[j], j+1
		case spaced:
			seps[m], i = ' ', j+n
		default:
			return r
		}
		m++
	}
	if runs[0] > 1 && s[0] == '0' {
		return r // a leading zero: a code (007), not a number
	}
	if m == 0 && !prefixed && !suffixed {
		return r // digits alone are a plain integer, read elsewhere
	}
	grouped := func(upTo int) bool { // runs[0..upTo] are thousands groups
		if runs[0] > 3 || s[0] == '0' && upTo > 0 {
			return false
		}
		for k := 1; k <= upTo; k++ {
			if runs[k] != 3 {
				return false
			}
		}
		return true
	}
	sameKind := true
	for k := 1; k < m; k++ {
		sameKind = sameKind && seps[k] == seps[0]
	}
	switch {
	case m == 0:
		r.kind = sameNumeral
	case sameKind && seps[0] == ' ':
		if !grouped(m) {
			return r
		}
		r.kind = sameNumeral
	case sameKind && m == 1 && runs[1] == 3 && grouped(1):
		r.kind = dotGrouped
		if seps[0] == ',' {
			r.kind = commaGrouped
		}
	case sameKind && m == 1:
		r.kind = sameNumeral // 12.5: a decimal point, which no grouping explains
		if seps[0] == ',' {
			r.kind = commaOnly // 12,5
		}
	case sameKind: // several groups of one kind: thousands
		if !grouped(m) {
			return r
		}
		r.kind = pointOnly // 1,234,567
		if seps[0] == '.' {
			r.kind = commaOnly // 1.234.567
		}
	default: // thousands groups, then a decimal mark of another kind
		mark := seps[m-1]
		for k := 0; k < m-1; k++ {
			if seps[k] != seps[0] {
				return r
			}
		}
		if mark == ' ' || !grouped(m-1) {
			return r
		}
		switch {
		case seps[0] == ' ':
			r.kind = sameNumeral // 1 234,5 or 1 234.5
		case mark == '.':
			r.kind = pointOnly
		default:
			r.kind = commaOnly
		}
	}
	// The value with the last separator as a decimal mark, and as a
	// thousands separator where that reading exists.
	var buf [maxNumeralLen + 2]byte
	digitsOf := func(decimal bool) (float64, bool) {
		b := buf[:0]
		if neg {
			b = append(b, '-')
		}
		k := 0
		for p := 0; p < len(s); {
			c := s[p]
			switch {
			case c-'0' <= 9:
				b = append(b, c)
				p++
				continue
			case k == m-1 && decimal:
				b = append(b, '.')
			}
			k++
			if n, ok := isSpaceSep(s[p:]); ok {
				p += n
			} else {
				p++
			}
		}
		f, err := strconv.ParseFloat(view(b), 64)
		return f, err == nil && !(f-f != 0) // finite
	}
	decimalLast := m > 0 && seps[m-1] != ' ' && !(r.kind == pointOnly && seps[m-1] == ',') && !(r.kind == commaOnly && seps[m-1] == '.')
	var ok bool
	switch r.kind {
	case dotGrouped, commaGrouped:
		dec, ok1 := digitsOf(true)
		whole, ok2 := digitsOf(false)
		ok = ok1 && ok2
		if r.kind == dotGrouped {
			r.pt, r.cm, r.cmInt = dec, whole, true
		} else {
			r.pt, r.cm, r.ptInt = whole, dec, true
		}
	default:
		r.pt, ok = digitsOf(decimalLast)
		r.cm, r.ptInt = r.pt, !decimalLast
		r.cmInt = r.ptInt
	}
	if !ok {
		return reading{}
	}
	return r
}

// plainDotGrouped reports whether v, a plain decimal (decimalFloat
// accepted it), is shaped like 1.234, which reads 1234 under the decimal
// comma: one to three digits without a leading zero, a dot, three digits.
func plainDotGrouped(v string) bool {
	if v != "" && (v[0] == '-' || v[0] == '+') {
		v = v[1:]
	}
	n := len(v)
	return n >= 5 && n <= 7 && v[n-4] == '.' && v[0] != '0' && strings.IndexByte(v[:n-4], '.') < 0 &&
		v[n-3]-'0' <= 9 && v[n-2]-'0' <= 9 && v[n-1]-'0' <= 9
}

// numeralStart reports whether v, which does not start with a digit or a
// sign, may still be a numeral: it starts with a currency sign.
func numeralStart(v string) bool {
	if v == "" {
		return false
	}
	if v[0] == '$' {
		return true
	}
	if v[0] < utf8.RuneSelf {
		return false
	}
	for _, c := range currencySigns {
		if strings.HasPrefix(v, c) {
			return true
		}
	}
	return false
}

// NumberAs reads v as a number the way a column of the given notation does
// (decimalComma: the column reads two-way numerals with a decimal comma):
// plain numbers, and numerals with separators, currency or percent signs.
func NumberAs(v string, decimalComma bool) (float64, bool) {
	if r := readNumeral(v); r.kind != notNumeral {
		switch {
		case r.kind == pointOnly && decimalComma, r.kind == commaOnly && !decimalComma:
			return 0, false
		case decimalComma:
			return r.cm, true
		}
		return r.pt, true
	}
	return parseFloat(v)
}
