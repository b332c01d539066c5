package corrections

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dqs/dqs/profile"
)

func fill(col, strategy string, params map[string]any) Step {
	return step("fill-"+strategy, TypeNullFill, col, strategy, params)
}

func fillColumn(t *testing.T, strategy string, params map[string]any, in ...string) ([]string, StepChanges) {
	t.Helper()
	rows := make(table, len(in))
	for i, v := range in {
		rows[i] = []string{v}
	}
	got, res := run(t, []string{"v"}, rows, fill("v", strategy, params))
	return column(got, 0), res.Changes[0]
}

func TestNullFillConstantAndForward(t *testing.T) {
	in := []string{N, "a", "", "NULL", " n/a ", "b", "none", "  ", N}
	got, c := fillColumn(t, StrategyConstant, map[string]any{"value": "?x"}, in...)
	want := []string{"?x", "a", "?x", "?x", "?x", "b", "none", "?x", "?x"}
	if !slices.Equal(got, want) || c.CellsChanged != 6 || c.Unfixed != 0 {
		t.Errorf("constant: got %q (%+v), want %q", got, c, want)
	}
	got, c = fillColumn(t, StrategyForwardFill, nil, in...)
	want = []string{N, "a", "a", "a", "a", "b", "none", "none", "none"}
	if !slices.Equal(got, want) || c.CellsChanged != 5 || c.Unfixed != 1 {
		t.Errorf("forward: got %q (%+v), want %q", got, c, want)
	}
	// A number as the constant is its text.
	got, _ = fillColumn(t, StrategyConstant, map[string]any{"value": 0.0}, N, "1")
	if !slices.Equal(got, []string{"0", "1"}) {
		t.Errorf("constant 0: got %q", got)
	}
}

// Null tokens are an option: an empty set leaves "NULL" as text.
func TestNullTokensOption(t *testing.T) {
	rows := table{{"NULL"}, {"none"}, {""}}
	opt := Options{NullTokens: must(profile.NewNullTokens([]string{}))}
	got, _, err := tryRun([]string{"v"}, rows, opt, fill("v", StrategyConstant, map[string]any{"value": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	equalTables(t, got, table{{"NULL"}, {"none"}, {"x"}})
	opt.NullTokens = must(profile.NewNullTokens([]string{"none"}))
	got, _, _ = tryRun([]string{"v"}, rows, opt, fill("v", StrategyConstant, map[string]any{"value": "x"}))
	equalTables(t, got, table{{"NULL"}, {"x"}, {"x"}})
}

// The oracle of the statistics: the slow way, every value sorted.
func slowStats(vals []string) (mean, median float64, mode string) {
	var nums []float64
	count := map[string]int{}
	for _, v := range vals {
		if v == N || strings.TrimSpace(v) == "" || profile.DefaultNulls.Match(v) {
			continue
		}
		count[v]++
		f, _ := strconv.ParseFloat(v, 64)
		nums = append(nums, f)
	}
	slices.Sort(nums)
	for _, f := range nums {
		mean += f
	}
	mean /= float64(len(nums))
	median = nums[(len(nums)+1)/2-1] // the lower median, as the profiler's
	for v, n := range count {
		if n > count[mode] || (n == count[mode] && v < mode) {
			mode = v
		}
	}
	return mean, median, mode
}

func TestNullFillStatistics(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	in := make([]string, 3001)
	for i := range in {
		switch rng.IntN(10) {
		case 0:
			in[i] = N
		case 1:
			in[i] = "NA"
		default:
			in[i] = strconv.Itoa(rng.IntN(200) - 50)
		}
	}
	mean, median, mode := slowStats(in)
	for strategy, want := range map[string]string{
		StrategyMean:   strconv.FormatFloat(mean, 'f', -1, 64),
		StrategyMedian: strconv.FormatFloat(median, 'f', -1, 64),
		StrategyMode:   mode,
	} {
		got, c := fillColumn(t, strategy, nil, in...)
		for i, v := range in {
			if v == N || v == "NA" {
				if !sameNumber(got[i], want) {
					t.Fatalf("%s: row %d got %q, want %q", strategy, i+1, got[i], want)
				}
			} else if got[i] != v {
				t.Fatalf("%s: row %d changed from %q to %q", strategy, i+1, v, got[i])
			}
		}
		if c.CellsChanged == 0 {
			t.Fatalf("%s changed nothing", strategy)
		}
	}
}

// sameNumber reports whether a and b are the same text, or numbers equal
// but for rounding (the profiler's mean is Welford's, the oracle's a sum).
func sameNumber(a, b string) bool {
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return a == b || (err1 == nil && err2 == nil && math.Abs(x-y) <= 1e-12*math.Max(1, math.Abs(y)))
}

// Given statistics are used as they are, and save the pass: no Reopen.
func TestNullFillGivenStats(t *testing.T) {
	cols, rows := []string{"v"}, table{{"1"}, {N}, {"3"}}
	st := must(ColumnStats(context.Background(), newMem(cols, rows), "v", Options{}))
	if st.Mean == nil || *st.Mean != 2 || st.Median == nil || *st.Median != 1 || !st.MedianExact || st.Nulls != 1 || st.Rows != 3 {
		t.Fatalf("stats %+v", st)
	}
	w := &tableWriter{}
	mean := 10.0
	opt := Options{Stats: map[string]Stats{"v": {Column: "v", Mean: &mean}}}
	if _, err := Apply(context.Background(), newMem(cols, rows), w, Pipeline{fill("v", StrategyMean, nil)}, opt); err != nil {
		t.Fatal(err)
	}
	equalTables(t, w.rows, table{{"1"}, {"10"}, {"3"}})
	// Without them, the pass needs Reopen.
	_, err := Apply(context.Background(), newMem(cols, rows), &tableWriter{}, Pipeline{fill("v", StrategyMean, nil)}, Options{})
	if !errors.Is(err, ErrNeedsReopen) {
		t.Fatalf("got %v, want ErrNeedsReopen", err)
	}
}

// The statistic is of the column as it reaches the step: after the steps
// before it.
func TestNullFillLearnsAfterEarlierSteps(t *testing.T) {
	cols := []string{"v"}
	rows := table{{"1,5"}, {N}, {"2,5"}}
	got, _ := run(t, cols, rows, fix("v", StrategyDecimalPoint, nil), fill("v", StrategyMean, nil))
	equalTables(t, got, table{{"1.5"}, {"2"}, {"2.5"}})
}

func TestNullFillWithoutNumbers(t *testing.T) {
	_, _, err := tryRun([]string{"v"}, table{{"a"}, {N}}, Options{}, fill("v", StrategyMean, nil))
	var re *RowError
	if !errors.As(err, &re) || re.StepID != "fill-mean" || !strings.Contains(err.Error(), "not numbers") {
		t.Fatalf("got %v", err)
	}
	got, _ := run(t, []string{"v"}, table{{"a"}, {N}, {"b"}, {"b"}}, fill("v", StrategyMode, nil))
	equalTables(t, got, table{{"a"}, {"b"}, {"b"}, {"b"}})
}

// A column without any value has no statistic: its nulls stay, counted as
// unfixed (a preview of a few null rows must not fail).
func TestNullFillEmptyColumn(t *testing.T) {
	for _, strategy := range []string{StrategyMean, StrategyMedian, StrategyMode} {
		got, c := fillColumn(t, strategy, nil, N, "", "NA")
		if !slices.Equal(got, []string{N, "", "NA"}) || c.Unfixed != 3 || c.CellsChanged != 0 {
			t.Errorf("%s: got %q, %+v", strategy, got, c)
		}
	}
}

// ColumnStats takes the profiler's bounded memory, whatever the rows.
func TestColumnStatsMemory(t *testing.T) {
	rows := 300_000
	if testing.Short() || raceEnabled {
		rows = 30_000
	}
	g := newGen(rows)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base, peak := ms.HeapInuse, uint64(0)
	g.onRow = func(i int) {
		if i%20_000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse-min(base, ms.HeapInuse))
		}
	}
	st, err := ColumnStats(context.Background(), g, "id", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != int64(rows) || st.MedianExact || st.Median == nil || math.Abs(*st.Median-float64(rows)/2) > float64(rows)/100 {
		t.Fatalf("stats %+v", st)
	}
	if peak > heapBound {
		t.Fatalf("the heap grew by %d MiB", peak>>20)
	}
	t.Logf("%d distinct values: heap grew by at most %.1f MiB", rows, float64(peak)/(1<<20))
}
