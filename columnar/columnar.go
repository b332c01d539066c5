// Package columnar holds rows column by column: the shape in which readers
// hand rows to the profiler. A column's cells lie back to back in one buffer,
// so profiling a column walks memory in order, and a reader fills a batch
// without allocating once its buffers have grown.
package columnar

import (
	"sync/atomic"
	"unsafe"
)

// Bounds of a batch. A batch is full once it holds MaxRows rows, MaxCells
// cells or MaxBytes bytes of text (one row may pass the byte bound).
const (
	MaxRows  = 32 << 10
	MaxCells = 512 << 10
	MaxBytes = 4 << 20
)

// Column is a run of one column's consecutive cells: cell r is
// Text[Ends[r-1]:Ends[r]] (from 0 for r == 0), null when Nulls[r].
//
// A reader of dictionary-encoded data may also say which dictionary entry
// each cell is: Codes[r] is its index in dictionary Dict (any value for a
// null cell). The codes hold only while every cell has one
// (HasCodes): appending a cell any other way drops them. Cells with equal
// codes are equal; equal cells may still have different codes (a
// dictionary may repeat a value). The profiler then hashes and looks up
// each entry once per dictionary instead of once per cell.
type Column struct {
	Text  []byte
	Ends  []int32
	Nulls []bool
	Codes []int32
	Dict  uint64 // names the dictionary of Codes, unique in the process (NewDict)
}

var dicts atomic.Uint64

// NewDict returns a name for a dictionary, never returned before.
func NewDict() uint64 { return dicts.Add(1) }

// HasCodes reports whether every cell has a code (and there are cells).
func (c *Column) HasCodes() bool { return len(c.Ends) > 0 && len(c.Codes) == len(c.Ends) }

// CanCode reports whether a cell appended next may carry a code of
// dictionary dict and keep the codes whole: every cell so far has a code
// of dict.
func (c *Column) CanCode(dict uint64) bool {
	return len(c.Codes) == len(c.Ends) && (len(c.Ends) == 0 || c.Dict == dict)
}

// Truncate keeps the first n cells.
func (c *Column) Truncate(n int) {
	end := int32(0)
	if n > 0 {
		end = c.Ends[n-1]
	}
	c.Text, c.Ends, c.Nulls = c.Text[:end], c.Ends[:n], c.Nulls[:n]
	c.Codes = c.Codes[:min(n, len(c.Codes))]
}

// Len is the number of cells.
func (c *Column) Len() int { return len(c.Ends) }

// Append adds a non-null cell.
func (c *Column) Append(v []byte) {
	c.Text = append(c.Text, v...)
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, false)
}

// AppendString adds a non-null cell.
func (c *Column) AppendString(v string) {
	c.Text = append(c.Text, v...)
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, false)
}

// AppendNull adds a null cell.
func (c *Column) AppendNull() {
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, true)
}

// EndCell closes a non-null cell whose bytes were appended to Text
// directly (by strconv.AppendInt, say).
func (c *Column) EndCell() {
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, false)
}

// Cell returns cell r and whether it is null. The string is a view of Text,
// valid until the column is reset or appended to: callers copy what they
// keep.
func (c *Column) Cell(r int) (string, bool) {
	start := int32(0)
	if r > 0 {
		start = c.Ends[r-1]
	}
	end := c.Ends[r]
	if end == start {
		return "", c.Nulls[r]
	}
	return unsafe.String(&c.Text[start], end-start), c.Nulls[r]
}

func (c *Column) reset() {
	c.Text, c.Ends, c.Nulls, c.Codes, c.Dict = c.Text[:0], c.Ends[:0], c.Nulls[:0], c.Codes[:0], 0
}

// Batch is a run of consecutive rows of a table, column by column: every
// column holds Rows cells.
type Batch struct {
	Rows    int
	Cols    []Column
	maxRows int
}

// NewBatch returns an empty batch of width columns. Its row bound shrinks
// with the width so that a wide table's batch stays within MaxCells cells.
func NewBatch(width int) *Batch {
	return &Batch{Cols: make([]Column, width), maxRows: rowBound(width)}
}

func rowBound(width int) int { return max(1, min(MaxRows, MaxCells/max(1, width))) }

// Reset empties the batch, keeping its buffers.
func (b *Batch) Reset() {
	b.Rows = 0
	for i := range b.Cols {
		b.Cols[i].reset()
	}
}

// Widen adds columns up to width, each null in every row the batch holds,
// and lowers the row bound to the new width's: for a reader that finds a
// new column partway through a file. The batch may then hold more cells
// than MaxCells; it is full.
func (b *Batch) Widen(width int) {
	for len(b.Cols) < width {
		var c Column
		for range b.Rows {
			c.AppendNull()
		}
		b.Cols = append(b.Cols, c)
	}
	b.maxRows = min(b.maxRows, rowBound(width))
}

// Full reports whether the batch has reached its row or byte bound.
func (b *Batch) Full() bool {
	if b.Rows >= b.maxRows {
		return true
	}
	n := 0
	for i := range b.Cols {
		n += len(b.Cols[i].Text)
	}
	return n >= MaxBytes
}

// MaxRows is the number of rows after which the batch is full.
func (b *Batch) MaxRows() int { return b.maxRows }
