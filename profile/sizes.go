package profile

import "fmt"

// Memory bounds. A profiler's state is per column, and every part of a
// column's state has a size that does not grow with the rows: so a file of
// many columns is what takes memory, and an attacker needs no more than many
// columns of long, distinct values to make every part take its most.
// Options.MemoryBudget bounds the whole: every column gets an equal share of
// it, and the sizes of its parts are chosen to fit their worst case in that
// share (sizesFor).
//
// Sizes come in three tiers. A column whose share holds the full sizes
// (about 10 MiB at worst) is profiled as without a budget, so narrow files
// are unaffected. Wider files keep fewer heavy hitters, smaller samples and
// shorter copies of long values, and their exact values tables end when
// the table takes the rest of the share in bytes (distinct counts are then
// estimated sooner), not only at 10,000 values. A file too wide for the
// smallest tier is refused (CheckBudget) before anything is allocated.

// sizes bound the state of one column.
type sizes struct {
	distinct   int   // values counted exactly, at most
	exactBytes int64 // bytes the exact values table may take, entries and keys (0: no bound)
	heavy      int   // Space-Saving counters once the exact phase ends
	topKey     int   // bytes kept of each tracked value
	sample     int   // values in the reservoir sample, at most
	sampleKey  int   // bytes kept of each sampled value
	extremeKey int   // bytes kept of the string minimum and maximum
	sigs       int   // format signatures tracked per granularity
	filterBits int   // log2 of the filter counters once the values table evicts
	codes      int   // dictionary codes remembered (see codeCache)
	kllK       int   // size of the quantile sketch (kll)
}

// Measured costs of the parts of a column (TestSizesBoundTheirWorstCase
// checks the sum against the heap a column really takes).
const (
	entryBytes    = 160 // an ssEntry, its index slots and the slack of growing slices
	sigEntryBytes = entryBytes + maxSigLen + 4
	sampleBytes   = 40       // a sampled value's slice header and allocation rounding
	hllBytes      = 16 << 10 // a HyperLogLog of precision 14, dense
	columnBytes   = 2 << 10  // the column struct and its scratch buffers
	filterBytes   = 8 + 2    // a filter counter and its held count
)

// The tiers, largest first. full is what a profiler without a budget uses.
var (
	fullSizes = sizes{distinct: maxExactDistinct, heavy: heavyCap, topKey: topKeyBytes, sample: 1000,
		sampleKey: sampleKeyBytes, extremeKey: 1 << 20, sigs: sigCap, filterBits: filterBits, codes: maxCachedCode, kllK: kllK}
	compactSizes = sizes{distinct: maxExactDistinct, heavy: 256, topKey: 256, sample: 250,
		sampleKey: 256, extremeKey: 1 << 10, sigs: 64, filterBits: 11, codes: 1 << 12, kllK: kllK}
	minimalSizes = sizes{distinct: maxExactDistinct, heavy: 32, topKey: 64, sample: 64,
		sampleKey: 128, extremeKey: 128, sigs: 16, filterBits: 8, codes: 1 << 8, kllK: kllK / 3}
)

// fixedWorst is the most a column of these sizes takes but for its values
// table: sketches (its own, and those of numbers written in a convention,
// readings.go), signature tables, sample, extremes, code cache.
func (s sizes) fixedWorst() int64 {
	return extraReadingsWorst(s.kllK) + int64(hllBytes+kllWorstBytes(s.kllK)+columnBytes+
		2*(s.sigs*sigEntryBytes+filterBytes<<s.filterBits)+
		s.sample*(s.sampleKey+sampleBytes)+
		2*s.extremeKey+
		12*s.codes)
}

// heavyWorst is the most the values table takes past its exact phase: its
// counters with their keys, and the filter with its held counts.
func (s sizes) heavyWorst() int64 {
	return int64(s.heavy*(entryBytes+s.topKey) + filterBytes<<s.filterBits)
}

// exactWorst is the most the exact values table takes without a byte bound.
func (s sizes) exactWorst() int64 { return int64(s.distinct) * int64(entryBytes+s.topKey) }

// worst is the most a column of these sizes takes.
func (s sizes) worst() int64 {
	table := max(s.heavyWorst(), s.exactWorst())
	if s.exactBytes > 0 {
		table = max(s.heavyWorst(), s.exactBytes)
	}
	return s.fixedWorst() + table
}

// minExactBytes is the least a values table gets for its exact phase: room
// for as many short values as the heavy hitters it becomes.
func (s sizes) minExactBytes() int64 { return s.heavyWorst() }

// sizesFor returns the largest sizes whose worst case fits in share bytes
// (0: no bound, the full sizes), for samples of at most sample values, and
// false when not even the smallest tier's does.
func sizesFor(share int64, sample int) (sizes, bool) {
	full := fullSizes
	full.sample = sample
	if share <= 0 || full.worst() <= share {
		return full, true
	}
	for _, s := range []sizes{compactSizes, minimalSizes} {
		s.sample = min(s.sample, sample)
		left := share - s.fixedWorst()
		if left >= s.minExactBytes() {
			s.exactBytes = min(left, s.exactWorst())
			return s, true
		}
	}
	return minimalSizes, false
}

// CheckBudget tells whether a profiler of columns columns fits in budget
// bytes (0: no budget), with an error a user can act on when it does not.
func CheckBudget(columns int, budget int64) error {
	if budget <= 0 || columns == 0 {
		return nil
	}
	if _, ok := sizesFor(budget/int64(columns), minimalSizes.sample); ok {
		return nil
	}
	return fmt.Errorf("profiling %d columns needs at least %d MiB, more than the %d MiB memory budget for one file (at most %d columns fit in it)",
		columns, minimalWorst()*int64(columns)>>20, budget>>20, budget/minimalWorst())
}

func minimalWorst() int64 {
	s := minimalSizes
	s.exactBytes = s.minExactBytes()
	return s.worst()
}
