package profile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// worstCell is a value that makes every part of a column's state take its
// most: distinct, longer than every kept copy, of a new format signature
// most of the time, and, every other row, a number of any sign and
// magnitude, which spreads the quantile sketch over all its bins.
func worstCell(r *rand.Rand, row int) string {
	if row%2 == 1 {
		return strconv.FormatFloat((r.Float64()*2-1)*math.Pow(10, float64(r.IntN(600)-300)), 'g', -1, 64)
	}
	var b strings.Builder
	for b.Len() < 1100+r.IntN(200) {
		switch r.IntN(4) {
		case 0:
			b.WriteString(strconv.Itoa(r.IntN(1000)))
		case 1:
			b.WriteString(strings.Repeat("x", 1+r.IntN(5)))
		case 2:
			b.WriteByte(" -_/.:@#"[r.IntN(8)])
		default:
			b.WriteString(strings.ToUpper(strconv.FormatInt(r.Int64(), 36)))
		}
	}
	return b.String()
}

// The heap a column of each tier takes, fed its worst case, stays within
// the share it was sized for: the costs in sizes.go are upper bounds.
func TestSizesBoundTheirWorstCase(t *testing.T) {
	for _, c := range []struct {
		name    string
		columns int
		share   int64
		rows    int
		want    sizes
	}{
		{"full", 3, fullSizes.worst(), 12_000, fullSizes},
		{"compact", 20, 2 << 20, 8_000, compactSizes},
		{"minimal", 60, 160 << 10, 3_000, minimalSizes},
	} {
		t.Run(c.name, func(t *testing.T) {
			sz, ok := sizesFor(c.share, 1000)
			if !ok || sz.heavy != c.want.heavy || sz.sample != min(c.want.sample, 1000) {
				t.Fatalf("sizes for a share of %d: %+v, want the %s tier", c.share, sz, c.name)
			}
			names := make([]string, c.columns)
			for i := range names {
				names[i] = fmt.Sprint("c", i)
			}
			r := rand.New(rand.NewPCG(1, uint64(c.columns)))
			values, nulls := make([]string, c.columns), make([]bool, c.columns)
			before := liveHeap()
			p := New(names, Options{MemoryBudget: c.share * int64(c.columns)})
			// The peak is at the end of the exact phase or in the steady
			// state: the heap is measured every few rows.
			used := int64(0)
			for row := range c.rows {
				for i := range values {
					values[i] = worstCell(r, row)
				}
				p.Add(values, nulls)
				if row%(c.rows/40) == 0 || row == c.rows-1 {
					dups := int64(8*len(p.dups.set.slots) + 1<<16) // the duplicate-row state is the table's
					used = max(used, int64(liveHeap())-int64(before)-dups)
				}
			}
			runtime.KeepAlive(p)
			for i := range p.cols {
				if !p.cols[i].steady() {
					t.Fatalf("column %d never left its exact phase: the case does not reach the worst", i)
				}
			}
			perColumn := used / int64(c.columns)
			t.Logf("%s: %d KiB a column, share %d KiB", c.name, perColumn>>10, c.share>>10)
			if perColumn > c.share {
				t.Fatalf("a column takes %d bytes, more than its share of %d", perColumn, c.share)
			}
			if perColumn < c.share/3 {
				t.Fatalf("a column takes %d bytes, under a third of its share of %d: the worst case is not reached", perColumn, c.share)
			}
		})
	}
}

// Without a budget, or with one that holds every column's full sizes, the
// profile is the same, to the last bit.
func TestBudgetLeavesNarrowTablesAlone(t *testing.T) {
	tb := genTable(30_000, 7)
	profileWith := func(opt Options) *Profile {
		p := New(benchColumns, opt)
		for i, row := range tb.rows {
			p.Add(row, tb.nulls[i])
		}
		return p.Result()
	}
	free := profileWith(Options{})
	bounded := profileWith(Options{MemoryBudget: int64(len(benchColumns)) * fullSizes.worst()})
	if !reflect.DeepEqual(free, bounded) {
		t.Fatal("a budget that holds the full sizes changed the profile")
	}
}

// A column whose exact values table takes its bytes ends its exact phase
// there: the distinct count is then an estimate, at least the values the
// table held, and within the HyperLogLog's error of the truth.
func TestExactTableEndsAtItsBytes(t *testing.T) {
	const columns, rows = 100, 20_000
	sz, _ := sizesFor(2<<20, 1000)
	names := make([]string, columns)
	for i := range names {
		names[i] = fmt.Sprint("c", i)
	}
	p := New(names, Options{MemoryBudget: columns * 2 << 20})
	values, nulls := make([]string, columns), make([]bool, columns)
	for row := range rows {
		for i := range values {
			values[i] = fmt.Sprintf("%0200d", row*columns+i) // distinct, 200 bytes
		}
		p.Add(values, nulls)
	}
	c := &p.cols[0]
	held := c.distinctLimit
	if held >= maxExactDistinct || int64(held)*(entryBytes+200) > sz.exactBytes+entryBytes+200 {
		t.Fatalf("the exact phase ended at %d values, not at its %d bytes", held, sz.exactBytes)
	}
	col := p.Result().Columns[0]
	if col.DistinctExact || col.Distinct <= int64(held) {
		t.Fatalf("distinct %d (exact %v), want an estimate above %d", col.Distinct, col.DistinctExact, held)
	}
	if math.Abs(float64(col.Distinct)-rows)/rows > 0.03 {
		t.Fatalf("distinct %d, truth %d", col.Distinct, rows)
	}
}

// A file too wide for the smallest sizes is refused, and the message says
// how many columns fit.
func TestCheckBudget(t *testing.T) {
	if err := CheckBudget(10_000, 0); err != nil {
		t.Fatal(err)
	}
	if err := CheckBudget(100, 1<<30); err != nil {
		t.Fatal(err)
	}
	err := CheckBudget(10_000, 256<<20)
	if err == nil || !strings.Contains(err.Error(), "profiling 10000 columns needs at least") || !strings.Contains(err.Error(), "columns fit in it") {
		t.Fatalf("err = %v", err)
	}
	fit := int(256 << 20 / minimalWorst())
	if CheckBudget(fit, 256<<20) != nil || CheckBudget(fit+1, 256<<20) == nil {
		t.Fatalf("%d columns should be the most that fit", fit)
	}
}
