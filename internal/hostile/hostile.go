// Package hostile builds the files an attacker would upload to take a
// reader down: Parquet files whose metadata lies about what they hold,
// compression bombs, and text files of absurd shapes. Tests and fuzz seeds
// use them; every builder is deterministic and cheap in memory, however
// much the file claims to hold.
package hostile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Parquet physical types, codecs and encodings used here (parquet.thrift).
const (
	TypeInt64     int32 = 2
	TypeByteArray int32 = 6

	CodecUncompressed int32 = 0
	CodecSnappy       int32 = 1
	CodecZstd         int32 = 6

	encPlain         int32 = 0
	encRLE           int32 = 3
	encRLEDictionary int32 = 8
)

// Page is one page of a column chunk as written: its body, and what its
// header declares. A data page (v1) is PLAIN-encoded unless Encoding says
// otherwise; a dictionary page (Dictionary) holds PLAIN values.
type Page struct {
	Body             []byte
	UncompressedSize int32
	NumValues        int32
	Dictionary       bool
	Encoding         int32
}

// Column is a flat, required column of a hand-built Parquet file with
// one row group.
type Column struct {
	Name  string
	Type  int32
	Codec int32
	Pages []Page
}

// ParquetFile is a Parquet file built by hand, so that its metadata can
// say what the data does not.
type ParquetFile struct {
	Columns []Column
	Rows    int64 // rows of the one row group, as declared
	// RootChildren, when set, is what the schema root declares as its
	// number of children instead of len(Columns).
	RootChildren *int32
	// KeyValues is the file's key-value metadata.
	KeyValues [][2]string
}

// Bytes lays the file out: magic, each column chunk, footer.
func (p ParquetFile) Bytes() []byte {
	out := []byte("PAR1")
	type chunk struct {
		offset, compressed, uncompressed, values int64
		dictionary                               bool // its first page is a dictionary page
	}
	chunks := make([]chunk, len(p.Columns))
	for i, c := range p.Columns {
		ch := chunk{offset: int64(len(out))}
		for _, pg := range c.Pages {
			h := pageHeader(pg)
			if pg.Dictionary {
				ch.dictionary = true
			} else {
				ch.values += int64(pg.NumValues)
			}
			out = append(out, h...)
			out = append(out, pg.Body...)
			ch.compressed += int64(len(h) + len(pg.Body))
			ch.uncompressed += int64(len(h)) + int64(pg.UncompressedSize)
		}
		chunks[i] = ch
	}

	var m compact
	m.i32(1, 1) // version
	m.list(2, tStruct, len(p.Columns)+1)
	m.beginStruct(0)
	m.str(4, "schema")
	children := int32(len(p.Columns))
	if p.RootChildren != nil {
		children = *p.RootChildren
	}
	m.i32(5, children)
	m.endStruct()
	for _, c := range p.Columns {
		m.beginStruct(0)
		m.i32(1, c.Type)
		m.i32(3, 0) // REQUIRED
		m.str(4, c.Name)
		if c.Type == TypeByteArray {
			m.i32(6, 0) // UTF8
		}
		m.endStruct()
	}
	m.i64(3, p.Rows)
	m.list(4, tStruct, 1)
	m.beginStruct(0) // RowGroup
	m.list(1, tStruct, len(p.Columns))
	var total int64
	for i, c := range p.Columns {
		ch := chunks[i]
		total += ch.uncompressed
		m.beginStruct(0) // ColumnChunk
		m.i64(2, ch.offset)
		m.beginStruct(3) // ColumnMetaData
		m.i32(1, c.Type)
		m.list(2, tI32, 3)
		m.elemI32(encPlain)
		m.elemI32(encRLE)
		m.elemI32(encRLEDictionary)
		m.list(3, tBinary, 1)
		m.elemStr(c.Name)
		m.i32(4, c.Codec)
		m.i64(5, ch.values)
		m.i64(6, ch.uncompressed)
		m.i64(7, ch.compressed)
		if ch.dictionary {
			m.i64(9, ch.offset+int64(dictPageLen(c.Pages[0])))
			m.i64(11, ch.offset)
		} else {
			m.i64(9, ch.offset)
		}
		m.endStruct()
		m.endStruct()
	}
	m.i64(2, total)
	m.i64(3, p.Rows)
	m.endStruct() // RowGroup
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
	h.endStruct()
	return h.b
}

func dictPageLen(pg Page) int { return len(pageHeader(pg)) + len(pg.Body) }

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
	var m compact
	m.i32(1, 1)
	m.list(2, tStruct, len(children))
	for i, n := range children {
		m.beginStruct(0)
		if n == 0 {
			m.i32(1, TypeInt64)
			m.i32(3, 1) // OPTIONAL
		}
		m.str(4, fmt.Sprintf("e%d", i))
		if n != 0 {
			m.i32(5, n)
		}
		m.endStruct()
	}
	m.i64(3, 0)
	m.list(4, tStruct, 0)
	m.endStruct()
	out := append([]byte("PAR1"), m.b...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(m.b)))
	return append(out, "PAR1"...)
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
	body := zstdOf(func(w *zstd.Encoder) { w.Write(plainStrings(1, 8)) })
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
	value := plainStrings(1, valueBytes)
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
	payload := plainStrings(1, 8)
	hdr := uint32(len(payload))<<3 | 1 // raw block, last
	b = append(b, byte(hdr), byte(hdr>>8), byte(hdr>>16))
	return append(b, payload...)
}

// SnappyLyingLength is a snappy block whose header claims claimed bytes
// decoded, followed by a 12-byte literal.
func SnappyLyingLength(claimed uint32) []byte {
	b := binary.AppendUvarint(nil, uint64(claimed))
	payload := plainStrings(1, 8)
	b = append(b, byte(len(payload)-1)<<2) // literal tag
	return append(b, payload...)
}

// DictionaryBomb is a file of columns string columns of rows rows, each
// one dictionary of one value of valueBytes bytes and one data page of
// rows indices, all 0, in a single RLE run of a few bytes: about columns ×
// rows × valueBytes bytes of text, from a file of about columns ×
// valueBytes bytes.
func DictionaryBomb(columns, rows, valueBytes int) []byte {
	dict := plainStrings(1, valueBytes)
	// Bit width 1, then one RLE run of rows zeros.
	indices := binary.AppendUvarint([]byte{1}, uint64(rows)<<1)
	indices = append(indices, 0)
	f := ParquetFile{Rows: int64(rows)}
	for c := range columns {
		f.Columns = append(f.Columns, Column{Name: fmt.Sprintf("c%d", c), Type: TypeByteArray, Pages: []Page{
			{Body: dict, UncompressedSize: int32(len(dict)), NumValues: 1, Dictionary: true},
			{Body: indices, UncompressedSize: int32(len(indices)), NumValues: int32(rows), Encoding: encRLEDictionary},
		}})
	}
	return f.Bytes()
}

// plainStrings is n PLAIN-encoded byte arrays of size bytes of 'x'.
func plainStrings(n, size int) []byte {
	var b []byte
	for range n {
		b = binary.LittleEndian.AppendUint32(b, uint32(size))
		b = append(b, bytes.Repeat([]byte{'x'}, size)...)
	}
	return b
}

func zstdOf(write func(*zstd.Encoder)) []byte {
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err)
	}
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
