package standardize

import "slices"

// Levenshtein is the edit distance between a and b counted in runes:
// the fewest insertions, deletions and substitutions of one rune that turn
// a into b.
func Levenshtein(a, b string) int {
	return levenshtein([]rune(a), []rune(b))
}

// levenshtein is the classic two-row dynamic programme, O(|a|·|b|).
func levenshtein(a, b []rune) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	row := make([]int, len(b)+1)
	for j := range row {
		row[j] = j
	}
	for i := 1; i <= len(a); i++ {
		diag := row[0] // D[i-1][j-1]
		row[0] = i
		for j := 1; j <= len(b); j++ {
			up := row[j] // D[i-1][j]
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			row[j] = min(up+1, row[j-1]+1, diag+cost)
			diag = up
		}
	}
	return row[len(b)]
}

// boundedLevenshtein is min(levenshtein(a, b), k+1), computed on the
// diagonal band |i−j| ≤ k only: O(k·|a|) and no allocation for k ≤ 7.
// Cells outside the band can only hold distances above k, so leaving them
// at k+1 changes no answer up to k. It stops as soon as a whole row of the
// band exceeds k.
func boundedLevenshtein[T byte | rune](a, b []T, k int) int {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > k {
		return k + 1
	}
	if k == 0 {
		if slices.Equal(a, b) {
			return 0
		}
		return 1
	}
	// Strip the common prefix and suffix: they cost nothing and make most
	// verified pairs (a typo in a long name) short.
	for len(b) > 0 && a[0] == b[0] {
		a, b = a[1:], b[1:]
	}
	for len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b = a[:len(a)-1], b[:len(b)-1]
	}
	if len(b) == 0 {
		return min(len(a), k+1)
	}
	// row[j] holds D[i][j] for j in [i−k, i+k]; index j directly into a
	// row of len(b)+1 cells.
	var buf [64]int
	var row []int
	if len(b)+1 <= len(buf) {
		row = buf[:len(b)+1]
	} else {
		row = make([]int, len(b)+1)
	}
	big := k + 1
	for j := range row {
		row[j] = min(j, big)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		var diag int // D[i-1][lo-1]
		if lo == 1 {
			diag = row[0]
			row[0] = min(i, big)
		} else {
			diag = row[lo-1]
			row[lo-1] = big // left of the band
		}
		best := row[lo-1]
		for j := lo; j <= hi; j++ {
			up := row[j]
			if j > i-1+k { // D[i-1][j] lay outside the previous band
				up = big
			}
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(up+1, row[j-1]+1, diag+cost, big)
			diag = up
			row[j] = v
			best = min(best, v)
		}
		if best > k {
			return big
		}
	}
	return min(row[len(b)], big)
}
