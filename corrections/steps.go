package corrections

import (
	"fmt"
	"slices"
	"strings"
)

// The correction types (Step.Type).
const (
	TypeNullFill     = "null_fill"
	TypeFormatFix    = "format_fix"
	TypeDedupe       = "dedupe"
	TypeRegexReplace = "regex_replace"
	TypeCustom       = "custom"
)

// The strategies of each type (Step.Strategy). regex_replace and custom
// have none: their Strategy is empty.
const (
	// null_fill
	StrategyConstant    = "constant"
	StrategyMean        = "mean"
	StrategyMedian      = "median"
	StrategyMode        = "mode"
	StrategyForwardFill = "forward_fill"
	// format_fix
	StrategyDateISO        = "date_iso"
	StrategyPhoneE164      = "phone_e164"
	StrategyEmailNormalize = "email_normalize"
	StrategyTrim           = "trim"
	StrategyLower          = "lower"
	StrategyUpper          = "upper"
	StrategyTitle          = "title"
	StrategyDecimalPoint   = "decimal_point"
	StrategyStandardize    = "standardize"
	// dedupe
	StrategyExact = "exact"
	StrategyKeys  = "keys"
)

// MaxSteps bounds a pipeline: each step costs per row, and a user's list
// of fixes is short.
const MaxSteps = 100

// Step is one approved fix: the project's correction_type and its config
// {column, strategy, params}. Params holds what the strategy takes, as
// decoded from JSON (strings, float64, bool, []any, map[string]any; Go
// callers may also pass []string and map[string]string).
type Step struct {
	ID       string
	Type     string
	Column   string
	Strategy string
	Params   map[string]any
}

// Pipeline is the active steps, in the order they apply.
type Pipeline []Step

// StepError says why a step cannot run on a file: an unknown type or
// strategy, a missing or unknown column, a bad parameter, a pattern or an
// expression that does not compile. It is the caller's mistake (HTTP 400);
// Field names what is wrong ("correction_type", "strategy", "column",
// "params.pattern", ...).
type StepError struct {
	StepID  string
	Field   string
	Message string
}

func (e *StepError) Error() string {
	return fmt.Sprintf("step %q: %s: %s", e.StepID, e.Field, e.Message)
}

func (s *Step) errorf(field, format string, args ...any) *StepError {
	return &StepError{StepID: s.ID, Field: field, Message: fmt.Sprintf(format, args...)}
}

// Validate checks that s can run on a file with the given columns. Its
// error is a *StepError.
func (s Step) Validate(columns []string) error {
	if _, err := s.compile(columns); err != nil {
		return err
	}
	return nil
}

// Validate checks every step (see Step.Validate) and that the pipeline is
// not longer than MaxSteps. Its error is a *StepError.
func (p Pipeline) Validate(columns []string) error {
	_, err := p.compile(columns)
	return err
}

func (p Pipeline) compile(columns []string) ([]compiled, error) {
	if len(p) > MaxSteps {
		return nil, &StepError{Field: "steps", Message: fmt.Sprintf("at most %d steps, not %d", MaxSteps, len(p))}
	}
	out := make([]compiled, len(p))
	for i, s := range p {
		c, err := s.compile(columns)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// compiled is a validated step, ready to make the op of each pass.
type compiled interface {
	newOp(e *engine) (op, error)
}

// learner is a step that must see the rows reaching it in a pass of its
// own before it can fix the first of them (see the package doc, Passes).
type learner interface {
	compiled
	// needsPass reports whether the step must learn in a pass of its own
	// (it may have been told what it needs instead, Options.Stats).
	needsPass(e *engine) bool
	// learnOp returns the op of that pass, which keeps every row and
	// stores what it learns in the step for newOp.
	learnOp(e *engine) op
}

// strategies maps each type to its strategies; "" is the only strategy of
// the types that have none.
var strategies = map[string][]string{
	TypeNullFill:     {StrategyConstant, StrategyMean, StrategyMedian, StrategyMode, StrategyForwardFill},
	TypeFormatFix:    {StrategyDateISO, StrategyPhoneE164, StrategyEmailNormalize, StrategyTrim, StrategyLower, StrategyUpper, StrategyTitle, StrategyDecimalPoint, StrategyStandardize},
	TypeDedupe:       {StrategyExact, StrategyKeys},
	TypeRegexReplace: {""},
	TypeCustom:       {""},
}

var typeNames = []string{TypeNullFill, TypeFormatFix, TypeDedupe, TypeRegexReplace, TypeCustom}

func (s Step) compile(columns []string) (compiled, error) {
	known, ok := strategies[s.Type]
	if !ok {
		return nil, s.errorf("correction_type", "unknown correction type %q: one of %s", s.Type, strings.Join(typeNames, ", "))
	}
	if !slices.Contains(known, s.Strategy) {
		if known[0] == "" {
			return nil, s.errorf("strategy", "%s takes no strategy, not %q", s.Type, s.Strategy)
		}
		return nil, s.errorf("strategy", "unknown %s strategy %q: one of %s", s.Type, s.Strategy, strings.Join(known, ", "))
	}
	p := newParams(&s)
	var c compiled
	var err error
	switch s.Type {
	case TypeNullFill:
		c, err = compileNullFill(&s, p, columns)
	case TypeFormatFix:
		c, err = compileFormatFix(&s, p, columns)
	case TypeDedupe:
		c, err = compileDedupe(&s, p, columns)
	case TypeRegexReplace:
		c, err = compileRegex(&s, p, columns)
	case TypeCustom:
		c, err = compileCustom(&s, p, columns)
	}
	if err != nil {
		return nil, err
	}
	if err := p.done(); err != nil {
		return nil, err
	}
	return c, nil
}

// column is the index of the step's column in columns.
func (s *Step) column(columns []string) (int, error) {
	if s.Column == "" {
		return 0, s.errorf("column", "%s needs a column", s.Type)
	}
	return columnIndex(s, "column", s.Column, columns)
}

func columnIndex(s *Step, field, name string, columns []string) (int, error) {
	i := slices.Index(columns, name)
	if i < 0 {
		return 0, s.errorf(field, "the file has no column %q", name)
	}
	return i, nil
}
