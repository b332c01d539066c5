// Package columnar holds rows column by column: the shape in which readers
// hand rows to the profiler. A column's cells lie back to back in one buffer,
// so profiling a column walks memory in order, and a reader fills a batch
// without allocating once its buffers have grown.
package columnar

import (
	"math"
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
//
// A reader of typed data may instead hand over a column's cells as values
// (Kind other than Text): Nums[r] is cell r's value (any for a null
// cell), the column holds no text and every cell's end is 0. The profiler
// then hashes, counts and measures the 8-byte values, and writes text
// only for the values it shows. The cells of a column are all typed or all
// text: a reader appending text to a typed column turns it into text first
// (ToText).
type Column struct {
	Text  []byte
	Ends  []int32
	Nulls []bool
	Codes []int32
	Dict  uint64 // names the dictionary of Codes, unique in the process (NewDict)
	Kind  Kind
	Nums  []int64
}

// Kind is how a column holds its cells: as text, or as values of one type
// (Column.Nums), each with one text (Kind.Append).
type Kind uint8

const (
	Text        Kind = iota
	Int              // a 64-bit integer
	Float64          // a float64's bits (math.Float64bits); a NaN is math.NaN()'s
	Date             // days since 1970-01-01
	TimestampS       // seconds since 1970-01-01T00:00:00Z
	TimestampMS      // milliseconds since then
	TimestampUS      // microseconds since then
	TimestampNS      // nanoseconds since then
)

// PerSecond is how many units of a timestamp kind make a second (0 for the
// other kinds).
func (k Kind) PerSecond() int64 {
	switch k {
	case TimestampS:
		return 1
	case TimestampMS:
		return 1e3
	case TimestampUS:
		return 1e6
	case TimestampNS:
		return 1e9
	}
	return 0
}

// CanType reports whether cells of kind k (not Text) may be appended to c
// as values: c is of kind k, or holds no cell but nulls.
func (c *Column) CanType(k Kind) bool {
	if c.Kind == k {
		return true
	}
	if c.Kind != Text || len(c.Text) > 0 {
		return false
	}
	for _, null := range c.Nulls {
		if !null {
			return false
		}
	}
	return true
}

// SetKind makes c, for which CanType(k) holds, a column of kind k.
func (c *Column) SetKind(k Kind) {
	if c.Kind == k {
		return
	}
	c.Kind = k
	c.Nums = append(c.Nums[:0], make([]int64, len(c.Ends))...)
}

// AppendNum adds a non-null cell of kind k: as a value when CanType(k),
// else as its text (the column's values, if of another kind, turned into
// text first).
func (c *Column) AppendNum(k Kind, v int64) {
	if !c.CanType(k) {
		c.ToText()
		c.Text = k.Append(c.Text, v)
		c.EndCell()
		return
	}
	c.SetKind(k)
	if k == Float64 {
		v = CanonicalFloat(v)
	}
	c.Nums = append(c.Nums, v)
	c.Ends = append(c.Ends, 0)
	c.Nulls = append(c.Nulls, false)
}

// nanBits is the one NaN a Float64 column holds: NaNs of other payloads,
// which all read as "NaN", would count as other values.
var nanBits = int64(math.Float64bits(math.NaN()))

// CanonicalFloat returns the bits of a float64 as a Float64 column holds
// them: as they are, but for a NaN, which is math.NaN()'s.
func CanonicalFloat(bits int64) int64 {
	if bits&0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && bits&0x000f_ffff_ffff_ffff != 0 {
		return nanBits
	}
	return bits
}

// mustBeText stops a text append to a typed column, whose text is not in
// Text: the appender calls ToText first. A check that cheap keeps the
// appends inlined in the readers' loops; turning the column into text
// there would not.
func (c *Column) mustBeText() {
	if c.Kind != Text {
		panic("columnar: text appended to a typed column (call ToText first)")
	}
}

// ToText turns a typed column into a Text column of its values' texts (a
// Text column is left as it is), for a reader about to append text to it.
func (c *Column) ToText() {
	if c.Kind == Text {
		return
	}
	text := c.Text[:0]
	for r, v := range c.Nums {
		if !c.Nulls[r] {
			text = c.Kind.Append(text, v)
		}
		c.Ends[r] = int32(len(text))
	}
	c.Text, c.Kind, c.Nums = text, Text, c.Nums[:0]
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
	c.Nums = c.Nums[:min(n, len(c.Nums))]
}

// Len is the number of cells.
func (c *Column) Len() int { return len(c.Ends) }

// Append adds a non-null cell to a Text column (see ToText).
func (c *Column) Append(v []byte) {
	c.mustBeText()
	c.Text = append(c.Text, v...)
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, false)
}

// AppendString adds a non-null cell to a Text column (see ToText).
func (c *Column) AppendString(v string) {
	c.mustBeText()
	c.Text = append(c.Text, v...)
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, false)
}

// AppendNull adds a null cell.
func (c *Column) AppendNull() {
	if c.Kind != Text {
		c.Nums = append(c.Nums, 0)
	}
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, true)
}

// EndCell closes a non-null cell whose bytes were appended to Text
// directly (by strconv.AppendInt, say), in a Text column (see ToText).
func (c *Column) EndCell() {
	c.mustBeText()
	c.Ends = append(c.Ends, int32(len(c.Text)))
	c.Nulls = append(c.Nulls, false)
}

// Cell returns cell r and whether it is null. The string is a view of Text,
// valid until the column is reset or appended to: callers copy what they
// keep. The text of a typed cell is made for the call.
func (c *Column) Cell(r int) (string, bool) {
	if c.Kind != Text {
		if c.Nulls[r] {
			return "", true
		}
		return string(c.Kind.Append(nil, c.Nums[r])), false
	}
	return c.TextCell(r)
}

// TextCell is Cell for a column of kind Text: cheap enough to be inlined in
// the loops that take every cell of a batch column.
func (c *Column) TextCell(r int) (string, bool) {
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
	c.Kind, c.Nums = Text, c.Nums[:0]
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

// keptText bounds the text buffers a batch keeps when it is reset.
const keptText = 4 * MaxBytes

// Reset empties the batch, keeping its buffers, up to keptText bytes of
// text buffers: a batch holds MaxBytes of text, give or take a row, but the
// column that holds it may change from batch to batch, and a batch that kept
// every column's largest buffer would grow to the width times MaxBytes (300
// columns took 1.2 GB a batch). Past the bound, the buffers larger than
// their share of it are let go.
func (b *Batch) Reset() {
	b.Rows = 0
	total := 0
	for i := range b.Cols {
		b.Cols[i].reset()
		total += cap(b.Cols[i].Text)
	}
	if total <= keptText {
		return
	}
	share := keptText / len(b.Cols)
	for i := range b.Cols {
		if c := &b.Cols[i]; cap(c.Text) > share {
			c.Text = nil
		}
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
