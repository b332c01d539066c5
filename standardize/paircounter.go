package standardize

// PairCounter counts (determinant, dependent) pairs from rows in bounded
// memory: at most maxPairs distinct pairs are kept; rows of further new
// pairs are counted as dropped, and a caller seeing Dropped() > 0 knows
// the counts are incomplete (a column pair with that many combinations is
// rarely a dependency worth fixing, or needs a larger bound).
type PairCounter struct {
	max     int
	idx     map[[2]string]int
	pairs   []PairCount
	dropped int64
}

// NewPairCounter counts at most maxPairs distinct pairs; maxPairs below 1
// means DefaultMaxPairs.
func NewPairCounter(maxPairs int) *PairCounter {
	if maxPairs < 1 {
		maxPairs = DefaultMaxPairs
	}
	return &PairCounter{max: maxPairs, idx: make(map[[2]string]int)}
}

// Add counts n rows holding a and b, and reports whether they were
// counted (false when the pair is new and the bound is reached). n below
// 1 counts nothing.
func (c *PairCounter) Add(a, b string, n int64) bool {
	if n < 1 {
		return true
	}
	k := [2]string{a, b}
	if i, ok := c.idx[k]; ok {
		c.pairs[i].Count = addCounts(c.pairs[i].Count, n)
		return true
	}
	if len(c.pairs) >= c.max {
		c.dropped = addCounts(c.dropped, n)
		return false
	}
	c.idx[k] = len(c.pairs)
	c.pairs = append(c.pairs, PairCount{a, b, n})
	return true
}

// Pairs are the pairs counted, in order of first sight. The slice is the
// counter's own.
func (c *PairCounter) Pairs() []PairCount { return c.pairs }

// Dropped is the number of rows not counted for lack of room.
func (c *PairCounter) Dropped() int64 { return c.dropped }
