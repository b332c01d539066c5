package dialects

import "hash/fnv"

// rng is SplitMix64: tiny, and its output is fixed forever, so the corpus
// does not change when the standard library's generators do.
type rng struct{ state uint64 }

// newRNG derives an independent stream per case name, so adding or
// reordering cases leaves the other files unchanged.
func newRNG(seed uint64, name string) *rng {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &rng{state: seed ^ h.Sum64()}
}

func (r *rng) next() uint64 {
	r.state += 0x9E3779B97F4A7C15
	z := r.state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// intn returns a value in [0, n).
func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// between returns a value in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// chance is true with probability percent/100.
func (r *rng) chance(percent int) bool { return r.intn(100) < percent }

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// weighted returns the index of the weight hit by a draw.
func (r *rng) weighted(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	n := r.intn(total)
	for i, w := range weights {
		if n < w {
			return i
		}
		n -= w
	}
	return len(weights) - 1
}
