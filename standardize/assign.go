package standardize

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// assign turns clusters into mappings (the package doc, From clusters to
// mappings).
func (c *clusterer) assign() []Mapping {
	// Order the values of the clusters with more than one value by
	// cluster: a counting sort on the root, most values being alone.
	nGroups := c.set.len()
	root := make([]int32, len(c.vals))
	size := make([]int32, nGroups+1)
	for v, g := range c.vgroup {
		root[v] = c.uf.find(g)
		size[root[v]+1]++
	}
	off := make([]int32, nGroups+1)
	total := int32(0)
	for r := range int32(nGroups) {
		off[r] = total
		if size[r+1] > 1 {
			total += size[r+1]
		}
	}
	order := make([]int32, total)
	next := slices.Clone(off)
	for v := range int32(len(c.vals)) {
		if r := root[v]; size[r+1] > 1 {
			order[next[r]] = v
			next[r]++
		}
	}

	// bestG[g] is the target that group g offers: that of its most
	// frequent value visited so far, which was visited first. Likewise
	// bestN for the n-gram keys. Each group and key belongs to one
	// cluster, so the tables need no reset between clusters.
	bestG := filled(nGroups, -1)
	bestN := filled(c.ngramN, -1)
	var ms []Mapping
	for r := range int32(nGroups) {
		if size[r+1] < 2 {
			continue
		}
		members := c.sortMembers(order[off[r] : off[r]+size[r+1]])
		if len(members) < 2 {
			continue
		}
		c.st.Clusters++
		for _, v := range members {
			target := v
			if t, ok := c.offer(v, bestG, bestN); ok {
				if m, ok := c.mapping(v, t); ok {
					ms = append(ms, m)
					target = t
				}
			}
			if g := c.vgroup[v]; bestG[g] < 0 {
				bestG[g] = target
			}
			if n := c.vngram[v]; n >= 0 && bestN[n] < 0 {
				bestN[n] = target
			}
		}
	}
	slices.SortFunc(ms, func(a, b Mapping) int {
		if d := cmp.Compare(b.CanonicalCount, a.CanonicalCount); d != 0 {
			return d
		}
		if d := strings.Compare(a.Canonical, b.Canonical); d != 0 {
			return d
		}
		if d := cmp.Compare(b.VariantCount, a.VariantCount); d != 0 {
			return d
		}
		return strings.Compare(a.Variant, b.Variant)
	})
	return ms
}

// addCounts adds two positive counts, saturating rather than wrapping.
func addCounts(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func filled(n int, v int32) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// sortMembers orders a cluster's values from the most to the least
// frequent (ties by value), after adding up the counts of a value given
// more than once: the copies share a fingerprint group, so only values of
// one group are compared as strings.
func (c *clusterer) sortMembers(members []int32) []int32 {
	slices.SortFunc(members, func(a, b int32) int {
		if d := cmp.Compare(c.vgroup[a], c.vgroup[b]); d != 0 {
			return d
		}
		return strings.Compare(c.vals[a].Value, c.vals[b].Value)
	})
	out := members[:1]
	for _, v := range members[1:] {
		last := out[len(out)-1]
		if c.vgroup[v] == c.vgroup[last] && c.vals[v].Value == c.vals[last].Value {
			c.vals[last].Count = addCounts(c.vals[last].Count, c.vals[v].Count)
			continue
		}
		out = append(out, v)
	}
	slices.SortFunc(out, func(a, b int32) int {
		if d := cmp.Compare(c.vals[b].Count, c.vals[a].Count); d != 0 {
			return d
		}
		return strings.Compare(c.vals[a].Value, c.vals[b].Value)
	})
	return out
}

// offer is the target of the closest visited relative of v: one with the
// same fingerprint, else the same n-gram key, else the nearest neighbour
// (smallest distance, then the most frequent target, then the smallest).
func (c *clusterer) offer(v int32, bestG, bestN []int32) (int32, bool) {
	g := c.vgroup[v]
	if t := bestG[g]; t >= 0 {
		return t, true
	}
	if n := c.vngram[v]; n >= 0 && bestN[n] >= 0 {
		return bestN[n], true
	}
	best, bestD := int32(-1), int32(0)
	for _, e := range c.neighbours(g) {
		t := bestG[e.b]
		if t < 0 {
			continue
		}
		if best < 0 || e.d < bestD || (e.d == bestD && c.before(t, best)) {
			best, bestD = t, e.d
		}
	}
	return best, best >= 0
}

// before orders targets: the more frequent first, then by value.
func (c *clusterer) before(a, b int32) bool {
	va, vb := c.vals[a], c.vals[b]
	if va.Count != vb.Count {
		return va.Count > vb.Count
	}
	return va.Value < vb.Value
}

// mapping is v → t when the guards allow: t at least MinRatio times as
// frequent, and the two within twice the radius of the shorter
// fingerprint.
func (c *clusterer) mapping(v, t int32) (Mapping, bool) {
	vv, tv := c.vals[v], c.vals[t]
	if float64(tv.Count) < c.opt.MinRatio*float64(vv.Count) {
		return Mapping{}, false
	}
	gv, gt := c.vgroup[v], c.vgroup[t]
	lv, lt := c.set.runeLen(gv), c.set.runeLen(gt)
	maxD := 2 * radius(min(lv, lt))
	d, method := 0, MethodFingerprint
	if gv != gt {
		d = min(c.set.within(gv, gt, maxD, &c.scratch), c.compactDistance(vv.Value, tv.Value, maxD))
		if d > maxD {
			return Mapping{}, false
		}
		method = MethodNearestNeighbour
		if nv := c.vngram[v]; nv >= 0 && nv == c.vngram[t] {
			method = MethodNGramFingerprint
		}
	}
	return Mapping{
		Variant:        vv.Value,
		Canonical:      tv.Value,
		VariantCount:   vv.Count,
		CanonicalCount: tv.Count,
		Method:         method,
		Distance:       d,
		Confidence:     confidence(tv.Count, vv.Count, d, max(lv, lt)),
	}, true
}

// compactDistance is the bounded edit distance between the compact forms
// of a and b: folded and cleaned, whitespace removed, in their order.
func (c *clusterer) compactDistance(a, b string, k int) int {
	for i, s := range [2]string{a, b} {
		c.keyer.run(s)
		c.scratch[i] = c.scratch[i][:0]
		for _, r := range string(c.keyer.compact) {
			c.scratch[i] = append(c.scratch[i], r)
		}
	}
	return boundedLevenshtein(c.scratch[0], c.scratch[1], k)
}
