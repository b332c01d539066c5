package corrections

import (
	"fmt"
	"strconv"

	"github.com/dqs/dqs/profile"
)

// null_fill writes a value into the null cells of a column: those the
// reader flags null, blank ones and null tokens (Options.NullTokens).
//
//   - constant {value}: that value.
//   - mean, median: the column's, written as a plain decimal (the profiler's
//     numbers, so a column of decimal-comma numerals has its mean written
//     with a point). The median is the profiler's lower median, one of the
//     column's values: exact up to 10,000 distinct values, then within
//     0.5% of rank (profile.Column.Median).
//   - mode: the column's most frequent value, the smallest on a tie: exact
//     up to 10,000 distinct values, then the top of a Space-Saving summary.
//   - forward_fill: the last value before the cell (after the steps before
//     this one); nulls before the first value stay, counted as unfixed.
//
// The statistics come from Options.Stats, or else from a pass of their own
// over the rows as they reach the step (see Stats).
type nullFill struct {
	step  *Step
	col   int
	value string // constant
	// learned is the pass that computed the statistic, when it was not
	// given.
	learned *statsOp
}

func compileNullFill(s *Step, p *params, columns []string) (compiled, error) {
	col, err := s.column(columns)
	if err != nil {
		return nil, err
	}
	f := &nullFill{step: s, col: col}
	if s.Strategy == StrategyConstant {
		v, _, err := p.str("value", true)
		if err != nil {
			return nil, err
		}
		if IsBlank(v) {
			return nil, p.errorf("value", "a blank value is a null itself: give the text to fill with")
		}
		f.value = v
	}
	return f, nil
}

func (f *nullFill) usesStats() bool {
	switch f.step.Strategy {
	case StrategyMean, StrategyMedian, StrategyMode:
		return true
	}
	return false
}

func (f *nullFill) needsPass(e *engine) bool {
	_, given := e.opt.Stats[f.step.Column]
	return f.usesStats() && !given
}

func (f *nullFill) learnOp(e *engine) op {
	f.learned = newStatsOp(e, f.col)
	return f.learned
}

func (f *nullFill) newOp(e *engine) (op, error) {
	o := &fillOp{e: e, col: f.col}
	switch f.step.Strategy {
	case StrategyConstant:
		o.fill, o.have = f.value, true
	case StrategyForwardFill:
		o.forward = true
	default:
		st, given := e.opt.Stats[f.step.Column]
		if !given {
			if f.learned == nil {
				return nil, fmt.Errorf("no statistic for column %q", f.step.Column)
			}
			st = f.learned.stats()
		}
		v, ok, err := st.fillValue(f.step.Strategy)
		if err != nil {
			return nil, err
		}
		o.fill, o.have = v, ok
	}
	return o, nil
}

type fillOp struct {
	e       *engine
	col     int
	fill    string
	have    bool // fill holds a value
	forward bool
}

func (o *fillOp) do(r *row, c *StepChanges) (bool, error) {
	v, null := r.Values[o.col], r.Null[o.col]
	if !o.e.isNull(v, null) {
		if o.forward {
			o.fill, o.have = v, true
		}
		return true, nil
	}
	if !o.have {
		c.Unfixed++
		return true, nil
	}
	return true, o.e.set(r, o.col, o.fill, c)
}

// fillValue is the value a null_fill strategy writes; ok is false when the
// column has no value at all (type empty: then nulls stay, counted as
// unfixed, as a preview of a few null rows would otherwise fail), and
// the error says why a column with values has no such statistic.
func (s Stats) fillValue(strategy string) (v string, ok bool, err error) {
	if s.Type == profile.TypeEmpty {
		return "", false, nil
	}
	num := func(name string, x *float64) (string, bool, error) {
		if x == nil {
			return "", false, fmt.Errorf("column %q has no %s: the profiler reads it as %s, not numbers", s.Column, name, s.Type)
		}
		return strconv.FormatFloat(*x, 'f', -1, 64), true, nil
	}
	switch strategy {
	case StrategyMean:
		return num("mean", s.Mean)
	case StrategyMedian:
		return num("median", s.Median)
	case StrategyMode:
		if s.Mode == nil {
			return "", false, fmt.Errorf("column %q has no mode: its most frequent value is longer than the %d bytes the profiler keeps", s.Column, topKeyBytes)
		}
		return *s.Mode, true, nil
	}
	return "", false, fmt.Errorf("%s takes no statistic", strategy)
}
