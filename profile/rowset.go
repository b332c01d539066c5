package profile

// rowSet is a set of 64-bit row hashes: open addressing with linear
// probing over one array, 0 marking a free slot (the hash 0 is kept apart).
// It is what a Go map would be here at a fraction of the cost: no hashing
// (the keys are hashes), no tombstones (nothing is ever deleted).
type rowSet struct {
	slots   []uint64
	mask    uint64
	n       int
	hasZero bool
}

// newRowSetFor returns a set with room for n hashes before it grows.
func newRowSetFor(n int) *rowSet {
	size := 1 << 12
	for size < 2*n {
		size *= 2
	}
	return &rowSet{slots: make([]uint64, size), mask: uint64(size - 1)}
}

// has reports whether h is in the set.
func (s *rowSet) has(h uint64) bool {
	if h == 0 {
		return s.hasZero
	}
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// len is the number of distinct hashes in the set.
func (s *rowSet) len() int {
	if s.hasZero {
		return s.n + 1
	}
	return s.n
}

func (s *rowSet) add(h uint64) {
	if h == 0 {
		s.hasZero = true
		return
	}
	i := h & s.mask
	for {
		switch s.slots[i] {
		case h:
			return
		case 0:
			s.slots[i] = h
			s.n++
			if 2*s.n > len(s.slots) {
				s.grow()
			}
			return
		}
		i = (i + 1) & s.mask
	}
}

func (s *rowSet) grow() {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	s.mask = uint64(len(s.slots) - 1)
	for _, h := range old {
		if h == 0 {
			continue
		}
		i := h & s.mask
		for s.slots[i] != 0 {
			i = (i + 1) & s.mask
		}
		s.slots[i] = h
	}
}

// each calls f for every hash in the set.
func (s *rowSet) each(f func(h uint64)) {
	if s.hasZero {
		f(0)
	}
	for _, h := range s.slots {
		if h != 0 {
			f(h)
		}
	}
}
