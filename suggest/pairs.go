package suggest

// pairTable counts the rows of each (value of a, value of b) for one
// column pair, by value ids: 16 bytes of key and count, some 40 with the
// map's own, whatever the values' length. It serves both directions (a →
// b and b → a).
type pairTable struct {
	a, b   int // column indexes, a < b
	counts map[uint64]int64
	off    bool // given up: too many distinct pairs
}

// pairEntryBytes is what a counted pair costs, for the budget's sake.
const pairEntryBytes = 40

// countPairs counts the current row in every pair table still counting.
func (s *scan) countPairs() {
	for _, p := range s.pairs {
		if p.off {
			continue
		}
		ia, ib := s.cols[p.a].last, s.cols[p.b].last
		if ia < 0 || ib < 0 {
			continue
		}
		k := uint64(uint32(ia))<<32 | uint64(uint32(ib))
		if _, ok := p.counts[k]; ok {
			p.counts[k]++
			continue
		}
		// A pair of columns with that many combinations is no dependency
		// worth fixing; the budget keeps all of them together bounded.
		if len(p.counts) >= s.opt.MaxPairs || !s.pairEntries.take(1) {
			p.drop(s.pairEntries)
			continue
		}
		p.counts[k] = 1
	}
}

// drop gives the table up and returns its entries to the budget.
func (p *pairTable) drop(entries *budget) {
	if p.off {
		return
	}
	entries.left += int64(len(p.counts))
	p.counts, p.off = nil, true
}
