package standardize

import (
	"reflect"
	"slices"
	"testing"
)

func sortedPairs(ps []neighbourPair) []neighbourPair {
	ps = slices.Clone(ps)
	slices.SortFunc(ps, func(x, y neighbourPair) int {
		if x.a != y.a {
			return int(x.a - y.a)
		}
		return int(x.b - y.b)
	})
	return ps
}

const noCap = 1 << 30

// TestNeighboursExhaustive compares the blocking with all pairs on every
// string of 4 to 10 letters over {a, b} (2,032 strings, the densest case
// there is: each shares segments with hundreds), half of them with a
// digit sequence of their own, and on strings over {a, é} (runes of one
// and two bytes). Without a block cap the two must find the same pairs
// at the same distances: this checks the multi-match-aware probe windows.
func TestNeighboursExhaustive(t *testing.T) {
	for _, alphabet := range []string{"ab", "aé"} {
		var set fpSet
		al := []rune(alphabet)
		for n := 4; n <= 10; n++ {
			for m := range 1 << n {
				rs := make([]rune, n)
				for i := range rs {
					rs[i] = al[m>>i&1]
				}
				set.add([]byte(string(rs)), int32(m%3/2)) // digit sequence 0 or 1
			}
		}
		var st Stats
		fast := sortedPairs(findNeighbours(&set, noCap, &st))
		brute := sortedPairs(bruteNeighbours(&set, &Stats{}))
		if len(brute) == 0 {
			t.Fatal("no pairs")
		}
		if !reflect.DeepEqual(fast, brute) {
			t.Fatalf("%s: blocking found %d pairs, all pairs %d", alphabet, len(fast), len(brute))
		}
		t.Logf("%s: %d strings, %d pairs, %d verified", alphabet, set.len(), len(brute), st.Comparisons)
	}
}

// oracleColumn is a small generated column, dense enough in typos for
// many nearest neighbours.
func oracleColumn(seed uint64) []ValueCount {
	return newGen(seed).column(2000, 300, 200)
}

// TestNeighboursOracle: on generated columns, the blocking without a cap
// finds exactly the pairs all-pairs finds; with a cap, a subset. The
// recall of the default cap (256) on the benchmark's million values is
// 92.5% of the pairs and 98.7% of the mappings (648,681 of 701,203 pairs,
// 264,562 of 268,061 mappings); here the blocks are small, so a tiny cap
// shows the subset at work.
func TestNeighboursOracle(t *testing.T) {
	t.Parallel()
	for seed := range uint64(3) {
		c := &clusterer{opt: Options{}.withDefaults()}
		c.key(oracleColumn(seed))
		brute := sortedPairs(bruteNeighbours(&c.set, &Stats{}))
		fast := sortedPairs(findNeighbours(&c.set, noCap, &Stats{}))
		if !reflect.DeepEqual(fast, brute) {
			t.Fatalf("seed %d: blocking found %d pairs, all pairs %d", seed, len(fast), len(brute))
		}
		inBrute := map[[2]int32]int32{}
		for _, p := range brute {
			inBrute[[2]int32{p.a, p.b}] = p.d
		}
		for _, maxBlock := range []int{2, 8, DefaultMaxBlock} {
			var st Stats
			capped := findNeighbours(&c.set, maxBlock, &st)
			for _, p := range capped {
				if d, ok := inBrute[[2]int32{p.a, p.b}]; !ok || d != p.d {
					t.Fatalf("seed %d cap %d: pair %v not found by all pairs", seed, maxBlock, p)
				}
			}
			t.Logf("seed %d, %d fingerprints, cap %d: %d of %d pairs (recall %.3f), %d blocks skipped",
				seed, c.set.len(), maxBlock, len(capped), len(brute), float64(len(capped))/float64(len(brute)), st.SkippedBlocks)
		}
	}
}

// TestClusterOracle: the whole clustering with the blocking (no cap) and
// with all pairs gives the same mappings.
func TestClusterOracle(t *testing.T) {
	t.Parallel()
	for seed := range uint64(3) {
		in := oracleColumn(seed)
		fast, _ := Cluster(in, Options{MaxBlock: noCap})
		brute, _ := Cluster(in, Options{bruteForce: true})
		if !reflect.DeepEqual(fast, brute) {
			t.Fatalf("seed %d: %d mappings with blocking, %d with all pairs", seed, len(fast), len(brute))
		}
		if len(fast) == 0 {
			t.Fatal("no mappings")
		}
		checkMappings(t, in, fast, DefaultMinRatio)
	}
}
