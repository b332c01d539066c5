package profile

import "math"

// dupRows counts rows equal to an earlier row, by their 64-bit hashes.
//
// While the table has at most limit distinct rows, every hash is kept and
// the count is exact. Past that, the set keeps a sample of the distinct
// rows chosen by hash, the same rows whatever the order: at level L, the
// hashes whose top L bits are zero (one in 2^L). A later row whose hash is
// sampled is a duplicate exactly when its hash is in the set; each such
// duplicate stands for 2^L. When the set fills again the level rises by one
// and the hashes the new level leaves out are dropped; the estimate so far
// is kept as it stands. The estimate is unbiased, and exact where it
// matters most: a table without duplicates always gets 0, where
// subtracting a distinct-count estimate from the row count gives a
// spurious figure of the order of the estimate's error (tens of thousands
// on a few million rows). Its standard error is about sqrt(2^L × D) for D
// duplicates counted at level L.
//
// The set holds at most limit hashes (16 MiB of slots for a million) while
// it counts exactly, and a sixteenth of that once it samples.
type dupRows struct {
	set    *rowSet
	limit  int
	level  uint    // hashes kept: those whose top level bits are zero
	dups   int64   // duplicates seen at the current level
	before float64 // the estimate of the duplicates counted at lower levels
}

func newDupRows(limit int) dupRows {
	return dupRows{set: newRowSet(), limit: max(1, limit)}
}

// sampled reports whether h is kept at level l.
func sampled(h uint64, l uint) bool { return l == 0 || h>>(64-l) == 0 }

func (d *dupRows) add(h uint64) {
	if !sampled(h, d.level) {
		return
	}
	if d.set.has(h) {
		d.dups++
		return
	}
	if d.set.len() >= d.bound() {
		d.raise()
		if !sampled(h, d.level) {
			return
		}
	}
	d.set.add(h)
}

// raise moves up levels until at most a quarter of the sampled phase's
// bound is kept (so that it has room to grow before the next raise), freezing the estimate so far, and drops the hashes the new
// level leaves out.
func (d *dupRows) raise() {
	bound := d.sampledBound()
	for {
		d.before += float64(d.dups) * math.Ldexp(1, int(d.level))
		d.dups = 0
		d.level++
		n := 0
		d.set.each(func(h uint64) {
			if sampled(h, d.level) {
				n++
			}
		})
		if n <= bound/4 {
			break
		}
	}
	kept := newRowSetFor(bound)
	d.set.each(func(h uint64) {
		if sampled(h, d.level) {
			kept.add(h)
		}
	})
	d.set = kept
}

// bound is the number of hashes the set may hold: limit while counting
// exactly, then a sixteenth of it (a million: 62,500 hashes in 1 MiB),
// which keeps the estimate within a few percent of the duplicates when they
// are more than about 1% of the rows. A larger sample costs more than its
// size: a quarter of a million added 30 MB to the peak RSS of the
// 3-million-row benchmark.
func (d *dupRows) bound() int {
	if d.level == 0 {
		return d.limit
	}
	return d.sampledBound()
}

func (d *dupRows) sampledBound() int { return max(4, d.limit/16) }

// merge adds the rows counted by o, which follow d's: a row of o whose
// hash d holds is one more duplicate.
func (d *dupRows) merge(o *dupRows) {
	for d.level < o.level {
		d.raise()
	}
	d.before += o.before + float64(o.dups)*math.Ldexp(1, int(o.level))
	o.set.each(d.add)
}

// count returns the number of duplicate rows, and whether it is estimated.
func (d *dupRows) count() (int64, bool) {
	// Below level 1, before is a sum of exact counts (merged profilers').
	return int64(math.Round(d.before + float64(d.dups)*math.Ldexp(1, int(d.level)))), d.level > 0
}
