package readers

import (
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/dqs/dqs/columnar"
)

// The direct path of NextBatch.
//
// A flat file (top-level columns of booleans, integers, floats, dates,
// timestamps and strings) is the common upload, and for it the Arrow path
// spends most of its time building Arrow arrays that NextBatch then formats
// into text: every string is copied twice and every dictionary-encoded
// value expanded before it is formatted. The direct path decodes the pages
// itself (parquet_direct_decode.go) and writes each value's text straight
// into the batch; a dictionary's values are formatted once per column
// chunk and copied by index.
//
// Its rows must be exactly those of Next, which reads through Arrow, and a
// corrupt file must fail where and as Next fails. So the direct path
// decodes in the windows in which the Arrow path reads record batches
// (recordRows), and on anything it does not decode, anything inconsistent
// and any value over MaxFieldBytes, it gives the rows from the start of
// the window to the Arrow path, which reads on from there (and words the
// error, if it finds one). A window that passes the batch's bounds leaves
// its last rows in spill, for the next batch. Next, called between
// batches, also moves to the Arrow path at the current row.

type directRows struct {
	p    *parquetReader
	decs []chunkDecoder // per column

	rg      int   // current row group, -1 before the first
	rgRows  int64 // rows of the current row group
	decoded int64 // its rows decoded so far
	given   int64 // its rows given to the caller (decoded less those in spill)

	spill   *columnar.Batch // decoded rows past the last batch's bounds
	spillAt int             // spill's first row not given yet

	rowBytes int // text per row of the last window decoded

	window textBudget // what the window being decoded may still take
}

// newDirectRows returns the direct path for the file, or nil when a column
// is not one it decodes. cols are the Arrow path's output columns.
func newDirectRows(p *parquetReader, cols []arrowColumn) *directRows {
	sc := p.pf.MetaData().Schema
	if len(cols) == 0 || sc.NumColumns() != len(cols) {
		return nil
	}
	dr := &directRows{p: p, rg: -1, decs: make([]chunkDecoder, len(cols)), spill: columnar.NewBatch(len(cols))}
	for i, c := range cols {
		d := sc.Column(i)
		if len(c.path) != 1 || c.path[0] != i || d.MaxRepetitionLevel() != 0 || d.MaxDefinitionLevel() > 1 ||
			d.SchemaNode().Parent() != sc.Root() {
			return nil
		}
		dc, ok := directColumnOf(d, c.typ)
		if !ok {
			return nil
		}
		dc.maxValue = p.opt.MaxFieldBytes
		dc.typed = typedKind(c.typ, dc.maxValue)
		dr.decs[i].directColumn = dc
		dr.decs[i].window = &dr.window
		dr.decs[i].bufSize = p.streamBuffer(len(cols))
	}
	return dr
}

// directColumnOf tells how the direct path decodes column d, which pqarrow
// reads as Arrow type t, so that its text is what appendArrowValue gives
// for that Arrow array. Only types whose values pqarrow takes unconverted
// from the physical ones qualify.
func directColumnOf(d *schema.Column, t arrow.DataType) (directColumn, bool) {
	if dt, ok := t.(*arrow.DictionaryType); ok {
		t = dt.ValueType // a dictionary formats as its values do
	}
	dc := directColumn{nullable: d.MaxDefinitionLevel() == 1}
	phys := d.PhysicalType()
	switch {
	case t.ID() == arrow.BOOL && phys == parquet.Types.Boolean:
		dc.kind = pqBool
	case t.ID() == arrow.INT32 && phys == parquet.Types.Int32:
		dc.kind = pqInt32
	case t.ID() == arrow.DATE32 && phys == parquet.Types.Int32:
		dc.kind = pqDate
	case t.ID() == arrow.INT64 && phys == parquet.Types.Int64:
		dc.kind = pqInt64
	case t.ID() == arrow.FLOAT32 && phys == parquet.Types.Float:
		dc.kind = pqFloat
	case t.ID() == arrow.FLOAT64 && phys == parquet.Types.Double:
		dc.kind = pqDouble
	case (t.ID() == arrow.STRING || t.ID() == arrow.LARGE_STRING) && phys == parquet.Types.ByteArray:
		dc.kind = pqString
	case (t.ID() == arrow.BINARY || t.ID() == arrow.LARGE_BINARY) && phys == parquet.Types.ByteArray:
		dc.kind = pqBinary
	case t.ID() == arrow.TIMESTAMP && phys == parquet.Types.Int64:
		// pqarrow converts units when the stored Arrow schema asks for
		// another one (seconds, which Parquet lacks): only the same unit
		// is read as is.
		var unit schema.TimeUnitType
		switch lt := d.LogicalType().(type) {
		case schema.TimestampLogicalType:
			unit = lt.TimeUnit()
		case *schema.TimestampLogicalType:
			unit = lt.TimeUnit()
		default:
			return dc, false
		}
		var ok bool
		dc.kind, dc.unit = pqTimestamp, t.(*arrow.TimestampType).Unit
		switch unit {
		case schema.TimeUnitMillis:
			ok = dc.unit == arrow.Millisecond
		case schema.TimeUnitMicros:
			ok = dc.unit == arrow.Microsecond
		case schema.TimeUnitNanos:
			ok = dc.unit == arrow.Nanosecond
		default:
			ok = false
		}
		return dc, ok
	default:
		return dc, false
	}
	return dc, true
}

// fillDirect appends rows to b through the direct path until b is full, the
// next window would take it past its bounds after rows were added from
// row start on, or the file ends (io.EOF, as the Arrow path gives it). When
// the direct path gives up, it hands over to the Arrow path and returns nil
// with r.direct nil; NextBatch goes on through the Arrow path.
func (r *parquetReader) fillDirect(b *columnar.Batch, start int) error {
	dr := r.direct
	for !b.Full() {
		if dr.spillAt < dr.spill.Rows {
			first, n := b.Rows, min(dr.spill.Rows-dr.spillAt, b.MaxRows()-b.Rows)
			appendBatchRows(b, dr.spill, dr.spillAt, n)
			kept := rowsKept(b, first, n)
			truncateBatch(b, first+kept)
			dr.spillAt += kept
			dr.given += int64(kept)
			r.row += int64(kept)
			if dr.spillAt == dr.spill.Rows {
				dr.spill.Reset()
				dr.spillAt = 0
			}
			continue
		}
		if dr.rg < 0 || dr.decoded == dr.rgRows {
			more, err := dr.nextRowGroup()
			if err != nil {
				r.leaveDirect()
				return nil
			}
			if !more {
				return r.step(func() error { return io.EOF })
			}
			continue
		}
		first := b.Rows
		n := int(min(r.arrow.recordRows(dr.rg), dr.rgRows-dr.decoded))
		if first > start && !dr.fits(b, n) {
			// The window would pass the batch's bounds: it opens the next
			// batch instead, rather than being copied there through spill.
			return nil
		}
		if !dr.decode(b, n) {
			truncateBatch(b, first)
			r.leaveDirect()
			return nil
		}
		dr.decoded += int64(n)
		dr.rowBytes = (textBytes(b, first+n) - textBytes(b, first) + n - 1) / n
		kept := rowsKept(b, first, n)
		if kept < n {
			appendBatchRows(dr.spill, b, first+kept, n-kept)
			dr.spill.Rows += n - kept
		}
		truncateBatch(b, first+kept)
		dr.given += int64(kept)
		r.row += int64(kept)
	}
	return nil
}

// fits tells whether n more rows, as long as the last window's, keep b
// within its bounds.
func (dr *directRows) fits(b *columnar.Batch, n int) bool {
	return b.Rows+n <= b.MaxRows() && textBytes(b, b.Rows)+n*dr.rowBytes < columnar.MaxBytes
}

// rowsKept returns how many of the n rows appended to b's columns after
// row first b keeps, as FillBatch would: up to its row bound, and up to the
// row that takes its text to the byte bound.
func rowsKept(b *columnar.Batch, first, n int) int {
	return min(n-rowsPastFull(b, first, n), b.MaxRows()-first)
}

// decode appends the next n rows of the row group to b's columns (not to
// b.Rows). It reports false if a page could not be decoded or a value is
// over MaxFieldBytes.
//
// The columns are decoded in parallel. Reading is otherwise one goroutine
// in the profiling pipeline, and at the start of each row group it has
// every column's dictionary page to decompress and format before the first
// batch is out: the profiling goroutines would wait for it, leaving cores
// idle. The decoders share nothing but the file, which io.ReaderAt lets
// them read at once, and the codecs, which are safe for concurrent use.
func (dr *directRows) decode(b *columnar.Batch, n int) bool {
	last := dr.decoded+int64(n) == dr.rgRows
	dr.window.left.Store(dr.p.opt.recordLimit())
	return eachColumnInParallel(len(dr.decs), func(c int) bool {
		d, col := &dr.decs[c], &b.Cols[c]
		err := guard("", func() error {
			if err := d.appendRows(col, n); err != nil {
				return err
			}
			if last {
				return d.finish()
			}
			return nil
		})
		return err == nil
	})
}

// eachColumnInParallel runs fn for columns 0 to n-1 on up to GOMAXPROCS
// goroutines and reports whether every call returned true. fn must not
// panic (decoding runs under guard inside it): a panic on another
// goroutine would end the process.
func eachColumnInParallel(n int, fn func(c int) bool) bool {
	workers := min(n, runtime.GOMAXPROCS(0))
	var next atomic.Int32
	var failed atomic.Bool
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for c := int(next.Add(1) - 1); c < n; c = int(next.Add(1) - 1) {
				if !fn(c) {
					failed.Store(true)
				}
			}
		})
	}
	wg.Wait()
	return !failed.Load()
}

// nextRowGroup moves to the next row group with rows, checking its pages
// as the Arrow path does. It reports false after the last one. The check
// (prepareRowGroup) also opens Arrow's page readers, which the direct path
// does not use: a row group they fail on must fail here too, at its start,
// as Next fails on it.
func (dr *directRows) nextRowGroup() (bool, error) {
	md := dr.p.pf.MetaData()
	for {
		if dr.rg+1 >= md.NumRowGroups() {
			return false, nil
		}
		dr.rg++
		dr.rgRows = md.RowGroup(dr.rg).NumRows()
		dr.decoded, dr.given = 0, 0
		if dr.rgRows == 0 {
			continue
		}
		err := guard("", func() error {
			if err := dr.p.prepareRowGroup(dr.rg); err != nil {
				return err
			}
			rgm := md.RowGroup(dr.rg)
			for c := range dr.decs {
				col, err := rgm.ColumnChunk(c)
				if err != nil {
					return err
				}
				if err := dr.decs[c].open(dr.p.f, dr.p.size, col, dr.p.rgPages[c]); err != nil {
					return err
				}
			}
			return nil
		})
		return true, err
	}
}

// leaveDirect hands the rows from the first not given on to the Arrow path.
func (r *parquetReader) leaveDirect() {
	dr := r.direct
	r.direct = nil
	switch {
	case dr.rg < 0:
	case dr.given == dr.rgRows: // all of it given: Arrow need not read it to pass over it
		r.arrow.seek(dr.rg+1, 0)
	default:
		r.arrow.seek(dr.rg, dr.given)
	}
}

// appendBatchRows appends rows [from, from+n) of src to dst's columns (not
// to dst.Rows).
func appendBatchRows(dst, src *columnar.Batch, from, n int) {
	for c := range src.Cols {
		s, d := &src.Cols[c], &dst.Cols[c]
		if s.Kind != columnar.Text || d.Kind != columnar.Text {
			appendCells(d, s, from, n)
			continue
		}
		start := int32(0)
		if from > 0 {
			start = s.Ends[from-1]
		}
		if len(s.Codes) >= from+n && d.CanCode(s.Dict) {
			d.Dict = s.Dict
			d.Codes = append(d.Codes, s.Codes[from:from+n]...)
		}
		shift := int32(len(d.Text)) - start
		d.Text = append(d.Text, s.Text[start:s.Ends[from+n-1]]...)
		for _, e := range s.Ends[from : from+n] {
			d.Ends = append(d.Ends, e+shift)
		}
		d.Nulls = append(d.Nulls, s.Nulls[from:from+n]...)
	}
}

// appendCells appends cells [from, from+n) of src to dst one by one, for
// columns of which one is typed.
func appendCells(dst, src *columnar.Column, from, n int) {
	if src.Kind != columnar.Text && dst.CanType(src.Kind) {
		dst.SetKind(src.Kind) // a run of nulls is typed too
	}
	for r := from; r < from+n; r++ {
		switch {
		case src.Nulls[r]:
			dst.AppendNull()
		case src.Kind != columnar.Text:
			dst.AppendNum(src.Kind, src.Nums[r])
		default:
			v, _ := src.Cell(r)
			dst.ToText()
			dst.AppendString(v)
		}
	}
}
