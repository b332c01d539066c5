package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/hostile"
	"github.com/dqs/dqs/internal/memtest"
	"github.com/dqs/dqs/membudget"
)

// The attack files of the security review, analysed as a worker analyses
// an upload, each in a process of its own: the analysis ends with a clear
// error or a result, and the process's memory stays within the file's
// budget (internal/memtest measures it).

const attackBudget = 512 << 20

type attack struct {
	name string
	file func() []byte
	ext  string
	want string // in the outcome: the error's text, or "rows N"
}

var attacks = []attack{
	{"lying_num_children", func() []byte { return hostile.LyingNumChildren(1<<31 - 1) }, "parquet", "declares 2147483647 children"},
	{"arrow_schema_children", func() []byte { return hostile.ArrowSchemaChildren(1 << 30) }, "parquet", "rows 1"},
	{"lying_page_size", func() []byte { return hostile.LyingPageSize(40, 256<<20) }, "parquet", "more than the 64 MiB limit"},
	{"compression_bomb", func() []byte { return hostile.CompressionBomb(40, 400, 64<<10) }, "parquet", "row group 1 holds pages that need more than"},
	{"zstd_lying_frame", func() []byte { return hostile.LyingCodec(hostile.CodecZstd, hostile.ZstdLyingFrame(32<<30)) }, "parquet", "holds more than its page declares"},
	{"snappy_lying_length", func() []byte { return hostile.LyingCodec(hostile.CodecSnappy, hostile.SnappyLyingLength(1<<32-1)) }, "parquet", "holds more than its page declares"},
	{"dictionary_bomb", func() []byte { return hostile.DictionaryBomb(8, 200_000, 1<<20-100) }, "parquet", "needs more memory at once than its 256 MiB budget"},
	{"wide_csv", func() []byte { return hostile.WideCSV(1_500, 500) }, "csv", "rows 500"},
	// The column holding a batch's text moves from batch to batch: batches
	// that kept every column's largest buffer took 2 GB here.
	{"rotating_columns", func() []byte { return hostile.RotatingColumns(100, 2048, 1, 2048) }, "parquet", "rows 204800"},
	{"staggered_pages", func() []byte { return hostile.StaggeredPages(200, 16, 1_000_000) }, "parquet", "rows 3200"},
	{"too_wide_csv", func() []byte { return hostile.WideCSV(9_999, 20) }, "csv", "profiling 9999 columns needs at least"},
	{"deep_json", func() []byte { return hostile.DeepJSON(1_000_000) }, "json", "exceeded max depth"},
	{"long_json_key", func() []byte { return []byte(`[{"` + strings.Repeat("k", 1<<20) + `": 1}]`) }, "json", "limit for a column name"},
	{"many_json_keys", func() []byte {
		var b strings.Builder
		b.WriteString("[")
		for i := range 9_999 {
			fmt.Fprintf(&b, `{"k%d": %d},`, i, i)
		}
		b.WriteString(`{"z": 0}]`)
		return []byte(b.String())
	}, "json", "profiling"},
}

// attackOutcome analyses data as a worker does, within attackBudget.
func attackOutcome(data []byte, name string) string {
	res, err := Run(context.Background(), bytes.NewReader(data), name, int64(len(data)), Dialect{}, Limits{FileMemory: attackBudget}, nil)
	if err != nil {
		if !errors.Is(err, ErrBadInput) {
			return "not bad input: " + err.Error()
		}
		return err.Error()
	}
	return fmt.Sprintf("rows %d", res.RowCount)
}

func TestMain(m *testing.M) {
	cases := memtest.Cases{}
	for _, a := range attacks {
		cases[a.name] = func() string { return attackOutcome(a.file(), "attack."+a.ext) }
	}
	cases["prescan_wide_csv"] = func() string {
		f, err := os.Open(os.Getenv("DQS_PRESCAN_FILE"))
		if err != nil {
			return err.Error()
		}
		defer f.Close()
		st, _ := f.Stat()
		start := time.Now()
		res, err := Prescan(context.Background(), f, "wide.csv", st.Size(), Dialect{}, Limits{FileMemory: attackBudget})
		if err != nil {
			return err.Error()
		}
		return fmt.Sprintf("columns %d, rows %d, in %v", len(res.Columns), res.RowsScanned, time.Since(start).Round(time.Second))
	}
	memtest.Main(cases)
	os.Exit(m.Run())
}

func TestAttackFilesStayWithinTheBudget(t *testing.T) {
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			res := memtest.Measure(t, a.name, attackBudget)
			t.Logf("peak %d MiB: %s", res.Peak>>20, res.Output)
			if !strings.Contains(res.Output, a.want) {
				t.Errorf("outcome %q, want it to contain %q", res.Output, a.want)
			}
			if res.Peak > attackBudget {
				t.Errorf("the process took %d MiB, more than the file's %d MiB budget", res.Peak>>20, attackBudget>>20)
			}
		})
	}
}

// The prescan of the review's wide CSV (9,999 columns × 500 rows, 34 MB)
// took 1.5 GB and 14 s inside an upload request; it now reads 20 rows.
func TestPrescanOfAWideFileIsBounded(t *testing.T) {
	// On disk, as an upload is spooled: the file's bytes are not the
	// prescan's memory.
	path := t.TempDir() + "/wide.csv"
	if err := os.WriteFile(path, hostile.WideCSV(9_999, 500), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DQS_PRESCAN_FILE", path)
	budget := Limits{FileMemory: attackBudget}.PrescanMemory()
	res := memtest.Measure(t, "prescan_wide_csv", budget)
	t.Logf("peak %d MiB: %s", res.Peak>>20, res.Output)
	if !strings.HasPrefix(res.Output, "columns 9999, rows 20,") {
		t.Fatalf("outcome %q", res.Output)
	}
	if res.Peak > uint64(budget) {
		t.Fatalf("the prescan took %d MiB, more than its %d MiB budget", res.Peak>>20, budget>>20)
	}
}

// Files wait for the pool: with room for one file, a second analysis does
// not read until the first is done, and reports that it is waiting (an
// activity heartbeats then).
func TestAnalysesWaitForThePool(t *testing.T) {
	defer func(w time.Duration) { reserveWait = w }(reserveWait)
	reserveWait = 10 * time.Millisecond
	lim := Limits{FileMemory: MinFileMemory, Pool: membudget.NewPool(MinFileMemory)}
	hold, err := lim.Pool.Reserve(context.Background(), MinFileMemory)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("a,b\n1,2\n3,4\n")
	var mu sync.Mutex
	var seen []float64
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), bytes.NewReader(data), "t.csv", int64(len(data)), Dialect{}, lim, func(stage string, f float64) {
			mu.Lock()
			seen = append(seen, f)
			mu.Unlock()
		})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	mu.Lock()
	waiting := len(seen)
	for _, f := range seen {
		if f != 0 {
			t.Errorf("progress %v while waiting for memory", f)
		}
	}
	mu.Unlock()
	select {
	case err := <-done:
		t.Fatalf("the analysis ran while the pool was held (%v)", err)
	default:
	}
	if waiting < 3 {
		t.Fatalf("%d progress calls in 200 ms of waiting: it does not say it waits", waiting)
	}
	hold()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Its reservation came back too.
	release, err := lim.Pool.Reserve(context.Background(), MinFileMemory)
	if err != nil {
		t.Fatal(err)
	}
	release()
}

// A JSON prescan reads the head of the file, not a first pass over all of
// it, and still lists the keys that show up in the rows it reads.
func TestPrescanReadsTheHeadOfJSON(t *testing.T) {
	var b strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&b, `{"id": %d, "email": "user%d@example.com"`, i, i)
		if i == 10 {
			b.WriteString(`, "late": "x"`)
		}
		b.WriteString("}\n")
	}
	data := []byte(b.String())
	sc, err := scanHead(bytes.NewReader(data), "users.jsonl", Dialect{}, PrescanRows, Limits{}.PrescanMemory())
	if err != nil {
		t.Fatal(err)
	}
	if read := sc.counter.bytesRead(); read > int64(len(data))/4 {
		t.Fatalf("the prescan read %d of the file's %d bytes", read, len(data))
	}
	if sc.rows != PrescanRows || sc.profiler.Columns() != 3 {
		t.Fatalf("%d rows, %d columns", sc.rows, sc.profiler.Columns())
	}
}
