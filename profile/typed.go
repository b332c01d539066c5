package profile

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/dqs/dqs/columnar"
)

// The typed lane: a column whose batches hold values (columnar.Column.Kind
// not Text: integers, doubles, dates, timestamps) is profiled from the
// values, not from their text. Each value is hashed, counted in the values
// table and the HLL as its 8 bytes; its length and format signatures
// follow from its layout (the sign and digits of an integer, the integer
// digits and decimals of a double, the fraction digits of a timestamp), so
// its text is made only when the layout changes, when it enters the
// sample, when it becomes a minimum or maximum, and for the top values.
// Values no layout describes (see layoutOf) are observed through their
// text. Every statistic is the one the same values as text give
// (TestTypedLaneEqualsText) but the distinct estimate and, past the exact
// phase, which values of equal count stay in the values table: both follow
// the hashes, and the estimate moves within its error.
//
// A column takes the kind of its first typed batch if it has no value yet.
// A text batch for a typed column turns the column into a text column
// (toText); a typed batch for a text column is taken as text. No reader
// mixes them within a file; the profiler stays right if one does, except
// that a row of typed values and the same row as text are not duplicates,
// past the exact phase a value seen both ways counts twice in the
// distinct estimate, and the string minimum and maximum (shown only for
// string columns) leave out the typed values.

// hashNum is the hash of a typed value: MurmurHash3's finalizer, a
// bijection, so that two values of a column never share a hash.
func hashNum(v int64) uint64 { return mix(uint64(v) + hashSeed) }

// numKey is v as a values-table key: its 8 bytes, in c's scratch.
func (c *column) numKey(v int64) string {
	binary.LittleEndian.PutUint64(c.key8[:], uint64(v))
	return unsafe.String(&c.key8[0], len(c.key8))
}

func numOfKey(key []byte) int64 { return int64(binary.LittleEndian.Uint64(key)) }

// numText is the text of v, in c's scratch until the next call.
func (c *column) numText(v int64) string {
	c.text = c.kind.Append(c.text[:0], v)
	return view(c.text)
}

// takesKind reports whether c profiles a typed batch of kind k as values:
// c is of kind k, or has no value yet (it then becomes of kind k).
func (c *column) takesKind(k columnar.Kind) bool {
	if c.kind == k {
		return true
	}
	if c.kind != columnar.Text || c.nonNull > 0 || len(c.values.entries) > 0 {
		return false
	}
	c.kind, c.numLayout = k, noLayout
	c.codes = codeCache{}
	return true
}

// addNums profiles typed cells as addCell would their text, storing each
// cell's hash in hashes.
func (c *column) addNums(cells *columnar.Column, hashes []uint64) {
	nums, nulls := cells.Nums[:len(hashes)], cells.Nulls[:len(hashes)]
	if c.steady() {
		c.addNumsSteady(nums, nulls, hashes)
		return
	}
	for r, v := range nums {
		if nulls[r] {
			c.count++
			c.nulls++
			hashes[r] = nullHash
			continue
		}
		h := hashNum(v)
		hashes[r] = h
		c.addNum(v, h)
	}
}

// addNum is add for a typed value v whose hash is h.
func (c *column) addNum(v int64, h uint64) {
	r, full := c.count1(h, c.numKey(v))
	if c.folded || (r != ssHit && r != ssInserted) {
		c.observeNum(v, 1)
	}
	c.sampleNum(v) // a typed value is never blank
	if full {
		c.fold()
	}
}

// addNumsSteady is addSteady for typed cells.
func (c *column) addNumsSteady(nums []int64, nulls []bool, hashes []uint64) {
	for r, v := range nums {
		if nulls[r] {
			hashes[r] = nullHash
			c.nulls++
			continue
		}
		hashes[r] = hashNum(v)
	}
	c.count += int64(len(hashes))
	for r, h := range hashes {
		if !nulls[r] {
			c.nonNull++
			if c.values.add(h, c.numKey(nums[r])) == ssCollision {
				c.collided = true
			}
		}
	}
	c.addHLL(hashes, nulls)
	for r, v := range nums {
		if !nulls[r] {
			c.observeNum(v, 1)
			c.sampleNum(v)
		}
	}
}

// sampleNum offers v to the sample, writing its text only if it is taken.
func (c *column) sampleNum(v int64) {
	if c.sample.offer() {
		c.sample.take(c.numText(v))
	}
}

// noLayout is no layout: the next value's signatures are built.
const noLayout = -1

// layoutOf returns a number that is the same for two values of c's kind
// exactly when their texts have the same length and signatures, and
// whether v is of the values the typed lane measures without their text
// (integers under 10^18 in magnitude, doubles columnar.ShortDecimal writes,
// dates and instants of years 0 to 9999).
func (c *column) layoutOf(v int64) (int, bool) {
	switch c.kind {
	case columnar.Int:
		neg := 0
		if v < 0 {
			neg, v = 1, -v
		}
		if v >= 1e18 || v < 0 {
			return 0, false
		}
		digits := 1
		for v >= 10 {
			v /= 10
			digits++
		}
		return 2*digits + neg, true
	case columnar.Date:
		return 0, v >= columnar.MinDay && v <= columnar.MaxDay // parseDate reads the text back
	case columnar.Float64:
		// The text is the sign, the integer digits and k decimals.
		f := math.Float64frombits(uint64(v))
		_, k, ok := columnar.ShortDecimal(f)
		if !ok {
			return 0, false
		}
		digits := 1
		for whole := uint64(math.Abs(f)); whole >= 10; whole /= 10 {
			digits++
		}
		layout := 2 * (digits + 32*k)
		if f < 0 {
			layout++
		}
		return layout, true
	}
	sec, nsec, ok := c.instant(v)
	if !ok || sec < columnar.MinSec || sec > columnar.MaxSec { // parseDatetime reads it back
		return 0, false
	}
	digits := 0
	if nsec != 0 { // the digits RFC3339Nano writes: trailing zeros go
		digits = 9
		for nsec%10 == 0 {
			nsec /= 10
			digits--
		}
	}
	return digits, true
}

// instant returns the timestamp v of c's kind as Unix seconds and
// nanoseconds, as parseDatetime reads its text.
func (c *column) instant(v int64) (sec int64, nsec int32, ok bool) {
	per := c.kind.PerSecond()
	if per == 0 {
		return 0, 0, false
	}
	sec, frac := v/per, v%per
	if frac < 0 {
		sec, frac = sec-1, frac+per
	}
	return sec, int32(frac * (1e9 / per)), true
}

// observeNum is observe for a typed value v: what observe does with its
// text, which it makes only when v's layout differs from the last value's.
func (c *column) observeNum(v int64, w int64) {
	layout, ok := c.layoutOf(v)
	if !ok { // a value the lane does not measure: as text
		c.keepTextBounds()
		c.observe(c.numText(v), w)
		c.numLayout = noLayout
		return
	}
	sameShape := c.shapeKnown && layout == c.numLayout
	if !sameShape {
		c.numRunes, _, sameShape = c.newShape(c.numText(v))
		c.numLayout = layout
		c.layoutKnown = false // observe's own cache no longer holds sigF's value
	}
	c.shapeKnown = true
	c.observeLength(c.numRunes, w)
	if c.nNonEmpty == 0 || c.textBounds {
		// The string bounds are not kept for values the lane measures
		// (its types never show them) until it has left one to text,
		// which may make the column a string one; observe takes them as
		// set once a value was counted.
		c.boundText(c.numText(v), c.nNonEmpty == 0)
	}
	c.nNonEmpty += w
	c.countShape(sameShape, w)
	c.addTypedNum(v, w, layout)
}

// addTypedNum is addTyped for a typed value v that layoutOf measures, of
// the given layout.
func (c *column) addTypedNum(v int64, w int64, layout int) {
	switch c.kind {
	case columnar.Int:
		c.addInt(v, w, v == 0 || v == 1) // the text of 0 and 1 is one digit
	case columnar.Float64:
		// What addTyped does with the text: a whole number (no decimals)
		// reads as an integer, any other as a decimal.
		f := math.Float64frombits(uint64(v))
		if f == math.Trunc(f) {
			c.addInt(int64(f), w, f == 1) // "1"; zero is not among these (ShortDecimal)
			return
		}
		if d := layout >> 1; d/32 == 3 && d%32 <= 3 && math.Abs(f) >= 1 {
			// Written 1.234 (1 to 3 digits, 3 decimals): what addTyped
			// does with that text (numerals.go). round(|f|·1000) is the
			// decimal's digits (columnar.ShortDecimal).
			c.addNumeral(reading{kind: dotGrouped, pt: f, cm: math.Copysign(math.Round(math.Abs(f)*1000), f), cmInt: true}, w)
			return
		}
		c.addNumber(f, w)
	case columnar.Date: // ISO dates: both readings agree
		c.nDate += w
		c.observeExtreme(&c.dateDMY, v, 0, v)
		c.observeExtreme(&c.dateMDY, v, 0, v)
	default:
		sec, nsec, _ := c.instant(v)
		c.nDT += w
		c.observeExtreme(&c.datetime, sec, nsec, v)
	}
}

// observeExtreme is e.observe(k1, k2, text of v), writing the text only
// when v is a new minimum or maximum: a key equal to one held has the text
// held (the text of a typed value follows from its key).
func (c *column) observeExtreme(e *extreme, k1 int64, k2 int32, v int64) {
	if e.has && cmpKey(k1, k2, e.minK1, e.minK2) >= 0 && cmpKey(k1, k2, e.maxK1, e.maxK2) <= 0 {
		return
	}
	e.observe(k1, k2, c.numText(v))
}

// keepTextBounds makes the text bounds take every typed value from now on
// (the column may turn out a string one, whose min and max are its texts'),
// and widens them to the typed values observed so far: those the values
// table holds. It holds them all unless it has evicted, which only a
// column of more distinct values than the exact bound does; the bounds
// may then miss values observed before.
func (c *column) keepTextBounds() {
	if c.textBounds || c.kind == columnar.Text {
		return
	}
	c.textBounds = true
	if !c.folded || c.nNonEmpty == 0 {
		return // the values of the table are observed at the fold, from now on
	}
	for i := range c.values.entries {
		if e := &c.values.entries[i]; e.count > 0 {
			c.boundText(c.numText(numOfKey(e.key)), false)
		}
	}
}

// toText makes a typed column a text column: the values table's keys
// become the values' texts, hashed as text. Exact before the first
// eviction; see the top of this file for after.
func (c *column) toText() {
	if c.kind == columnar.Text {
		return
	}
	c.keepTextBounds()
	s := c.values
	for i := range s.entries {
		e := &s.entries[i]
		text := c.numText(numOfKey(e.key))
		e.hash = hashText(text)
		e.n = len(text)
		e.key = append(e.key[:0], text[:min(len(text), s.keyCap)]...)
	}
	if s.filter != nil {
		// Filter counters bound the items hashed to them; every item
		// without a counter is bounded by the smallest count too.
		floor := s.floor()
		for j := range s.filter {
			s.filter[j] = floor
		}
	}
	if s.evicted {
		sortByCount(s.entries)
		s.rebuild()
	} else { // the entries keep their order, which the fold follows
		s.index.reset()
		for i := range s.entries {
			s.index.set(s.entries[i].hash, int32(i))
		}
	}
	s.last = nil32
	c.kind, c.numLayout, c.layoutKnown = columnar.Text, noLayout, false
}

// topNums is values.top(k) for a typed column: its values as text, ties
// ordered by text as for a text column.
func (c *column) topNums(k int) []*ssEntry {
	t := &spaceSaving{entries: make([]ssEntry, len(c.values.entries))}
	for i, e := range c.values.entries {
		text := c.kind.Append(nil, numOfKey(e.key))
		e.key, e.n = text, len(text)
		t.entries[i] = e
	}
	return t.top(k)
}

// asText returns the cells of a typed column as a text column, for a
// column that takes text (a slow path: no reader sends one).
func asText(cells *columnar.Column) *columnar.Column {
	t := &columnar.Column{}
	for r := range cells.Len() {
		if v, null := cells.Cell(r); null {
			t.AppendNull()
		} else {
			t.AppendString(v)
		}
	}
	return t
}
