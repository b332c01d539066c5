package suggest

import "strings"

// budget is what is left of a bound shared by several tables.
type budget struct{ left int64 }

// take reserves n, reporting false (and reserving nothing) when less is
// left.
func (b *budget) take(n int64) bool {
	if b.left < n {
		return false
	}
	b.left -= n
	return true
}

// valueOverhead is what a distinct value costs beside its bytes: its map
// entry, string header, count and id (measured roughly: a Go map of string
// to int32 takes some 40 bytes an entry at its usual load).
const valueOverhead = 72

// valueTable counts a column's distinct values exactly, giving each an id
// (the order of first sight) for the dependency pairs.
type valueTable struct {
	ids    map[string]int32
	vals   []string
	counts []int64
	bytes  int64
}

func newValueTable() *valueTable { return &valueTable{ids: map[string]int32{}} }

// add counts v and returns its id; ok is false when v is new and the
// table already holds maxDistinct values or mem cannot take it.
func (t *valueTable) add(v string, maxDistinct int, mem *budget) (id int32, ok bool) {
	if id, ok := t.ids[v]; ok {
		t.counts[id]++
		return id, true
	}
	cost := int64(len(v)) + valueOverhead
	if len(t.vals) >= maxDistinct || !mem.take(cost) {
		return -1, false
	}
	// The reader may reuse the bytes under v: keep a copy.
	v = strings.Clone(v)
	id = int32(len(t.vals))
	t.ids[v] = id
	t.vals = append(t.vals, v)
	t.counts = append(t.counts, 1)
	t.bytes += cost
	return id, true
}

// each calls f with every value and its count, in order of first sight.
func (t *valueTable) each(f func(v string, n int64)) {
	for i, v := range t.vals {
		f(v, t.counts[i])
	}
}
