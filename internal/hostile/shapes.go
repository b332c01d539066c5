package hostile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// The files below, but DictionaryCountClaim, declare nothing false: they
// are shaped so that what a reader builds from them (rows as text, column
// names, buffers kept from one column or row group to the next) is far
// larger than they are.

// PlainList is a file of one row of two columns: a required INT96, which
// sends a reader that cannot read INT96 through Arrow down its own column
// reader, and an optional list<optional int32> whose one row holds n null
// elements, stated in a few bytes of levels. A reader that renders the row
// as text writes n nulls (5 GB for n = 10^9, from 226 bytes).
func PlainList(n int) []byte {
	body := append(levels(1, run{0, 1}, run{1, n - 1}), levels(2, run{2, n})...)
	return ParquetFile{
		Rows: 1,
		Schema: []SchemaElement{
			root(2),
			leaf("t", TypeInt96, Required),
			group("l", Optional, 1).converted(ConvertedList),
			group("list", Repeated, 1),
			leaf("element", TypeInt32, Optional),
		},
		RowGroups: []RowGroup{{Rows: 1, Columns: []Column{
			int96Zeros("t", 1, CodecUncompressed),
			{Type: TypeInt32, Path: []string{"l", "list", "element"},
				Pages: []Page{{Body: body, UncompressedSize: int32(len(body)), NumValues: int32(n)}}},
		}}},
	}.Bytes()
}

// PlainDictionaryBomb is a file of rows rows and two zstd columns: a
// required INT96 of zeros (as in PlainList) and a string column whose
// dictionary holds one value of valueBytes bytes and whose rows all point
// at it. A reader that turns every row's value into a string of its own
// holds rows × valueBytes bytes (6 GB at 2,048 rows of 3 MB, from 826
// bytes).
func PlainDictionaryBomb(rows, valueBytes int) []byte {
	dict := zstdOf(func(w *zstd.Encoder) { writePlainStrings(w, 'x', valueBytes, 1) })
	indices := dictIndices(rows)
	return ParquetFile{
		Rows: int64(rows),
		Schema: []SchemaElement{
			root(2),
			leaf("t", TypeInt96, Required),
			leaf("s", TypeByteArray, Required).converted(ConvertedUTF8),
		},
		RowGroups: []RowGroup{{Rows: int64(rows), Columns: []Column{
			int96Zeros("t", rows, CodecZstd),
			{Name: "s", Type: TypeByteArray, Codec: CodecZstd, Pages: []Page{
				{Body: dict, UncompressedSize: int32(4 + valueBytes), NumValues: 1, Dictionary: true},
				{Body: zstdBytes(indices), UncompressedSize: int32(len(indices)), NumValues: int32(rows), Encoding: encRLEDictionary},
			}},
		}}},
	}.Bytes()
}

// DecimalScale is a file of one required byte-array column "d" of rows
// rows, each the one-byte unscaled value 1, annotated DECIMAL with
// precision and scale both scale (as a converted type and as a logical
// type). A reader that writes a decimal out in full writes scale digits a
// value (2 GB each at the largest scale, from a file of 127 bytes).
func DecimalScale(scale int32, rows int) []byte {
	d := leaf("d", TypeByteArray, Required).converted(ConvertedDecimal)
	d.Decimal = &Decimal{Scale: scale, Precision: scale}
	body := []byte(strings.Repeat("\x01\x00\x00\x00\x01", rows)) // PLAIN: length 1, then 1
	return ParquetFile{
		Rows:   int64(rows),
		Schema: []SchemaElement{root(1), d},
		RowGroups: []RowGroup{{Rows: int64(rows), Columns: []Column{{Name: "d", Type: TypeByteArray,
			Pages: []Page{{Body: body, UncompressedSize: int32(len(body)), NumValues: int32(rows)}}}}}},
	}.Bytes()
}

// StructFieldName is a file of one row of an optional
// list<optional struct<optional int32 NAME>>, NAME nameBytes bytes of 'k':
// the row holds elements elements, each a struct whose one field is null.
// The name is written twice, the levels in a few bytes. A reader that
// renders the row as text writes the name once an element (1 GB at 16,384
// elements and a 64 KiB name, from 131 KB).
func StructFieldName(elements, nameBytes int) []byte {
	name := strings.Repeat("k", nameBytes)
	body := append(levels(1, run{0, 1}, run{1, elements - 1}), levels(3, run{3, elements})...)
	return ParquetFile{
		Rows: 1,
		Schema: []SchemaElement{
			root(1),
			group("l", Optional, 1).converted(ConvertedList),
			group("list", Repeated, 1),
			group("element", Optional, 1),
			leaf(name, TypeInt32, Optional),
		},
		RowGroups: []RowGroup{{Rows: 1, Columns: []Column{{Type: TypeInt32, Path: []string{"l", "list", "element", name},
			Pages: []Page{{Body: body, UncompressedSize: int32(len(body)), NumValues: int32(elements)}}}}}},
	}.Bytes()
}

// DictionaryCountClaim is a file of one required string column of rows
// rows whose dictionary page declares claimed values but holds one
// ("abc"), and whose data page gives every row the index index, at a bit
// width of 31, of a value it does not hold. A reader that sizes the
// dictionary by its declared count asks for claimed entries before it
// finds the page short (2 GB for 10^8 of them, from 126 bytes).
func DictionaryCountClaim(claimed, index int32, rows int) []byte {
	dict := plainString([]byte("abc"))
	indices := append([]byte{31}, rle(31, run{int(index), rows})...)
	return ParquetFile{
		Rows:   int64(rows),
		Schema: []SchemaElement{root(1), leaf("s", TypeByteArray, Required).converted(ConvertedUTF8)},
		RowGroups: []RowGroup{{Rows: int64(rows), Columns: []Column{{Name: "s", Type: TypeByteArray, Pages: []Page{
			{Body: dict, UncompressedSize: int32(len(dict)), NumValues: claimed, Dictionary: true},
			{Body: indices, UncompressedSize: int32(len(indices)), NumValues: int32(rows), Encoding: encRLEDictionary},
		}}}}},
	}.Bytes()
}

// LongPath is a file of no row groups whose schema nests depth optional
// groups, each named by its depth and nameBytes bytes of 'g', the deepest
// holding leaves optional int64 leaves. Each leaf's path is depth ×
// nameBytes bytes long: a reader that names the columns by their paths
// writes leaves × depth × nameBytes bytes of names (1 GB at a depth of 60,
// names of 60,000 bytes and 300 leaves, from 3.6 MB).
func LongPath(depth, nameBytes, leaves int) []byte {
	g := strings.Repeat("g", nameBytes)
	schema := []SchemaElement{root(1)}
	for d := range depth {
		children := 1
		if d == depth-1 {
			children = leaves
		}
		schema = append(schema, group(strconv.Itoa(d)+g, Optional, children))
	}
	for l := range leaves {
		schema = append(schema, leaf(fmt.Sprintf("v%d", l), TypeInt64, Optional))
	}
	return ParquetFile{Schema: schema}.Bytes()
}

// StaggeredPages is a file of columns required string columns and as many
// row groups of rows rows, all zstd: in row group g, column g is one PLAIN
// page of rows values of valueBytes bytes, and every other column a
// dictionary of one short value. No row group needs more than one large
// page at once, but each column has one in its turn: a reader that keeps
// each column's largest buffer from one row group to the next ends up
// holding columns × rows × valueBytes bytes (3.2 GB at 200 columns of
// 16 rows of 1 MB, from 4.8 MB).
func StaggeredPages(columns, rows, valueBytes int) []byte {
	large := []Page{{
		Body:             zstdOf(func(w *zstd.Encoder) { writePlainStrings(w, 'x', valueBytes, rows) }),
		UncompressedSize: int32(rows * (4 + valueBytes)),
		NumValues:        int32(rows),
	}}
	dict, indices := plainString([]byte("a")), dictIndices(rows)
	small := []Page{
		{Body: zstdBytes(dict), UncompressedSize: int32(len(dict)), NumValues: 1, Dictionary: true},
		{Body: zstdBytes(indices), UncompressedSize: int32(len(indices)), NumValues: int32(rows), Encoding: encRLEDictionary},
	}
	f := ParquetFile{Rows: int64(columns * rows), Schema: []SchemaElement{root(columns)}}
	for c := range columns {
		f.Schema = append(f.Schema, leaf(fmt.Sprintf("s%d", c), TypeByteArray, Required).converted(ConvertedUTF8))
	}
	for g := range columns {
		rg := RowGroup{Rows: int64(rows), Columns: make([]Column, columns)}
		for c := range rg.Columns {
			rg.Columns[c] = Column{Name: fmt.Sprintf("s%d", c), Type: TypeByteArray, Codec: CodecZstd, Pages: small}
			if c == g {
				rg.Columns[c].Pages = large
			}
		}
		f.RowGroups = append(f.RowGroups, rg)
	}
	return f.Bytes()
}

// RotatingColumns is a file of one row group of segment × columns × rounds
// rows and columns optional string columns, zstd and dictionary-encoded:
// the rows come in segments of segment rows, and in the k-th segment
// column k % columns holds a value of valueBytes bytes while the others
// are null. A window of rows holds one column's text, but every column
// holds a segment's worth in its turn: a reader that keeps each column's
// buffers at the most text the column has held ends up holding them all,
// columns × segment × valueBytes bytes and more (1.2 GB at 300 columns,
// segments of 2,048 rows and values of 2 KiB, from 46 KB at 4 rounds).
func RotatingColumns(columns, segment, rounds, valueBytes int) []byte {
	rows := segment * columns * rounds
	dict := Page{
		Body:             zstdOf(func(w *zstd.Encoder) { writePlainStrings(w, 'y', valueBytes, 1) }),
		UncompressedSize: int32(4 + valueBytes),
		NumValues:        1,
		Dictionary:       true,
	}
	rg := RowGroup{Rows: int64(rows)}
	f := ParquetFile{Rows: int64(rows), Schema: []SchemaElement{root(columns)}}
	for c := range columns {
		name := fmt.Sprintf("s%d", c)
		f.Schema = append(f.Schema, leaf(name, TypeByteArray, Optional).converted(ConvertedUTF8))
		var runs []run
		for range rounds {
			if c > 0 {
				runs = append(runs, run{0, c * segment})
			}
			runs = append(runs, run{1, segment})
			if c < columns-1 {
				runs = append(runs, run{0, (columns - 1 - c) * segment})
			}
		}
		page := append(levels(1, runs...), dictIndices(segment*rounds)...)
		rg.Columns = append(rg.Columns, Column{Name: name, Type: TypeByteArray, Codec: CodecZstd, Pages: []Page{
			dict,
			{Body: zstdBytes(page), UncompressedSize: int32(len(page)), NumValues: int32(rows), Encoding: encRLEDictionary},
		}})
	}
	f.RowGroups = []RowGroup{rg}
	return f.Bytes()
}

// BigPageHeaders is a file of columns required int32 (INT_8) columns of
// rows rows (at least one), whose chunks are all one chunk: a page of one
// zero whose header carries padBytes bytes in a field no version of the
// format defines, then a page of the other rows. A reader that reads each
// column's page header into a buffer of its own holds columns × padBytes
// bytes (3 GB at 1,000 columns and 3 MB, from 3 MB).
func BigPageHeaders(columns, padBytes, rows int) []byte {
	rows = max(rows, 1)
	pages := []Page{{Body: make([]byte, 4), UncompressedSize: 4, NumValues: 1, HeaderPadding: padBytes}}
	if rows > 1 {
		body := make([]byte, 4*(rows-1))
		pages = append(pages, Page{Body: body, UncompressedSize: int32(len(body)), NumValues: int32(rows - 1)})
	}
	var size int64
	for _, pg := range pages {
		size += int64(len(pageHeader(pg)) + len(pg.Body))
	}
	f := ParquetFile{Rows: int64(rows), Schema: []SchemaElement{root(columns)}, SharedChunk: true}
	rg := RowGroup{Rows: int64(rows), TotalByteSize: &size}
	for c := range columns {
		name := fmt.Sprintf("c%d", c)
		f.Schema = append(f.Schema, leaf(name, TypeInt32, Required).converted(ConvertedInt8))
		rg.Columns = append(rg.Columns, Column{Name: name, Type: TypeInt32, Encodings: []int32{encPlain}})
	}
	rg.Columns[0].Pages = pages
	f.RowGroups = []RowGroup{rg}
	return f.Bytes()
}

// ManyRowGroups is a file of n row groups of one row of a required int64
// column, every chunk the same page of 8 bytes: about 31 bytes of footer
// a row group. A reader that sets up state of its own for each row group,
// and keeps it, pays for it n times over (4 MB holds 129,000 row groups).
func ManyRowGroups(n int) []byte {
	size := int64(8)
	columns := []Column{{Name: "x", Type: TypeInt64, Encodings: []int32{encPlain},
		Pages: []Page{{Body: make([]byte, 8), UncompressedSize: 8, NumValues: 1}}}}
	f := ParquetFile{
		Rows:        int64(n),
		Schema:      []SchemaElement{root(1), leaf("x", TypeInt64, Required)},
		RowGroups:   make([]RowGroup, n),
		SharedChunk: true,
	}
	for i := range f.RowGroups {
		f.RowGroups[i] = RowGroup{Rows: 1, Columns: columns, TotalByteSize: &size}
	}
	return f.Bytes()
}

// int96Zeros is a required INT96 column chunk of one PLAIN page of rows
// zeros, compressed with codec (uncompressed or zstd).
func int96Zeros(name string, rows int, codec int32) Column {
	size := 12 * rows
	var body []byte
	if codec == CodecZstd {
		body = zstdOf(func(w *zstd.Encoder) { writeRepeat(w, 0, size) })
	} else {
		body = make([]byte, size)
	}
	return Column{Name: name, Type: TypeInt96, Codec: codec,
		Pages: []Page{{Body: body, UncompressedSize: int32(size), NumValues: int32(rows)}}}
}
