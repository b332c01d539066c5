package profile

import "math/rand/v2"

// reservoir is a uniform sample of fixed size k: Vitter's Algorithm R,
// with the number of items to skip between two replacements drawn at once
// (his Algorithm X), so an item that is not taken costs a comparison rather
// than a random number. Items are stored in reusable per-slot buffers (at
// most keyCap bytes each), so a replacement does not allocate.
type reservoir struct {
	k      int
	keyCap int
	seen   int64
	next   int64 // the item (counted from 1) that next enters the sample
	items  [][]byte
	rng    *rand.Rand
}

func newReservoir(k, keyCap int, seed int64, stream uint64) reservoir {
	return reservoir{k: k, keyCap: keyCap, rng: rand.New(rand.NewPCG(uint64(seed), stream))}
}

func (r *reservoir) cut(v string) string {
	if len(v) > r.keyCap {
		return v[:r.keyCap]
	}
	return v
}

func (r *reservoir) add(v string) {
	if r.offer() {
		r.take(v)
	}
}

// offer counts one more item and reports whether it enters the sample: the
// caller then takes it. A caller that makes the item's text only for the
// sample makes it only then.
func (r *reservoir) offer() bool {
	r.seen++
	return r.seen >= r.next
}

func (r *reservoir) take(v string) {
	if len(r.items) < r.k {
		r.items = append(r.items, []byte(r.cut(v)))
	} else {
		j := r.rng.IntN(r.k)
		r.items[j] = append(r.items[j][:0], r.cut(v)...)
	}
	r.skip()
}

// skip draws the next item to enter the sample once it is full: item t+1
// (t items seen) enters with probability k/(t+1), so the number of items
// passed over before the next one enters is at least s with probability
// prod_{j=1..s} (t+j-k)/(t+j).
func (r *reservoir) skip() {
	if len(r.items) < r.k {
		r.next = r.seen + 1
		return
	}
	u := 1 - r.rng.Float64() // in (0, 1]
	t, k := float64(r.seen+1), float64(r.k)
	quot := (t - k) / t
	s := int64(0)
	for quot > u {
		s++
		t++
		quot *= (t - k) / t
	}
	r.next = r.seen + s + 1
}

// merge replaces r by a uniform sample of the union of both streams: how many
// items come from each side is drawn from the hypergeometric distribution
// (sequential draws without replacement from the two populations), then
// that many items are picked at random from each reservoir. o is unchanged.
func (r *reservoir) merge(o *reservoir) {
	na, nb := r.seen, o.seen
	if nb == 0 {
		return
	}
	if na == 0 { // into an empty sample: o's, as drawn
		r.items = r.items[:0]
		for _, it := range o.items {
			r.items = append(r.items, append([]byte(nil), it...))
		}
		r.seen = nb
		r.skip()
		return
	}
	if na+nb <= int64(r.k) {
		for _, it := range o.items {
			r.items = append(r.items, append([]byte(nil), it...))
		}
		r.seen = na + nb
		r.skip()
		return
	}
	m := min(r.k, len(r.items)+len(o.items))
	ka, kb := 0, 0
	remA, remB := na, nb
	for range m {
		if r.rng.Int64N(remA+remB) < remA {
			ka++
			remA--
		} else {
			kb++
			remB--
		}
	}
	// Only when the two sides were built with different sample sizes can a
	// side hold fewer items than drawn; then the other side fills in.
	if kb > len(o.items) {
		ka, kb = ka+kb-len(o.items), len(o.items)
	}
	if ka > len(r.items) {
		ka, kb = len(r.items), min(len(o.items), m-len(r.items))
	}
	r.rng.Shuffle(len(r.items), func(i, j int) { r.items[i], r.items[j] = r.items[j], r.items[i] })
	idx := r.rng.Perm(len(o.items))[:kb]
	items := r.items[:ka]
	for _, j := range idx {
		items = append(items, append([]byte(nil), o.items[j]...))
	}
	r.items = items
	r.seen = na + nb
	r.skip()
}

func (r *reservoir) strings() []string {
	out := make([]string, len(r.items))
	for i, it := range r.items {
		out[i] = string(it)
	}
	return out
}
