package corrections

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// Options tunes Apply, Preview and ColumnStats. Zero values take the
// defaults.
type Options struct {
	// NullTokens are the text values that count as nulls, besides the
	// cells the reader flags null and blank ones (empty or ASCII
	// whitespace): nil means profile.DefaultNulls, the profiler's, so that
	// a fix fills what the analysis counted as missing; an empty set none.
	NullTokens *profile.NullTokens
	// Stats holds column statistics by column name, for null_fill mean,
	// median and mode (see ColumnStats). A step whose column has none
	// computes it in a pass of its own, over the rows as they reach it.
	Stats map[string]Stats
	// Reopen opens the input again from its first row, for the steps that
	// read it more than once (see the package doc, Passes). Apply closes
	// the readers it opens; without Reopen such a pipeline is refused
	// with ErrNeedsReopen before anything is read.
	Reopen func() (records.Reader, error)
	// DedupeMemoryBudget bounds the table of each dedupe step, in bytes
	// (default DefaultDedupeMemoryBudget); see dedupe.go.
	DedupeMemoryBudget int64
	// ExpressionTimeout bounds the time a custom expression may take on
	// one row (default DefaultExpressionTimeout); see sandbox.go.
	ExpressionTimeout time.Duration
	// MaxValueBytes bounds a value a step writes (default
	// DefaultMaxValueBytes): a longer one fails the step, as the readers
	// would refuse the corrected file.
	MaxValueBytes int
}

// Defaults of Options.
const (
	DefaultDedupeMemoryBudget = 256 << 20
	DefaultExpressionTimeout  = 100 * time.Millisecond
	DefaultMaxValueBytes      = readers.DefaultMaxFieldBytes
)

func (o Options) withDefaults() Options {
	if o.NullTokens == nil {
		o.NullTokens = profile.DefaultNulls
	}
	if o.DedupeMemoryBudget <= 0 {
		o.DedupeMemoryBudget = DefaultDedupeMemoryBudget
	}
	if o.ExpressionTimeout <= 0 {
		o.ExpressionTimeout = DefaultExpressionTimeout
	}
	if o.MaxValueBytes <= 0 {
		o.MaxValueBytes = DefaultMaxValueBytes
	}
	return o
}

// Result counts what a pipeline did.
type Result struct {
	Rows    int64 // rows read
	RowsOut int64 // rows written
	Changes []StepChanges
}

// StepChanges counts what one step did in the final pass.
type StepChanges struct {
	StepID   string
	Type     string
	Strategy string
	// CellsChanged counts the cells whose value or null flag the step
	// changed.
	CellsChanged int64
	// RowsRemoved counts the rows the step dropped (dedupe).
	RowsRemoved int64
	// Unfixed counts the values the step should have fixed but could not,
	// left as they were: a date no layout reads, a phone number that does
	// not parse, a null before the first value of a forward fill.
	Unfixed int64
}

// RowError is a step that failed on a row: Row is the 1-based number of
// the row in the input, or 0 when the step failed before any row (a mean
// asked of a column without numbers).
type RowError struct {
	StepID string
	Step   int // the step's index in the pipeline
	Row    int64
	Err    error
}

func (e *RowError) Error() string {
	if e.Row == 0 {
		return fmt.Sprintf("step %q failed: %v", e.StepID, e.Err)
	}
	return fmt.Sprintf("step %q failed on row %d: %v", e.StepID, e.Row, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }

// ErrNeedsReopen is Apply's answer to a pipeline that must read its input
// more than once when Options.Reopen is nil.
var ErrNeedsReopen = errors.New("the pipeline reads the input more than once (dedupe keep last, or null_fill mean, median or mode without Options.Stats): Options.Reopen is needed")

// Apply runs steps over every row of in and writes the rows they keep to
// out, then closes out. It validates the steps first (a *StepError). It
// does not close in. On an error out is not closed and holds part of the
// rows: the caller discards it.
func Apply(ctx context.Context, in records.Reader, out Writer, steps Pipeline, opt Options) (Result, error) {
	e, err := newEngine(ctx, in.Columns(), steps, opt)
	if err != nil {
		return Result{}, err
	}
	if e.passes() > 1 && opt.Reopen == nil {
		return Result{}, ErrNeedsReopen
	}
	if err := out.WriteHeader(e.cols); err != nil {
		return Result{}, fmt.Errorf("writing the header: %w", err)
	}
	src := &source{first: in, reopen: opt.Reopen, cols: e.cols}
	res, err := e.execute(src, func(r *row) error {
		if err := out.Write(&r.Record); err != nil {
			return fmt.Errorf("writing row %d: %w", r.num, err)
		}
		return nil
	})
	if err != nil {
		return res, err
	}
	if err := out.Close(); err != nil {
		return res, fmt.Errorf("finishing the output: %w", err)
	}
	return res, nil
}

// engine runs one pipeline over one input.
type engine struct {
	ctx   context.Context
	opt   Options
	cols  []string
	steps Pipeline
	plan  []compiled
	// seed seeds the hashes of dedupe steps: the same in every pass, and
	// unknown to whoever wrote the rows.
	seed uint64
}

func newEngine(ctx context.Context, cols []string, steps Pipeline, opt Options) (*engine, error) {
	plan, err := steps.compile(cols)
	if err != nil {
		return nil, err
	}
	return &engine{ctx: ctx, opt: opt.withDefaults(), cols: cols, steps: steps, plan: plan, seed: rand.Uint64()}, nil
}

// passes is how many times the engine reads its input.
func (e *engine) passes() int {
	n := 1
	for _, c := range e.plan {
		if l, ok := c.(learner); ok && l.needsPass(e) {
			n++
		}
	}
	return n
}

// execute runs the learning passes, then the final one, whose kept rows go
// to emit.
func (e *engine) execute(src *source, emit func(*row) error) (Result, error) {
	for k, c := range e.plan {
		l, ok := c.(learner)
		if !ok || !l.needsPass(e) {
			continue
		}
		ops, err := e.ops(k)
		if err != nil {
			return Result{}, err
		}
		ops = append(ops, l.learnOp(e))
		if err := src.each(func(r records.Reader) error {
			_, _, err := e.pass(r, ops, make([]StepChanges, len(ops)), nil)
			return err
		}); err != nil {
			return Result{}, err
		}
	}
	ops, err := e.ops(len(e.plan))
	if err != nil {
		return Result{}, err
	}
	res := Result{Changes: make([]StepChanges, len(e.steps))}
	for i, s := range e.steps {
		res.Changes[i] = StepChanges{StepID: s.ID, Type: s.Type, Strategy: s.Strategy}
	}
	err = src.each(func(r records.Reader) error {
		var err error
		res.Rows, res.RowsOut, err = e.pass(r, ops, res.Changes, emit)
		return err
	})
	return res, err
}

// ops makes the ops of the first n steps, fresh for a pass.
func (e *engine) ops(n int) ([]op, error) {
	ops := make([]op, n)
	for i := range n {
		o, err := e.plan[i].newOp(e)
		if err != nil {
			return nil, &RowError{StepID: e.steps[i].ID, Step: i, Err: err}
		}
		ops[i] = o
	}
	return ops, nil
}

// checkEvery is how many rows go by between two looks at the context.
const checkEvery = 1024

// pass runs ops over the rows of r, in order, and hands the rows they keep
// to emit (nil: to no one). It holds one row at a time.
func (e *engine) pass(r records.Reader, ops []op, changes []StepChanges, emit func(*row) error) (rows, kept int64, err error) {
	width := len(e.cols)
	rw := &row{Record: records.Record{Values: make([]string, width), Null: make([]bool, width)}}
	for {
		if rows%checkEvery == 0 {
			if err := e.ctx.Err(); err != nil {
				return rows, kept, err
			}
		}
		rec, err := r.Next()
		if err == io.EOF {
			return rows, kept, nil
		}
		if err != nil {
			return rows, kept, fmt.Errorf("reading row %d: %w", rows+1, err)
		}
		if len(rec.Values) != width {
			return rows, kept, fmt.Errorf("row %d has %d values for %d columns: the columns changed while the input was read (open a JSON file without OnePass)", rows+1, len(rec.Values), width)
		}
		rows++
		rw.load(rows, rec)
		keep := true
		for i, o := range ops {
			if keep, err = o.do(rw, &changes[i]); err != nil {
				return rows, kept, &RowError{StepID: e.steps[i].ID, Step: i, Row: rows, Err: err}
			}
			if !keep {
				changes[i].RowsRemoved++
				break
			}
		}
		if keep {
			kept++
			if emit != nil {
				if err := emit(rw); err != nil {
					return rows, kept, err
				}
			}
		}
	}
}

// row is the row the steps work on: the pass's own copy of the reader's,
// which the reader may reuse.
type row struct {
	num int64 // 1-based, in the input
	records.Record
}

func (r *row) load(num int64, rec *records.Record) {
	r.num = num
	copy(r.Values, rec.Values)
	n := copy(r.Null, rec.Null)
	clear(r.Null[n:]) // a source without null flags has no nulls
}

// op is one step at work in one pass.
type op interface {
	// do corrects r in place, counting what it changed in c, and says
	// whether the row is kept.
	do(r *row, c *StepChanges) (keep bool, err error)
}

// errValueTooLong is a value a step would make longer than
// Options.MaxValueBytes.
type errValueTooLong struct{ n, max int }

func (e errValueTooLong) Error() string {
	return fmt.Sprintf("the new value has %d bytes, more than the limit of %d", e.n, e.max)
}

// set writes a non-null value into cell col and counts a change.
func (e *engine) set(r *row, col int, v string, c *StepChanges) error {
	if len(v) > e.opt.MaxValueBytes {
		return errValueTooLong{len(v), e.opt.MaxValueBytes}
	}
	if r.Null[col] || r.Values[col] != v {
		c.CellsChanged++
	}
	r.Values[col], r.Null[col] = v, false
	return nil
}

// isNull reports whether a cell is missing: flagged null by the reader,
// blank, or a null token.
func (e *engine) isNull(v string, null bool) bool {
	return null || IsBlank(v) || e.opt.NullTokens.Match(v)
}

// IsBlank reports whether v is empty or ASCII white space: a blank cell,
// which null_fill fills and the profiler counts as missing.
func IsBlank(v string) bool {
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case ' ', '\t', '\n', '\r', '\v', '\f':
		default:
			return false
		}
	}
	return true
}

// source hands out the input for each pass: the reader Apply was given,
// then readers opened again.
type source struct {
	first  records.Reader
	used   bool
	reopen func() (records.Reader, error)
	cols   []string
}

// each runs fn on the input read from its first row.
func (s *source) each(fn func(records.Reader) error) error {
	if !s.used {
		s.used = true
		return fn(s.first)
	}
	if s.reopen == nil {
		return ErrNeedsReopen
	}
	r, err := s.reopen()
	if err != nil {
		return fmt.Errorf("opening the input again: %w", err)
	}
	defer r.Close()
	if got := r.Columns(); !slices.Equal(got, s.cols) {
		return fmt.Errorf("the input opened again has other columns (%d, not %d): it changed", len(got), len(s.cols))
	}
	return fn(r)
}
