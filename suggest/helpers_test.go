package suggest

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// file is a small hand-made file: analysed as the service analyses an
// upload, and opened again as Suggest opens it.
type file struct {
	name string
	data []byte
	res  *analysis.Result
}

// csvFile writes header and rows as CSV (quoting what needs it) and
// analyses it.
func csvFile(t testing.TB, header []string, rows [][]string) *file {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(header)
	_ = w.WriteAll(rows)
	return analysed(t, "test.csv", b.Bytes())
}

func analysed(t testing.TB, name string, data []byte) *file {
	t.Helper()
	res, err := analysis.Run(context.Background(), bytes.NewReader(data), name, int64(len(data)), analysis.Dialect{}, analysis.Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &file{name: name, data: data, res: res}
}

func (f *file) open() (records.Reader, error) {
	return readers.Open(bytes.NewReader(f.data), f.name, readers.Options{})
}

// suggest runs Suggest and checks what every suggestion must be: valid on
// the file's columns, JSON-encodable params that still validate once
// decoded as the API decodes them, a confidence in [0,1], an explanation.
func (f *file) suggest(t testing.TB, opt Options) []Suggestion {
	t.Helper()
	ss, err := Suggest(context.Background(), f.res, f.open, opt)
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]string, len(f.res.Columns))
	for i, c := range f.res.Columns {
		cols[i] = c.Name
	}
	for _, s := range ss {
		checkSuggestion(t, s, cols)
	}
	return ss
}

func checkSuggestion(t testing.TB, s Suggestion, cols []string) {
	t.Helper()
	if err := s.Step().Validate(cols); err != nil {
		t.Errorf("%s %s %s: %v", s.Column, s.CorrectionType, s.Strategy, err)
	}
	raw, err := json.Marshal(s.Params)
	if err != nil {
		t.Errorf("%s %s: params do not encode: %v", s.Column, s.Strategy, err)
		return
	}
	params, err := corrections.DecodeParams(raw)
	if err != nil {
		t.Fatal(err)
	}
	step := s.Step()
	step.Params = params
	if err := step.Validate(cols); err != nil {
		t.Errorf("%s %s: decoded params: %v", s.Column, s.Strategy, err)
	}
	if !(s.Confidence >= 0 && s.Confidence <= 1) {
		t.Errorf("%s %s: confidence %v", s.Column, s.Strategy, s.Confidence)
	}
	if s.Explanation == "" || (s.Engine != EngineRule && s.Engine != EngineCorrection) {
		t.Errorf("%s %s: engine %q, explanation %q", s.Column, s.Strategy, s.Engine, s.Explanation)
	}
}

// find returns the suggestions of column and strategy.
func find(ss []Suggestion, column, strategy string) []Suggestion {
	var out []Suggestion
	for _, s := range ss {
		if s.Column == column && s.Strategy == strategy {
			out = append(out, s)
		}
	}
	return out
}

// apply runs the steps over the file and returns its rows afterwards.
func (f *file) apply(t testing.TB, ss []Suggestion) [][]string {
	t.Helper()
	var pipe corrections.Pipeline
	for _, s := range ss {
		pipe = append(pipe, s.Step())
	}
	in, err := f.open()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	w := &rowsWriter{}
	if _, err := corrections.Apply(context.Background(), in, w, pipe, corrections.Options{Reopen: f.open}); err != nil {
		t.Fatal(err)
	}
	return w.rows
}

type rowsWriter struct{ rows [][]string }

func (w *rowsWriter) WriteHeader([]string) error { return nil }
func (w *rowsWriter) Write(r *records.Record) error {
	w.rows = append(w.rows, slices.Clone(r.Values))
	return nil
}
func (w *rowsWriter) Close() error { return nil }

// repeat makes n rows from f(i).
func repeat(n int, f func(i int) []string) [][]string {
	rows := make([][]string, n)
	for i := range rows {
		rows[i] = f(i)
	}
	return rows
}

// memReader is a records.Reader over rows in memory.
type memReader struct {
	cols []string
	rows [][]string
	i    int
	rec  records.Record
}

func (m *memReader) Columns() []string { return m.cols }
func (m *memReader) Next() (*records.Record, error) {
	if m.i >= len(m.rows) {
		return nil, io.EOF
	}
	m.rec.Values = m.rows[m.i]
	m.rec.Null = make([]bool, len(m.rows[m.i]))
	m.i++
	return &m.rec, nil
}
func (m *memReader) Format() records.Format { return "memory" }
func (m *memReader) Close() error           { return nil }

var errBroken = errors.New("broken source")

// failingReader fails after n rows.
type failingReader struct {
	memReader
	after int
}

func (f *failingReader) Next() (*records.Record, error) {
	if f.i >= f.after {
		return nil, errBroken
	}
	return f.memReader.Next()
}
