package profile

import (
	"cmp"
	"slices"
)

// spaceSaving is the Space-Saving heavy-hitters summary (Metwally, Agrawal,
// El Abbadi 2005) with at most cap counters (shrinking to shrink counters
// when the first item has to be dropped), kept in their Stream-Summary
// structure (counters grouped in buckets of equal count, buckets in a list
// by increasing count) so that every update is O(1), and made mergeable as
// in Agarwal et al., "Mergeable Summaries" (2012).
//
// Guarantees, with N the number of items added (summed over merges):
//
//   - as long as no item was ever evicted (fewer than cap distinct items
//     seen, evicted == false) every count is exact: err == 0;
//   - afterwards every counter satisfies count-err <= true count <= count,
//     err <= N/cap, and every item whose true count exceeds N/cap holds a
//     counter (cap being the shrunk capacity). Reported counts are the lower bounds count-err, so they never
//     overstate a frequency.
//
// Once an item has been dropped, the summary is filtered (Homem & Carvalho,
// "Finding top-k elements in data streams", 2010): an item that holds no
// counter first counts in one of filterSize hashed filter counters, and only
// takes over the smallest counter when its filter counter has reached that
// counter's count. A filter counter is an upper bound of the true count of
// every item without a counter that hashes to it, and never exceeds the
// smallest count, so the guarantees above hold unchanged; but a stream of
// mostly distinct items (ids, e-mail addresses, timestamps) no longer evicts
// on nearly every item, which is what made wide tables slow.
//
// Items are keyed by their 64-bit hash and verified against a stored prefix
// of their bytes (plus their length), so the steady state does not allocate:
// an eviction overwrites the evicted slot's buffer in place. Two different
// items sharing a 64-bit hash, length and stored prefix cannot be told apart;
// a hash match whose bytes differ is reported as a collision.
type spaceSaving struct {
	fbits   uint8 // log2 of the filter counters
	cap     int
	shrink  int // once an item must be dropped, keep only this many counters (0: cap)
	keyCap  int // bytes of each item kept
	entries []ssEntry
	index   u64index // hash -> slot in entries
	buckets []ssBucket
	free    []int32 // unused bucket slots
	minB    int32   // bucket of smallest count, or nil32
	last    int32   // entry of the item last added, or nil32
	evicted bool    // some item was dropped: counts are bounds
	filter  []int64 // once evicted: filterSize hashed counters
	// held counts, per filter counter, the items holding a counter that hash
	// to it (at most cap, which is at most heavyCap once evicted). An item
	// whose filter counter no held item shares holds no counter: the index,
	// which is larger and mostly out of cache, need not be probed for it.
	held []uint16
	// keyBytes sums the keys of the items inserted (without an eviction):
	// while the summary is exact, the bytes its keys take.
	keyBytes int64
}

// filterBits sets the number of filter counters (8 per counter of a full
// values table): the top bits of an item's hash pick its filter counter, the
// low bits its index slot. On a stream of distinct values about one item in
// (1 + filter counters per counter) evicts, the costly case: with 4 per
// counter a unique value cost 25 ns (BenchmarkValuesUnique), with 8 21 ns,
// and the 3M-row Parquet profile took 3% less CPU. 16 per counter (14 ns
// alone) gained no more there: the filters of every column then compete for
// the cache.
const filterBits = 13

// slot is the filter counter of an item of hash h.
func (s *spaceSaving) slot(h uint64) uint64 { return h >> (64 - s.fbits) }

const nil32 = -1

type ssEntry struct {
	hash       uint64
	n          int    // full length of the item in bytes
	key        []byte // first min(n, keyCap) bytes
	count      int64
	err        int64
	bucket     int32
	prev, next int32 // siblings in the bucket
}

type ssBucket struct {
	count      int64
	head       int32 // first entry
	prev, next int32 // neighbouring buckets, by increasing count
}

func newSpaceSaving(capacity, keyCap int) *spaceSaving {
	return &spaceSaving{fbits: filterBits, cap: capacity, keyCap: keyCap, index: newU64Index(), minB: nil32, last: nil32}
}

func (e *ssEntry) matches(n int, v string) bool {
	return e.n == n && string(e.key) == v[:len(e.key)]
}

type ssResult uint8

const (
	ssHit ssResult = iota
	ssInserted
	ssEvicted
	ssFiltered // counted in the filter, not in a counter
	ssCollision
)

// addLast counts one occurrence of v if v is the item last added, which
// spares hashing and the index lookup for columns of one or few formats.
func (s *spaceSaving) addLast(v string) bool {
	if s.last == nil32 {
		return false
	}
	e := &s.entries[s.last]
	if e.n != len(v) || len(e.key) != len(v) || string(e.key) != v {
		return false
	}
	s.bump(s.last, 1)
	return true
}

// add counts one occurrence of the item v with hash h.
func (s *spaceSaving) add(h uint64, v string) ssResult {
	r, i := s.add1(h, v)
	s.last = i
	return r
}

func (s *spaceSaving) add1(h uint64, v string) (ssResult, int32) {
	key := v
	if len(key) > s.keyCap {
		key = key[:s.keyCap]
	}
	if s.held == nil || s.held[s.slot(h)] != 0 {
		if i, ok := s.index.get(h); ok {
			if !s.entries[i].matches(len(v), key) {
				return ssCollision, nil32
			}
			s.bump(i, 1)
			return ssHit, i
		}
	}
	if len(s.entries) < s.cap {
		i := int32(len(s.entries))
		s.index.set(h, i)
		if s.held != nil {
			s.held[s.slot(h)]++
		}
		s.entries = append(s.entries, ssEntry{hash: h, n: len(v), key: []byte(key), count: 1})
		s.keyBytes += int64(len(key))
		if s.evicted {
			if s.minB != nil32 && s.buckets[s.minB].count == 1 {
				s.attach(i, s.minB)
			} else {
				s.attach(i, s.newBucket(1, nil32, s.minB))
			}
		}
		return ssInserted, i
	}
	if !s.evicted {
		s.startFilter()
	}
	// Most items stop at the filter: the smallest count is read from its
	// bucket, and the entry holding it is only fetched for an eviction.
	minB := &s.buckets[s.minB]
	f := &s.filter[s.slot(h)]
	if *f < minB.count {
		*f++
		return ssFiltered, nil32
	}
	// The filter counter has reached the smallest count (it never passes
	// it): the item takes that counter over, and the evicted item's filter
	// counter keeps its count as the bound of its future occurrences.
	i := minB.head
	e := &s.entries[i]
	s.keepInFilter(e)
	s.index.del(e.hash)
	s.held[s.slot(e.hash)]--
	e.hash, e.n, e.key, e.err = h, len(v), append(e.key[:0], key...), e.count
	s.index.set(h, i)
	s.held[s.slot(h)]++
	s.incr(i)
	return ssEvicted, i
}

// startFilter is called when the first item is about to be dropped: the
// summary shrinks (when it has a smaller steady-state size), the filter
// starts, holding the counts of the items the shrinking dropped, and the
// counters are linked into their Stream-Summary buckets.
func (s *spaceSaving) startFilter() {
	s.filter = make([]int64, 1<<s.fbits)
	sortByCount(s.entries)
	if s.shrink > 0 && s.shrink < s.cap {
		s.cap = s.shrink
		for i := s.cap; i < len(s.entries); i++ {
			s.keepInFilter(&s.entries[i])
		}
		// Freshly sized memory: the summary then works in cache whatever
		// cap was.
		s.entries = append(make([]ssEntry, 0, s.cap), s.entries[:s.cap]...)
		s.index = newU64Index()
	}
	s.evicted, s.last = true, nil32
	s.rebuild()
}

// bump adds w to entry i's count. Until the first eviction the counts are
// all there is; the buckets, which only serve to find the smallest count,
// are built when it comes.
func (s *spaceSaving) bump(i int32, w int64) {
	if !s.evicted {
		s.entries[i].count += w
		return
	}
	for range w {
		s.incr(i)
	}
}

// keepInFilter records a dropped entry's count as the bound of its item.
func (s *spaceSaving) keepInFilter(e *ssEntry) {
	f := &s.filter[s.slot(e.hash)]
	*f = max(*f, e.count)
}

// incr adds one to entry i's count, moving it to the next bucket.
func (s *spaceSaving) incr(i int32) {
	e := &s.entries[i]
	b := e.bucket
	c := e.count + 1
	e.count = c
	nb := s.buckets[b].next
	switch {
	case nb != nil32 && s.buckets[nb].count == c:
		s.detach(i)
		s.attach(i, nb)
	case s.buckets[b].head == i && e.next == nil32:
		s.buckets[b].count = c // sole member: the bucket moves up in place
	default:
		s.detach(i)
		s.attach(i, s.newBucket(c, b, nb))
	}
}

func (s *spaceSaving) newBucket(count int64, prev, next int32) int32 {
	var b int32
	if n := len(s.free); n > 0 {
		b, s.free = s.free[n-1], s.free[:n-1]
	} else {
		b = int32(len(s.buckets))
		s.buckets = append(s.buckets, ssBucket{})
	}
	s.buckets[b] = ssBucket{count: count, head: nil32, prev: prev, next: next}
	if prev != nil32 {
		s.buckets[prev].next = b
	} else {
		s.minB = b
	}
	if next != nil32 {
		s.buckets[next].prev = b
	}
	return b
}

func (s *spaceSaving) attach(i, b int32) {
	e := &s.entries[i]
	h := s.buckets[b].head
	e.bucket, e.prev, e.next = b, nil32, h
	if h != nil32 {
		s.entries[h].prev = i
	}
	s.buckets[b].head = i
}

// detach unlinks entry i from its bucket, dropping the bucket if emptied.
func (s *spaceSaving) detach(i int32) {
	e := &s.entries[i]
	b := e.bucket
	if e.prev != nil32 {
		s.entries[e.prev].next = e.next
	} else {
		s.buckets[b].head = e.next
	}
	if e.next != nil32 {
		s.entries[e.next].prev = e.prev
	}
	if s.buckets[b].head != nil32 {
		return
	}
	bk := s.buckets[b]
	if bk.prev != nil32 {
		s.buckets[bk.prev].next = bk.next
	} else {
		s.minB = bk.next
	}
	if bk.next != nil32 {
		s.buckets[bk.next].prev = bk.prev
	}
	s.free = append(s.free, b)
}

// floor is the count bound for items that hold no counter.
func (s *spaceSaving) floor() int64 {
	if !s.evicted || s.minB == nil32 {
		return 0
	}
	return s.buckets[s.minB].count
}

// merge folds o into s (o is left unchanged). An item missing from one side
// is credited with that side's floor, both as count and as error, which keeps
// the guarantees above for the union of both streams. If the union exceeds
// cap, the cap counters with the largest counts are kept (the others' counts
// are <= the smallest kept count, as the invariant requires). It reports
// whether a hash collision was met.
func (s *spaceSaving) merge(o *spaceSaving) (collision bool) {
	fs, fo := s.floor(), o.floor()
	matched := make(map[uint64]bool, len(o.entries))
	all := make([]ssEntry, 0, len(s.entries)+len(o.entries))
	for i := range s.entries {
		e := s.entries[i]
		if j, ok := o.index.get(e.hash); ok {
			if oe := &o.entries[j]; oe.matches(e.n, string(e.key)) {
				e.count += oe.count
				e.err += oe.err
				matched[e.hash] = true
				all = append(all, e)
				continue
			}
			collision = true
		}
		e.count += fo
		e.err += fo
		all = append(all, e)
	}
	for i := range o.entries {
		oe := o.entries[i]
		if matched[oe.hash] {
			continue
		}
		if _, clash := s.index.get(oe.hash); clash {
			continue // a collision, flagged above: the item is dropped
		}
		oe.key = append([]byte(nil), oe.key...)
		oe.count += fs
		oe.err += fs
		all = append(all, oe)
	}
	evicted := s.evicted || o.evicted
	sortByCount(all)
	if len(all) > s.cap {
		evicted = true
	}
	if evicted && s.shrink > 0 {
		s.cap = min(s.cap, s.shrink)
	}
	if evicted {
		// An item without a counter on one side counted in that side's
		// filter (or, unfiltered, not at all): the sum bounds it.
		if s.filter == nil {
			s.filter = make([]int64, 1<<s.fbits)
		}
		for j := range o.filter {
			s.filter[j] += o.filter[j]
		}
	}
	if len(all) > s.cap {
		for i := s.cap; i < len(all); i++ {
			s.keepInFilter(&all[i])
		}
		all = all[:s.cap]
	}
	s.entries, s.evicted, s.last = all, evicted, nil32
	if len(s.entries) < s.index.n/2 {
		s.index = newU64Index()
	}
	s.rebuild()
	return collision
}

// rebuild recreates the index and buckets from entries sorted by decreasing
// count.
func (s *spaceSaving) rebuild() {
	s.index.reset()
	if s.filter != nil {
		if s.held == nil {
			s.held = make([]uint16, 1<<s.fbits)
		}
		clear(s.held)
		for i := range s.entries {
			s.held[s.slot(s.entries[i].hash)]++
		}
	}
	s.buckets, s.free, s.minB = s.buckets[:0], s.free[:0], nil32
	for i := len(s.entries) - 1; i >= 0; i-- {
		e := &s.entries[i]
		s.index.set(e.hash, int32(i))
		// Walking up the counts, the last bucket created is the largest.
		last := int32(len(s.buckets) - 1)
		if last == nil32 || s.buckets[last].count != e.count {
			last = s.newBucket(e.count, last, nil32)
		}
		s.attach(int32(i), last)
	}
}

// top returns up to k items, largest guaranteed count (count-err) first,
// ties broken by the item's bytes then its length.
func (s *spaceSaving) top(k int) []*ssEntry {
	out := make([]*ssEntry, len(s.entries))
	for i := range s.entries {
		out[i] = &s.entries[i]
	}
	slices.SortFunc(out, func(a, b *ssEntry) int {
		if c := cmp.Compare(b.count-b.err, a.count-a.err); c != 0 {
			return c
		}
		if c := cmp.Compare(string(a.key), string(b.key)); c != 0 {
			return c
		}
		return cmp.Compare(a.n, b.n)
	})
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// sortByCount sorts entries by decreasing count, ties by hash.
func sortByCount(entries []ssEntry) {
	slices.SortFunc(entries, func(a, b ssEntry) int {
		if c := cmp.Compare(b.count, a.count); c != 0 {
			return c
		}
		return cmp.Compare(a.hash, b.hash)
	})
}
