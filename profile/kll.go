package profile

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// kll is the KLL quantile sketch (Karnin, Lang and Liberty, "Optimal
// Quantile Approximation in Streams", 2016) with lazy compaction, as
// Apache DataSketches implements it: its answers have a bounded error in
// *rank* (the share of values below the answer), whatever the values'
// scale, and are always values of the stream, so never outside its
// minimum and maximum. A DDSketch, used before, bounds the *relative*
// error of the value instead: 1% of 2021 is 20 years, which made every
// quantile of a 2020–2022 column 2029.39.
//
// Level h holds items of weight 2^h. A level that passes its capacity is
// sorted and compacted: every other item, from a random first one, moves
// up a level, doubling its weight. Capacities shrink geometrically from the
// top level down (by 2/3), so the sketch holds about 3k items. With k = 600
// the rank error stays under 0.5% (TestKLLRankError measures it on many
// streams; the theory gives about 1.7/k^0.9 with high probability).
//
// The coin of each compaction comes from a seeded generator: the same
// stream gives the same sketch. Sketches of parts of a stream merge into a
// sketch of the whole with the same guarantee.
//
// Items are kept as order-preserving integer keys of the numbers (kllKey):
// sorting integers takes about half the time of sorting floats, and
// sorting is most of a sketch's work. Levels above the bottom are kept
// sorted, so that compacting them and taking items up merges sorted runs
// instead of sorting again.
type kll struct {
	k        int
	levels   [][]uint64 // levels[h]: items of weight 2^h
	caps     []int      // capacity of each level
	n        int64      // weight of every item added
	size     int        // items held
	capTotal int        // the levels' capacities, summed
	rng      uint64     // xorshift state for the compaction coins
	scratch  []uint64   // the items a compaction moves up
}

// kllKey maps a float to an integer of the same order (NaN aside, which
// no number of a column is), and kllValue back.
func kllKey(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func kllValue(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// kllMinCapacity is the smallest capacity of a level.
const kllMinCapacity = 8

// kllK is the sketch size the profiler uses (see kll).
const kllK = 600

// kllBottom is the smallest capacity of level 0 (see addLevel).
const kllBottom = 256

func newKLL(k int, seed uint64) *kll {
	s := &kll{k: k, rng: seed | 1}
	s.addLevel()
	return s
}

// addLevel adds a level on top, which lowers the capacity of the others:
// level h of H holds k·(2/3)^(H-h-1) items, at least kllMinCapacity, and
// level 0 at least kllBottom. A larger bottom level only makes the sketch
// more accurate (its items weigh least), and it is where every value goes
// first: compacted from 8 items at a time, each value took about 60 ns,
// most of it in sorting small slices; from 256 at a time, a third of that.
func (s *kll) addLevel() {
	s.levels = append(s.levels, nil)
	s.caps = append(s.caps, 0)
	s.capTotal = 0
	for h := range s.levels {
		depth := len(s.levels) - h - 1
		s.caps[h] = max(kllMinCapacity, int(math.Ceil(float64(s.k)*math.Pow(2.0/3.0, float64(depth)))))
		if h == 0 {
			s.caps[h] = max(s.caps[h], kllBottom)
		}
		s.capTotal += s.caps[h]
	}
}

func (s *kll) items() int { return s.size }

// add adds w occurrences of x: one item at level h for each bit h set in
// w, which weighs as w items of level 0.
func (s *kll) add(x float64, w int64) {
	if w <= 0 {
		return
	}
	s.n += w
	key := kllKey(x)
	if w == 1 {
		s.levels[0] = append(s.levels[0], key)
		s.size++
	} else {
		for h := 0; w != 0; h++ {
			if w&1 != 0 {
				for len(s.levels) <= h {
					s.addLevel()
				}
				s.insert(h, key)
				s.size++
			}
			w >>= 1
		}
	}
	if s.size > s.capTotal {
		s.compress()
	}
}

// compress compacts the lowest level past its capacity until the sketch
// fits its total capacity.
func (s *kll) compress() {
	for s.size > s.capTotal {
		for h := range s.levels {
			if len(s.levels[h]) >= s.caps[h] {
				s.compact(h)
				break
			}
		}
	}
}

// compact moves every other item of level h (sorted), from a random first
// one, up a level; an odd item out stays.
func (s *kll) compact(h int) {
	if h+1 == len(s.levels) {
		s.addLevel()
	}
	l := s.levels[h]
	if h == 0 {
		slices.Sort(l) // the levels above are kept sorted
	}
	keep := l[:0:0]
	if len(l)%2 == 1 {
		keep = append(keep, l[0])
		l = l[1:]
	}
	s.rng ^= s.rng << 13
	s.rng ^= s.rng >> 7
	s.rng ^= s.rng << 17
	up := s.scratch[:0]
	for i := int(s.rng >> 63); i < len(l); i += 2 {
		up = append(up, l[i])
	}
	s.scratch = up
	s.size -= len(s.levels[h]) - len(keep) - len(up)
	s.levels[h] = append(s.levels[h][:0], keep...)
	s.levels[h+1] = mergeSorted(s.levels[h+1], up)
}

// mergeSorted returns the sorted a with the sorted b merged in, in a's
// memory when it has room.
func mergeSorted(a, b []uint64) []uint64 {
	n := len(a)
	a = slices.Grow(a, len(b))[:n+len(b)]
	// From the back, so that a's items are moved before they are
	// overwritten.
	i, j := n-1, len(b)-1
	for k := len(a) - 1; j >= 0; k-- {
		if i >= 0 && a[i] > b[j] {
			a[k] = a[i]
			i--
		} else {
			a[k] = b[j]
			j--
		}
	}
	return a
}

// insert puts key into level h (h >= 1), which stays sorted.
func (s *kll) insert(h int, key uint64) {
	if h == 0 {
		s.levels[0] = append(s.levels[0], key)
		return
	}
	i, _ := slices.BinarySearch(s.levels[h], key)
	s.levels[h] = slices.Insert(s.levels[h], i, key)
}

// merge adds o's items to s.
func (s *kll) merge(o *kll) {
	for len(s.levels) < len(o.levels) {
		s.addLevel()
	}
	for h, l := range o.levels {
		if h == 0 {
			s.levels[0] = append(s.levels[0], l...)
		} else {
			s.levels[h] = mergeSorted(s.levels[h], l)
		}
		s.size += len(l)
	}
	s.n += o.n
	s.compress()
}

func (s *kll) empty() bool { return s.n == 0 }

// quantiles returns, for each q of qs (ascending, in [0, 1]), the item at
// the lower q-quantile of the weighted items: the smallest x with a weight
// of items <= x of at least max(1, ceil(q·n)).
func (s *kll) quantiles(qs []float64) []float64 {
	type item struct {
		x uint64
		w int64
	}
	var all []item
	for h, l := range s.levels {
		for _, x := range l {
			all = append(all, item{x, int64(1) << h})
		}
	}
	slices.SortFunc(all, func(a, b item) int { return cmp.Compare(a.x, b.x) })
	out := make([]float64, len(qs))
	var cum int64
	j := 0
	for i, q := range qs {
		target := lowerRank(q, s.n)
		for j < len(all) && cum+all[j].w < target {
			cum += all[j].w
			j++
		}
		out[i] = kllValue(all[min(j, len(all)-1)].x)
	}
	return out
}

// lowerRank is the rank, from 1, of the lower q-quantile of n values:
// max(1, ceil(q·n)), computed without float error for the q the profiler
// reports (hundredths).
func lowerRank(q float64, n int64) int64 {
	pct := int64(math.Round(q * 100))
	hi, lo := bits.Mul64(uint64(n), uint64(pct))
	r := int64(lo / 100)
	if hi != 0 || r < 0 {
		return int64(math.Ceil(q * float64(n)))
	}
	if lo%100 != 0 {
		r++
	}
	return max(1, r)
}

// kllWorstBytes bounds what a sketch of size k takes: at most its total
// capacity of items (under 3k) in slices that may have doubled, and its
// level headers.
func kllWorstBytes(k int) int { return 2*8*3*k + 8*k + 64*48 }
