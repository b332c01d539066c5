package profile

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// exactLower is the lower q-quantile of xs (sorted): the value of rank
// max(1, ceil(q·n)).
func exactLower(sorted []float64, q float64) float64 {
	return sorted[lowerRank(q, int64(len(sorted)))-1]
}

// rankError is how far, as a share of n, answer x is from rank r of
// sorted: 0 when some copy of x sits at rank r.
func rankError(sorted []float64, x float64, r int64) float64 {
	lo := int64(sort.SearchFloat64s(sorted, x))                                      // values < x
	hi := int64(sort.Search(len(sorted), func(i int) bool { return sorted[i] > x })) // values <= x
	switch {
	case r < lo+1:
		return float64(lo+1-r) / float64(len(sorted))
	case r > hi:
		return float64(r-hi) / float64(len(sorted))
	}
	return 0
}

var kllQuantiles = []float64{0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99, 1}

func kllStreams(n int, seed uint64) map[string][]float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	gen := func(f func(i int) float64) []float64 {
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = f(i)
		}
		return xs
	}
	return map[string][]float64{
		"uniform":    gen(func(int) float64 { return r.Float64() }),
		"ascending":  gen(func(i int) float64 { return float64(i) }),
		"descending": gen(func(i int) float64 { return float64(n - i) }),
		"years":      gen(func(int) float64 { return float64(2020 + r.IntN(3)) }),
		"constant":   gen(func(int) float64 { return 42 }),
		"normal":     gen(func(int) float64 { return r.NormFloat64() * 1e3 }),
		"lognormal":  gen(func(int) float64 { return math.Exp(r.NormFloat64() * 8) }),
		"zipf":       gen(func(int) float64 { return float64(int(1 / (r.Float64() + 1e-9))) }),
		"signed":     gen(func(i int) float64 { return float64(i%1000-500) * math.Pow(10, float64(i%7)) }),
	}
}

// The rank error of every answer stays under 0.5%, on streams of many
// shapes and sizes, added one by one, with weights, and merged from parts.
func TestKLLRankError(t *testing.T) {
	worst := 0.0
	for _, n := range []int{100, 5_000, 200_000, 1_000_000} {
		for name, xs := range kllStreams(n, uint64(n)) {
			sorted := slices.Sorted(slices.Values(xs))
			one := newKLL(kllK, 1)
			parts := []*kll{newKLL(kllK, 2), newKLL(kllK, 3), newKLL(kllK, 4)}
			for i, x := range xs {
				one.add(x, 1)
				parts[i%3].add(x, 1)
			}
			parts[0].merge(parts[1])
			parts[0].merge(parts[2])
			for variant, s := range map[string]*kll{"one by one": one, "merged": parts[0]} {
				if s.n != int64(n) {
					t.Fatalf("%s/%d %s: n = %d", name, n, variant, s.n)
				}
				got := s.quantiles(kllQuantiles)
				for i, q := range kllQuantiles {
					e := rankError(sorted, got[i], lowerRank(q, int64(n)))
					worst = max(worst, e)
					if e > 0.005 {
						t.Errorf("%s/%d %s: q%.2f = %v, %.3f%% of rank off", name, n, variant, q, got[i], 100*e)
					}
					if got[i] < sorted[0] || got[i] > sorted[n-1] {
						t.Errorf("%s/%d %s: q%.2f = %v outside [%v, %v]", name, n, variant, q, got[i], sorted[0], sorted[n-1])
					}
				}
			}
		}
	}
	t.Logf("worst rank error %.3f%%", 100*worst)
}

// Until its first compaction the sketch holds every item: its answers are
// the exact lower quantiles.
func TestKLLExactWhileSmall(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for n := 1; n <= kllK; n += 37 {
		s := newKLL(kllK, 1)
		var xs []float64
		for range n {
			x := float64(r.IntN(50))
			xs = append(xs, x)
			s.add(x, 1)
		}
		slices.Sort(xs)
		got := s.quantiles(kllQuantiles)
		for i, q := range kllQuantiles {
			if want := exactLower(xs, q); got[i] != want {
				t.Fatalf("n %d: q%.2f = %v, want %v", n, q, got[i], want)
			}
		}
	}
}

// A weighted add counts as that many adds of the value.
func TestKLLWeights(t *testing.T) {
	s := newKLL(kllK, 1)
	s.add(1, 1_000_003)
	s.add(2, 7)
	s.add(3, 2_000_000)
	if s.n != 3_000_010 {
		t.Fatalf("n = %d", s.n)
	}
	got := s.quantiles([]float64{0.01, 0.33, 0.34, 0.5, 0.99})
	want := []float64{1, 1, 3, 3, 3}
	if !slices.Equal(got, want) {
		t.Fatalf("quantiles %v, want %v", got, want)
	}
	if s.items() > 3*kllK {
		t.Fatalf("%d items for 3 values", s.items())
	}
}

// The same stream gives the same sketch: its coins are seeded.
func TestKLLDeterministic(t *testing.T) {
	a, b := newKLL(kllK, 5), newKLL(kllK, 5)
	for _, xs := range kllStreams(50_000, 1) {
		for _, x := range xs {
			a.add(x, 1)
			b.add(x, 1)
		}
	}
	if !slices.Equal(a.quantiles(kllQuantiles), b.quantiles(kllQuantiles)) {
		t.Fatal("two sketches of one stream differ")
	}
}

func TestLowerRank(t *testing.T) {
	for _, c := range []struct {
		q    float64
		n    int64
		want int64
	}{{0.5, 4, 2}, {0.5, 5, 3}, {0.01, 100, 1}, {0.01, 101, 2}, {0, 10, 1}, {1, 10, 10}, {0.99, 1, 1}, {0.25, 1 << 62, 1 << 60}} {
		if got := lowerRank(c.q, c.n); got != c.want {
			t.Errorf("lowerRank(%v, %d) = %d, want %d", c.q, c.n, got, c.want)
		}
	}
}

// BenchmarkKLLAdd measures adding a value (per value).
func BenchmarkKLLAdd(b *testing.B) {
	xs := kllStreams(1<<20, 1)["uniform"]
	s := newKLL(kllK, 1)
	i := 0
	for b.Loop() {
		s.add(xs[i&(1<<20-1)], 1)
		i++
	}
}

func TestKLLKeysKeepTheOrder(t *testing.T) {
	for _, f := range []float64{math.Inf(-1), -1e300, -2, -0.5, 0, 1e-300, 3, math.Inf(1)} {
		if kllValue(kllKey(f)) != f {
			t.Fatalf("%v does not round-trip", f)
		}
	}
	if !(kllKey(-2) < kllKey(-0.5) && kllKey(-0.5) < kllKey(0) && kllKey(0) < kllKey(1e-300) && kllKey(1e-300) < kllKey(3)) {
		t.Fatal("keys do not keep the order")
	}
}

// The smallest column sizes (very wide files) use a third of the sketch:
// its rank error stays under 1.5%.
func TestKLLSmallRankError(t *testing.T) {
	worst := 0.0
	for name, xs := range kllStreams(300_000, 7) {
		sorted := slices.Sorted(slices.Values(xs))
		s := newKLL(minimalSizes.kllK, 1)
		for _, x := range xs {
			s.add(x, 1)
		}
		got := s.quantiles(kllQuantiles)
		for i, q := range kllQuantiles {
			e := rankError(sorted, got[i], lowerRank(q, int64(len(xs))))
			worst = max(worst, e)
			if e > 0.015 {
				t.Errorf("%s: q%.2f %.3f%% of rank off", name, q, 100*e)
			}
		}
	}
	t.Logf("worst rank error %.3f%%", 100*worst)
}
