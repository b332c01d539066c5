package corrections

import (
	"fmt"
	"regexp"
	"strings"
)

// regex_replace {pattern, replacement} replaces every match of pattern in
// the values of a column, blank ones and null tokens included (a pattern
// may mean to rewrite "N/A"), by replacement, where $1 or ${name} stand
// for the groups (Go's regexp.Expand). Patterns are RE2: matching takes
// time linear in the value, whatever the pattern, and nothing backtracks;
// the factor is the compiled program's size, which the pattern's 1,000
// bytes and Go's refusal of repeat counts past 1,000 keep to a few
// thousand instructions (x{1000} is about the worst: 4 µs a byte).

// Limits of a regex_replace step.
const (
	MaxPatternBytes     = 1000
	MaxReplacementBytes = 1000
)

func compileRegex(s *Step, p *params, columns []string) (compiled, error) {
	col, err := s.column(columns)
	if err != nil {
		return nil, err
	}
	pattern, _, err := p.str("pattern", true)
	if err != nil {
		return nil, err
	}
	switch {
	case pattern == "":
		return nil, p.errorf("pattern", "is empty")
	case len(pattern) > MaxPatternBytes:
		return nil, p.errorf("pattern", "has %d bytes, more than the limit of %d", len(pattern), MaxPatternBytes)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, p.errorf("pattern", "does not compile: %v", err)
	}
	repl, _, err := p.str("replacement", true)
	if err != nil {
		return nil, err
	}
	if len(repl) > MaxReplacementBytes {
		return nil, p.errorf("replacement", "has %d bytes, more than the limit of %d", len(repl), MaxReplacementBytes)
	}
	r := &regexFix{re: re, repl: repl, refs: strings.Count(repl, "$")}
	return &cellStep{col: col, nullsToo: true, newFix: func(e *engine) cellFix {
		limit := 4 * e.opt.MaxValueBytes
		return func(v string) (string, bool, error) { return r.fix(v, limit) }
	}}, nil
}

type regexFix struct {
	re   *regexp.Regexp
	repl string
	refs int // '$' in repl: each may bring back a group, at most the whole match
}

// fix replaces the matches in v, unless the result could pass limit bytes:
// a pattern that matches everywhere ("" or "x*") with a long replacement
// would otherwise turn a large value into one many times larger before
// anything could look at its length. The result is at most len(v), plus
// the replacement for each match, plus each '$' of it bringing back as much
// as the whole value.
func (r *regexFix) fix(v string, limit int) (string, bool, error) {
	n, per := len(v), len(r.repl)
	if worst := n + (n+1)*per + r.refs*n; worst > limit {
		// Count the matches, by a replacement that takes no more memory
		// than v (FindAll would take 40 bytes a match).
		m := 0
		r.re.ReplaceAllStringFunc(v, func(string) string { m++; return "" })
		if n+m*per+r.refs*n > limit {
			return "", false, fmt.Errorf("replacing %d bytes could make a value of more than %d bytes", n, limit)
		}
	}
	return r.re.ReplaceAllString(v, r.repl), true, nil
}
