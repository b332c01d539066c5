package profile

import (
	"strconv"
	"strings"
)

// This file holds the allocation-free value parsers used by type inference.
// None of them allocates, on success or on failure: the hot loop calls them
// for every non-empty value, and most calls are expected to fail.

// Type names reported in Column.InferredType.
const (
	TypeInteger  = "integer"
	TypeFloat    = "float"
	TypeBoolean  = "boolean"
	TypeDate     = "date"
	TypeDatetime = "datetime"
	TypeString   = "string"
	TypeEmpty    = "empty"
)

// ParsesAs reports whether v parses as the given inferred type, with the
// rules the profiler uses (a numeral with separators or signs counts
// whichever convention reads it, numerals.go). "string" accepts everything; "empty" accepts
// only blank values. It lets consumers (for instance the quality package)
// pick non-conforming examples out of Column.Sample.
func ParsesAs(typ, v string) bool {
	switch typ {
	case TypeInteger:
		if _, ok := parseInt(v); ok {
			return true
		}
		r := readNumeral(v) // 1,234 or $12 in a column of such numerals
		return r.kind != notNumeral && (r.ptInt || r.cmInt)
	case TypeFloat:
		if _, ok := parseFloat(v); ok {
			return true
		}
		return readNumeral(v).kind != notNumeral
	case TypeBoolean:
		_, ok := parseBool(v)
		return ok
	case TypeDate:
		_, _, _, ok := parseDate(v)
		return ok
	case TypeDatetime:
		if _, _, ok := parseDatetime(v); ok {
			return true
		}
		_, _, _, ok := parseSlashDatetime(v)
		return ok
	case TypeString:
		return true
	case TypeEmpty:
		return isBlank(v)
	}
	return false
}

func isBlank(v string) bool {
	for i := 0; i < len(v); i++ {
		if classTab[v[i]] != clsSpace {
			return false
		}
	}
	return true // non-ASCII whitespace is not treated as blank: rare, and keeps this exact
}

// parseInt accepts an optional sign followed by decimal digits, without
// leading zeros unless the digits are exactly "0", within int64.
func parseInt(s string) (int64, bool) {
	i, neg := 0, false
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		i = 1
	}
	d := s[i:]
	if len(d) == 0 || len(d) > 19 || (d[0] == '0' && len(d) > 1) {
		return 0, false
	}
	var u uint64
	for j := 0; j < len(d); j++ {
		c := d[j] - '0'
		if c > 9 {
			return 0, false
		}
		u = u*10 + uint64(c) // at most 19 digits: cannot wrap uint64
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true // -(1<<63) wraps to itself, which is MinInt64
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// decimalFloat reads s as the decimal float grammar
//
//	[+-]? digits* ('.' digits*)? ([eE] [+-]? digits+)?   (at least one mantissa digit)
//
// without a leading zero in the integer part unless it is "0" (as integers).
// It rejects "inf", "nan", hex floats, underscores and ','. syntax reports
// whether s has that grammar, ok whether its value is also finite; so that
// strconv.ParseFloat is only called on strings it accepts (its error path
// allocates), and seldom: the usual decimal of at most 15 digits is computed
// exactly in the same pass (see below).
func decimalFloat(s string) (f float64, syntax, ok bool) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var mant uint64
	digits, frac := 0, 0
	for i < len(s) && s[i]-'0' <= 9 {
		mant = mant*10 + uint64(s[i]-'0')
		i++
		digits++
	}
	if digits > 1 && s[i-digits] == '0' {
		return 0, false, false // a leading zero, as in zip codes and identifiers
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i]-'0' <= 9 {
			mant = mant*10 + uint64(s[i]-'0')
			i++
			digits++
			frac++
		}
	}
	if digits == 0 {
		return 0, false, false
	}
	exact := digits <= 15 // then mant < 2^53 and nothing wrapped
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		exact = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i]-'0' <= 9 {
			i++
			exp++
		}
		if exp == 0 {
			return 0, false, false
		}
	}
	if i != len(s) {
		return 0, false, false
	}
	if exact {
		// mant and 10^frac (frac <= 15) are exact float64s, and IEEE
		// division rounds correctly, so this is the correctly rounded
		// value, as strconv.ParseFloat's own fast path computes it.
		f = float64(mant) / pow10[frac]
		if neg {
			f = -f
		}
		return f, true, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil { // only ErrRange can happen here
		return 0, true, false
	}
	return f, true, true
}

var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// parseFloat accepts integers and decimal floats ('.' as the only decimal
// separator); values out of float64 range are rejected.
func parseFloat(s string) (float64, bool) {
	if n, ok := parseInt(s); ok {
		return float64(n), true
	}
	f, _, ok := decimalFloat(s)
	return f, ok
}

// parseBool accepts true/false/yes/no/t/f/y/n/0/1, case-insensitively.
func parseBool(s string) (val, ok bool) {
	if len(s) == 0 || len(s) > 5 {
		return false, false
	}
	var b [5]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	switch string(b[:len(s)]) {
	case "true", "yes", "t", "y", "1":
		return true, true
	case "false", "no", "f", "n", "0":
		return false, true
	}
	return false, false
}

// Slash dates dd/mm/yyyy and mm/dd/yyyy are ambiguous when both leading
// fields are <= 12; the profiler counts the unambiguous ones per column and
// reads the ambiguous ones the way the majority of unambiguous ones reads.
type dateClass uint8

const (
	dateUnambiguous dateClass = iota // 2006-01-02 or 2006/01/02
	dateDMYOnly                      // only valid as 02/01/2006 (day first)
	dateMDYOnly                      // only valid as 01/02/2006 (month first)
	dateEither                       // valid both ways
)

func digits2(s string, i int) (int, bool) {
	a, b := s[i]-'0', s[i+1]-'0'
	if a > 9 || b > 9 {
		return 0, false
	}
	return int(a)*10 + int(b), true
}

func digits4(s string, i int) (int, bool) {
	h, ok1 := digits2(s, i)
	l, ok2 := digits2(s, i+2)
	return h*100 + l, ok1 && ok2
}

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func validYMD(y, m, d int) bool {
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	switch m {
	case 2:
		if isLeap(y) {
			return d <= 29
		}
		return d <= 28
	case 4, 6, 9, 11:
		return d <= 30
	}
	return d <= 31
}

// daysFromCivil returns the number of days since 1970-01-01 (proleptic
// Gregorian calendar).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// parseDate accepts 2006-01-02, 2006/01/02, 02/01/2006, 01/02/2006 and
// 02.01.2006 (day first, as German, Nordic and Eastern European exports
// write it: a dotted date is never month first). It returns the day number
// under a day-first reading and under a month-first reading of slash dates
// (equal for unambiguous values).
func parseDate(s string) (dmy, mdy int64, cls dateClass, ok bool) {
	if len(s) != 10 {
		return 0, 0, 0, false
	}
	if s[2] == '.' && s[5] == '.' {
		n, ok := dayAt(s, 6, 3, 0)
		return n, n, dateUnambiguous, ok
	}
	if (s[4] == '-' && s[7] == '-') || (s[4] == '/' && s[7] == '/') {
		n, ok := dayAt(s, 0, 5, 8)
		return n, n, dateUnambiguous, ok
	}
	if s[2] == '/' && s[5] == '/' {
		a, ok1 := digits2(s, 0)
		b, ok2 := digits2(s, 3)
		y, ok3 := digits4(s, 6)
		if !ok1 || !ok2 || !ok3 {
			return 0, 0, 0, false
		}
		asDMY := validYMD(y, b, a)
		asMDY := validYMD(y, a, b)
		switch {
		case asDMY && asMDY:
			return daysFromCivil(y, b, a), daysFromCivil(y, a, b), dateEither, true
		case asDMY:
			n := daysFromCivil(y, b, a)
			return n, n, dateDMYOnly, true
		case asMDY:
			n := daysFromCivil(y, a, b)
			return n, n, dateMDYOnly, true
		}
	}
	return 0, 0, 0, false
}

// parseSlashDatetime accepts the date-times spreadsheets write: a slash
// date with a day and a month of one or two digits and a year of two or
// four ("3/4/13", "03/04/2013"), a space, and h:mm or h:mm:ss, with an
// optional AM or PM ("3/4/13 14:03", "03/04/2013 2:03:09 PM"). A two-digit
// year is 2000 to 2068 below 69 and 1969 to 1999 from it, as Go and POSIX
// read them. Like slash dates it returns the Unix seconds under a
// day-first and a month-first reading and which are valid; no zone means
// UTC.
func parseSlashDatetime(s string) (dmy, mdy int64, cls dateClass, ok bool) {
	if len(s) < 11 || len(s) > 22 {
		return 0, 0, 0, false
	}
	i := 0
	num := func(minDigits, maxDigits int) (int, bool) {
		n, start := 0, i
		for i < len(s) && s[i]-'0' <= 9 && i-start < maxDigits {
			n = n*10 + int(s[i]-'0')
			i++
		}
		return n, i-start >= minDigits && (i == len(s) || s[i]-'0' > 9)
	}
	sep := func(c byte) bool {
		if i < len(s) && s[i] == c {
			i++
			return true
		}
		return false
	}
	a, ok1 := num(1, 2)
	ok1 = ok1 && sep('/')
	b, ok2 := num(1, 2)
	ok2 = ok2 && sep('/')
	yStart := i
	y, ok3 := num(2, 4)
	switch i - yStart {
	case 2:
		if y < 69 {
			y += 2000
		} else {
			y += 1900
		}
	case 4:
	default:
		ok3 = false
	}
	ok3 = ok3 && sep(' ')
	h, ok4 := num(1, 2)
	ok4 = ok4 && sep(':')
	mi, ok5 := num(2, 2)
	se, ok6 := 0, true
	if sep(':') {
		se, ok6 = num(2, 2)
	}
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || mi > 59 || se > 59 {
		return 0, 0, 0, false
	}
	if rest := s[i:]; rest != "" {
		rest = strings.TrimPrefix(rest, " ")
		if len(rest) != 2 || rest[1]|0x20 != 'm' || h < 1 || h > 12 {
			return 0, 0, 0, false
		}
		switch rest[0] | 0x20 {
		case 'a':
			h %= 12
		case 'p':
			h = h%12 + 12
		default:
			return 0, 0, 0, false
		}
	}
	if h > 23 {
		return 0, 0, 0, false
	}
	clock := int64(h*3600 + mi*60 + se)
	asDMY, asMDY := validYMD(y, b, a), validYMD(y, a, b)
	switch {
	case asDMY && asMDY:
		return daysFromCivil(y, b, a)*86400 + clock, daysFromCivil(y, a, b)*86400 + clock, dateEither, true
	case asDMY:
		n := daysFromCivil(y, b, a)*86400 + clock
		return n, n, dateDMYOnly, true
	case asMDY:
		n := daysFromCivil(y, a, b)*86400 + clock
		return n, n, dateMDYOnly, true
	}
	return 0, 0, 0, false
}

// dayAt reads the four-digit year at y, the month at m and the day at d
// of s as a day number, if they make a valid date.
func dayAt(s string, y, m, d int) (int64, bool) {
	yy, ok1 := digits4(s, y)
	mm, ok2 := digits2(s, m)
	dd, ok3 := digits2(s, d)
	if !ok1 || !ok2 || !ok3 || !validYMD(yy, mm, dd) {
		return 0, false
	}
	return daysFromCivil(yy, mm, dd), true
}

// parseDatetime accepts RFC 3339 and "2006-01-02 15:04:05": a date, 'T', 't'
// or ' ', hh:mm:ss, an optional fraction of 1-9 digits and an optional zone
// (Z, z or ±hh:mm). It returns Unix seconds and nanoseconds (UTC).
func parseDatetime(s string) (sec int64, nsec int32, ok bool) {
	if len(s) < 19 || s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':' {
		return 0, 0, false
	}
	if c := s[10]; c != 'T' && c != 't' && c != ' ' {
		return 0, 0, false
	}
	y, ok1 := digits4(s, 0)
	mo, ok2 := digits2(s, 5)
	d, ok3 := digits2(s, 8)
	h, ok4 := digits2(s, 11)
	mi, ok5 := digits2(s, 14)
	se, ok6 := digits2(s, 17)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 || !validYMD(y, mo, d) || h > 23 || mi > 59 || se > 60 {
		return 0, 0, false
	}
	i := 19
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		var frac int32
		for i < len(s) && s[i]-'0' <= 9 && i-start < 9 {
			frac = frac*10 + int32(s[i]-'0')
			i++
		}
		n := i - start
		if n == 0 || (i < len(s) && s[i]-'0' <= 9) {
			return 0, 0, false
		}
		for ; n < 9; n++ {
			frac *= 10
		}
		nsec = frac
	}
	var offset int64
	if i < len(s) {
		switch s[i] {
		case 'Z', 'z':
			i++
		case '+', '-':
			if len(s)-i != 6 || s[i+3] != ':' {
				return 0, 0, false
			}
			oh, okh := digits2(s, i+1)
			om, okm := digits2(s, i+4)
			if !okh || !okm || oh > 23 || om > 59 {
				return 0, 0, false
			}
			offset = int64(oh*3600 + om*60)
			if s[i] == '-' {
				offset = -offset
			}
			i += 6
		default:
			return 0, 0, false
		}
	}
	if i != len(s) {
		return 0, 0, false
	}
	sec = daysFromCivil(y, mo, d)*86400 + int64(h*3600+mi*60+se) - offset
	return sec, nsec, true
}
