package corrections

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// params reads a step's Params, as decoded from JSON, and remembers which
// it read: a parameter no strategy reads is a mistake (a misspelt name
// would otherwise be ignored in silence), reported by done.
type params struct {
	step *Step
	used map[string]bool
}

func newParams(s *Step) *params { return &params{step: s, used: map[string]bool{}} }

func (p *params) get(name string) (any, bool) {
	p.used[name] = true
	v, ok := p.step.Params[name]
	if ok && v == nil {
		return nil, false // an explicit null is an absent parameter
	}
	return v, ok
}

func (p *params) errorf(name, format string, args ...any) *StepError {
	return p.step.errorf("params."+name, format, args...)
}

// str is a text parameter; a number or a boolean is taken as its text, as
// a user typing a fill value of 0 means "0".
func (p *params) str(name string, required bool) (string, bool, error) {
	v, ok := p.get(name)
	if !ok {
		if required {
			return "", false, p.errorf(name, "is required")
		}
		return "", false, nil
	}
	if s, ok := scalarText(v); ok {
		return s, true, nil
	}
	return "", false, p.errorf(name, "must be text, not %T", v)
}

func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true // as written: 12345678901234567890 stays so
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

func (p *params) boolean(name string) (bool, error) {
	v, ok := p.get(name)
	if !ok {
		return false, nil
	}
	b, isBool := v.(bool)
	if !isBool {
		return false, p.errorf(name, "must be true or false, not %T", v)
	}
	return b, nil
}

// list is a list of text, of at most max entries.
func (p *params) list(name string, max int) ([]string, error) {
	v, ok := p.get(name)
	if !ok {
		return nil, nil
	}
	var out []string
	switch x := v.(type) {
	case []string:
		out = slices.Clone(x)
	case []any:
		for i, e := range x {
			s, isText := e.(string)
			if !isText {
				return nil, p.errorf(name, "entry %d must be text, not %T", i+1, e)
			}
			out = append(out, s)
		}
	default:
		return nil, p.errorf(name, "must be a list of text, not %T", v)
	}
	if len(out) > max {
		return nil, p.errorf(name, "at most %d entries, not %d", max, len(out))
	}
	return out, nil
}

// mapping is an object of text values, of at most max entries.
func (p *params) mapping(name string, max int) (map[string]string, error) {
	v, ok := p.get(name)
	if !ok {
		return nil, p.errorf(name, "is required")
	}
	out := map[string]string{}
	switch x := v.(type) {
	case map[string]string:
		for k, e := range x {
			out[k] = e
		}
	case map[string]any:
		for k, e := range x {
			s, isText := scalarText(e)
			if !isText {
				return nil, p.errorf(name, "the value of %q must be text, not %T", k, e)
			}
			out[k] = s
		}
	default:
		return nil, p.errorf(name, "must be an object of text values, not %T", v)
	}
	if len(out) > max {
		return nil, p.errorf(name, "at most %d entries, not %d", max, len(out))
	}
	return out, nil
}

// done reports the parameters no one read.
func (p *params) done() error {
	var unknown []string
	for name := range p.step.Params {
		if !p.used[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	return p.step.errorf("params", "unknown parameter %s for %s", strings.Join(quoteAll(unknown), ", "), strategyName(p.step))
}

func strategyName(s *Step) string {
	if s.Strategy == "" {
		return s.Type
	}
	return s.Type + " " + s.Strategy
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// DecodeParams reads a step's params from JSON keeping numbers as written
// (json.Number): a fill value such as a long id must not pass through a
// float and come back rounded.
func DecodeParams(raw []byte) (map[string]any, error) {
	out := map[string]any{}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return out, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}
