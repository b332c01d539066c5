// Package hostile builds the files an attacker would upload to take a
// reader down: Parquet files whose metadata lies about what they hold,
// compression bombs, Parquet files shaped so that what a reader builds
// from them is far larger than they are, and text files of absurd shapes.
// Tests and fuzz seeds use them; every builder is deterministic and cheap
// in memory, however much the file claims to hold.
package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Parquet physical types, codecs, repetitions, converted types and
// encodings used here (parquet.thrift).
const (
	TypeInt32     int32 = 1
	TypeInt64     int32 = 2
	TypeInt96     int32 = 3
	TypeByteArray int32 = 6

	CodecUncompressed int32 = 0
	CodecSnappy       int32 = 1
	CodecZstd         int32 = 6

	Required int32 = 0
	Optional int32 = 1
	Repeated int32 = 2

	ConvertedUTF8    int32 = 0
	ConvertedList    int32 = 3
	ConvertedDecimal int32 = 5
	ConvertedInt8    int32 = 15

	encPlain         int32 = 0
	encRLE           int32 = 3
	encRLEDictionary int32 = 8
)

// Page is one page of a column chunk as written: its body, and what its
// header declares. A data page (v1) is PLAIN-encoded unless Encoding says
// otherwise, its levels (if any) at the head of its body; a dictionary
// page (Dictionary) holds PLAIN values.
type Page struct {
	Body             []byte
	UncompressedSize int32
	NumValues        int32
	Dictionary       bool
	Encoding         int32
	// HeaderPadding, when positive, adds to the page header a binary field
	// of that many zero bytes, under an id (15) that no version of the
	// format defines and a reader must skip.
	HeaderPadding int
}

// Column is a column chunk of a hand-built Parquet file. In a file whose
// schema is built from its columns, it is also a flat, required leaf.
type Column struct {
	Name  string
	Type  int32
	Codec int32
	Pages []Page
	// Path is the column's path in the schema; nil means {Name}.
	Path []string
	// Encodings is what the chunk declares it uses; nil means PLAIN, RLE
	// and RLE_DICTIONARY.
	Encodings []int32
}

// RowGroup is one row group: a chunk of each column, in schema order.
type RowGroup struct {
	Rows    int64
	Columns []Column
	// TotalByteSize, when set, is what the row group declares as its size
	// instead of the sum of its chunks' uncompressed sizes.
	TotalByteSize *int64
}

// SchemaElement is one element of a file's schema, written as given: a nil
// field is left out.
type SchemaElement struct {
	Type          *int32 // physical type; nil for a group
	Repetition    *int32
	Name          string
	NumChildren   *int32
	ConvertedType *int32
	// Decimal is written both as the element's scale and precision and as
	// its DECIMAL logical type.
	Decimal *Decimal
}

// Decimal is the scale and precision of a DECIMAL.
type Decimal struct{ Scale, Precision int32 }

// ParquetFile is a Parquet file built by hand, so that its metadata can
// say what the data does not.
type ParquetFile struct {
	// Columns are the chunks of the file's one row group, of Rows rows,
	// when neither Schema nor RowGroups is set.
	Columns []Column
	Rows    int64 // the file's rows, as declared
	// RowGroups are the file's row groups otherwise (none when nil).
	RowGroups []RowGroup
	// Schema, when set, is the file's schema, root first, depth first.
	// Otherwise the schema is a root and a flat, required leaf for each
	// column of the first row group (UTF8 for strings).
	Schema []SchemaElement
	// RootChildren, when set, is what the root of a schema built from the
	// columns declares as its number of children instead of their count.
	RootChildren *int32
	// SharedChunk writes the pages of the file's first column chunk only,
	// and declares every column chunk of every row group at them, with
	// their sizes and value count: a file of many chunks at the cost of
	// one. The other columns' pages are neither written nor looked at.
	SharedChunk bool
	// KeyValues is the file's key-value metadata.
	KeyValues [][2]string
}

// chunk is where a column chunk was laid out, and what its pages add up to.
type chunk struct {
	offset, data, dictionary         int64 // of its first page, first data page, dictionary page
	compressed, uncompressed, values int64
	hasDictionary                    bool
}

// Bytes lays the file out: magic, each column chunk, footer.
func (p ParquetFile) Bytes() []byte {
	groups := p.RowGroups
	if p.Schema == nil && p.RowGroups == nil {
		groups = []RowGroup{{Rows: p.Rows, Columns: p.Columns}}
	}
	out := []byte("PAR1")
	chunks := make([][]chunk, len(groups))
	var shared *chunk
	for g, rg := range groups {
		chunks[g] = make([]chunk, len(rg.Columns))
		for i, c := range rg.Columns {
			if shared != nil {
				chunks[g][i] = *shared
				continue
			}
			out, chunks[g][i] = appendChunk(out, c.Pages)
			if p.SharedChunk {
				shared = &chunks[g][i]
			}
		}
	}

	var m compact
	m.i32(1, 1) // version
	schema := p.Schema
	if schema == nil {
		schema = p.columnSchema(groups)
	}
	m.list(2, tStruct, len(schema))
	for _, e := range schema {
		e.write(&m)
	}
	m.i64(3, p.Rows)
	m.list(4, tStruct, len(groups))
	for g, rg := range groups {
		m.beginStruct(0) // RowGroup
		m.list(1, tStruct, len(rg.Columns))
		var total int64
		for i, c := range rg.Columns {
			ch := chunks[g][i]
			total += ch.uncompressed
			m.beginStruct(0) // ColumnChunk
			m.i64(2, ch.offset)
			m.beginStruct(3) // ColumnMetaData
			m.i32(1, c.Type)
			encodings := c.Encodings
			if encodings == nil {
				encodings = []int32{encPlain, encRLE, encRLEDictionary}
			}
			m.list(2, tI32, len(encodings))
			for _, e := range encodings {
				m.elemI32(e)
			}
			path := c.Path
			if path == nil {
				path = []string{c.Name}
			}
			m.list(3, tBinary, len(path))
			for _, s := range path {
				m.elemStr(s)
			}
			m.i32(4, c.Codec)
			m.i64(5, ch.values)
			m.i64(6, ch.uncompressed)
			m.i64(7, ch.compressed)
			m.i64(9, ch.data)
			if ch.hasDictionary {
				m.i64(11, ch.dictionary)
			}
			m.endStruct()
			m.endStruct()
		}
		if rg.TotalByteSize != nil {
			total = *rg.TotalByteSize
		}
		m.i64(2, total)
		m.i64(3, rg.Rows)
		m.endStruct() // RowGroup
	}
	if len(p.KeyValues) > 0 {
		m.list(5, tStruct, len(p.KeyValues))
		for _, kv := range p.KeyValues {
			m.beginStruct(0)
			m.str(1, kv[0])
			m.str(2, kv[1])
			m.endStruct()
		}
	}
	m.endStruct() // FileMetaData

	out = append(out, m.b...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.b)))
	return append(out, "PAR1"...)
}

// appendChunk appends a column chunk of pages to out.
func appendChunk(out []byte, pages []Page) ([]byte, chunk) {
	ch := chunk{offset: int64(len(out)), data: -1}
	for _, pg := range pages {
		h := pageHeader(pg)
		if pg.Dictionary {
			ch.hasDictionary = true
			ch.dictionary = int64(len(out))
		} else {
			if ch.data < 0 {
				ch.data = int64(len(out))
			}
			ch.values += int64(pg.NumValues)
		}
		out = append(out, h...)
		out = append(out, pg.Body...)
		ch.compressed += int64(len(h) + len(pg.Body))
		ch.uncompressed += int64(len(h)) + int64(pg.UncompressedSize)
	}
	if ch.data < 0 {
		ch.data = ch.offset
	}
	return out, ch
}

// columnSchema is the schema of a file without one: a root, then a flat,
// required leaf for each column of the first row group.
func (p ParquetFile) columnSchema(groups []RowGroup) []SchemaElement {
	var columns []Column
	if len(groups) > 0 {
		columns = groups[0].Columns
	}
	children := int32(len(columns))
	if p.RootChildren != nil {
		children = *p.RootChildren
	}
	schema := []SchemaElement{{Name: "schema", NumChildren: &children}}
	for _, c := range columns {
		e := leaf(c.Name, c.Type, Required)
		if c.Type == TypeByteArray {
			e = e.converted(ConvertedUTF8)
		}
		schema = append(schema, e)
	}
	return schema
}

// write writes e as a list element of m.
func (e SchemaElement) write(m *compact) {
	m.beginStruct(0)
	if e.Type != nil {
		m.i32(1, *e.Type)
	}
	if e.Repetition != nil {
		m.i32(3, *e.Repetition)
	}
	m.str(4, e.Name)
	if e.NumChildren != nil {
		m.i32(5, *e.NumChildren)
	}
	if e.ConvertedType != nil {
		m.i32(6, *e.ConvertedType)
	}
	if d := e.Decimal; d != nil {
		m.i32(7, d.Scale)
		m.i32(8, d.Precision)
		m.beginStruct(10) // LogicalType
		m.beginStruct(5)  // DECIMAL
		m.i32(1, d.Scale)
		m.i32(2, d.Precision)
		m.endStruct()
		m.endStruct()
	}
	m.endStruct()
}

// leaf is a leaf of the schema.
func leaf(name string, typ, repetition int32) SchemaElement {
	return SchemaElement{Type: new(typ), Repetition: new(repetition), Name: name}
}

// group is a group of the schema; a group of no children does not say so.
func group(name string, repetition int32, children int) SchemaElement {
	e := SchemaElement{Repetition: new(repetition), Name: name}
	if children > 0 {
		e.NumChildren = new(int32(children))
	}
	return e
}

// root is the root of a schema of children top-level fields.
func root(children int) SchemaElement { return group("schema", Required, children) }

// converted is e annotated with the converted type t.
func (e SchemaElement) converted(t int32) SchemaElement {
	e.ConvertedType = new(t)
	return e
}

// pageHeader is the thrift PageHeader of pg.
func pageHeader(pg Page) []byte {
	var h compact
	if pg.Dictionary {
		h.i32(1, 2) // DICTIONARY_PAGE
	} else {
		h.i32(1, 0) // DATA_PAGE
	}
	h.i32(2, pg.UncompressedSize)
	h.i32(3, int32(len(pg.Body)))
	if pg.Dictionary {
		h.beginStruct(7) // DictionaryPageHeader
		h.i32(1, pg.NumValues)
		h.i32(2, encPlain)
	} else {
		h.beginStruct(5) // DataPageHeader
		h.i32(1, pg.NumValues)
		h.i32(2, pg.Encoding)
		h.i32(3, encRLE)
		h.i32(4, encRLE)
	}
	h.endStruct()
	if pg.HeaderPadding > 0 {
		h.header(15, tBinary)
		h.b = binary.AppendUvarint(h.b, uint64(pg.HeaderPadding))
		h.b = append(h.b, make([]byte, pg.HeaderPadding)...)
	}
	h.endStruct()
	return h.b
}

// plainInt64Page is an uncompressed PLAIN page of the values 1..n.
func plainInt64Page(n int) Page {
	body := make([]byte, 0, 8*n)
	for i := 1; i <= n; i++ {
		body = binary.LittleEndian.AppendUint64(body, uint64(i))
	}
	return Page{Body: body, UncompressedSize: int32(len(body)), NumValues: int32(n)}
}

// LyingNumChildren is a valid one-column, one-row file whose schema root
// claims n children: a reader that sizes the schema by the claim asks for
// n nodes (2^31-1 of them is about 32 GiB).
func LyingNumChildren(n int32) []byte {
	return ParquetFile{
		Columns:      []Column{{Name: "id", Type: TypeInt64, Pages: []Page{plainInt64Page(1)}}},
		Rows:         1,
		RootChildren: &n,
	}.Bytes()
}

// SchemaTree is a file of no rows whose schema elements, in order, declare
// the given numbers of children (a leaf declares 0 and is an int64).
func SchemaTree(children []int32) []byte {
	f := ParquetFile{Schema: make([]SchemaElement, 0, len(children))}
	for i, n := range children {
		e := SchemaElement{Name: fmt.Sprintf("e%d", i)}
		if n == 0 {
			e.Type, e.Repetition = new(TypeInt64), new(Optional)
		} else {
			e.NumChildren = new(n)
		}
		f.Schema = append(f.Schema, e)
	}
	return f.Bytes()
}

// WideParquet is an honest file of cols int64 columns of one row: its
// footer, about 70 bytes a column, is most of it.
func WideParquet(cols int) []byte {
	f := ParquetFile{Rows: 1}
	for c := range cols {
		f.Columns = append(f.Columns, Column{Name: fmt.Sprintf("c%d", c), Type: TypeInt64, Pages: []Page{plainInt64Page(1)}})
	}
	return f.Bytes()
}

// LyingValueCount is a one-column file whose only page holds one value but
// declares n, as does the row group: a reader that sizes its buffers by
// the declaration asks for n values.
func LyingValueCount(n int32) []byte {
	pg := plainInt64Page(1)
	pg.NumValues = n
	return ParquetFile{
		Columns: []Column{{Name: "id", Type: TypeInt64, Pages: []Page{pg}}},
		Rows:    int64(n),
	}.Bytes()
}

// LyingPageSize is a file of columns string columns whose one page each
// declares declared bytes uncompressed while its zstd body holds a few
// bytes: a reader that allocates the declared size before decompressing
// asks for columns × declared bytes.
func LyingPageSize(columns int, declared int32) []byte {
	body := zstdOf(func(w *zstd.Encoder) { w.Write(plainString(repeat('x', 8))) })
	f := ParquetFile{Rows: 1}
	for c := range columns {
		f.Columns = append(f.Columns, Column{Name: fmt.Sprintf("c%d", c), Type: TypeByteArray, Codec: CodecZstd,
			Pages: []Page{{Body: body, UncompressedSize: declared, NumValues: 1}}})
	}
	return f.Bytes()
}

// CompressionBomb is a file of columns string columns, each one zstd page
// of values strings of valueBytes bytes: about columns × values ×
// valueBytes bytes once decompressed, from a file of a few KB per column.
// Every page is honest: it decompresses to exactly what it declares.
func CompressionBomb(columns, values, valueBytes int) []byte {
	value := plainString(repeat('x', valueBytes))
	body := zstdOf(func(w *zstd.Encoder) {
		for range values {
			w.Write(value)
		}
	})
	f := ParquetFile{Rows: int64(values)}
	for c := range columns {
		f.Columns = append(f.Columns, Column{Name: fmt.Sprintf("c%d", c), Type: TypeByteArray, Codec: CodecZstd,
			Pages: []Page{{Body: body, UncompressedSize: int32(len(value) * values), NumValues: int32(values)}}})
	}
	return f.Bytes()
}

// LyingCodec is a one-column string file whose one page declares 64 bytes
// uncompressed and holds body, compressed with codec: a decompressor that
// trusts the size its own header claims (ZstdLyingFrame, SnappyLyingLength)
// rather than the page's asks for that much.
func LyingCodec(codec int32, body []byte) []byte {
	return ParquetFile{
		Columns: []Column{{Name: "s", Type: TypeByteArray, Codec: codec,
			Pages: []Page{{Body: body, UncompressedSize: 64, NumValues: 1}}}},
		Rows: 1,
	}.Bytes()
}

// ZstdLyingFrame is a zstd frame whose header claims claimed bytes of
// content, followed by one raw block of 12 bytes.
func ZstdLyingFrame(claimed uint64) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0xc0, 0x00} // magic; 8-byte content size; a 1 KiB window
	b = binary.LittleEndian.AppendUint64(b, claimed)
	payload := plainString(repeat('x', 8))
	hdr := uint32(len(payload))<<3 | 1 // raw block, last
	b = append(b, byte(hdr), byte(hdr>>8), byte(hdr>>16))
	return append(b, payload...)
}

// SnappyLyingLength is a snappy block whose header claims claimed bytes
// decoded, followed by a 12-byte literal.
func SnappyLyingLength(claimed uint32) []byte {
	b := binary.AppendUvarint(nil, uint64(claimed))
	payload := plainString(repeat('x', 8))
	b = append(b, byte(len(payload)-1)<<2) // literal tag
	return append(b, payload...)
}

// DictionaryBomb is a file of columns string columns of rows rows, each
// one dictionary of one value of valueBytes bytes and one data page of
// rows indices, all 0, in a single RLE run of a few bytes: about columns ×
// rows × valueBytes bytes of text, from a file of about columns ×
// valueBytes bytes.
func DictionaryBomb(columns, rows, valueBytes int) []byte {
	dict := plainString(repeat('x', valueBytes))
	indices := dictIndices(rows)
	f := ParquetFile{Rows: int64(rows)}
	for c := range columns {
		f.Columns = append(f.Columns, Column{Name: fmt.Sprintf("c%d", c), Type: TypeByteArray, Pages: []Page{
			{Body: dict, UncompressedSize: int32(len(dict)), NumValues: 1, Dictionary: true},
			{Body: indices, UncompressedSize: int32(len(indices)), NumValues: int32(rows), Encoding: encRLEDictionary},
		}})
	}
	return f.Bytes()
}

// plainString is v PLAIN-encoded: its length, then its bytes.
func plainString(v []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(v))), v...)
}

func repeat(c byte, n int) []byte { return bytes.Repeat([]byte{c}, n) }

// writePlainStrings writes n PLAIN-encoded byte arrays of size bytes of
// c, a piece of at most 64 KiB at a time.
func writePlainStrings(w io.Writer, c byte, size, n int) {
	const piece = 64 << 10
	if size <= piece {
		v := plainString(repeat(c, size))
		for range n {
			w.Write(v)
		}
		return
	}
	for range n {
		w.Write(binary.LittleEndian.AppendUint32(nil, uint32(size)))
		writeRepeat(w, c, size)
	}
}

// writeRepeat writes n bytes of c, a piece of at most 64 KiB at a time.
func writeRepeat(w io.Writer, c byte, n int) {
	piece := repeat(c, min(n, 64<<10))
	for ; n > 0; n -= len(piece) {
		w.Write(piece[:min(n, len(piece))])
	}
}

// run is a run of count equal values of the RLE/bit-packed hybrid encoding.
type run struct{ value, count int }

// rle is runs in the RLE/bit-packed hybrid encoding at width bits a value.
func rle(width int, runs ...run) []byte {
	var b []byte
	for _, r := range runs {
		b = binary.AppendUvarint(b, uint64(r.count)<<1)
		for i := range (width + 7) / 8 {
			b = append(b, byte(r.value>>(8*i)))
		}
	}
	return b
}

// levels is a data page's repetition or definition levels: runs at width
// bits, after their length.
func levels(width int, runs ...run) []byte {
	r := rle(width, runs...)
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(r))), r...)
}

// dictIndices is the body of a dictionary-encoded data page of n values,
// all index 0: bit width 1, then one RLE run.
func dictIndices(n int) []byte { return append([]byte{1}, rle(1, run{0, n})...) }

// zstdBytes is b compressed with zstd.
func zstdBytes(b []byte) []byte { return zstdOf(func(w *zstd.Encoder) { w.Write(b) }) }

// zstdEncoders keeps encoders between bodies: a new one costs about 600 KB.
var zstdEncoders = sync.Pool{New: func() any {
	w, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
	return w
}}

// zstdOf is what write writes, compressed with zstd as one frame.
func zstdOf(write func(*zstd.Encoder)) []byte {
	var buf bytes.Buffer
	w := zstdEncoders.Get().(*zstd.Encoder)
	defer zstdEncoders.Put(w)
	w.Reset(&buf)
	write(w)
	if err := w.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// WideCSV is a CSV file of cols columns (a header, then rows rows), every
// cell a short distinct-ish value.
func WideCSV(cols, rows int) []byte {
	var b strings.Builder
	for c := range cols {
		if c > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "col%d", c)
	}
	b.WriteByte('\n')
	for r := range rows {
		for c := range cols {
			if c > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "v%d_%d", r%97, c%13)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// DeepJSON is a JSON array of one object nested depth levels deep.
func DeepJSON(depth int) []byte {
	return []byte("[" + strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth) + "]")
}
