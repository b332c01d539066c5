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
	nullable bool           // the maximum definition level is 1, not 0
}

// errDirect marks a page the direct path does not decode. It never reaches
// a caller: the Arrow path rereads the rows and words any error.
var errDirect = errors.New("parquet direct decoding")

func directErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errDirect, fmt.Sprintf(format, args...))
}

// chunkDecoder decodes the values of one column chunk, in row order.
type chunkDecoder struct {
	directColumn
	codec compress.Codec // nil when the chunk is not compressed
	br    *bufio.Reader
	left  int64 // bytes of the chunk not read yet

	body, page []byte    // the page as stored, and decompressed
	dict       formatted // the dictionary's values, formatted
	valueBytes int       // text per value in the last rows appended
	hasDict    bool

	// The current data page.
	levels  int      // values (null or not) not decoded yet
	defs    []uint32 // definition levels of the page's values, when nullable
	defBuf  []uint32 // holds defs
	dpos    int      // next of defs
	useDict bool
	idx     []uint32 // dictionary indices of the non-null values
	ipos    int      // next of idx
	plain   []byte   // PLAIN values not decoded yet
	bit     int      // next bit of plain, for booleans
}

// open positions d at the start of column chunk col of the file.
func (d *chunkDecoder) open(f io.ReaderAt, fileSize int64, col *metadata.ColumnChunkMetaData) error {
	start := col.DataPageOffset()
	if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && col.DictionaryPageOffset() < start {
		start = col.DictionaryPageOffset()
	}
	length := col.TotalCompressedSize()
	if start < 4 || length < 0 || start > fileSize || length > fileSize-start {
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
	sr := io.NewSectionReader(f, start, length)
	if d.br == nil {
		d.br = bufio.NewReaderSize(sr, 64<<10)
	} else {
		d.br.Reset(sr)
	}
	d.left = length
	d.hasDict, d.levels = false, 0
	return nil
}

// maxReserve bounds the text appendRows makes room for at once.
const maxReserve = 16 << 20

// appendRows appends the next n values of the chunk to col.
func (d *chunkDecoder) appendRows(col *columnar.Column, n int) error {
	// Room for the rows at once, by the size of the last rows' values:
	// append grows large slices by a quarter at a time, each time copying
	// them into fresh memory.
	start := len(col.Text)
	text := slices.Grow(col.Text, min(n*d.valueBytes+n/8, maxReserve))
	ends, nulls := slices.Grow(col.Ends, n), slices.Grow(col.Nulls, n)
	rows := n
	defer func() {
		if rows > 0 {
			d.valueBytes = (len(text) - start + rows - 1) / rows
		}
		col.Text, col.Ends, col.Nulls = text, ends, nulls
	}()
	for n > 0 {
		if d.levels == 0 {
			if err := d.nextPage(); err != nil {
				return err
			}
			continue
		}
		k := min(n, d.levels)
		d.levels -= k
		n -= k
		for ; k > 0; k-- {
			if d.defs != nil {
				def := d.defs[d.dpos]
				d.dpos++
				if def == 0 {
					ends = append(ends, int32(len(text)))
					nulls = append(nulls, true)
					continue
				}
			}
			if d.useDict {
				if d.ipos >= len(d.idx) {
					return directErrorf("fewer dictionary indices than values")
				}
				text = append(text, d.dict.value(int(d.idx[d.ipos]))...)
				d.ipos++
			} else {
				var err error
				if text, err = d.appendPlain(text); err != nil {
					return err
				}
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
		d.page = make([]byte, max(n, 2*cap(d.page))) // pages vary in size: fewer reallocations
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
	d.hasDict = true
	return nil
}

// maxPageValues bounds the values of a page decoded here: its levels and
// indices are decoded whole (4 bytes each), and a corrupt header could ask
// for billions. Arrow, which decodes in batches, reads larger pages. A
// variable so that tests can lower it.
var maxPageValues = 1 << 22

func (d *chunkDecoder) readDataPage(h pageHeader) error {
	n := int(h.numValues)
	if n > maxPageValues {
		return directErrorf("%d values in a page", n)
	}
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
		}
	}

	nonNull := n
	d.defs, d.dpos = nil, 0
	if d.nullable {
		defs, err := decodeHybrid(d.defBuf[:0], levels, 1, n)
		if err != nil {
			return err
		}
		d.defBuf = defs
		nonNull = 0
		for _, v := range defs {
			if v > 1 {
				return directErrorf("definition level over the maximum")
			}
			nonNull += int(v)
		}
		d.defs = defs
	}

	switch h.encoding {
	case encPlain:
		d.useDict, d.plain, d.bit = false, values, 0
	case encPlainDictionary, encRLEDictionary:
		if !d.hasDict || len(values) == 0 || values[0] > 32 {
			return directErrorf("dictionary indices")
		}
		idx, err := decodeHybrid(d.idx[:0], values[1:], int(values[0]), nonNull)
		if err != nil {
			return err
		}
		d.idx = idx
		for _, k := range idx {
			if int(k) >= len(d.dict.ends) {
				return directErrorf("dictionary index out of range")
			}
		}
		d.useDict, d.ipos = true, 0
	default:
		return directErrorf("encoding %d", h.encoding)
	}
	d.levels = n
	return nil
}

// decodeHybrid decodes n values of bit width bw from src, in the RLE /
// bit-packing hybrid encoding of definition levels and dictionary indices,
// appending them to dst. A final bit-packed run may stop short of its
// declared groups, as long as it holds the values asked for.
func decodeHybrid(dst []uint32, src []byte, bw, n int) ([]uint32, error) {
	if bw < 0 || bw > 32 {
		return dst, directErrorf("bit width %d", bw)
	}
	if cap(dst) < n {
		dst = make([]uint32, 0, n) // at once, not by doubling
	}
	byteWidth := (bw + 7) / 8
	mask := uint64(1)<<bw - 1
	for len(dst) < n {
		h, k := binary.Uvarint(src)
		if k <= 0 {
			return dst, directErrorf("RLE run header")
		}
		src = src[k:]
		if h>>1 > math.MaxInt32 {
			return dst, directErrorf("RLE run length")
		}
		want := uint64(n - len(dst))
		if h&1 == 0 { // a repeated value
			if len(src) < byteWidth {
				return dst, directErrorf("RLE run runs short")
			}
			var v uint32
			for b := range byteWidth {
				v |= uint32(src[b]) << (8 * b)
			}
			src = src[byteWidth:]
			for range min(h>>1, want) {
				dst = append(dst, v)
			}
			continue
		}
		// Bit-packed groups of 8 values, least significant bit first.
		count := min((h>>1)*8, want)
		need := (count*uint64(bw) + 7) / 8
		if uint64(len(src)) < need {
			return dst, directErrorf("bit-packed run runs short")
		}
		var acc uint64
		bits, p := 0, 0
		for range count {
			for bits < bw {
				acc |= uint64(src[p]) << bits
				p++
				bits += 8
			}
			dst = append(dst, uint32(acc&mask))
			acc >>= bw
			bits -= bw
		}
		src = src[min(uint64(len(src)), (h>>1)*uint64(bw)):]
	}
	return dst, nil
}
