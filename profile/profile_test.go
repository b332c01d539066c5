package profile

import (
	"encoding/binary"
	"github.com/zeebo/xxh3"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/dqs/dqs/columnar"
)

// run profiles one column of values; "\x00" stands for null.
func run(values []string, opt Options) Column {
	p := New([]string{"c"}, opt)
	for _, v := range values {
		p.Add([]string{v}, []bool{v == "\x00"})
	}
	return p.Result().Columns[0]
}

func repeat(v string, n int) []string { return slices.Repeat([]string{v}, n) }

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestInference(t *testing.T) {
	for _, tc := range []struct {
		name     string
		values   []string
		typ      string
		min, max string
		typeConf float64
	}{
		{"integer", []string{"3", "-12", "0", "450"}, TypeInteger, "-12", "450", 1},
		{"integer 95%", append(repeat("7", 19), "x"), TypeInteger, "7", "7", 0.95},
		{"below 95% is string", append(repeat("7", 18), "x", "y"), TypeString, "7", "y", 1},
		{"float", []string{"1.5", "-2", "3e2", ".25"}, TypeFloat, "-2", "300", 1},
		{"leading zeros are not numbers", []string{"00123", "04567"}, TypeString, "00123", "04567", 1},
		{"float rendering", []string{"10980570.34", "-0.5", "1e22"}, TypeFloat, "-0.5", "1e+22", 1},
		{"boolean", []string{"yes", "No", "Y", "n"}, TypeBoolean, "false", "true", 1},
		{"boolean 0/1", []string{"0", "1", "1"}, TypeBoolean, "false", "true", 1},
		{"boolean needs all", append(repeat("true", 99), "maybe"), TypeString, "maybe", "true", 1},
		{"all true", []string{"TRUE", "t"}, TypeBoolean, "true", "true", 1},
		{"iso date", []string{"2024-03-01", "2023-12-31", "2024-01-15"}, TypeDate, "2023-12-31", "2024-03-01", 1},
		{"day-first dates", []string{"01/02/2024", "25/01/2024", "03/01/2024"}, TypeDate, "03/01/2024", "01/02/2024", 1},
		{"month-first dates", []string{"01/02/2024", "01/25/2024", "03/01/2024"}, TypeDate, "01/02/2024", "03/01/2024", 1},
		{"datetime", []string{"2024-01-01T10:00:00+02:00", "2024-01-01 09:00:00", "2024-01-01T07:30:00Z"}, TypeDatetime, "2024-01-01T07:30:00Z", "2024-01-01 09:00:00", 1},
		{"string", []string{"b", "a", "c"}, TypeString, "a", "c", 1},
		{"nulls and blanks ignored", []string{"\x00", "", "  ", "5", "6"}, TypeInteger, "5", "6", 1},
		{"empty", []string{"\x00", "", " "}, TypeEmpty, "<nil>", "<nil>", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := run(tc.values, Options{})
			if c.InferredType != tc.typ || deref(c.Min) != tc.min || deref(c.Max) != tc.max || c.TypeConformance != tc.typeConf {
				t.Errorf("got %s [%s, %s] conf %g; want %s [%s, %s] conf %g",
					c.InferredType, deref(c.Min), deref(c.Max), c.TypeConformance, tc.typ, tc.min, tc.max, tc.typeConf)
			}
		})
	}
}

func TestColumnStats(t *testing.T) {
	c := run([]string{"10", "20", "\x00", "", "30", "40", "x"}, Options{})
	if c.Count != 7 || c.Nulls != 1 || c.Empty != 1 || c.Distinct != 6 || !c.DistinctExact {
		t.Errorf("counts: %+v", c)
	}
	if c.InferredType != TypeString { // 4 of 5 non-empty values are integers: 80%
		t.Fatalf("type %s", c.InferredType)
	}
	if c.Mean != nil || c.Quantiles != nil {
		t.Error("numeric stats on a string column")
	}
	if c.MinLength != 0 || c.MaxLength != 2 || c.MeanLength != 9.0/6 {
		t.Errorf("lengths %d %d %g", c.MinLength, c.MaxLength, c.MeanLength)
	}
	if c.Format != "9+" || c.FormatConformance != 0.8 {
		t.Errorf("format %q %g", c.Format, c.FormatConformance)
	}

	c = run([]string{"2", "4", "4", "4", "5", "5", "7", "9"}, Options{TopK: 2})
	if *c.Mean != 5 || math.Abs(*c.StdDev-math.Sqrt(32.0/7)) > 1e-12 {
		t.Errorf("mean %g sd %g", *c.Mean, *c.StdDev)
	}
	// Lower quantiles: p50 of 8 values is the 4th, p01 the 1st, p99 the 8th.
	if *c.Median != 4 || len(c.Quantiles) != 7 || c.Quantiles["p01"] != 2 || c.Quantiles["p25"] != 4 || c.Quantiles["p99"] != 9 {
		t.Errorf("median %g quantiles %v", *c.Median, c.Quantiles)
	}
	want := []ValueCount{{"4", 3}, {"5", 2}}
	if !reflect.DeepEqual(c.TopValues, want) {
		t.Errorf("top %v", c.TopValues)
	}
}

func TestFormatGranularity(t *testing.T) {
	var ids []string
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		ids = append(ids, strconv.FormatUint(r.Uint64()&0xffffffff, 16)+"-"+strconv.FormatUint(r.Uint64()&0xffff, 16))
	}
	c := run(ids, Options{})
	if c.Format != "X+-X+" || c.FormatConformance != 1 {
		t.Errorf("hex ids: %q %g", c.Format, c.FormatConformance)
	}
	c = run([]string{"AB-12", "CD-34", "EF-56", "gh-78"}, Options{})
	if c.Format != "A+-9+" || c.FormatConformance != 1 {
		t.Errorf("codes: %q %g", c.Format, c.FormatConformance)
	}
	c = run([]string{"1.5", "2.25", "3", "-4.5"}, Options{})
	if c.Format != "9+.9+" || c.FormatConformance != 0.75 {
		t.Errorf("floats: %q %g", c.Format, c.FormatConformance)
	}
}

func TestEmptyProfile(t *testing.T) {
	pr := New([]string{"a", "b"}, Options{}).Result()
	if pr.RowCount != 0 || pr.DuplicateRows != 0 || pr.DuplicateRowsEstimated || len(pr.Columns) != 2 {
		t.Fatalf("%+v", pr)
	}
	c := pr.Columns[0]
	if c.Name != "a" || c.InferredType != TypeEmpty || c.TypeConformance != 1 || c.FormatConformance != 1 ||
		c.Min != nil || c.Mean != nil || c.MeanLength != 0 || len(c.TopValues) != 0 || len(c.Sample) != 0 || !c.DistinctExact {
		t.Errorf("%+v", c)
	}
}

func TestShortAndLongRows(t *testing.T) {
	p := New([]string{"a", "b"}, Options{})
	p.Add([]string{"1"}, nil)
	p.Add([]string{"1", "2", "3"}, []bool{false})
	pr := p.Result()
	if pr.Columns[1].Nulls != 1 || pr.Columns[1].Count != 2 || pr.Columns[0].Count != 2 {
		t.Errorf("%+v", pr.Columns)
	}
}

func TestDuplicateRows(t *testing.T) {
	p := New([]string{"a", "b"}, Options{})
	rows := [][]string{{"x", "1"}, {"x", "1"}, {"x", ""}, {"x", ""}, {"1", "x"}, {"x", "1"}}
	nulls := [][]bool{{false, false}, {false, false}, {false, true}, {false, false}, {false, false}, {false, false}}
	for i := range rows {
		p.Add(rows[i], nulls[i])
	}
	// duplicates: row 2 of row 1, row 6 of row 1; ("x", null) differs from ("x", "").
	if pr := p.Result(); pr.DuplicateRows != 2 || pr.DuplicateRowsEstimated {
		t.Errorf("duplicates %d", pr.DuplicateRows)
	}
}

func withLimits(t *testing.T, distinct, rows int) {
	t.Helper()
	d, r := maxExactDistinct, maxExactRows
	maxExactDistinct, maxExactRows = distinct, rows
	t.Cleanup(func() { maxExactDistinct, maxExactRows = d, r })
}

func TestDuplicateRowsEstimate(t *testing.T) {
	withLimits(t, maxExactDistinct, 40_000)
	p := New([]string{"a"}, Options{})
	for i := range 100_000 {
		p.Add([]string{strconv.Itoa(i % 80_000)}, nil) // 20,000 duplicates
	}
	// The sample holds 2,500 distinct rows at most: the standard error is
	// about 800 here.
	pr := p.Result()
	if !pr.DuplicateRowsEstimated || math.Abs(float64(pr.DuplicateRows)-20_000) > 0.03*100_000 {
		t.Errorf("duplicates %d estimated %v", pr.DuplicateRows, pr.DuplicateRowsEstimated)
	}
	// Past the exact bound, a table without duplicates still has none:
	// only sampled rows can count as duplicates, and each only if it is one.
	p = New([]string{"a", "b"}, Options{})
	for i := range 300_000 {
		p.Add([]string{strconv.Itoa(i), strconv.Itoa(i % 7)}, nil)
	}
	if pr := p.Result(); !pr.DuplicateRowsEstimated || pr.DuplicateRows != 0 {
		t.Errorf("no duplicates: %d estimated %v", pr.DuplicateRows, pr.DuplicateRowsEstimated)
	}
}

// The estimate is unbiased: over tables of various sizes its error
// averages out, and each time it stays within a few standard errors.
func TestDuplicateRowsEstimateAccuracy(t *testing.T) {
	const tables, limit = 20, 160_000 // a sample of 10,000 hashes
	var sumErr float64
	var key [16]byte
	for k := range tables {
		d := newDupRows(limit, 0)
		distinct := 200_000 + 50_000*k
		rows := 0
		for i := range distinct {
			binary.LittleEndian.PutUint64(key[:], uint64(k))
			binary.LittleEndian.PutUint64(key[8:], uint64(i))
			h := xxh3.Hash(key[:])
			for range 1 + i%3 { // a third once, a third twice, a third three times
				d.add(h)
				rows++
			}
		}
		got, estimated := d.count(int64(rows))
		want := float64(rows - distinct)
		// At level L the standard error is sqrt(2^L × Σ d²) over the
		// distinct rows' duplicates d: about 2% of the duplicates here.
		if !estimated || math.Abs(float64(got)-want) > 0.08*want {
			t.Errorf("table %d: %d duplicates (estimated %v), want %v", k, got, estimated, want)
		}
		sumErr += (float64(got) - want) / want
	}
	if mean := sumErr / tables; math.Abs(mean) > 0.015 {
		t.Errorf("mean relative error %.4f: biased", mean)
	}
}

// A few rows repeated many times (blank rows, say) are rarely in the
// sample: the row count less the HyperLogLog's distinct estimate, run beside
// it, catches them, and bounds the estimate when one of them is sampled.
func TestDuplicateRowsHeavyRow(t *testing.T) {
	const limit, distinct = 20_000, 150_000
	var key [16]byte
	for k := range 16 {
		d := newDupRows(limit, 0)
		for i := range distinct {
			binary.LittleEndian.PutUint64(key[:], uint64(k))
			binary.LittleEndian.PutUint64(key[8:], uint64(i))
			d.add(xxh3.Hash(key[:]))
		}
		binary.LittleEndian.PutUint64(key[8:], 1<<40) // one more row, then its copies
		heavy := xxh3.Hash(key[:])
		for range distinct {
			d.add(heavy)
		}
		want := float64(distinct - 1)
		if got, estimated := d.count(2 * distinct); !estimated || math.Abs(float64(got)-want) > 0.03*want {
			t.Errorf("table %d: %d duplicates (estimated %v), want %v", k, got, estimated, want)
		}
	}
}

func TestDistinct(t *testing.T) {
	p := New([]string{"a"}, Options{})
	for i := range maxExactDistinct {
		p.Add([]string{strconv.Itoa(i)}, nil)
	}
	if c := p.Result().Columns[0]; c.Distinct != int64(maxExactDistinct) || !c.DistinctExact {
		t.Errorf("at the bound: %d %v", c.Distinct, c.DistinctExact)
	}
	for i := range 60_000 {
		p.Add([]string{strconv.Itoa(i)}, nil)
	}
	c := p.Result().Columns[0]
	if c.DistinctExact || math.Abs(float64(c.Distinct)-60_000) > 0.03*60_000 {
		t.Errorf("past the bound: %d %v", c.Distinct, c.DistinctExact)
	}
}

func TestQuantilesAccuracy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([]float64, 20_000)
	in := make([]string, len(vals))
	for i := range vals {
		vals[i] = math.Exp(r.NormFloat64()*2) * 100
		if i%10 == 0 {
			vals[i] = -vals[i]
		}
		in[i] = strconv.FormatFloat(vals[i], 'f', -1, 64)
	}
	c := run(in, Options{})
	slices.Sort(vals)
	if c.DistinctExact {
		t.Fatal("the column is exact: the sketch is not tested")
	}
	for i, name := range quantileNames {
		got := c.Quantiles[name]
		if e := rankError(vals, got, lowerRank(quantileValues[i], int64(len(vals)))); e > 0.005 {
			t.Errorf("%s = %g, %.2f%% of rank from %g", name, got, 100*e, exactLower(vals, quantileValues[i]))
		}
	}
	if *c.Median != c.Quantiles["p50"] {
		t.Error("median != p50")
	}
}

// A reader may hand over strings backed by a buffer it reuses: the profiler
// must copy what it keeps.
func TestCopiesInput(t *testing.T) {
	p := New([]string{"a", "b"}, Options{SampleSize: 5})
	buf := make([]byte, 6)
	vals := make([]string, 2)
	null := make([]bool, 2)
	words := []string{"apple!", "banana", "cherry", "dates?"}
	for i := range 40 {
		copy(buf, words[i%4])
		vals[0] = unsafe.String(&buf[0], 6)
		vals[1] = unsafe.String(&buf[0], 3)
		null[1] = i%2 == 0
		p.Add(vals, null)
	}
	copy(buf, "XXXXXX")
	c := p.Result().Columns[0]
	if *c.Min != "apple!" || *c.Max != "dates?" || c.TopValues[0].Value != "apple!" || c.Format != "A+?" && c.Format != "A+" {
		t.Errorf("%+v", c)
	}
	for _, s := range append(c.Sample, p.Result().Columns[1].Sample...) {
		if s[0] == 'X' {
			t.Errorf("sample aliases the input buffer: %q", s)
		}
	}
}

func TestSampleDeterministic(t *testing.T) {
	tb := genTable(5000, 1)
	a := profileTable(tb, 0, len(tb.rows), Options{Seed: 7, SampleSize: 50}).Result()
	b := profileTable(tb, 0, len(tb.rows), Options{Seed: 7, SampleSize: 50}).Result()
	c := profileTable(tb, 0, len(tb.rows), Options{Seed: 8, SampleSize: 50}).Result()
	if !reflect.DeepEqual(a.Columns[2].Sample, b.Columns[2].Sample) || len(a.Columns[2].Sample) != 50 {
		t.Error("same seed, different samples")
	}
	if reflect.DeepEqual(a.Columns[2].Sample, c.Columns[2].Sample) {
		t.Error("different seeds, same sample")
	}
	// Nulls are never sampled.
	for _, s := range a.Columns[13].Sample {
		if s == "" {
			t.Error("blank value sampled")
		}
	}
}

func TestReservoirUniform(t *testing.T) {
	// Each of 100 items lands in a size-10 sample with probability 0.1,
	// whether sampled in one pass or merged from two uneven halves.
	for _, split := range []int{100, 30} {
		hits := make([]int, 100)
		const trials = 4000
		for s := range trials {
			a := newReservoir(10, 8, int64(s), 0)
			b := newReservoir(10, 8, int64(s), 1)
			for i := range 100 {
				if i < split {
					a.add(strconv.Itoa(i))
				} else {
					b.add(strconv.Itoa(i))
				}
			}
			a.merge(&b)
			if len(a.items) != 10 || a.seen != 100 {
				t.Fatalf("size %d seen %d", len(a.items), a.seen)
			}
			for _, it := range a.items {
				n, _ := strconv.Atoi(string(it))
				hits[n]++
			}
		}
		for i, h := range hits {
			if p := float64(h) / trials; math.Abs(p-0.1) > 0.025 {
				t.Errorf("split %d: item %d sampled with p=%.3f", split, i, p)
			}
		}
	}
}

func TestSpaceSavingGuarantees(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	z := rand.NewZipf(r, 1.2, 1, 5000)
	const capacity = 50
	parts := []*spaceSaving{newSpaceSaving(capacity, 16), newSpaceSaving(capacity, 16), newSpaceSaving(capacity, 16)}
	truth := map[string]int64{}
	var n int64
	for i := range 30_000 {
		v := strconv.FormatUint(z.Uint64(), 10)
		truth[v]++
		n++
		s := parts[i%3]
		if i > 20_000 {
			s = parts[2]
		}
		s.add(hashString(v), v)
	}
	check := func(name string, s *spaceSaving) {
		checkStreamSummary(t, s)
		seen := map[string]bool{}
		for _, e := range s.entries {
			v := string(e.key)
			seen[v] = true
			if tr := truth[v]; e.count-e.err > tr || e.count < tr || e.err > n/capacity {
				t.Errorf("%s: %s count %d err %d true %d", name, v, e.count, e.err, tr)
			}
		}
		for v, c := range truth {
			if c > n/capacity && !seen[v] {
				t.Errorf("%s: heavy hitter %s (%d) missing", name, v, c)
			}
		}
		// The filter bounds the items without a counter and never passes the
		// smallest count, or a newcomer's count would understate it.
		for j, f := range s.filter {
			if f > s.floor() {
				t.Errorf("%s: filter counter %d is %d, above the smallest count %d", name, j, f, s.floor())
			}
		}
		for v, c := range truth {
			if !seen[v] && s.evicted && c > s.filter[s.slot(hashString(v))] {
				t.Errorf("%s: %s (%d) has no counter and its filter counter says %d", name, v, c, s.filter[s.slot(hashString(v))])
			}
		}
	}
	// The same stream into a table that starts at 4×capacity counters and
	// shrinks to capacity when the first item must be dropped.
	shrunk := newSpaceSaving(4*capacity, 16)
	shrunk.shrink = capacity
	r3 := rand.New(rand.NewPCG(5, 6))
	z3 := rand.NewZipf(r3, 1.2, 1, 5000)
	for range 30_000 {
		v := strconv.FormatUint(z3.Uint64(), 10)
		shrunk.add(hashString(v), v)
	}
	if shrunk.cap != capacity || len(shrunk.entries) != capacity {
		t.Fatalf("not shrunk: cap %d, %d entries", shrunk.cap, len(shrunk.entries))
	}
	check("shrunk", shrunk)

	single := newSpaceSaving(capacity, 16)
	r2 := rand.New(rand.NewPCG(5, 6))
	z2 := rand.NewZipf(r2, 1.2, 1, 5000)
	for range 30_000 {
		v := strconv.FormatUint(z2.Uint64(), 10)
		single.add(hashString(v), v)
	}
	check("single", single)
	parts[0].merge(parts[1])
	parts[0].merge(parts[2])
	check("merged", parts[0])
}

func hashString(s string) uint64 {
	return mix(uint64(len(s)) ^ uint64(s[0])<<8 ^ uint64(s[len(s)-1])<<16 ^ uint64(fnv(s)))
}

func fnv(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

func TestSpaceSavingCollision(t *testing.T) {
	s := newSpaceSaving(4, 16)
	if s.add(1, "a") != ssInserted || s.add(1, "b") != ssCollision || s.add(1, "a") != ssHit {
		t.Fatal("collision not detected")
	}
	o := newSpaceSaving(4, 16)
	o.add(1, "b")
	if !s.merge(o) {
		t.Error("collision not detected on merge")
	}
}

func TestMergeErrors(t *testing.T) {
	p := New([]string{"a"}, Options{})
	if p.Merge(nil) == nil || p.Merge(p) == nil || p.Merge(New([]string{"b"}, Options{})) == nil ||
		p.Merge(New([]string{"a", "b"}, Options{})) == nil {
		t.Error("bad merges accepted")
	}
}

// compare checks that merged agrees with single: exactly for exact metrics,
// within sketch error for the others.
func compare(t *testing.T, single, merged *Profile) {
	t.Helper()
	if single.RowCount != merged.RowCount || single.DuplicateRowsEstimated != merged.DuplicateRowsEstimated {
		t.Errorf("rows %d/%d", single.RowCount, merged.RowCount)
	}
	if !single.DuplicateRowsEstimated && single.DuplicateRows != merged.DuplicateRows {
		t.Errorf("duplicates %d/%d", single.DuplicateRows, merged.DuplicateRows)
	}
	if single.DuplicateRowsEstimated && math.Abs(float64(single.DuplicateRows-merged.DuplicateRows)) > 0.01*float64(single.RowCount) {
		t.Errorf("estimated duplicates %d/%d", single.DuplicateRows, merged.DuplicateRows)
	}
	near := func(a, b *float64) bool {
		if a == nil || b == nil {
			return a == b
		}
		return math.Abs(*a-*b) <= 1e-9*math.Max(1, math.Abs(*a))
	}
	for i := range single.Columns {
		s, m := single.Columns[i], merged.Columns[i]
		name := s.Name
		if s.Count != m.Count || s.Nulls != m.Nulls || s.Empty != m.Empty || s.DistinctExact != m.DistinctExact ||
			s.InferredType != m.InferredType || deref(s.Min) != deref(m.Min) || deref(s.Max) != deref(m.Max) ||
			s.MinLength != m.MinLength || s.MaxLength != m.MaxLength || s.MeanLength != m.MeanLength ||
			s.TypeConformance != m.TypeConformance || len(s.Sample) != len(m.Sample) {
			t.Errorf("%s: single %+v\nmerged %+v", name, s, m)
			continue
		}
		if !near(s.Mean, m.Mean) || !near(s.StdDev, m.StdDev) {
			t.Errorf("%s: mean/sd %v %v / %v %v", name, *s.Mean, *s.StdDev, *m.Mean, *m.StdDev)
		}
		// Exact quantiles agree exactly; a sketch's are within its rank
		// error of the truth, which TestKLLRankError checks of merges.
		if len(s.Quantiles) != len(m.Quantiles) || (s.DistinctExact && !reflect.DeepEqual(s.Quantiles, m.Quantiles)) {
			t.Errorf("%s: quantiles %v/%v", name, s.Quantiles, m.Quantiles)
		}
		if s.DistinctExact {
			if s.Distinct != m.Distinct || !reflect.DeepEqual(s.TopValues, m.TopValues) {
				t.Errorf("%s: distinct %d/%d top %v/%v", name, s.Distinct, m.Distinct, s.TopValues, m.TopValues)
			}
		} else if math.Abs(float64(s.Distinct-m.Distinct)) > 0.01*float64(s.Distinct) {
			t.Errorf("%s: estimated distinct %d/%d", name, s.Distinct, m.Distinct)
		}
		if s.Format != m.Format || math.Abs(s.FormatConformance-m.FormatConformance) > 0.01 {
			t.Errorf("%s: format %q %g / %q %g", name, s.Format, s.FormatConformance, m.Format, m.FormatConformance)
		}
	}
}

func TestMergeEqualsSinglePass(t *testing.T) {
	tb := genTable(20_000, 9)
	opt := Options{Seed: 3}
	single := profileTable(tb, 0, len(tb.rows), opt).Result()
	for _, cuts := range [][]int{{10_000}, {1, 7_000, 7_001, 19_000}, {0, 20_000}} {
		bounds := append(append([]int{0}, cuts...), len(tb.rows))
		merged := profileTable(tb, bounds[0], bounds[1], opt)
		for i := 1; i+1 < len(bounds); i++ {
			if err := merged.Merge(profileTable(tb, bounds[i], bounds[i+1], Options{Seed: int64(i)})); err != nil {
				t.Fatal(err)
			}
		}
		compare(t, single, merged.Result())
	}
	// Uneven tree of merges, then more rows added to the merged profiler.
	a, b, c := profileTable(tb, 0, 5000, opt), profileTable(tb, 5000, 6000, opt), profileTable(tb, 6000, 15_000, opt)
	if err := b.Merge(c); err != nil {
		t.Fatal(err)
	}
	if err := a.Merge(b); err != nil {
		t.Fatal(err)
	}
	for i := 15_000; i < len(tb.rows); i++ {
		a.Add(tb.rows[i], tb.nulls[i])
	}
	compare(t, single, a.Result())
}

func TestMergePastExactBounds(t *testing.T) {
	withLimits(t, 500, 3000)
	tb := genTable(20_000, 11)
	single := profileTable(tb, 0, len(tb.rows), Options{}).Result()
	if !single.DuplicateRowsEstimated || single.Columns[0].DistinctExact || !single.Columns[9].DistinctExact {
		t.Fatal("bounds not crossed as planned")
	}
	merged := profileTable(tb, 0, 200, Options{})
	for lo := 200; lo < len(tb.rows); lo += 4950 {
		if err := merged.Merge(profileTable(tb, lo, min(lo+4950, len(tb.rows)), Options{})); err != nil {
			t.Fatal(err)
		}
	}
	compare(t, single, merged.Result())
	// Exact column: top values agree, and past the bound the bounded counts
	// never overstate the truth.
	truth := map[string]int64{}
	for i := range tb.rows {
		truth[tb.rows[i][3]]++
	}
	for _, pr := range []*Profile{single, merged.Result()} {
		for _, vc := range pr.Columns[3].TopValues {
			if vc.Count > truth[vc.Value] || vc.Count < truth[vc.Value]-int64(len(tb.rows)/500) {
				t.Errorf("email %q count %d true %d", vc.Value, vc.Count, truth[vc.Value])
			}
		}
	}
}

func TestAddDoesNotAllocate(t *testing.T) {
	tb := genTable(3000, 5)
	p := profileTable(tb, 0, len(tb.rows), Options{})
	i := 0
	allocs := testing.AllocsPerRun(3000, func() {
		p.Add(tb.rows[i], tb.nulls[i])
		i = (i + 1) % len(tb.rows)
	})
	if allocs > 0.01 {
		t.Errorf("%.3f allocations per row in steady state", allocs)
	}
}

func TestU64Index(t *testing.T) {
	ix := newU64Index()
	ref := map[uint64]int32{}
	r := rand.New(rand.NewPCG(1, 1))
	for i := range 200_000 {
		k := r.Uint64N(3000) * 0x9e3779b97f4a7c15 // clustered low bits too
		if i%7 == 0 {
			k &= 0xff
		}
		switch r.IntN(3) {
		case 0, 1:
			ix.set(k, int32(i))
			ref[k] = int32(i)
		case 2:
			ix.del(k)
			delete(ref, k)
		}
	}
	if ix.n != len(ref) {
		t.Fatalf("size %d want %d", ix.n, len(ref))
	}
	for k, v := range ref {
		if got, ok := ix.get(k); !ok || got != v {
			t.Fatalf("get(%d) = %d, %v; want %d", k, got, ok, v)
		}
	}
	for k := range uint64(3000) {
		k *= 0x9e3779b97f4a7c15
		if _, ok := ref[k]; !ok {
			if _, ok := ix.get(k); ok {
				t.Fatalf("deleted key %d still found", k)
			}
		}
	}
}

// checkStreamSummary verifies the Stream-Summary structure: buckets in
// increasing count order, each holding exactly the entries of its count, and
// an index that maps every entry's hash to it.
func checkStreamSummary(t *testing.T, s *spaceSaving) {
	t.Helper()
	if !s.evicted { // the buckets are only built at the first eviction
		for i, e := range s.entries {
			if j, ok := s.index.get(e.hash); !ok || int(j) != i {
				t.Fatalf("entry %d not indexed", i)
			}
		}
		if s.index.n != len(s.entries) {
			t.Fatalf("%d indexed, %d held", s.index.n, len(s.entries))
		}
		return
	}
	seen := 0
	prev := int64(-1)
	for b := s.minB; b != nil32; b = s.buckets[b].next {
		bk := s.buckets[b]
		if bk.count <= prev || bk.head == nil32 {
			t.Fatalf("bucket %d: count %d after %d, head %d", b, bk.count, prev, bk.head)
		}
		if bk.next != nil32 && s.buckets[bk.next].prev != b {
			t.Fatalf("bucket %d: broken back link", b)
		}
		prev = bk.count
		last := int32(nil32)
		for i := bk.head; i != nil32; i = s.entries[i].next {
			e := s.entries[i]
			if e.bucket != b || e.count != bk.count || e.prev != last {
				t.Fatalf("entry %d in bucket %d: %+v", i, b, e)
			}
			if j, ok := s.index.get(e.hash); !ok || j != i {
				t.Fatalf("entry %d not indexed", i)
			}
			last = i
			seen++
		}
	}
	if seen != len(s.entries) || s.index.n != len(s.entries) {
		t.Fatalf("%d entries reachable, %d indexed, %d held", seen, s.index.n, len(s.entries))
	}
	// held counts, per filter counter, the entries that hash to it.
	held := make([]uint16, 1<<s.fbits)
	for _, e := range s.entries {
		held[s.slot(e.hash)]++
	}
	if !slices.Equal(held, s.held) {
		t.Fatal("held counts differ from the entries' filter counters")
	}
}

// Chunks profiled concurrently, then merged (run with -race).
func TestParallelChunks(t *testing.T) {
	tb := genTable(12_000, 13)
	single := profileTable(tb, 0, len(tb.rows), Options{}).Result()
	parts := make([]*Profiler, 4)
	done := make(chan int)
	for k := range parts {
		go func() {
			lo, hi := k*len(tb.rows)/4, (k+1)*len(tb.rows)/4
			parts[k] = profileTable(tb, lo, hi, Options{Seed: int64(k)})
			done <- k
		}()
	}
	for range parts {
		<-done
	}
	for _, o := range parts[1:] {
		if err := parts[0].Merge(o); err != nil {
			t.Fatal(err)
		}
	}
	compare(t, single, parts[0].Result())
}

func TestAddColumnsEqualsAdd(t *testing.T) {
	tb := genTable(30_000, 13)
	want := profileTable(tb, 0, len(tb.rows), Options{Seed: 4}).Result()
	p := New(benchColumns, Options{Seed: 4})
	const batch = 7_000 // batches that do not divide the rows
	hashes := make([][]uint64, len(benchColumns))
	for i := range hashes {
		hashes[i] = make([]uint64, batch)
	}
	for _, bt := range tb.batches(batch) {
		for i := len(benchColumns) - 1; i >= 0; i-- { // column order does not matter
			p.AddColumn(i, &bt.Cols[i], hashes[i])
		}
		p.AddRows(bt.Rows, hashes)
	}
	steady := 0 // columns past their exact phase take addSteady's passes
	for i := range p.cols {
		if p.cols[i].steady() {
			steady++
		}
	}
	if steady == 0 {
		t.Fatal("no column went past its exact phase: addSteady untested")
	}
	if got := p.Result(); !reflect.DeepEqual(want, got) {
		t.Error("profiling column by column differs from Add row by row")
	}
}

func TestReservoirMergeIntoEmptyKeepsTheSample(t *testing.T) {
	a, b := newReservoir(5, 16, 1, 0), newReservoir(5, 16, 2, 0)
	for i := range 100 {
		b.add(strconv.Itoa(i))
	}
	a.merge(&b)
	if a.seen != 100 || !reflect.DeepEqual(a.strings(), b.strings()) {
		t.Errorf("merged into empty: %v (seen %d), want %v", a.strings(), a.seen, b.strings())
	}
}

// Values the exact table holds are observed once per distinct value, with
// their count as weight, when the table fills or a result is asked for;
// observing them one by one from the start must agree (up to the rounding
// of mean and standard deviation).
func TestFoldEqualsOneByOne(t *testing.T) {
	tb := genTable(30_000, 21)
	// Long values (past the table's key bytes) and blank ones take the
	// one-by-one path even before the fold.
	for i := 0; i < len(tb.rows); i += 97 {
		tb.rows[i][13] = strings.Repeat("long note ", 60) + strconv.Itoa(i%5)
		tb.rows[i+1][9] = " "
	}
	folded := profileTable(tb, 0, len(tb.rows), Options{Seed: 9}).Result()
	p := New(benchColumns, Options{Seed: 9})
	for i := range p.cols {
		p.cols[i].fold() // nothing to fold yet: every value is observed as it comes
	}
	for i := range tb.rows {
		p.Add(tb.rows[i], tb.nulls[i])
	}
	oneByOne := p.Result()
	compare(t, oneByOne, folded)
	for i := range folded.Columns {
		f, o := folded.Columns[i], oneByOne.Columns[i]
		if f.Format != o.Format || f.FormatConformance != o.FormatConformance || !reflect.DeepEqual(f.Sample, o.Sample) {
			t.Errorf("%s: format %q %v sample %d / format %q %v sample %d", f.Name, f.Format, f.FormatConformance, len(f.Sample), o.Format, o.FormatConformance, len(o.Sample))
		}
	}
}

// A reader that finds its columns as it reads appends a column when its
// first value shows up, and may list a column that is only ever null which
// the file's final columns leave out. Neither may change the result.
func TestAppendedColumnsEqualFullWidth(t *testing.T) {
	tb := genTable(20_000, 7)
	const late, notes = 9_000, 13 // notes is null before row late
	for r := range late {
		tb.nulls[r][notes] = true
	}
	want := profileTable(tb, 0, len(tb.rows), Options{Seed: 3}).Result()

	// "ghost" (never a value) comes first; notes is appended at row late.
	p := New(append([]string{"ghost"}, benchColumns[:notes]...), Options{Seed: 3})
	for r := range late {
		p.Add(append([]string{""}, tb.rows[r][:notes]...), append([]bool{true}, tb.nulls[r][:notes]...))
	}
	p.AppendColumns(benchColumns[notes:])
	for r := late; r < len(tb.rows); r++ {
		p.Add(append([]string{""}, tb.rows[r]...), append([]bool{true}, tb.nulls[r]...))
	}
	got := p.Result()
	if got.Columns[0].Name != "ghost" || got.Columns[0].Nulls != int64(len(tb.rows)) {
		t.Fatalf("ghost column: %+v", got.Columns[0])
	}
	got.Columns = got.Columns[1:]
	if want.DuplicateRows == 0 {
		t.Fatal("the table has no duplicate rows: the test would not see row hashes change")
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("appended columns change the profile:\nwant %+v\ngot  %+v", want, got)
	}
}

// A row hash tells which column holds a value, nulls or not.
func TestRowHashKnowsTheColumn(t *testing.T) {
	p := New([]string{"a", "b", "id", "x", "y"}, Options{})
	rows := [][]string{{"b", "", "", "", ""}, {"", "a", "", "", ""}, {"", "", "1", "y", ""}, {"", "", "1", "", "x"}}
	for _, row := range rows {
		null := make([]bool, len(row))
		for i, v := range row {
			null[i] = v == ""
		}
		p.Add(row, null)
	}
	if d := p.Result().DuplicateRows; d != 0 {
		t.Errorf("%d duplicate rows among rows that differ only in where their values are", d)
	}
}

// Cells that carry dictionary codes are profiled exactly as the same cells
// without them: the code cache only spares hashing and lookups. The codes
// here are as a reader may send them: dictionaries that change between
// batches and within the file, values repeated under two codes, nulls with
// any code, values past the table's key bytes and blank ones, and columns
// that pass the exact bound while coded.
func TestCodedColumnsEqualUncoded(t *testing.T) {
	withLimits(t, 300, maxExactRows)
	tb := genTable(30_000, 17)
	for i := 0; i < len(tb.rows); i += 89 {
		tb.rows[i][13] = strings.Repeat("long note ", 60) + strconv.Itoa(i%5)
		tb.rows[i+1][9] = " "
	}
	const batch = 3_000
	plain, coded := tb.batches(batch), tb.batches(batch)
	// Per dictionary: each value's code, and the next code to hand out.
	type dict struct {
		name   uint64
		codeOf map[string]int32
		next   int32
	}
	rng := rand.New(rand.NewPCG(5, 6))
	dicts := make([]*dict, len(benchColumns))
	for k, b := range coded {
		for i := range b.Cols {
			if k%3 == 0 { // a new dictionary every third batch
				dicts[i] = &dict{name: columnar.NewDict(), codeOf: map[string]int32{}}
			}
			d, col := dicts[i], &b.Cols[i]
			col.Dict, col.Codes = d.name, col.Codes[:0]
			for r := range col.Len() {
				v, null := col.Cell(r)
				code, ok := d.codeOf[v]
				switch {
				case null:
					code = int32(rng.IntN(int(d.next) + 5))
				case !ok || rng.IntN(20) == 0: // a value may repeat under a new code
					code = d.next
					d.next++
					d.codeOf[v] = code
				}
				col.Codes = append(col.Codes, code)
			}
		}
	}
	profileBatches := func(bs []*columnar.Batch) (*Profile, [][]uint64) {
		p := New(benchColumns, Options{Seed: 3})
		hashes := make([][]uint64, len(benchColumns))
		for i := range hashes {
			hashes[i] = make([]uint64, batch)
		}
		var all [][]uint64
		for _, b := range bs {
			for i := range benchColumns {
				p.AddColumn(i, &b.Cols[i], hashes[i])
				all = append(all, slices.Clone(hashes[i][:b.Rows]))
			}
			p.AddRows(b.Rows, hashes)
		}
		return p.Result(), all
	}
	for _, b := range coded {
		for i := range b.Cols {
			if !b.Cols[i].HasCodes() {
				t.Fatalf("column %d has no codes", i)
			}
		}
	}
	want, wantHashes := profileBatches(plain)
	got, gotHashes := profileBatches(coded)
	if !reflect.DeepEqual(wantHashes, gotHashes) {
		t.Error("coded cells hash differently")
	}
	if !reflect.DeepEqual(want, got) {
		for i := range want.Columns {
			if !reflect.DeepEqual(want.Columns[i], got.Columns[i]) {
				t.Errorf("column %s: coded %+v\nuncoded %+v", want.Columns[i].Name, got.Columns[i], want.Columns[i])
			}
		}
		t.Fatal("coded cells profile differently")
	}
}

// TestRowsHintChangesNothing checks that Options.Rows only sizes the
// duplicate-row set: guesses too short, right and too long (past the exact
// bound, which the table also passes) give the profile made without one,
// duplicate rows included.
func TestRowsHintChangesNothing(t *testing.T) {
	withLimits(t, maxExactDistinct, 4_000)
	tb := genTable(20_000, 17)
	for i := 0; i < len(tb.rows); i += 7 { // duplicate rows to count
		tb.rows[i], tb.nulls[i] = tb.rows[i/2], tb.nulls[i/2]
	}
	want := profileTable(tb, 0, len(tb.rows), Options{Seed: 3}).Result()
	if want.DuplicateRows == 0 || !want.DuplicateRowsEstimated {
		t.Fatalf("duplicate rows %d, estimated %v: the table does not exercise the sampled count", want.DuplicateRows, want.DuplicateRowsEstimated)
	}
	for _, rows := range []int64{-1, 10, 3_000, 20_000, 1 << 40} {
		got := profileTable(tb, 0, len(tb.rows), Options{Seed: 3, Rows: rows}).Result()
		if !reflect.DeepEqual(want, got) {
			t.Errorf("Rows %d: the profile differs from the one made without a guess", rows)
		}
	}
}
