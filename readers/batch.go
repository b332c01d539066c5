package readers

import (
	"errors"
	"fmt"
	"io"

	"github.com/dqs/dqs/columnar"
)

// BatchReader is implemented by readers that fill a columnar batch
// directly, without a Record per row in between.
type BatchReader interface {
	// NextBatch appends rows to b until b is full or the file ends. It
	// may stop short of full when the rows it would read next come as one
	// piece that would take b past its bounds, but only after adding rows.
	// It returns io.EOF, with no row added, after the last row; any other
	// error is what Next would have returned for the row that failed.
	NextBatch(b *columnar.Batch) error
}

// FillBatch appends rows of r to b until b is full or the file ends (or, as
// NextBatch may, short of full but with rows added), through NextBatch when
// r has it and row by row otherwise. b's width must be
// len(r.Columns()) when it is called; row by row, it widens b when a
// GrowingReader's columns grow, as NextBatch does. It returns io.EOF, with
// no row added, after the last row.
//
// Row by row, r may be any records.Reader, one written outside this
// package (a connector): a record whose shape does not match r's columns
// is refused with an error rather than taken as far as it goes (or
// indexed past its end, a panic on the reading goroutine).
func FillBatch(r Reader, b *columnar.Batch) error {
	if br, ok := r.(BatchReader); ok {
		return br.NextBatch(b)
	}
	start := b.Rows
	for !b.Full() {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if n := len(r.Columns()); n > len(b.Cols) {
			b.Widen(n)
		}
		if len(rec.Values) != len(b.Cols) || len(rec.Null) != len(b.Cols) {
			return fmt.Errorf("%s reader: a record of %d values and %d null flags for %d columns", r.Format(), len(rec.Values), len(rec.Null), len(b.Cols))
		}
		appendRecord(b, rec)
	}
	if b.Rows == start {
		return io.EOF
	}
	return nil
}

// appendRecord appends one row, given as a Record, to b. A typed column
// (the Parquet reader's, replaying rows through Next) turns into text.
func appendRecord(b *columnar.Batch, rec *Record) {
	for i, v := range rec.Values {
		if rec.Null[i] {
			b.Cols[i].AppendNull()
		} else {
			b.Cols[i].ToText()
			b.Cols[i].AppendString(v)
		}
	}
	b.Rows++
}
