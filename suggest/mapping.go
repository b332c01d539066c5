package suggest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dqs/dqs/corrections"
)

// mapEntry is one variant a standardize step rewrites to its canonical
// spelling, with the raw spellings that reach the same variant through
// the column's earlier steps (" paris" trimmed to "paris"): the step maps
// them too, so that it is right whether or not the earlier steps ran.
type mapEntry struct {
	variant, canonical string
	raw                []string
	rows               int64 // rows holding the variant or one of its raw spellings
	canonicalRows      int64
	conf               float64
}

// mappingSteps turns entries into at most two format_fix standardize
// steps: the mappings at least StrongConfidence confident, then the others
// at least MinConfidence confident. A step's confidence is the least of its
// mappings': every change it makes is at least that sure. explain writes a
// step's explanation from its entries and confidence.
func (s *scan) mappingSteps(c *column, engine, issue string, entries []mapEntry, explain func(es []mapEntry, conf float64) string) []Suggestion {
	var strong, weak []mapEntry
	for _, e := range entries {
		switch {
		case e.conf >= s.opt.StrongConfidence:
			strong = append(strong, e)
		case e.conf >= s.opt.MinConfidence:
			weak = append(weak, e)
		}
	}
	var out []Suggestion
	for _, tier := range [][]mapEntry{strong, weak} {
		if len(tier) == 0 {
			continue
		}
		// The most rows first: a step cut to MaxMapping keeps what matters.
		slices.SortStableFunc(tier, func(a, b mapEntry) int {
			if d := cmp.Compare(b.rows, a.rows); d != 0 {
				return d
			}
			return strings.Compare(a.variant, b.variant)
		})
		mapping := map[string]any{}
		conf, rows := 1.0, int64(0)
		var kept []mapEntry
		for _, e := range tier {
			if len(mapping)+1+len(e.raw) > s.opt.MaxMapping {
				break
			}
			mapping[e.variant] = e.canonical
			for _, r := range e.raw {
				mapping[r] = e.canonical
			}
			conf = min(conf, e.conf)
			rows += e.rows
			kept = append(kept, e)
		}
		if len(kept) == 0 {
			continue
		}
		out = append(out, Suggestion{
			Engine: engine, CorrectionType: corrections.TypeFormatFix, Column: c.name, Strategy: corrections.StrategyStandardize,
			Params: map[string]any{"mapping": mapping}, Confidence: conf, Changes: rows, Issue: issue,
			Explanation: explain(kept, conf),
		})
	}
	return out
}

// examples writes up to three mappings as `"PARIS" → "Paris"`.
func (c *column) examples(es []mapEntry) string {
	var parts []string
	for i, e := range es {
		if i == maxExamples {
			break
		}
		parts = append(parts, c.show(e.variant)+" → "+c.show(e.canonical))
	}
	return strings.Join(parts, ", ")
}

// rowsOf sums the rows of entries.
func rowsOf(es []mapEntry) int64 {
	var n int64
	for _, e := range es {
		n += e.rows
	}
	return n
}

// plural writes "1 spelling" or "3 spellings".
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
