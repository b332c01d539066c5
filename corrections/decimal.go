package corrections

import (
	"strings"
	"unicode/utf8"

	"github.com/dqs/dqs/profile"
)

// decimal_point rewrites numbers written with a decimal comma, and dots or
// spaces between thousands, with a decimal point and no separators:
// "1.234,5" → "1234.5", "3,5" → "3.5", "1 234 567" → "1234567". It reads
// them as a column of the profiler's decimal-comma notation does
// (profile.NumberAs(v, true), which the tests hold it to), so "1.234" is
// 1234 and "12.5", whose dot cannot separate thousands, stays 12.5. A
// number already plain is left alone; any other value (text, a number with
// a currency or percent sign) is left as it is and counted as unfixed.

func decimalPointFix(v string) (string, bool, error) {
	s := strings.TrimSpace(v)
	switch out, k := toDecimalPoint(s); k {
	case rewritten:
		return out, true, nil
	case alreadyPlain:
		return v, true, nil
	}
	if _, ok := profile.NumberAs(s, false); ok && plainNumber(s) {
		return v, true, nil // 1e5, .5: plain numbers in forms numerals do not take
	}
	return v, false, nil
}

// plainNumber reports whether s has only a sign, digits, a dot and an
// exponent: a number nothing needs to be done to.
func plainNumber(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == '.', c == '-', c == '+', c == 'e', c == 'E':
		default:
			return false
		}
	}
	return true
}

// maxNumeralLen is the longest numeral the profiler reads.
const maxNumeralLen = 48

type numeralKind int

const (
	notNumeral   numeralKind = iota
	alreadyPlain             // 1234, 12.5
	rewritten
)

// toDecimalPoint reads s, with the profiler's rules for a column of
// decimal commas (profile's readNumeral, but for currency and percent
// signs), as runs of digits between separators: '.', ',' or a space
// (' ', '\”, U+00A0, U+202F). Runs after the first are thousands groups
// of three digits; the last separator may instead be the decimal mark:
//
//	1 234 567    spaces between thousands          → 1234567
//	1.234.567    dots between thousands            → 1234567
//	1.234        one dot before three digits       → 1234
//	12.5         one dot before other than three   → 12.5, as it is
//	3,5  1,234   one comma                         → 3.5, 1.234
//	1.234,5      dots, then a decimal comma        → 1234.5
//	1 234,5      spaces, then a decimal comma      → 1234.5
//	1 234.5      spaces, then a decimal point      → 1234.5
//
// 1,234,567 and 1,234.5 are decimal-point numerals, which a decimal-comma
// column does not read; a first run of several digits with a leading zero
// (007,5) is a code. A '+' sign is dropped.
func toDecimalPoint(s string) (string, numeralKind) {
	if len(s) > maxNumeralLen {
		return "", notNumeral
	}
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg, s = s[0] == '-', s[1:]
	}
	const maxRuns = 16
	var runs [maxRuns]string
	var seps [maxRuns]byte // '.', ',' or ' ' for any space
	m := 0
	for i := 0; ; {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || m == maxRuns-1 {
			return "", notNumeral
		}
		runs[m] = s[i:j]
		if j == len(s) {
			break
		}
		switch n := sepLen(s[j:]); {
		case s[j] == '.' || s[j] == ',':
			seps[m], i = s[j], j+1
		case n > 0:
			seps[m], i = ' ', j+n
		default:
			return "", notNumeral
		}
		m++
	}
	if len(runs[0]) > 1 && runs[0][0] == '0' {
		return "", notNumeral
	}
	if m == 0 {
		return "", alreadyPlain
	}
	grouped := func(upTo int) bool { // runs[1..upTo] are thousands groups
		if len(runs[0]) > 3 || (runs[0] == "0" && upTo > 0) {
			return false
		}
		for k := 1; k <= upTo; k++ {
			if len(runs[k]) != 3 {
				return false
			}
		}
		return true
	}
	same := true
	for k := 1; k < m; k++ {
		same = same && seps[k] == seps[0]
	}
	// mark is the index of the separator read as the decimal mark, or m
	// for none.
	mark := m
	switch {
	case same && seps[0] == ' ', same && seps[0] == '.' && m > 1:
		if !grouped(m) {
			return "", notNumeral
		}
	case same && seps[0] == '.': // one dot
		if !grouped(1) || len(runs[1]) != 3 {
			return "", alreadyPlain
		}
	case same && seps[0] == ',' && m == 1:
		mark = 0
	case same: // 1,234,567
		return "", notNumeral
	default: // thousands, then a decimal mark of another kind
		for k := 1; k < m-1; k++ {
			if seps[k] != seps[0] {
				return "", notNumeral
			}
		}
		last := seps[m-1]
		if last == ' ' || (seps[0] == ',' && last == '.') || !grouped(m-1) {
			return "", notNumeral
		}
		mark = m - 1
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for k := 0; k <= m; k++ {
		if k == mark+1 {
			b.WriteByte('.')
		}
		b.WriteString(runs[k])
	}
	return b.String(), rewritten
}

// sepLen is the length of the spaced thousands separator s starts with, or
// 0.
func sepLen(s string) int {
	switch s[0] {
	case ' ', '\'':
		return 1
	}
	if r, n := utf8.DecodeRuneInString(s); r == '\u00a0' || r == '\u202f' {
		return n
	}
	return 0
}
