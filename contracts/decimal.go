package contracts

import (
	"strconv"
	"strings"
)

// maxPlainDigits is how many zeros a plain decimal may carry before the
// exponent notation is shorter and clearer.
const maxPlainDigits = 21

// formatNumber renders v as the shortest decimal that reads back as v,
// without an exponent unless the number is very large or very small.
func formatNumber(v float64) string {
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if out, ok := shiftDecimal(s, 0); ok {
		return out
	}
	return s
}

// shiftDecimal multiplies the decimal literal s by 10^by exactly, moving
// the decimal point in the text: ("0.05", 2) is "5", ("1.5", -2) is
// "0.015". It accepts an optional sign, digits with an optional point and
// an optional exponent, and reports false for anything else (hex, inf,
// nan, underscores) or an absurd exponent.
func shiftDecimal(s string, by int) (string, bool) {
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil || e > 10000 || e < -10000 || s[i+1:] == "" {
			return "", false
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return "", false
	}
	// value = digits × 10^exp
	digits := intPart + frac
	exp += by - len(frac)
	digits = strings.TrimLeft(digits, "0")
	if digits == "" {
		return "0", true
	}
	for strings.HasSuffix(digits, "0") {
		digits = digits[:len(digits)-1]
		exp++
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	switch point := len(digits) + exp; {
	case exp >= 0 && exp <= maxPlainDigits:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", exp))
	case exp < 0 && point > 0:
		b.WriteString(digits[:point])
		b.WriteByte('.')
		b.WriteString(digits[point:])
	case exp < 0 && -point <= maxPlainDigits:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -point))
		b.WriteString(digits)
	default:
		b.WriteString(digits)
		b.WriteByte('e')
		b.WriteString(strconv.Itoa(exp))
	}
	return b.String(), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
