package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dqs/dqs/internal/hostile"
)

func TestFooterSchemaTrees(t *testing.T) {
	deep := []int32{1}
	for range maxSchemaDepth {
		deep = append(deep, 1)
	}
	deep = append(deep, 0)
	for _, c := range []struct {
		name     string
		children []int32
		want     string // "" when the file opens
	}{
		{"flat", []int32{3, 0, 0, 0}, ""},
		{"nested", []int32{2, 2, 0, 0, 1, 0}, ""},
		{"as deep as allowed", deep[1:], ""},
		{"too deep", deep, "nests deeper than 64 levels"},
		{"root claims more", []int32{5, 0, 0}, "schema element 1 declares 5 children, but only 2 elements follow it"},
		{"group claims more", []int32{2, 3, 0, 0}, "schema element 2 declares 3 children, but only 2 elements follow it"},
		{"claims more in all", []int32{3, 1, 0, 0}, "the schema's groups declare more children than its 4 elements"},
		{"elements left over", []int32{1, 0, 0}, "the schema lists 3 elements, but its groups hold only 2"},
		{"negative", []int32{-1, 0}, "schema element 1 declares -1 children"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open(bytes.NewReader(hostile.SchemaTree(c.children)), "f.parquet", Options{})
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want malformed containing %q", err, c.want)
			}
		})
	}
}

// The Arrow schema Arrow writers store is dropped: the same table read with
// and without it gives the same columns and rows.
func TestFooterWithoutArrowSchemaReadsTheSame(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "ls", Type: arrow.BinaryTypes.LargeString, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"}, Nullable: true},
		{Name: "tsec", Type: &arrow.TimestampType{Unit: arrow.Second}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true}), Nullable: true},
	}, nil)
	write := func(store bool) []byte {
		var out bytes.Buffer
		aprops := pqarrow.DefaultWriterProps()
		if store {
			aprops = pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema())
		}
		w, err := pqarrow.NewFileWriter(sc, &out, parquet.NewWriterProperties(), aprops)
		if err != nil {
			t.Fatal(err)
		}
		rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
		defer rb.Release()
		for i := range 50 {
			rb.Field(0).(*array.StringBuilder).Append(strings.Repeat("x", i%7))
			rb.Field(1).(*array.LargeStringBuilder).Append("large")
			rb.Field(2).(*array.Int64Builder).Append(int64(i) * 1_000_003)
			rb.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 3_600_000_123))
			rb.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 86_401))
			rb.Field(5).(*array.Date32Builder).Append(arrow.Date32(i * 40))
			st := rb.Field(6).(*array.StructBuilder)
			st.Append(true)
			st.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
		}
		rec := rb.NewRecordBatch()
		defer rec.Release()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	with, without := readBytes(write(true), "f.parquet", Options{}), readBytes(write(false), "f.parquet", Options{})
	if with.err != nil || without.err != nil {
		t.Fatal(with.err, without.err)
	}
	if !reflect.DeepEqual(with.cols, without.cols) || !reflect.DeepEqual(with.rows, without.rows) {
		t.Fatalf("with the Arrow schema %q %q\nwithout it %q %q", with.cols, with.rows[:3], without.cols, without.rows[:3])
	}
	if len(with.rows) != 50 {
		t.Fatalf("%d rows", len(with.rows))
	}
}

// Everything the library allocates through the pool comes back to it: at
// the end of a file no byte is held, so the budget stays the library's
// working memory however long the file.
func TestBufferPoolGetsEveryBufferBack(t *testing.T) {
	for name, data := range map[string][]byte{
		"all types":  pqWriteFile(t, pqAllTypesSchema, 30_000, 4_000, 1),
		"mixed":      pqWriteFile(t, pqMixedSchema, 30_000, 4_000, 2),
		"wide text":  pqWriteFile(t, pqWideTextSchema, 3_000, 500, 3),
		"dictionary": hostile.DictionaryBomb(2, 2_000, 100),
	} {
		for _, batches := range []bool{false, true} {
			r, err := Open(bytes.NewReader(data), "f.parquet", Options{})
			if err != nil {
				t.Fatal(err)
			}
			pool := r.(*parquetReader).mem
			peak := int64(0)
			_, err = countRows(r, batches, func() { peak = max(peak, pool.live.Load()) })
			if !errors.Is(err, io.EOF) {
				t.Fatalf("%s: %v", name, err)
			}
			if peak == 0 && !batches {
				t.Fatalf("%s: the pool never held a byte: it does not count", name)
			}
			if live := pool.live.Load(); live != 0 {
				t.Fatalf("%s (batches %v): %d bytes still held at the end (peak %d)", name, batches, live, peak)
			}
			r.Close()
		}
	}
}

// The attack file's Arrow schema is a valid one but for its children
// count: with the true count, Arrow reads it as struct<a: int64>. So the
// file that asks for 2^30 children is the attack, not a malformed entry
// the library would have refused anyway.
func TestArrowSchemaAttackIsWellFormed(t *testing.T) {
	sc, err := flight.DeserializeSchema(hostile.ArrowSchemaMessage(1), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := sc.Field(0).Type.(*arrow.StructType)
	if !ok || st.NumFields() != 1 || st.Field(0).Type.ID() != arrow.INT64 {
		t.Fatalf("schema %s", sc)
	}
}

// A wide file of large pages and dictionaries, as pyarrow writes by default
// (1 MiB data pages, dictionaries up to 1 MiB), reads within the budget an
// analysis gives its reader by default (half of 2 GiB), through Next (Arrow)
// and through FillBatch: the checks refuse bombs, not such files.
func TestWideFileOfLargePagesReadsWithinTheDefaultBudget(t *testing.T) {
	const cols, rows = 80, 40_000
	var fields []arrow.Field
	for c := range cols {
		fields = append(fields, arrow.Field{Name: fmt.Sprint("c", c), Type: arrow.BinaryTypes.String, Nullable: true})
	}
	sc := arrow.NewSchema(fields, nil)
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &out, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rows), parquet.WithDictionaryDefault(true)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	for r := range rows {
		for c := range cols {
			rb.Field(c).(*array.StringBuilder).Append(fmt.Sprintf("value-%020d", (r*7919+c)%50_000))
		}
	}
	rec := rb.NewRecordBatch()
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	opt := Options{MemoryBudget: 1 << 30}
	for _, batches := range []bool{false, true} {
		r, err := Open(bytes.NewReader(out.Bytes()), "wide.parquet", opt)
		if err != nil {
			t.Fatal(err)
		}
		pool := r.(*parquetReader).mem
		peak := int64(0)
		n, err := countRows(r, batches, func() { peak = max(peak, pool.live.Load()) })
		if !errors.Is(err, io.EOF) || n != rows {
			t.Fatalf("batches %v: %d rows, %v", batches, n, err)
		}
		if !batches && peak < 80<<20 {
			t.Fatalf("the Arrow path held at most %d MiB: the file does not have the large pages it should", peak>>20)
		}
		if batches && r.(*parquetReader).direct == nil {
			t.Fatal("the direct path gave the file up to the Arrow path")
		}
		r.Close()
	}
}
