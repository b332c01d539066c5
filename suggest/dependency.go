package suggest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/standardize"
)

// Dependencies: for a column pair where one column determines the other
// in almost every row (zip → city; standardize.Dependency), the rows that
// break it have their dependent value rewritten to the one the rest of
// their determinant's rows hold (standardize.DependencyFixes), counted on
// the values as the columns' other suggested steps leave them. The step
// is a custom expression looking the (determinant, dependent) pair up in
// a table of the violations, keyed on the raw values as well as the fixed
// ones, so that it is right whether or not those steps ran.
//
// A fix's confidence is the package's: the lower bound of the 95% Wilson
// interval of the share of its determinant's rows holding the value it
// writes (49 of 50 rows: 0.90). When the reverse pair is a dependency too
// (a country code and a country name) and the row breaks both, either
// column may be the wrong one, and the confidence is halved. A step's
// confidence is the least of its fixes'.

// Bounds of one dependency step's expression, under the corrections
// package's (4,096 bytes, 500 nodes; a table entry takes three nodes).
const (
	maxExprBytes   = 3500
	maxExprEntries = 100
	pairSep        = "\x1f" // joins the two values of a key; never in a value kept
)

// depFix is one fix with the keys that reach it.
type depFix struct {
	standardize.DependencyFix
	keys []string // determinant + pairSep + dependent, raw and fixed
	conf float64
}

// candidate is one directed column pair's fixes, before they become
// steps.
type candidate struct {
	det, dep *column
	di, bi   int // column indexes of det and dep
	fixes    []*depFix
	strength float64
	minority []string // dependent values likely wrong (minorities)
}

// dependencies proposes the dependency fixes of every pair counted. A fix
// whose determinant value is itself a minority value of another
// dependency (a city that is not its zip's, determining a region) may be
// fixing the wrong column: its confidence is halved, as for a row that
// breaks the reverse dependency.
func (s *scan) dependencies(ctx context.Context) ([]Suggestion, error) {
	var cands []*candidate
	for _, p := range s.pairs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if p.off {
			continue
		}
		a, b := &s.cols[p.a], &s.cols[p.b]
		if a.values == nil || b.values == nil {
			continue
		}
		if a.depA && b.depB {
			if c := s.dependency(p, p.a, p.b, false); c != nil {
				cands = append(cands, c)
			}
		}
		if b.depA && a.depB {
			if c := s.dependency(p, p.b, p.a, true); c != nil {
				cands = append(cands, c)
			}
		}
	}
	type colValue struct {
		col   int
		value string
	}
	suspect := map[colValue]bool{}
	for _, c := range cands {
		for _, v := range c.minority {
			suspect[colValue{c.bi, v}] = true
		}
	}
	var out []Suggestion
	for _, c := range cands {
		var strong, weak []*depFix
		for _, f := range c.fixes {
			if suspect[colValue{c.di, f.Determinant}] && f.conf == f.Confidence { // not halved twice
				f.conf /= 2
			}
			switch {
			case f.conf >= s.opt.StrongConfidence:
				strong = append(strong, f)
			case f.conf >= s.opt.MinConfidence:
				weak = append(weak, f)
			}
		}
		for _, tier := range [][]*depFix{strong, weak} {
			for _, chunk := range chunkFixes(tier) {
				out = append(out, s.dependencyStep(c.det, c.dep, chunk, c.strength))
			}
		}
	}
	return out, nil
}

// rawPair is one counted pair of raw values, determinant first.
type rawPair struct {
	a, b  string
	count int64
}

// pairsOf lists the pair table's counts, determinant first.
func (s *scan) pairsOf(p *pairTable, reversed bool) []rawPair {
	out := make([]rawPair, 0, len(p.counts))
	for k, n := range p.counts {
		ia, ib := int32(k>>32), int32(uint32(k))
		va, vb := s.cols[p.a].values.vals[ia], s.cols[p.b].values.vals[ib]
		if reversed {
			va, vb = vb, va
		}
		out = append(out, rawPair{va, vb, n})
	}
	slices.SortFunc(out, func(x, y rawPair) int {
		if d := strings.Compare(x.a, y.a); d != 0 {
			return d
		}
		return strings.Compare(x.b, y.b)
	})
	return out
}

// dependency finds the fixes of column bi by column di.
func (s *scan) dependency(p *pairTable, di, bi int, reversed bool) *candidate {
	det, dep := &s.cols[di], &s.cols[bi]
	raw := s.pairsOf(p, reversed)
	fd, fb := det.finalOf(), dep.finalOf()
	pairs := make([]standardize.PairCount, 0, len(raw))
	reverse := make([]standardize.PairCount, 0, len(raw))
	for _, r := range raw {
		if strings.Contains(r.a, pairSep) || strings.Contains(r.b, pairSep) {
			return nil
		}
		pairs = append(pairs, standardize.PairCount{A: fd[r.a], B: fb[r.b], Count: r.count})
		reverse = append(reverse, standardize.PairCount{A: fb[r.b], B: fd[r.a], Count: r.count})
	}
	strength, ok := standardize.Dependency(pairs)
	if !ok {
		return nil
	}
	fixes, err := standardize.DependencyFixes(pairs)
	if err != nil {
		return nil
	}
	// Rows that also break the reverse dependency: which column is wrong?
	both := map[[2]string]bool{}
	if back, err := standardize.DependencyFixes(reverse); err == nil {
		for _, f := range back {
			both[[2]string{f.From, f.Determinant}] = true
		}
	}
	byFix := map[[2]string]*depFix{}
	var all []*depFix
	for _, f := range fixes {
		conf := f.Confidence
		if both[[2]string{f.Determinant, f.From}] {
			conf /= 2
		}
		df := &depFix{DependencyFix: f, conf: conf}
		byFix[[2]string{f.Determinant, f.From}] = df
		all = append(all, df)
	}
	for _, r := range raw {
		df := byFix[[2]string{fd[r.a], fb[r.b]}]
		if df == nil {
			continue
		}
		for _, a := range []string{r.a, df.Determinant} {
			for _, b := range []string{r.b, df.From} {
				if k := a + pairSep + b; !slices.Contains(df.keys, k) {
					df.keys = append(df.keys, k)
				}
			}
		}
	}
	return &candidate{det: det, dep: dep, di: di, bi: bi, fixes: all, strength: strength, minority: minorities(pairs)}
}

// Minority values: a dependent value in a minority of its determinant's
// rows (suspectShare of them or more hold another value, and at least
// standardize.DefaultMinRows rows in all) is likely a wrong cell, whether
// or not the determinant is clear-cut enough for a fix.
const suspectShare = 0.8

// minorities lists the dependent values in a minority of their
// determinant's rows.
func minorities(pairs []standardize.PairCount) []string {
	type det struct{ total, dom int64 }
	dets := map[string]*det{}
	merged := map[[2]string]int64{}
	for _, p := range pairs {
		d := dets[p.A]
		if d == nil {
			d = &det{}
			dets[p.A] = d
		}
		d.total += p.Count
		merged[[2]string{p.A, p.B}] += p.Count
	}
	for k, n := range merged {
		dets[k[0]].dom = max(dets[k[0]].dom, n)
	}
	var out []string
	for k, n := range merged {
		d := dets[k[0]]
		if n < d.dom && d.total >= standardize.DefaultMinRows && float64(d.dom) >= suspectShare*float64(d.total) {
			out = append(out, k[1])
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// chunkFixes splits fixes into groups whose expression stays within the
// bounds, the most rows first.
func chunkFixes(fixes []*depFix) [][]*depFix {
	slices.SortStableFunc(fixes, func(x, y *depFix) int {
		if d := cmp.Compare(y.Rows, x.Rows); d != 0 {
			return d
		}
		if d := strings.Compare(x.Determinant, y.Determinant); d != 0 {
			return d
		}
		return strings.Compare(x.From, y.From)
	})
	var out [][]*depFix
	var cur []*depFix
	bytes, entries := 0, 0
	for _, f := range fixes {
		fb, fe := 0, len(f.keys)
		for _, k := range f.keys {
			fb += len(strconv.Quote(k)) + len(strconv.Quote(f.To)) + 2
		}
		if fb+200 > maxExprBytes || fe > maxExprEntries {
			continue // a fix too large for any expression
		}
		if len(cur) > 0 && (bytes+fb > maxExprBytes || entries+fe > maxExprEntries) {
			out = append(out, cur)
			cur, bytes, entries = nil, 0, 0
		}
		cur = append(cur, f)
		bytes += fb
		entries += fe
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// dependencyExpression is the custom expression that rewrites dep in the
// rows of fixes: a table lookup of the row's pair, else the value as it
// is.
func dependencyExpression(det, dep string, fixes []*depFix) string {
	var b strings.Builder
	b.WriteString("{")
	first := true
	for _, f := range fixes {
		for _, k := range f.keys {
			if !first {
				b.WriteString(", ")
			}
			first = false
			b.WriteString(strconv.Quote(k))
			b.WriteString(": ")
			b.WriteString(strconv.Quote(f.To))
		}
	}
	fmt.Fprintf(&b, "}[row[%s] + %s + row[%s]] ?? row[%s]", strconv.Quote(det), strconv.Quote(pairSep), strconv.Quote(dep), strconv.Quote(dep))
	return b.String()
}

func (s *scan) dependencyStep(det, dep *column, fixes []*depFix, strength float64) Suggestion {
	conf, rows := 1.0, int64(0)
	var ex []string
	for i, f := range fixes {
		conf = min(conf, f.conf)
		rows += f.Rows
		if i < maxExamples {
			ex = append(ex, fmt.Sprintf("%s %s: %s → %s", det.name, det.show(f.Determinant), dep.show(f.From), dep.show(f.To)))
		}
	}
	return Suggestion{
		Engine: EngineCorrection, CorrectionType: corrections.TypeCustom, Column: dep.name,
		Params: map[string]any{"expression": dependencyExpression(det.name, dep.name, fixes)}, Confidence: conf, Changes: rows,
		Explanation: fmt.Sprintf("%q determines %q: %.1f%% of the rows hold the %s their %s holds elsewhere. %d rows break it (%s). "+
			"The step rewrites their %s to the value the other rows of their %s hold. "+
			"Confidence %.2f, the weakest of its %s: the lower 95%% bound of the share of the rows of its %s that agree%s.",
			det.name, dep.name, 100*strength, dep.name, det.name, rows, strings.Join(ex, "; "),
			dep.name, det.name, conf, plural(len(fixes), "fix", "fixes"), det.name, halvedNote(fixes)),
	}
}

// halvedNote says when a fix's confidence was halved for a two-way
// dependency.
func halvedNote(fixes []*depFix) string {
	for _, f := range fixes {
		if f.conf < f.Confidence {
			return ", halved where the row also breaks the reverse dependency, as either column may be the wrong one"
		}
	}
	return ""
}
