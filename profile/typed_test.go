package profile

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/dqs/dqs/columnar"
)

var typedKinds = []columnar.Kind{columnar.Int, columnar.Float64, columnar.Date, columnar.TimestampS, columnar.TimestampMS, columnar.TimestampUS, columnar.TimestampNS}

// typedValues returns n cells of kind k (nulls among them) drawn from about
// distinct values: mostly of common layouts, some of every other one the
// lane measures (negative, one digit, 0 and 1, fractions of every length)
// and some it leaves to text (the largest integers, years past 9999).
func typedValues(k columnar.Kind, n, distinct int, seed uint64) (nums []int64, nulls []bool) {
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	pool := make([]int64, distinct)
	for i := range pool {
		switch k {
		case columnar.Int:
			switch rng.IntN(10) {
			case 0:
				pool[i] = int64(rng.IntN(2)) // 0 and 1 count as booleans
			case 1:
				pool[i] = -rng.Int64N(1e6)
			case 2:
				pool[i] = []int64{math.MinInt64, math.MaxInt64, 1e18, -1e18, 999_999_999_999_999_999}[rng.IntN(5)]
			default:
				pool[i] = rng.Int64N(1e9)
			}
		case columnar.Float64:
			var f float64
			switch rng.IntN(10) {
			case 0: // whole numbers read as integers; 1 as a boolean too
				f = float64(rng.IntN(100) - 50)
			case 1: // zeros, the infinities, NaNs (of any payload), exponents
				f = []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
					math.Float64frombits(0x7ff8_0000_0000_0001), 1e-7, 3.5e21, 123456789.5, 9.999e-5}[rng.IntN(10)]
			case 2: // any magnitude
				f = math.Pow(10, rng.Float64()*12-6) * (rng.Float64() - 0.5)
			default: // amounts and scores: a few decimals
				f = float64(rng.Int64N(10_000_000)-1_000_000) / []float64{1, 10, 100, 1000}[rng.IntN(4)]
			}
			pool[i] = int64(math.Float64bits(f))
		case columnar.Date:
			pool[i] = rng.Int64N(40_000) - 10_000
			if rng.IntN(20) == 0 {
				pool[i] = []int64{-719528, -719529, 2932896, 2932897, -1e6, 5e6}[rng.IntN(6)]
			}
		default:
			per := k.PerSecond()
			sec := rng.Int64N(2e9) - 5e8
			if rng.IntN(20) == 0 {
				sec = []int64{-62167219200, -62167219201, 253402300799, 253402300800}[rng.IntN(4)]
			}
			frac := rng.Int64N(per)
			if rng.IntN(3) == 0 {
				frac = 0
			} else if rng.IntN(2) == 0 && per >= 1000 {
				frac = frac / (per / 1000) * (per / 1000) // whole milliseconds: trailing zeros
			}
			pool[i] = sec*per + frac
		}
	}
	nums, nulls = make([]int64, n), make([]bool, n)
	for r := range nums {
		if rng.IntN(20) == 0 {
			nulls[r] = true
			continue
		}
		nums[r] = pool[rng.IntN(len(pool))]
	}
	return nums, nulls
}

// typedBatches cuts the cells into columns of up to size cells, typed or as
// their text.
func typedBatches(k columnar.Kind, nums []int64, nulls []bool, size int, typed bool) []*columnar.Column {
	var out []*columnar.Column
	for lo := 0; lo < len(nums); lo += size {
		c := &columnar.Column{}
		for r := lo; r < min(lo+size, len(nums)); r++ {
			switch {
			case nulls[r]:
				c.AppendNull()
			case typed:
				c.AppendNum(k, nums[r])
			default:
				c.AppendString(string(k.Append(nil, nums[r])))
			}
		}
		if typed && c.Kind != k {
			panic("batch not typed")
		}
		out = append(out, c)
	}
	return out
}

// profileColumns profiles one column from the given batch columns.
func profileColumns(cols []*columnar.Column, opt Options) *Profiler {
	p := New([]string{"v"}, opt)
	for _, c := range cols {
		hashes := [][]uint64{make([]uint64, c.Len())}
		p.AddColumn(0, c, hashes[0])
		p.AddRows(c.Len(), hashes)
	}
	return p
}

// Typed cells profile as their text does: exactly, while the values table
// is exact; past it, but for the distinct estimate and the top values (both
// follow the hashes, which differ).
func TestTypedLaneEqualsText(t *testing.T) {
	for _, k := range typedKinds {
		nums, nulls := typedValues(k, 30_000, 4_000, 7)
		opt := Options{Seed: 3}
		typed := profileColumns(typedBatches(k, nums, nulls, 3_000, true), opt).Result()
		text := profileColumns(typedBatches(k, nums, nulls, 3_000, false), opt).Result()
		if d := profileDiff(typed, text); d != "" {
			t.Errorf("kind %d, exact: typed / text: %s", k, d)
		}
		if typed.Columns[0].InferredType == TypeString || len(typed.Columns[0].TopValues) == 0 {
			t.Errorf("kind %d: typed %+v", k, typed.Columns[0])
		}
	}
	// Integers 0 and 1 only: a boolean column, as their text is.
	flags := make([]int64, 5_000)
	for i := range flags {
		flags[i] = int64(i % 3 % 2)
	}
	noNulls := make([]bool, len(flags))
	typed := profileColumns(typedBatches(columnar.Int, flags, noNulls, 1_000, true), Options{}).Result()
	text := profileColumns(typedBatches(columnar.Int, flags, noNulls, 1_000, false), Options{}).Result()
	if d := profileDiff(typed, text); d != "" || typed.Columns[0].InferredType != TypeBoolean {
		t.Errorf("0 and 1: %s, typed / text: %s", typed.Columns[0].InferredType, d)
	}

	withLimits(t, 500, maxExactRows)
	for _, k := range typedKinds {
		nums, nulls := typedValues(k, 30_000, 8_000, 8)
		opt := Options{Seed: 5}
		tp := profileColumns(typedBatches(k, nums, nulls, 3_000, true), opt)
		if !tp.cols[0].steady() {
			t.Fatalf("kind %d: the column is not past its exact phase", k)
		}
		typed := tp.Result()
		text := profileColumns(typedBatches(k, nums, nulls, 3_000, false), opt).Result()
		tc, xc := typed.Columns[0], text.Columns[0]
		if math.Abs(float64(tc.Distinct-xc.Distinct)) > 0.05*float64(xc.Distinct) || tc.DistinctExact || xc.DistinctExact {
			t.Errorf("kind %d: distinct %d (exact %v), as text %d (exact %v)", k, tc.Distinct, tc.DistinctExact, xc.Distinct, xc.DistinctExact)
		}
		tc.Distinct, xc.Distinct, tc.TopValues, xc.TopValues = 0, 0, nil, nil
		typed.Columns[0], text.Columns[0] = tc, xc
		if d := profileDiff(typed, text); d != "" {
			t.Errorf("kind %d, steady: typed / text: %s", k, d)
		}
	}
}

// A column that gets text after typed cells, or typed cells after text,
// profiles as if all were text, but for duplicate rows (a typed row and the
// same row as text differ); so do typed profiles merged, and a typed
// profile merged with a text one.
func TestTypedLaneMixed(t *testing.T) {
	for _, k := range typedKinds {
		nums, nulls := typedValues(k, 20_000, 3_000, 11)
		typedCols := typedBatches(k, nums, nulls, 2_500, true)
		textCols := typedBatches(k, nums, nulls, 2_500, false)
		opt := Options{Seed: 1}
		want := profileColumns(textCols, opt).Result()

		half := len(textCols) / 2
		for name, cols := range map[string][]*columnar.Column{
			"typed then text": append(append([]*columnar.Column{}, typedCols[:half]...), textCols[half:]...),
			"text then typed": append(append([]*columnar.Column{}, textCols[:half]...), typedCols[half:]...),
		} {
			got := profileColumns(cols, opt).Result()
			got.DuplicateRows = want.DuplicateRows
			if d := profileDiff(got, want); d != "" {
				t.Errorf("kind %d, %s / all text: %s", k, name, d)
			}
		}

		// Rows added one by one after typed batches.
		p := profileColumns(typedCols[:half], opt)
		for r := half * 2_500; r < len(nums); r++ {
			if nulls[r] {
				p.Add([]string{""}, []bool{true})
			} else {
				p.Add([]string{string(k.Append(nil, nums[r]))}, nil)
			}
		}
		got := p.Result()
		got.DuplicateRows = want.DuplicateRows
		if d := profileDiff(got, want); d != "" {
			t.Errorf("kind %d, typed then Add / all text: %s", k, d)
		}

		single := profileColumns(typedCols, opt).Result()
		for name, second := range map[string][]*columnar.Column{"typed": typedCols[half:], "text": textCols[half:]} {
			a := profileColumns(typedCols[:half], opt)
			if err := a.Merge(profileColumns(second, Options{Seed: 2})); err != nil {
				t.Fatal(err)
			}
			merged := a.Result()
			if name == "text" {
				merged.DuplicateRows = single.DuplicateRows
			}
			compare(t, single, merged)
			if name == "typed" && a.cols[0].kind != k {
				t.Errorf("kind %d: typed profiles merged into kind %d", k, a.cols[0].kind)
			}
		}
	}
}

// Past the exact phase a text batch turns the values table's keys into
// text: the table's counts and bounds stay valid.
func TestTypedToTextPastExactPhase(t *testing.T) {
	withLimits(t, 300, maxExactRows)
	k := columnar.Int
	nums, nulls := typedValues(k, 20_000, 2_000, 12)
	cols := typedBatches(k, nums[:10_000], nulls[:10_000], 2_500, true)
	cols = append(cols, typedBatches(k, nums[10_000:], nulls[10_000:], 2_500, false)...)
	p := profileColumns(cols, Options{})
	c := &p.cols[0]
	if c.kind != columnar.Text || !c.values.evicted {
		t.Fatalf("kind %d, evicted %v", c.kind, c.values.evicted)
	}
	checkStreamSummary(t, c.values)
	counts := map[string]int64{}
	for r, v := range nums {
		if !nulls[r] {
			counts[string(k.Append(nil, v))]++
		}
	}
	for _, e := range c.values.entries {
		if truth := counts[string(e.key)]; e.count-e.err > truth || e.count < truth {
			t.Errorf("%q: count %d err %d, true count %d", e.key, e.count, e.err, truth)
		}
	}
	floor := c.values.floor()
	for v, n := range counts {
		if _, held := c.values.index.get(hashText(v)); !held && n > floor+c.values.filter[c.values.slot(hashText(v))] {
			t.Errorf("%q: true count %d over its bound", v, n)
		}
	}
}

// profileDiff names the fields in which two profiles differ.
func profileDiff(a, b *Profile) string {
	if len(a.Columns) != len(b.Columns) {
		return "columns"
	}
	out := ""
	if a.RowCount != b.RowCount || a.DuplicateRows != b.DuplicateRows || a.DuplicateRowsEstimated != b.DuplicateRowsEstimated {
		out += fmt.Sprintf("rows %d/%d duplicates %d/%d; ", a.RowCount, b.RowCount, a.DuplicateRows, b.DuplicateRows)
	}
	for i := range a.Columns {
		x, y := reflect.ValueOf(a.Columns[i]), reflect.ValueOf(b.Columns[i])
		for f := range x.NumField() {
			if !reflect.DeepEqual(x.Field(f).Interface(), y.Field(f).Interface()) {
				fx, fy := fmt.Sprint(x.Field(f).Interface()), fmt.Sprint(y.Field(f).Interface())
				if x.Field(f).Kind() == reflect.Pointer && !x.Field(f).IsNil() && !y.Field(f).IsNil() {
					fx, fy = fmt.Sprint(x.Field(f).Elem().Interface()), fmt.Sprint(y.Field(f).Elem().Interface())
				}
				out += fmt.Sprintf("%s: %.200s / %.200s; ", x.Type().Field(f).Name, fx, fy)
			}
		}
	}
	return out
}

// Cells that are all null have no kind: a batch of them as text leaves a
// typed column typed, and rows equal across it stay duplicates.
func TestTypedLaneNullBatch(t *testing.T) {
	typed := &columnar.Column{}
	typed.AppendNum(columnar.Int, 1)
	typed.AppendNum(columnar.Int, 2)
	nulls := &columnar.Column{}
	nulls.AppendNull()
	p := profileColumns([]*columnar.Column{typed, nulls, typed}, Options{})
	if p.cols[0].kind != columnar.Int {
		t.Errorf("kind %d after a batch of nulls, want %d", p.cols[0].kind, columnar.Int)
	}
	if got := p.Result(); got.DuplicateRows != 2 || got.Columns[0].Nulls != 1 {
		t.Errorf("duplicates %d, nulls %d; want 2 and 1", got.DuplicateRows, got.Columns[0].Nulls)
	}
}

// A double column of which enough values are infinite (or NaN, when "NaN"
// is not a null token) is a string column: its min and max are texts, the
// same in the typed lane as in the text one, wherever the first such value
// comes: in the exact phase, at the fold, or past it.
func TestTypedLaneStringBounds(t *testing.T) {
	defer func(n int) { maxExactDistinct = n }(maxExactDistinct)
	maxExactDistinct = 200
	inf := int64(math.Float64bits(math.Inf(1)))
	negInf := int64(math.Float64bits(math.Inf(-1)))
	for name, special := range map[string]func(i int) bool{
		"from the start": func(i int) bool { return i%10 == 3 },
		"after the fold": func(i int) bool { return i >= 150 && i%8 == 0 },
		"at the end":     func(i int) bool { return i >= 4000 && i%3 == 0 },
	} {
		var typed, text columnar.Column
		for i := range 5000 {
			v := int64(math.Float64bits(float64(i%1500)/4 + 7))
			if special(i) {
				v = inf
				if i%3 == 0 {
					v = negInf
				}
			}
			typed.AppendNum(columnar.Float64, v)
			text.AppendString(string(columnar.Float64.Append(nil, v)))
		}
		a := profileColumns([]*columnar.Column{&typed}, Options{}).Result().Columns[0]
		b := profileColumns([]*columnar.Column{&text}, Options{}).Result().Columns[0]
		if a.InferredType != TypeString || b.InferredType != TypeString {
			t.Fatalf("%s: types %s and %s, want string", name, a.InferredType, b.InferredType)
		}
		if *a.Min != *b.Min || *a.Max != *b.Max {
			t.Errorf("%s: typed lane %s..%s, text lane %s..%s", name, *a.Min, *a.Max, *b.Min, *b.Max)
		}
	}
}
