package standardize

import (
	"math/rand/v2"
	"testing"
)

// levOracle is the textbook recursive definition, memoised: the distance
// between the suffixes a[i:] and b[j:].
func levOracle(a, b []rune) int {
	memo := map[[2]int]int{}
	var d func(i, j int) int
	d = func(i, j int) int {
		if i == len(a) {
			return len(b) - j
		}
		if j == len(b) {
			return len(a) - i
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		v := d(i+1, j+1)
		if a[i] != b[j] {
			v = 1 + min(v, d(i+1, j), d(i, j+1))
		}
		memo[[2]int{i, j}] = v
		return v
	}
	return d(0, 0)
}

// randomString draws from a small alphabet, so that strings share much,
// with multi-byte runes (2, 3 and 4 bytes in UTF-8).
func randomString(r *rand.Rand, maxLen int) string {
	rs := make([]rune, r.IntN(maxLen+1))
	for i := range rs {
		rs[i] = manyBytes[r.IntN(len(manyBytes))]
	}
	return string(rs)
}

func TestLevenshteinOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 5000 {
		a, b := randomString(r, 9), randomString(r, 9)
		if r.IntN(3) == 0 { // a near pair
			b = mutate(r, a, 1+r.IntN(3), manyBytes)
		}
		ra, rb := []rune(a), []rune(b)
		want := levOracle(ra, rb)
		if got := Levenshtein(a, b); got != want {
			t.Fatalf("Levenshtein(%q, %q) = %d, want %d", a, b, got, want)
		}
		if got := Levenshtein(b, a); got != want {
			t.Fatalf("Levenshtein(%q, %q) = %d, want %d (symmetry)", b, a, got, want)
		}
		for k := 0; k <= 5; k++ {
			if got := boundedLevenshtein(ra, rb, k); got != min(want, k+1) {
				t.Fatalf("boundedLevenshtein(%q, %q, %d) = %d, want %d", a, b, k, got, min(want, k+1))
			}
		}
	}
}

// TestBoundedLevenshteinBytes checks the byte version, used for ASCII
// fingerprints, on longer strings with the band well inside them.
func TestBoundedLevenshteinBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for range 3000 {
		a := make([]byte, r.IntN(80))
		for i := range a {
			a[i] = "abc"[r.IntN(3)]
		}
		b := []byte(mutate(r, string(a), r.IntN(5), []rune("abc")))
		want := levenshtein([]rune(string(a)), []rune(string(b)))
		for k := 0; k <= 4; k++ {
			if got := boundedLevenshtein(a, b, k); got != min(want, k+1) {
				t.Fatalf("boundedLevenshtein(%q, %q, %d) = %d, want %d", a, b, k, got, min(want, k+1))
			}
		}
	}
}

var manyBytes = []rune{'a', 'b', 'c', 'é', '北', '😀'}

// mutate applies n random edits to s, inserting runes of alphabet.
func mutate(r *rand.Rand, s string, n int, alphabet []rune) string {
	rs := []rune(s)
	for range n {
		i := r.IntN(len(rs) + 1)
		switch op := r.IntN(3); {
		case op == 0 || len(rs) == 0 || i == len(rs):
			rs = append(rs[:i], append([]rune{alphabet[r.IntN(len(alphabet))]}, rs[i:]...)...)
		case op == 1:
			rs = append(rs[:i], rs[i+1:]...)
		default:
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
	}
	return string(rs)
}
