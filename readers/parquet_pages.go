package readers

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math/bits"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// Page-level checks arrow-go does not do: every page header of a column
// chunk is decoded here first, so that
//   - a page CRC, when the writer stored one, is verified (arrow-go never
//     checks them);
//   - a page body must end inside its column chunk (arrow-go pads chunks of
//     old writers and would otherwise read past a truncated page);
//   - declared page sizes are sane and under the memory limits before the
//     library allocates for them.

const (
	// maxPageHeaderBytes bounds a page header. Real ones take a few hundred
	// bytes (statistics included); arrow-go's page reader grows its stream
	// buffer to hold a header and keeps it for the chunk, so that 1,000
	// columns of 3 MB headers took 4 GB (and 30 ms each to parse).
	maxPageHeaderBytes = 256 << 10
	maxThriftDepth     = 32
)

type pageHeader struct {
	typ          int32
	uncompressed int32
	compressed   int32
	crc          int32
	hasCRC       bool
	hasSizes     [2]bool
	pageSubHeader
}

// pageSubHeader is what the sub-header matching the page's type says
// (DataPageHeader, DictionaryPageHeader or DataPageHeaderV2). A header may
// carry others; as for Arrow, they are ignored.
type pageSubHeader struct {
	set          uint16 // bit i: field i was read
	numValues    int32
	hasNumValues bool
	encoding     int32
	defEncoding  int32 // DataPageHeader (v1) level encodings
	repEncoding  int32
	present      bool
	numNulls     int32 // DataPageHeaderV2
	defLen       int32
	repLen       int32
	isCompressed bool
}

// Page types and encodings of parquet.thrift used below.
const (
	pageData       = 0
	pageDictionary = 2
	pageDataV2     = 3

	encPlain           = 0
	encPlainDictionary = 2
	encRLE             = 3
	encBitPacked       = 4
	encDeltaByteArray  = 7
	encRLEDictionary   = 8
)

// chunkPages is what the pages of a column chunk declare, as the memory a
// reader of the chunk holds: its dictionary page, decoded for the whole
// chunk, and one data page at a time, as stored and decompressed.
type chunkPages struct {
	dictionary   int64 // uncompressed bytes of the dictionary page
	dictValues   int64 // values of the dictionary page
	largest      int64 // compressed plus uncompressed bytes of the largest data page
	uncompressed int64 // uncompressed bytes of every page
	header       int64 // bytes of the largest page header

	// What bounds a value's length, for readers that copy values out in
	// batches (the plain path): the values of PLAIN (and delta-length)
	// pages lie in their page; dictionary-encoded values are copies of
	// dictionary values; DELTA_BYTE_ARRAY values are prefixes of earlier
	// ones and grow without bound.
	plainFewest  int64 // fewest values of a data page whose values lie in it (0: none)
	plainLargest int64 // uncompressed bytes of the largest such page
	dictEncoded  bool  // some data page is dictionary-encoded
	unbounded    bool  // some data page's values are not bounded by a page
}

// held is the most memory a reader of the chunk holds for its pages: the
// dictionary page twice (decompressed, and decoded into values that may
// copy it) and a slice entry for each of its values, its largest data
// page, and the stream buffer the largest page header grew.
func (c chunkPages) held() int64 {
	return 2*c.dictionary + 24*c.dictValues + c.largest + 2*int64(nextPow2(c.header))
}

func nextPow2(n int64) int64 {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len64(uint64(n-1))
}

// checkColumnChunk walks the pages of one column chunk and returns what
// they declare.
func checkColumnChunk(r io.ReaderAt, fileSize int64, col *metadata.ColumnChunkMetaData, descr *schema.Column, maxUncompressed int64, where string) (chunkPages, error) {
	var pages chunkPages
	err := walkColumnChunk(r, fileSize, col, descr, maxUncompressed, where, func(h pageHeader, headerBytes int64) {
		pages.uncompressed += int64(h.uncompressed)
		pages.header = max(pages.header, headerBytes)
		switch {
		case h.typ == pageDictionary:
			pages.dictionary += int64(h.uncompressed)
			pages.dictValues += int64(h.numValues)
		case h.typ == pageData || h.typ == pageDataV2:
			pages.largest = max(pages.largest, int64(h.compressed)+int64(h.uncompressed))
			switch h.encoding {
			case encPlainDictionary, encRLEDictionary:
				pages.dictEncoded = true
			case encDeltaByteArray:
				pages.unbounded = true
			default:
				pages.plainLargest = max(pages.plainLargest, int64(h.uncompressed))
				if pages.plainFewest == 0 || int64(h.numValues) < pages.plainFewest {
					pages.plainFewest = max(1, int64(h.numValues))
				}
			}
		}
	})
	return pages, err
}

// walkColumnChunk checks the pages of one column chunk, calling page with
// each header that passed and the header's length.
func walkColumnChunk(r io.ReaderAt, fileSize int64, col *metadata.ColumnChunkMetaData, descr *schema.Column, maxUncompressed int64, where string, page func(pageHeader, int64)) error {
	start, length, ok := chunkLocation(col, fileSize)
	if !ok {
		return malformedf("%s: column chunk location (offset %d, %d bytes) lies outside the file (%d bytes)", where, start, length, fileSize)
	}
	end := start + length
	pos := start
	br := bufio.NewReaderSize(io.NewSectionReader(r, pos, length), int(min(64<<10, max(16, length))))
	var body []byte
	dictChecked := false
	dictValues := int64(-1) // of the dictionary page, once read
	for n := 1; pos < end; n++ {
		cr := &countingByteReader{r: br, limit: min(int64(maxPageHeaderBytes), end-pos)}
		h, err := readPageHeader(cr)
		if err != nil {
			if errors.Is(err, errHeaderTooLong) && cr.limit < maxPageHeaderBytes {
				return malformedf("%s: page %d header runs past the end of the column chunk", where, n)
			}
			if errors.Is(err, errHeaderTooLong) {
				return unsupportedf("%s: page %d header is longer than the %s limit", where, n, humanBytes(maxPageHeaderBytes))
			}
			return malformedf("%s: page %d header at offset %d is corrupt: %v", where, n, pos, err)
		}
		if !h.hasSizes[0] || !h.hasSizes[1] || h.compressed < 0 || h.uncompressed < 0 {
			return malformedf("%s: page %d header has missing or negative sizes", where, n)
		}
		if h.hasNumValues && h.numValues < 0 {
			return malformedf("%s: page %d header has a negative value count", where, n)
		}
		bodyStart := pos + cr.n
		bodyEnd := bodyStart + int64(h.compressed)
		if bodyEnd > end {
			return malformedf("%s: page %d body (%d bytes at offset %d) runs past the end of the column chunk at offset %d", where, n, h.compressed, bodyStart, end)
		}
		if int64(h.uncompressed) > maxUncompressed {
			return unsupportedf("%s: page %d holds %s uncompressed, more than the %s limit", where, n, humanBytes(int(h.uncompressed)), humanBytes(int(maxUncompressed)))
		}
		if int64(h.compressed) > maxUncompressed {
			return unsupportedf("%s: page %d holds %s compressed, more than the %s limit", where, n, humanBytes(int(h.compressed)), humanBytes(int(maxUncompressed)))
		}
		if h.typ == pageDictionary {
			// arrow-go sizes the decoded dictionary by its value count.
			if !h.hasNumValues || h.numValues < 0 || int64(h.numValues)*valueBits(descr) > 8*int64(h.uncompressed) {
				return malformedf("%s: page %d: the dictionary page declares %d values, more than its %d bytes hold", where, n, h.numValues, h.uncompressed)
			}
			dictValues = int64(h.numValues)
		}
		dictData := (h.typ == pageData || h.typ == pageDataV2) &&
			(h.encoding == encRLEDictionary || h.encoding == encPlainDictionary)
		checkDict := dictData && !dictChecked
		switch {
		case h.hasCRC || checkDict:
			if cap(body) < int(h.compressed) {
				body = make([]byte, h.compressed)
			}
			body = body[:h.compressed]
			if _, err := io.ReadFull(br, body); err != nil {
				return malformedf("%s: page %d: reading the page body: %v", where, n, err)
			}
			if h.hasCRC {
				if sum := crc32.ChecksumIEEE(body); sum != uint32(h.crc) {
					return malformedf("%s: page %d checksum mismatch (stored %08x, computed %08x): the page is corrupt", where, n, uint32(h.crc), sum)
				}
			}
			if checkDict {
				dictChecked = true
				if err := checkDictIndexWidth(h, body, col, descr, dictValues); err != nil {
					return malformedf("%s: page %d: %v", where, n, err)
				}
			}
		case int(h.compressed) <= br.Buffered():
			br.Discard(int(h.compressed))
		default:
			br.Reset(io.NewSectionReader(r, bodyEnd, end-bodyEnd))
		}
		page(h, cr.n)
		pos = bodyEnd
	}
	return nil
}

// chunkLocation returns where column chunk col lies in a file of fileSize
// bytes: from its dictionary page, if it comes first, to the end of its
// pages. ok is false when that is not inside the file.
func chunkLocation(col *metadata.ColumnChunkMetaData, fileSize int64) (start, length int64, ok bool) {
	start = col.DataPageOffset()
	if col.HasDictionaryPage() && col.DictionaryPageOffset() > 0 && col.DictionaryPageOffset() < start {
		start = col.DictionaryPageOffset()
	}
	length = col.TotalCompressedSize()
	ok = start >= 4 && length >= 0 && start <= fileSize && length <= fileSize-start
	return start, length, ok
}

var errHeaderTooLong = errors.New("page header too long")

type countingByteReader struct {
	r     *bufio.Reader
	n     int64
	limit int64
}

func (c *countingByteReader) ReadByte() (byte, error) {
	if c.n >= c.limit {
		return 0, errHeaderTooLong
	}
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	} else if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

func (c *countingByteReader) skip(n int64) error {
	if n < 0 || c.n+n > c.limit {
		return errHeaderTooLong
	}
	d, err := c.r.Discard(int(n))
	c.n += int64(d)
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// Thrift compact protocol type ids.
const (
	tBoolTrue  = 1
	tBoolFalse = 2
	tByte      = 3
	tI16       = 4
	tI32       = 5
	tI64       = 6
	tDouble    = 7
	tBinary    = 8
	tList      = 9
	tSet       = 10
	tMap       = 11
	tStruct    = 12
)

func readPageHeader(r *countingByteReader) (pageHeader, error) {
	var h pageHeader
	// The sub-headers as read: DataPageHeader, DictionaryPageHeader,
	// DataPageHeaderV2. The page's type, which may come after them, picks one.
	var subs [3]pageSubHeader
	for i := range subs {
		subs[i].isCompressed = true
	}
	i32 := func(dst *int32) (bool, error) {
		v, err := readI32(r)
		*dst = v
		return true, err
	}
	hasType := false
	err := readStruct(r, 0, func(id int16, typ byte) (bool, error) {
		switch {
		case id == 1 && typ == tI32:
			hasType = true
			return i32(&h.typ)
		case id == 2 && typ == tI32:
			h.hasSizes[0] = true
			return i32(&h.uncompressed)
		case id == 3 && typ == tI32:
			h.hasSizes[1] = true
			return i32(&h.compressed)
		case id == 4 && typ == tI32:
			h.hasCRC = true
			return i32(&h.crc)
		case (id == 5 || id == 7) && typ == tStruct:
			// DataPageHeader / DictionaryPageHeader.
			s := &subs[0]
			if id == 7 {
				s = &subs[1]
			}
			s.present = true
			return true, readStruct(r, 1, func(id int16, typ byte) (bool, error) {
				if typ != tI32 {
					return false, nil
				}
				if id >= 1 && id <= 4 {
					s.set |= 1 << id
				}
				switch id {
				case 1:
					s.hasNumValues = true
					return i32(&s.numValues)
				case 2:
					return i32(&s.encoding)
				case 3:
					return i32(&s.defEncoding)
				case 4:
					return i32(&s.repEncoding)
				}
				return false, nil
			})
		case id == 8 && typ == tStruct:
			// DataPageHeaderV2.
			s := &subs[2]
			s.present = true
			return true, readStruct(r, 1, func(id int16, typ byte) (bool, error) {
				if id == 7 && (typ == tBoolTrue || typ == tBoolFalse) {
					s.isCompressed = typ == tBoolTrue
					return true, nil
				}
				if typ != tI32 {
					return false, nil
				}
				if id >= 1 && id <= 6 {
					s.set |= 1 << id
				}
				switch id {
				case 1:
					s.hasNumValues = true
					return i32(&s.numValues)
				case 2:
					return i32(&s.numNulls)
				case 4:
					return i32(&s.encoding)
				case 5:
					return i32(&s.defLen)
				case 6:
					return i32(&s.repLen)
				}
				return false, nil
			})
		}
		return false, nil
	})
	if err != nil {
		return h, err
	}
	// The fields parquet.thrift requires, which arrow-go's decoder requires
	// too: a header it refuses must be refused here, or the direct path
	// would read pages that Next fails on.
	if !hasType {
		return h, errors.New("the page type is missing")
	}
	for i, need := range [3]uint16{0b11110, 0b110, 0b1111110} {
		if subs[i].present && subs[i].set&need != need {
			return h, fmt.Errorf("the %s lacks a required field", [3]string{"data page header", "dictionary page header", "data page header v2"}[i])
		}
	}
	switch h.typ {
	case pageData:
		h.pageSubHeader = subs[0]
	case pageDictionary:
		h.pageSubHeader = subs[1]
	case pageDataV2:
		h.pageSubHeader = subs[2]
	default:
		h.pageSubHeader = pageSubHeader{isCompressed: true}
	}
	return h, nil
}

// valueBits is the fewest bits a value of column d takes in a PLAIN page:
// a dictionary page of n values holds at least n times that.
func valueBits(d *schema.Column) int64 {
	switch d.PhysicalType() {
	case parquet.Types.Boolean:
		return 1
	case parquet.Types.Int32, parquet.Types.Float, parquet.Types.ByteArray: // a byte array: its 4-byte length
		return 32
	case parquet.Types.Int64, parquet.Types.Double:
		return 64
	case parquet.Types.Int96:
		return 96
	case parquet.Types.FixedLenByteArray:
		return 8 * int64(max(1, d.TypeLength()))
	}
	return 1
}

// checkDictIndexWidth checks the bit width that starts the dictionary
// indices of a data page: at most 32, and no wider than the dictionary's
// values need (plus one bit) when its size is known (dictValues >= 0):
// a wider one can address entries far past the dictionary, and arrow-go's
// dictionary converter sizes a slice by the largest index. (A width of 0
// is valid: parquet-mr writes it for single-entry dictionaries.)
func checkDictIndexWidth(h pageHeader, body []byte, col *metadata.ColumnChunkMetaData, descr *schema.Column, dictValues int64) error {
	decode := func(src []byte, n int) ([]byte, error) { return decompressPage(col, src, n) }
	var err error
	var vals []byte
	hasValues := false
	if h.typ == pageDataV2 {
		levels := int(h.defLen) + int(h.repLen)
		if h.defLen < 0 || h.repLen < 0 || levels > len(body) {
			return errors.New("the level lengths exceed the page")
		}
		vals = body[levels:]
		if h.isCompressed && len(vals) > 0 {
			if vals, err = decode(vals, int(h.uncompressed)-levels); err != nil {
				return fmt.Errorf("decompressing: %w", err)
			}
		}
		hasValues = h.numValues-h.numNulls > 0
	} else {
		data, err := decode(body, int(h.uncompressed))
		if err != nil {
			return fmt.Errorf("decompressing: %w", err)
		}
		for _, lv := range []struct {
			max int16
			enc int32
		}{{descr.MaxRepetitionLevel(), h.repEncoding}, {descr.MaxDefinitionLevel(), h.defEncoding}} {
			if lv.max == 0 {
				continue
			}
			var n int
			switch lv.enc {
			case encRLE:
				if len(data) < 4 {
					return errors.New("truncated levels")
				}
				n = 4 + int(binary.LittleEndian.Uint32(data[:4]))
			case encBitPacked:
				n = (int(h.numValues)*bits.Len16(uint16(lv.max)) + 7) / 8
			default:
				return nil // unknown level encoding: leave it to the decoder
			}
			if n < 0 || n > len(data) {
				return errors.New("the levels run past the end of the page")
			}
			data = data[n:]
		}
		vals = data
		hasValues = len(vals) > 1
	}
	if len(vals) == 0 || !hasValues {
		return nil
	}
	if w := vals[0]; w > 32 {
		return fmt.Errorf("dictionary index bit width %d is invalid (at most 32)", w)
	}
	if w := int(vals[0]); dictValues >= 0 && w > bits.Len64(uint64(dictValues))+1 {
		return fmt.Errorf("dictionary index bit width %d is wider than a dictionary of %d values needs", w, dictValues)
	}
	return nil
}

// decompressPage returns the n bytes src, a page body of column chunk col,
// decompresses to.
func decompressPage(col *metadata.ColumnChunkMetaData, src []byte, n int) ([]byte, error) {
	if col.Compression() == compress.Codecs.Uncompressed {
		return src, nil
	}
	codec, err := compress.GetCodec(col.Compression())
	if err != nil {
		return nil, err
	}
	if n < 0 || int64(n) > maxUncompressedPage {
		return nil, fmt.Errorf("invalid uncompressed page size %d", n)
	}
	return compress.Decode(codec, make([]byte, n), src)
}

// longestDictValue returns the length of the longest value of the
// dictionary page of byte-array column chunk col, which starts the chunk
// (the page walk checked it). ok is false when the chunk has none, or its
// values do not parse as PLAIN byte arrays.
func longestDictValue(r io.ReaderAt, fileSize int64, col *metadata.ColumnChunkMetaData) (longest int, ok bool) {
	start, length, inFile := chunkLocation(col, fileSize)
	if !inFile {
		return 0, false
	}
	br := bufio.NewReaderSize(io.NewSectionReader(r, start, length), 4<<10)
	cr := &countingByteReader{r: br, limit: min(int64(maxPageHeaderBytes), length)}
	h, err := readPageHeader(cr)
	if err != nil || h.typ != pageDictionary || int64(h.compressed) > length-cr.n {
		return 0, false
	}
	body := make([]byte, h.compressed)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, false
	}
	page, err := decompressPage(col, body, int(h.uncompressed))
	if err != nil {
		return 0, false
	}
	for k := int32(0); k < h.numValues; k++ {
		if len(page) < 4 {
			return 0, false
		}
		n := binary.LittleEndian.Uint32(page)
		if uint64(n) > uint64(len(page)-4) {
			return 0, false
		}
		longest = max(longest, int(n))
		page = page[4+n:]
	}
	return longest, true
}

// readStruct reads a struct, calling field for each field header; field
// returns false to have the value skipped.
func readStruct(r *countingByteReader, depth int, field func(id int16, typ byte) (bool, error)) error {
	if depth > maxThriftDepth {
		return errors.New("nested too deeply")
	}
	var last int16
	for {
		b, err := r.ReadByte()
		if err != nil {
			return err
		}
		typ := b & 0x0f
		if typ == 0 {
			return nil // STOP
		}
		var id int16
		if delta := int16(b >> 4); delta != 0 {
			id = last + delta
		} else {
			v, err := readVarint(r)
			if err != nil {
				return err
			}
			id = int16(zigzag(v))
		}
		last = id
		handled := false
		if field != nil {
			if handled, err = field(id, typ); err != nil {
				return err
			}
		}
		if !handled {
			if err := skipValue(r, typ, depth+1, true); err != nil {
				return err
			}
		}
	}
}

func skipValue(r *countingByteReader, typ byte, depth int, inField bool) error {
	if depth > maxThriftDepth {
		return errors.New("nested too deeply")
	}
	switch typ {
	case tBoolTrue, tBoolFalse:
		if inField {
			return nil // the value is in the type nibble
		}
		_, err := r.ReadByte()
		return err
	case tByte:
		_, err := r.ReadByte()
		return err
	case tI16, tI32, tI64:
		_, err := readVarint(r)
		return err
	case tDouble:
		return r.skip(8)
	case tBinary:
		n, err := readVarint(r)
		if err != nil {
			return err
		}
		return r.skip(int64(n))
	case tList, tSet:
		n, et, err := readListHeader(r)
		if err != nil {
			return err
		}
		for i := int64(0); i < n; i++ {
			if err := skipValue(r, et, depth+1, false); err != nil {
				return err
			}
		}
		return nil
	case tMap:
		v, err := readVarint(r)
		if err != nil {
			return err
		}
		n := int64(v)
		if n == 0 {
			return nil
		}
		if n < 0 || n > r.limit-r.n {
			return fmt.Errorf("invalid map size %d", n)
		}
		kv, err := r.ReadByte()
		if err != nil {
			return err
		}
		for i := int64(0); i < n; i++ {
			if err := skipValue(r, kv>>4, depth+1, false); err != nil {
				return err
			}
			if err := skipValue(r, kv&0x0f, depth+1, false); err != nil {
				return err
			}
		}
		return nil
	case tStruct:
		return readStruct(r, depth, nil)
	}
	return fmt.Errorf("unknown thrift type %d", typ)
}

// readListHeader reads the header of a list or set: its length and the
// type of its elements. Every element takes a byte at least, so a length
// past the bytes left is a lie, refused before anyone sizes a slice by it.
func readListHeader(r *countingByteReader) (n int64, elem byte, err error) {
	b, err := r.ReadByte()
	if err != nil {
		return 0, 0, err
	}
	n = int64(b >> 4)
	if n == 15 {
		v, err := readVarint(r)
		if err != nil {
			return 0, 0, err
		}
		n = int64(v)
	}
	if n < 0 || n > r.limit-r.n {
		return 0, 0, fmt.Errorf("a list of %d elements runs past the end", n)
	}
	return n, b & 0x0f, nil
}

func readVarint(r *countingByteReader) (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := r.ReadByte()
		if err != nil {
			return 0, err
		}
		v |= uint64(b&0x7f) << shift
		if b&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("varint too long")
}

func zigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }

func readI32(r *countingByteReader) (int32, error) {
	v, err := readVarint(r)
	if err != nil {
		return 0, err
	}
	z := zigzag(v)
	if z < -1<<31 || z > 1<<31-1 {
		return 0, errors.New("i32 out of range")
	}
	return int32(z), nil
}
