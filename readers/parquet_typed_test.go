package readers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/dqs/dqs/columnar"
)

// NextBatch hands INT32, INT64, FLOAT64, DATE32 and TIMESTAMP columns over as
// values (columnar.Column.Nums), through the direct path and the Arrow path
// alike; Next gives text. The text of every typed cell must be what Next
// gives for it.

// pqTypedSchema has a column of every Arrow type that batches hold as
// values, with text columns beside them.
var pqTypedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "int32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "int64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "date32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "America/New_York"}, Nullable: true},
	{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
	{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}, Nullable: true},
	{Name: "string", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// pqTypedKinds are the kinds of pqTypedSchema's batch columns. Parquet has
// no seconds: pqarrow stores ts_s in milliseconds and reads it back so.
var pqTypedKinds = []columnar.Kind{columnar.Int, columnar.Int, columnar.Date, columnar.TimestampMS,
	columnar.TimestampUS, columnar.TimestampNS, columnar.TimestampMS, columnar.Text, columnar.Text, columnar.Int}

// pqTypedNested is a field the direct path declines (a struct, flattened
// into three columns, two of them typed): a file with it is read through
// Arrow.
var pqTypedNested = arrow.Field{Name: "nested", Type: arrow.StructOf(
	arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
), Nullable: true}

var pqTypedNestedKinds = []columnar.Kind{columnar.Int, columnar.Date, columnar.Text}

// pqWithField returns sc with f added at the end.
func pqWithField(sc *arrow.Schema, f arrow.Field) *arrow.Schema {
	return arrow.NewSchema(append(append([]arrow.Field(nil), sc.Fields()...), f), nil)
}

// pqWriteTyped writes rows random rows of sc in row groups of rowGroup rows:
// a tenth of the cells null, values across and beyond years 0 to 9999, and
// the row number in a required column "id".
func pqWriteTyped(t testing.TB, sc *arrow.Schema, rows, rowGroup int, seed int64, props ...parquet.WriterProperty) []byte {
	t.Helper()
	props = append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(int64(rowGroup))}, props...)
	return pqWriteRows(t, sc, rows, seed, func(i int, fb array.Builder, rng *rand.Rand, r int) {
		if sc.Field(i).Name == "id" {
			fb.(*array.Int64Builder).Append(int64(r))
			return
		}
		pqAppendRandom(fb, rng, 0)
	}, props...)
}

// The path a file is read through.
type pqPath int

const (
	pqDirectPath   pqPath = iota // the direct path throughout
	pqArrowPath                  // Arrow throughout
	pqHandoverPath               // the direct path, then Arrow from partway
)

// pqTypedResult is what pqTypedCompare saw.
type pqTypedResult struct {
	rows, batches int
	typedCells    int // non-null cells of typed batch columns, compared
	// Rows [handoverStart, handoverEnd) are those of the batch during which
	// the direct path handed over to Arrow.
	handoverStart, handoverEnd int
}

// pqTypedCompare reads data through Next, then through FillBatch, and fails
// the test unless every batch column with a value is of kind kinds[i], its
// typed columns keep the invariant (no text, every end 0, a value per
// cell, no codes), every cell's text and null flag are Next's for that
// row, and the file is read through path. after, when not nil, is called
// after every batch.
func pqTypedCompare(t *testing.T, data []byte, opt Options, kinds []columnar.Kind, path pqPath,
	after func(pr *parquetReader, b *columnar.Batch)) pqTypedResult {
	t.Helper()
	rn, err := openParquetWith(bytes.NewReader(data), opt.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	want, err := pqReadRowsN(rn, -1)
	if err != io.EOF {
		t.Fatalf("Next: %v after %d rows", err, len(want))
	}

	r, err := openParquetWith(bytes.NewReader(data), opt.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	pr := r.(*parquetReader)
	if len(r.Columns()) != len(kinds) {
		t.Fatalf("%d columns %q, want %d", len(r.Columns()), r.Columns(), len(kinds))
	}
	if (pr.direct != nil) != (path != pqArrowPath) {
		t.Fatalf("direct path at the start: %v, want %v", pr.direct != nil, path != pqArrowPath)
	}
	res := pqTypedResult{handoverStart: -1, handoverEnd: -1}
	b := columnar.NewBatch(len(r.Columns()))
	for {
		b.Reset()
		direct := pr.direct != nil
		err := FillBatch(r, b)
		if err == io.EOF {
			if b.Rows != 0 {
				t.Fatalf("io.EOF with %d rows", b.Rows)
			}
			break
		}
		if err != nil {
			t.Fatalf("batch %d: %v", res.batches, err)
		}
		if direct && pr.direct == nil {
			res.handoverStart, res.handoverEnd = res.rows, res.rows+b.Rows
		}
		if res.rows+b.Rows > len(want) {
			t.Fatalf("batches give over %d rows, Next %d", res.rows+b.Rows, len(want))
		}
		for i := range b.Cols {
			res.typedCells += pqCheckTypedColumn(t, fmt.Sprintf("batch %d (rows %d+), column %q", res.batches, res.rows+1, r.Columns()[i]),
				&b.Cols[i], b.Rows, kinds[i], want[res.rows:], i)
		}
		if after != nil {
			after(pr, b)
		}
		res.rows += b.Rows
		res.batches++
	}
	if res.rows != len(want) {
		t.Fatalf("batches give %d rows, Next %d", res.rows, len(want))
	}
	if (pr.direct != nil) != (path == pqDirectPath) {
		t.Fatalf("direct path at the end: %v, want %v", pr.direct != nil, path == pqDirectPath)
	}
	if path == pqHandoverPath && res.handoverStart < 0 {
		t.Fatal("the direct path handed over between batches, not during one")
	}
	return res
}

// pqCheckTypedColumn checks batch column c of rows rows against the rows
// Next gave (want, from the batch's first row on; column i) and returns
// the number of typed non-null cells it compared.
func pqCheckTypedColumn(t *testing.T, what string, c *columnar.Column, rows int, kind columnar.Kind, want [][]string, i int) int {
	t.Helper()
	if c.Len() != rows || len(c.Nulls) != rows {
		t.Fatalf("%s: %d cells, %d null flags for %d rows", what, c.Len(), len(c.Nulls), rows)
	}
	values := 0
	for _, null := range c.Nulls[:rows] {
		if !null {
			values++
		}
	}
	// A column of nulls only says nothing of its kind.
	if values > 0 && c.Kind != kind {
		t.Fatalf("%s: kind %d, want %d", what, c.Kind, kind)
	}
	if c.Kind != columnar.Text {
		if c.Kind != kind {
			t.Fatalf("%s: kind %d, want %d (or text)", what, c.Kind, kind)
		}
		if len(c.Nums) != rows || len(c.Text) != 0 || len(c.Codes) != 0 {
			t.Fatalf("%s: typed column with %d values, %d bytes of text, %d codes for %d rows", what, len(c.Nums), len(c.Text), len(c.Codes), rows)
		}
		for r, e := range c.Ends {
			if e != 0 {
				t.Fatalf("%s: typed cell %d ends at %d", what, r, e)
			}
		}
	}
	typed := 0
	for r := range rows {
		v, null := c.Cell(r)
		if null {
			if v != "" {
				t.Fatalf("%s, row %d: null with text %q", what, r, v)
			}
			v = nullMark
		} else if c.Kind != columnar.Text {
			typed++
		}
		if v != want[r][i] {
			t.Fatalf("%s, row %d: batch %q, Next %q", what, r, v, want[r][i])
		}
	}
	return typed
}

// (a) The direct path, in every page layout.
func TestParquetTypedDirect(t *testing.T) {
	for li, l := range pqDirectLayouts {
		t.Run(l.name, func(t *testing.T) {
			data := pqWriteTyped(t, pqTypedSchema, 5000, 2000, int64(li), l.props...)
			res := pqTypedCompare(t, data, Options{}, pqTypedKinds, pqDirectPath, nil)
			if res.rows != 5000 || res.typedCells < 5000*6 {
				t.Fatalf("read %d rows, %d typed cells", res.rows, res.typedCells)
			}
		})
	}
}

// (a) Rows of about 40 KiB: windows pass the batch's byte bound and leave
// rows in the direct path's spill, which hands typed values on to the next
// batch.
func TestParquetTypedSpill(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	data := pqWriteRows(t, sc, 2000, 3, func(i int, fb array.Builder, rng *rand.Rand, r int) {
		switch i {
		case 0:
			fb.(*array.Int64Builder).Append(int64(r) * 1_000_003)
		case 3:
			if r%7 == 0 {
				fb.AppendNull()
			} else {
				fb.(*array.StringBuilder).Append(strings.Repeat(string(rune('a'+rng.Intn(26))), 30_000+rng.Intn(20_000)))
			}
		default:
			pqAppendRandom(fb, rng, 0)
		}
	}, parquet.WithMaxRowGroupLength(700))
	spilled := 0
	kinds := []columnar.Kind{columnar.Int, columnar.TimestampUS, columnar.Date, columnar.Text}
	res := pqTypedCompare(t, data, Options{}, kinds, pqDirectPath, func(pr *parquetReader, b *columnar.Batch) {
		if dr := pr.direct; dr.spill.Rows > dr.spillAt {
			spilled++
		}
	})
	if res.rows != 2000 || res.batches < 10 || spilled == 0 {
		t.Fatalf("%d rows in %d batches, %d batches left rows in spill", res.rows, res.batches, spilled)
	}
}

// (b) The Arrow path: files the direct path declines.
func TestParquetTypedArrow(t *testing.T) {
	cases := []struct {
		name  string
		extra arrow.Field
		kinds []columnar.Kind
	}{
		{"struct", pqTypedNested, pqTypedNestedKinds},
		{"uint32", arrow.Field{Name: "u", Type: arrow.PrimitiveTypes.Uint32, Nullable: true}, []columnar.Kind{columnar.Text}},
		{"list", arrow.Field{Name: "l", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true}, []columnar.Kind{columnar.Text}},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := pqWriteTyped(t, pqWithField(pqTypedSchema, c.extra), 5000, 2000, int64(ci))
			kinds := append(append([]columnar.Kind(nil), pqTypedKinds...), c.kinds...)
			res := pqTypedCompare(t, data, Options{}, kinds, pqArrowPath, nil)
			if res.rows != 5000 || res.typedCells < 5000*6 {
				t.Fatalf("read %d rows, %d typed cells", res.rows, res.typedCells)
			}
		})
	}
}

// pqPatchRepEncoding returns a copy of data in which the first data page
// of column col in row group rg that starts at row from or later (of the
// row group) declares its repetition levels PLAIN instead of RLE, and the
// row at which that page starts. Arrow ignores the repetition level
// encoding of a column without repetition; the direct path declines the
// page. The values are unchanged, so Next reads the same rows.
func pqPatchRepEncoding(t *testing.T, data []byte, rg, col int, from int64) ([]byte, int64) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(col)
	if err != nil {
		t.Fatal(err)
	}
	start, length, ok := chunkLocation(cc, int64(len(data)))
	if !ok {
		t.Fatal("column chunk outside the file")
	}
	out := bytes.Clone(data)
	readHeader := func(pos int64) (pageHeader, int64) {
		cr := &countingByteReader{r: bufio.NewReader(bytes.NewReader(out[pos : start+length])), limit: maxPageHeaderBytes}
		h, err := readPageHeader(cr)
		if err != nil {
			t.Fatalf("page header at %d: %v", pos, err)
		}
		return h, cr.n
	}
	row := int64(0)
	for pos := start; pos < start+length; {
		h, n := readHeader(pos)
		if h.typ != pageData || row < from {
			if h.typ == pageData {
				row += int64(h.numValues) // one value (or null) per row in a flat column
			}
			pos += n + int64(h.compressed)
			continue
		}
		if h.repEncoding != encRLE {
			t.Fatalf("the page's repetition levels are encoded %d", h.repEncoding)
		}
		// The header in Thrift's compact form: PageHeader's fields 1 to 3
		// (and 4, a CRC) are i32; field 5 is the DataPageHeader, whose
		// field 4, an i32, is the repetition level encoding.
		p := pos
		varint := func() {
			for out[p]&0x80 != 0 {
				p++
			}
			p++
		}
		field := func(id *int) byte {
			b := out[p]
			p++
			if b>>4 == 0 {
				t.Fatalf("unexpected page header byte %#x", b)
			}
			*id += int(b >> 4)
			return b & 0x0f
		}
		for id := 0; ; {
			typ := field(&id)
			if typ == tStruct && id == 5 {
				break
			}
			if typ != tI32 {
				t.Fatalf("page header field %d of type %d", id, typ)
			}
			varint()
		}
		for id := 0; ; {
			if typ := field(&id); typ != tI32 {
				t.Fatalf("data page header field %d of type %d", id, typ)
			}
			if id == 4 {
				if out[p] != encRLE<<1 { // zigzag
					t.Fatalf("repetition level encoding byte %#x", out[p])
				}
				out[p] = encPlain << 1
				break
			}
			varint()
		}
		if h2, n2 := readHeader(pos); n2 != n || h2.repEncoding != encPlain || h2.numValues != h.numValues || h2.encoding != h.encoding {
			t.Fatalf("patched header: %+v (%d bytes), was %+v (%d bytes)", h2, n2, h, n)
		}
		return out, row
	}
	t.Fatalf("no data page from row %d on", from)
	return nil, 0
}

// (c) The direct path hands over to Arrow partway through a file, within
// a batch: the typed columns keep their kind, and their cells are Next's.
func TestParquetTypedHandover(t *testing.T) {
	column := func(name string) int {
		for i, f := range pqTypedSchema.Fields() {
			if f.Name == name {
				return i
			}
		}
		t.Fatalf("no column %q", name)
		return -1
	}

	t.Run("row group", func(t *testing.T) {
		// The second row group's first page of the text column: the
		// direct path reads the first row group into the batch, Arrow the
		// others.
		data := pqWriteTyped(t, pqTypedSchema, 3000, 1000, 1)
		patched, at := pqPatchRepEncoding(t, data, 1, column("string"), 0)
		if at != 0 {
			t.Fatalf("patched a page at row %d", at)
		}
		res := pqTypedCompare(t, patched, Options{}, pqTypedKinds, pqHandoverPath, nil)
		if res.handoverStart != 0 || res.handoverEnd != 3000 || res.batches != 1 {
			t.Fatalf("handover in rows [%d, %d), %d batches; want one batch of all rows", res.handoverStart, res.handoverEnd, res.batches)
		}
	})

	t.Run("within a row group", func(t *testing.T) {
		// A page of a typed column in the second window of a row group:
		// the direct path gives the first window, Arrow the rest, from the
		// second window's first row.
		data := pqWriteTyped(t, pqTypedSchema, 40_000, 40_000, 2, parquet.WithDataPageSize(4<<10))
		patched, at := pqPatchRepEncoding(t, data, 0, column("int64"), 20_000)
		r, err := openParquetWith(bytes.NewReader(patched), Options{}.withDefaults(), false)
		if err != nil {
			t.Fatal(err)
		}
		window := r.(*parquetReader).arrow.recordRows(0)
		handover := int(at / window * window)
		if handover == 0 || int64(handover) >= at+window {
			t.Fatalf("page at row %d, windows of %d rows", at, window)
		}
		res := pqTypedCompare(t, patched, Options{}, pqTypedKinds, pqHandoverPath, nil)
		if res.handoverStart >= handover || res.handoverEnd <= handover {
			t.Fatalf("handover during the batch of rows [%d, %d); want one holding rows %d and %d", res.handoverStart, res.handoverEnd, handover-1, handover)
		}
		if res.rows != 40_000 || res.typedCells < 40_000*6 {
			t.Fatalf("read %d rows, %d typed cells", res.rows, res.typedCells)
		}
	})

	// Next moves the reader to Arrow at its row, within a row group or (row
	// groups of a batch's rows) at the end of one; the batches after it are
	// typed as before.
	for _, rowGroup := range []int{15_000, columnar.MaxRows} {
		t.Run(fmt.Sprintf("Next between batches, row groups of %d", rowGroup), func(t *testing.T) {
			data := pqWriteTyped(t, pqTypedSchema, 40_000, rowGroup, 3)
			rn, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), false)
			if err != nil {
				t.Fatal(err)
			}
			want, err := pqReadRowsN(rn, -1)
			if err != io.EOF || len(want) != 40_000 {
				t.Fatalf("Next: %d rows, %v", len(want), err)
			}
			r, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), false)
			if err != nil {
				t.Fatal(err)
			}
			pr := r.(*parquetReader)
			b := columnar.NewBatch(len(r.Columns()))
			row, typed := 0, 0
			for round := 0; ; round++ {
				b.Reset()
				direct := pr.direct != nil
				err := FillBatch(r, b)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				if round == 0 && !direct || round > 0 && direct {
					t.Fatalf("batch %d read with the direct path %v", round, direct)
				}
				for i := range b.Cols {
					typed += pqCheckTypedColumn(t, fmt.Sprintf("batch %d, column %d", round, i), &b.Cols[i], b.Rows, pqTypedKinds[i], want[row:], i)
				}
				row += b.Rows
				got, err := pqReadRowsN(r, 3)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for k := range got {
					if strings.Join(got[k], "|") != strings.Join(want[row+k], "|") {
						t.Fatalf("Next, row %d: %q, want %q", row+k+1, got[k], want[row+k])
					}
				}
				row += len(got)
			}
			if row != 40_000 || typed < 40_000*5 || pr.direct != nil {
				t.Fatalf("read %d rows, %d typed cells, direct path kept %v", row, typed, pr.direct != nil)
			}
		})
	}
}

// (c) A value over the field limit in a later row group: the direct path
// hands over, Arrow replays the rows before it through Next, and the batch
// holds Next's text of every row before the error, which is Next's.
func TestParquetTypedHandoverFieldLimit(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	const long = 2500
	data := pqWriteRows(t, sc, 3000, 4, func(i int, fb array.Builder, rng *rand.Rand, r int) {
		switch {
		case i == 0:
			fb.(*array.Int64Builder).Append(-int64(r))
		case i == 2 && r == long:
			fb.(*array.StringBuilder).Append(strings.Repeat("x", 500))
		default:
			pqAppendRandom(fb, rng, 0)
		}
	}, parquet.WithMaxRowGroupLength(1000))
	opt := Options{MaxFieldBytes: 100}
	rows, err := pqMustCompareReads(t, data, opt, false)
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), fmt.Sprintf("row %d", long+1)) || len(rows) != long {
		t.Fatalf("read %d rows, err %v; want the field limit's error at row %d", len(rows), err, long+1)
	}
	// The rows before the error, batch by batch, with the direct path's
	// typed values first.
	r, err := openParquetWith(bytes.NewReader(data), opt.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	b := columnar.NewBatch(3)
	err = FillBatch(r, b)
	if !errors.Is(err, ErrUnsupported) || b.Rows != long {
		t.Fatalf("%d rows, err %v; want %d rows and the field limit's error", b.Rows, err, long)
	}
	// The rows Arrow replays through Next come as text, so the columns
	// are text by then; every cell is Next's.
	for i := range b.Cols {
		c := &b.Cols[i]
		for r := range b.Rows {
			v, null := c.Cell(r)
			if null {
				v = nullMark
			}
			if v != rows[r][i] {
				t.Fatalf("column %d (kind %d), row %d: %q, want %q", i, c.Kind, r+1, v, rows[r][i])
			}
		}
		t.Logf("column %d: kind %d", i, c.Kind)
	}
}

// pqWriteTypedShort writes rows of sc whose every value's text is at most
// 32 bytes: years 1900 to 2100, short words.
func pqWriteTypedShort(t *testing.T, sc *arrow.Schema, rows, rowGroup int, seed int64) []byte {
	return pqWriteRows(t, sc, rows, seed, func(i int, fb array.Builder, rng *rand.Rand, r int) {
		if rng.Intn(10) == 0 && sc.Field(i).Nullable {
			fb.AppendNull()
			return
		}
		switch b := fb.(type) {
		case *array.Date32Builder:
			b.Append(arrow.Date32(rng.Intn(73_000) - 25_000))
		case *array.TimestampBuilder:
			per := unitsPerSecond(b.Type().(*arrow.TimestampType).Unit)
			sec := rng.Int63n(200*365*86400) - 70*365*86400
			if per == 1 {
				b.Append(arrow.Timestamp(sec))
			} else {
				b.Append(arrow.Timestamp(sec*per + rng.Int63n(per)))
			}
		case *array.Int64Builder:
			b.Append(pqRandomInt(rng))
		case *array.StructBuilder:
			b.Append(true)
			b.FieldBuilder(0).(*array.Int64Builder).Append(rng.Int63())
			b.FieldBuilder(1).(*array.Date32Builder).Append(arrow.Date32(rng.Intn(20_000)))
			b.FieldBuilder(2).(*array.StringBuilder).Append(pqWords[rng.Intn(len(pqWords))])
		default:
			pqAppendValue(fb, rng, 0)
		}
	}, parquet.WithMaxRowGroupLength(int64(rowGroup)))
}

// (d) A field limit under maxTypedText gives text, on both paths, so that
// the limit is checked on every value; from maxTypedText on, values.
func TestParquetTypedFieldLimitText(t *testing.T) {
	allText := make([]columnar.Kind, len(pqTypedKinds)+len(pqTypedNestedKinds))
	for _, c := range []struct {
		name  string
		sc    *arrow.Schema
		kinds []columnar.Kind
		path  pqPath
	}{
		{"direct", pqTypedSchema, pqTypedKinds, pqDirectPath},
		{"arrow", pqWithField(pqTypedSchema, pqTypedNested), append(append([]columnar.Kind(nil), pqTypedKinds...), pqTypedNestedKinds...), pqArrowPath},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := pqWriteTypedShort(t, c.sc, 3000, 1000, 5)
			for _, limit := range []int{32, maxTypedText - 1} {
				res := pqTypedCompare(t, data, Options{MaxFieldBytes: limit}, allText[:len(c.kinds)], c.path, nil)
				if res.rows != 3000 || res.typedCells != 0 {
					t.Fatalf("limit %d: %d rows, %d typed cells", limit, res.rows, res.typedCells)
				}
			}
			res := pqTypedCompare(t, data, Options{MaxFieldBytes: maxTypedText}, c.kinds, c.path, nil)
			if res.rows != 3000 || res.typedCells < 3000*6 {
				t.Fatalf("limit %d: %d rows, %d typed cells", maxTypedText, res.rows, res.typedCells)
			}
			// A value over the limit still fails as Next fails.
			_, err := pqMustCompareReads(t, data, Options{MaxFieldBytes: 12}, false)
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("limit 12: err %v, want the field limit's error", err)
			}
		})
	}
}

// (e) Dictionary-encoded and PLAIN integers and timestamps, on both paths.
func TestParquetTypedEncodings(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "code", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "small", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "at_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "at_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	kinds := []columnar.Kind{columnar.Int, columnar.Int, columnar.Date, columnar.TimestampNS, columnar.TimestampUS, columnar.Int, columnar.Text}
	// Few distinct values, edge cases among them: the writer keeps them in
	// a dictionary.
	codes := []int64{0, 1, -1, 42, math.MaxInt64, math.MinInt64, 1 << 40, -99999}
	days := []int32{0, -1, -719528, -719529, 2932896, 2932897, 19_000, math.MinInt32}
	ns := []int64{0, -1, 1, 1_700_000_000_123_456_789, math.MaxInt64, math.MinInt64, -62_135_596_800_000_000_000 / 10, 1e18}
	us := []int64{0, -1, 1_700_000_000_000_000, -62167219200_000_000, -62167219200_000_001, 253402300799_999_999, 253402300800_000_000, math.MaxInt64}
	appendField := func(i int, fb array.Builder, rng *rand.Rand, r int) {
		if i != 5 && rng.Intn(8) == 0 {
			fb.AppendNull()
			return
		}
		k := rng.Intn(8)
		switch i {
		case 0:
			fb.(*array.Int64Builder).Append(codes[k])
		case 1:
			fb.(*array.Int32Builder).Append(int32(codes[k]))
		case 2:
			fb.(*array.Date32Builder).Append(arrow.Date32(days[k]))
		case 3:
			fb.(*array.TimestampBuilder).Append(arrow.Timestamp(ns[k]))
		case 4:
			fb.(*array.TimestampBuilder).Append(arrow.Timestamp(us[k]))
		case 5:
			fb.(*array.Int64Builder).Append(int64(r))
		default:
			fb.(*array.StringBuilder).Append(pqWords[k])
		}
	}
	for _, enc := range []struct {
		name string
		dict bool
	}{{"dictionary", true}, {"plain", false}} {
		for _, arrowPath := range []bool{false, true} {
			name := enc.name + " direct"
			s, k, path := sc, kinds, pqDirectPath
			if arrowPath {
				name = enc.name + " arrow"
				s = pqWithField(sc, arrow.Field{Name: "u", Type: arrow.PrimitiveTypes.Uint32, Nullable: true})
				k = append(append([]columnar.Kind(nil), kinds...), columnar.Text)
				path = pqArrowPath
			}
			t.Run(name, func(t *testing.T) {
				data := pqWriteRows(t, s, 6000, 6, func(i int, fb array.Builder, rng *rand.Rand, r int) {
					if i == len(sc.Fields()) {
						pqAppendRandom(fb, rng, 0)
						return
					}
					appendField(i, fb, rng, r)
				}, parquet.WithMaxRowGroupLength(2500), parquet.WithDictionaryDefault(enc.dict))
				pqCheckEncodings(t, data, 5, enc.dict)
				res := pqTypedCompare(t, data, Options{}, k, path, nil)
				if res.rows != 6000 || res.typedCells < 6000*5 {
					t.Fatalf("read %d rows, %d typed cells", res.rows, res.typedCells)
				}
			})
		}
	}
}

// pqCheckEncodings fails the test unless the first cols columns of data
// are dictionary-encoded throughout (dict) or PLAIN throughout, with no
// dictionary page, in every row group.
func pqCheckEncodings(t *testing.T, data []byte, cols int, dict bool) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	md := pf.MetaData()
	for rg := range md.NumRowGroups() {
		for c := range cols {
			cc, err := md.RowGroup(rg).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			if cc.HasDictionaryPage() != dict {
				t.Fatalf("row group %d, column %d: a dictionary page %v, want %v", rg, c, cc.HasDictionaryPage(), dict)
			}
			if !dict {
				for _, st := range cc.EncodingStats() {
					if st.Encoding != parquet.Encodings.Plain {
						t.Fatalf("row group %d, column %d: %v pages", rg, c, st.Encoding)
					}
				}
				continue
			}
			if !dictionaryEncoded(md, c) {
				t.Fatalf("column %d is not dictionary-encoded throughout", c)
			}
		}
	}
}

// Doubles. A FLOAT64 column is a batch column of kind columnar.Float64
// whose values are the doubles' bits, any NaN as math.NaN()'s bits; the
// text of every cell is Next's, which is strconv's shortest form.

// pqFloatSchema has a nullable and a required double, the row number
// ("id", which the checks use to find a row's written value) and a text
// column.
var pqFloatSchema = arrow.NewSchema([]arrow.Field{
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "measure", Type: arrow.PrimitiveTypes.Float64},
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var pqFloatKinds = []columnar.Kind{columnar.Float64, columnar.Float64, columnar.Int, columnar.Text}

// pqFloatCols are pqFloatSchema's doubles; pqFloatID is its row number.
var pqFloatCols = []int{0, 1}

const pqFloatID = 2

// pqNaNs are NaNs of several payloads. Go's math.NaN() is 0x7ff8000000000001;
// 0x7ff8000000000000 is the quiet NaN most other writers make and
// 0xfff8000000000000 the one x86 makes of 0/0; 0x7ff0000000000001 is a
// signalling NaN.
var pqNaNs = []uint64{0x7ff8000000000001, 0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001,
	0xfff0000000000001, 0x7fffffffffffffff, 0x7ff4000000000000}

// pqFloatEdges are the doubles whose text is worth checking: amounts with
// 0 to 4 decimals, whole numbers, zeros, infinities, NaNs, the extremes,
// and values around the bounds where strconv changes to an exponent.
var pqFloatEdges = func() []float64 {
	v := []float64{
		19.99, -19.99, 1234.5, 0.1, 0.2, 3.141, 2.7183, -45.67, 0.05, 100.25, 12.3456, -0.0001, 0.0012, 7.5,
		1, -1, 2, 42, -7, 100, 1e5, 999999, 123456789, 1e15, 1e16, 1e21, 1 << 53, (1 << 53) + 2, -(1 << 62),
		0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1),
		5e-324, -5e-324, 2.2250738585072014e-308, 1.5e300, -1.5e300, math.MaxFloat64, -math.MaxFloat64,
		999999.9999, -999999.9999, 999999.99999999, math.Nextafter(1e6, 0), 1e6, -1e6, math.Nextafter(1e6, 2e6), 999999.5,
		1e-4, -1e-4, math.Nextafter(1e-4, 0), math.Nextafter(1e-4, 1), 0.00009999, 9.9999e-5, 0.00010001, 1e-5,
		0.1 + 0.2, 1.0 / 3, 2.0 / 3, 1e-7, 123456789.125,
	}
	for _, b := range pqNaNs {
		v = append(v, math.Float64frombits(b))
	}
	return v
}()

var pqPow10 = []float64{1, 10, 100, 1000, 10000}

// pqFloatValue returns a double: from pqFloatEdges alone when few (the
// writer keeps them in a dictionary), else also amounts of 0 to 4
// decimals, whole numbers, values with short decimals or none in the range
// strconv writes without an exponent, and any bits at all.
func pqFloatValue(rng *rand.Rand, few bool) float64 {
	if few {
		return pqFloatEdges[rng.Intn(len(pqFloatEdges))]
	}
	switch rng.Intn(6) {
	case 0:
		return pqFloatEdges[rng.Intn(len(pqFloatEdges))]
	case 1:
		return float64(rng.Int63n(2e9)-1e9) / pqPow10[rng.Intn(len(pqPow10))]
	case 2:
		return float64(rng.Int63n(2e12) - 1e12)
	case 3:
		return (rng.Float64()*2 - 1) * math.Pow(10, float64(rng.Intn(11)-4))
	case 4:
		return float64(rng.Int63n(1e10)) / math.Pow(10, float64(rng.Intn(15)))
	}
	return math.Float64frombits(rng.Uint64())
}

// pqWriteFloats writes rows rows of sc (pqFloatSchema, perhaps with a field
// added) in row groups of rowGroup rows: doubles from pqFloatValue, an
// eighth of the nullable ones null.
func pqWriteFloats(t *testing.T, sc *arrow.Schema, rows, rowGroup int, seed int64, few bool, props ...parquet.WriterProperty) []byte {
	t.Helper()
	props = append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(int64(rowGroup))}, props...)
	return pqWriteRows(t, sc, rows, seed, func(i int, fb array.Builder, rng *rand.Rand, r int) {
		switch b := fb.(type) {
		case *array.Float64Builder:
			if sc.Field(i).Nullable && rng.Intn(8) == 0 {
				b.AppendNull()
			} else {
				b.Append(pqFloatValue(rng, few))
			}
		case *array.Int64Builder:
			b.Append(int64(r))
		case *array.StringBuilder:
			b.Append(pqWords[rng.Intn(len(pqWords))])
		default:
			pqAppendRandom(fb, rng, 0)
		}
	}, props...)
}

// pqRawDoubles reads column col of data, a flat DOUBLE column, through the
// low-level reader: the bits stored for each row, and which rows are null.
func pqRawDoubles(t *testing.T, data []byte, col int) ([]uint64, []bool) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	nullable := pf.MetaData().Schema.Column(col).MaxDefinitionLevel() > 0
	var bits []uint64
	var nulls []bool
	values, defs := make([]float64, 1024), make([]int16, 1024)
	for rg := range pf.NumRowGroups() {
		cr, err := pf.RowGroup(rg).Column(col)
		if err != nil {
			t.Fatal(err)
		}
		fr, ok := cr.(*file.Float64ColumnChunkReader)
		if !ok {
			t.Fatalf("column %d is read by a %T", col, cr)
		}
		for fr.HasNext() {
			total, n, err := fr.ReadBatch(int64(len(values)), values, defs, nil)
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for j := range int(total) {
				if nullable && defs[j] == 0 {
					bits, nulls = append(bits, 0), append(nulls, true)
					continue
				}
				bits, nulls = append(bits, math.Float64bits(values[k])), append(nulls, false)
				k++
			}
			if k != n {
				t.Fatalf("column %d: %d values for %d levels, %d of them defined", col, n, total, k)
			}
		}
	}
	if int64(len(bits)) != pf.NumRows() {
		t.Fatalf("column %d: %d rows read of %d", col, len(bits), pf.NumRows())
	}
	return bits, nulls
}

// pqFloatResult counts what pqCompareFloats saw in the batches' doubles.
type pqFloatResult struct {
	cells      int // non-null cells compared
	nans       int // NaN cells
	payloadNaN int // NaN cells whose bits in the file are not math.NaN()'s
	negZero    int // -0 cells
	inf        int
	stored     map[uint64]bool // the bits in the file of the cells compared
}

// pqCompareFloats reads data with pqTypedCompare, and also fails the test
// unless every cell of the doubles cols is, in the row the id column idCol
// names, what the file holds (read by pqRawDoubles): null as stored, its
// value the stored bits (math.NaN()'s for any NaN), its text strconv's
// shortest form of the stored double, and the column of kind Float64 in
// every batch.
func pqCompareFloats(t *testing.T, data []byte, kinds []columnar.Kind, path pqPath, cols []int, idCol int) (pqTypedResult, pqFloatResult) {
	t.Helper()
	raw := make([][]uint64, len(cols))
	rawNull := make([][]bool, len(cols))
	for k, c := range cols {
		raw[k], rawNull[k] = pqRawDoubles(t, data, c)
	}
	canonNaN := int64(math.Float64bits(math.NaN()))
	fr := pqFloatResult{stored: map[uint64]bool{}}
	res := pqTypedCompare(t, data, Options{}, kinds, path, func(pr *parquetReader, b *columnar.Batch) {
		ids := &b.Cols[idCol]
		if ids.Kind != columnar.Int || len(ids.Nums) != b.Rows {
			t.Fatalf("id column of kind %d with %d values for %d rows", ids.Kind, len(ids.Nums), b.Rows)
		}
		for k, c := range cols {
			col := &b.Cols[c]
			if col.Kind != columnar.Float64 {
				t.Fatalf("column %d: kind %d, want Float64", c, col.Kind)
			}
			for r := range b.Rows {
				id := ids.Nums[r]
				bits, null := raw[k][id], rawNull[k][id]
				v, cnull := col.Cell(r)
				if cnull != null {
					t.Fatalf("column %d, row %d: null %v, stored null %v", c, id, cnull, null)
				}
				if null {
					continue
				}
				f := math.Float64frombits(bits)
				want := int64(bits)
				if math.IsNaN(f) {
					want = canonNaN
					fr.nans++
					if int64(bits) != canonNaN {
						fr.payloadNaN++
					}
				}
				if col.Nums[r] != want {
					t.Fatalf("column %d, row %d: value %#x, stored %#x, want %#x", c, id, uint64(col.Nums[r]), bits, uint64(want))
				}
				if s := strconv.FormatFloat(f, 'g', -1, 64); v != s {
					t.Fatalf("column %d, row %d: text %q, strconv %q (bits %#x)", c, id, v, s, bits)
				}
				switch {
				case bits == 1<<63:
					fr.negZero++
				case math.IsInf(f, 0):
					fr.inf++
				}
				fr.stored[bits] = true
				fr.cells++
			}
		}
	})
	return res, fr
}

// pqHasDictionaryPage reports whether any column chunk of column col has a
// dictionary page.
func pqHasDictionaryPage(t *testing.T, data []byte, col int) bool {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	for rg := range pf.NumRowGroups() {
		cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(col)
		if err != nil {
			t.Fatal(err)
		}
		if cc.HasDictionaryPage() {
			return true
		}
	}
	return false
}

// pqCheckFloatResult fails the test unless the doubles read covered the
// edge cases: NaNs, -0 and infinities, and, when the file keeps them (a
// dictionary makes every NaN one), NaNs with other bits than math.NaN()'s.
func pqCheckFloatResult(t *testing.T, fr pqFloatResult, payloads bool) {
	t.Helper()
	if fr.nans == 0 || fr.negZero == 0 || fr.inf == 0 || payloads && fr.payloadNaN == 0 {
		t.Fatalf("doubles compared: %d cells, %d NaNs (%d not math.NaN()'s), %d -0, %d infinities",
			fr.cells, fr.nans, fr.payloadNaN, fr.negZero, fr.inf)
	}
	t.Logf("doubles compared: %d cells, %d NaNs (%d not math.NaN()'s), %d -0, %d infinities",
		fr.cells, fr.nans, fr.payloadNaN, fr.negZero, fr.inf)
}

// (f) Doubles on the direct path, in every page layout.
func TestParquetTypedFloat64Direct(t *testing.T) {
	for li, l := range pqDirectLayouts {
		t.Run(l.name, func(t *testing.T) {
			data := pqWriteFloats(t, pqFloatSchema, 6000, 2500, int64(li), false, l.props...)
			res, fr := pqCompareFloats(t, data, pqFloatKinds, pqDirectPath, pqFloatCols, pqFloatID)
			if res.rows != 6000 || res.typedCells < 6000*2 {
				t.Fatalf("read %d rows, %d typed cells", res.rows, res.typedCells)
			}
			pqCheckFloatResult(t, fr, !pqHasDictionaryPage(t, data, 0) && !pqHasDictionaryPage(t, data, 1))
		})
	}
}

// (f) Doubles on the Arrow path alone: a UINT32 column, which the direct
// path declines, takes the file there.
func TestParquetTypedFloat64Arrow(t *testing.T) {
	sc := pqWithField(pqFloatSchema, arrow.Field{Name: "u", Type: arrow.PrimitiveTypes.Uint32, Nullable: true})
	kinds := append(append([]columnar.Kind(nil), pqFloatKinds...), columnar.Text)
	for li, l := range pqDirectLayouts {
		t.Run(l.name, func(t *testing.T) {
			data := pqWriteFloats(t, sc, 6000, 2500, int64(li)+10, false, l.props...)
			res, fr := pqCompareFloats(t, data, kinds, pqArrowPath, pqFloatCols, pqFloatID)
			if res.rows != 6000 || res.typedCells < 6000*2 {
				t.Fatalf("read %d rows, %d typed cells", res.rows, res.typedCells)
			}
			pqCheckFloatResult(t, fr, !pqHasDictionaryPage(t, data, 0) && !pqHasDictionaryPage(t, data, 1))
		})
	}
}

// (f) Dictionary-encoded and PLAIN doubles, few distinct values (all of
// them edge cases), on both paths.
func TestParquetTypedFloat64Encodings(t *testing.T) {
	for _, dict := range []bool{true, false} {
		for _, path := range []pqPath{pqDirectPath, pqArrowPath} {
			sc, kinds := pqFloatSchema, pqFloatKinds
			name := "plain"
			if dict {
				name = "dictionary"
			}
			if path == pqArrowPath {
				sc = pqWithField(sc, arrow.Field{Name: "u", Type: arrow.PrimitiveTypes.Uint32, Nullable: true})
				kinds = append(append([]columnar.Kind(nil), kinds...), columnar.Text)
				name += " arrow"
			} else {
				name += " direct"
			}
			t.Run(name, func(t *testing.T) {
				data := pqWriteFloats(t, sc, 6000, 2500, 7, true, parquet.WithDictionaryDefault(dict))
				pqCheckEncodings(t, data, 2, dict)
				res, fr := pqCompareFloats(t, data, kinds, path, pqFloatCols, pqFloatID)
				if res.rows != 6000 || res.typedCells < 6000*2 {
					t.Fatalf("read %d rows, %d typed cells", res.rows, res.typedCells)
				}
				pqCheckFloatResult(t, fr, !dict)
				// Every edge case reached the batches as written: the NaNs
				// with their own bits in the file unless a dictionary made
				// them one.
				for _, f := range pqFloatEdges {
					if bits := math.Float64bits(f); !fr.stored[bits] && (!dict || !math.IsNaN(f)) {
						t.Errorf("%v (bits %#x) is in no cell compared", f, bits)
					}
				}
			})
		}
	}
}

// Runs of nulls. A batch column of a typed column that holds nulls alone
// is still of the column's kind, on every path: the Arrow path's record
// batches, the direct path's windows, and the rows the direct path carries
// over to the next batch in spill.

// pqStrictKinds returns a check for pqTypedCompare's after: every batch
// column of a typed kind in kinds is of that kind, nulls alone or not. It
// counts in *nullOnly the batches in which column col is nulls alone.
func pqStrictKinds(t *testing.T, kinds []columnar.Kind, col int, nullOnly *int) func(*parquetReader, *columnar.Batch) {
	return func(pr *parquetReader, b *columnar.Batch) {
		t.Helper()
		for i := range b.Cols {
			c := &b.Cols[i]
			if kinds[i] != columnar.Text && c.Kind != kinds[i] {
				nulls := 0
				for _, null := range c.Nulls[:b.Rows] {
					if null {
						nulls++
					}
				}
				t.Fatalf("a batch of %d rows: column %d of kind %d, want %d (%d nulls)", b.Rows, i, c.Kind, kinds[i], nulls)
			}
		}
		all := b.Rows > 0
		for _, null := range b.Cols[col].Nulls[:b.Rows] {
			all = all && null
		}
		if all {
			(*nullOnly)++
		}
	}
}

func TestParquetTypedNullRuns(t *testing.T) {
	// Values in rows [0, 32768), nulls in [32768, 65536), values after: a
	// batch of MaxRows rows holds the nulls alone.
	base := []arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	}
	baseKinds := []columnar.Kind{columnar.Int, columnar.Float64, columnar.Date, columnar.TimestampUS, columnar.Int}
	const rows = 80_000
	inRun := func(r int) bool { return r >= columnar.MaxRows && r < 2*columnar.MaxRows }
	for _, c := range []struct {
		name  string
		extra []arrow.Field
		kinds []columnar.Kind
		path  pqPath
	}{
		{"arrow", []arrow.Field{{Name: "u", Type: arrow.PrimitiveTypes.Uint32, Nullable: true}}, []columnar.Kind{columnar.Text}, pqArrowPath},
		{"direct", nil, nil, pqDirectPath},
	} {
		t.Run(c.name, func(t *testing.T) {
			sc := arrow.NewSchema(append(append([]arrow.Field(nil), base...), c.extra...), nil)
			kinds := append(append([]columnar.Kind(nil), baseKinds...), c.kinds...)
			data := pqWriteRows(t, sc, rows, 11, func(i int, fb array.Builder, rng *rand.Rand, r int) {
				switch {
				case sc.Field(i).Name == "id":
					fb.(*array.Int64Builder).Append(int64(r))
				case i < 4 && inRun(r):
					fb.AppendNull()
				case i < 4:
					pqAppendValue(fb, rng, 0)
				default:
					pqAppendRandom(fb, rng, 0)
				}
			}, parquet.WithMaxRowGroupLength(1<<20))
			nullOnly := 0
			res := pqTypedCompare(t, data, Options{}, kinds, c.path, pqStrictKinds(t, kinds, 0, &nullOnly))
			if res.rows != rows || nullOnly == 0 {
				t.Fatalf("read %d rows in %d batches, %d of them with nulls alone in column n", res.rows, res.batches, nullOnly)
			}
		})
	}

	// Rows of about 40 KiB in row groups of 700 rows, longer towards the
	// end of a row group than its average, by which the direct path sizes
	// its windows: windows pass the batch's byte bound and leave rows in
	// spill, which the next batch takes alone. From row 1000 on the typed
	// columns hold nulls alone.
	t.Run("direct spill", func(t *testing.T) {
		sc := arrow.NewSchema([]arrow.Field{
			{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
			{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
			{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
		}, nil)
		kinds := []columnar.Kind{columnar.Int, columnar.Float64, columnar.TimestampNS, columnar.Text}
		data := pqWriteRows(t, sc, 2000, 12, func(i int, fb array.Builder, rng *rand.Rand, r int) {
			switch {
			case i == 3:
				fb.(*array.StringBuilder).Append(strings.Repeat(string(rune('a'+rng.Intn(26))), 20_000+r%700*60))
			case r >= 1000:
				fb.AppendNull()
			default:
				pqAppendValue(fb, rng, 0)
			}
		}, parquet.WithMaxRowGroupLength(700))
		// pending is the rows left in spill after the last batch: a batch
		// of no more rows than that is made of them alone.
		nullOnly, spillNullOnly, pending := 0, 0, 0
		strict := pqStrictKinds(t, kinds, 0, &nullOnly)
		res := pqTypedCompare(t, data, Options{}, kinds, pqDirectPath, func(pr *parquetReader, b *columnar.Batch) {
			before := nullOnly
			strict(pr, b)
			if pending > 0 && b.Rows <= pending && nullOnly > before {
				spillNullOnly++
			}
			pending = pr.direct.spill.Rows - pr.direct.spillAt
		})
		if res.rows != 2000 || spillNullOnly == 0 {
			t.Fatalf("%d rows in %d batches, %d with nulls alone in column n, %d of them made of spill alone",
				res.rows, res.batches, nullOnly, spillNullOnly)
		}
		t.Logf("%d batches, %d with nulls alone in column n, %d of them made of spill alone", res.batches, nullOnly, spillNullOnly)
	})
}
