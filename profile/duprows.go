package profile

import (
	"math"

	"github.com/axiomhq/hyperloglog"
)

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
// on a few million rows). Its standard error is about sqrt(2^L × Σ d²) over
// the duplicated rows' extra copies d.
//
// That error is large when a few rows account for many duplicates (blank
// rows repeated a million times): they count only if their hash is in the
// sample, and then 2^L times each. So a HyperLogLog of all the rows runs
// beside the sample from the first level on, and when the row count less
// its distinct estimate disagrees with the sample by more than three of its
// standard errors (0.4% of the distinct rows each), that figure is taken
// instead.
//
// The set holds at most limit hashes (16 MiB of slots for a million) while
// it counts exactly, and a sixteenth of that once it samples.
type dupRows struct {
	set    *rowSet
	limit  int
	level  uint                // hashes kept: those whose top level bits are zero
	dups   int64               // duplicates seen at the current level
	before float64             // the estimate of the duplicates counted at lower levels
	hll    *hyperloglog.Sketch // every row's hash, from the first level on
}

// newDupRows returns an empty count whose set has room for rows hashes
// (at most limit) before it grows.
func newDupRows(limit int, rows int64) dupRows {
	limit = max(1, limit)
	return dupRows{set: newRowSetFor(int(min(int64(limit), max(0, rows)))), limit: limit}
}

// sampled reports whether h is kept at level l.
func sampled(h uint64, l uint) bool { return l == 0 || h>>(64-l) == 0 }

// add counts a row of hash h.
func (d *dupRows) add(h uint64) {
	if d.hll != nil {
		d.hll.InsertHash(h)
	}
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
// bound is kept (so that it has room to grow before the next raise),
// freezing the estimate so far, and drops the hashes the new level leaves
// out.
func (d *dupRows) raise() {
	d.startHLL()
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

// startHLL starts the HyperLogLog, at level 0: the set then holds every
// distinct hash seen.
func (d *dupRows) startHLL() {
	if d.hll == nil {
		d.hll = hyperloglog.New16NoSparse()
		d.set.each(d.hll.InsertHash)
	}
}

// merge adds the rows counted by o, which follow d's: a row of o whose
// hash d holds is one more duplicate.
func (d *dupRows) merge(o *dupRows) error {
	for d.level < o.level {
		d.raise()
	}
	d.before += o.before + float64(o.dups)*math.Ldexp(1, int(o.level))
	if o.hll != nil { // o's set is a sample: its HLL has all its rows
		d.startHLL()
		if err := d.hll.Merge(o.hll); err != nil {
			return err
		}
	}
	o.set.each(d.add)
	return nil
}

// hllRelError is the standard error of a precision-16 HyperLogLog's
// estimate, relative to it: 1.04/sqrt(2^16).
const hllRelError = 1.04 / 256

// count returns the number of duplicate rows among rows, all added, and
// whether it is estimated.
func (d *dupRows) count(rows int64) (int64, bool) {
	// Below level 1, before is a sum of exact counts (merged profilers').
	est := d.before + float64(d.dups)*math.Ldexp(1, int(d.level))
	if d.level == 0 {
		return int64(math.Round(est)), false
	}
	distinct := float64(d.hll.Estimate())
	if byDistinct := float64(rows) - distinct; math.Abs(est-byDistinct) > 3*hllRelError*distinct {
		est = byDistinct
	}
	// More than limit distinct rows were seen.
	est = min(max(est, 0), float64(rows-int64(d.limit)))
	return int64(math.Round(est)), true
}
