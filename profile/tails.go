package profile

import "slices"

// tails keeps a numeric column's TailSize lowest and TailSize highest distinct
// numbers with their counts, exactly: what is far out in a column is
// there, so that outliers are counted rather than estimated from a sample
// they are usually missing from. Most numbers fall between the two tails
// and cost two comparisons.
type tails struct {
	low  []TailValue // ascending: the lowest numbers
	high []TailValue // descending: the highest numbers
}

// TailValue is a number of a tail and how often it occurs.
type TailValue struct {
	X     float64
	Count int64
}

// TailSize is how many distinct numbers each tail keeps.
const TailSize = 32

func (t *tails) add(x float64, w int64) {
	if len(t.low) < TailSize || x <= t.low[TailSize-1].X {
		t.low = addToTail(t.low, x, w, lower)
	}
	if len(t.high) < TailSize || x >= t.high[TailSize-1].X {
		t.high = addToTail(t.high, x, w, higher)
	}
}

func lower(a, b float64) bool  { return a < b }
func higher(a, b float64) bool { return a > b }

// addToTail adds w occurrences of x to tail, ordered by before (the most
// extreme first) and at most TailSize long.
func addToTail(tail []TailValue, x float64, w int64, before func(a, b float64) bool) []TailValue {
	i, found := slices.BinarySearchFunc(tail, x, func(e TailValue, x float64) int {
		switch {
		case before(e.X, x):
			return -1
		case before(x, e.X):
			return 1
		}
		return 0
	})
	if found {
		tail[i].Count += w
		return tail
	}
	if i == TailSize {
		return tail // less extreme than every number of a full tail
	}
	if len(tail) == TailSize {
		tail = tail[:TailSize-1] // the least extreme goes
	}
	return slices.Insert(tail, i, TailValue{X: x, Count: w})
}

func (t *tails) merge(o *tails) {
	for _, v := range o.low {
		t.low = addToTail(t.low, v.X, v.Count, lower)
	}
	for _, v := range o.high {
		t.high = addToTail(t.high, v.X, v.Count, higher)
	}
}

// Tails are a numeric column's most extreme numbers, each tail holding at
// most TailSize distinct ones with their exact counts: Low ascending from
// the minimum, High descending from the maximum. A tail shorter than
// TailSize holds every distinct number of the column; a full one, every
// number at least as extreme as its last.
type Tails struct {
	Low, High []TailValue
}
