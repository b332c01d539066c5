package corrections

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// The pipeline of the round trips, and what it makes of their rows.
var roundTripSteps = Pipeline{
	fix("name", StrategyTrim, nil),
	fix("name", StrategyTitle, nil),
	step("fill", TypeNullFill, "city", StrategyConstant, map[string]any{"value": "unknown"}),
	fix("joined", StrategyDateISO, nil),
	fix("amount", StrategyDecimalPoint, nil),
	step("dedupe", TypeDedupe, "", StrategyKeys, map[string]any{"columns": []any{"id"}, "keep": "last"}),
	step("calc", TypeCustom, "city", "", map[string]any{"expression": `row.city + " (" + row.id + ")"`}),
}

var roundTripCols = []string{"id", "name", "city", "joined", "amount"}

var roundTripWant = table{
	{"2", "Bob", "unknown (2)", "2024-01-31", "3.5"},
	{"1", "Ann Lee", "Lyon (1)", "2024-03-06", "10"},
	{"3", "Cy", "unknown (3)", "bad", N},
}

// Inputs by hand, as users upload them.
const (
	roundTripCSV = "id;name;city;joined;amount\r\n" +
		"1;\"  ann lee \";Paris;05/03/2024;1.234,5\r\n" +
		"2;BOB;;2024-01-31;3,5\r\n" +
		"1;ann lee;Lyon;06.03.2024;10\r\n" +
		"3;cy;NA;bad;\r\n"
	roundTripJSONL = `{"id":1,"name":"  ann lee ","city":"Paris","joined":"05/03/2024","amount":"1.234,5"}
{"id":2,"name":"BOB","city":null,"joined":"2024-01-31","amount":"3,5"}
{"id":1,"name":"ann lee","city":"Lyon","joined":"06.03.2024","amount":"10"}
{"id":3,"name":"cy","city":"NA","joined":"bad","amount":null}
`
	roundTripJSON = `[
 {"id":1,"name":"  ann lee ","city":"Paris","joined":"05/03/2024","amount":"1.234,5","meta":{"src":"a"}},
 {"id":2,"name":"BOB","city":null,"joined":"2024-01-31","amount":"3,5","meta":{"src":"b"}},
 {"id":1,"name":"ann lee","city":"Lyon","joined":"06.03.2024","amount":"10","meta":{"src":"c"}},
 {"id":3,"name":"cy","city":"NA","joined":"bad","amount":null,"meta":{"src":"d"}}
]`
)

func TestApplyRoundTrips(t *testing.T) {
	dir := t.TempDir()
	csvWant := make(table, len(roundTripWant))
	for i, r := range roundTripWant {
		csvWant[i] = append([]string(nil), r...)
		csvWant[i][4] = strings.ReplaceAll(r[4], N, "") // CSV has no nulls
	}
	jsonWant := make(table, len(roundTripWant))
	for i, r := range roundTripWant {
		jsonWant[i] = append(append([]string(nil), r...), []string{"b", "c", "d"}[i])
	}
	for _, c := range []struct {
		name  string
		input func(path string)
		cols  []string
		want  table
	}{
		{"in.csv", writeText(roundTripCSV), roundTripCols, csvWant},
		{"in.jsonl", writeText(roundTripJSONL), roundTripCols, roundTripWant},
		{"in.json", writeText(roundTripJSON), append(roundTripCols, "meta.src"), jsonWant},
		{"in.parquet", func(path string) { writeTypedParquet(t, path) }, roundTripCols, roundTripWant},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := filepath.Join(dir, c.name)
			c.input(in)
			out := filepath.Join(dir, "out-"+c.name)
			res := applyFile(t, in, out)
			cols, rows := readFile(t, out)
			if strings.Join(cols, ",") != strings.Join(c.cols, ",") {
				t.Fatalf("columns %q, want %q", cols, c.cols)
			}
			equalTables(t, rows, c.want)
			if res.Rows != 4 || res.RowsOut != 3 || res.Changes[5].RowsRemoved != 1 {
				t.Fatalf("counts %+v", res)
			}
			if r := openFile(t, out); r.Format() != openFile(t, in).Format() {
				t.Fatalf("wrote %s for %s", r.Format(), openFile(t, in).Format())
			}
		})
	}
	// The CSV output keeps the input's delimiter.
	if b, _ := os.ReadFile(filepath.Join(dir, "out-in.csv")); !bytes.HasPrefix(b, []byte("id;name;city;joined;amount\r\n")) {
		t.Fatalf("CSV output starts %q", b[:min(len(b), 40)])
	}
}

func writeText(text string) func(string) {
	return func(path string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
}

// applyFile applies the round-trip pipeline to the file in, writing out in
// the same format, as the service would.
func applyFile(t *testing.T, in, out string) Result {
	t.Helper()
	r := openFile(t, in)
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(r.Format(), f, WriterOptionsFor(r))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Apply(context.Background(), r, w, roundTripSteps, Options{
		Reopen: func() (records.Reader, error) { return openFile(t, in), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// writeTypedParquet writes the round trip's rows as a Parquet file of an
// int64 column and string ones, as a data tool would.
func writeTypedParquet(t *testing.T, path string) {
	fields := []arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}
	for _, c := range roundTripCols[1:] {
		fields = append(fields, arrow.Field{Name: c, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	sc := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	rows := table{
		{"  ann lee ", "Paris", "05/03/2024", "1.234,5"},
		{"BOB", N, "2024-01-31", "3,5"},
		{"ann lee", "Lyon", "06.03.2024", "10"},
		{"cy", "NA", "bad", N},
	}
	for i, r := range rows {
		b.Field(0).(*array.Int64Builder).Append([]int64{1, 2, 1, 3}[i])
		for j, v := range r {
			sb := b.Field(j + 1).(*array.StringBuilder)
			if v == N {
				sb.AppendNull()
			} else {
				sb.Append(v)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(sc, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // closes f too
		t.Fatal(err)
	}
}

// The writers write what the readers read back: awkward values, nulls,
// an empty file, and many row groups.
func TestWritersRoundTrip(t *testing.T) {
	cols := []string{"text", "a.b"}
	rows := table{
		{`quote " and , ; comma`, "line\nbreak\r\nx"},
		{"  spaced  ", "tab\there"},
		{"ünïcödé ✓ 🎉", "\x01ctl \u2028"},
		{"", N},
		{"null", "=1+1"},
	}
	dir := t.TempDir()
	for _, format := range []records.Format{readers.FormatCSV, readers.FormatJSONL, readers.FormatJSON, readers.FormatParquet} {
		for _, rs := range []table{rows, nil} {
			path := filepath.Join(dir, "w."+string(format))
			writeFile(t, path, format, cols, rs)
			gotCols, got := readFile(t, path)
			want := rs
			if format == readers.FormatCSV {
				want = replaceNulls(rs, "")
			}
			wantCols := cols
			if rs == nil && (format == readers.FormatJSON || format == readers.FormatJSONL) {
				wantCols = nil // JSON names the columns in the rows only
			}
			if strings.Join(gotCols, "|") != strings.Join(wantCols, "|") {
				t.Fatalf("%s: columns %q", format, gotCols)
			}
			equalTables(t, got, want)
		}
	}
	// One column, whose empty value must not make an empty line.
	path := filepath.Join(dir, "one.csv")
	writeFile(t, path, readers.FormatCSV, []string{"v"}, table{{"a"}, {""}, {"b"}})
	if _, got := readFile(t, path); len(got) != 3 {
		t.Fatalf("one column: read %q", got)
	}
}

func replaceNulls(rows table, with string) table {
	out := make(table, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			if v == N {
				v = with
			}
			out[i][j] = v
		}
	}
	return out
}

func TestParquetRowGroups(t *testing.T) {
	var buf bytes.Buffer
	w := must(NewWriter(readers.FormatParquet, &buf, WriterOptions{RowGroupRows: 10}))
	cols := []string{"n"}
	var rows table
	for i := range 95 {
		rows = append(rows, []string{strings.Repeat("x", i)})
	}
	if _, err := Apply(context.Background(), newMem(cols, rows), w, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.parquet")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, got := readFile(t, path)
	equalTables(t, got, rows)
}

func TestNewWriterRefuses(t *testing.T) {
	if _, err := NewWriter("xlsx", &bytes.Buffer{}, WriterOptions{}); err == nil {
		t.Fatal("wrote xlsx")
	}
	if _, err := NewWriter(readers.FormatCSV, &bytes.Buffer{}, WriterOptions{Delimiter: '"'}); err == nil {
		t.Fatal("a quote as the delimiter")
	}
}

// A failed step leaves the output unclosed, and says which step and row.
func TestApplyFailureClosesNothing(t *testing.T) {
	var buf bytes.Buffer
	w := must(NewWriter(readers.FormatJSON, &buf, WriterOptions{}))
	_, err := Apply(context.Background(), newMem(people, peopleRows), w, Pipeline{expression("age", `int(row.age)`)}, Options{})
	var re *RowError
	if !errors.As(err, &re) || re.Row != 2 || re.Step != 0 {
		t.Fatalf("got %v", err)
	}
	if strings.Contains(buf.String(), "]") {
		t.Fatalf("the output was finished: %q", buf.String())
	}
}

func TestApplyCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Apply(ctx, newMem(people, peopleRows), &tableWriter{}, nil, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

// Reopen must give the same columns.
func TestApplyReopenChecksColumns(t *testing.T) {
	opt := Options{Reopen: reopener([]string{"other"}, table{{"x"}})}
	_, _, err := tryRun([]string{"v"}, table{{"a"}, {"a"}}, opt, step("d", TypeDedupe, "", StrategyExact, map[string]any{"keep": "last"}))
	if err == nil || !strings.Contains(err.Error(), "other columns") {
		t.Fatalf("got %v", err)
	}
}
