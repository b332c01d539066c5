package figures

import (
	"fmt"
	"math"
	"reflect"
	"sort"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
)

// compareColumn tallies every figure of got against the oracle's.
func compareColumn(tl *tally, file string, got profile.Column, want oracleColumn) {
	check := func(figure string, ok bool, g, w any) {
		tl.record(figure, ok, func() string {
			return fmt.Sprintf("%s, column %q: %s = %v, want %v", file, got.Name, figure, g, w)
		})
	}
	eq := func(figure string, g, w any) { check(figure, reflect.DeepEqual(g, w), g, w) }
	eq("name", got.Name, want.Name)
	eq("count", got.Count, want.Count)
	eq("nulls", got.Nulls, want.Nulls)
	eq("empty", got.Empty, want.Empty)
	eq("min length", got.MinLength, want.MinLength)
	eq("max length", got.MaxLength, want.MaxLength)
	eq("mean length", got.MeanLength, want.MeanLength)
	eq("distinct exact", got.DistinctExact, want.DistinctExact)
	if want.DistinctExact {
		eq("distinct", got.Distinct, want.Distinct)
	}
	if want.exactTop {
		eq("top values", got.TopValues, want.TopValues)
	}
	eq("inferred type", got.InferredType, want.InferredType)
	eq("type conformance", got.TypeConformance, want.TypeConformance)
	eq("min", deref(got.Min), deref(want.Min))
	eq("max", deref(got.Max), deref(want.Max))
	eq("notation", got.Notation, want.Notation)
	if want.formatExact {
		eq("format", got.Format, want.Format)
		eq("format conformance", got.FormatConformance, want.FormatConformance)
	}
	close := func(figure string, g, w *float64) {
		if g == nil || w == nil {
			check(figure, g == nil && w == nil, deref(g), deref(w))
			return
		}
		// The engine adds in one pass (Welford); the oracle exactly.
		check(figure, math.Abs(*g-*w) <= 1e-9*math.Max(1, math.Abs(*w)) || (math.IsInf(*w, 0) && *g == *w), *g, *w)
	}
	close("mean", got.Mean, want.Mean)
	close("standard deviation", got.StdDev, want.StdDev)
	compareQuantiles(tl, file, got, want)
	compareOutliers(tl, file, got, want)
	compareIssues(tl, file, got, want)
}

// compareIssues: the issues the engine raises on the column (without a
// classification, so validity goes by type and shape) are those the
// README's rules give on the oracle's figures, with their counts: missing
// values, a constant column, type mismatches and an invalid format, each
// where its figures are exact.
func compareIssues(tl *tally, file string, got profile.Column, want oracleColumn) {
	r := quality.Assess(&profile.Profile{RowCount: got.Count, Columns: []profile.Column{got}}, nil)
	gotCount := map[string]int64{}
	for _, is := range r.Issues {
		gotCount[is.Kind] = is.Count
	}
	wantCount := map[string]int64{}
	missing := want.Nulls + want.Empty
	if want.Count > 0 && float64(missing) > 0.05*float64(want.Count) {
		wantCount[quality.KindMissingValues] = missing
	}
	nonEmpty := want.Count - missing
	typed := want.InferredType != profile.TypeString && want.InferredType != profile.TypeEmpty
	numeric := want.InferredType == profile.TypeInteger || want.InferredType == profile.TypeFloat
	if off := 1 - want.TypeConformance; typed && off > 0 && off < 0.05 {
		wantCount[quality.KindTypeMismatch] = max(1, int64(math.Round(off*float64(nonEmpty))))
	}
	if fc := want.FormatConformance; nonEmpty > 0 && want.Format != "" && fc < 0.95 && !numeric && (typed || fc >= 0.5) {
		wantCount[quality.KindInvalidFormat] = max(1, int64(math.Round((1-fc)*float64(nonEmpty))))
	}
	if want.Distinct == 1 && want.Count > 1 {
		wantCount[quality.KindConstantColumn] = want.Count - want.Nulls
	}
	for _, kind := range []string{quality.KindMissingValues, quality.KindTypeMismatch, quality.KindInvalidFormat, quality.KindConstantColumn} {
		exact := want.DistinctExact || kind == quality.KindMissingValues || kind == quality.KindTypeMismatch
		if kind == quality.KindInvalidFormat {
			exact = want.formatExact
		}
		if !exact {
			continue
		}
		tl.record("issue: "+kind, gotCount[kind] == wantCount[kind], func() string {
			return fmt.Sprintf("%s, column %q: %s count %d, want %d", file, got.Name, kind, gotCount[kind], wantCount[kind])
		})
	}
}

// compareOutliers: a numeric column's tails are its most extreme numbers,
// exactly, and the outlier issue counts exactly the numbers beyond the
// rule's bounds whenever it says its count is exact.
func compareOutliers(tl *tally, file string, got profile.Column, want oracleColumn) {
	xs := want.numbers
	if len(want.Quantiles) == 0 {
		return
	}
	var low, high []profile.TailValue
	for i := 0; i < len(xs); i++ { // ascending: runs of equal numbers
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[i] {
			j++
		}
		if len(low) < profile.TailSize {
			low = append(low, profile.TailValue{X: xs[i], Count: int64(j - i + 1)})
		}
		high = append([]profile.TailValue{{X: xs[i], Count: int64(j - i + 1)}}, high...)
		i = j
	}
	high = high[:min(len(high), profile.TailSize)]
	tl.record("tails", got.Tails != nil && reflect.DeepEqual(got.Tails.Low, low) && reflect.DeepEqual(got.Tails.High, high), func() string {
		return fmt.Sprintf("%s, column %q: tails %+v, want low %v high %v", file, got.Name, got.Tails, low, high)
	})
	if !got.DistinctExact {
		return
	}
	q := want.Quantiles
	iqr := q["p75"] - q["p25"]
	var beyond int64
	if iqr > 0 {
		for _, x := range xs {
			if x < q["p01"]-3*iqr || x > q["p99"]+3*iqr {
				beyond++
			}
		}
	}
	var count int64
	estimated := false
	r := quality.Assess(&profile.Profile{RowCount: got.Count, Columns: []profile.Column{got}}, nil)
	for _, is := range r.Issues {
		if is.Kind == quality.KindOutliers {
			count, estimated = is.Count, is.Estimated
		}
	}
	if !estimated {
		tl.record("outlier count", count == beyond, func() string {
			return fmt.Sprintf("%s, column %q: %d outliers, want %d", file, got.Name, count, beyond)
		})
	}
}

// compareQuantiles: exact quantiles while the column is exact; past it,
// within the sketch's 0.5% of rank of the truth.
func compareQuantiles(tl *tally, file string, got profile.Column, want oracleColumn) {
	mismatch := func() string {
		return fmt.Sprintf("%s, column %q: quantiles %v, want %v", file, got.Name, got.Quantiles, want.Quantiles)
	}
	if len(got.Quantiles) != len(want.Quantiles) {
		tl.record("quantiles (exact)", false, mismatch)
		return
	}
	if len(want.Quantiles) == 0 {
		return
	}
	if got.DistinctExact {
		ok := reflect.DeepEqual(got.Quantiles, want.Quantiles) && deref(got.Median) == deref(want.Median)
		for range got.Quantiles {
			tl.record("quantiles (exact)", ok, mismatch)
		}
		return
	}
	// Past the exact phase: a value of the column, whose ranks come
	// within 0.5% of the quantile's.
	xs := want.numbers
	for name, q := range oracleQuantileNames {
		g := got.Quantiles[name]
		r := oracleRank(q, len(xs))
		below := sort.SearchFloat64s(xs, g)
		upTo := sort.Search(len(xs), func(i int) bool { return xs[i] > g })
		slack := int(0.005 * float64(len(xs)))
		tl.record("quantiles (sketch, 0.5% of rank)", upTo > below && r >= below+1-slack && r <= upTo+slack, func() string {
			return fmt.Sprintf("%s, column %q: %s = %v, ranks %d to %d, want about %d of %d", file, got.Name, name, g, below+1, upTo, r, len(xs))
		})
	}
}

func deref[T any](p *T) string {
	if p == nil {
		return "<none>"
	}
	return fmt.Sprint(*p)
}
