package profile

import (
	"errors"
	"fmt"
	"math"

	"github.com/zeebo/xxh3"

	"github.com/dqs/dqs/columnar"
)

// Options tunes a Profiler. Zero values take the defaults.
type Options struct {
	TopK       int   // number of TopValues per column; default 10
	SampleSize int   // reservoir size per column; default 1000
	Seed       int64 // seeds the reservoir samples; same seed and input, same samples
	// Rows is about how many rows will be added, when the caller knows or
	// can guess it (0: unknown). It only sizes the duplicate-row set up
	// front, which otherwise grows by doubling, copying every hash into
	// fresh memory each time (2 to 3% of the CPU time of a 3M-row profile): a
	// wrong guess costs memory or that growth, never a different result.
	Rows int64
	// MemoryBudget bounds the memory of the columns' state, in bytes (0:
	// no bound). Each column gets an equal share and sizes that fit it
	// (sizes.go); a file too wide for the smallest is refused by
	// CheckBudget, which callers ask first. A profiler whose columns grow
	// (AppendColumns) sizes the new ones for the new width: it stays
	// within twice the budget.
	MemoryBudget int64
	// NullTokens are the values that count as nulls (see nulls.go); nil
	// means DefaultNulls, and an empty set none.
	NullTokens *NullTokens
}

// Profile is the result of profiling one table.
type Profile struct {
	RowCount int64 `json:"row_count"`
	// DuplicateRows counts rows equal (same values, same null flags) to an
	// earlier row. Exact (up to 64-bit hash collisions) while the table has
	// at most 1,000,000 distinct rows; past that, estimated from a sample of
	// the distinct rows chosen by hash (see dupRows: 0 for a table without
	// duplicates, otherwise within a few percent), and
	// DuplicateRowsEstimated is true.
	DuplicateRows          int64    `json:"duplicate_rows"`
	DuplicateRowsEstimated bool     `json:"duplicate_rows_estimated,omitempty"`
	Columns                []Column `json:"columns"`
}

// Column is the profile of one column. Count covers every row; "non-empty"
// below means non-null and not blank (Empty counts non-null values that are
// "" or only ASCII whitespace).
type Column struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
	Nulls int64  `json:"nulls"`
	Empty int64  `json:"empty"`
	// Distinct counts distinct non-null values (blank ones included): exact
	// up to 10,000 distinct values, then a HyperLogLog estimate (precision
	// 14, ~0.8% standard error) and DistinctExact is false.
	Distinct      int64 `json:"distinct"`
	DistinctExact bool  `json:"distinct_exact"`
	// InferredType is the first of boolean (all non-empty values are
	// boolean tokens), integer, float, date, datetime that at least 95% of
	// the non-empty values parse as; otherwise string, or empty when there is
	// no non-empty value. A column is integer only when none of its
	// numbers is a decimal: integers with some decimals are a float column
	// (a decimal is no type mismatch there). Numbers include numerals with thousands
	// separators, a decimal comma, currency or percent signs, read in the
	// column's convention (numerals.go, Notation).
	InferredType string `json:"inferred_type"`
	// Min and Max are taken in the inferred type's order over the values
	// that parse as that type (strings: byte order over non-empty values),
	// rendered as strings: integers and floats canonically, booleans as
	// false/true, dates and datetimes as written in the data.
	Min *string `json:"min,omitempty"`
	Max *string `json:"max,omitempty"`
	// Notation says how the values are written where that is not plain
	// and decides how they read: for a numeric column of numerals with
	// separators, the convention it takes ("decimal comma, dot or space
	// between thousands (1.234,5)"), chosen by the numerals only one
	// convention reads (the decimal point when as many call for each), and
	// how many numerals both read (1,234) were read so; for a date column
	// with slash dates, day first or month first, likewise. Empty otherwise.
	Notation string `json:"notation,omitempty"`
	// Numeric columns only (integer, float), over every value that parses
	// as a number. Mean and StdDev (sample, n-1) are exact. Quantiles (and
	// Median, p50) are lower quantiles: the q-quantile of n numbers is the
	// one at rank max(1, ceil(q·n)) in ascending order, so always one of
	// the column's values. They are exact while the column is in its exact
	// phase (DistinctExact), and past it come from a KLL sketch whose rank
	// error stays under 0.5% (measured, TestKLLRankError; under 1.5% for
	// the columns of very wide files, TestKLLSmallRankError).
	Mean      *float64           `json:"mean,omitempty"`
	StdDev    *float64           `json:"stddev,omitempty"`
	Median    *float64           `json:"median,omitempty"`
	Quantiles map[string]float64 `json:"quantiles,omitempty"`
	// Tails are the most extreme numbers of a numeric column, for the
	// outlier check; not part of the column's published profile.
	Tails *Tails `json:"-"`
	// Lengths in runes of the non-null values (blank ones included).
	MinLength  int     `json:"min_length"`
	MaxLength  int     `json:"max_length"`
	MeanLength float64 `json:"mean_length"`
	// TopValues holds the most frequent non-null values, most frequent
	// first (ties by value). They come from a Space-Saving summary that
	// counts every value exactly while DistinctExact is true (up to 10,000
	// distinct values) and then keeps 1,024 counters: each reported count is
	// then a lower bound, short of the true count by at most
	// (non-null values)/1,024, and every value more frequent than that is
	// guaranteed to be tracked. Values longer than 512 bytes are cut and end
	// with "…".
	TopValues []ValueCount `json:"top_values"`
	// Format is the dominant format signature of the non-empty values (see
	// Signatures), FormatConformance the share of non-empty values that have
	// it (1 when there is none). Exact while the column has at most 256
	// distinct signatures at the chosen granularity, a lower bound after.
	Format            string  `json:"format"`
	FormatConformance float64 `json:"format_conformance"`
	// TypeConformance is the share of non-empty values that parse as
	// InferredType (1 for string and empty columns). Blank values are left
	// out: they are a completeness matter, counted in Empty.
	TypeConformance float64 `json:"type_conformance"`
	// Sample is a uniform reservoir sample of the non-empty values (each cut
	// to 1024 bytes), deterministic given Options.Seed and the input order.
	Sample []string `json:"sample"`
}

// ValueCount is a value and its number of occurrences.
type ValueCount struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}

// Bounds. Variables rather than constants so that tests can exercise the
// transitions on small inputs; they are read when a Profiler is created.
var (
	maxExactDistinct = 10_000    // per column, then HLL
	maxExactRows     = 1_000_000 // distinct row hashes, then a sample of them
)

const (
	sigCap         = 256  // format signatures tracked per granularity
	heavyCap       = 1024 // Space-Saving counters per column past maxExactDistinct
	topKeyBytes    = 512  // bytes kept per tracked value
	sampleKeyBytes = 1024 // bytes kept per sampled value
	typeThreshold  = 0.95
	hashSeed       = 0x5eed_dada
	nullHash       = 0x9e3779b97f4a7c15 // a null cell's hash: row hashes skip it
	// Column names are hashed with a seed of their own: with the values'
	// seed, a cell holding "b" in column "a" would chain like one holding
	// "a" in column "b".
	columnKeySeed = 0xc01_5eed
)

var quantileNames = [...]string{"p01", "p05", "p25", "p50", "p75", "p95", "p99"}
var quantileValues = [...]float64{0.01, 0.05, 0.25, 0.50, 0.75, 0.95, 0.99}

// Profiler profiles rows in a single pass with memory bounded independently
// of the row count. It is not safe for concurrent use; profile chunks with
// separate Profilers and Merge them.
type Profiler struct {
	opt       Options
	rows      int64
	dups      dupRows
	rowHashes []uint64 // AddRows' scratch
	cols      []column
	colKeys   []uint64 // per column, the hash of its name (see AddRows)
	nanIsNull bool     // a double's NaN, whose text is "NaN", is a null token
}

// New returns a Profiler for the given column names.
func New(columns []string, opt Options) *Profiler {
	if opt.TopK <= 0 {
		opt.TopK = 10
	}
	if opt.SampleSize <= 0 {
		opt.SampleSize = 1000
	}
	if opt.NullTokens == nil {
		opt.NullTokens = DefaultNulls
	}
	p := &Profiler{
		opt:       opt,
		nanIsNull: opt.NullTokens.Match(string(columnar.Float64.Append(nil, nanBits))),
		dups:      newDupRows(maxExactRows, opt.Rows),
		cols:      make([]column, 0, len(columns)), // not grown by doubling: a column's state is large
	}
	p.AppendColumns(columns)
	return p
}

// AppendColumns appends columns to p, as found by a reader that finds its
// columns while it reads (JSON in one pass): each holds a null in every row
// added so far. Such a column changes no row hash (see AddRows), and its
// sample draws from a stream named after it, not after its place: the
// result is what a profiler created with every column from the start gives.
// It must not run concurrently with anything else on p.
func (p *Profiler) AppendColumns(names []string) {
	var sz sizes
	if p.opt.MemoryBudget > 0 && len(names) > 0 {
		sz, _ = sizesFor(p.opt.MemoryBudget/int64(len(p.cols)+len(names)), p.opt.SampleSize)
	} else {
		sz, _ = sizesFor(0, p.opt.SampleSize)
	}
	sz.distinct = min(sz.distinct, maxExactDistinct) // tests lower the bound
	for _, name := range names {
		key := xxh3.HashStringSeed(name, columnKeySeed)
		p.cols = append(p.cols, column{})
		c := &p.cols[len(p.cols)-1]
		c.init(name, sz, p.opt, key)
		c.count, c.nulls = p.rows, p.rows
		p.colKeys = append(p.colKeys, key)
	}
}

// mix is the 64-bit finalizer of MurmurHash3, used to chain cell hashes.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

// Add profiles one row. values[i] and null[i] describe column i; missing
// trailing cells count as nulls, and so do null tokens; extra cells are
// ignored. Add keeps no reference to either slice nor to the strings in
// values.
func (p *Profiler) Add(values []string, null []bool) {
	p.rows++
	rh := uint64(hashSeed)
	for i := range p.cols {
		isNull := i >= len(values) || (i < len(null) && null[i]) || p.opt.NullTokens.Match(values[i])
		v := ""
		if !isNull {
			v = values[i]
			p.cols[i].toText()
		}
		rh = p.chainCell(rh, i, p.cols[i].addCell(v, isNull))
	}
	p.addRow(rh)
}

// nanBits is a NaN as a Float64 column holds it.
var nanBits = columnar.CanonicalFloat(int64(math.Float64bits(math.NaN())))

// markNulls marks the cells of cells that are null tokens null: text that
// is one, or a double's NaN when "NaN" is one (its text in every lane).
func (p *Profiler) markNulls(cells *columnar.Column) {
	switch cells.Kind {
	case columnar.Text:
		p.opt.NullTokens.markNulls(cells)
	case columnar.Float64:
		if p.nanIsNull {
			for r, v := range cells.Nums {
				if v == nanBits {
					cells.Nulls[r] = true
				}
			}
		}
	}
}

// chainCell chains the hash h of column i's cell into the row hash rh. A
// null cell leaves it as it is, and a cell counts with its column's name,
// not its place: a column that is only ever null changes no row's hash,
// wherever it stands (see AppendColumns).
func (p *Profiler) chainCell(rh uint64, i int, h uint64) uint64 {
	if h == nullHash {
		return rh
	}
	return mix(rh ^ h ^ p.colKeys[i])
}

// Columns is the number of columns p profiles.
func (p *Profiler) Columns() int { return len(p.cols) }

// AddColumn profiles cells, the cells of column i in consecutive rows, and
// stores each cell's hash in hashes[r] for AddRows. Calls for different
// columns may run concurrently (each column's state is its own); for any one
// column, calls must come in row order. Adding every column of a batch this
// way and then calling AddRows gives exactly what Add, row by row, would.
// Cells that are null tokens are marked null in cells.Nulls.
func (p *Profiler) AddColumn(i int, cells *columnar.Column, hashes []uint64) {
	c := &p.cols[i]
	hashes = hashes[:cells.Len()]
	p.markNulls(cells)
	if cells.Kind != columnar.Text {
		if c.takesKind(cells.Kind) {
			c.addNums(cells, hashes)
			return
		}
		cells = asText(cells)
	} else if c.kind != columnar.Text && !cells.CanType(c.kind) {
		// Text cells, not only nulls (which are of any kind).
		c.toText()
	}
	if c.steady() {
		c.addSteady(cells, hashes)
		return
	}
	if cells.HasCodes() {
		c.addCoded(cells, hashes)
		return
	}
	for r := range hashes {
		hashes[r] = c.addCell(cells.TextCell(r))
	}
}

// AddRows counts n rows whose cells AddColumn has profiled; hashes[i] holds
// column i's cell hashes. It may run while AddColumn profiles later rows (it
// touches only the row state), but not concurrently with itself. It is
// RowHashes followed by AddRowHashes.
func (p *Profiler) AddRows(n int, hashes [][]uint64) {
	p.rowHashes = p.RowHashes(n, hashes, p.rowHashes)
	p.AddRowHashes(p.rowHashes)
}

// RowHashes counts n rows whose cells AddColumn has profiled (hashes[i]
// holds column i's cell hashes) and returns their row hashes, in dst's
// memory when it has room. The duplicate-row count takes them in
// AddRowHashes, which must follow, for every call and in the same order,
// before Result. Apart from AddRowHashes it runs as AddRows does.
//
// The rows' hashes are chained column by column over all n rows rather than
// row by row: each row's chain is a run of dependent multiplications, and
// going across rows lets the processor work on several at once. The hashes
// are the same.
func (p *Profiler) RowHashes(n int, hashes [][]uint64, dst []uint64) []uint64 {
	if cap(dst) < n {
		dst = make([]uint64, n)
	}
	rows := dst[:n]
	for r := range rows {
		rows[r] = hashSeed
	}
	for i := range p.cols {
		for r, h := range hashes[i][:n] {
			rows[r] = p.chainCell(rows[r], i, h)
		}
	}
	p.rows += int64(n)
	return rows
}

// AddRowHashes counts the duplicates among rows, row hashes RowHashes gave.
// It touches only the duplicate-row state: it may run on a goroutine of
// its own, beside everything but itself and Result. Its set of row hashes
// grows in steps of tens of milliseconds, which then hold up nothing else.
func (p *Profiler) AddRowHashes(rows []uint64) {
	for _, rh := range rows {
		p.addRow(rh)
	}
}

func (p *Profiler) addRow(h uint64) { p.dups.add(h) }

// Merge folds o, a profiler of the same columns, into p; o keeps giving the
// same Result and can be discarded. Merging profilers of disjoint chunks gives the
// single-pass result for every exact metric (counts, types, min/max, lengths,
// exact distinct counts, exact top values and formats, mean and stddev up to
// float rounding) and sketch-level agreement for the rest (HLL estimates,
// quantiles, bounded top-value counts; samples are uniform over the union
// but not the ones a single pass would draw).
func (p *Profiler) Merge(o *Profiler) error {
	if o == nil {
		return errors.New("profile: merge with nil profiler")
	}
	if o == p {
		return errors.New("profile: cannot merge a profiler into itself")
	}
	if len(o.cols) != len(p.cols) {
		return fmt.Errorf("profile: merge of %d columns into %d", len(o.cols), len(p.cols))
	}
	for i := range p.cols {
		if p.cols[i].name != o.cols[i].name {
			return fmt.Errorf("profile: merge column %d: %q into %q", i, o.cols[i].name, p.cols[i].name)
		}
	}
	p.rows += o.rows
	if err := p.dups.merge(&o.dups); err != nil {
		return err
	}
	for i := range p.cols {
		if err := p.cols[i].merge(&o.cols[i]); err != nil {
			return err
		}
	}
	return nil
}

// Result computes the profile of everything added so far. The Profiler stays
// usable: more rows can be added and Result called again.
func (p *Profiler) Result() *Profile {
	pr := &Profile{RowCount: p.rows, Columns: make([]Column, len(p.cols))}
	pr.DuplicateRows, pr.DuplicateRowsEstimated = p.dups.count(p.rows)
	for i := range p.cols {
		pr.Columns[i] = p.cols[i].result(p.opt.TopK)
	}
	return pr
}

func ptr[T any](v T) *T { return &v }
