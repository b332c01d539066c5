package figures

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dqs/dqs/profile"
)

// The oracle: every figure of a column's profile computed the slow,
// obvious way, from the definitions in profile's documentation, with the
// standard library's parsers and exact arithmetic. It shares no code with
// the profiler, so that the differential test (differential_test.go)
// compares two independent readings of the same definitions.

// oracleCell is one cell of a column as a reader gives it.
type oracleCell struct {
	value string
	null  bool
}

// oracleNullTokens are the default null tokens as the README lists them.
var oracleNullTokens = []string{"null", "nil", "na", "n/a", "#n/a", "nan", "<na>", "undefined",
	"(null)", "<null>", "[null]", "-", "--", "\u2014", "\u2013", "?"}

// isNull: the reader's null, or a value that is a null token once trimmed
// of ASCII whitespace with its ASCII letters in lower case.
func (c oracleCell) isNull() bool {
	if c.null {
		return true
	}
	v := []byte(strings.Trim(c.value, " \t\n\r\v\f"))
	for i, b := range v {
		if b >= 'A' && b <= 'Z' {
			v[i] = b - 'A' + 'a'
		}
	}
	return slices.Contains(oracleNullTokens, string(v))
}

var (
	reInt   = regexp.MustCompile(`^[+-]?(0|[1-9][0-9]*)$`)
	reFloat = regexp.MustCompile(`^[+-]?(0|[1-9][0-9]*)?(\.[0-9]*)?([eE][+-]?[0-9]+)?$`)
	reDT    = regexp.MustCompile(`^([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]{1,9})?(Z|z|[+-][0-9]{2}:[0-9]{2})?$`)
	reYMD   = regexp.MustCompile(`^([0-9]{4})[-/]([0-9]{2})[-/]([0-9]{2})$`)
	reSlash = regexp.MustCompile(`^([0-9]{2})/([0-9]{2})/([0-9]{4})$`)
	// A plain decimal shaped like 1.234 is also a numeral read both ways.
	rePlainDotGrouped = regexp.MustCompile(`^[+-]?[1-9][0-9]{0,2}\.[0-9]{3}$`)
	// Dotted dates are day first: 31.01.2024.
	reDotted = regexp.MustCompile(`^([0-9]{2})\.([0-9]{2})\.([0-9]{4})$`)
)

// oracleBlank: "" or only ASCII whitespace.
func oracleBlank(v string) bool { return strings.Trim(v, " \t\n\r\v\f") == "" }

func oracleInt(v string) (int64, bool) {
	if !reInt.MatchString(v) {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

func oracleFloat(v string) (float64, bool) {
	if !reFloat.MatchString(v) || !strings.ContainsAny(v, "0123456789") {
		return 0, false
	}
	// A mantissa digit is needed before the exponent.
	mant := v
	if i := strings.IndexAny(v, "eE"); i >= 0 {
		mant = v[:i]
	}
	if !strings.ContainsAny(mant, "0123456789") {
		return 0, false
	}
	f, err := strconv.ParseFloat(v, 64)
	return f, err == nil && !math.IsInf(f, 0)
}

func oracleBool(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "true", "yes", "t", "y", "1":
		return true, true
	case "false", "no", "f", "n", "0":
		return false, true
	}
	return false, false
}

// validDate reports whether y-m-d is a day of the proleptic Gregorian
// calendar, and its day number.
func validDate(y, m, d int) (int64, bool) {
	if m < 1 || m > 12 || d < 1 {
		return 0, false
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d || int(t.Month()) != m {
		return 0, false
	}
	return t.Unix() / 86400, true
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// oracleDate returns the day number of v read day-first and month-first
// (equal when v is not a slash date), and which readings are valid.
// Dotted dates read day first only.
func oracleDate(v string) (dmy, mdy int64, dmyOK, mdyOK bool) {
	if m := reYMD.FindStringSubmatch(v); m != nil && v[4] == v[7] {
		day, ok := validDate(atoi(m[1]), atoi(m[2]), atoi(m[3]))
		return day, day, ok, ok
	}
	if m := reDotted.FindStringSubmatch(v); m != nil {
		day, ok := validDate(atoi(m[3]), atoi(m[2]), atoi(m[1]))
		return day, day, ok, ok
	}
	if m := reSlash.FindStringSubmatch(v); m != nil {
		a, b, y := atoi(m[1]), atoi(m[2]), atoi(m[3])
		dmy, dmyOK = validDate(y, b, a)
		mdy, mdyOK = validDate(y, a, b)
		return
	}
	return 0, 0, false, false
}

// oracleDatetime returns v as nanoseconds since the epoch (as a big.Int,
// exactly), a leap second included.
func oracleDatetime(v string) (*big.Int, bool) {
	m := reDT.FindStringSubmatch(v)
	if m == nil {
		return nil, false
	}
	day, ok := validDate(atoi(m[1]), atoi(m[2]), atoi(m[3]))
	h, mi, s := atoi(m[4]), atoi(m[5]), atoi(m[6])
	if !ok || h > 23 || mi > 59 || s > 60 {
		return nil, false
	}
	sec := day*86400 + int64(h*3600+mi*60+s)
	if z := m[8]; len(z) == 6 {
		oh, om := atoi(z[1:3]), atoi(z[4:6])
		if oh > 23 || om > 59 {
			return nil, false
		}
		off := int64(oh*3600 + om*60)
		if z[0] == '-' {
			off = -off
		}
		sec -= off
	}
	nsec := int64(0)
	if f := m[7]; f != "" {
		nsec, _ = strconv.ParseInt((f[1:] + "000000000")[:9], 10, 64)
	}
	n := new(big.Int).Mul(big.NewInt(sec), big.NewInt(1e9))
	return n.Add(n, big.NewInt(nsec)), true
}

// reSlashDT: the date-times of spreadsheets, 3/4/13 14:03 or
// 03/04/2013 2:03:09 PM.
var reSlashDT = regexp.MustCompile(`^([0-9]{1,2})/([0-9]{1,2})/([0-9]{2}|[0-9]{4}) ([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?(?: ?([AaPp][Mm]))?$`)

// oracleSlashDatetime returns v as nanoseconds since the epoch read day
// first and month first, and which readings are valid. Two-digit years
// are 2000–2068 below 69 and 1969–1999 from it.
func oracleSlashDatetime(v string) (dmy, mdy *big.Int, dmyOK, mdyOK bool) {
	m := reSlashDT.FindStringSubmatch(v)
	if m == nil {
		return nil, nil, false, false
	}
	a, b, y := atoi(m[1]), atoi(m[2]), atoi(m[3])
	if len(m[3]) == 2 {
		y += 1900
		if y < 1969 {
			y += 100
		}
	}
	h, mi, sec := atoi(m[4]), atoi(m[5]), atoi(m[6])
	if ampm := strings.ToLower(m[7]); ampm != "" {
		if h < 1 || h > 12 {
			return nil, nil, false, false
		}
		h %= 12
		if ampm == "pm" {
			h += 12
		}
	}
	if h > 23 || mi > 59 || sec > 59 {
		return nil, nil, false, false
	}
	at := func(month, day int) (*big.Int, bool) {
		n, ok := validDate(y, month, day)
		return new(big.Int).Mul(big.NewInt(n*86400+int64(h*3600+mi*60+sec)), big.NewInt(1e9)), ok
	}
	dmy, dmyOK = at(b, a)
	mdy, mdyOK = at(a, b)
	return dmy, mdy, dmyOK, mdyOK
}

// oracleColumn is what the oracle says of one column.
type oracleColumn struct {
	profile.Column
	exactTop    bool      // TopValues are exact (distinct values within the exact bound)
	formatExact bool      // the profiler counts the signatures exactly
	numbers     []float64 // a numeric column's numbers, ascending
}

// oracleProfile computes the profile of one column's cells. topK is the
// number of top values; exactDistinct the profiler's exact bound.
func oracleProfile(name string, cells []oracleCell, topK, exactDistinct int) oracleColumn {
	col := oracleColumn{Column: profile.Column{Name: name, Count: int64(len(cells)), TopValues: []profile.ValueCount{}}}
	counts := map[string]int64{}
	var nonEmpty []string
	lenSum, lenN := 0, 0
	for _, c := range cells {
		if c.isNull() {
			col.Nulls++
			continue
		}
		counts[c.value]++
		n := utf8.RuneCountInString(c.value)
		if lenN == 0 || n < col.MinLength {
			col.MinLength = n
		}
		col.MaxLength = max(col.MaxLength, n)
		lenSum += n
		lenN++
		if oracleBlank(c.value) {
			col.Empty++
			continue
		}
		nonEmpty = append(nonEmpty, c.value)
	}
	if lenN > 0 {
		col.MeanLength = float64(lenSum) / float64(lenN)
	}
	col.Distinct = int64(len(counts))
	col.DistinctExact = len(counts) <= exactDistinct
	col.exactTop = col.DistinctExact

	type vc struct {
		v string
		n int64
	}
	var all []vc
	for v, n := range counts {
		all = append(all, vc{v, n})
	}
	slices.SortFunc(all, func(a, b vc) int {
		if a.n != b.n {
			return cmp.Compare(b.n, a.n)
		}
		return strings.Compare(a.v, b.v)
	})
	for _, e := range all[:min(topK, len(all))] {
		v := e.v
		if len(v) > 512 {
			v = v[:512] + "…"
		}
		col.TopValues = append(col.TopValues, profile.ValueCount{Value: v, Count: e.n})
	}

	col.numbers = oracleTypes(&col.Column, nonEmpty)
	col.formatExact = oracleFormat(&col.Column, nonEmpty)
	return col
}

// oracleFormat sets the dominant format and its conformance: the most
// frequent fine signature (ties by signature), unless it covers less than
// half the values and the most frequent coarse one covers more. It reports
// whether the profiler counts them exactly (at most 256 signatures of each
// granularity).
func oracleFormat(col *profile.Column, values []string) bool {
	col.Format, col.FormatConformance = "", 1
	if len(values) == 0 {
		return true
	}
	fine, coarse := map[string]int{}, map[string]int{}
	for _, v := range values {
		f, c := profile.Signatures(v)
		fine[f]++
		coarse[c]++
	}
	top := func(m map[string]int) (string, int) {
		best, n := "", -1
		for s, k := range m {
			if k > n || (k == n && s < best) {
				best, n = s, k
			}
		}
		return best, n
	}
	f, fn := top(fine)
	k, kn := top(coarse)
	if float64(fn) >= 0.5*float64(len(values)) || kn <= fn {
		col.Format, col.FormatConformance = f, float64(fn)/float64(len(values))
	} else {
		col.Format, col.FormatConformance = k, float64(kn)/float64(len(values))
	}
	return len(fine) <= 256 && len(coarse) <= 256
}

// oracleTypes sets the inferred type, its conformance, min, max, mean,
// standard deviation and quantiles from the non-empty values, and returns
// a numeric column's numbers, ascending.
func oracleTypes(col *profile.Column, values []string) []float64 {
	n := len(values)
	col.InferredType = profile.TypeEmpty
	col.TypeConformance = 1
	if n == 0 {
		return nil
	}
	var bools, dates, dts []string
	var ownInts []int64  // plain integers, and numerals written alike in both conventions
	var floats []float64 // every number read alike in both conventions
	// Numerals read differently, or by one convention only: their numbers
	// under the decimal point and under the decimal comma.
	var byPoint, byComma []float64
	pointInts, commaInts := []float64{}, []float64{}
	pointOnly, commaOnly, dotGrouped, commaGrouped := 0, 0, 0, 0
	dmyOnly, mdyOnly, eitherDate := 0, 0, 0
	for _, v := range values {
		if _, ok := oracleBool(v); ok {
			bools = append(bools, v)
		}
		if x, ok := oracleInt(v); ok {
			ownInts = append(ownInts, x)
			floats = append(floats, float64(x))
			continue
		}
		if f, ok := oracleFloat(v); ok && !rePlainDotGrouped.MatchString(v) {
			floats = append(floats, f)
			continue
		}
		if _, _, d, m := oracleDate(v); d || m {
			dates = append(dates, v)
			switch {
			case d && m && reSlash.MatchString(v): // a slash date both readings take (05/05 too)
				eitherDate++
			case d && m: // ISO or dotted: one reading
			case d:
				dmyOnly++
			default:
				mdyOnly++
			}
			continue
		}
		if _, ok := oracleDatetime(v); ok {
			dts = append(dts, v)
			continue
		}
		if _, _, d, m := oracleSlashDatetime(v); d || m {
			dts = append(dts, v)
			switch {
			case d && m:
				eitherDate++
			case d:
				dmyOnly++
			default:
				mdyOnly++
			}
			continue
		}
		r := oracleNumeral(v)
		addPoint := func() {
			byPoint = append(byPoint, r.pt)
			if r.ptInt {
				pointInts = append(pointInts, r.pt)
			}
		}
		addComma := func() {
			byComma = append(byComma, r.cm)
			if r.cmInt {
				commaInts = append(commaInts, r.cm)
			}
		}
		switch r.kind {
		case numSame:
			if r.ptInt && math.Abs(r.pt) < 1<<63 {
				ownInts = append(ownInts, int64(r.pt))
			}
			floats = append(floats, r.pt)
		case numDot, numComma:
			if r.kind == numDot {
				dotGrouped++
			} else {
				commaGrouped++
			}
			addPoint()
			addComma()
		case numPoint:
			pointOnly++
			addPoint()
		case numCommaD:
			commaOnly++
			addComma()
		}
	}
	// The column takes the convention most one-way numerals call for.
	read, readInts := byPoint, pointInts
	if commaOnly > pointOnly {
		read, readInts = byComma, commaInts
	}
	floats = append(floats, read...)
	nInts := len(ownInts) + len(readInts)
	enough := func(k int) bool { return float64(k) >= 0.95*float64(n) }
	switch {
	case len(bools) == n:
		col.InferredType = profile.TypeBoolean
		hasTrue, hasFalse := false, false
		for _, v := range bools {
			b, _ := oracleBool(v)
			hasTrue, hasFalse = hasTrue || b, hasFalse || !b
		}
		col.Min, col.Max = ptrTo(strconv.FormatBool(!hasFalse)), ptrTo(strconv.FormatBool(hasTrue))
	case enough(nInts) && len(floats) == nInts: // integers, unless some number is a decimal
		col.InferredType = profile.TypeInteger
		col.TypeConformance = float64(nInts) / float64(n)
		col.Min, col.Max = oracleIntBounds(ownInts, readInts)
		col.Notation = oracleNumberNotation(pointOnly, commaOnly, dotGrouped, commaGrouped)
		return oracleMoments(col, floats)
	case enough(len(floats)):
		col.InferredType = profile.TypeFloat
		col.Notation = oracleNumberNotation(pointOnly, commaOnly, dotGrouped, commaGrouped)
		col.TypeConformance = float64(len(floats)) / float64(n)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, f := range floats {
			lo, hi = math.Min(lo, f), math.Max(hi, f)
		}
		col.Min, col.Max = ptrTo(oracleFormatFloat(lo)), ptrTo(oracleFormatFloat(hi))
		return oracleMoments(col, floats)
	case enough(len(dates)):
		col.InferredType = profile.TypeDate
		col.TypeConformance = float64(len(dates)) / float64(n)
		monthFirst := mdyOnly > dmyOnly
		col.Notation = oracleDateNotation(dmyOnly, mdyOnly, eitherDate)
		col.Min, col.Max = oracleExtremes(dates, func(v string) (*big.Int, bool) {
			dmy, mdy, d, m := oracleDate(v)
			if monthFirst {
				return big.NewInt(mdy), m
			}
			return big.NewInt(dmy), d
		})
	case enough(len(dts)):
		col.InferredType = profile.TypeDatetime
		col.TypeConformance = float64(len(dts)) / float64(n)
		col.Notation = oracleDateNotation(dmyOnly, mdyOnly, eitherDate)
		monthFirst := mdyOnly > dmyOnly
		col.Min, col.Max = oracleExtremes(dts, func(v string) (*big.Int, bool) {
			if n, ok := oracleDatetime(v); ok {
				return n, true
			}
			dmy, mdy, d, m := oracleSlashDatetime(v)
			if monthFirst {
				return mdy, m
			}
			return dmy, d
		})
	default:
		col.InferredType = profile.TypeString
		lo, hi := values[0], values[0]
		for _, v := range values {
			lo, hi = min(lo, v), max(hi, v)
		}
		col.Min, col.Max = ptrTo(lo), ptrTo(hi)
	}
	return nil
}

// oracleIntBounds renders an integer column's minimum and maximum: the
// column's own integers (plain, or written alike in both conventions) as
// int64 text, integers of the convention it takes as floats are written;
// on a tie, the column's own.
func oracleIntBounds(own []int64, read []float64) (lo, hi *string) {
	var ownLo, ownHi int64
	for i, x := range own {
		if i == 0 || x < ownLo {
			ownLo = x
		}
		if i == 0 || x > ownHi {
			ownHi = x
		}
	}
	loS, hiS := strconv.FormatInt(ownLo, 10), strconv.FormatInt(ownHi, 10)
	if len(read) > 0 {
		rLo, rHi := slices.Min(read), slices.Max(read)
		if len(own) == 0 || rLo < float64(ownLo) {
			loS = oracleFormatFloat(rLo)
		}
		if len(own) == 0 || rHi > float64(ownHi) {
			hiS = oracleFormatFloat(rHi)
		}
	}
	return &loS, &hiS
}

// oracleExtremes returns the texts of the smallest and largest keys of
// values that have one; among equal keys, the smallest text.
func oracleExtremes(values []string, key func(string) (*big.Int, bool)) (lo, hi *string) {
	var loK, hiK *big.Int
	var loV, hiV string
	for _, v := range values {
		k, ok := key(v)
		if !ok {
			continue
		}
		if loK == nil || k.Cmp(loK) < 0 || (k.Cmp(loK) == 0 && v < loV) {
			loK, loV = k, v
		}
		if hiK == nil || k.Cmp(hiK) > 0 || (k.Cmp(hiK) == 0 && v < hiV) {
			hiK, hiV = k, v
		}
	}
	if loK == nil {
		return nil, nil
	}
	return ptrTo(loV), ptrTo(hiV)
}

// oracleQuantileNames and their q: the lower q-quantile of n numbers is
// the one at rank max(1, ceil(q·n)) in ascending order.
var oracleQuantileNames = map[string]float64{"p01": 0.01, "p05": 0.05, "p25": 0.25, "p50": 0.5, "p75": 0.75, "p95": 0.95, "p99": 0.99}

func oracleRank(q float64, n int) int {
	r := new(big.Rat).Mul(new(big.Rat).SetFrac64(int64(math.Round(q*100)), 100), big.NewRat(int64(n), 1))
	rank := new(big.Int).Quo(r.Num(), r.Denom())
	if new(big.Rat).SetInt(rank).Cmp(r) < 0 {
		rank.Add(rank, big.NewInt(1))
	}
	return max(1, int(rank.Int64()))
}

// oracleMoments sets the mean, the sample standard deviation (computed
// exactly in rationals and rounded once) and the lower quantiles of xs,
// and returns xs sorted.
func oracleMoments(col *profile.Column, xs []float64) []float64 {
	if len(xs) == 0 {
		return nil
	}
	sorted := slices.Sorted(slices.Values(xs))
	col.Quantiles = map[string]float64{}
	for name, q := range oracleQuantileNames {
		col.Quantiles[name] = sorted[oracleRank(q, len(sorted))-1]
	}
	col.Median = ptrTo(col.Quantiles["p50"])
	sum := new(big.Rat)
	for _, x := range xs {
		sum.Add(sum, new(big.Rat).SetFloat64(x))
	}
	mean := new(big.Rat).Quo(sum, big.NewRat(int64(len(xs)), 1))
	m, _ := mean.Float64()
	col.Mean = &m
	sd := 0.0
	if len(xs) > 1 {
		ss := new(big.Rat)
		for _, x := range xs {
			d := new(big.Rat).Sub(new(big.Rat).SetFloat64(x), mean)
			ss.Add(ss, d.Mul(d, d))
		}
		v, _ := ss.Quo(ss, big.NewRat(int64(len(xs)-1), 1)).Float64()
		sd = math.Sqrt(v)
	}
	col.StdDev = &sd
	return sorted
}

func oracleFormatFloat(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func ptrTo[T any](v T) *T { return &v }

// oracleDuplicateRows counts the rows equal (values and null flags) to an
// earlier row.
func oracleDuplicateRows(rows [][]oracleCell) int64 {
	seen := map[string]bool{}
	var dups int64
	var b strings.Builder
	for _, row := range rows {
		b.Reset()
		for _, c := range row {
			if c.isNull() {
				b.WriteString("N")
			} else {
				fmt.Fprintf(&b, "V%d:%s", len(c.value), c.value)
			}
		}
		k := b.String()
		if seen[k] {
			dups++
		}
		seen[k] = true
	}
	return dups
}
