package readers

import (
	"errors"
	"io"
	"strings"

	"github.com/dqs/dqs/columnar"
)

// jsonReader streams a top-level JSON array of objects or JSON Lines.
// Columns are the union of (flattened) keys in first-seen order, found by a
// first pass over the file; a second pass streams the values. Opened with
// Options.OnePass, the first pass reads only the file's first rows, and the
// second adds the keys it meets later (see GrowingReader).
//
// Both passes parse each row once, straight from the read buffer (see
// jsonRows and jsonParser). The parser hands each leaf to a sink: in the
// first pass a columnFinder, which only looks at names, in the second a
// batchFiller, which appends the values to columnar batches.
type jsonReader struct {
	format Format
	rows   *jsonRows
	parser jsonParser
	filler batchFiller
	one    *columnar.Batch // Next's row
	rec    Record
	err    error
	// records is where the rows were found when an object wraps them
	// (see locateRecords); nil otherwise.
	records *recordsArray
}

// onePassHead is how much of a file the first pass reads in one-pass mode:
// enough for the keys of most files' rows, so that they seldom grow later.
// A variable so that tests can make columns grow in small files.
var onePassHead int64 = 64 << 10

func openJSON(f File, format Format, opt Options) (Reader, error) {
	var r jsonReader
	var buf []byte
	if format == FormatJSONL {
		// A single object may wrap the records: they are then read as a
		// JSON array of their own.
		var err error
		if r.records, buf, err = locateRecords(f, opt); err != nil {
			return nil, err
		}
		if r.records != nil {
			format = FormatJSON
		}
	}
	var scout *keyScout
	until := int64(-1)
	if opt.OnePass {
		until = onePassHead
		if r.records != nil {
			until += r.records.start
		}
	} else {
		scout = startKeyScout(f, format, opt) // before newJSONRows: it seeks
	}
	rows, err := r.newRows(f, format, opt, buf)
	if err != nil {
		scout.cancel()
		return nil, err
	}
	finder, err := findJSONColumns(rows, scout, opt, until)
	if err != nil {
		return nil, err
	}

	// Pass 2 streams from the start again.
	if r.rows, err = r.newRows(f, format, opt, rows.buf); err != nil {
		return nil, err
	}
	r.format = format
	if opt.OnePass {
		// Every key so far, null-only parents included: whether they stay
		// is known at the end (Kept).
		r.filler = batchFiller{keys: finder.keys, grow: true, nonNull: finder.nonNull, max: opt.MaxColumns}
	} else {
		r.filler = batchFiller{keys: newJSONKeys(finder.columns())}
	}
	r.filler.filled = make([]uint64, len(r.filler.keys.names))
	r.parser = jsonParser{maxField: opt.MaxFieldBytes, sink: &r.filler}
	if opt.OnePass {
		return &growingJSONReader{&r}, nil
	}
	return &r, nil
}

// newRows starts a pass over the rows: the whole file, or the wrapped
// records array.
func (r *jsonReader) newRows(f File, format Format, opt Options, buf []byte) (*jsonRows, error) {
	if r.records != nil {
		return newJSONRowsIn(f, format, opt, buf, r.records.start, r.records.end)
	}
	return newJSONRows(f, format, opt, buf)
}

// findJSONColumns is pass 1: it collects the leaf names of every row, up to
// the first bad one, or the first that ends at or past offset until when
// until >= 0. An error in the first row, or an ErrUnsupported one in any
// row, fails the open; later rows report other problems from Next, at the
// right row. A scout (nil for none) may have read the second half of the
// file meanwhile; see keyScout.
func findJSONColumns(rows *jsonRows, scout *keyScout, opt Options, until int64) (*columnFinder, error) {
	defer scout.cancel()
	finder := &columnFinder{keys: newJSONKeys(nil), max: opt.MaxColumns}
	p := &jsonParser{maxField: opt.MaxFieldBytes, sink: finder}
	for good := 0; ; good++ {
		err := rows.next(p)
		if err == io.EOF {
			break
		}
		if err == nil {
			// The names before a problem stay, as they did when rows were
			// flattened with a callback after being checked.
			err = rows.problemError(p)
		}
		if err != nil {
			if good == 0 || errors.Is(err, ErrUnsupported) {
				return nil, err
			}
			break
		}
		end := rows.base + rows.abs(rows.pos)
		if until >= 0 && end >= until {
			break
		}
		if scout != nil && end >= scout.from {
			if scout.joins(end) && finder.merge(scout.finder) {
				return finder, nil
			}
			scout.cancel()
			scout = nil
		}
	}
	return finder, nil
}

// growingJSONReader is a one-pass jsonReader: only it has Kept, so that a
// caller can tell by the type whether the columns may grow.
type growingJSONReader struct{ *jsonReader }

// Kept implements GrowingReader.
func (g *growingJSONReader) Kept() []bool {
	return keptColumns(g.filler.keys.names, g.filler.nonNull)
}

// Columns lists the columns; a one-pass reader appends to them as it goes.
func (r *jsonReader) Columns() []string { return r.filler.keys.names }
func (r *jsonReader) Format() Format    { return r.format }
func (r *jsonReader) Close() error      { return nil }

func (r *jsonReader) Next() (*Record, error) {
	if r.one == nil {
		r.one = columnar.NewBatch(len(r.Columns()))
	}
	r.one.Reset()
	if err := r.readRow(r.one); err != nil {
		return nil, err
	}
	if n := len(r.one.Cols); len(r.rec.Values) != n {
		r.rec.Values, r.rec.Null = make([]string, n), make([]bool, n)
	}
	for i := range r.one.Cols {
		v, null := r.one.Cols[i].Cell(0)
		r.rec.Values[i], r.rec.Null[i] = strings.Clone(v), null
	}
	return &r.rec, nil
}

// NextBatch appends rows to b; see BatchReader.
func (r *jsonReader) NextBatch(b *columnar.Batch) error {
	start := b.Rows
	for !b.Full() {
		if err := r.readRow(b); err != nil {
			if err == io.EOF && b.Rows > start {
				return nil
			}
			return err
		}
	}
	if b.Rows == start {
		return io.EOF
	}
	return nil
}

// readRow appends the next row to b, or returns the error Next reports.
func (r *jsonReader) readRow(b *columnar.Batch) error {
	if r.err != nil {
		return r.err
	}
	r.filler.b = b
	r.filler.widen()
	err := r.rows.next(&r.parser)
	if err == nil {
		if err = r.rows.problemError(&r.parser); err != nil {
			r.filler.abort()
		}
	}
	if err != nil {
		r.err = err
		return err
	}
	r.filler.end()
	return nil
}

// columnFinder collects the leaf names of rows as columns, in first-seen
// order, and which of them ever hold a value other than null.
type columnFinder struct {
	keys    jsonKeys
	nonNull []bool
	max     int
	place   int // of the next leaf in the row

	// What undoing the current attempt at a row takes.
	had    int   // columns before it
	marked []int // columns it marked non-null
}

func (f *columnFinder) begin() {
	f.place, f.had, f.marked = 0, len(f.keys.names), f.marked[:0]
}

func (f *columnFinder) leaf(name []byte, kind valueKind, _ []byte, _ span, _ uint8) error {
	col, ok := f.keys.find(f.place, name)
	if !ok {
		if err := checkNewKey(len(f.keys.names), f.max, name); err != nil {
			return err
		}
		col = f.keys.add(f.place, name)
		f.nonNull = append(f.nonNull, false)
	}
	f.place++
	if kind != kindNull && !f.nonNull[col] {
		f.nonNull[col] = true
		f.marked = append(f.marked, col)
	}
	return nil
}

func (f *columnFinder) abort() {
	for _, col := range f.marked {
		f.nonNull[col] = false
	}
	f.marked = f.marked[:0]
	f.keys.truncate(f.had)
	f.nonNull = f.nonNull[:f.had]
}

// maxKeyBytes bounds the name of a column, dotted path included: the names
// of every column are held for the whole read (10,000 of them at most).
const maxKeyBytes = 4 << 10

// checkNewKey refuses a new column named name when there are already have
// of the max allowed, or the name is too long.
func checkNewKey(have, max int, name []byte) error {
	if have >= max {
		return unsupportedf("the file has more than %d distinct keys (columns)", max)
	}
	if len(name) > maxKeyBytes {
		return unsupportedf("the key %q… is longer than the %s limit for a column name", name[:64], humanBytes(maxKeyBytes))
	}
	return nil
}

// columns returns the columns found, without those of keys that are only
// ever null but elsewhere hold an object (their dotted children exist).
func (f *columnFinder) columns() []string {
	var kept []string
	for i, keep := range keptColumns(f.keys.names, f.nonNull) {
		if keep {
			kept = append(kept, f.keys.names[i])
		}
	}
	return kept
}

// keptColumns reports which of the leaf names are columns: all but the keys
// only ever null (nonNull false) whose dotted children are names too.
func keptColumns(names []string, nonNull []bool) []bool {
	prefixes := map[string]bool{}
	for _, c := range names {
		for i := 0; i < len(c); i++ {
			if c[i] == '.' {
				prefixes[c[:i]] = true
			}
		}
	}
	kept := make([]bool, len(names))
	for i, c := range names {
		kept[i] = nonNull[i] || !prefixes[c]
	}
	return kept
}

// batchFiller appends the values of rows to a batch, each to the column of
// its name; a column without a value in a row gets a null. When it grows, a
// name it does not know yet becomes a new column.
type batchFiller struct {
	b      *columnar.Batch
	keys   jsonKeys
	filled []uint64 // the attempt in which each column last got a value
	at     uint64   // the current attempt at a row
	place  int      // of the next leaf in the row

	grow    bool
	nonNull []bool // when growing: per column, whether it ever held a value
	max     int    // when growing: the most columns allowed
}

func (f *batchFiller) begin() {
	f.at++
	f.place = 0
}

func (f *batchFiller) leaf(name []byte, kind valueKind, data []byte, val span, flags uint8) error {
	col, ok := f.keys.find(f.place, name)
	if !ok {
		if !f.grow {
			f.place++
			return nil // the file changed between the passes
		}
		if err := checkNewKey(len(f.keys.names), f.max, name); err != nil {
			return err
		}
		if f.b.Rows > 0 && (f.b.Rows+1)*(len(f.keys.names)+1) > 2*columnar.MaxCells {
			return ErrTooWideToGrow
		}
		col = f.keys.add(f.place, name)
		f.nonNull = append(f.nonNull, false)
		f.filled = append(f.filled, 0)
		f.widen()
	}
	f.place++
	if f.grow && kind != kindNull {
		f.nonNull[col] = true
	}
	c := &f.b.Cols[col]
	if f.filled[col] == f.at {
		dropLastCell(c) // a repeated key: the last value counts
	}
	f.filled[col] = f.at
	appendJSONValue(c, kind, data[val.start:val.end], flags)
	return nil
}

// widen gives the batch a column for every name, null in the rows it holds.
func (f *batchFiller) widen() {
	if len(f.b.Cols) < len(f.keys.names) {
		f.b.Widen(len(f.keys.names))
	}
}

func (f *batchFiller) abort() {
	for i := range f.b.Cols {
		c := &f.b.Cols[i]
		for c.Len() > f.b.Rows {
			dropLastCell(c)
		}
	}
}

// end completes a good row.
func (f *batchFiller) end() {
	for col, at := range f.filled {
		if at != f.at {
			f.b.Cols[col].AppendNull()
		}
	}
	f.b.Rows++
}

// appendJSONValue appends the cell of a value; raw has its quotes.
func appendJSONValue(c *columnar.Column, kind valueKind, raw []byte, flags uint8) {
	switch kind {
	case kindNull:
		c.AppendNull()
	case kindString:
		c.Text = appendJSONText(c.Text, raw[1:len(raw)-1], flags)
		c.EndCell()
	case kindArray:
		c.Text = appendCompactJSON(c.Text, raw)
		c.EndCell()
	case kindEmptyObject:
		c.AppendString("{}")
	default:
		c.Append(raw)
	}
}

func dropLastCell(c *columnar.Column) { c.Truncate(len(c.Ends) - 1) }

// jsonKeys finds the column of a leaf name. Rows mostly repeat the keys of
// the row before in the same order, so the name is first compared with the
// column found at the same place in an earlier row, which is cheaper than
// hashing it.
type jsonKeys struct {
	names  []string
	index  map[string]int
	recent []int // by place in a row: a column found there, or -1
}

// maxRecent bounds the places in a row that are remembered.
const maxRecent = 4096

func newJSONKeys(names []string) jsonKeys {
	k := jsonKeys{names: names, index: make(map[string]int, len(names))}
	for i, c := range names {
		k.index[c] = i
	}
	return k
}

// find returns the column of the leaf name at place k of a row.
func (k *jsonKeys) find(place int, name []byte) (int, bool) {
	if place < len(k.recent) {
		if col := k.recent[place]; col >= 0 && k.names[col] == string(name) {
			return col, true
		}
	}
	col, ok := k.index[string(name)]
	if ok {
		k.remember(place, col)
	}
	return col, ok
}

// add makes name the next column and returns it.
func (k *jsonKeys) add(place int, name []byte) int {
	col := len(k.names)
	k.names = append(k.names, string(name))
	k.index[k.names[col]] = col
	k.remember(place, col)
	return col
}

// truncate forgets the columns from n on.
func (k *jsonKeys) truncate(n int) {
	for _, name := range k.names[n:] {
		delete(k.index, name)
	}
	k.names = k.names[:n]
	for i, col := range k.recent {
		if col >= n {
			k.recent[i] = -1
		}
	}
}

func (k *jsonKeys) remember(place, col int) {
	if place >= maxRecent {
		return
	}
	for len(k.recent) <= place {
		k.recent = append(k.recent, -1)
	}
	k.recent[place] = col
}
