package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/dqs/dqs/columnar"
)

// NextBatch must give exactly the rows Next gives, and fail where Next
// fails with the same error, whatever the file.

// pqReadRows reads r to the end through Next or, batched, through FillBatch.
// It returns the rows read before the first error (nulls as nullMark), the
// error, and what is wrong with a batch when one breaks its contract.
func pqReadRows(r Reader, batched bool) (rows [][]string, readErr, broken error) {
	if !batched {
		rows, err := pqReadRowsN(r, -1)
		if err == io.EOF {
			err = nil
		}
		return rows, err, nil
	}
	b := columnar.NewBatch(len(r.Columns()))
	codes := pqCodes{}
	for {
		b.Reset()
		err := FillBatch(r, b)
		if broken := pqCheckBatch(b, err); broken != nil {
			return rows, err, broken
		}
		if broken := codes.check(b); broken != nil {
			return rows, err, broken
		}
		rows = append(rows, pqBatchRows(b)...)
		if err == io.EOF {
			return rows, nil, nil
		}
		if err != nil {
			return rows, err, nil
		}
	}
}

// pqReadRowsN reads up to n rows (all when n < 0) through Next.
func pqReadRowsN(r Reader, n int) ([][]string, error) {
	var rows [][]string
	for ; n != 0; n-- {
		rec, err := r.Next()
		if err != nil {
			return rows, err
		}
		rows = append(rows, recordRow(rec))
	}
	return rows, nil
}

// recordRow is a record's values with nulls as nullMark.
func recordRow(rec *Record) []string {
	row := make([]string, len(rec.Values))
	for i, v := range rec.Values {
		if rec.Null[i] {
			v = nullMark
		}
		row[i] = v
	}
	return row
}

// pqCodes checks batch columns' dictionary codes across batches: a code of
// a dictionary stands for one value wherever it shows up.
type pqCodes map[pqCode]string

type pqCode struct {
	dict uint64
	code int32
}

func (m pqCodes) check(b *columnar.Batch) error {
	for i := range b.Cols {
		c := &b.Cols[i]
		for k, code := range c.Codes {
			v, null := c.Cell(k)
			if null {
				continue
			}
			key := pqCode{c.Dict, code}
			if w, ok := m[key]; ok && w != v {
				return fmt.Errorf("column %d: code %d of dictionary %d stands for %q and %q", i, code, c.Dict, w, v)
			}
			m[key] = strings.Clone(v)
		}
	}
	return nil
}

func pqBatchRows(b *columnar.Batch) [][]string {
	rows := make([][]string, b.Rows)
	for k := range rows {
		rows[k] = make([]string, len(b.Cols))
		for i := range b.Cols {
			v, null := b.Cols[i].Cell(k)
			if null {
				v = nullMark
			}
			rows[k][i] = strings.Clone(v) // v is a view of the batch's buffer
		}
	}
	return rows
}

// pqCheckBatch checks a batch that FillBatch returned: every column holds a
// cell per row, nulls have no text, and the batch stops where the
// row-by-row FillBatch would, at its row bound or at the row that took its
// text to the byte bound.
func pqCheckBatch(b *columnar.Batch, err error) error {
	for i := range b.Cols {
		c := &b.Cols[i]
		if c.Len() != b.Rows || len(c.Nulls) != b.Rows {
			return fmt.Errorf("column %d has %d cells for %d rows", i, c.Len(), b.Rows)
		}
		if len(c.Codes) > c.Len() {
			return fmt.Errorf("column %d has %d codes for %d cells", i, len(c.Codes), c.Len())
		}
		for k := 0; k < b.Rows; k++ {
			if v, null := c.Cell(k); null && v != "" {
				return fmt.Errorf("column %d row %d: null with text %q", i, k, v)
			}
		}
	}
	switch {
	case err == io.EOF && b.Rows != 0:
		return fmt.Errorf("io.EOF with %d rows", b.Rows)
	case b.Rows > b.MaxRows():
		return fmt.Errorf("%d rows, more than the bound of %d", b.Rows, b.MaxRows())
	case b.Rows > 1 && textBytes(b, b.Rows-1) >= columnar.MaxBytes:
		return fmt.Errorf("rows after the one that took the text to %d bytes", columnar.MaxBytes)
	}
	return nil
}

// pqCompareReads reads data through Next and through NextBatch, and returns
// what Next read and a description of any difference.
func pqCompareReads(data []byte, opt Options, plain bool) (rows [][]string, readErr, diff error) {
	open := func() (Reader, error) {
		return openParquetWith(bytes.NewReader(data), opt.withDefaults(), plain)
	}
	rn, err := open()
	if err != nil {
		return nil, err, nil
	}
	next, nextErr, _ := pqReadRows(rn, false)
	rb, err := open()
	if err != nil {
		return nil, nil, fmt.Errorf("the second open failed: %v", err)
	}
	batch, batchErr, broken := pqReadRows(rb, true)
	switch {
	case broken != nil:
		return next, nextErr, broken
	case fmt.Sprint(nextErr) != fmt.Sprint(batchErr) ||
		errors.Is(nextErr, ErrMalformed) != errors.Is(batchErr, ErrMalformed) ||
		errors.Is(nextErr, ErrUnsupported) != errors.Is(batchErr, ErrUnsupported):
		return next, nextErr, fmt.Errorf("Next fails with %v, NextBatch with %v", nextErr, batchErr)
	case len(next) != len(batch):
		return next, nextErr, fmt.Errorf("Next reads %d rows, NextBatch %d", len(next), len(batch))
	}
	for i := range next {
		if !reflect.DeepEqual(next[i], batch[i]) {
			return next, nextErr, fmt.Errorf("row %d: Next %q, NextBatch %q", i+1, pqShortRow(next[i]), pqShortRow(batch[i]))
		}
	}
	return next, nextErr, nil
}

// pqShortRow cuts long values, for messages.
func pqShortRow(row []string) []string {
	out := make([]string, len(row))
	for i, v := range row {
		if len(v) > 60 {
			v = fmt.Sprintf("%s...(%d bytes)", v[:60], len(v))
		}
		out[i] = v
	}
	return out
}

// pqMustCompareReads is pqCompareReads failing the test on a difference.
func pqMustCompareReads(t *testing.T, data []byte, opt Options, plain bool) ([][]string, error) {
	t.Helper()
	rows, err, diff := pqCompareReads(data, opt, plain)
	if diff != nil {
		t.Fatal(diff)
	}
	return rows, err
}

func TestParquetBatchesFixtures(t *testing.T) {
	for _, sub := range []string{"parquet-testing/data", "parquet-testing/bad_data", "parquet-testing/shredded_variant"} {
		dir := fixturesDir(t, sub)
		for _, path := range parquetFiles(t, dir) {
			t.Run(filepath.Base(path), func(t *testing.T) {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for _, plain := range []bool{false, true} {
					pqMustCompareReads(t, data, Options{}, plain)
				}
			})
		}
	}
}

func TestParquetBatchesGenerated(t *testing.T) {
	cases := []struct {
		name           string
		sc             *arrow.Schema
		rows, rowGroup int
	}{
		// Records end with row groups of 700 rows, batches every 13443.
		{"all types", pqAllTypesSchema, 5000, 700},
		// Row groups of 50000 rows put record ends off batch ends.
		{"row bound", pqMixedSchema, 100_000, 50_000},
		// Rows of 4 KiB: the byte bound ends batches within records.
		{"byte bound", pqWideTextSchema, 6000, 6000},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := pqWriteFile(t, c.sc, c.rows, c.rowGroup, 1)
			rows, err := pqMustCompareReads(t, data, Options{}, false)
			if err != nil || len(rows) != c.rows {
				t.Fatalf("read %d rows, err %v; want %d", len(rows), err, c.rows)
			}
			if c.sc == pqAllTypesSchema {
				pqMustCompareReads(t, data, Options{}, true)
			}
		})
	}
}

func TestParquetBatchesInterleaved(t *testing.T) {
	data := pqWriteFile(t, pqMixedSchema, 40_000, 15_000, 2)
	want, err := pqMustCompareReads(t, data, Options{}, false)
	if err != nil {
		t.Fatal(err)
	}
	r, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), false)
	if err != nil {
		t.Fatal(err)
	}
	// Next and NextBatch share one cursor.
	var got [][]string
	b := columnar.NewBatch(len(r.Columns()))
	for {
		rows, err := pqReadRowsN(r, 777)
		got = append(got, rows...)
		if err == io.EOF {
			break
		}
		b.Reset()
		if err := FillBatch(r, b); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		got = append(got, pqBatchRows(b)...)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("interleaved reads give %d rows, differing from the %d of Next", len(got), len(want))
	}
}

func TestParquetBatchesFieldLimit(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	data, err := os.ReadFile(filepath.Join(dir, "binary_truncated_min_max.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pqMustCompareReads(t, data, Options{MaxFieldBytes: 5}, false); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "row 1") {
		t.Fatalf("err = %v", err)
	}
	// A value over the limit deep in a file, after batches of rows that
	// fit: the long values are the rare binary ones, in base64.
	data = pqWriteFile(t, pqWideTextSchema, 6000, 6000, 3)
	rows, err := pqMustCompareReads(t, data, Options{MaxFieldBytes: 5000}, false)
	if !errors.Is(err, ErrUnsupported) || len(rows) < 1000 {
		t.Fatalf("read %d rows, err = %v; want an error after 1000 rows", len(rows), err)
	}
}

// TestParquetBatchesCorrupted flips bytes in files, as
// TestParquetCorruptedBytes does: NextBatch must fail, or not, like Next.
func TestParquetBatchesCorrupted(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	files := []string{"alltypes_plain.parquet", "nested_structs.rust.parquet", "nullable.impala.parquet",
		"datapage_v2.snappy.parquet", "delta_byte_array.parquet", "nested_maps.snappy.parquet", "alltypes_dictionary.parquet"}
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	rng := rand.New(rand.NewSource(2))
	for _, name := range files {
		orig, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		pqCompareCorrupted(t, name, orig, rounds, 8, rng)
	}
}

// pqCompareCorrupted flips up to maxFlips bytes of orig at random, rounds
// times, and fails the test where NextBatch does not fail, or not, exactly
// as Next does, panics or hangs.
func pqCompareCorrupted(t *testing.T, name string, orig []byte, rounds, maxFlips int, rng *rand.Rand) {
	t.Helper()
	failed := 0
	for round := range rounds {
		data := append([]byte(nil), orig...)
		for range 1 + rng.Intn(maxFlips) {
			data[rng.Intn(len(data)-8)] = byte(rng.Intn(256))
		}
		type result struct{ err, diff error }
		done := make(chan result, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- result{diff: fmt.Errorf("PANIC: %v", p)}
				}
			}()
			_, err, diff := pqCompareReads(data, Options{}, false)
			done <- result{err, diff}
		}()
		select {
		case res := <-done:
			if res.diff != nil {
				t.Fatalf("%s round %d: %v", name, round, res.diff)
			}
			if res.err != nil {
				failed++
			}
		case <-time.After(timeLimit):
			t.Fatalf("%s round %d: hang", name, round)
		}
	}
	t.Logf("%s: %d of %d rounds failed alike", name, failed, rounds)
}

// pqAllTypesSchema has a column of every Arrow type the formatter handles,
// nested ones included. The Arrow schema is stored in the file, so types
// such as dictionaries, large strings and durations come back as written.
var pqAllTypesSchema = arrow.NewSchema([]arrow.Field{
	{Name: "bool", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "int8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "int16", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "int32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "int64", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "uint8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},
	{Name: "uint16", Type: arrow.PrimitiveTypes.Uint16, Nullable: true},
	{Name: "uint32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},
	{Name: "uint64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
	{Name: "float16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
	{Name: "float32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "float64", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "string", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "large_string", Type: arrow.BinaryTypes.LargeString, Nullable: true},
	{Name: "binary", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "fixed", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
	{Name: "date32", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "date64", Type: arrow.FixedWidthTypes.Date64, Nullable: true},
	{Name: "ts_s", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
	{Name: "ts_ms_utc", Type: &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "ts_us_ny", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "America/New_York"}, Nullable: true},
	{Name: "ts_ns", Type: &arrow.TimestampType{Unit: arrow.Nanosecond}, Nullable: true},
	{Name: "time32", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
	{Name: "time64_us", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
	{Name: "time64_ns", Type: arrow.FixedWidthTypes.Time64ns, Nullable: true},
	{Name: "dec9_2", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
	{Name: "dec38_10", Type: &arrow.Decimal128Type{Precision: 38, Scale: 10}, Nullable: true},
	{Name: "dec20_0", Type: &arrow.Decimal128Type{Precision: 20, Scale: 0}, Nullable: true},
	{Name: "dec60_20", Type: &arrow.Decimal256Type{Precision: 60, Scale: 20}, Nullable: true},
	{Name: "dict", Type: &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}, Nullable: true},
	{Name: "uuid", Type: extensions.NewUUIDType(), Nullable: true},
	{Name: "list_int", Type: arrow.ListOf(arrow.PrimitiveTypes.Int64), Nullable: true},
	{Name: "list_string", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	{Name: "list_float", Type: arrow.ListOf(arrow.PrimitiveTypes.Float64), Nullable: true},
	{Name: "map", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int32), Nullable: true},
	{Name: "struct", Type: arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.StructOf(
			arrow.Field{Name: "c", Type: arrow.BinaryTypes.String, Nullable: true},
			arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		), Nullable: true},
	), Nullable: true},
	{Name: "list_struct", Type: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.BinaryTypes.Binary, Nullable: true},
	)), Nullable: true},
}, nil)

// pqMixedSchema is a table like the profiling benchmark's.
var pqMixedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "born", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "created_at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "active", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// pqWideTextSchema has rows of about 4 KiB.
var pqWideTextSchema = arrow.NewSchema([]arrow.Field{
	{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "text", Type: &arrow.FixedSizeBinaryType{ByteWidth: 4000}, Nullable: true},
}, nil)

// pqWriteFile writes rows random rows of schema sc (a tenth of them null
// per column) in row groups of rowGroup rows.
func pqWriteFile(t testing.TB, sc *arrow.Schema, rows, rowGroup int, seed int64) []byte {
	return pqWriteRows(t, sc, rows, seed, func(_ int, fb array.Builder, rng *rand.Rand, _ int) {
		pqAppendRandom(fb, rng, 0)
	}, parquet.WithMaxRowGroupLength(int64(rowGroup)), parquet.WithDictionaryDefault(true))
}

// pqWriteRows writes rows rows of schema sc with the writer settings given
// (the Arrow schema stored), appending field i of row r with appendField.
func pqWriteRows(t testing.TB, sc *arrow.Schema, rows int, seed int64,
	appendField func(i int, fb array.Builder, rng *rand.Rand, r int), props ...parquet.WriterProperty) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &out, parquet.NewWriterProperties(props...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	rng := rand.New(rand.NewSource(seed))
	for done := 0; done < rows; {
		n := min(rows-done, 1000)
		for k := range n {
			for i, fb := range rb.Fields() {
				appendField(i, fb, rng, done+k)
			}
		}
		rec := rb.NewRecordBatch()
		if err := w.WriteBuffered(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
		done += n
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// Values that exercise formatting edge cases.
var (
	pqWords = []string{"", "a", "hello world", "quote \" and \\ slash", "tab\tnew\nline\r", "\x01ctl",
		"ünïcödé ✓", "emoji 🎉", "bad utf8 \xff\xfe", "12345", "null", "NaN"}
	pqFloats = []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e21, 1e-7, 123456789.125, math.MaxFloat64,
		math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	pqInts = []int64{0, 1, -1, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32, 86399999, -86400000}
)

// pqRandomInt returns an edge-case or a random int64.
func pqRandomInt(rng *rand.Rand) int64 {
	if rng.Intn(4) == 0 {
		return pqInts[rng.Intn(len(pqInts))]
	}
	return rng.Int63n(1<<uint(rng.Intn(62)+1)) - rng.Int63n(1<<uint(rng.Intn(62)+1))
}

func pqRandomFloat(rng *rand.Rand) float64 {
	if rng.Intn(3) == 0 {
		return pqFloats[rng.Intn(len(pqFloats))]
	}
	return rng.NormFloat64() * math.Pow(10, float64(rng.Intn(40)-20))
}

func pqRandomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	rng.Read(b)
	return b
}

// pqRandomBig returns a random integer of up to digits decimal digits.
func pqRandomBig(rng *rand.Rand, digits int) *big.Int {
	n := new(big.Int).Rand(rng, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(rng.Intn(digits)+1)), nil))
	if rng.Intn(2) == 0 {
		n.Neg(n)
	}
	return n
}

// pqAppendRandom appends a random value, or a null, to b.
func pqAppendRandom(b array.Builder, rng *rand.Rand, depth int) {
	if rng.Intn(10) == 0 {
		b.AppendNull()
		return
	}
	pqAppendValue(b, rng, depth)
}

// pqAppendValue appends a random non-null value to b.
func pqAppendValue(b array.Builder, rng *rand.Rand, depth int) {
	switch b := b.(type) {
	case *array.BooleanBuilder:
		b.Append(rng.Intn(2) == 0)
	case *array.Int8Builder:
		b.Append(int8(pqRandomInt(rng)))
	case *array.Int16Builder:
		b.Append(int16(pqRandomInt(rng)))
	case *array.Int32Builder:
		b.Append(int32(pqRandomInt(rng)))
	case *array.Int64Builder:
		b.Append(pqRandomInt(rng))
	case *array.Uint8Builder:
		b.Append(uint8(pqRandomInt(rng)))
	case *array.Uint16Builder:
		b.Append(uint16(pqRandomInt(rng)))
	case *array.Uint32Builder:
		b.Append(uint32(pqRandomInt(rng)))
	case *array.Uint64Builder:
		b.Append(uint64(pqRandomInt(rng)))
	case *array.Float16Builder:
		b.Append(float16.New(float32(pqRandomFloat(rng))))
	case *array.Float32Builder:
		b.Append(float32(pqRandomFloat(rng)))
	case *array.Float64Builder:
		b.Append(pqRandomFloat(rng))
	case *array.StringBuilder:
		b.Append(pqWords[rng.Intn(len(pqWords))])
	case *array.LargeStringBuilder:
		b.Append(pqWords[rng.Intn(len(pqWords))])
	case *array.BinaryBuilder:
		if rng.Intn(2) == 0 {
			b.Append(pqRandomBytes(rng, rng.Intn(20)))
		} else {
			b.AppendString(pqWords[rng.Intn(len(pqWords))])
		}
	case *array.FixedSizeBinaryBuilder:
		width := b.Type().(*arrow.FixedSizeBinaryType).ByteWidth
		if width < 1000 || rng.Intn(2000) == 0 {
			b.Append(pqRandomBytes(rng, width))
		} else {
			b.Append(bytes.Repeat([]byte{byte('a' + rng.Intn(26))}, width))
		}
	case *array.Date32Builder:
		if rng.Intn(20) == 0 {
			b.Append(arrow.Date32(int32(pqRandomInt(rng)))) // far outside years 0-9999
		} else {
			b.Append(arrow.Date32(rng.Intn(4_000_000) - 1_000_000))
		}
	case *array.Date64Builder:
		b.Append(arrow.Date64(int64(rng.Intn(200_000)-100_000) * 86_400_000))
	case *array.TimestampBuilder:
		v := rng.Int63n(4e18) - 2e18
		if rng.Intn(4) == 0 {
			v = pqRandomInt(rng)
		}
		if b.Type().(*arrow.TimestampType).Unit == arrow.Second {
			v /= 1000 // the writer stores seconds as milliseconds
		}
		b.Append(arrow.Timestamp(v))
	case *array.Time32Builder:
		b.Append(arrow.Time32(rng.Intn(86_400_000)))
	case *array.Time64Builder:
		per := int64(1e6)
		if b.Type().(*arrow.Time64Type).Unit == arrow.Nanosecond {
			per = 1e9
		}
		b.Append(arrow.Time64(rng.Int63n(86_400 * per)))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(pqRandomInt(rng)))
	case *array.Decimal128Builder:
		p := int(b.Type().(*arrow.Decimal128Type).Precision)
		b.Append(decimal128.FromBigInt(pqRandomBig(rng, p)))
	case *array.Decimal256Builder:
		p := int(b.Type().(*arrow.Decimal256Type).Precision)
		b.Append(decimal256.FromBigInt(pqRandomBig(rng, p)))
	case *array.BinaryDictionaryBuilder:
		if err := b.AppendString(pqWords[rng.Intn(4)]); err != nil {
			panic(err)
		}
	case *extensions.UUIDBuilder:
		b.AppendBytes([16]byte(pqRandomBytes(rng, 16)))
	case *array.Decimal32Builder:
		b.Append(decimal.Decimal32(pqRandomInt(rng) % 1e9))
	case *array.Decimal64Builder:
		b.Append(decimal.Decimal64(pqRandomInt(rng) % 1e18))
	case *array.StringViewBuilder:
		b.Append(pqWords[rng.Intn(len(pqWords))] + strings.Repeat("long", rng.Intn(5)))
	case *array.BinaryViewBuilder:
		b.Append(pqRandomBytes(rng, rng.Intn(30)))
	case *array.LargeListBuilder:
		b.Append(true)
		for range rng.Intn(4) {
			pqAppendRandom(b.ValueBuilder(), rng, depth+1)
		}
	case *array.FixedSizeListBuilder:
		b.Append(true)
		for range b.Type().(*arrow.FixedSizeListType).Len() {
			pqAppendRandom(b.ValueBuilder(), rng, depth+1)
		}
	case *array.MapBuilder:
		b.Append(true)
		for range rng.Intn(3) {
			pqAppendValue(b.KeyBuilder(), rng, depth+1)
			pqAppendRandom(b.ItemBuilder(), rng, depth+1)
		}
	case *array.ListBuilder:
		b.Append(true)
		for range rng.Intn(4) {
			pqAppendRandom(b.ValueBuilder(), rng, depth+1)
		}
	case *array.StructBuilder:
		b.Append(true)
		for k := 0; k < b.NumField(); k++ {
			pqAppendRandom(b.FieldBuilder(k), rng, depth+1)
		}
	default:
		panic("pqAppendValue: no generator for " + b.Type().String())
	}
}

// A variant is null where its value is, though its array's null count is
// zero: the reader must ask the array.
func TestParquetExtensionNulls(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/shredded_variant")
	data, err := os.ReadFile(filepath.Join(dir, "case-047.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := pqMustCompareReads(t, data, Options{}, false)
	if want := [][]string{{"1", nullMark}}; err != nil || !reflect.DeepEqual(rows, want) {
		t.Fatalf("rows %q, err %v; want %q", rows, err, want)
	}
}

// Strings stored dictionary-encoded are read as dictionaries, with the
// same text as when read as strings.
func TestParquetDictionaryColumns(t *testing.T) {
	data := pqWriteFile(t, pqMixedSchema, 40_000, 15_000, 4)
	open := func(dict bool) *parquetReader {
		r, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), false)
		if err != nil {
			t.Fatal(err)
		}
		pr := r.(*parquetReader)
		if !dict {
			if pr.arrow.fr, _, err = openArrow(pr.pf, pr.mem, nil); err != nil {
				t.Fatal(err)
			}
		}
		return pr
	}
	withDict, without := open(true), open(false)
	sc, err := withDict.arrow.fr.Schema()
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := sc.FieldsByName("name"); len(f) != 1 || f[0].Type.ID() != arrow.DICTIONARY {
		t.Fatalf("name is read as %v, want a dictionary", f)
	}
	for _, batched := range []bool{false, true} {
		want, err, _ := pqReadRows(without, batched)
		if err != nil {
			t.Fatal(err)
		}
		got, err, broken := pqReadRows(withDict, batched)
		if err != nil || broken != nil {
			t.Fatal(err, broken)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("batched=%v: the rows differ when read through dictionaries", batched)
		}
		withDict, without = open(true), open(false)
	}
}

// appendDate writes years 0 to 9999 itself: it must agree with the layout.
func TestAppendDateMatchesLayout(t *testing.T) {
	days := []int64{-719529, -719528, -719162, 0, 2932896, 2932897, math.MinInt32, math.MaxInt32}
	for d := int64(-800_000); d < 3_100_000; d += 97 {
		days = append(days, d)
	}
	for d := int64(-720_000); d < -718_000; d++ { // year 0, a leap year, day by day
		days = append(days, d)
	}
	for _, d := range days {
		want := time.Unix(d*86400, 0).UTC().Format(dateLayout)
		if got := string(appendEpochDate(nil, d)); got != want {
			t.Fatalf("day %d: %q, want %q", d, got, want)
		}
	}
}

// appendUnixTimestamp must write what appendTimestamp writes of the time
// arrow.Timestamp.ToTime gives, in every unit, across and beyond years 0 to
// 9999.
func TestAppendUnixTimestamp(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	units := []arrow.TimeUnit{arrow.Second, arrow.Millisecond, arrow.Microsecond, arrow.Nanosecond}
	edges := []int64{0, 1, -1, 999, -999, 1000, -1001, 86399, 86400, -86400, -86401, 1e9, -1e9, 123456789,
		-62167219200, -62167219201, 253402300799, 253402300800, math.MaxInt64, math.MinInt64}
	for _, unit := range units {
		per := unitsPerSecond(unit)
		vals := append([]int64(nil), edges...)
		for _, e := range edges[:len(edges)-2] {
			if e <= math.MaxInt64/per && e >= math.MinInt64/per {
				vals = append(vals, e*per, e*per+1, e*per-1, e*per+per/2)
			}
		}
		for range 50_000 {
			switch rng.Intn(3) {
			case 0: // years 1900 to 2100
				vals = append(vals, (rng.Int63n(200*365*86400)-70*365*86400)*per+rng.Int63n(per))
			case 1: // years 0 to 9999 (wrapping to any value in nanoseconds)
				vals = append(vals, (rng.Int63n(253402300800+62167219200)-62167219200)*per+rng.Int63n(per))
			default:
				vals = append(vals, int64(rng.Uint64()))
			}
		}
		for _, v := range vals {
			want := string(appendTimestamp(nil, arrow.Timestamp(v).ToTime(unit)))
			if got := string(appendUnixTimestamp(nil, v, unit)); got != want {
				t.Fatalf("%d %s: %q, want %q", v, unit, got, want)
			}
		}
	}
}

// pqDecimalReference is how decimals were formatted before appendScaled:
// through big.Int and strings.
func pqDecimalReference(unscaled *big.Int, scale int32) string {
	s := unscaled.String()
	if scale <= 0 {
		if scale < 0 && s != "0" {
			s += strings.Repeat("0", int(-scale))
		}
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	if places := int(scale); len(s) <= places {
		s = "0." + strings.Repeat("0", places-len(s)) + s
	} else {
		s = s[:len(s)-places] + "." + s[len(s)-places:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

func TestAppendDecimal(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	values := []*big.Int{big.NewInt(0), big.NewInt(1), big.NewInt(-1), big.NewInt(math.MaxInt64), big.NewInt(math.MinInt64),
		new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(1)), new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(1))}
	for range 300 {
		values = append(values, pqRandomBig(rng, 38))
	}
	for _, v := range values {
		for scale := int32(-5); scale <= 42; scale++ {
			want := pqDecimalReference(v, scale)
			if got := string(appendBigDecimal(nil, v, scale)); got != want {
				t.Fatalf("big %v scale %d: %q, want %q", v, scale, got, want)
			}
			if got := string(appendDecimal128(nil, decimal128.FromBigInt(v), scale)); got != want {
				t.Fatalf("decimal128 %v scale %d: %q, want %q", v, scale, got, want)
			}
			if v.IsInt64() {
				if got := string(appendDecimal(nil, v.Int64(), scale)); got != want {
					t.Fatalf("int64 %v scale %d: %q, want %q", v, scale, got, want)
				}
			}
		}
	}
}

// TestArrowValueTypes pins the text of types no Parquet file here holds.
func TestArrowValueTypes(t *testing.T) {
	mem := memory.DefaultAllocator
	build := func(dt arrow.DataType, fill func(array.Builder)) arrow.Array {
		b := array.NewBuilder(mem, dt)
		defer b.Release()
		fill(b)
		return b.NewArray()
	}
	cases := []struct {
		arr  arrow.Array
		want []string
	}{
		{build(arrow.FixedWidthTypes.Duration_us, func(b array.Builder) { b.(*array.DurationBuilder).Append(-5) }), []string{"-5"}},
		{build(&arrow.Decimal32Type{Precision: 9, Scale: 3}, func(b array.Builder) {
			b.(*array.Decimal32Builder).Append(-138)
			b.(*array.Decimal32Builder).Append(1)
		}), []string{"-0.138", "0.001"}},
		{build(&arrow.Decimal64Type{Precision: 18, Scale: -2}, func(b array.Builder) {
			b.(*array.Decimal64Builder).Append(29)
			b.(*array.Decimal64Builder).Append(0)
		}), []string{"2900", "0"}},
		{build(arrow.BinaryTypes.StringView, func(b array.Builder) {
			b.(*array.StringViewBuilder).Append("short")
			b.(*array.StringViewBuilder).Append("a string longer than twelve bytes")
		}), []string{"short", "a string longer than twelve bytes"}},
		{build(arrow.BinaryTypes.BinaryView, func(b array.Builder) { b.(*array.BinaryViewBuilder).Append([]byte{0xff, 0}) }), []string{"/wA="}},
		{build(arrow.BinaryTypes.LargeBinary, func(b array.Builder) { b.(*array.BinaryBuilder).Append([]byte("ok")) }), []string{"ok"}},
		{build(arrow.FixedWidthTypes.Time32s, func(b array.Builder) { b.(*array.Time32Builder).Append(26392) }), []string{"07:19:52"}},
		{build(arrow.FixedWidthTypes.Date64, func(b array.Builder) { b.(*array.Date64Builder).Append(1e12) }), []string{"2001-09-09"}},
		{build(arrow.FixedWidthTypes.Float16, func(b array.Builder) { b.(*array.Float16Builder).Append(float16.New(1.5)) }), []string{"1.5"}},
		{build(&arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "Asia/Tokyo"}, func(b array.Builder) {
			b.(*array.TimestampBuilder).Append(1_500_000_000_123_000_000)
		}), []string{"2017-07-14T02:40:00.123Z"}},
		{build(arrow.LargeListOf(arrow.PrimitiveTypes.Int32), func(b array.Builder) {
			lb := b.(*array.LargeListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Int32Builder).Append(1)
			lb.ValueBuilder().AppendNull()
		}), []string{"[1,null]"}},
		{build(arrow.FixedSizeListOf(2, arrow.BinaryTypes.String), func(b array.Builder) {
			lb := b.(*array.FixedSizeListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.StringBuilder).Append("a\"b")
			lb.ValueBuilder().(*array.StringBuilder).Append("\xff")
		}), []string{"[\"a\\\"b\",\"\ufffd\"]"}}, // invalid UTF-8 becomes U+FFFD
		{build(arrow.MapOf(arrow.PrimitiveTypes.Float64, arrow.ListOf(arrow.FixedWidthTypes.Date32)), func(b array.Builder) {
			mb := b.(*array.MapBuilder)
			mb.Append(true)
			mb.KeyBuilder().(*array.Float64Builder).Append(math.Inf(1))
			lb := mb.ItemBuilder().(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.Date32Builder).Append(-1)
		}), []string{`{"+Inf":["1969-12-31"]}`}},
		{build(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.Binary}, func(b array.Builder) {
			db := b.(*array.BinaryDictionaryBuilder)
			db.Append([]byte{0xfe})
			db.Append([]byte("x"))
			db.Append([]byte{0xfe})
		}), []string{"/g==", "x", "/g=="}},
	}
	for _, c := range cases {
		for i, want := range c.want {
			if got, _ := appendArrowValue(nil, c.arr, i, 1<<20); string(got) != want {
				t.Errorf("%s value %d: %q, want %q", c.arr.DataType(), i, got, want)
			}
		}
		c.arr.Release()
	}
}
