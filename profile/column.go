package profile

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/axiomhq/hyperloglog"
	"github.com/dqs/dqs/columnar"
	"github.com/zeebo/xxh3"
)

// column is the running state of one column. Every field is mergeable.
type column struct {
	name               string
	distinctLimit      int
	count, nulls       int64
	empty              int64
	minLen, maxLen     int
	sumLen             int64
	nonNull            int64
	values             *spaceSaving        // all non-null values; exact until evicted
	hll                *hyperloglog.Sketch // distinct estimate, once values filled up
	collided           bool                // a 64-bit hash collision made counts inexact
	fine, coarse       *spaceSaving        // format signatures (non-empty values)
	sigF, sigC, sigP   []byte              // scratch: fine, coarse, previous fine
	shapeKnown         bool                // sigP is the previous observed value's
	prevV              []byte              // the last value whose shape was built, if layoutKnown
	layoutKnown        bool                // (sigF and sigC are its signatures)
	prevBlank          bool                // prevV is blank
	folded             bool                // values are observed one by one (see add)
	lenN               int64               // values whose length was observed
	nNonEmpty          int64
	nInt, nFloat       int64
	nBool, nDate, nDT  int64
	nDMYOnly, nMDYOnly int64
	nEitherDate        int64 // slash dates that read both ways (03/04/2024)
	intMin, intMax     int64
	fltMin, fltMax     float64
	welN               int64 // Welford over every numeric value
	welMean, welM2     float64
	sketch             *kll // numbers, for quantiles past the exact phase
	tails              tails
	// Numbers that read one way only under a decimal point, or a decimal
	// comma, or differently under each (readings.go); nil until one comes.
	pointNums, commaNums   *readingNumbers
	nPointOnly, nCommaOnly int64 // numerals only one convention reads
	nDotGrouped            int64 // 1.234: numerals both read, differently
	nCommaGrouped          int64 // 1,234: likewise
	hasTrue, hasFalse      bool
	dateDMY, dateMDY       extreme // slash dates read day-first / month-first
	datetime               extreme // ISO and RFC 3339 date-times
	slashDTDMY, slashDTMDY extreme // slash date-times read day-first / month-first
	strMin, strMax         []byte  // cut to extremeKey bytes
	minCut, maxCut         bool    // strMin, strMax were cut
	// textBounds: strMin and strMax take every typed value observed too
	// (typed.go: from the first value the typed lane leaves to text).
	textBounds bool
	extremeKey int
	exactBytes int64 // what the exact values table may take (0: no bound)
	maxCode    int   // codes the code cache remembers
	sample     reservoir
	codes      codeCache
	kind       columnar.Kind // of the typed batches taken (typed.go), or Text
	key8       [8]byte       // scratch: a typed value as a key
	text       []byte        // scratch: a typed value's text
	numLayout  int           // layout of the last typed value observed, or noLayout
	numRunes   int           // length of its text
}

func (c *column) init(name string, sz sizes, opt Options, stream uint64) {
	c.name, c.distinctLimit = name, sz.distinct
	c.exactBytes, c.extremeKey, c.maxCode = sz.exactBytes, sz.extremeKey, sz.codes
	c.numLayout = noLayout
	c.values = newSpaceSaving(sz.distinct, sz.topKey)
	c.values.shrink = min(sz.distinct, sz.heavy)
	c.fine = newSpaceSaving(sz.sigs, maxSigLen+4)
	c.coarse = newSpaceSaving(sz.sigs, maxSigLen+4)
	c.values.fbits, c.fine.fbits, c.coarse.fbits = uint8(sz.filterBits), uint8(sz.filterBits), uint8(sz.filterBits)
	c.sigF = make([]byte, 0, maxSigLen+8)
	c.sigC = make([]byte, 0, maxSigLen+8)
	c.sigP = make([]byte, 0, maxSigLen+8)
	c.sketch = newKLL(sz.kllK, stream)
	c.sample = newReservoir(sz.sample, sz.sampleKey, opt.Seed, stream)
}

// addCell profiles one cell and returns its hash, which chains into the
// row's hash for duplicate detection.
func (c *column) addCell(v string, null bool) uint64 {
	if null {
		c.count++
		c.nulls++
		return nullHash
	}
	h := hashText(v)
	c.add(v, h)
	return h
}

// hashText is the hash of a text value.
func hashText(v string) uint64 { return xxh3.HashStringSeed(v, hashSeed) }

// codeCache remembers, for the dictionary of the last batch column with
// codes (columnar.Column.Codes), each code's hash and values-table entry, so
// that a cell whose code was seen before costs neither hashing nor a
// lookup. It serves only while the values table counts every value exactly
// and the column's other statistics wait for the fold: entries then never
// move, and counting a cell is adding one to its entry and sampling it.
type codeCache struct {
	dict  uint64
	hash  []uint64
	entry []int32 // the entry's index + 1; 0 when the code was not seen
}

// maxCachedCode bounds the codes the cache holds (a reader sends codes of
// small dictionaries only).
const maxCachedCode = 1 << 16

// addCoded profiles cells, which carry codes, as addCell would one by one,
// storing each cell's hash in hashes.
func (c *column) addCoded(cells *columnar.Column, hashes []uint64) {
	cc := &c.codes
	if cc.dict != cells.Dict {
		cc.dict = cells.Dict
		clear(cc.entry)
	}
	for r := range hashes {
		v, null := cells.TextCell(r)
		code := int(cells.Codes[r])
		exact := !null && !c.folded && c.hll == nil
		if exact && code >= 0 && code < len(cc.entry) && cc.entry[code] != 0 {
			// What add does for a value the table holds.
			i := cc.entry[code] - 1
			c.count++
			c.nonNull++
			c.values.bump(i, 1)
			c.values.last = i
			c.deferred(v)
			hashes[r] = cc.hash[code]
			continue
		}
		hashes[r] = c.addCell(v, null)
		// Still exact after it: the table holds v (it was there or went in).
		if exact && !c.folded && c.hll == nil && c.values.last != nil32 && len(v) <= c.values.keyCap &&
			code >= 0 && code < c.maxCode {
			if code >= len(cc.entry) {
				n := max(code+1, 2*len(cc.entry))
				cc.entry = append(cc.entry, make([]int32, n-len(cc.entry))...)
				cc.hash = append(cc.hash, make([]uint64, n-len(cc.hash))...)
			}
			cc.entry[code], cc.hash[code] = c.values.last+1, hashes[r]
		}
	}
}

// steady reports whether c is past its exact phase: its values were folded
// and its distinct count is estimated. Nothing then changes how a value is
// counted, and addSteady may take the statistics one at a time.
func (c *column) steady() bool { return c.folded && c.hll != nil }

// addSteady profiles cells, for a steady column, as addCell would one by
// one, storing each cell's hash in hashes. Each statistic takes its own
// pass over the cells (hashes, the values table, the HLL, the rest): they
// are independent once the column is steady, and one at a time each works
// in cache with fewer branches, instead of all of them taking turns for
// every value of a high-cardinality column.
func (c *column) addSteady(cells *columnar.Column, hashes []uint64) {
	nulls := cells.Nulls[:len(hashes)]
	for r := range hashes {
		v, null := cells.TextCell(r)
		if null {
			hashes[r] = nullHash
			c.nulls++
			continue
		}
		hashes[r] = hashText(v)
	}
	c.count += int64(len(hashes))
	for r, h := range hashes {
		if !nulls[r] {
			c.nonNull++
			v, _ := cells.TextCell(r)
			if c.values.add(h, v) == ssCollision {
				c.collided = true
			}
		}
	}
	c.addHLL(hashes, nulls)
	for r := range hashes {
		if v, null := cells.TextCell(r); !null && !c.observe(v, 1) {
			c.sample.add(v)
		}
	}
}

// addHLL adds the hashes of the cells that are not null to the HLL.
func (c *column) addHLL(hashes []uint64, nulls []bool) {
	for r, h := range hashes {
		if !nulls[r] {
			c.hll.InsertHash(h)
		}
	}
}

// add profiles one non-null value v whose hash is h.
//
// While the values table counts every value exactly (until it fills), a
// value it holds whole is only counted there: every other statistic (lengths,
// formats, types, min and max) is taken once per distinct value, weighted by
// its count, when the table fills or a result is asked for (fold). Columns of
// few distinct values (countries, statuses, flags) then cost a table lookup
// per row. The reservoir sample alone sees every value, in order.
func (c *column) add(v string, h uint64) {
	r, full := c.count1(h, v)
	if !c.folded && (r == ssHit || r == ssInserted) && len(v) <= c.values.keyCap {
		c.deferred(v)
	} else if !c.observe(v, 1) {
		c.sample.add(v)
	}
	if full {
		c.fold()
	}
}

// count1 counts one non-null value, of hash h and values-table key key, in
// the counts, the values table and the HLL. It returns the table's answer
// and whether the table just filled (the caller folds once it has taken the
// value).
func (c *column) count1(h uint64, key string) (r ssResult, full bool) {
	c.count++
	c.nonNull++
	r = c.values.add(h, key)
	if r == ssCollision { // astronomically rare; the count can no longer be exact
		c.collided = true
		c.startHLL()
	}
	if c.hll != nil {
		c.hll.InsertHash(h)
	} else if r == ssInserted && (len(c.values.entries) == c.distinctLimit || c.exactTableOver()) {
		// Full: from here on a new value evicts. Everything seen so far is
		// in the table, so the HLL starts from it.
		c.distinctLimit = len(c.values.entries)
		c.values.cap = c.distinctLimit
		c.values.shrink = min(c.values.shrink, c.distinctLimit)
		c.startHLL()
		full = true
	}
	return r, full
}

// exactTableOver reports whether the exact values table has taken the bytes
// it may (sizes.exactBytes).
func (c *column) exactTableOver() bool {
	return c.exactBytes > 0 && int64(len(c.values.entries))*entryBytes+c.values.keyBytes >= c.exactBytes
}

// deferred samples a value whose other statistics wait for the fold.
func (c *column) deferred(v string) {
	if !blankShape(v) {
		c.sample.add(v)
	}
}

// fold takes the statistics of the values the table holds whole, each once
// with its count as weight, and makes every later value count one by one.
// The table is exact when it runs: it has not evicted.
func (c *column) fold() {
	if c.folded {
		return
	}
	c.folded = true
	c.shapeKnown = false
	for i := range c.values.entries {
		e := &c.values.entries[i]
		if e.n > len(e.key) { // cut: such values were counted one by one
			continue
		}
		if c.kind != columnar.Text {
			c.observeNum(numOfKey(e.key), e.count)
			continue
		}
		c.observe(view(e.key), e.count)
	}
}

// blankShape reports whether v is blank as shape says (any whitespace,
// Unicode's included), without building the signature.
func blankShape(v string) bool {
	for _, r := range v {
		if r < utf8.RuneSelf {
			if classTab[r] != clsSpace {
				return false
			}
		} else if !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// observe adds w occurrences of the non-null value v to every statistic but
// the values table and the sample, and reports whether v is blank.
func (c *column) observe(v string, w int64) (blank bool) {
	var runes int
	var sameShape bool
	if c.shapeKnown && c.layoutKnown && sameLayout(v, view(c.prevV)) {
		// Laid out as the value before: sigF and sigC are v's already.
		runes, blank, sameShape = len(v), c.prevBlank, true
	} else {
		runes, blank, sameShape = c.newShape(v)
		c.layoutKnown = len(v) <= maxLayoutBytes
		if c.layoutKnown {
			c.prevV, c.prevBlank = append(c.prevV[:0], v...), blank
		}
	}
	c.shapeKnown = true
	c.observeLength(runes, w)
	if blank {
		c.empty += w
		return true
	}
	first := c.nNonEmpty == 0
	c.nNonEmpty += w
	c.countShape(sameShape, w)

	c.boundText(v, first)
	c.addTyped(v, w)
	return false
}

// boundText widens the text bounds to v; the first value sets both.
func (c *column) boundText(v string, first bool) {
	if first {
		c.strMin, c.minCut = keepExtreme(c.strMin, v, c.extremeKey)
		c.strMax, c.maxCut = keepExtreme(c.strMax, v, c.extremeKey)
	} else if less(v, view(c.strMin)) {
		c.strMin, c.minCut = keepExtreme(c.strMin, v, c.extremeKey)
	} else if less(view(c.strMax), v) {
		c.strMax, c.maxCut = keepExtreme(c.strMax, v, c.extremeKey)
	}
}

// newShape builds v's signatures into sigF and sigC, keeping the previous
// value's fine one in sigP, and returns v's length in runes, whether it is
// blank and whether its fine signature is the previous value's.
func (c *column) newShape(v string) (runes int, blank, sameShape bool) {
	c.sigF, c.sigP = c.sigP, c.sigF
	c.sigF, c.sigC, runes, blank = shape(c.sigF[:0], c.sigC[:0], v)
	return runes, blank, c.shapeKnown && string(c.sigF) == string(c.sigP)
}

// observeLength adds w values of length runes to the length statistics.
func (c *column) observeLength(runes int, w int64) {
	if c.lenN == 0 {
		c.minLen, c.maxLen = runes, runes
	} else {
		c.minLen = min(c.minLen, runes)
		c.maxLen = max(c.maxLen, runes)
	}
	c.lenN += w
	c.sumLen += int64(runes) * w
}

// less reports whether a < b, both non-empty. Most pairs differ in their
// first byte, which decides them without a call into the runtime's
// comparison.
func less(a, b string) bool {
	if a[0] != b[0] {
		return a[0] < b[0]
	}
	return a < b
}

// keepExtreme copies v into dst, cut to limit bytes, and reports whether it
// was cut. A value that shares the kept bytes of a cut minimum (or maximum)
// then compares as if it were that minimum's prefix: exact but for values
// alike in their first extremeKey bytes (a MiB without a memory budget).
func keepExtreme(dst []byte, v string, limit int) ([]byte, bool) {
	if len(v) > limit {
		return append(dst[:0], v[:limit]...), true
	}
	return append(dst[:0], v...), false
}

// cutText is the text of a kept value, ending with "…" when it was cut.
func cutText(kept []byte, cut bool) string {
	if cut {
		return string(kept) + "…"
	}
	return string(kept)
}

// view is b as a string, without a copy: for reading only, while b is not
// modified.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// countShape counts w occurrences of the signatures in sigF and sigC.
func (c *column) countShape(sameShape bool, w int64) {
	if !sameShape || c.fine.last == nil32 || c.coarse.last == nil32 {
		c.addSig(c.fine, c.sigF)
		c.addSig(c.coarse, c.sigC)
		w--
	}
	if w == 0 {
		return
	}
	if c.fine.last == nil32 || c.coarse.last == nil32 { // filtered: one by one
		for range w {
			c.addSig(c.fine, c.sigF)
			c.addSig(c.coarse, c.sigC)
		}
		return
	}
	// Most values have the shape of the value before, which (being
	// non-blank too) was the last item added to both tables.
	c.fine.bump(c.fine.last, w)
	c.coarse.bump(c.coarse.last, w)
}

func (c *column) addSig(t *spaceSaving, sig []byte) {
	// A string view of the scratch buffer, not a copy: the table only reads
	// it and copies it into a buffer of its own when it keeps it.
	sv := view(sig)
	if t.addLast(sv) {
		return
	}
	t.add(xxh3.HashSeed(sig, hashSeed), sv)
}

func (c *column) addTyped(v string, w int64) {
	b := v[0]
	if b-'0' <= 9 || b == '-' || b == '+' || b == '.' {
		if n, ok := parseInt(v); ok {
			c.addInt(n, w, len(v) == 1 && n <= 1) // "0" or "1" is a flag too
			return
		}
		if f, syntax, ok := decimalFloat(v); syntax {
			switch {
			case ok && plainDotGrouped(v): // 1.234: 1234 under a decimal comma
				c.addNumeral(readNumeral(v), w)
			case ok:
				c.addNumber(f, w)
			}
			return
		}
		if b-'0' <= 9 && len(v) == 10 {
			if dmy, mdy, cls, ok := parseDate(v); ok {
				c.nDate += w
				c.countSlash(cls, w)
				c.dateDMY.observe(dmy, 0, v)
				c.dateMDY.observe(mdy, 0, v)
				return
			}
		}
		if sec, nsec, ok := parseDatetime(v); ok && b-'0' <= 9 {
			c.nDT += w
			c.datetime.observe(sec, nsec, v)
			return
		}
		if dmy, mdy, cls, ok := parseSlashDatetime(v); ok {
			c.nDT += w
			c.countSlash(cls, w)
			c.slashDTDMY.observe(dmy, 0, v)
			c.slashDTMDY.observe(mdy, 0, v)
			return
		}
		if r := readNumeral(v); r.kind != notNumeral {
			c.addNumeral(r, w)
		}
		return
	}
	if numeralStart(v) {
		if r := readNumeral(v); r.kind != notNumeral {
			c.addNumeral(r, w)
		}
		return
	}
	if val, ok := parseBool(v); ok {
		c.nBool += w
		c.hasTrue = c.hasTrue || val
		c.hasFalse = c.hasFalse || !val
	}
}

// addInt adds w occurrences of the integer n, which reads as a boolean too
// when flag (n is then 0 or 1).
func (c *column) addInt(n int64, w int64, flag bool) {
	if c.nInt == 0 {
		c.intMin, c.intMax = n, n
	} else {
		c.intMin, c.intMax = min(c.intMin, n), max(c.intMax, n)
	}
	c.nInt += w
	c.addNumber(float64(n), w)
	if flag {
		c.nBool += w
		c.hasTrue = c.hasTrue || n == 1
		c.hasFalse = c.hasFalse || n == 0
	}
}

// addNumber adds w occurrences of f.
func (c *column) addNumber(f float64, w int64) {
	if c.nFloat == 0 {
		c.fltMin, c.fltMax = f, f
	} else {
		c.fltMin, c.fltMax = min(c.fltMin, f), max(c.fltMax, f)
	}
	c.nFloat += w
	if w == 1 {
		c.welN++
		d := f - c.welMean
		c.welMean += d / float64(c.welN)
		c.welM2 += d * (f - c.welMean)
		c.sketch.add(f, 1)
		c.tails.add(f, 1)
		return
	}
	// w equal values at once: Chan et al.'s update with a batch of mean f
	// and no spread.
	n := c.welN + w
	d := f - c.welMean
	c.welMean += d * float64(w) / float64(n)
	c.welM2 += d * d * float64(c.welN) * float64(w) / float64(n)
	c.welN = n
	c.sketch.add(f, w)
	c.tails.add(f, w)
}

// countSlash counts a slash date or date-time by the readings it takes.
func (c *column) countSlash(cls dateClass, w int64) {
	switch cls {
	case dateDMYOnly:
		c.nDMYOnly += w
	case dateMDYOnly:
		c.nMDYOnly += w
	case dateEither:
		c.nEitherDate += w
	}
}

func (c *column) startHLL() {
	if c.hll != nil {
		return
	}
	c.hll = hyperloglog.NewNoSparse()
	for i := range c.values.entries {
		c.hll.InsertHash(c.values.entries[i].hash)
	}
}

// extreme tracks the minimum and maximum of values keyed by (k1, k2) and
// remembers them as written. Among equal keys the smallest text wins, for
// both ends, so that merges agree with a single pass.
type extreme struct {
	has          bool
	minK1, maxK1 int64
	minK2, maxK2 int32
	minS, maxS   []byte
}

func cmpKey(a1 int64, a2 int32, b1 int64, b2 int32) int {
	if c := cmp.Compare(a1, b1); c != 0 {
		return c
	}
	return cmp.Compare(a2, b2)
}

func (e *extreme) observe(k1 int64, k2 int32, s string) {
	if !e.has {
		e.has = true
		e.minK1, e.minK2, e.maxK1, e.maxK2 = k1, k2, k1, k2
		e.minS = append(e.minS[:0], s...)
		e.maxS = append(e.maxS[:0], s...)
		return
	}
	if c := cmpKey(k1, k2, e.minK1, e.minK2); c < 0 || (c == 0 && s < string(e.minS)) {
		e.minK1, e.minK2 = k1, k2
		e.minS = append(e.minS[:0], s...)
	}
	if c := cmpKey(k1, k2, e.maxK1, e.maxK2); c > 0 || (c == 0 && s < string(e.maxS)) {
		e.maxK1, e.maxK2 = k1, k2
		e.maxS = append(e.maxS[:0], s...)
	}
}

func (e *extreme) merge(o *extreme) {
	if !o.has {
		return
	}
	e.observe(o.minK1, o.minK2, string(o.minS))
	e.observe(o.maxK1, o.maxK2, string(o.maxS))
}

// clone is a copy of e that shares no memory with it.
func (e *extreme) clone() extreme {
	o := *e
	o.minS, o.maxS = slices.Clone(e.minS), slices.Clone(e.maxS)
	return o
}

func (e *extreme) render() (lo, hi *string) {
	if !e.has {
		return nil, nil
	}
	return ptr(string(e.minS)), ptr(string(e.maxS))
}

func (c *column) merge(o *column) error {
	if c.kind != o.kind && !c.takesKind(o.kind) {
		c.toText()
		o.toText()
	}
	c.fold()
	o.fold()
	// Distinct: the HLL must cover the union before the tables are merged.
	union := len(c.values.entries)
	if c.hll == nil && o.hll == nil {
		for i := range o.values.entries {
			if _, ok := c.values.index.get(o.values.entries[i].hash); !ok {
				union++
			}
		}
	}
	if c.hll != nil || o.hll != nil || union >= c.distinctLimit {
		c.startHLL()
		if o.hll != nil {
			if err := c.hll.Merge(o.hll); err != nil {
				return err
			}
		} else {
			for i := range o.values.entries {
				c.hll.InsertHash(o.values.entries[i].hash)
			}
		}
	}
	if c.values.merge(o.values) || o.collided {
		c.collided = true
		c.startHLL()
	}
	c.fine.merge(o.fine)
	c.coarse.merge(o.coarse)

	if o.lenN > 0 {
		if c.lenN == 0 {
			c.minLen, c.maxLen = o.minLen, o.maxLen
		} else {
			c.minLen, c.maxLen = min(c.minLen, o.minLen), max(c.maxLen, o.maxLen)
		}
	}
	c.textBounds = c.textBounds || o.textBounds
	if o.nNonEmpty > 0 {
		if c.nNonEmpty == 0 || string(o.strMin) < string(c.strMin) {
			c.strMin, c.minCut = append(c.strMin[:0], o.strMin...), o.minCut
		}
		if c.nNonEmpty == 0 || string(o.strMax) > string(c.strMax) {
			c.strMax, c.maxCut = append(c.strMax[:0], o.strMax...), o.maxCut
		}
	}
	if o.nInt > 0 {
		c.intMin, c.intMax = widen(c.intMin, c.intMax, c.nInt == 0, o.intMin, o.intMax)
	}
	if o.nFloat > 0 {
		c.fltMin, c.fltMax = widen(c.fltMin, c.fltMax, c.nFloat == 0, o.fltMin, o.fltMax)
	}
	c.welN, c.welMean, c.welM2 = mergeWelford(c.welN, c.welMean, c.welM2, o.welN, o.welMean, o.welM2)
	c.sketch.merge(o.sketch)
	c.tails.merge(&o.tails)
	if o.pointNums != nil {
		c.readingOf(false).merge(o.pointNums)
	}
	if o.commaNums != nil {
		c.readingOf(true).merge(o.commaNums)
	}
	c.nPointOnly += o.nPointOnly
	c.nCommaOnly += o.nCommaOnly
	c.nDotGrouped += o.nDotGrouped
	c.nCommaGrouped += o.nCommaGrouped
	c.dateDMY.merge(&o.dateDMY)
	c.dateMDY.merge(&o.dateMDY)
	c.datetime.merge(&o.datetime)
	c.slashDTDMY.merge(&o.slashDTDMY)
	c.slashDTMDY.merge(&o.slashDTMDY)
	c.sample.merge(&o.sample)

	c.count += o.count
	c.nulls += o.nulls
	c.empty += o.empty
	c.sumLen += o.sumLen
	c.nonNull += o.nonNull
	c.lenN += o.lenN
	c.nNonEmpty += o.nNonEmpty
	c.nInt += o.nInt
	c.nFloat += o.nFloat
	c.nBool += o.nBool
	c.nDate += o.nDate
	c.nDT += o.nDT
	c.nDMYOnly += o.nDMYOnly
	c.nMDYOnly += o.nMDYOnly
	c.nEitherDate += o.nEitherDate
	c.hasTrue = c.hasTrue || o.hasTrue
	c.hasFalse = c.hasFalse || o.hasFalse
	return nil
}

func (c *column) inferType() (typ string, conforming int64) {
	n := c.nNonEmpty
	if n == 0 {
		return TypeEmpty, 0
	}
	enough := func(k int64) bool { return float64(k) >= typeThreshold*float64(n) }
	nInt, nFloat := c.nInt, c.nFloat
	if r := c.taken(); r != nil {
		nInt, nFloat = nInt+r.ints, nFloat+r.n
	}
	switch {
	case c.nBool == n:
		return TypeBoolean, n
	case enough(nInt) && nFloat == nInt: // a decimal among the numbers makes them decimals
		return TypeInteger, nInt
	case enough(nFloat):
		return TypeFloat, nFloat
	case enough(c.nDate):
		return TypeDate, c.nDate
	case enough(c.nDT):
		return TypeDatetime, c.nDT
	}
	return TypeString, n
}

func (c *column) result(topK int) Column {
	c.fold()
	col := Column{
		Name:          c.name,
		Count:         c.count,
		Nulls:         c.nulls,
		Empty:         c.empty,
		DistinctExact: !c.values.evicted && !c.collided,
		MinLength:     c.minLen,
		MaxLength:     c.maxLen,
		TopValues:     []ValueCount{},
		Sample:        c.sample.strings(),
	}
	if col.DistinctExact {
		col.Distinct = int64(len(c.values.entries))
	} else {
		col.Distinct = int64(c.hll.Estimate())
		if c.values.evicted { // the true count is known to exceed the exact bound
			col.Distinct = max(col.Distinct, int64(c.distinctLimit)+1)
		}
	}
	if c.lenN > 0 {
		col.MeanLength = float64(c.sumLen) / float64(c.lenN)
	}
	top := c.values.top
	if c.kind != columnar.Text {
		top = c.topNums
	}
	for _, e := range top(topK) {
		v := cutText(e.key, e.n > len(e.key))
		col.TopValues = append(col.TopValues, ValueCount{Value: v, Count: e.count - e.err})
	}

	typ, conforming := c.inferType()
	col.InferredType = typ
	col.TypeConformance = 1
	if typ != TypeEmpty {
		col.TypeConformance = float64(conforming) / float64(c.nNonEmpty)
	}
	col.Format, col.FormatConformance = c.format()

	nums := c.numberFigures()
	switch typ {
	case TypeInteger:
		col.Min, col.Max = ptr(nums.intMin), ptr(nums.intMax)
	case TypeFloat:
		col.Min, col.Max = ptr(formatFloat(nums.fltMin)), ptr(formatFloat(nums.fltMax))
	case TypeBoolean:
		col.Min, col.Max = ptr(strconv.FormatBool(!c.hasFalse)), ptr(strconv.FormatBool(c.hasTrue))
	case TypeDate:
		col.Notation = c.dateNotation()
		if c.nMDYOnly > c.nDMYOnly {
			col.Min, col.Max = c.dateMDY.render()
		} else {
			col.Min, col.Max = c.dateDMY.render()
		}
	case TypeDatetime:
		col.Notation = c.dateNotation()
		e := c.datetime.clone() // merging into a copy would write into c's bytes
		if c.nMDYOnly > c.nDMYOnly {
			e.merge(&c.slashDTMDY)
		} else {
			e.merge(&c.slashDTDMY)
		}
		col.Min, col.Max = e.render()
	case TypeString:
		col.Min, col.Max = ptr(cutText(c.strMin, c.minCut)), ptr(cutText(c.strMax, c.maxCut))
	}
	if (typ == TypeInteger || typ == TypeFloat) && nums.welN > 0 {
		col.Notation = c.numberNotation()
		col.Mean = ptr(nums.welMean)
		sd := 0.0
		if nums.welN > 1 {
			sd = math.Sqrt(max(0, nums.welM2/float64(nums.welN-1)))
		}
		col.StdDev = ptr(sd)
		qs, ok := c.exactQuantiles()
		if !ok && !nums.sketch.empty() {
			qs = nums.sketch.quantiles(quantileValues[:])
		}
		if len(qs) > 0 {
			col.Quantiles = make(map[string]float64, len(quantileNames))
			for i, v := range qs {
				col.Quantiles[quantileNames[i]] = v
			}
			col.Median = ptr(col.Quantiles["p50"])
		}
		col.Tails = &Tails{Low: nums.tails.low, High: nums.tails.high}
	}
	return col
}

// format picks the dominant signature: the fine one, unless it covers less
// than half of the non-empty values and the coarse one covers more.
func (c *column) format() (string, float64) {
	if c.nNonEmpty == 0 {
		return "", 1
	}
	best := func(t *spaceSaving) (string, int64) {
		top := t.top(1)
		if len(top) == 0 {
			return "", 0
		}
		return string(top[0].key), top[0].count - top[0].err
	}
	f, fn := best(c.fine)
	k, kn := best(c.coarse)
	n := float64(c.nNonEmpty)
	if float64(fn) >= 0.5*n || kn <= fn {
		return f, float64(fn) / n
	}
	return k, float64(kn) / n
}

// exactQuantiles returns the lower quantiles (quantileValues) of the
// column's numbers from the values table, which counts every value while
// the column is in its exact phase; ok is false past it, or when a value
// too long to keep whole may be a number.
func (c *column) exactQuantiles() (qs []float64, ok bool) {
	if c.values.evicted || c.collided {
		return nil, false
	}
	type num struct {
		x float64
		n int64
	}
	var nums []num
	var total int64
	comma := c.decimalComma()
	for i := range c.values.entries {
		e := &c.values.entries[i]
		var x float64
		switch c.kind {
		case columnar.Text:
			if e.n > len(e.key) {
				return nil, false
			}
			f, isNum := NumberAs(view(e.key), comma)
			if !isNum {
				continue
			}
			x = f
		case columnar.Int:
			x = float64(numOfKey(e.key))
		case columnar.Float64:
			x = math.Float64frombits(uint64(numOfKey(e.key)))
			if math.IsNaN(x) || math.IsInf(x, 0) {
				continue // as their text, NaN and infinities are no numbers
			}
		default:
			return nil, false // dates and instants have no quantiles
		}
		nums = append(nums, num{x, e.count})
		total += e.count
	}
	if total == 0 {
		return nil, true
	}
	slices.SortFunc(nums, func(a, b num) int { return cmp.Compare(a.x, b.x) })
	qs = make([]float64, len(quantileValues))
	var cum int64
	j := 0
	for i, q := range quantileValues {
		rank := lowerRank(q, total)
		for cum+nums[j].n < rank {
			cum += nums[j].n
			j++
		}
		qs[i] = nums[j].x
	}
	return qs, true
}

// formatFloat renders f in the shortest form that reads back as f, without
// an exponent unless f is very large or very small.
func formatFloat(f float64) string {
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
