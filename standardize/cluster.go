package standardize

import "unicode/utf8"

// Cluster links the values of one column that spell the same thing and
// proposes mapping each rare variant to its cluster's dominant spelling
// (the package doc has the methods, guards and confidence). values are the
// column's distinct values with their counts; a value given twice has its
// counts added, and values with no letter or digit ("", "-", "  ") or a
// count below 1 are left out (they are nulls, not spellings). The mappings
// are sorted by canonical count (descending), canonical, variant count
// (descending) and variant.
func Cluster(values []ValueCount, opt Options) ([]Mapping, Stats) {
	c := &clusterer{opt: opt.withDefaults()}
	c.key(values)
	if !c.opt.SkipNeighbour {
		var pairs []neighbourPair
		if c.opt.bruteForce {
			pairs = bruteNeighbours(&c.set, &c.st)
		} else {
			pairs = findNeighbours(&c.set, c.opt.MaxBlock, &c.st)
		}
		c.st.Neighbours = len(pairs)
		for _, p := range pairs {
			c.uf.union(p.a, p.b)
		}
		c.adjacency(pairs)
	}
	ms := c.assign()
	c.st.Mappings = len(ms)
	return ms, c.st
}

// clusterer holds one Cluster run. Values are indexed as in vals; groups
// are the distinct (fingerprint, digit sequence) keys, which are also the
// nodes of the union-find and of the nearest-neighbour graph.
type clusterer struct {
	opt Options
	st  Stats

	vals   []ValueCount
	vgroup []int32 // value → group
	vngram []int32 // value → n-gram key, -1 when SkipNGram

	set     fpSet // group → fingerprint runes and digit sequence
	ngramN  int
	uf      unionFind
	adjOff  []int32 // group → its neighbours adj[adjOff[g]:adjOff[g+1]]
	adj     []neighbourPair
	keyer   keyer // for distances; reused
	scratch [2][]rune
}

// key computes each value's keys, groups values by fingerprint and links
// the groups that share an n-gram key. Every key is prefixed by the
// value's digit sequence and 0xFF (a byte UTF-8 never holds), so that
// values with different digits never share one.
func (c *clusterer) key(values []ValueCount) {
	k := keyer{n: c.opt.NGramSize}
	size := 0
	for _, v := range values {
		size += len(v.Value) + 1
	}
	// Room for most keys: a fingerprint is at most about as long as its
	// value, its n-gram key twice as long for n = 2.
	groups := newArena(len(values), size+size/4)
	var ngrams *arena
	if !c.opt.SkipNGram {
		ngrams = newArena(len(values), 2*size+size/4)
	}
	fpStart := make([]int, 0, len(values)) // where the fingerprint starts in its group key
	c.vals = make([]ValueCount, 0, len(values))
	for _, v := range values {
		if v.Count < 1 {
			continue
		}
		k.run(v.Value)
		if len(k.compact) == 0 {
			continue
		}
		groups.b = append(append(groups.b, k.digits...), 0xFF)
		fpStart = append(fpStart, len(groups.b))
		groups.b = append(groups.b, k.fingerprint()...)
		groups.end()
		if ngrams != nil {
			ngrams.b = k.ngramKey(append(append(ngrams.b, k.digits...), 0xFF))
			ngrams.end()
		}
		c.vals = append(c.vals, v)
	}
	var nGroups int
	c.vgroup, nGroups = denseIDs(groups)
	// Each group's fingerprint and digit sequence, from its first value's
	// key: digits, 0xFF, fingerprint.
	first := make([]int32, 0, nGroups)
	digits := newArena(nGroups, 0)
	for v, g := range c.vgroup {
		if int(g) == len(first) {
			first = append(first, int32(v))
			digits.b = append(digits.b, groups.b[groups.off[v]:fpStart[v]-1]...)
			digits.end()
		}
	}
	dids, _ := denseIDs(digits)
	// Number the groups by fingerprint length (stably), the order
	// findNeighbours works in.
	rank := byRuneLen(groups, fpStart, first)
	order := make([]int32, nGroups)
	for g, r := range rank {
		order[r] = int32(g)
	}
	for v, g := range c.vgroup {
		c.vgroup[v] = rank[g]
	}
	c.set.grow(nGroups, len(groups.b))
	for _, g := range order {
		v := first[g]
		c.uf.add()
		c.set.add(groups.b[fpStart[v]:groups.off[v+1]], dids[g])
	}
	c.vngram = filled(len(c.vals), -1)
	if ngrams != nil {
		c.vngram, c.ngramN = denseIDs(ngrams)
		first := filled(c.ngramN, -1) // n-gram key → first group holding it
		for v, n := range c.vngram {
			if g := c.vgroup[v]; first[n] < 0 {
				first[n] = g
			} else {
				c.uf.union(g, first[n])
			}
		}
	}
	c.st.Values = len(c.vals)
	c.st.Fingerprints = c.set.len()
}

// byRuneLen ranks groups by the rune length of their fingerprint, stably:
// first[g] is group g's first value, whose fingerprint is
// groups.b[fpStart[v]:groups.off[v+1]].
func byRuneLen(groups *arena, fpStart []int, first []int32) []int32 {
	lens := make([]int32, len(first))
	maxLen := int32(0)
	for g, v := range first {
		lens[g] = int32(utf8.RuneCount(groups.b[fpStart[v]:groups.off[v+1]]))
		maxLen = max(maxLen, lens[g])
	}
	next := make([]int32, maxLen+2)
	for _, l := range lens {
		next[l+1]++
	}
	for l := 1; l < len(next); l++ {
		next[l] += next[l-1]
	}
	rank := make([]int32, len(first))
	for g, l := range lens {
		rank[g] = next[l]
		next[l]++
	}
	return rank
}

// adjacency indexes the nearest-neighbour pairs by group, both ways.
func (c *clusterer) adjacency(pairs []neighbourPair) {
	n := c.set.len()
	c.adjOff = make([]int32, n+2)
	for _, p := range pairs {
		c.adjOff[p.a+2]++
		c.adjOff[p.b+2]++
	}
	for i := 2; i < len(c.adjOff); i++ {
		c.adjOff[i] += c.adjOff[i-1]
	}
	c.adj = make([]neighbourPair, 2*len(pairs))
	for _, p := range pairs { // adjOff[g+1] is the next free slot of g
		c.adj[c.adjOff[p.a+1]] = neighbourPair{p.a, p.b, p.d}
		c.adjOff[p.a+1]++
		c.adj[c.adjOff[p.b+1]] = neighbourPair{p.b, p.a, p.d}
		c.adjOff[p.b+1]++
	}
	c.adjOff = c.adjOff[:n+1]
}

// neighbours are the nearest-neighbour pairs of group g, as (g, other, d).
func (c *clusterer) neighbours(g int32) []neighbourPair {
	if c.adjOff == nil {
		return nil
	}
	return c.adj[c.adjOff[g]:c.adjOff[g+1]]
}
