package readers

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/dqs/dqs/columnar"
)

// The direct path of NextBatch must give the rows Next gives through
// Arrow, for every layout writers produce, and fail like Next on corrupt
// files. Next itself never takes the direct path, so comparing the two is
// comparing the direct decoder with arrow-go's.

// pqDirectSchema has a column of every type the direct path decodes, two
// of them required.
var pqDirectSchema = arrow.NewSchema([]arrow.Field{
	{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "int32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "int64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "float32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "float64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "string", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "binary", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "date32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts_ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "ts_us", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
	// Parquet has no seconds: pqarrow writes milliseconds, read back as such.
	{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second, TimeZone: "UTC"}, Nullable: true},
	{Name: "status", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "required_id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "required_name", Type: arrow.BinaryTypes.String},
}, nil)

// pqDirectLayouts are writer settings that change how pages are laid out.
var pqDirectLayouts = []struct {
	name  string
	props []parquet.WriterProperty
}{
	{"v1 snappy dictionary", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Snappy)}},
	// Small pages, and dictionaries that fill up and give way to PLAIN
	// pages partway through a column chunk.
	{"v2 zstd small pages", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(2 << 10),
		parquet.WithDictionaryPageSizeLimit(4 << 10)}},
	{"v1 uncompressed plain", []parquet.WriterProperty{parquet.WithDictionaryDefault(false)}},
	{"v2 gzip uncompressed dictionary", []parquet.WriterProperty{parquet.WithCompression(compress.Codecs.Gzip),
		parquet.WithDataPageVersion(parquet.DataPageV2), parquet.WithDataPageSize(512)}},
}

// pqWriteDirectFile writes rows random rows of pqDirectSchema in row groups
// of rowGroup rows, with the writer settings given.
func pqWriteDirectFile(t testing.TB, rows, rowGroup int, seed int64, props ...parquet.WriterProperty) []byte {
	t.Helper()
	statuses := []string{"new", "paid", "shipped", "returned"}
	props = append([]parquet.WriterProperty{parquet.WithMaxRowGroupLength(int64(rowGroup))}, props...)
	return pqWriteRows(t, pqDirectSchema, rows, seed, func(i int, fb array.Builder, rng *rand.Rand, r int) {
		switch pqDirectSchema.Field(i).Name {
		case "status": // few distinct values: dictionary pages throughout
			if rng.Intn(10) == 0 {
				fb.AppendNull()
			} else {
				fb.(*array.StringBuilder).Append(statuses[rng.Intn(len(statuses))])
			}
		case "required_id":
			fb.(*array.Int64Builder).Append(int64(r))
		case "required_name":
			fb.(*array.StringBuilder).Append(pqWords[rng.Intn(len(pqWords))])
		default:
			pqAppendRandom(fb, rng, 0)
		}
	}, props...)
}

// pqReadDirect reads data through NextBatch and fails the test unless the
// direct path read all of it.
func pqReadDirect(t *testing.T, data []byte, opt Options) [][]string {
	t.Helper()
	r, err := openParquetWith(bytes.NewReader(data), opt.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	if r.(*parquetReader).direct == nil {
		t.Fatal("the file is not read through the direct path")
	}
	rows, readErr, broken := pqReadRows(r, true)
	if readErr != nil || broken != nil {
		t.Fatalf("read error %v, broken batch %v", readErr, broken)
	}
	if r.(*parquetReader).direct == nil {
		t.Fatal("the direct path handed over to Arrow on a sound file")
	}
	return rows
}

func TestParquetDirectLayouts(t *testing.T) {
	for _, l := range pqDirectLayouts {
		t.Run(l.name, func(t *testing.T) {
			// Row groups end within the windows of 16384 rows.
			data := pqWriteDirectFile(t, 40_000, 15_000, 1, l.props...)
			want, err := pqMustCompareReads(t, data, Options{}, false)
			if err != nil || len(want) != 40_000 {
				t.Fatalf("Next read %d rows, err %v", len(want), err)
			}
			if got := pqReadDirect(t, data, Options{}); !reflect.DeepEqual(got, want) {
				t.Fatal("the direct path's rows differ from Next's")
			}
		})
	}
}

// Rows of about 40 KiB: a window of rows passes the batch's byte bound and
// leaves rows for the next batch.
func TestParquetDirectByteBound(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "n", Type: arrow.PrimitiveTypes.Int64},
		{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &out, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(700)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	rng := rand.New(rand.NewSource(3))
	for i := range 2000 {
		rb.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%7 == 0 {
			rb.Field(1).AppendNull()
		} else {
			rb.Field(1).(*array.StringBuilder).Append(strings.Repeat(string(rune('a'+rng.Intn(26))), 30_000+rng.Intn(20_000)))
		}
	}
	rec := rb.NewRecordBatch()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	rb.Release()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want, err := pqMustCompareReads(t, out.Bytes(), Options{}, false)
	if err != nil || len(want) != 2000 {
		t.Fatalf("Next read %d rows, err %v", len(want), err)
	}
	if got := pqReadDirect(t, out.Bytes(), Options{}); !reflect.DeepEqual(got, want) {
		t.Fatal("the direct path's rows differ from Next's")
	}
	// A value over the field limit: Arrow takes over and words the error.
	rows, err := pqMustCompareReads(t, out.Bytes(), Options{MaxFieldBytes: 45_000}, false)
	if err == nil || !strings.Contains(err.Error(), "larger than") || len(rows) == 0 {
		t.Fatalf("read %d rows, err %v; want the field limit's error after some rows", len(rows), err)
	}
}

// Pages of a million values each (constant columns, a few bytes per page):
// the direct path decodes their levels and indices a window at a time, not
// a page at a time, so its memory does not grow with the pages.
func TestParquetDirectLargePages(t *testing.T) {
	const cols, rows = 20, 1_000_000
	var fields []arrow.Field
	for i := range cols {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("c%d", i), Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	}
	sc := arrow.NewSchema(fields, nil)
	data := pqWriteRows(t, sc, rows, 1, func(i int, fb array.Builder, _ *rand.Rand, r int) {
		if r%1000 == 999 {
			fb.AppendNull()
		} else {
			fb.(*array.Int32Builder).Append(int32(i))
		}
	}, parquet.WithMaxRowGroupLength(rows), parquet.WithDataPageSize(1<<30), parquet.WithDictionaryDefault(true))
	r, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b := columnar.NewBatch(cols)
	read, nulls := 0, 0
	for {
		b.Reset()
		err := FillBatch(r, b)
		read += b.Rows
		for k := range b.Rows {
			if _, null := b.Cols[7].Cell(k); null {
				nulls++
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if read != rows || nulls != rows/1000 || r.(*parquetReader).direct == nil {
		t.Fatalf("read %d rows, %d nulls in a column, direct path kept %v", read, nulls, r.(*parquetReader).direct != nil)
	}
	// Whole pages would take 4 bytes per level and per index: 160 MB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading allocated %d MB", alloc>>20)
	}
}

// A batch may stop short of its bounds before a window that would pass
// them, but a call always adds rows, also to a batch that already holds
// some: a caller filling until full must not spin.
func TestParquetDirectAddsRows(t *testing.T) {
	const rows = 60_000
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	data := pqWriteRows(t, sc, rows, 1, func(_ int, fb array.Builder, rng *rand.Rand, _ int) {
		fb.(*array.StringBuilder).Append(strings.Repeat(string(rune('a'+rng.Intn(26))), 200))
	}, parquet.WithDictionaryDefault(false))
	r, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	b := columnar.NewBatch(1)
	read, short := 0, false
	for calls := 0; ; calls++ {
		if calls > rows {
			t.Fatal("FillBatch keeps adding no rows")
		}
		if b.Full() {
			read += b.Rows
			b.Reset()
		}
		before := b.Rows
		err := FillBatch(r, b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if b.Rows == before {
			t.Fatalf("call %d added no rows to a batch of %d", calls, before)
		}
		short = short || !b.Full()
		if err := pqCheckBatch(b, nil); err != nil {
			t.Fatal(err)
		}
	}
	if read += b.Rows; read != rows || !short || r.(*parquetReader).direct == nil {
		t.Fatalf("read %d rows, a batch stopped short %v, direct path kept %v", read, short, r.(*parquetReader).direct != nil)
	}
}

// One long dictionary value repeated, over the field limit: a file of a few
// kilobytes whose record of 16,384 rows would hold 330 MB of text. Both the
// direct path and the Arrow path it hands over to stop at the first such
// value, and the error is Next's.
func TestParquetLongDictionaryValue(t *testing.T) {
	const rows, size = 17_000, 20_000
	long := strings.Repeat("x", size)
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String}}, nil)
	data := pqWriteRows(t, sc, rows, 1, func(_ int, fb array.Builder, _ *rand.Rand, _ int) {
		fb.(*array.StringBuilder).Append(long)
	}, parquet.WithDictionaryDefault(true), parquet.WithCompression(compress.Codecs.Snappy))
	opt := Options{MaxFieldBytes: size / 2}
	if _, err := pqMustCompareReads(t, data, opt, false); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err %v; want the field limit's error", err)
	}
	r, err := openParquetWith(bytes.NewReader(data), opt.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err = FillBatch(r, columnar.NewBatch(1))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err %v; want the field limit's error", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Errorf("reading allocated %d MB", alloc>>20)
	}
}

// Types the direct path leaves to Arrow: a file with any of them is read
// through Arrow throughout.
func TestParquetDirectDeclines(t *testing.T) {
	for _, f := range []arrow.Field{
		{Name: "int8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "uint32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
		{Name: "decimal", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
		{Name: "list", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
		{Name: "struct", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64}), Nullable: true},
		{Name: "fixed", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4}, Nullable: true},
	} {
		sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, f}, nil)
		data := pqWriteFile(t, sc, 300, 100, 1)
		r, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), false)
		if err != nil {
			t.Fatal(err)
		}
		if r.(*parquetReader).direct != nil {
			t.Errorf("%s: read through the direct path", f.Type)
		}
		pqMustCompareReads(t, data, Options{}, false)
	}
}

// Corrupt bytes anywhere in files the direct path reads: NextBatch must
// fail, or not, exactly as Next does.
func TestParquetDirectCorrupted(t *testing.T) {
	rounds := 60
	if testing.Short() {
		rounds = 15
	}
	rng := rand.New(rand.NewSource(5))
	for li, l := range pqDirectLayouts {
		orig := pqWriteDirectFile(t, 3000, 1000, int64(li), l.props...)
		pqCompareCorrupted(t, l.name, orig, rounds, 6, rng)
	}
}

func TestDecodeHybrid(t *testing.T) {
	cases := []struct {
		name string
		src  []byte
		bw   int
		n    int
		want []uint32
	}{
		{"repeated", []byte{4 << 1, 7}, 3, 4, []uint32{7, 7, 7, 7}},
		{"repeated, two bytes", []byte{3 << 1, 0x34, 0x12}, 13, 3, []uint32{0x1234, 0x1234, 0x1234}},
		// One group of 8 three-bit values 0..7, least significant first.
		{"bit-packed", []byte{1<<1 | 1, 0x88, 0xC6, 0xFA}, 3, 8, []uint32{0, 1, 2, 3, 4, 5, 6, 7}},
		{"bit-packed, fewer asked", []byte{1<<1 | 1, 0x88, 0xC6, 0xFA}, 3, 5, []uint32{0, 1, 2, 3, 4}},
		{"bit-packed, last group cut short", []byte{1<<1 | 1, 0x88}, 3, 2, []uint32{0, 1}},
		{"runs in turn", []byte{2 << 1, 1, 1<<1 | 1, 0xAA}, 1, 10, []uint32{1, 1, 0, 1, 0, 1, 0, 1, 0, 1}},
		{"width 0", []byte{5 << 1}, 0, 5, []uint32{0, 0, 0, 0, 0}},
	}
	decode := func(src []byte, bw, n int) ([]uint32, error) {
		var h hybridDecoder
		h.reset(src, bw)
		dst := make([]uint32, n)
		return dst, h.read(dst)
	}
	for _, c := range cases {
		got, err := decode(c.src, c.bw, c.n)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, %v; want %v", c.name, got, err, c.want)
		}
	}
	for _, bad := range []struct {
		name string
		src  []byte
		bw   int
	}{
		{"empty", nil, 1},
		{"repeated value missing", []byte{4 << 1}, 8},
		{"bit-packed bytes missing", []byte{2<<1 | 1, 0xFF}, 8},
		{"header cut", []byte{0x80}, 1},
		{"width over 32", []byte{4 << 1, 1}, 33},
		// Arrow takes a run of no values for the end of the data.
		{"empty repeated run", []byte{0, 1, 4 << 1, 1}, 1},
		{"empty bit-packed run", []byte{1, 4 << 1, 1}, 1},
	} {
		if _, err := decode(bad.src, bad.bw, 4); err == nil {
			t.Errorf("%s: no error", bad.name)
		}
	}
}

// TestDecodeHybridRandom decodes random sequences of repeated and
// bit-packed runs of every bit width, read in random slices, against the
// values they were made of: long bit-packed runs take the word-at-a-time
// path, which must stop at each run's last byte.
func TestDecodeHybridRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for bw := 0; bw <= 32; bw++ {
		for trial := range 20 {
			var src []byte
			var want []uint32
			value := func() uint32 {
				if bw == 0 {
					return 0
				}
				return uint32(rng.Uint64() & (1<<bw - 1))
			}
			for range 1 + rng.Intn(8) {
				if rng.Intn(2) == 0 { // repeated
					n, v := 1+rng.Intn(40), value()
					src = binary.AppendUvarint(src, uint64(n)<<1)
					for b := range (bw + 7) / 8 {
						src = append(src, byte(v>>(8*b)))
					}
					for range n {
						want = append(want, v)
					}
					continue
				}
				groups := 1 + rng.Intn(6)
				src = binary.AppendUvarint(src, uint64(groups)<<1|1)
				var acc uint64
				bits := 0
				for range groups * 8 {
					v := value()
					want = append(want, v)
					acc |= uint64(v) << bits
					for bits += bw; bits >= 8; bits -= 8 {
						src = append(src, byte(acc))
						acc >>= 8
					}
				}
			}
			var h hybridDecoder
			h.reset(src, bw)
			got := make([]uint32, 0, len(want))
			for len(got) < len(want) {
				dst := make([]uint32, min(len(want)-len(got), 1+rng.Intn(20)))
				if err := h.read(dst); err != nil {
					t.Fatalf("width %d, trial %d: %v", bw, trial, err)
				}
				got = append(got, dst...)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("width %d, trial %d: got %v, want %v", bw, trial, got, want)
			}
		}
	}
}

// BenchmarkDecodeHybrid decodes dictionary indices of 17 bits (a row
// group's dictionary of 131,072 values), bit-packed, a window at a time.
func BenchmarkDecodeHybrid(b *testing.B) {
	const n, bw = 16 << 10, 17
	src := binary.AppendUvarint(nil, uint64(n/8)<<1|1)
	var acc uint64
	bits := 0
	for i := range n {
		acc |= uint64(i*7919%(1<<bw)) << bits
		for bits += bw; bits >= 8; bits -= 8 {
			src = append(src, byte(acc))
			acc >>= 8
		}
	}
	dst := make([]uint32, n)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		var h hybridDecoder
		h.reset(src, bw)
		if err := h.read(dst); err != nil {
			b.Fatal(err)
		}
	}
}

// TestAppendDictValues checks the word-copying of dictionary values against
// plain appends: values around the word-copy length, the empty value, and
// text whose room runs out in the middle of a window.
func TestAppendDictValues(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var d chunkDecoder
	for k := range 60 {
		n := k % 20 // 0 … 19 bytes: both sides of wordCopy
		if k >= 40 {
			n = 100 + k
		}
		for range n {
			d.dict.text = append(d.dict.text, byte('a'+rng.Intn(26)))
		}
		d.dict.ends = append(d.dict.ends, len(d.dict.text))
	}
	d.dict.text = slices.Grow(d.dict.text, wordCopy)
	for trial := range 200 {
		idx := make([]uint32, rng.Intn(300))
		for i := range idx {
			idx[i] = uint32(rng.Intn(len(d.dict.ends)))
		}
		text := make([]byte, rng.Intn(8), rng.Intn(400)+8) // room for some values only
		for i := range text {
			text[i] = 'x'
		}
		ends := []int32{int32(len(text))}
		wantText, wantEnds := slices.Clone(text), slices.Clone(ends)
		for _, ix := range idx {
			wantText = append(wantText, d.dict.value(int(ix))...)
			wantEnds = append(wantEnds, int32(len(wantText)))
		}
		gotText, gotEnds := d.appendDictValues(text, ends, idx)
		if string(gotText) != string(wantText) || !slices.Equal(gotEnds, wantEnds) {
			t.Fatalf("trial %d: got %q %v, want %q %v", trial, gotText, gotEnds, wantText, wantEnds)
		}
	}
}
