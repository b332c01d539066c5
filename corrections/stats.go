package corrections

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/records"
)

// Stats are the statistics of a column that null_fill mean, median and
// mode fill with. They are the profiler's (package profile), computed over
// the column's non-null values (nulls as null_fill sees them: flagged,
// blank or null tokens), so that a fix agrees with the analysis.
type Stats struct {
	Column string
	Rows   int64
	Nulls  int64
	// Type is the profiler's inferred type of the column. Mean and Median
	// are set for numeric columns (integer, float) only.
	Type   string
	Mean   *float64
	Median *float64
	// MedianExact reports that the median is exact: the column has at most
	// 10,000 distinct values; past that it is within 0.5% of rank.
	MedianExact bool
	// Mode is the most frequent value (the smallest on a tie), nil when the
	// column has no value; exact up to 10,000 distinct values.
	Mode      *string
	ModeCount int64
}

// ColumnStats computes the Stats of column over the rows of r, in one pass
// of bounded memory: the profiler's state of one column (about 10 MiB at
// worst) and its set of row hashes (8 bytes for each of up to 1,000,000
// distinct values). It reads r to its end and does not close it.
// Options.NullTokens says what is null.
func ColumnStats(ctx context.Context, r records.Reader, column string, opt Options) (Stats, error) {
	cols := r.Columns()
	col := slices.Index(cols, column)
	if col < 0 {
		return Stats{}, fmt.Errorf("the input has no column %q", column)
	}
	e := &engine{ctx: ctx, opt: opt.withDefaults(), cols: cols, steps: Pipeline{{ID: "stats"}}}
	o := newStatsOp(e, col)
	if _, _, err := e.pass(r, []op{o}, make([]StepChanges, 1), nil); err != nil {
		return Stats{}, err
	}
	return o.stats(), nil
}

// statsOp profiles one column of the rows that reach it, and keeps them.
type statsOp struct {
	e    *engine
	col  int
	name string
	p    *profile.Profiler
	vals [1]string
	null [1]bool
}

func newStatsOp(e *engine, col int) *statsOp {
	p := profile.New([]string{e.cols[col]}, profile.Options{TopK: 1, SampleSize: 1, NullTokens: e.opt.NullTokens})
	return &statsOp{e: e, col: col, name: e.cols[col], p: p}
}

func (o *statsOp) do(r *row, _ *StepChanges) (bool, error) {
	v, null := r.Values[o.col], r.Null[o.col]
	o.vals[0], o.null[0] = v, o.e.isNull(v, null)
	o.p.Add(o.vals[:], o.null[:])
	return true, nil
}

// topKeyBytes is how much of a value the profiler keeps in its top values;
// a longer one is cut and ends with "…", and cannot be a fill value.
const topKeyBytes = 512

func (o *statsOp) stats() Stats {
	c := o.p.Result().Columns[0]
	s := Stats{Column: o.name, Rows: c.Count, Nulls: c.Nulls, Type: c.InferredType,
		Mean: c.Mean, Median: c.Median, MedianExact: c.DistinctExact}
	if len(c.TopValues) > 0 {
		top := c.TopValues[0]
		if len(top.Value) < topKeyBytes || !strings.HasSuffix(top.Value, "…") {
			s.Mode, s.ModeCount = &top.Value, top.Count
		}
	}
	return s
}
