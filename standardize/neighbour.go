package standardize

// neighbourPair is two fingerprints within the radius, a < b, at edit
// distance d.
type neighbourPair struct {
	a, b int32
	d    int32
}

// segment is the start and length of segment i of a string of n runes cut
// into tau+1 segments as evenly as possible, the longer ones last (the
// partition PassJoin indexes).
func segment(n, tau, i int) (start, length int) {
	parts := tau + 1
	base, extra := n/parts, n%parts
	short := parts - extra // segments of length base, then base+1
	if i < short {
		return i * base, base
	}
	return short*base + (i-short)*(base+1), base + 1
}

// segHash identifies a block: segment i, with these runes, of fingerprints
// of n runes with this digit sequence. ASCII fingerprints pass bytes,
// which hash as the same runes would. A collision only adds a candidate
// that the edit distance then rejects.
func segHash[T byte | rune](digit int32, n, i int, seg []T) uint64 {
	h := uint64(digit)*0x9E3779B97F4A7C15 ^ uint64(n)<<8 ^ uint64(i)
	for _, r := range seg {
		h = (h ^ uint64(r)) * 0x100000001B3
	}
	// splitmix64's finaliser: the directory reads the top bits.
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	return h ^ h>>31
}

// appendSegments appends the τ+1 segments of fingerprint r (key, in bytes
// or runes) to entries.
func appendSegments[T byte | rune](entries []segEntry, key []T, r int32, digit int32, sig signature) []segEntry {
	l := len(key)
	tau := radius(l)
	if tau == 0 {
		return entries
	}
	for i := 0; i <= tau; i++ {
		p, sl := segment(l, tau, i)
		entries = append(entries, segEntry{segHash(digit, l, i, key[p:p+sl]), sig, r})
	}
	return entries
}

// appendProbes appends the lookups of fingerprint key (see findNeighbours)
// to probes.
func appendProbes[T byte | rune](probes []segProbe, key []T, digit int32) []segProbe {
	lt := len(key)
	for l := max(ShortLen, lt-maxRadius); l <= lt; l++ {
		tau, delta := radius(l), lt-l
		if delta > tau {
			continue
		}
		for i := 0; i <= tau; i++ {
			p, sl := segment(l, tau, i)
			lo := max(p-i, p+delta-(tau-i), 0)
			hi := min(p+i, p+delta+(tau-i), lt-sl)
			for q := lo; q <= hi; q++ {
				probes = append(probes, segProbe{h: segHash(digit, l, i, key[q:q+sl]), l: int32(l)})
			}
		}
	}
	return probes
}

// findNeighbours returns every pair of fingerprints at most radius(shorter
// length) apart, with equal digits, that shares a block of at most
// maxBlock fingerprints (PassJoin: see the package doc). Each pair once.
//
// A pair (s, t) with |s| ≤ |t| and τ = radius(|s|) is found when t is
// probed: s was cut into τ+1 segments, at most τ edits destroy at most τ of
// them, so one segment i survives in t, shifted by at most the edits on
// its left and landing Δ = |t|−|s| away from its place by at most the
// edits on its right. Choosing the i with at most i edits on its left and
// τ−i on its right (one always exists) bounds where t must be probed:
// start p with max(pᵢ−i, pᵢ+Δ−(τ−i)) ≤ p ≤ min(pᵢ+i, pᵢ+Δ+(τ−i)).
func findNeighbours(set *fpSet, maxBlock int, st *Stats) []neighbourPair {
	// Work on the fingerprints in order of length: a probe and its
	// candidates then lie close together in memory, as do the index
	// entries they touch. Cluster numbers them so; others are copied in
	// that order (a counting sort).
	n := set.len()
	maxLen, sorted := 0, true
	for id := range int32(n) {
		l := set.runeLen(id)
		sorted = sorted && l >= maxLen
		maxLen = max(maxLen, l)
	}
	rk, ids := set, []int32(nil) // ids: rank → id, nil when the same
	if !sorted {
		rk, ids = byLength(set, maxLen)
	}
	id := func(r int32) int32 {
		if ids == nil {
			return r
		}
		return ids[r]
	}

	// Index each fingerprint by its τ+1 segments; entries come out
	// grouped by length since the ranks are.
	byLen := make([]int32, maxLen+2)
	nEntries := 0
	for r := range int32(n) {
		if tau := radius(rk.runeLen(r)); tau > 0 {
			nEntries += tau + 1
		}
	}
	entries := make([]segEntry, 0, nEntries)
	var buf []rune
	for r := range int32(n) {
		if rk.ascii(r) {
			entries = appendSegments(entries, rk.bytes(r), r, rk.digit[r], rk.sig[r])
		} else {
			buf = rk.runes(r, buf[:0])
			entries = appendSegments(entries, buf, r, rk.digit[r], rk.sig[r])
		}
		byLen[rk.runeLen(r)+1] = int32(len(entries))
	}
	for l := 1; l < len(byLen); l++ {
		byLen[l] = max(byLen[l], byLen[l-1])
	}
	x := newSegIndex(entries, byLen)
	entries = nil
	st.SkippedBlocks += x.blocks(maxBlock)

	stamp := make([]int32, n) // stamp[s] == t+1: s already seen by probe t
	var pairs []neighbourPair
	probes := make([]segProbe, 0, maxProbes)
	var cands []int32
	var scratch [2][]rune
	for t := range int32(n) {
		dt, sigt := rk.digit[t], &rk.sig[t]
		if rk.ascii(t) {
			probes = appendProbes(probes[:0], rk.bytes(t), dt)
		} else {
			buf = rk.runes(t, buf[:0])
			probes = appendProbes(probes[:0], buf, dt)
		}
		// All the lookups of t first, then the candidates: the loads of
		// independent lookups overlap instead of waiting for each other.
		x.locate(probes)
		cands = cands[:0]
		for _, pr := range probes {
			if int(pr.hi-pr.lo) > maxBlock {
				continue
			}
			tau := radius(int(pr.l))
			for j := pr.lo; j < pr.hi; j++ {
				// Each pair once: from the longer, or the later of two of
				// a length (ranks follow length). A block is sorted by
				// rank, so the rest of it comes later than t.
				s := int32(uint32(x.keys[j]))
				if s >= t {
					break
				}
				// The runes present in one and not the other are a first
				// lower bound of the distance (see signature).
				if m := x.present[j]; popcount(m&^sigt.bag[0]) > tau || popcount(sigt.bag[0]&^m) > tau ||
					sigt.far(&x.sigs[j], tau) || stamp[s] == t+1 {
					continue
				}
				stamp[s] = t + 1
				cands = append(cands, s)
			}
		}
		for _, s := range cands {
			if rk.digit[s] != dt { // a hash collision
				continue
			}
			tau := radius(rk.runeLen(s))
			st.Comparisons++
			if d := rk.within(s, t, tau, &scratch); d <= tau {
				a, b := id(s), id(t)
				pairs = append(pairs, neighbourPair{min(a, b), max(a, b), int32(d)})
			}
		}
	}
	return pairs
}

// byLength copies set in order of fingerprint length, stably, and
// returns the copy and the original id of each fingerprint of the copy.
func byLength(set *fpSet, maxLen int) (*fpSet, []int32) {
	n := set.len()
	start := make([]int32, maxLen+2) // rank of the first fingerprint of each length
	for id := range int32(n) {
		start[set.runeLen(id)+1]++
	}
	for l := 1; l < len(start); l++ {
		start[l] += start[l-1]
	}
	ids := make([]int32, n)
	for id := range int32(n) {
		l := set.runeLen(id)
		ids[start[l]] = id
		start[l]++
	}
	var rk fpSet
	for _, id := range ids {
		rk.addFrom(set, id)
	}
	return &rk, ids
}

// maxProbes bounds the lookups of one fingerprint: 12 for radius 2 (5, 4
// and 3 for the lengths ℓ, ℓ−1 and ℓ−2), fewer around the thresholds.
const maxProbes = 16

// maxRadius is the largest radius, hence the largest length difference of
// a pair within it.
const maxRadius = 2

// bruteNeighbours is findNeighbours by comparing all pairs: the oracle of
// the tests and Options.bruteForce. Pairs whose lengths differ by more
// than the largest radius are skipped: no edit distance can be smaller
// than the length difference.
func bruteNeighbours(set *fpSet, st *Stats) []neighbourPair {
	n := int32(set.len())
	keys := make([][]rune, n)
	for i := range n {
		keys[i] = set.runes(i, nil)
	}
	var pairs []neighbourPair
	for a := range n {
		for b := a + 1; b < n; b++ {
			ra, rb := keys[a], keys[b]
			k := radius(min(len(ra), len(rb)))
			if k == 0 || set.digit[a] != set.digit[b] || max(len(ra), len(rb))-min(len(ra), len(rb)) > maxRadius {
				continue
			}
			st.Comparisons++
			if d := levenshtein(ra, rb); d <= k {
				pairs = append(pairs, neighbourPair{a, b, int32(d)})
			}
		}
	}
	return pairs
}
