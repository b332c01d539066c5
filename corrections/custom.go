package corrections

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/expr-lang/expr/vm"
)

// custom {expression} computes a column's new value from the row with an
// expr-lang expression over row, the map of column names to values:
// row.first + " " + row.last, upper(row.country), row.price ?? "0". A null
// cell reads as "". The value it gives replaces the column's: text as it
// is, a number or a boolean as its text, nil as a null; a list or a map
// fails the step. The expression runs in a sandbox (sandbox.go); a row on
// which it fails, or exceeds its budgets, fails the step with the reason.
type custom struct {
	col    int
	source string
	uses   []int // the columns the expression reads
}

func compileCustom(s *Step, p *params, columns []string) (compiled, error) {
	col, err := s.column(columns)
	if err != nil {
		return nil, err
	}
	src, _, err := p.str("expression", true)
	if err != nil {
		return nil, err
	}
	prog, err := compileExpression(src, columns)
	if err != nil {
		return nil, p.errorf("expression", "%s", err.Error())
	}
	c := &custom{col: col, source: src}
	for i, name := range columns {
		if prog.all || slices.Contains(prog.uses, name) {
			c.uses = append(c.uses, i)
		}
	}
	return c, nil
}

// newOp compiles the expression again: its guard charges the meter of
// this op alone.
func (c *custom) newOp(e *engine) (op, error) {
	prog, err := compileExpression(c.source, e.cols)
	if err != nil {
		return nil, err
	}
	rowMap := make(map[string]string, len(c.uses))
	for _, i := range c.uses {
		rowMap[e.cols[i]] = ""
	}
	return &customOp{e: e, c: c, prog: prog, vm: vm.VM{MemoryBudget: exprArrayBudget},
		row: rowMap, env: map[string]any{"row": rowMap}}, nil
}

type customOp struct {
	e    *engine
	c    *custom
	prog *program
	vm   vm.VM
	row  map[string]string // the row as the expression sees it, refilled for each row
	env  map[string]any
}

func (o *customOp) do(r *row, ch *StepChanges) (bool, error) {
	for _, i := range o.c.uses {
		o.row[o.e.cols[i]] = r.Values[i]
	}
	o.prog.meter.start(o.e.ctx, o.e.opt.ExpressionTimeout)
	out, err := o.vm.Run(o.prog.prog, o.env)
	if err != nil {
		return false, &ExpressionError{Message: exprMessage(err), Err: err}
	}
	v, null, err := resultText(out)
	if err != nil {
		return false, err
	}
	col := o.c.col
	if null {
		if !r.Null[col] {
			ch.CellsChanged++
		}
		r.Values[col], r.Null[col] = "", true
		return true, nil
	}
	return true, o.e.set(r, col, v, ch)
}

// ExpressionError is a custom expression that failed on a row; errors.Is
// finds ErrExpressionTimeout or ErrExpressionMemory in it when a budget
// stopped it.
type ExpressionError struct {
	Message string
	Err     error
}

func (e *ExpressionError) Error() string { return "the expression failed: " + e.Message }

func (e *ExpressionError) Unwrap() error { return e.Err }

// resultText is the cell an expression's value makes.
func resultText(v any) (string, bool, error) {
	switch x := v.(type) {
	case nil:
		return "", true, nil
	case string:
		return x, false, nil
	case bool:
		return strconv.FormatBool(x), false, nil
	case int:
		return strconv.Itoa(x), false, nil
	case int64:
		return strconv.FormatInt(x, 10), false, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false, fmt.Errorf("the expression gives %v, not a number", x)
		}
		return strconv.FormatFloat(x, 'f', -1, 64), false, nil
	}
	return "", false, fmt.Errorf("the expression gives a %T, not a value", v)
}
