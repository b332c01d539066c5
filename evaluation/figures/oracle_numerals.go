package figures

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The oracle's reading of numbers written with separators, currency and
// percent signs (profile/numerals.go states the rules), by regular
// expressions over the whole value.

// Kinds of numerals, as the profile's documentation names them.
const (
	numNone   = iota
	numSame   // one value in both conventions
	numDot    // 1.234: 1.234 with a decimal point, 1234 with a decimal comma
	numComma  // 1,234: 1234, or 1.234
	numPoint  // a decimal point only
	numCommaD // a decimal comma only
)

const spaced = `[ \x{00a0}\x{202f}']`

var (
	reNumeral = regexp.MustCompile(`^([+-]?)(?:([$€£¥₹₽₩₺])[ \x{00a0}\x{202f}]?([+-]?))?([0-9 \x{00a0}\x{202f}'.,]+?)(?:[ \x{00a0}\x{202f}]?(%|[$€£¥₹₽₩₺]))?$`)
	bodyRules = []struct {
		re   *regexp.Regexp
		kind int
		dec  string // the decimal mark ("" for a whole number)
		// two: the other reading takes the mark as a thousands separator
	}{
		{regexp.MustCompile(`^(0|[1-9][0-9]*)$`), numSame, ""},
		{regexp.MustCompile(`^[1-9][0-9]{0,2}(` + spaced + `[0-9]{3})+$`), numSame, ""},
		{regexp.MustCompile(`^[1-9][0-9]{0,2}\.[0-9]{3}$`), numDot, "."},
		{regexp.MustCompile(`^[1-9][0-9]{0,2},[0-9]{3}$`), numComma, ","},
		{regexp.MustCompile(`^(0|[1-9][0-9]*)\.[0-9]+$`), numSame, "."},
		{regexp.MustCompile(`^(0|[1-9][0-9]*),[0-9]+$`), numCommaD, ","},
		{regexp.MustCompile(`^[1-9][0-9]{0,2}(,[0-9]{3}){2,}$`), numPoint, ""},
		{regexp.MustCompile(`^[1-9][0-9]{0,2}(\.[0-9]{3}){2,}$`), numCommaD, ""},
		{regexp.MustCompile(`^[1-9][0-9]{0,2}(,[0-9]{3})+\.[0-9]+$`), numPoint, "."},
		{regexp.MustCompile(`^[1-9][0-9]{0,2}(\.[0-9]{3})+,[0-9]+$`), numCommaD, ","},
		{regexp.MustCompile(`^[1-9][0-9]{0,2}(` + spaced + `[0-9]{3})+[.,][0-9]+$`), numSame, "lastmark"},
	}
)

// oracleNumeralReading is a numeral's kind and its value under the decimal
// point and under the decimal comma, each with whether it is whole.
type oracleNumeralReading struct {
	kind         int
	pt, cm       float64
	ptInt, cmInt bool
}

// oracleNumeral reads v; kind numNone when v is no numeral. Plain numbers
// are numerals too here, but the caller reads them first.
func oracleNumeral(v string) oracleNumeralReading {
	m := reNumeral.FindStringSubmatch(v)
	if m == nil || len(v) > 48 {
		return oracleNumeralReading{}
	}
	sign1, cur, sign2, body, suffix := m[1], m[2], m[3], m[4], m[5]
	if sign1 != "" && sign2 != "" || cur != "" && suffix != "" && suffix != "%" {
		return oracleNumeralReading{}
	}
	if cur == "" && suffix == "" && !strings.ContainsAny(body, ".,' \u00a0\u202f") {
		return oracleNumeralReading{} // a plain integer
	}
	neg := sign1 == "-" || sign2 == "-"
	for _, rule := range bodyRules {
		if !rule.re.MatchString(body) {
			continue
		}
		digits := func(markAt int) float64 { // the digits, with a decimal point at markAt (-1: none)
			var b strings.Builder
			if neg {
				b.WriteByte('-')
			}
			for i, r := range body {
				switch {
				case r >= '0' && r <= '9':
					b.WriteRune(r)
				case i == markAt:
					b.WriteByte('.')
				}
			}
			f, err := strconv.ParseFloat(b.String(), 64)
			if err != nil || math.IsInf(f, 0) {
				return math.NaN()
			}
			return f
		}
		last := strings.LastIndexAny(body, ".,")
		r := oracleNumeralReading{kind: rule.kind}
		switch {
		case rule.kind == numDot || rule.kind == numComma:
			dec, whole := digits(last), digits(-1)
			if rule.kind == numDot {
				r.pt, r.cm, r.cmInt = dec, whole, true
			} else {
				r.pt, r.cm, r.ptInt = whole, dec, true
			}
		case rule.dec == "":
			r.pt, r.ptInt = digits(-1), true
			r.cm, r.cmInt = r.pt, true
		default:
			r.pt = digits(last)
			r.cm = r.pt
		}
		if math.IsNaN(r.pt) || math.IsNaN(r.cm) {
			return oracleNumeralReading{}
		}
		return r
	}
	return oracleNumeralReading{}
}

// oracleNumberNotation is the profile's Notation of a numeric column from
// its counts of numerals.
func oracleNumberNotation(pointOnly, commaOnly, dotGrouped, commaGrouped int) string {
	if pointOnly+commaOnly+commaGrouped == 0 {
		return ""
	}
	s := "decimal point, comma or space between thousands (1,234.5)"
	if commaOnly > pointOnly {
		s = "decimal comma, dot or space between thousands (1.234,5)"
	}
	if two := dotGrouped + commaGrouped; two > 0 {
		if pointOnly == commaOnly {
			s += fmt.Sprintf("; %d %s such as 1,234 or 1.234 read both ways, and nothing in the column tells which: read so", two, oraclePlural(two, "value"))
		} else {
			s += fmt.Sprintf("; %d %s such as 1,234 or 1.234 read both ways: read as the rest of the column", two, oraclePlural(two, "value"))
		}
	}
	return s
}

// oracleDateNotation is the Notation of a date column from its counts of
// slash dates read one way only and both ways.
func oracleDateNotation(dmyOnly, mdyOnly, either int) string {
	if dmyOnly+mdyOnly+either == 0 {
		return ""
	}
	s := "day first (31/01/2024)"
	if mdyOnly > dmyOnly {
		s = "month first (01/31/2024)"
	}
	if either > 0 {
		if dmyOnly == mdyOnly {
			s += fmt.Sprintf("; %d %s such as 03/04/2024 read both ways, and nothing in the column tells which: read so", either, oraclePlural(either, "date"))
		} else {
			s += fmt.Sprintf("; %d %s such as 03/04/2024 read both ways: read as the rest of the column", either, oraclePlural(either, "date"))
		}
	}
	return s
}

func oraclePlural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
