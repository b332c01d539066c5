package profile

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// A column's numbers in one convention (numerals.go). The numbers every
// convention reads alike (plain ones, 12.5%, 1 234, $12) go to the
// column's own statistics; a column keeps beside them, once it meets the
// first numeral that needs one, the numbers only the decimal point reads
// (or reads so: 1,234 as 1234) and those only the decimal comma reads. Its
// figures are its own statistics merged with those of the convention it
// takes, so each convention's are exact, as the column's are.
type readingNumbers struct {
	n, ints        int64 // numbers, whole ones
	intLo, intHi   float64
	lo, hi         float64
	welN           int64
	welMean, welM2 float64
	sketch         *kll
	tails          tails
}

// extraReadingsWorst is what the two conventions' numbers of a column take
// at most, for the memory budget (sizes.go).
func extraReadingsWorst(kllK int) int64 {
	return 2 * int64(kllWorstBytes(kllK)+2*TailSize*16+256)
}

func (r *readingNumbers) add(x float64, whole bool, w int64) {
	r.lo, r.hi = widen(r.lo, r.hi, r.n == 0, x, x)
	if whole {
		r.intLo, r.intHi = widen(r.intLo, r.intHi, r.ints == 0, x, x)
		r.ints += w
	}
	r.n += w
	n := r.welN + w
	d := x - r.welMean
	r.welMean += d * float64(w) / float64(n)
	r.welM2 += d * d * float64(r.welN) * float64(w) / float64(n)
	r.welN = n
	r.sketch.add(x, w)
	r.tails.add(x, w)
}

// merge adds o's numbers to r's.
func (r *readingNumbers) merge(o *readingNumbers) {
	if o == nil || o.n == 0 {
		return
	}
	r.lo, r.hi = widen(r.lo, r.hi, r.n == 0, o.lo, o.hi)
	if o.ints > 0 {
		r.intLo, r.intHi = widen(r.intLo, r.intHi, r.ints == 0, o.intLo, o.intHi)
	}
	r.n += o.n
	r.ints += o.ints
	r.welN, r.welMean, r.welM2 = mergeWelford(r.welN, r.welMean, r.welM2, o.welN, o.welMean, o.welM2)
	r.sketch.merge(o.sketch)
	r.tails.merge(&o.tails)
}

// widen is the bounds lo, hi (none yet when empty) widened to take in
// olo and ohi.
func widen[T cmp.Ordered](lo, hi T, empty bool, olo, ohi T) (T, T) {
	if empty {
		return olo, ohi
	}
	return min(lo, olo), max(hi, ohi)
}

// mergeWelford is Chan et al.'s parallel update of Welford's (n, mean, M2).
func mergeWelford(n1 int64, mean1, m21 float64, n2 int64, mean2, m22 float64) (int64, float64, float64) {
	if n2 == 0 {
		return n1, mean1, m21
	}
	n := n1 + n2
	d := mean2 - mean1
	return n, mean1 + d*float64(n2)/float64(n), m21 + m22 + d*d*float64(n1)*float64(n2)/float64(n)
}

// readingOf returns the column's numbers in the decimal-comma convention
// (comma) or the decimal-point one, creating them on first use.
func (c *column) readingOf(comma bool) *readingNumbers {
	p := &c.pointNums
	if comma {
		p = &c.commaNums
	}
	if *p == nil {
		*p = &readingNumbers{sketch: newKLL(c.sketch.k, c.sketch.rng)}
	}
	return *p
}

// addNumeral adds w occurrences of the numeral r (a value the plain
// parsers refused, or a plain decimal shaped like 1.234): to the column's
// own numbers when both conventions read it alike, else to the numbers of
// each convention that reads it.
func (c *column) addNumeral(r reading, w int64) {
	switch r.kind {
	case sameNumeral:
		if r.ptInt && math.Abs(r.pt) < 1<<63 {
			c.addInt(int64(r.pt), w, false)
		} else {
			c.addNumber(r.pt, w)
		}
		return
	case dotGrouped, commaGrouped:
		if r.kind == dotGrouped {
			c.nDotGrouped += w
		} else {
			c.nCommaGrouped += w
		}
		c.readingOf(false).add(r.pt, r.ptInt, w)
		c.readingOf(true).add(r.cm, r.cmInt, w)
	case pointOnly:
		c.nPointOnly += w
		c.readingOf(false).add(r.pt, r.ptInt, w)
	case commaOnly:
		c.nCommaOnly += w
		c.readingOf(true).add(r.cm, r.cmInt, w)
	}
}

// decimalComma is the convention the column takes: the decimal comma when
// more of its one-way numerals call for it than for the decimal point.
func (c *column) decimalComma() bool { return c.nCommaOnly > c.nPointOnly }

// taken is the numbers of the convention the column takes, or nil.
func (c *column) taken() *readingNumbers {
	if c.decimalComma() {
		return c.commaNums
	}
	return c.pointNums
}

// numberFigures are a numeric column's figures: its own numbers merged
// with those of the convention it takes. Bounds are rendered: the column's
// own integers keep their exact int64 text.
type numberFigures struct {
	nInt, nFloat   int64
	intMin, intMax string
	fltMin, fltMax float64
	welN           int64
	welMean, welM2 float64
	sketch         *kll
	tails          tails
}

func (c *column) numberFigures() numberFigures {
	f := numberFigures{nInt: c.nInt, nFloat: c.nFloat, fltMin: c.fltMin, fltMax: c.fltMax,
		welN: c.welN, welMean: c.welMean, welM2: c.welM2, sketch: c.sketch,
		tails: tails{low: slices.Clone(c.tails.low), high: slices.Clone(c.tails.high)}}
	if c.nInt > 0 {
		f.intMin, f.intMax = strconv.FormatInt(c.intMin, 10), strconv.FormatInt(c.intMax, 10)
	}
	r := c.taken()
	if r == nil || r.n == 0 {
		return f
	}
	if r.ints > 0 {
		if c.nInt == 0 || r.intLo < float64(c.intMin) {
			f.intMin = formatFloat(r.intLo)
		}
		if c.nInt == 0 || r.intHi > float64(c.intMax) {
			f.intMax = formatFloat(r.intHi)
		}
	}
	f.fltMin, f.fltMax = widen(f.fltMin, f.fltMax, f.nFloat == 0, r.lo, r.hi)
	f.nInt += r.ints
	f.nFloat += r.n
	f.welN, f.welMean, f.welM2 = mergeWelford(f.welN, f.welMean, f.welM2, r.welN, r.welMean, r.welM2)
	f.sketch = newKLL(c.sketch.k, c.sketch.rng)
	f.sketch.merge(c.sketch)
	f.sketch.merge(r.sketch)
	f.tails.merge(&r.tails)
	return f
}

// numberNotation says how a numeric column writes its numbers when it is
// not plainly: the convention it takes, and how many numerals both
// conventions read (and differently) were read so. "" for plain numbers,
// 1.234 among them while nothing calls for a decimal comma: a decimal
// point is what a plain number has.
func (c *column) numberNotation() string {
	if c.nPointOnly+c.nCommaOnly+c.nCommaGrouped == 0 {
		return ""
	}
	s := "decimal point, comma or space between thousands (1,234.5)"
	if c.decimalComma() {
		s = "decimal comma, dot or space between thousands (1.234,5)"
	}
	twoWay := c.nDotGrouped + c.nCommaGrouped
	switch {
	case twoWay > 0 && c.nPointOnly == c.nCommaOnly:
		s += fmt.Sprintf("; %d %s such as 1,234 or 1.234 read both ways, and nothing in the column tells which: read so", twoWay, plural(twoWay, "value"))
	case twoWay > 0:
		s += fmt.Sprintf("; %d %s such as 1,234 or 1.234 read both ways: read as the rest of the column", twoWay, plural(twoWay, "value"))
	}
	return s
}

// dateNotation says which way a date column's slash dates are read, when
// it has some: day first unless more of them read only month first.
func (c *column) dateNotation() string {
	if c.nDMYOnly+c.nMDYOnly+c.nEitherDate == 0 {
		return ""
	}
	s := "day first (31/01/2024)"
	if c.nMDYOnly > c.nDMYOnly {
		s = "month first (01/31/2024)"
	}
	switch {
	case c.nEitherDate > 0 && c.nDMYOnly == c.nMDYOnly:
		s += fmt.Sprintf("; %d %s such as 03/04/2024 read both ways, and nothing in the column tells which: read so", c.nEitherDate, plural(c.nEitherDate, "date"))
	case c.nEitherDate > 0:
		s += fmt.Sprintf("; %d %s such as 03/04/2024 read both ways: read as the rest of the column", c.nEitherDate, plural(c.nEitherDate, "date"))
	}
	return s
}

// plural is word for n of it: "1 value", "2 values".
func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
