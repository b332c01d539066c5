package readers

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/dqs/dqs/columnar"
)

// Page decoding for the direct path (parquet_direct.go): one flat column
// chunk, page by page, straight into a batch column. Only what the common
// writers produce is decoded here: dictionary pages, data pages v1 and v2,
// PLAIN and dictionary-encoded values, RLE definition levels. Anything else,
// and anything inconsistent, is an error, on which the reader hands the
// rows to the Arrow path, which decides what the file holds.

// pqKind is how a column's values are decoded and formatted. Each
// formats as appendArrowValue formats the Arrow array pqarrow makes of it.
type pqKind uint8

const (
	pqBool      pqKind = iota + 1 // BOOLEAN
	pqInt32                       // INT32
	pqInt64                       // INT64
	pqFloat                       // FLOAT
	pqDouble                      // DOUBLE
	pqDate                        // INT32 days since the epoch
	pqTimestamp                   // INT64 in the column's unit
	pqString                      // BYTE_ARRAY, as stored
	pqBinary                      // BYTE_ARRAY, as appendBinary writes it
)

// directColumn describes one column of the direct path.
type directColumn struct {
	kind     pqKind
	unit     arrow.TimeUnit // of a pqTimestamp
	typed    columnar.Kind  // how batches hold its values (typedKind)
	nullable bool           // the maximum definition level is 1, not 0
	maxValue int            // the longest value's text allowed (MaxFieldBytes)
}

// errDirect marks a page the direct path does not decode. It never reaches
// a caller: the Arrow path rereads the rows and words any error.
var errDirect = errors.New("parquet direct decoding")

// errOverLimit stops a window at its first value over MaxFieldBytes, which
// the Arrow path then reports: a window of a dictionary value repeated
// could otherwise take gigabytes before any check.
var errOverLimit = directErrorf("a value over the field limit")

// errOverWindow stops a window whose text passes its budget (a dictionary
// value repeated many times over expands without bound); the Arrow path,
// which reads on, refuses it within the reader's budget.
var errOverWindow = directErrorf("a window's text over its budget")

// textBudget is the text a window may decode into its batch, shared by its
// columns, which decode in parallel.
type textBudget struct{ left atomic.Int64 }

// take reserves n bytes, reporting false (and reserving nothing) when
// fewer are left.
func (t *textBudget) take(n int) bool {
	if t.left.Add(-int64(n)) < 0 {
		t.left.Add(int64(n))
		return false
	}
	return true
}

func directErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errDirect, fmt.Sprintf(format, args...))
}

// chunkDecoder decodes the values of one column chunk, in row order.
type chunkDecoder struct {
	directColumn
	codec compress.Codec // nil when the chunk is not compressed
	br    *bufio.Reader
	left  int64 // bytes of the chunk not read yet

	body, page  []byte    // the page as stored, and decompressed
	dict        formatted // the dictionary's values, formatted (text columns)
	dictNums    []int64   // the dictionary's values (typed columns)
	dictSize    int       // values in the dictionary
	valueBytes  int       // text per value in the last rows appended
	hasDict     bool
	dictName    uint64 // names dict for the batch columns' codes
	coded       bool   // dictionary-encoded cells get codes (dict is small)
	dictLongest int    // bytes of the longest value of dict
	window      *textBudget
	bufSize     int // of br

	// The current data page. Its levels and indices are decoded a window
	// at a time, into defs and idx, so that memory stays bounded by the
	// window whatever a page holds (a constant column's page can hold a
	// whole row group in a few bytes).
	levels  int           // values (null or not) not decoded yet
	defDec  hybridDecoder // definition levels, when nullable
	useDict bool
	idxDec  hybridDecoder // dictionary indices of the non-null values
	defs    []uint32      // scratch for a window's levels
	idx     []uint32      // scratch for a window's indices
	plain   []byte        // PLAIN values not decoded yet
	bit     int           // next bit of plain, for booleans
}

// open positions d at the start of column chunk col of the file.
func (d *chunkDecoder) open(f io.ReaderAt, fileSize int64, col *metadata.ColumnChunkMetaData, pages chunkPages) error {
	start, length, ok := chunkLocation(col, fileSize)
	if !ok {
		return directErrorf("column chunk outside the file")
	}
	d.codec = nil
	if col.Compression() != compress.Codecs.Uncompressed {
		codec, err := compress.GetCodec(col.Compression())
		if err != nil {
			return directErrorf("codec: %v", err)
		}
		d.codec = codec
	}
	// A row group's pages need not be the next one's: buffers more than
	// twice what this chunk's pages need (and past 1 MiB) are let go, or a
	// decoder would keep the largest page of every row group, and the
	// columns together far more than any row group needs. The pages of one
	// row group were checked to fit in the budget together.
	drop := func(capacity int, need int64) bool { return capacity > 1<<20 && int64(capacity) > 2*need }
	if drop(cap(d.body), pages.largest) {
		d.body = nil
	}
	if drop(cap(d.page), pages.largest) {
		d.page = nil
	}
	if drop(cap(d.dict.text), 2*pages.dictionary) {
		d.dict.text = nil
	}
	if drop(8*cap(d.dict.ends), 8*pages.dictValues) {
		d.dict.ends = nil
	}
	if drop(8*cap(d.dictNums), 8*pages.dictValues) {
		d.dictNums = nil
	}
	sr := io.NewSectionReader(f, start, length)
	if d.br == nil {
		d.br = bufio.NewReaderSize(sr, d.bufSize)
	} else {
		d.br.Reset(sr)
	}
	d.left = length
	d.hasDict, d.levels = false, 0
	return nil
}

// maxCodedDict is the largest dictionary whose cells carry codes
// (columnar.Column.Codes): the profiler gains from them on columns of few
// distinct values, and keeps a little state per code.
const maxCodedDict = 4096

// maxReserve bounds the text appendRows makes room for at once.
const maxReserve = 16 << 20

// appendRows appends the next n values of the chunk to col.
func (d *chunkDecoder) appendRows(col *columnar.Column, n int) error {
	if d.typed != columnar.Text {
		if !col.CanType(d.typed) { // never on the direct path's own batches
			return directErrorf("a typed column's batch holds text")
		}
		return d.appendNums(col, n)
	}
	// Room for the rows at once, by the size of the last rows' values:
	// append grows large slices by a quarter at a time, each time copying
	// them into fresh memory.
	start := len(col.Text)
	// The text appended is taken from the window's budget 64 KiB at a
	// time at least (a wide file's many columns share it): has tells
	// whether the text up to end fits in what was taken.
	taken := 0
	has := func(end int) bool {
		for end-start > taken {
			chunk := max(end-start-taken, 64<<10)
			if !d.window.take(chunk) {
				return false
			}
			taken += chunk
		}
		return true
	}
	text := slices.Grow(col.Text, min(n*d.valueBytes+n/8, maxReserve))
	ends, nulls, codes := slices.Grow(col.Ends, n), slices.Grow(col.Nulls, n), col.Codes
	rows := n
	defer func() {
		if rows > 0 {
			d.valueBytes = (len(text) - start + rows - 1) / rows
		}
		col.Text, col.Ends, col.Nulls, col.Codes = text, ends, nulls, codes
	}()
	// coding tells whether the cells appended next keep col's codes whole:
	// CanCode of the column as the local slices have it so far.
	coding := func() bool {
		now := columnar.Column{Ends: ends, Codes: codes, Dict: col.Dict}
		if !d.coded || !now.CanCode(d.dictName) {
			return false
		}
		col.Dict = d.dictName
		return true
	}
	for n > 0 {
		k, defs, idx, err := d.nextWindow(n)
		if err != nil {
			return err
		}
		n -= k
		coded := idx != nil && coding()
		if defs == nil && idx != nil {
			// No nulls, dictionary-encoded: the common page, in a loop
			// of its own.
			if coded {
				for _, ix := range idx {
					codes = append(codes, int32(ix))
				}
			}
			if d.dictLongest <= d.maxValue && len(text)+len(idx)*d.dictLongest <= math.MaxInt32 && has(len(text)+len(idx)*d.dictLongest) {
				// Within every bound whatever the indices: no check per value.
				text, ends = d.appendDictValues(text, ends, idx)
				nulls = appendFalse(nulls, k)
				continue
			}
			for _, ix := range idx {
				v := d.dict.value(int(ix))
				if len(v) > d.maxValue {
					return errOverLimit
				}
				if !has(len(text) + len(v)) {
					return errOverWindow
				}
				text = append(text, v...)
				if len(text) > math.MaxInt32 {
					return directErrorf("over 2 GiB of text in a batch column")
				}
				ends = append(ends, int32(len(text)))
			}
			nulls = appendFalse(nulls, k)
			continue
		}
		for j := range k {
			if defs != nil && defs[j] == 0 {
				ends = append(ends, int32(len(text)))
				nulls = append(nulls, true)
				if coded {
					codes = append(codes, 0)
				}
				continue
			}
			cell := len(text)
			if idx != nil {
				v := d.dict.value(int(idx[0]))
				if !has(len(text) + len(v)) {
					return errOverWindow
				}
				text = append(text, v...)
				if coded {
					codes = append(codes, int32(idx[0]))
				}
				idx = idx[1:]
			} else if text, err = d.appendPlain(text); err != nil {
				return err
			}
			if len(text)-cell > d.maxValue {
				return errOverLimit
			}
			if !has(len(text)) {
				return errOverWindow
			}
			if len(text) > math.MaxInt32 {
				return directErrorf("over 2 GiB of text in a batch column")
			}
			ends = append(ends, int32(len(text)))
			nulls = append(nulls, false)
		}
	}
	return nil
}

// wordCopy is the longest value appendDictValues copies as two 8-byte
// words; the dictionary's text has that many bytes of room past its end.
const wordCopy = 16

// appendDictValues appends the dictionary values idx points at (valid
// indices) to text, and each one's end to ends. Most values are short
// (numbers, dates, codes, names): copied as two 8-byte words into room made
// once, each costs no call to memmove and no growth check, which made up
// half of the time spent turning indices into text.
func (d *chunkDecoder) appendDictValues(text []byte, ends []int32, idx []uint32) ([]byte, []int32) {
	src, offs := d.dict.text[:cap(d.dict.text)], d.dict.ends
	ends = slices.Grow(ends, len(idx))
	at := len(text)
	text = text[:cap(text)]
	for _, ix := range idx {
		start := 0
		if ix > 0 {
			start = offs[ix-1]
		}
		end := offs[ix]
		if n := end - start; n <= wordCopy && start+wordCopy <= len(src) && at+wordCopy <= len(text) {
			dst := text[at : at+wordCopy]
			binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src[start:]))
			binary.LittleEndian.PutUint64(dst[8:], binary.LittleEndian.Uint64(src[start+8:]))
			at += n
		} else {
			text = append(text[:at], src[start:end]...)
			at = len(text)
			text = text[:cap(text)]
		}
		ends = append(ends, int32(at))
	}
	return text[:at], ends
}

// appendFalse appends n false values to s.
func appendFalse(s []bool, n int) []bool {
	s = slices.Grow(s, n)
	s = s[:len(s)+n]
	clear(s[len(s)-n:])
	return s
}

// nextWindow decodes the levels and indices of the next k values, up to n
// and within one data page (reading pages up to one that holds values),
// as nextLevels gives them.
func (d *chunkDecoder) nextWindow(n int) (k int, defs, idx []uint32, err error) {
	for d.levels == 0 {
		if err := d.nextPage(); err != nil {
			return 0, nil, nil, err
		}
	}
	k = min(n, d.levels)
	d.levels -= k
	defs, idx, err = d.nextLevels(k)
	return k, defs, idx, err
}

// nextLevels decodes the definition levels of the page's next k values (nil
// when the column is required) and, on a dictionary-encoded page, the
// indices of those that are not null (nil otherwise).
func (d *chunkDecoder) nextLevels(k int) (defs, idx []uint32, err error) {
	nonNull := k
	if d.nullable {
		d.defs = slices.Grow(d.defs[:0], k)[:k]
		if err := d.defDec.read(d.defs); err != nil {
			return nil, nil, err
		}
		nonNull = 0
		for _, v := range d.defs {
			if v > 1 {
				return nil, nil, directErrorf("definition level over the maximum")
			}
			nonNull += int(v)
		}
		defs = d.defs
	}
	if !d.useDict {
		return defs, nil, nil
	}
	d.idx = slices.Grow(d.idx[:0], nonNull)[:nonNull]
	if err := d.idxDec.read(d.idx); err != nil {
		return nil, nil, err
	}
	for _, v := range d.idx {
		if int(v) >= d.dictSize {
			return nil, nil, directErrorf("dictionary index out of range")
		}
	}
	return defs, d.idx, nil
}

// finish checks that the chunk holds no values past those read.
func (d *chunkDecoder) finish() error {
	for d.levels == 0 && d.left > 0 {
		if err := d.nextPage(); err != nil {
			return err
		}
	}
	if d.levels > 0 {
		return directErrorf("the column chunk holds more values than its row group has rows")
	}
	return nil
}

// plainNum decodes the next PLAIN value of a typed column.
func (d *chunkDecoder) plainNum() (int64, error) {
	p := d.plain
	switch d.kind {
	case pqInt32, pqDate:
		if len(p) < 4 {
			return 0, directErrorf("PLAIN values run short")
		}
		d.plain = p[4:]
		return int64(int32(binary.LittleEndian.Uint32(p))), nil
	case pqInt64, pqTimestamp, pqDouble:
		if len(p) < 8 {
			return 0, directErrorf("PLAIN values run short")
		}
		d.plain = p[8:]
		v := int64(binary.LittleEndian.Uint64(p))
		if d.kind == pqDouble {
			v = columnar.CanonicalFloat(v)
		}
		return v, nil
	}
	return 0, directErrorf("value kind %d is not typed", d.kind)
}

// appendNums appends the next n values of the chunk of a typed column to
// col, which CanType(d.typed), as values.
func (d *chunkDecoder) appendNums(col *columnar.Column, n int) error {
	col.SetKind(d.typed)
	nums, ends, nulls := slices.Grow(col.Nums, n), slices.Grow(col.Ends, n), slices.Grow(col.Nulls, n)
	defer func() { col.Nums, col.Ends, col.Nulls = nums, ends, nulls }()
	for n > 0 {
		k, defs, idx, err := d.nextWindow(n)
		if err != nil {
			return err
		}
		n -= k
		for j := range k {
			if defs != nil && defs[j] == 0 {
				nums, ends, nulls = append(nums, 0), append(ends, 0), append(nulls, true)
				continue
			}
			var v int64
			if idx != nil {
				v, idx = d.dictNums[idx[0]], idx[1:]
			} else if v, err = d.plainNum(); err != nil {
				return err
			}
			nums, ends, nulls = append(nums, v), append(ends, 0), append(nulls, false)
		}
	}
	return nil
}

// appendPlain decodes the next PLAIN value and appends its text.
func (d *chunkDecoder) appendPlain(dst []byte) ([]byte, error) {
	p := d.plain
	switch d.kind {
	case pqBool:
		if d.bit>>3 >= len(p) {
			return dst, directErrorf("PLAIN booleans run short")
		}
		v := p[d.bit>>3]>>(d.bit&7)&1 == 1
		d.bit++
		return strconv.AppendBool(dst, v), nil
	case pqInt32, pqDate, pqFloat:
		if len(p) < 4 {
			return dst, directErrorf("PLAIN values run short")
		}
		v := binary.LittleEndian.Uint32(p)
		d.plain = p[4:]
		switch d.kind {
		case pqInt32:
			return strconv.AppendInt(dst, int64(int32(v)), 10), nil
		case pqDate:
			return appendEpochDate(dst, int64(int32(v))), nil
		}
		dst, _ = appendFloat(dst, float64(math.Float32frombits(v)), 32)
		return dst, nil
	case pqInt64, pqTimestamp, pqDouble:
		if len(p) < 8 {
			return dst, directErrorf("PLAIN values run short")
		}
		v := binary.LittleEndian.Uint64(p)
		d.plain = p[8:]
		switch d.kind {
		case pqInt64:
			return strconv.AppendInt(dst, int64(v), 10), nil
		case pqTimestamp:
			return appendUnixTimestamp(dst, int64(v), d.unit), nil
		}
		dst, _ = appendFloat(dst, math.Float64frombits(v), 64)
		return dst, nil
	case pqString, pqBinary:
		if len(p) < 4 {
			return dst, directErrorf("PLAIN byte array runs short")
		}
		n := binary.LittleEndian.Uint32(p)
		if uint64(n) > uint64(len(p)-4) {
			return dst, directErrorf("PLAIN byte array runs short")
		}
		v := p[4 : 4+n]
		d.plain = p[4+n:]
		if d.kind == pqString {
			return append(dst, v...), nil
		}
		return appendBinary(dst, v), nil
	}
	return dst, directErrorf("unknown value kind %d", d.kind)
}

// nextPage reads pages up to the next data page that holds values.
func (d *chunkDecoder) nextPage() error {
	for {
		if d.left <= 0 {
			return directErrorf("the column chunk ends before its row group's rows")
		}
		cr := &countingByteReader{r: d.br, limit: min(int64(maxPageHeaderBytes), d.left)}
		h, err := readPageHeader(cr)
		if err != nil {
			return directErrorf("page header: %v", err)
		}
		d.left -= cr.n
		if h.compressed < 0 || h.uncompressed < 0 || int64(h.compressed) > d.left || int64(h.uncompressed) > maxUncompressedPage {
			return directErrorf("page sizes")
		}
		if cap(d.body) < int(h.compressed) {
			d.body = make([]byte, h.compressed)
		}
		d.body = d.body[:h.compressed]
		if _, err := io.ReadFull(d.br, d.body); err != nil {
			return directErrorf("page body: %v", err)
		}
		d.left -= int64(h.compressed)
		switch h.typ {
		case pageDictionary:
			if err := d.readDictionary(h); err != nil {
				return err
			}
		case pageData, pageDataV2:
			if !h.hasNumValues || h.numValues < 0 {
				return directErrorf("data page without a value count")
			}
			if err := d.readDataPage(h); err != nil {
				return err
			}
			if d.levels > 0 {
				return nil
			}
		default: // index pages hold no values
		}
	}
}

// decompress returns the n bytes src decompresses to.
func (d *chunkDecoder) decompress(src []byte, n int) ([]byte, error) {
	if d.codec == nil {
		if len(src) != n {
			return nil, directErrorf("uncompressed page of the wrong size")
		}
		return src, nil
	}
	if cap(d.page) < n {
		d.page = make([]byte, max(n, min(2*cap(d.page), 4<<20))) // pages vary in size: fewer reallocations, but no slack past 4 MiB
	}
	out, err := compress.Decode(d.codec, d.page[:n], src)
	if err != nil || len(out) != n {
		return nil, directErrorf("decompressing a page")
	}
	return out, nil
}

func (d *chunkDecoder) readDictionary(h pageHeader) error {
	if d.hasDict || !h.hasNumValues || h.numValues < 0 || (h.encoding != encPlain && h.encoding != encPlainDictionary) {
		return directErrorf("dictionary page")
	}
	page, err := d.decompress(d.body, int(h.uncompressed))
	if err != nil {
		return err
	}
	d.plain, d.bit = page, 0
	if d.typed != columnar.Text {
		return d.readNumDictionary(int(h.numValues))
	}
	d.dict.text, d.dict.ends = d.dict.text[:0], d.dict.ends[:0]
	if cap(d.dict.ends) < int(h.numValues) && int(h.numValues) <= len(page) { // each value takes a byte at least (a bit for booleans)
		d.dict.ends = make([]int, 0, h.numValues)
	}
	for range h.numValues {
		if d.dict.text, err = d.appendPlain(d.dict.text); err != nil {
			return err
		}
		d.dict.ends = append(d.dict.ends, len(d.dict.text))
	}
	d.dict.text = slices.Grow(d.dict.text, wordCopy) // appendDictValues reads past the last value
	d.dictLongest = 0
	start := 0
	for _, end := range d.dict.ends {
		d.dictLongest = max(d.dictLongest, end-start)
		start = end
	}
	d.hasDict, d.dictSize = true, len(d.dict.ends)
	d.dictName, d.coded = columnar.NewDict(), len(d.dict.ends) <= maxCodedDict
	return nil
}

// readNumDictionary decodes the n values of a typed column's dictionary
// page, which d.plain holds.
func (d *chunkDecoder) readNumDictionary(n int) error {
	d.dictNums = d.dictNums[:0]
	if n > len(d.plain) { // each value takes 4 bytes at least
		return directErrorf("PLAIN values run short")
	}
	for range n {
		v, err := d.plainNum()
		if err != nil {
			return err
		}
		d.dictNums = append(d.dictNums, v)
	}
	d.hasDict, d.dictSize, d.coded = true, n, false
	return nil
}

func (d *chunkDecoder) readDataPage(h pageHeader) error {
	n := int(h.numValues)
	var values []byte
	var levels []byte // the RLE definition levels, when nullable
	if h.typ == pageData {
		if h.repEncoding != encRLE && h.repEncoding != encBitPacked || (d.nullable && h.defEncoding != encRLE) {
			return directErrorf("level encoding")
		}
		page, err := d.decompress(d.body, int(h.uncompressed))
		if err != nil {
			return err
		}
		values = page
		if d.nullable {
			if len(page) < 4 {
				return directErrorf("definition levels run short")
			}
			size := binary.LittleEndian.Uint32(page)
			if uint64(size) > uint64(len(page)-4) {
				return directErrorf("definition levels run short")
			}
			levels, values = page[4:4+size], page[4+size:]
		}
	} else {
		if h.repLen != 0 || h.defLen < 0 || int(h.defLen) > len(d.body) || (!d.nullable && h.defLen != 0) {
			return directErrorf("level lengths")
		}
		levels, values = d.body[:h.defLen], d.body[h.defLen:]
		if h.isCompressed {
			var err error
			if values, err = d.decompress(values, int(h.uncompressed)-int(h.defLen)); err != nil {
				return err
			}
		} else if len(values) != int(h.uncompressed)-int(h.defLen) {
			return directErrorf("uncompressed page of the wrong size")
		}
	}

	if d.nullable {
		d.defDec.reset(levels, 1)
	}
	switch h.encoding {
	case encPlain:
		d.useDict, d.plain, d.bit = false, values, 0
	case encPlainDictionary, encRLEDictionary:
		if !d.hasDict || len(values) == 0 || values[0] > 32 {
			return directErrorf("dictionary indices")
		}
		d.useDict = true
		d.idxDec.reset(values[1:], int(values[0]))
	default:
		return directErrorf("encoding %d", h.encoding)
	}
	d.levels = n
	return nil
}

// hybridDecoder reads values of bit width bw in the RLE / bit-packing
// hybrid encoding of definition levels and dictionary indices, as many at a
// time as asked. A final bit-packed run may stop short of its declared
// groups, as long as it holds the values asked for. Runs of no values, which
// Arrow takes for the end of the data, are errors.
type hybridDecoder struct {
	src    []byte
	bw     int
	repeat int    // values left in the current repeated run
	value  uint32 // its value
	packed int    // values left in the current bit-packed run
	acc    uint64 // bits read from src and not used yet
	bits   int
}

func (h *hybridDecoder) reset(src []byte, bw int) { *h = hybridDecoder{src: src, bw: bw} }

// read fills dst with the next len(dst) values.
func (h *hybridDecoder) read(dst []uint32) error {
	if h.bw < 0 || h.bw > 32 {
		return directErrorf("bit width %d", h.bw)
	}
	mask := uint64(1)<<h.bw - 1
	for i := 0; i < len(dst); {
		switch {
		case h.repeat > 0:
			m := min(h.repeat, len(dst)-i)
			for j := range m {
				dst[i+j] = h.value
			}
			i += m
			h.repeat -= m
		case h.packed > 0:
			m := min(h.packed, len(dst)-i)
			for k := range m {
				if h.bits < h.bw && len(h.src) >= 8 {
					// As many whole bytes as the accumulator has room for,
					// in one load, but none past the run (it ends on a
					// byte, and the next run's header follows): a value
					// takes one refill, not one per byte.
					n := min((63-h.bits)>>3, (min(h.packed-k, 64)*h.bw-h.bits)>>3)
					h.acc |= (binary.LittleEndian.Uint64(h.src) & (1<<(8*n) - 1)) << h.bits
					h.src = h.src[n:]
					h.bits += 8 * n
				}
				for h.bits < h.bw {
					if len(h.src) == 0 {
						return directErrorf("bit-packed run runs short")
					}
					h.acc |= uint64(h.src[0]) << h.bits
					h.src = h.src[1:]
					h.bits += 8
				}
				dst[i] = uint32(h.acc & mask)
				h.acc >>= h.bw
				h.bits -= h.bw
				i++
			}
			h.packed -= m
		default:
			hdr, k := binary.Uvarint(h.src)
			if k <= 0 {
				return directErrorf("RLE run header")
			}
			h.src = h.src[k:]
			count := hdr >> 1
			if hdr&1 == 1 { // bit-packed groups of 8 values, least significant bit first
				if count == 0 || count > math.MaxInt32/8 {
					return directErrorf("bit-packed run length")
				}
				h.packed, h.acc, h.bits = int(count*8), 0, 0
				continue
			}
			if count == 0 || count > math.MaxInt32 {
				return directErrorf("RLE run length")
			}
			byteWidth := (h.bw + 7) / 8
			if len(h.src) < byteWidth {
				return directErrorf("RLE run runs short")
			}
			var v uint32
			for b := range byteWidth {
				v |= uint32(h.src[b]) << (8 * b)
			}
			h.src = h.src[byteWidth:]
			h.repeat, h.value = int(count), v
		}
	}
	return nil
}
