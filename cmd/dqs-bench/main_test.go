package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The test binary doubles as the measuring helper, as the command does.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const testRows = 2000

func TestGeneratedFilesAgree(t *testing.T) {
	dir := t.TempDir()
	generated, err := ensureData(dir, testRows, io.Discard)
	if err != nil || !generated {
		t.Fatalf("ensureData = %v, %v; want generated", generated, err)
	}

	csvRows, csvFirst := readCSV(t, filepath.Join(dir, "bench.csv"))
	jsonRows, jsonFirst := readJSONL(t, filepath.Join(dir, "bench.jsonl"))
	pqRows, pqFirst := readParquet(t, filepath.Join(dir, "bench.parquet"))
	if csvRows != testRows || jsonRows != testRows || pqRows != testRows {
		t.Fatalf("rows: csv %d, jsonl %d, parquet %d; want %d each", csvRows, jsonRows, pqRows, testRows)
	}
	if len(csvFirst) != len(columns) {
		t.Fatalf("csv first row has %d fields, want %d", len(csvFirst), len(columns))
	}
	for i, name := range columns {
		c, j, p := csvFirst[i], jsonFirst[name], pqFirst[i]
		if j != c {
			t.Errorf("%s: jsonl %q, csv %q", name, j, c)
		}
		switch v := p.(type) {
		case float64:
			if f, err := strconv.ParseFloat(c, 64); err != nil || f != v {
				t.Errorf("%s: parquet %v, csv %q", name, v, c)
			}
		case string:
			if v != c {
				t.Errorf("%s: parquet %q, csv %q", name, v, c)
			}
		default:
			t.Errorf("%s: parquet value of type %T", name, p)
		}
	}
	for _, name := range []string{"id", "amount", "score"} {
		if !strings.Contains(firstLine(t, filepath.Join(dir, "bench.jsonl")), `"`+name+`":`+jsonFirst[name]) {
			t.Errorf("%s is not a JSON number in the first JSONL line", name)
		}
	}

	// A second call reuses the files; another seed-identical generation
	// writes the same bytes; a manifest for another row count regenerates.
	if generated, err := ensureData(dir, testRows, io.Discard); err != nil || generated {
		t.Fatalf("second ensureData = %v, %v; want reuse", generated, err)
	}
	other := t.TempDir()
	if _, err := ensureData(other, testRows, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, name := range fileNames {
		a, _ := os.ReadFile(filepath.Join(dir, name))
		b, _ := os.ReadFile(filepath.Join(other, name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two generations (%d and %d bytes)", name, len(a), len(b))
		}
	}
	if err := os.WriteFile(filepath.Join(other, manifestName), []byte(`{"version":1,"rows":5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if generated, err := ensureData(other, testRows, io.Discard); err != nil || !generated {
		t.Fatalf("ensureData with a stale manifest = %v, %v; want regenerated", generated, err)
	}
}

func TestMeasuresEachFormat(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	bin, err := buildDQS(t.TempDir(), &log)
	if err != nil {
		t.Fatalf("go build ./cmd/dqs: %v\n%s", err, log.String())
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-rows", strconv.Itoa(testRows), "-dir", dir, "-dqs", bin}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	t.Logf("\n%s", out.String())

	var header []string
	got := map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] == "FORMAT" {
			header = f
			continue
		}
		if header == nil || len(f) != 7 {
			continue
		}
		// FORMAT ROWS SIZE-MB SECONDS MB/S ROWS/S PEAK-RSS-MB
		if f[1] != strconv.Itoa(testRows) {
			t.Errorf("%s: rows %s", f[0], f[1])
		}
		for i, what := range map[int]string{4: "MB/s", 5: "rows/s", 6: "peak RSS"} {
			if v, err := strconv.ParseFloat(f[i], 64); err != nil || v <= 0 {
				t.Errorf("%s: %s %q is not positive", f[0], what, f[i])
			}
		}
		got[f[0]] = true
	}
	if header == nil || len(got) != 3 || !got["csv"] || !got["jsonl"] || !got["parquet"] {
		t.Fatalf("want a table with csv, jsonl and parquet rows, got:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "go: "+runtime.Version()) {
		t.Errorf("no Go version in output:\n%s", out.String())
	}
}

func TestFailedProfileExitsNonZero(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"-rows", "10", "-dir", dir, "-formats", "csv", "-dqs", "/bin/false"}, &out, &errOut)
	if code == 0 || !strings.Contains(out.String(), "FAILED") {
		t.Fatalf("exit %d, want non-zero and a FAILED row\n%s\n%s", code, out.String(), errOut.String())
	}
}

func readCSV(t *testing.T, path string) (int, []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Count physical lines (no generated field holds a newline) and read
	// the first record with a real CSV parser.
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Count(data, []byte("\n"))
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil || strings.Join(header, ",") != strings.Join(columns, ",") {
		t.Fatalf("csv header %v, %v", header, err)
	}
	first, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	return lines - 1, first
}

func firstLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func readJSONL(t *testing.T, path string) (int, map[string]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	var first map[string]string
	for sc.Scan() {
		n++
		var obj map[string]any
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.UseNumber()
		if err := dec.Decode(&obj); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		if len(obj) != len(columns) {
			t.Fatalf("line %d has %d keys, want %d", n, len(obj), len(columns))
		}
		if first == nil {
			first = map[string]string{}
			for k, v := range obj {
				switch v := v.(type) {
				case json.Number:
					first[k] = v.String()
				case string:
					first[k] = v
				default:
					t.Fatalf("%s: unexpected JSON value %T", k, v)
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n, first
}

// readParquet returns the row count from the file metadata and the first
// row, dates and timestamps formatted as in the CSV file.
func readParquet(t *testing.T, path string) (int, []any) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	if want := (testRows + rowGroupRows - 1) / rowGroupRows; pf.NumRowGroups() != want {
		t.Errorf("parquet has %d row groups, want %d", pf.NumRowGroups(), want)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	if !rr.Next() {
		t.Fatalf("no record batch: %v", rr.Err())
	}
	rec := rr.RecordBatch()
	for i, f := range rec.Schema().Fields() { // types, ignoring field metadata
		want := parquetSchema.Field(i)
		if f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type) {
			t.Errorf("parquet column %d read back as %s %s, want %s %s", i, f.Name, f.Type, want.Name, want.Type)
		}
	}
	first := make([]any, rec.NumCols())
	for i, col := range rec.Columns() {
		switch c := col.(type) {
		case *array.Int64:
			first[i] = strconv.FormatInt(c.Value(0), 10)
		case *array.String:
			first[i] = c.Value(0)
		case *array.Float64:
			first[i] = c.Value(0)
		case *array.Date32:
			first[i] = c.Value(0).ToTime().Format(time.DateOnly)
		case *array.Timestamp:
			unit := c.DataType().(*arrow.TimestampType).Unit
			first[i] = c.Value(0).ToTime(unit).UTC().Format(time.RFC3339)
		default:
			t.Fatalf("column %d: unexpected array %T", i, col)
		}
	}
	return int(pf.NumRows()), first
}
