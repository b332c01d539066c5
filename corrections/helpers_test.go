package corrections

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// N stands for a null cell in the tests' tables.
const N = "\x00null"

// table is a file's rows in the tests: values, N for a null.
type table [][]string

// memReader reads a table from memory, as a connector would.
type memReader struct {
	cols []string
	rows table
	next int
	rec  records.Record
}

func newMem(cols []string, rows table) *memReader {
	return &memReader{cols: cols, rows: rows, rec: records.Record{Values: make([]string, len(cols)), Null: make([]bool, len(cols))}}
}

func (m *memReader) Columns() []string      { return m.cols }
func (m *memReader) Format() records.Format { return "mem" }
func (m *memReader) Close() error           { return nil }

func (m *memReader) Next() (*records.Record, error) {
	if m.next == len(m.rows) {
		return nil, io.EOF
	}
	for i, v := range m.rows[m.next] {
		// The reader reuses its record, as the file readers may: the
		// engine must copy what it keeps.
		m.rec.Values[i], m.rec.Null[i] = v, v == N
		if v == N {
			m.rec.Values[i] = ""
		}
	}
	m.next++
	return &m.rec, nil
}

// reopener opens the table again for each pass.
func reopener(cols []string, rows table) func() (records.Reader, error) {
	return func() (records.Reader, error) { return newMem(cols, rows), nil }
}

// tableWriter collects the rows written.
type tableWriter struct {
	cols   []string
	rows   table
	closed bool
}

func (w *tableWriter) WriteHeader(cols []string) error { w.cols = slices.Clone(cols); return nil }
func (w *tableWriter) Close() error                    { w.closed = true; return nil }

func (w *tableWriter) Write(rec *records.Record) error {
	w.rows = append(w.rows, recordRow(rec))
	return nil
}

func recordRow(rec *records.Record) []string {
	row := make([]string, len(rec.Values))
	for i, v := range rec.Values {
		row[i] = v
		if rec.Null[i] {
			row[i] = N
		}
	}
	return row
}

// run applies steps to the table, with a Reopen for the passes that need
// one, and returns the rows written.
func run(t *testing.T, cols []string, rows table, steps ...Step) (table, Result) {
	t.Helper()
	got, res, err := tryRun(cols, rows, Options{}, steps...)
	if err != nil {
		t.Fatal(err)
	}
	return got, res
}

func tryRun(cols []string, rows table, opt Options, steps ...Step) (table, Result, error) {
	if opt.Reopen == nil {
		opt.Reopen = reopener(cols, rows)
	}
	w := &tableWriter{}
	res, err := Apply(context.Background(), newMem(cols, rows), w, steps, opt)
	if err == nil && !w.closed {
		return nil, res, errors.New("Apply did not close the writer")
	}
	return w.rows, res, err
}

// column is one column of a table.
func column(rows table, i int) []string {
	out := make([]string, len(rows))
	for r, row := range rows {
		out[r] = row[i]
	}
	return out
}

func equalTables(t *testing.T, got, want table) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("rows differ\n got %q\nwant %q", got, want)
	}
}

// readFile reads a file back with the project's readers.
func readFile(t testing.TB, path string) ([]string, table) {
	t.Helper()
	r := openFile(t, path)
	defer r.Close()
	var rows table
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return r.Columns(), rows
		}
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, recordRow(rec))
	}
}

func openFile(t testing.TB, path string) readers.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	r, err := readers.Open(f, filepath.Base(path), readers.Options{CSV: &readers.CSVOptions{Header: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// writeFile writes a table in a format with the package's writers.
func writeFile(t testing.TB, path string, format records.Format, cols []string, rows table) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := NewWriter(format, f, WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(cols); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		rec := records.Record{Values: make([]string, len(row)), Null: make([]bool, len(row))}
		for i, v := range row {
			if v == N {
				rec.Null[i] = true
			} else {
				rec.Values[i] = v
			}
		}
		if err := w.Write(&rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func step(id, typ, col, strategy string, params map[string]any) Step {
	return Step{ID: id, Type: typ, Column: col, Strategy: strategy, Params: params}
}

func fix(col, strategy string, params map[string]any) Step {
	return step("fix-"+strategy, TypeFormatFix, col, strategy, params)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprint(err))
	}
	return v
}
