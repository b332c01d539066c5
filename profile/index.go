package profile

// u64index maps 64-bit hashes to int32 slots: open addressing with linear
// probing and backward-shift deletion (no tombstones, so a table with as many
// deletions as insertions, like a full Space-Saving summary, never degrades).
// The keys are already uniformly distributed hashes, so their low bits are
// the home slot. It grows by doubling while the load exceeds 1/2 and never
// shrinks. An empty slot holds val == nil32.
type u64index struct {
	keys []uint64
	vals []int32
	mask uint64
	n    int
}

func newU64Index() u64index {
	const initial = 16
	ix := u64index{keys: make([]uint64, initial), vals: make([]int32, initial), mask: initial - 1}
	for i := range ix.vals {
		ix.vals[i] = nil32
	}
	return ix
}

func (ix *u64index) get(k uint64) (int32, bool) {
	for i := k & ix.mask; ; i = (i + 1) & ix.mask {
		v := ix.vals[i]
		if v == nil32 {
			return nil32, false
		}
		if ix.keys[i] == k {
			return v, true
		}
	}
}

// set maps k to v, replacing any previous value.
func (ix *u64index) set(k uint64, v int32) {
	if 2*(ix.n+1) > len(ix.keys) {
		ix.grow()
	}
	i := k & ix.mask
	for ; ix.vals[i] != nil32; i = (i + 1) & ix.mask {
		if ix.keys[i] == k {
			ix.vals[i] = v
			return
		}
	}
	ix.keys[i], ix.vals[i] = k, v
	ix.n++
}

func (ix *u64index) del(k uint64) {
	i := k & ix.mask
	for {
		if ix.vals[i] == nil32 {
			return
		}
		if ix.keys[i] == k {
			break
		}
		i = (i + 1) & ix.mask
	}
	// Backward shift: move later entries of the probe run into the hole when
	// the hole lies between their home slot and their current slot.
	for j := (i + 1) & ix.mask; ix.vals[j] != nil32; j = (j + 1) & ix.mask {
		home := ix.keys[j] & ix.mask
		if (j-home)&ix.mask >= (j-i)&ix.mask {
			ix.keys[i], ix.vals[i] = ix.keys[j], ix.vals[j]
			i = j
		}
	}
	ix.vals[i] = nil32
	ix.n--
}

func (ix *u64index) grow() {
	keys, vals := ix.keys, ix.vals
	size := 2 * len(keys)
	ix.keys, ix.vals, ix.mask, ix.n = make([]uint64, size), make([]int32, size), uint64(size-1), 0
	for i := range ix.vals {
		ix.vals[i] = nil32
	}
	for i, v := range vals {
		if v != nil32 {
			ix.set(keys[i], v)
		}
	}
}

func (ix *u64index) reset() {
	for i := range ix.vals {
		ix.vals[i] = nil32
	}
	ix.n = 0
}
