package suggestions

import (
	"errors"
	"io"
	"slices"

	"github.com/dqs/dqs/records"
)

// rows is a table in memory: what a reader read, or a writer was given.
type rows struct {
	cols   []string
	values [][]string
	nulls  [][]bool
}

// text is a cell as the comparison sees it: a null is "".
func (t *rows) text(r, c int) string { return t.values[r][c] }

func (t *rows) equalRow(i int, u *rows, j int) bool {
	return slices.Equal(t.values[i], u.values[j]) && slices.Equal(t.nulls[i], u.nulls[j])
}

// readAll reads every row of r.
func readAll(r records.Reader) (*rows, error) {
	out := &rows{}
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		out.values = append(out.values, slices.Clone(rec.Values))
		out.nulls = append(out.nulls, slices.Clone(rec.Null))
	}
	out.cols = slices.Clone(r.Columns())
	// A JSON reader's columns may grow: pad the rows read before.
	for i := range out.values {
		for len(out.values[i]) < len(out.cols) {
			out.values[i] = append(out.values[i], "")
			out.nulls[i] = append(out.nulls[i], true)
		}
	}
	return out, nil
}

// reader reads t again, as a records.Reader.
func (t *rows) reader() records.Reader { return &memReader{t: t} }

type memReader struct {
	t   *rows
	i   int
	rec records.Record
}

func (m *memReader) Columns() []string { return m.t.cols }

func (m *memReader) Next() (*records.Record, error) {
	if m.i >= len(m.t.values) {
		return nil, io.EOF
	}
	m.rec.Values = append(m.rec.Values[:0], m.t.values[m.i]...)
	m.rec.Null = append(m.rec.Null[:0], m.t.nulls[m.i]...)
	m.i++
	return &m.rec, nil
}

func (m *memReader) Format() records.Format { return "memory" }
func (m *memReader) Close() error           { return nil }

// memWriter is a corrections.Writer that keeps the rows.
type memWriter struct{ t rows }

func (w *memWriter) WriteHeader(cols []string) error {
	w.t.cols = slices.Clone(cols)
	return nil
}

func (w *memWriter) Write(rec *records.Record) error {
	w.t.values = append(w.t.values, slices.Clone(rec.Values))
	w.t.nulls = append(w.t.nulls, slices.Clone(rec.Null))
	return nil
}

func (w *memWriter) Close() error { return nil }
