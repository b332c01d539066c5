package profile

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// oracleTails: count every number, sort the distinct ones, keep the
// TailSize at each end.
func oracleTails(xs []float64) Tails {
	counts := map[float64]int64{}
	for _, x := range xs {
		counts[x]++
	}
	var distinct []float64
	for x := range counts {
		distinct = append(distinct, x)
	}
	slices.Sort(distinct)
	var t Tails
	for i := 0; i < len(distinct) && i < TailSize; i++ {
		t.Low = append(t.Low, TailValue{distinct[i], counts[distinct[i]]})
		x := distinct[len(distinct)-1-i]
		t.High = append(t.High, TailValue{x, counts[x]})
	}
	return t
}

func TestTailsAgreeWithTheOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 5, 31, 32, 33, 1000, 20_000} {
		for _, gen := range []func() float64{
			func() float64 { return float64(rng.IntN(50)) },    // few distinct, repeated
			func() float64 { return rng.NormFloat64() * 1000 }, // all distinct
			func() float64 { return float64(rng.IntN(1000) - 500) },
		} {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = gen()
			}
			want := oracleTails(xs)
			var one, a, b tails
			for i, x := range xs {
				one.add(x, 1)
				if i%3 == 0 {
					a.add(x, 1)
				} else {
					b.add(x, 1)
				}
			}
			a.merge(&b)
			for name, got := range map[string]*tails{"one by one": &one, "merged": &a} {
				if !reflect.DeepEqual(Tails{Low: got.low, High: got.high}, want) {
					t.Fatalf("n=%d %s: low %v high %v\nwant %v %v", n, name, got.low, got.high, want.Low, want.High)
				}
			}
		}
	}
}

// Weighted adds, as the fold makes them, give the tails of the values one
// by one.
func TestTailsWeighted(t *testing.T) {
	var byOne, weighted tails
	for x := range 100 {
		for range x%4 + 1 {
			byOne.add(float64(x), 1)
		}
		weighted.add(float64(x), int64(x%4+1))
	}
	if !reflect.DeepEqual(byOne, weighted) {
		t.Errorf("weighted %v / one by one %v", weighted, byOne)
	}
}
