package suggest

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/dqs/dqs/standardize"
)

// The correction engine: data-driven value fixes whose strategy the data
// makes confident, for vocabulary columns (vocabularyLabels).
//
// Clusters: standardize.Cluster over the column's value counts, as the
// steps before (trim, case groups) leave them, proposes mapping rare
// spellings to their cluster's dominant one ("Stokholm" → "Stockholm").
// Each mapping carries the package's confidence, F(r)·S (frequency ratio
// and share of characters no edit touches; see package standardize); a
// step's confidence is the least of its mappings', so every change it
// makes is at least that sure, and the mappings are split in a strong and
// a weak step (Options.StrongConfidence).

// corrections runs the correction engine over every column, once the rule
// engine has recorded what it proposes (trims and case mappings, which
// the clusters and dependencies build on).
func (s *scan) corrections(ctx context.Context) ([]Suggestion, error) {
	var out []Suggestion
	for i := range s.cols {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out = append(out, s.clusterRule(&s.cols[i])...)
	}
	deps, err := s.dependencies(ctx)
	if err != nil {
		return nil, err
	}
	return append(out, deps...), nil
}

// normal is a column's values as its suggested steps leave them: each raw
// value's final form, and each final form's count.
type normal struct {
	final  map[string]string // raw value → after trim, case group and cluster
	counts map[string]int64  // after trim and case group (the clusters' input)
	// raws holds, for each form after trim and case group, the raw values
	// and trimmed forms that reach it and differ from it.
	raws map[string][]string
}

// normalise computes the column's values after trim and case groups.
func (c *column) normalise() *normal {
	n := &normal{final: map[string]string{}, counts: map[string]int64{}, raws: map[string][]string{}}
	c.values.each(func(v string, k int64) {
		f := v
		if c.trims {
			f = strings.TrimSpace(v)
		}
		var mid string
		if canon, ok := c.caseMap[f]; ok {
			mid = canon
		} else {
			mid = f
		}
		n.final[v] = mid
		n.counts[mid] += k
		for _, r := range []string{v, f} {
			if r != mid && !slices.Contains(n.raws[mid], r) {
				n.raws[mid] = append(n.raws[mid], r)
			}
		}
	})
	for _, r := range n.raws {
		slices.Sort(r)
	}
	return n
}

// clusterRule proposes the column's standardisation clusters.
func (s *scan) clusterRule(c *column) []Suggestion {
	if !c.clusterOK || c.values == nil {
		return nil
	}
	n := c.normalise()
	in := make([]standardize.ValueCount, 0, len(n.counts))
	for v, k := range n.counts {
		in = append(in, standardize.ValueCount{Value: v, Count: k})
	}
	slices.SortFunc(in, func(a, b standardize.ValueCount) int { return strings.Compare(a.Value, b.Value) })
	ms, _ := standardize.Cluster(in, standardize.Options{})
	var entries []mapEntry
	canon := map[string]string{}
	for _, m := range ms {
		if internalCapital(m.Variant) && strings.EqualFold(m.Variant, m.Canonical) {
			continue // written so on purpose, as the case rule holds
		}
		canon[m.Variant] = m.Canonical
		entries = append(entries, mapEntry{variant: m.Variant, canonical: m.Canonical, raw: n.raws[m.Variant],
			rows: m.VariantCount, canonicalRows: m.CanonicalCount, conf: m.Confidence})
	}
	// Every raw value's final form, for the dependencies.
	for v, mid := range n.final {
		if f, ok := canon[mid]; ok {
			n.final[v] = f
		}
	}
	c.final = n.final
	return s.mappingSteps(c, EngineCorrection, "", entries, func(es []mapEntry, conf float64) string {
		return fmt.Sprintf("%q has %s looking like rarer spellings of a more frequent value (%s): they differ from it in case, accents, punctuation, spacing or a typo. "+
			"The mapping rewrites %s to the frequent value. "+
			"Confidence %.2f, the weakest of its mappings: the more frequent the value than its variant, and the fewer characters they differ in, the surer (the standardize package's F(r)·S).",
			c.name, plural(int(rowsOf(es)), "value", "values"), c.examples(es), plural(len(es), "spelling", "spellings"), conf)
	})
}

// finalOf is the final form of every raw value of the column: its
// clusters' when it was clustered, else after trim and case group.
func (c *column) finalOf() map[string]string {
	if c.final == nil {
		c.final = c.normalise().final
	}
	return c.final
}
