package corrections

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// The sandbox of custom expressions.
//
// An expression sees one thing, row, the map of the row's column names to
// their values (a null is ""), and may call expr's built-in functions but
// those that reach outside the row or the run:
//
//   - now, date, duration and timezone are removed: now reads the clock,
//     which would make a pass disagree with the next (dedupe keep last
//     reads the input twice) and a preview with the file; date and
//     timezone read the time zone database from disk, and date defaults to
//     the machine's zone. Dates are format_fix date_iso's work.
//   - toJSON, fromJSON, concat and flatten are removed: a row has no use
//     for them, and they can build, from small values, one far larger
//     than anything the run is charged for (see below).
//
// expr has no function that reaches files, the network or the
// environment, and the expression cannot name anything but row and the
// built-ins: it compiles against the row's type only (expr.Env), so any
// other name does not compile.
//
// Size: an expression has at most MaxExpressionBytes bytes and
// MaxExpressionNodes nodes (expr.MaxNodes).
//
// Work: expr's vm cannot be interrupted (it takes no context and has no
// step hook). Its only loops are the built-ins that take a predicate (map,
// filter, all, reduce, sortBy, ...); without them a program runs each of
// its instructions once. So the sandbox bounds every instruction's work and
// counts the loops' turns:
//
//   - The vm's MemoryBudget (exprArrayBudget) bounds the elements of the
//     ranges, arrays and maps a run creates: 1..1000000000 stops before it
//     is allocated.
//   - Before the expression compiles, every operator, every function call
//     and every predicate's body is wrapped in a call to a guard, which
//     charges the size of the value it made to the run (exprByteBudget
//     bytes at most: strings by their length, lists and maps by their
//     entries) and looks at the clock and the context. Every value an
//     instruction works on was made by a guarded node, taken from the row
//     (bounded by the reader's field limit) or written in the expression,
//     so no single instruction works on more than some MiB, and the few
//     functions whose result may be much larger than their arguments
//     (repeat, replace, join, string) are replaced by versions that
//     charge the result before they make it.
//   - A loop's turns all pass through the guard, so a run that takes longer
//     than Options.ExpressionTimeout stops at the next turn; one that
//     makes more than exprByteBudget stops at the guard after the value
//     that passed it. As the other built-ins make values of at most a small
//     multiple of their arguments' size (split's list takes 16 bytes for
//     each byte of its text), a run holds a few times the budget at most.
//
// The deadline is thus met within the time of one instruction, at worst
// a sort or a scan of the largest list or string the budgets allow (some
// milliseconds).
//
// The guard's calls return any, which would hide a type error (row.a + 1)
// until the rows run: an expression is compiled once as written, for its
// types and its use of the row, and once guarded, to run.

// Limits of custom expressions.
const (
	MaxExpressionBytes = 4096
	MaxExpressionNodes = 500
	// exprArrayBudget is the vm's MemoryBudget: the elements of ranges,
	// arrays and maps one run may create.
	exprArrayBudget = 100_000
	// exprByteBudget bounds what one run makes, as the guard measures it.
	exprByteBudget = 16 << 20
	// clockEvery is how many guard calls, or how many bytes charged, go by
	// between two looks at the clock (a few tens of nanoseconds each).
	clockEvery      = 16
	clockEveryBytes = 64 << 10
)

var disabledBuiltins = []string{"now", "date", "duration", "timezone", "toJSON", "fromJSON", "concat", "flatten"}

// guardName is the function the guard patch wraps nodes in. An expression
// may call it too, to no effect.
const guardName = "_guard"

// The errors that stop a run.
var (
	ErrExpressionTimeout = errors.New("the expression took longer than its time budget")
	ErrExpressionMemory  = fmt.Errorf("the expression made more than %d MiB of values", exprByteBudget>>20)
)

// meter measures one run of an expression.
type meter struct {
	ctx      context.Context
	deadline time.Time
	bytes    int64
	clockAt  int64 // bytes at the last look at the clock
	calls    int
}

func (m *meter) start(ctx context.Context, timeout time.Duration) {
	*m = meter{ctx: ctx, deadline: time.Now().Add(timeout)}
}

// charge counts n more bytes made, and stops the run past a budget.
func (m *meter) charge(n int64) error {
	m.bytes += n
	m.calls++
	if m.bytes > exprByteBudget {
		return ErrExpressionMemory
	}
	if m.calls%clockEvery == 0 || m.bytes-m.clockAt > clockEveryBytes {
		m.clockAt = m.bytes
		if time.Now().After(m.deadline) {
			return ErrExpressionTimeout
		}
		if m.ctx != nil {
			if err := m.ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

// sizeOf is what a value takes beyond what it refers to: a string's bytes,
// the slots of a list or a map.
func sizeOf(v any) int64 {
	switch x := v.(type) {
	case nil, bool, int, int64, float64:
		return 0
	case string:
		return int64(len(x))
	case []any:
		return 16 * int64(len(x))
	case []int:
		return 8 * int64(len(x))
	case []string:
		return 16 * int64(len(x))
	case map[string]any:
		return 48 * int64(len(x))
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.String, reflect.Slice, reflect.Array, reflect.Map:
		return 16 * int64(rv.Len())
	}
	return 0
}

func (m *meter) guard(args ...any) (any, error) {
	if len(args) != 1 {
		return nil, fmt.Errorf("%s takes one argument", guardName)
	}
	return args[0], m.charge(sizeOf(args[0]))
}

// The functions whose result may be far larger than their arguments,
// charged before they make it.

func (m *meter) repeat(args ...any) (any, error) {
	s, n := args[0].(string), toInt(args[1])
	if n < 0 {
		return nil, fmt.Errorf("repeat: negative count %d", n)
	}
	if n > 0 && len(s) > exprByteBudget/n {
		return nil, ErrExpressionMemory
	}
	if err := m.charge(int64(len(s) * n)); err != nil {
		return nil, err
	}
	return strings.Repeat(s, n), nil
}

func (m *meter) replace(args ...any) (any, error) {
	s, old, new := args[0].(string), args[1].(string), args[2].(string)
	n := -1
	if len(args) == 4 {
		n = toInt(args[3])
	}
	count := strings.Count(s, old) // for "", between every two runes and at both ends
	if old == "" {
		count = utf8.RuneCountInString(s) + 1
	}
	if n >= 0 {
		count = min(count, n)
	}
	if err := m.charge(int64(len(s)) + int64(count)*int64(len(new)-len(old))); err != nil {
		return nil, err
	}
	return strings.Replace(s, old, new, n), nil
}

func (m *meter) join(args ...any) (any, error) {
	sep := ""
	if len(args) == 2 {
		sep = args[1].(string)
	}
	var parts []string
	switch x := args[0].(type) {
	case []string:
		parts = x
	case []any:
		parts = make([]string, len(x))
		for i, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("join: element %d is a %T, not text", i, e)
			}
			parts[i] = s
		}
	default:
		return nil, fmt.Errorf("join takes a list of text, not a %T", args[0])
	}
	size := int64(len(sep)) * int64(max(len(parts)-1, 0))
	for _, p := range parts {
		size += int64(len(p))
	}
	if err := m.charge(size); err != nil {
		return nil, err
	}
	return strings.Join(parts, sep), nil
}

// str is string() for scalars only: the text of a list or a map may be
// far larger than the list.
func (m *meter) str(args ...any) (any, error) {
	switch v := args[0].(type) {
	case nil, string, bool, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64, float32, float64:
		s := fmt.Sprintf("%v", v)
		return s, m.charge(int64(len(s)))
	}
	return nil, fmt.Errorf("string() takes a value, not a %T", args[0])
}

func toInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	}
	return 0
}

// guardPatch wraps the nodes that make values, and the bodies of
// predicates, in guard calls.
type guardPatch struct{}

func (guardPatch) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.BinaryNode, *ast.BuiltinNode:
		wrapInGuard(node)
	case *ast.CallNode:
		if id, ok := n.Callee.(*ast.IdentifierNode); !ok || id.Value != guardName {
			wrapInGuard(node)
		}
	case *ast.PredicateNode:
		wrapInGuard(&n.Node)
	}
}

func wrapInGuard(node *ast.Node) {
	inner := *node
	ast.Patch(node, &ast.CallNode{Callee: &ast.IdentifierNode{Value: guardName}, Arguments: []ast.Node{inner}})
}

// rowRefs checks the expression's use of the row, before the guard patch:
// a column named must exist, and a pattern must be written in the
// expression (a pattern from the data could be a megabyte, compiled again
// for every row). It notes the columns read, or that any may be.
type rowRefs struct {
	columns map[string]bool
	named   map[string]bool
	rowUses int // identifiers "row" (and $env), each a named access or not
	err     error
}

func (v *rowRefs) Visit(node *ast.Node) {
	switch n := (*node).(type) {
	case *ast.IdentifierNode:
		if n.Value == "row" || n.Value == "$env" {
			v.rowUses++
		}
	case *ast.MemberNode:
		id, isIdent := n.Node.(*ast.IdentifierNode)
		prop, isConst := n.Property.(*ast.StringNode)
		if !isIdent || id.Value != "row" || !isConst {
			return
		}
		if !v.columns[prop.Value] && v.err == nil {
			v.err = fmt.Errorf("the file has no column %q", prop.Value)
		}
		v.named[prop.Value] = true
		v.rowUses--
	case *ast.BinaryNode:
		if _, isConst := n.Right.(*ast.StringNode); n.Operator == "matches" && !isConst && v.err == nil {
			v.err = errors.New("matches needs its pattern written in the expression")
		}
	}
}

// program is a compiled expression and the meter its guard charges.
type program struct {
	prog  *vm.Program
	meter *meter
	// uses are the columns the expression reads by name; all is set when
	// it may read any (row[x], or row as a whole).
	uses []string
	all  bool
}

// compileExpression compiles src for rows of columns, in the sandbox.
func compileExpression(src string, columns []string) (*program, error) {
	if len(src) > MaxExpressionBytes {
		return nil, fmt.Errorf("the expression has %d bytes, more than the limit of %d", len(src), MaxExpressionBytes)
	}
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("the expression is empty")
	}
	m := &meter{}
	refs := &rowRefs{columns: map[string]bool{}, named: map[string]bool{}}
	for _, c := range columns {
		refs.columns[c] = true
	}
	opts := []expr.Option{
		expr.Env(map[string]any{"row": map[string]string{}}),
		expr.MaxNodes(MaxExpressionNodes),
		// The optimizer rewrites nodes after the guard patch (it folds
		// map into filter, sum of ranges...): without it, what runs is
		// what was guarded.
		expr.Optimize(false),
		expr.Function(guardName, m.guard),
		expr.Function("repeat", m.repeat, new(func(string, int) string)),
		expr.Function("replace", m.replace, new(func(string, string, string) string), new(func(string, string, string, int) string)),
		expr.Function("join", m.join, new(func([]any, string) string), new(func([]any) string), new(func([]string, string) string), new(func([]string) string)),
		expr.Function("string", m.str, new(func(any) string)),
	}
	for _, name := range disabledBuiltins {
		opts = append(opts, expr.DisableBuiltin(name))
	}
	// As written first, for the types (see above), then guarded.
	if _, err := expr.Compile(src, slices.Concat(opts, []expr.Option{expr.Patch(refs)})...); err != nil {
		return nil, errors.New(exprMessage(err))
	}
	if refs.err != nil {
		return nil, refs.err
	}
	prog, err := expr.Compile(src, slices.Concat(opts, []expr.Option{expr.Patch(guardPatch{})})...)
	if err != nil {
		return nil, errors.New(exprMessage(err))
	}
	p := &program{prog: prog, meter: m, all: refs.rowUses > 0}
	for _, c := range columns {
		if refs.named[c] {
			p.uses = append(p.uses, c)
		}
	}
	return p, nil
}

// exprMessage is an expr error on one line: its message and where.
func exprMessage(err error) string {
	var fe *file.Error
	if errors.As(err, &fe) {
		if fe.Line > 0 {
			return fmt.Sprintf("%s (line %d, column %d)", fe.Message, fe.Line, fe.Column+1)
		}
		return fe.Message
	}
	return err.Error()
}
