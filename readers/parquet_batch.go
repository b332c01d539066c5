package readers

import (
	"io"
	"math"
	"slices"
	"sort"

	"github.com/dqs/dqs/columnar"
)

// Batch reading of Parquet.
//
// The Arrow path formats the arrays of each record batch column by column
// straight into the batch's columns, through the same appendArrowValue as
// Next, so no string is made per value. Any rows it cannot convert cleanly
// (a value over MaxFieldBytes, or a decoder panic on corrupt data) are read
// again through Next, so that the rows before the failure and the error
// itself are exactly what Next gives. The plain path has no columnar form
// and always goes through Next.

// NextBatch implements BatchReader.
func (r *parquetReader) NextBatch(b *columnar.Batch) error {
	if r.arrow == nil {
		return FillBatch(rowReader{r}, b)
	}
	start := b.Rows
	if r.direct != nil {
		err := r.err
		if err == nil {
			err = r.fillDirect(b, start)
		}
		if err == io.EOF && b.Rows > start {
			return nil
		}
		if err != nil || r.direct != nil {
			return err
		}
	}
	for !b.Full() {
		if err := r.fillArrow(b); err != nil {
			if err == io.EOF && b.Rows > start {
				return nil
			}
			return err
		}
	}
	return nil
}

// rowReader hides NextBatch, so that FillBatch reads row by row.
type rowReader struct{ Reader }

// fillArrow appends rows of the current record batch to b, as many as b's
// bounds allow, first moving to the next record batch if the current one
// is used up.
func (r *parquetReader) fillArrow(b *columnar.Batch) error {
	if r.err != nil {
		return r.err
	}
	ar := r.arrow
	if ar.batch == nil || ar.bi >= int(ar.batch.NumRows()) {
		if err := r.step(ar.nextBatch); err != nil {
			return err
		}
	}
	first := b.Rows
	n := min(int(ar.batch.NumRows())-ar.bi, b.MaxRows()-first, ar.rowsFitting(b))
	if !r.convertRows(b, n) {
		truncateBatch(b, first)
		return r.replayRows(b, n)
	}
	kept := n - rowsPastFull(b, first, n)
	if kept > 0 {
		ar.rowBytes = max(1, (textBytes(b, first+kept)-textBytes(b, first))/kept)
	}
	truncateBatch(b, first+kept)
	ar.bi += kept
	r.row += int64(kept)
	return nil
}

// convertRows appends the next n rows of the current record batch to b's
// columns (not to b.Rows, which the caller sets). It reports false if a
// value is longer than MaxFieldBytes or the conversion panicked.
func (r *parquetReader) convertRows(b *columnar.Batch, n int) bool {
	ar := r.arrow
	err := guard("", func() error { // the replay through Next words the error
		for c := range ar.leaves {
			ar.leaves[c].appendRows(&b.Cols[c], ar.bi, n, r.opt.MaxFieldBytes)
		}
		return nil
	})
	return err == nil
}

// appendRows appends rows [from, from+n) of the leaf to col. It panics at
// the first value longer than maxValue: a record of a long dictionary value
// repeated would otherwise take gigabytes before any check.
func (l *arrowLeaf) appendRows(col *columnar.Column, from, n, maxValue int) {
	if l.kind != columnar.Text && col.CanType(l.kind) {
		l.appendNums(col, l.kind, from, n)
		return
	}
	// Append to local copies of the column's slices and store them back
	// once: storing them into the column per value costs a write barrier
	// each time while the collector runs, which is often.
	text, ends, nulls := col.Text, slices.Grow(col.Ends, n), slices.Grow(col.Nulls, n)
	for i := from; i < from+n; i++ {
		null := l.null(i)
		if !null {
			cell := len(text)
			text = l.appendValue(text, i)
			if len(text)-cell > maxValue {
				panic("a value over the field limit")
			}
		}
		ends = append(ends, int32(len(text)))
		nulls = append(nulls, null)
	}
	if len(text) > math.MaxInt32 {
		panic("a column's text in one batch is over 2 GiB") // the ends wrapped around
	}
	col.Text, col.Ends, col.Nulls = text, ends, nulls
}

// replayRows reads up to n rows through Next, to fail exactly where Next
// fails. It stops early when b fills up; the next call converts again.
func (r *parquetReader) replayRows(b *columnar.Batch, n int) error {
	for ; n > 0 && !b.Full(); n-- {
		rec, err := r.Next()
		if err != nil {
			return err
		}
		appendRecord(b, rec)
	}
	return nil
}

// rowsFitting estimates how many more rows b takes before its text reaches
// columnar.MaxBytes, from the size of the rows converted last (all the rows
// that are left when that is not known yet). An estimate too high costs
// converting rows that are then dropped, one too low another round.
func (ar *arrowRows) rowsFitting(b *columnar.Batch) int {
	if ar.rowBytes == 0 {
		return int(ar.batch.NumRows())
	}
	return max(0, columnar.MaxBytes-textBytes(b, b.Rows))/ar.rowBytes + 1
}

// rowsPastFull returns how many of the n rows appended after row first
// come after the row that made b full by its byte bound: FillBatch would
// have stopped before them.
func rowsPastFull(b *columnar.Batch, first, n int) int {
	if textBytes(b, first+n) < columnar.MaxBytes {
		return 0
	}
	// The text size after each row only grows, so search for the row at
	// which it reached the bound.
	full := first + sort.Search(n, func(k int) bool { return textBytes(b, first+k+1) >= columnar.MaxBytes })
	return first + n - (full + 1)
}

// textBytes is the size of the text of b's first rows rows, over all columns.
func textBytes(b *columnar.Batch, rows int) int {
	if rows == 0 {
		return 0
	}
	total := 0
	for c := range b.Cols {
		total += int(b.Cols[c].Ends[rows-1])
	}
	return total
}

// truncateBatch cuts b back to its first rows rows.
func truncateBatch(b *columnar.Batch, rows int) {
	for c := range b.Cols {
		b.Cols[c].Truncate(rows)
	}
	b.Rows = rows
}
