package suggest

import (
	"fmt"
	"strings"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/quality"
)

// columnRules are the rule engine's suggestions for one column, in the
// order they are meant to run.
func (s *scan) columnRules(i int) []Suggestion {
	c := &s.cols[i]
	var out []Suggestion
	// email_normalize trims too: a column it fixes needs no trim of its own.
	if email := s.emailRule(c); email != nil {
		c.trims = true
		out = append(out, *email)
	} else if trim := s.trimRule(c); trim != nil {
		c.trims = true
		out = append(out, *trim)
	}
	out = append(out, s.caseRule(c)...)
	out = append(out, s.dateRule(c)...)
	out = append(out, s.phoneRule(c)...)
	if d := s.decimalRule(c); d != nil {
		out = append(out, *d)
	}
	if f := s.nullFillRule(c); f != nil {
		out = append(out, *f)
	}
	return out
}

// personal reports whether the column's values are personal data, whose
// examples are masked as the quality report masks them.
func (c *column) personal() bool {
	return c.a.Classification.Category != classify.CategoryNone && c.a.Classification.Category != ""
}

// show quotes a value for an explanation, masked in a personal column.
func (c *column) show(v string) string {
	if c.personal() {
		v = quality.Mask(v)
	}
	return fmt.Sprintf("%q", v)
}

// showAll quotes up to three values.
func (c *column) showAll(vs []string) string {
	q := make([]string, 0, len(vs))
	for _, v := range vs {
		q = append(q, c.show(v))
	}
	return strings.Join(q, ", ")
}

// share writes n of total as "12 of 700 values (1.7%)".
func share(n, total int64, what string) string {
	p := 0.0
	if total > 0 {
		p = 100 * float64(n) / float64(total)
	}
	return fmt.Sprintf("%d of %d %s (%.1f%%)", n, total, what, p)
}

// issueOf is kind when the analysis reported that issue on the column,
// else "".
func (s *scan) issueOf(c *column, kinds ...string) string {
	for _, k := range kinds {
		if hasIssue(s.res.Quality.Issues, k, c.name) {
			return k
		}
	}
	return ""
}

// clamp keeps a confidence in [lo, hi].
func clamp(x, lo, hi float64) float64 { return min(max(x, lo), hi) }

// succession is Laplace's rule of succession: the probability that the
// next case goes the way k of n seen cases went, (k+1)/(n+2).
func succession(k, n int64) float64 { return float64(k+1) / float64(n+2) }
