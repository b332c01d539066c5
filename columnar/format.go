package columnar

import (
	"math"
	"strconv"
	"time"
)

// The text of typed cells (Kind): what a reader of the same values writes
// as text, so that a typed cell and the text cell a reader makes of it
// are the same value. Readers format through these functions too.

// Append appends the text of the value v of kind k, which is not Text:
// ints in decimal, floats in the shortest form that reads back
// (AppendFloat64), dates as 2006-01-02, timestamps in UTC as RFC 3339 with
// nanoseconds (time.RFC3339Nano).
func (k Kind) Append(dst []byte, v int64) []byte {
	switch k {
	case Int:
		return strconv.AppendInt(dst, v, 10)
	case Float64:
		return AppendFloat64(dst, math.Float64frombits(uint64(v)))
	case Date:
		return AppendDate(dst, v)
	}
	return AppendTimestamp(dst, v, k.PerSecond())
}

// Years 0 to 9999, as days and as seconds since the epoch: the dates and
// instants written digit by digit, with four-digit years.
const (
	MinDay, MaxDay = -719528, 2932896           // 0000-01-01, 9999-12-31
	MinSec, MaxSec = -62167219200, 253402300799 // 0000-01-01T00:00:00, 9999-12-31T23:59:59
)

const dateLayout = "2006-01-02"

// AppendDate appends the date days days after 1970-01-01 as 2006-01-02.
// Years 0 to 9999 are written digit by digit, which is what the layout
// gives them but twice as fast; other years take the layout's own
// (signed, unpadded) path.
func AppendDate(dst []byte, days int64) []byte {
	if days < MinDay || days > MaxDay {
		return time.Unix(days*86400, 0).UTC().AppendFormat(dst, dateLayout)
	}
	y, m, d := civilFromDays(days)
	return append(dst, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10),
		'-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
}

// AppendTimestamp appends the instant v units after the epoch, perSecond
// units to the second, in UTC as RFC 3339 with nanoseconds, as
// time.Time.AppendFormat(time.RFC3339Nano) writes it: digit by digit for
// years 0 to 9999 (three times faster than through time.Time), through
// time.Time for others.
func AppendTimestamp(dst []byte, v, perSecond int64) []byte {
	sec, frac := v/perSecond, v%perSecond
	if frac < 0 {
		sec, frac = sec-1, frac+perSecond
	}
	if sec < MinSec || sec > MaxSec {
		return time.Unix(sec, frac*(1e9/perSecond)).UTC().AppendFormat(dst, time.RFC3339Nano)
	}
	days, sod := sec/86400, sec%86400
	if sod < 0 {
		days, sod = days-1, sod+86400
	}
	dst = AppendDate(dst, days)
	h, m, s := sod/3600, sod/60%60, sod%60
	dst = append(dst, 'T', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10),
		':', byte('0'+s/10), byte('0'+s%10))
	if frac != 0 {
		// Nanoseconds, without trailing zeros, as RFC3339Nano writes them.
		ns, digits := trimZeros(frac*(1e9/perSecond), 9)
		dst = AppendPadded(append(dst, '.'), uint64(ns), digits)
	}
	return append(dst, 'Z')
}

// trimZeros drops the trailing zeros of v, a number of digits digits, and
// returns what is left and its number of digits.
func trimZeros(v int64, digits int) (int64, int) {
	for v != 0 && v%10 == 0 {
		v /= 10
		digits--
	}
	return v, digits
}

// AppendPadded appends v, which has at most width digits, as exactly width
// digits, with leading zeros.
func AppendPadded(dst []byte, v uint64, width int) []byte {
	start := len(dst)
	for range width {
		dst = append(dst, '0')
	}
	for i := start + width - 1; v > 0; i-- {
		dst[i] = byte('0' + v%10)
		v /= 10
	}
	return dst
}

// civilFromDays returns the proleptic Gregorian date days days after
// 1970-01-01 (Howard Hinnant's days_from_civil, inverted), for days from
// year 0 on.
func civilFromDays(days int64) (y, m, d int64) {
	z := days + 719468 // days since 0000-03-01
	era := z / 146097
	if z < 0 {
		era = (z - 146096) / 146097
	}
	doe := z - era*146097                                  // [0, 146096]
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365 // [0, 399]
	doy := doe - (365*yoe + yoe/4 - yoe/100)               // [0, 365], from March 1
	mp := (5*doy + 2) / 153                                // [0, 11], March = 0
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	y = yoe + era*400
	if m <= 2 {
		y++
	}
	return y, m, d
}

// AppendFloat64 appends f as strconv.AppendFloat(dst, f, 'g', -1, 64)
// does: the shortest form that reads back as f. A value ShortDecimal
// takes is written from its digits, a few times faster.
func AppendFloat64(dst []byte, f float64) []byte {
	m, k, ok := ShortDecimal(f)
	if !ok {
		return strconv.AppendFloat(dst, f, 'g', -1, 64)
	}
	if f < 0 {
		dst = append(dst, '-')
	}
	dst = strconv.AppendUint(dst, m/pow10u[k], 10)
	if k == 0 {
		return dst
	}
	return AppendPadded(append(dst, '.'), m%pow10u[k], k)
}

// Powers of ten, exact in both forms.
var (
	pow10f = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}
	pow10u = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}
)

// ShortDecimal finds, for the values strconv.FormatFloat(f, 'g', -1, 64)
// writes without an exponent that have a short decimal form (amounts,
// scores, measures), the digits it writes: |f| is m·10^-k, with k the
// fewest decimals that read back as f. It reports false for any other
// value (zero, NaN and the infinities included).
//
// It looks for the fewest decimals k for which m = round(|f|·10^k) gives
// back |f| as m/10^k. Both operands of that division are exact and the
// division rounds correctly, so the test is exactly "the decimal m·10^-k
// reads back as |f|". While |f|·10^k < 2^50, f's spacing scaled by 10^k is
// under 1/4 and the product's rounding error under 1/8, so m is the only
// k-decimal number that could read back as f: the first k that passes
// gives the shortest digits, which are what strconv writes.
func ShortDecimal(f float64) (m uint64, k int, ok bool) {
	a := math.Abs(f)
	if !(a >= 1e-4 && a < 1e6) { // NaN fails too
		return 0, 0, false
	}
	for k := range len(pow10f) {
		x := a * pow10f[k]
		if x >= 1<<50 {
			return 0, 0, false
		}
		r := math.Round(x)
		if r/pow10f[k] != a {
			continue
		}
		// strconv uses an exponent below 1e-4 and from 1e6 on, of the
		// decimal it writes.
		m := uint64(r)
		if (k >= 4 && m < pow10u[k-4]) || (k+6 < len(pow10u) && m >= pow10u[k+6]) {
			return 0, 0, false
		}
		return m, k, true
	}
	return 0, 0, false
}
