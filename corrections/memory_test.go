package corrections

import (
	"context"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// genReader makes rows as it is read: a file of any size without the disk.
type genReader struct {
	rows, next int
	rec        records.Record
	onRow      func(int)
}

var genCols = []string{"id", "name", "city", "joined", "amount", "phone"}

func newGen(rows int) *genReader {
	return &genReader{rows: rows, rec: records.Record{Values: make([]string, len(genCols)), Null: make([]bool, len(genCols))}}
}

func (g *genReader) Columns() []string      { return genCols }
func (g *genReader) Format() records.Format { return "gen" }
func (g *genReader) Close() error           { return nil }

var genCities = []string{"paris", "  rome", "NA", "oslo ", ""}

func (g *genReader) Next() (*records.Record, error) {
	if g.next == g.rows {
		return nil, io.EOF
	}
	i := g.next
	g.next++
	if g.onRow != nil {
		g.onRow(i)
	}
	v := g.rec.Values
	v[0] = strconv.Itoa(i)
	v[1] = " user " + strconv.Itoa(i%1000) + " "
	v[2] = genCities[i%len(genCities)]
	v[3] = strconv.Itoa(10+i%18) + "/0" + strconv.Itoa(1+i%9) + "/20" + strconv.Itoa(10+i%15)
	v[4] = strconv.Itoa(i%5000) + "," + strconv.Itoa(i%10)
	v[5] = "(555) " + strconv.Itoa(100+i%900) + "-" + strconv.Itoa(1000+i%9000)
	g.rec.Null[2] = i%11 == 0
	if g.rec.Null[2] {
		v[2] = ""
	}
	return &g.rec, nil
}

// The pipeline of the large runs: a step of each type that keeps no state
// growing with the rows (dedupe's table does, by design, within its
// budget: see TestDedupeBudget).
var streamSteps = Pipeline{
	fix("name", StrategyTrim, nil),
	fix("name", StrategyTitle, nil),
	step("fill", TypeNullFill, "city", StrategyConstant, map[string]any{"value": "unknown"}),
	fix("city", StrategyTrim, nil),
	fix("joined", StrategyDateISO, nil),
	fix("amount", StrategyDecimalPoint, nil),
	step("re", TypeRegexReplace, "phone", "", map[string]any{"pattern": `[^0-9]`, "replacement": ""}),
	step("calc", TypeCustom, "id", "", map[string]any{"expression": `row.id + "-" + upper(row.city)`}),
}

// heapBound is the most the heap may grow while rows stream through.
const heapBound = 64 << 20

// streamRows applies streamSteps to rows generated rows, written in format
// to nowhere, and returns the result and the largest heap seen above what
// it was before.
func streamRows(tb testing.TB, rows int, format records.Format) (Result, uint64) {
	tb.Helper()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, uint64(0)
	g := newGen(rows)
	g.onRow = func(i int) {
		if i%50_000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse-min(base, ms.HeapInuse))
		}
	}
	w := must(NewWriter(format, io.Discard, WriterOptions{}))
	res, err := Apply(context.Background(), g, w, streamSteps, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	return res, max(peak, ms.HeapInuse-min(base, ms.HeapInuse))
}

func TestStreamingMemory(t *testing.T) {
	rows := 200_000 // three Parquet row groups
	if testing.Short() || raceEnabled {
		rows = 20_000
	}
	for _, format := range []records.Format{readers.FormatCSV, readers.FormatParquet} {
		start := time.Now()
		res, peak := streamRows(t, rows, format)
		if res.Rows != int64(rows) || res.RowsOut != int64(rows) {
			t.Fatalf("counts %+v", res)
		}
		if c := res.Changes[4]; c.CellsChanged != int64(rows) || c.Unfixed != 0 {
			t.Fatalf("date_iso counts %+v", c)
		}
		if peak > heapBound {
			t.Fatalf("%s: the heap grew by %d MiB streaming %d rows", format, peak>>20, rows)
		}
		t.Logf("%s: %d rows in %v, heap grew by at most %.1f MiB", format, rows, time.Since(start), float64(peak)/(1<<20))
	}
}

// BenchmarkApplyMillionRows streams a million rows through a pipeline of
// every stateless step and fails if the heap grows past heapBound.
func BenchmarkApplyMillionRows(b *testing.B) {
	const rows = 1_000_000
	var peak uint64
	for b.Loop() {
		_, p := streamRows(b, rows, readers.FormatCSV)
		peak = max(peak, p)
	}
	if peak > heapBound {
		b.Fatalf("the heap grew by %d MiB", peak>>20)
	}
	b.ReportMetric(float64(peak)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
