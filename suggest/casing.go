package suggest

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/dqs/dqs/quality"
)

// The case rule maps each spelling of a value that differs only in letter
// case ("PARIS", "paris") to the group's most frequent spelling ("Paris"),
// counted over every row, rather than forcing the column to lower, upper
// or title case, which would break the spellings that are right ("McLean",
// "USA", "iPhone").
//
// A variant is mapped only when its group's dominant spelling is at least
// caseMinRatio times as frequent: two spellings about as common are two
// conventions, and nothing says which is right. Its confidence joins two
// independent pieces of evidence that the dominant spelling is the right
// one, as the complement of the chance that both mislead:
//
//	conf = 1 − (1 − F(r)) · (1 − s),   F(r) = ln r / (1 + ln r)
//
// F(r) is the standardize package's reading of the frequency ratio r
// (dominant / variant: 0.52 at 3, 0.80 at 55), and s the share of the
// column's other values (not of this group) written in the dominant
// spelling's case style (lower, UPPER or Title; 0 when the dominant is in
// no such style, "iPhone"): a column written in title case throughout
// says "Paris", whatever the counts. It is capped at caseMaxConfidence.
//
// A variant with an internal capital, a capital right after a small
// letter ("MacDonald" beside "Macdonald", "iPhone"), is left alone: people
// press shift in the middle of a word on purpose, for another family or a
// brand, and hardly ever by slip.
const (
	caseMinRatio      = 3.0
	caseMaxConfidence = 0.97
)

// caseStyle is how a value's letters are cased.
type caseStyle int

const (
	styleNone  caseStyle = iota // no cased letter
	styleLower                  // paris
	styleUpper                  // PARIS
	styleTitle                  // Paris, New York, Saint-Étienne
	styleMixed                  // iPhone, McLean, pARIS
)

func styleOf(v string) caseStyle {
	lower, upper, title, cased := true, true, true, false
	prevLetter := false
	for _, r := range v {
		isU, isL := unicode.IsUpper(r), unicode.IsLower(r)
		if isU || isL {
			cased = true
			if isU {
				lower = false
			}
			if isL {
				upper = false
			}
			// Title: upper first letter of a word, lower after it.
			if isU == prevLetter {
				title = false
			}
		}
		prevLetter = unicode.IsLetter(r)
	}
	switch {
	case !cased:
		return styleNone
	case lower:
		return styleLower
	case upper:
		return styleUpper
	case title:
		return styleTitle
	}
	return styleMixed
}

// internalCapital reports whether v has a capital right after a small
// letter.
func internalCapital(v string) bool {
	prevLower := false
	for _, r := range v {
		if prevLower && unicode.IsUpper(r) {
			return true
		}
		prevLower = unicode.IsLower(r)
	}
	return false
}

// forms merges the column's values by what its trim step (if any) leaves
// of them; raws holds, for each form, the raw values that differ from it.
func (c *column) forms() (counts map[string]int64, raws map[string][]string) {
	counts, raws = map[string]int64{}, map[string][]string{}
	c.values.each(func(v string, n int64) {
		f := v
		if c.trims {
			f = strings.TrimSpace(v)
		}
		counts[f] += n
		if f != v {
			raws[f] = append(raws[f], v)
		}
	})
	for _, r := range raws {
		slices.Sort(r)
	}
	return counts, raws
}

// caseRule proposes standardize steps mapping case variants to their
// group's dominant spelling, and records the mapping for the clusters.
func (s *scan) caseRule(c *column) []Suggestion {
	if !c.caseOK || c.values == nil {
		return nil
	}
	counts, raws := c.forms()
	groups := map[string][]string{}
	styleRows := map[caseStyle]int64{}
	var cased int64
	for f, n := range counts {
		k := strings.ToLower(f)
		groups[k] = append(groups[k], f)
		if st := styleOf(f); st != styleNone {
			styleRows[st] += n
			cased += n
		}
	}
	keys := make([]string, 0, len(groups))
	for k, g := range groups {
		if len(g) > 1 {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var entries []mapEntry
	c.caseMap = map[string]string{}
	for _, k := range keys {
		g := groups[k]
		slices.SortFunc(g, func(a, b string) int {
			if d := cmp.Compare(counts[b], counts[a]); d != 0 {
				return d
			}
			return strings.Compare(a, b)
		})
		dom := g[0]
		if counts[g[1]] == counts[dom] {
			continue // no dominant spelling
		}
		var groupRows int64
		for _, f := range g {
			groupRows += counts[f]
		}
		st := styleOf(dom)
		sShare := 0.0
		if st != styleMixed && st != styleNone && cased > groupRows {
			sameStyleInGroup := int64(0)
			for _, f := range g {
				if styleOf(f) == st {
					sameStyleInGroup += counts[f]
				}
			}
			sShare = float64(styleRows[st]-sameStyleInGroup) / float64(cased-groupRows)
		}
		for _, f := range g[1:] {
			r := float64(counts[dom]) / float64(counts[f])
			if r < caseMinRatio {
				continue
			}
			// An internal capital (MacDonald, iPhone, LinkedIn) is written
			// on purpose, not slipped into: another family, another brand.
			if internalCapital(f) {
				continue
			}
			conf := min(1-(1-ratioEvidence(r))*(1-sShare), caseMaxConfidence)
			c.caseMap[f] = dom
			entries = append(entries, mapEntry{variant: f, canonical: dom, raw: raws[f], rows: counts[f],
				canonicalRows: counts[dom], conf: conf})
		}
	}
	issue := s.issueOf(c, quality.KindInconsistentCase)
	return s.mappingSteps(c, EngineRule, issue, entries, func(es []mapEntry, conf float64) string {
		return fmt.Sprintf("%q has %s spelt in another letter case than the most frequent spelling of the same value (%s). "+
			"The mapping rewrites %s to that spelling, leaving the column's other values as they are. "+
			"Confidence %.2f, the weakest of its mappings: each spelling it rewrites is at least %.0f times rarer than the one it becomes, "+
			"and the more of the column is written in that spelling's case style, the surer the fix.",
			c.name, plural(int(rowsOf(es)), "value", "values"), c.examples(es), plural(len(es), "spelling", "spellings"), conf, minRatio(es))
	})
}

// ratioEvidence is the standardize package's frequency evidence F(r) =
// ln r / (1 + ln r) of a ratio r ≥ 1.
func ratioEvidence(r float64) float64 {
	if r <= 1 {
		return 0
	}
	x := math.Log(r)
	return x / (1 + x)
}

// minRatio is the least canonical/variant ratio of es.
func minRatio(es []mapEntry) float64 {
	m := math.Inf(1)
	for _, e := range es {
		if e.rows > 0 {
			m = min(m, float64(e.canonicalRows)/float64(e.rows))
		}
	}
	return math.Floor(m)
}
