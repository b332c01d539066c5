package standardize

import (
	"bytes"
	"hash/maphash"
	"slices"
)

// arena holds one byte string per item back to back.
type arena struct {
	b   []byte
	off []int // item i is b[off[i]:off[i+1]]
}

func newArena(items, bytesHint int) *arena {
	return &arena{b: make([]byte, 0, bytesHint), off: append(make([]int, 0, items+1), 0)}
}

// end closes the current item.
func (a *arena) end() { a.off = append(a.off, len(a.b)) }

func (a *arena) get(i int32) []byte { return a.b[a.off[i]:a.off[i+1]] }

func (a *arena) len() int { return len(a.off) - 1 }

// denseIDs gives the items of a equal ids when their bytes are equal,
// numbered 0, 1, … in order of first occurrence; n is the number of
// distinct items. It sorts 64-bit hashes instead of filling a map: over a
// million keys a map lookup misses the cache a couple of times, where a
// radix sort streams through memory. Items of equal hash are compared
// byte for byte, so a hash collision never merges different keys.
func denseIDs(a *arena) (ids []int32, n int) {
	m := a.len()
	seed := maphash.MakeSeed() // the ids do not depend on it
	items := make([]hashItem, m)
	for i := range items {
		items[i] = hashItem{maphash.Bytes(seed, a.get(int32(i))), int32(i)}
	}
	items = radixSort(items)
	// Within a run of equal hashes (stable, so in item order), each item's
	// leader is the first item with the same bytes.
	leader := make([]int32, m)
	for i := 0; i < m; {
		j := i + 1
		for j < m && items[j].h == items[i].h {
			j++
		}
		run := items[i:j]
		for x, it := range run {
			leader[it.i] = it.i
			for _, prev := range run[:x] {
				if leader[prev.i] == prev.i && bytes.Equal(a.get(prev.i), a.get(it.i)) {
					leader[it.i] = prev.i
					break
				}
			}
		}
		i = j
	}
	ids = make([]int32, m)
	for i := range int32(m) {
		if l := leader[i]; l == i {
			ids[i] = int32(n)
			n++
		} else {
			ids[i] = ids[l]
		}
	}
	return ids, n
}

type hashItem struct {
	h uint64
	i int32
}

// radixSort sorts items by hash, stably: four passes of 16 bits, or a
// comparison sort for the few items where clearing the counts would cost
// more.
func radixSort(items []hashItem) []hashItem {
	if len(items) < 1<<12 {
		slices.SortStableFunc(items, func(a, b hashItem) int { return cmpUint64(a.h, b.h) })
		return items
	}
	tmp := make([]hashItem, len(items))
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		count = [1 << 16]int{}
		for _, it := range items {
			count[it.h>>shift&0xFFFF]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for _, it := range items {
			d := it.h >> shift & 0xFFFF
			tmp[count[d]] = it
			count[d]++
		}
		items, tmp = tmp, items
	}
	return items
}
