package corrections

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/zeebo/xxh3"
)

// dedupe removes the rows whose key was seen before (keep "first", the
// default) or is seen again later (keep "last"), keeping the order of the
// rows it keeps. The key is the whole row (strategy exact) or the values of
// some columns (strategy keys, params.columns). Values compare byte for
// byte, and a cell the reader flags null differs from every text, "" and
// "NULL" included: run trim or null_fill before dedupe to make variants
// equal.
//
// Memory: the step keeps a 128-bit hash of each distinct key, not the key,
// in an open-addressing table (keyTable): 16 bytes a slot, and 8 more for
// keep last, which needs the index of each key's last row and learns them
// in a pass of its own. The table is at most 3/4 full and doubles, so it
// takes 21 to 43 bytes per distinct key (32 to 64 with keep last), and
// while it doubles the old table lives beside the new. It never grows past
// Options.DedupeMemoryBudget, both tables counted: a file with more
// distinct keys than fit is refused with ErrDedupeBudget (about 6 million
// keys in the default 256 MiB, 3 million with keep last).
//
// Collisions: two different keys with the same hash would make the second
// a duplicate. With n distinct keys the chance that any two collide is
// below n²/2^129: 1.5e-21 for a billion keys. The hash is seeded at random
// for each Apply, so rows cannot be crafted to collide.

// ErrDedupeBudget is a dedupe step whose table would exceed
// Options.DedupeMemoryBudget.
var ErrDedupeBudget = errors.New("dedupe: too many distinct keys for the memory budget")

type dedupe struct {
	cols     []int // nil: every column
	keepLast bool
	last     *keyTable // learned: each key's last row, by index among the rows reaching the step
}

func compileDedupe(s *Step, p *params, columns []string) (compiled, error) {
	d := &dedupe{}
	keep, _, err := p.str("keep", false)
	if err != nil {
		return nil, err
	}
	switch keep {
	case "", "first":
	case "last":
		d.keepLast = true
	default:
		return nil, p.errorf("keep", "is first or last, not %q", keep)
	}
	names, err := p.list("columns", len(columns))
	if err != nil {
		return nil, err
	}
	switch {
	case s.Strategy == StrategyExact && (len(names) > 0 || s.Column != ""):
		return nil, s.errorf("params.columns", "exact compares whole rows: give key columns with the keys strategy")
	case s.Strategy == StrategyExact:
		return d, nil
	case len(names) == 0 && s.Column != "":
		names = []string{s.Column}
	case len(names) == 0:
		return nil, p.errorf("columns", "keys needs the key columns")
	case s.Column != "":
		return nil, s.errorf("column", "give the key columns in params.columns only")
	}
	for _, name := range names {
		i, err := columnIndex(s, "params.columns", name, columns)
		if err != nil {
			return nil, err
		}
		if slices.Contains(d.cols, i) {
			return nil, p.errorf("columns", "%q is listed twice", name)
		}
		d.cols = append(d.cols, i)
	}
	return d, nil
}

func (d *dedupe) needsPass(*engine) bool { return d.keepLast }

func (d *dedupe) learnOp(e *engine) op {
	d.last = newKeyTable(e.opt.DedupeMemoryBudget, true)
	return &dedupeOp{d: d, seed: e.seed, table: d.last, learn: true}
}

func (d *dedupe) newOp(e *engine) (op, error) {
	o := &dedupeOp{d: d, seed: e.seed}
	if d.keepLast {
		if d.last == nil {
			return nil, errors.New("keep last without its first pass")
		}
		o.table = d.last
	} else {
		o.table = newKeyTable(e.opt.DedupeMemoryBudget, false)
	}
	return o, nil
}

type dedupeOp struct {
	d     *dedupe
	seed  uint64
	table *keyTable
	learn bool
	seen  int64 // rows that reached the op
	buf   []byte
}

func (o *dedupeOp) do(r *row, _ *StepChanges) (bool, error) {
	k := o.key(r)
	at := o.seen
	o.seen++
	switch {
	case o.learn:
		i, _, err := o.table.insert(k)
		if err == nil {
			o.table.idx[i] = at
		}
		return true, err
	case o.d.keepLast:
		i, found := o.table.find(k)
		return found && o.table.idx[i] == at, nil
	default:
		_, seen, err := o.table.insert(k)
		return !seen, err
	}
}

// key hashes the key cells of r, each written so that no two different
// keys write the same bytes: a null as 0, a value as 1, its length and its
// bytes.
func (o *dedupeOp) key(r *row) xxh3.Uint128 {
	b := o.buf[:0]
	cell := func(i int) {
		if r.Null[i] {
			b = append(b, 0)
			return
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(r.Values[i])))
		b = append(b, r.Values[i]...)
	}
	if o.d.cols == nil {
		for i := range r.Values {
			cell(i)
		}
	} else {
		for _, i := range o.d.cols {
			cell(i)
		}
	}
	o.buf = b
	return xxh3.Hash128Seed(b, o.seed)
}

// keyTable is a set of 128-bit hashes, with an int64 for each when it
// keeps indices, in open addressing with linear probing. The zero hash
// marks an empty slot; a key that hashes to it is stored as 1.
type keyTable struct {
	keys   []xxh3.Uint128
	idx    []int64 // nil unless the table keeps indices
	n      int
	budget int64
}

const firstTableSlots = 1 << 10

func newKeyTable(budget int64, withIdx bool) *keyTable {
	t := &keyTable{budget: budget, keys: make([]xxh3.Uint128, firstTableSlots)}
	if withIdx {
		t.idx = make([]int64, firstTableSlots)
	}
	return t
}

func (t *keyTable) slotBytes() int64 {
	if t.idx != nil {
		return 24
	}
	return 16
}

// find returns the slot of k, or the empty slot where it would go.
func (t *keyTable) find(k xxh3.Uint128) (int, bool) {
	if k == (xxh3.Uint128{}) {
		k.Lo = 1
	}
	mask := len(t.keys) - 1
	for i := int(k.Lo) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return i, true
		case xxh3.Uint128{}:
			return i, false
		}
	}
}

// insert adds k unless it is there, and returns its slot and whether it
// was there.
func (t *keyTable) insert(k xxh3.Uint128) (int, bool, error) {
	if (t.n+1)*4 > len(t.keys)*3 {
		if err := t.grow(); err != nil {
			return 0, false, err
		}
	}
	if k == (xxh3.Uint128{}) {
		k.Lo = 1
	}
	i, found := t.find(k)
	if !found {
		t.keys[i] = k
		t.n++
	}
	return i, found, nil
}

func (t *keyTable) grow() error {
	size := 2 * len(t.keys)
	if need := int64(len(t.keys)+size) * t.slotBytes(); need > t.budget {
		return fmt.Errorf("%w: room for more than %d distinct keys would take %d MiB, more than the budget of %d MiB (Options.DedupeMemoryBudget)",
			ErrDedupeBudget, t.n, need>>20, t.budget>>20)
	}
	old, oldIdx := t.keys, t.idx
	t.keys = make([]xxh3.Uint128, size)
	if oldIdx != nil {
		t.idx = make([]int64, size)
	}
	for j, k := range old {
		if k == (xxh3.Uint128{}) {
			continue
		}
		i, _ := t.find(k)
		t.keys[i] = k
		if oldIdx != nil {
			t.idx[i] = oldIdx[j]
		}
	}
	return nil
}
