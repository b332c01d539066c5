package standardize

import (
	"math/bits"
	"slices"
)

func popcount(x uint64) int { return bits.OnesCount64(x) }

// segEntry is a segment to index: its block's hash and the fingerprint.
type segEntry struct {
	h   uint64
	sig signature
	id  int32
}

// segIndex holds the segments of the fingerprints of each length
// together, sorted by block, with a directory on the block hash's top bits
// per length. Probing fingerprints in order of length then touches the
// entries of three lengths at a time instead of the whole index.
//
// Each entry is one word, the block hash's top 32 bits above the
// fingerprint's rank, so that scanning a block reads one cache line and
// can skip the fingerprints it must not compare without reading their
// signatures. A 32-bit hash may merge two blocks of a length: that adds
// candidates, which the edit distance rejects (and, rarely, may push the
// merged block over the cap).
type segIndex struct {
	keys    []uint64    // hash<<32 | rank, sorted
	present []uint64    // present[i] is sigs[i].bag[0], for a first filter
	sigs    []signature // sigs[i] is the signature of keys[i]'s fingerprint
	parts   []segPart   // by fingerprint length
	dir     []int32     // absolute entry indices
}

type segPart struct {
	dirOff int32
	shift  uint8
	ok     bool
}

// dirSpan is the mean number of entries per directory bucket: a bucket's
// keys fill about one cache line, and the directory is small enough to
// stay in cache.
const dirSpan = 8

// newSegIndex indexes entries, which are grouped by length: byLen[l] is
// the start of length l in entries, byLen[l+1] its end. It reorders
// entries.
func newSegIndex(entries []segEntry, byLen []int32) *segIndex {
	x := &segIndex{parts: make([]segPart, len(byLen)-1)}
	for i := range entries {
		entries[i].h = entries[i].h&^0xFFFFFFFF | uint64(uint32(entries[i].id))
	}
	var tmp []segEntry
	for l := range len(byLen) - 1 {
		lo, hi := byLen[l], byLen[l+1]
		if lo == hi {
			continue
		}
		part := entries[lo:hi]
		b := max(1, bits.Len(uint(len(part)/dirSpan)))
		shift := uint(64 - b)
		off := int32(len(x.dir))
		x.parts[l] = segPart{dirOff: off, shift: uint8(shift), ok: true}
		x.dir = append(x.dir, make([]int32, 1<<b+1)...)
		dir := x.dir[off:]
		// Counting sort by the top bits, then each small bucket.
		for _, e := range part {
			dir[e.h>>shift+1]++
		}
		dir[0] = lo
		for i := 1; i < len(dir); i++ {
			dir[i] += dir[i-1]
		}
		tmp = append(tmp[:0], part...)
		next := slices.Clone(dir[:len(dir)-1])
		for _, e := range tmp {
			bk := e.h >> shift
			entries[next[bk]] = e
			next[bk]++
		}
		for bk := 0; bk+1 < len(dir); bk++ {
			sortByHash(entries[dir[bk]:dir[bk+1]])
		}
	}
	x.keys = make([]uint64, len(entries))
	x.present = make([]uint64, len(entries))
	x.sigs = make([]signature, len(entries))
	for i, e := range entries {
		x.keys[i] = e.h
		x.present[i] = e.sig.bag[0]
		x.sigs[i] = e.sig
	}
	return x
}

func sortByHash(s []segEntry) {
	if len(s) > 32 {
		slices.SortFunc(s, func(a, b segEntry) int { return cmpUint64(a.h, b.h) })
		return
	}
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j-1].h > s[j].h; j-- {
			s[j-1], s[j] = s[j], s[j-1]
		}
	}
}

func cmpUint64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// segProbe is one lookup: the block of hash h among fingerprints of
// length l, found at keys[lo:hi].
type segProbe struct {
	h      uint64
	l      int32
	lo, hi int32
}

// locate finds the block of each probe. The directory reads of all probes
// come first, then the bucket scans: independent loads overlap in the
// processor instead of waiting for one another.
func (x *segIndex) locate(ps []segProbe) {
	for j := range ps {
		p := x.parts[ps[j].l]
		if !p.ok {
			ps[j].lo, ps[j].hi = 0, 0
			continue
		}
		bk := int32(ps[j].h>>p.shift) + p.dirOff
		ps[j].lo, ps[j].hi = x.dir[bk], x.dir[bk+1]
	}
	for j := range ps {
		first, last := ps[j].h&^0xFFFFFFFF, ps[j].h|0xFFFFFFFF
		lo := int(ps[j].lo)
		s := x.keys[lo:ps[j].hi]
		var i, k int
		if len(s) <= 4*dirSpan {
			for i < len(s) && s[i] < first {
				i++
			}
			k = i
			for k < len(s) && s[k] <= last {
				k++
			}
		} else { // a bucket with a large block: binary search both ends
			i, _ = slices.BinarySearch(s, first)
			k = len(s)
			if last != ^uint64(0) {
				k, _ = slices.BinarySearch(s, last+1)
			}
		}
		ps[j].lo, ps[j].hi = int32(lo+i), int32(lo+k)
	}
}

// blocks counts the blocks of more than maxBlock entries.
func (x *segIndex) blocks(maxBlock int) (over int) {
	ks := x.keys
	for i := 0; i < len(ks); {
		j := i + 1
		for j < len(ks) && ks[j]>>32 == ks[i]>>32 {
			j++
		}
		if j-i > maxBlock {
			over++
		}
		i = j
	}
	return over
}
