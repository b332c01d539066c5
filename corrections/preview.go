package corrections

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/dqs/dqs/records"
)

// Bounds of a preview's sample: rows, and the bytes of their values (the
// sample stops at the row that passes it; the first row is always read).
const (
	DefaultPreviewRows = 50
	MaxPreviewRows     = 10_000
	MaxPreviewBytes    = 32 << 20
)

// PreviewRow is a row of the sample before and after the steps.
type PreviewRow struct {
	Row    int64 // 1-based, in the input
	Before records.Record
	After  *records.Record // nil when a step removed the row
}

// PreviewResult is what the steps do to the sample: each row before and
// after, and the counts Apply would give on a file of these rows.
type PreviewResult struct {
	Columns []string
	Rows    []PreviewRow
	Result  Result
}

// Preview runs steps, as Apply does, on the first limit rows of in
// (DefaultPreviewRows when limit <= 0, at most MaxPreviewRows) and writes
// nothing. The steps that learn from every row (dedupe keep last, null_fill
// statistics not in Options.Stats) learn from the sample, which it holds:
// Options.Reopen is not used. It does not close in.
func Preview(ctx context.Context, in records.Reader, steps Pipeline, limit int, opt Options) (PreviewResult, error) {
	if limit <= 0 {
		limit = DefaultPreviewRows
	}
	limit = min(limit, MaxPreviewRows)
	cols := in.Columns()
	e, err := newEngine(ctx, cols, steps, opt)
	if err != nil {
		return PreviewResult{}, err
	}
	sample, err := readSample(ctx, in, limit, len(cols))
	if err != nil {
		return PreviewResult{}, err
	}
	out := PreviewResult{Columns: cols, Rows: make([]PreviewRow, len(sample))}
	for i := range sample {
		out.Rows[i] = PreviewRow{Row: int64(i + 1), Before: sample[i]}
	}
	reread := func() (records.Reader, error) {
		return &sliceReader{cols: cols, rows: sample, format: in.Format()}, nil
	}
	first, _ := reread()
	src := &source{first: first, reopen: reread, cols: cols}
	out.Result, err = e.execute(src, func(r *row) error {
		after := cloneRecord(&r.Record)
		out.Rows[r.num-1].After = &after
		return nil
	})
	if err != nil {
		return PreviewResult{}, err
	}
	return out, nil
}

// readSample copies the first limit rows of in, fewer when their values
// pass MaxPreviewBytes.
func readSample(ctx context.Context, in records.Reader, limit, width int) ([]records.Record, error) {
	var sample []records.Record
	size := 0
	for len(sample) < limit && size < MaxPreviewBytes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := in.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading row %d: %w", len(sample)+1, err)
		}
		if len(rec.Values) != width {
			return nil, fmt.Errorf("%w: row %d has %d values for %d columns", records.ErrMalformed, len(sample)+1, len(rec.Values), width)
		}
		for _, v := range rec.Values {
			size += len(v)
		}
		c := cloneRecord(rec)
		if len(c.Null) != width { // a source without null flags has no nulls
			c.Null = append(c.Null, make([]bool, width-len(c.Null))...)
		}
		sample = append(sample, c)
	}
	return sample, nil
}

func cloneRecord(r *records.Record) records.Record {
	return records.Record{Values: slices.Clone(r.Values), Null: slices.Clone(r.Null)}
}

// sliceReader reads rows held in memory.
type sliceReader struct {
	cols   []string
	rows   []records.Record
	next   int
	format records.Format
}

func (s *sliceReader) Columns() []string      { return s.cols }
func (s *sliceReader) Format() records.Format { return s.format }
func (s *sliceReader) Close() error           { return nil }

func (s *sliceReader) Next() (*records.Record, error) {
	if s.next == len(s.rows) {
		return nil, io.EOF
	}
	s.next++
	return &s.rows[s.next-1], nil
}

// RowObject is rec as an object by column name, a null as nil: how a
// preview's rows are shown.
func RowObject(cols []string, rec records.Record) map[string]any {
	out := make(map[string]any, len(cols))
	for i, c := range cols {
		if i >= len(rec.Values) || (i < len(rec.Null) && rec.Null[i]) {
			out[c] = nil
			continue
		}
		out[c] = rec.Values[i]
	}
	return out
}
