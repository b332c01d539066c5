package profile

// u64index maps 64-bit hashes to int32 slots: open addressing with linear
// probing and backward-shift deletion (no tombstones, so a table with as many
// deletions as insertions, like a full Space-Saving summary, never degrades).
// The keys are already uniformly distributed hashes, so their low bits are
// the home slot. It grows by doubling while the load exceeds 1/2 and never
// shrinks. A key and its value share a slot, so that a probe, which is
// mostly a cache miss, is one miss and not two.
type u64index struct {
	slots []ixSlot
	mask  uint64
	n     int
}

// ixSlot is one slot; an empty one holds val == nil32.
type ixSlot struct {
	key uint64
	val int32
}

func newU64Index() u64index {
	const initial = 16
	return u64index{slots: emptySlots(initial), mask: initial - 1}
}

func emptySlots(n int) []ixSlot {
	s := make([]ixSlot, n)
	for i := range s {
		s[i].val = nil32
	}
	return s
}

func (ix *u64index) get(k uint64) (int32, bool) {
	for i := k & ix.mask; ; i = (i + 1) & ix.mask {
		s := &ix.slots[i]
		if s.val == nil32 {
			return nil32, false
		}
		if s.key == k {
			return s.val, true
		}
	}
}

// set maps k to v, replacing any previous value.
func (ix *u64index) set(k uint64, v int32) {
	if 2*(ix.n+1) > len(ix.slots) {
		ix.grow()
	}
	i := k & ix.mask
	for ; ix.slots[i].val != nil32; i = (i + 1) & ix.mask {
		if ix.slots[i].key == k {
			ix.slots[i].val = v
			return
		}
	}
	ix.slots[i] = ixSlot{key: k, val: v}
	ix.n++
}

func (ix *u64index) del(k uint64) {
	i := k & ix.mask
	for {
		if ix.slots[i].val == nil32 {
			return
		}
		if ix.slots[i].key == k {
			break
		}
		i = (i + 1) & ix.mask
	}
	// Backward shift: move later entries of the probe run into the hole when
	// the hole lies between their home slot and their current slot.
	for j := (i + 1) & ix.mask; ix.slots[j].val != nil32; j = (j + 1) & ix.mask {
		home := ix.slots[j].key & ix.mask
		if (j-home)&ix.mask >= (j-i)&ix.mask {
			ix.slots[i] = ix.slots[j]
			i = j
		}
	}
	ix.slots[i].val = nil32
	ix.n--
}

func (ix *u64index) grow() {
	old := ix.slots
	ix.slots, ix.mask, ix.n = emptySlots(2*len(old)), uint64(2*len(old)-1), 0
	for _, s := range old {
		if s.val != nil32 {
			ix.set(s.key, s.val)
		}
	}
}

func (ix *u64index) reset() {
	for i := range ix.slots {
		ix.slots[i].val = nil32
	}
	ix.n = 0
}
