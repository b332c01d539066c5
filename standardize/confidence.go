package standardize

import "math"

// confidence is the package doc's formula: F(r)·S with
// F(r) = ln r/(1+ln r) for the frequency ratio r = canonical/variant and
// S = 1 − d/L for the distance d between fingerprints of at most L runes,
// clipped to [0.01, 0.99] so that it stays inside (0,1).
func confidence(canonical, variant int64, d, l int) float64 {
	r := float64(canonical) / float64(variant)
	f := 0.0
	if r > 1 {
		x := math.Log(r)
		f = x / (1 + x)
	}
	s := 1.0
	if d > 0 {
		s = 1 - float64(d)/float64(max(l, 1))
	}
	return min(max(f*s, 0.01), 0.99)
}

// radius is the nearest-neighbour radius for a pair whose shorter
// fingerprint has n runes (the package doc explains the thresholds).
func radius(n int) int {
	switch {
	case n < ShortLen:
		return 0
	case n < LongLen:
		return 1
	default:
		return 2
	}
}
