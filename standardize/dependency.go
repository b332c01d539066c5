package standardize

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// PairCount is the number of rows holding determinant value A and
// dependent value B (a zip code and a city).
type PairCount struct {
	A, B  string
	Count int64
}

// DependencyFix proposes rewriting the dependent value From to To in the
// rows whose determinant is Determinant: Rows rows.
type DependencyFix struct {
	Determinant string
	From, To    string
	Rows        int64
	// Confidence is in (0,1): the lower bound of the 95% Wilson score
	// interval of the share of the determinant's rows that hold To. It
	// grows with the share and with the number of rows behind it: 98 of
	// 100 rows give 0.93, 19 of 20 give 0.76.
	Confidence float64
}

// The defaults of DependencyOptions.
const (
	DefaultMinShare  = 0.95
	DefaultMinRows   = 5
	DefaultMaxPairs  = 1_000_000
	DefaultMinLambda = 0.5
)

// DependencyOptions tune Dependency and DependencyFixes. The zero value
// means the defaults.
type DependencyOptions struct {
	// MinShare is the share of rows that must follow the dominant
	// dependent value: of the supported determinants' rows for the column
	// pair to be a dependency, and of a determinant's rows for its other
	// rows to be fixed. 0 means DefaultMinShare (95%).
	MinShare float64
	// MinRows is the number of rows a determinant value needs before its
	// dominant dependent is trusted (K); 0 means DefaultMinRows (5).
	// Fewer rows say too little: 4 of 5 is 80% by chance alone.
	MinRows int64
	// MaxPairs bounds the distinct pairs accepted, and with them the
	// memory; 0 means DefaultMaxPairs (1,000,000).
	MaxPairs int
	// MinLambda is the least Goodman–Kruskal λ, the share of the errors in
	// guessing the dependent that knowing the determinant removes; 0 means
	// DefaultMinLambda (0.5). It keeps a near-constant dependent column
	// (every row "SE") from passing for a dependency of anything.
	MinLambda float64
}

// ErrTooManyPairs is returned for more than MaxPairs pairs.
var ErrTooManyPairs = errors.New("standardize: too many distinct pairs")

func (o DependencyOptions) withDefaults() DependencyOptions {
	if !(o.MinShare > 0 && o.MinShare <= 1) {
		o.MinShare = DefaultMinShare
	}
	if o.MinRows <= 0 {
		o.MinRows = DefaultMinRows
	}
	if o.MaxPairs <= 0 {
		o.MaxPairs = DefaultMaxPairs
	}
	if !(o.MinLambda > 0 && o.MinLambda <= 1) {
		o.MinLambda = DefaultMinLambda
	}
	return o
}

// Dependency scores whether A determines B, with the default options (see
// DependencyOptions.Dependency).
func Dependency(pairs []PairCount) (strength float64, ok bool) {
	return DependencyOptions{}.Dependency(pairs)
}

// DependencyFixes proposes fixes with the default options (see
// DependencyOptions.Fixes).
func DependencyFixes(pairs []PairCount) ([]DependencyFix, error) {
	return DependencyOptions{}.Fixes(pairs)
}

// Dependency scores whether A determines B. strength is the share of the
// supported determinants' rows (determinants with at least MinRows rows)
// that hold their determinant's dominant dependent: 1 − g3, the share of
// rows that need no change for the dependency to hold exactly. ok is true
// when strength is at least MinShare, the supported rows are at least
// half of all rows, at least two determinants are supported and λ is at
// least MinLambda. More than MaxPairs pairs give (0, false).
func (o DependencyOptions) Dependency(pairs []PairCount) (strength float64, ok bool) {
	a, err := o.withDefaults().analyse(pairs)
	if err != nil {
		return 0, false
	}
	return a.strength, a.ok
}

// Fixes proposes, when A determines B (Dependency's ok), to rewrite the
// rows that break the dependency to their determinant's dominant
// dependent — only in determinants with at least MinRows rows of which at
// least MinShare hold the dominant value, so that a determinant whose rows
// are split (a zip code spanning two towns) is left alone. The fixes are
// sorted by determinant, then From. The error is ErrTooManyPairs.
func (o DependencyOptions) Fixes(pairs []PairCount) ([]DependencyFix, error) {
	o = o.withDefaults()
	a, err := o.analyse(pairs)
	if err != nil || !a.ok {
		return nil, err
	}
	var fixes []DependencyFix
	for _, d := range a.dets {
		if d.total < o.MinRows || float64(d.dom.Count) < o.MinShare*float64(d.total) {
			continue
		}
		conf := min(max(wilsonLower(d.dom.Count, d.total), 0.01), 0.99)
		for _, p := range d.pairs {
			if p.B != d.dom.B {
				fixes = append(fixes, DependencyFix{Determinant: p.A, From: p.B, To: d.dom.B, Rows: p.Count, Confidence: conf})
			}
		}
	}
	return fixes, nil
}

// determinant is one determinant value's pairs, merged and sorted by
// dependent value, with its total and dominant pair.
type determinant struct {
	pairs []PairCount
	total int64
	dom   PairCount
}

type analysis struct {
	dets     []determinant
	strength float64
	ok       bool
}

func (o DependencyOptions) analyse(pairs []PairCount) (analysis, error) {
	if len(pairs) > o.MaxPairs {
		return analysis{}, fmt.Errorf("%w: %d, at most %d", ErrTooManyPairs, len(pairs), o.MaxPairs)
	}
	// Sort a copy by (A, B) and merge repeats: memory stays one copy of
	// the pairs, with no map per determinant.
	ps := make([]PairCount, 0, len(pairs))
	for _, p := range pairs {
		if p.Count > 0 {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(x, y PairCount) int {
		if d := strings.Compare(x.A, y.A); d != 0 {
			return d
		}
		return strings.Compare(x.B, y.B)
	})
	merged := ps[:0]
	for _, p := range ps {
		if n := len(merged); n > 0 && merged[n-1].A == p.A && merged[n-1].B == p.B {
			merged[n-1].Count = addCounts(merged[n-1].Count, p.Count)
			continue
		}
		merged = append(merged, p)
	}

	var a analysis
	var all, supported, follow int64
	depRows := make(map[string]int64) // dependent value → supported rows
	for i := 0; i < len(merged); {
		j := i
		d := determinant{}
		for j < len(merged) && merged[j].A == merged[i].A {
			p := merged[j]
			d.total = addCounts(d.total, p.Count)
			if p.Count > d.dom.Count { // ties keep the smaller B
				d.dom = p
			}
			j++
		}
		d.pairs = merged[i:j]
		a.dets = append(a.dets, d)
		all = addCounts(all, d.total)
		if d.total >= o.MinRows {
			supported = addCounts(supported, d.total)
			follow = addCounts(follow, d.dom.Count)
			for _, p := range d.pairs {
				depRows[p.B] = addCounts(depRows[p.B], p.Count)
			}
		}
		i = j
	}
	var modeRows int64
	for _, n := range depRows {
		modeRows = max(modeRows, n)
	}
	nSupported := 0
	for _, d := range a.dets {
		if d.total >= o.MinRows {
			nSupported++
		}
	}
	if supported == 0 {
		return a, nil
	}
	a.strength = float64(follow) / float64(supported)
	// λ = (errors guessing B's mode − errors guessing each A's dominant B)
	// / errors guessing B's mode; a constant B leaves nothing to explain.
	lambda := 0.0
	if supported > modeRows {
		lambda = float64(follow-modeRows) / float64(supported-modeRows)
	}
	a.ok = a.strength >= o.MinShare && lambda >= o.MinLambda && 2*supported >= all && nSupported >= 2
	return a, nil
}

// wilsonLower is the lower bound of the 95% Wilson score interval of the
// proportion k/n.
func wilsonLower(k, n int64) float64 {
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	return (p + z*z/(2*nf) - z*math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))) / (1 + z*z/nf)
}
