package readers

import (
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/dqs/dqs/columnar"
)

const pqBenchRows = 1_000_000

// pqBenchSchema is a table of the kind uploaded for profiling: unique
// and repetitive strings, numbers, dates and timestamps, some nulls.
var pqBenchSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "email", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "country", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "quantity", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64},
	{Name: "birth_date", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "created_at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{Name: "active", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

var pqBenchCountries = []string{"France", "Germany", "Japan", "Brazil", "Canada", "India", "Kenya", "Peru"}

// pqWriteBenchFile writes rows rows of pqBenchSchema to path, Snappy
// compressed, in row groups of 128 Ki rows.
func pqWriteBenchFile(b *testing.B, path string, rows int) {
	b.Helper()
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(128<<10), parquet.WithDictionaryDefault(true))
	w, err := pqarrow.NewFileWriter(pqBenchSchema, f, props, pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, pqBenchSchema)
	defer rb.Release()
	rng := rand.New(rand.NewSource(1))
	// null appends a null to fb about one time in twenty.
	null := func(fb array.Builder) bool {
		if rng.Intn(20) == 0 {
			fb.AppendNull()
			return true
		}
		return false
	}
	for i := 0; i < rows; i++ {
		rb.Field(0).(*array.Int64Builder).Append(int64(i + 1))
		if fb := rb.Field(1).(*array.StringBuilder); !null(fb) {
			fb.Append(fmt.Sprintf("user%d.%d@example.com", i, rng.Intn(1000)))
		}
		if fb := rb.Field(2).(*array.StringBuilder); !null(fb) {
			fb.Append(pqBenchCountries[rng.Intn(len(pqBenchCountries))])
		}
		if fb := rb.Field(3).(*array.Int32Builder); !null(fb) {
			fb.Append(int32(rng.Intn(500)))
		}
		if fb := rb.Field(4).(*array.Float64Builder); !null(fb) {
			fb.Append(float64(rng.Intn(10_000_000)) / 100)
		}
		rb.Field(5).(*array.Float64Builder).Append(rng.NormFloat64())
		if fb := rb.Field(6).(*array.Date32Builder); !null(fb) {
			fb.Append(arrow.Date32(rng.Intn(30_000) - 10_000))
		}
		rb.Field(7).(*array.TimestampBuilder).Append(arrow.Timestamp(1_600_000_000_000_000 + rng.Int63n(1e14)))
		if fb := rb.Field(8).(*array.BooleanBuilder); !null(fb) {
			fb.Append(rng.Intn(2) == 0)
		}
		if (i+1)%(64<<10) == 0 || i == rows-1 {
			rec := rb.NewRecordBatch()
			if err := w.WriteBuffered(rec); err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkParquetBatches opens and reads a file of a million mixed rows,
// through FillBatch (NextBatch) and, for comparison, through Next.
func BenchmarkParquetBatches(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.parquet")
	pqWriteBenchFile(b, path, pqBenchRows)
	info, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, read func(Reader) (int, error)) {
		b.SetBytes(info.Size())
		b.ReportAllocs()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			r, err := Open(f, path, Options{})
			if err != nil {
				b.Fatal(err)
			}
			n, err := read(r)
			r.Close()
			f.Close()
			if err != nil || n != pqBenchRows {
				b.Fatalf("read %d rows, err %v", n, err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*pqBenchRows), "ns/row")
	}
	b.Run("FillBatch", func(b *testing.B) {
		run(b, func(r Reader) (int, error) {
			n := 0
			batch := columnar.NewBatch(len(r.Columns()))
			for {
				batch.Reset()
				err := FillBatch(r, batch)
				n += batch.Rows
				if errors.Is(err, io.EOF) {
					return n, nil
				}
				if err != nil {
					return n, err
				}
			}
		})
	})
	b.Run("Next", func(b *testing.B) {
		run(b, func(r Reader) (int, error) {
			for n := 0; ; n++ {
				if _, err := r.Next(); err != nil {
					if errors.Is(err, io.EOF) {
						err = nil
					}
					return n, err
				}
			}
		})
	})
}
