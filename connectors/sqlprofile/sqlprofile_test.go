package sqlprofile

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/dqs/dqs/connectors"
)

func TestSampleRows(t *testing.T) {
	for cols, want := range map[int]int64{0: 100_000, 1: 100_000, 20: 100_000, 40: 50_000, 400: 5_000, 2000: 1_000, 5000: 1_000} {
		if got := SampleRows(cols); got != want {
			t.Errorf("SampleRows(%d) = %d, want %d", cols, got, want)
		}
	}
}

func TestSamplePercent(t *testing.T) {
	for _, c := range []struct {
		rows, target int64
		want         string
	}{
		{0, 100_000, "100"},
		{100_000, 100_000, "100"},
		{100_050, 100_000, "100"}, // 99.95% rounds up to the whole table
		{200_000, 100_000, "50"},
		{300_000, 100_000, "33.4"},
		{10_000_000, 100_000, "1"},
		{12_345_678, 100_000, "0.811"},
		{1_000_000_000, 100_000, "0.01"},
		{1_000_000_000, 1_000, "0.0001"},
		{7_000_000_000_000, 100_000, "0.00000143"},
		{math.MaxInt64, 100_000, "0.00000000000109"},
	} {
		p := SamplePercent(c.rows, c.target)
		got := PercentLiteral(p)
		if got != c.want {
			t.Errorf("SamplePercent(%d, %d) = %s, want %s", c.rows, c.target, got, c.want)
		}
		if !(p > 0 && p <= 100) || strings.ContainsAny(got, "eE") {
			t.Errorf("SamplePercent(%d, %d) = %v (%s) out of (0, 100] or not a plain decimal", c.rows, c.target, p, got)
		}
		// Never short of the target on average.
		if p < 100 && float64(c.rows)*p/100 < float64(c.target)*(1-1e-9) {
			t.Errorf("SamplePercent(%d, %d) = %v expects %.1f rows", c.rows, c.target, p, float64(c.rows)*p/100)
		}
	}
}

func TestEstimateDistinct(t *testing.T) {
	for _, c := range []struct {
		name       string
		d, n, N    int64
		lo, hi     int64
		exactValue bool
	}{
		{"unique in the sample", 100_000, 100_000, 10_000_000, 10_000_000, 10_000_000, true},
		{"few values", 5, 100_000, 10_000_000, 5, 5, true},
		{"the sample is the table", 700, 1_000, 1_000, 700, 700, true},
		{"no values", 0, 0, 0, 0, 0, true},
		{"all null in the table", 3, 10, 0, 0, 0, true},
		// 100,000 values each held 10 times in 1,000,000 rows, 1% sampled
		// row by row: a sample is expected to hold
		// 100,000·(1 − 0.99^10) = 9,562 of them.
		{"equal frequencies", 9_562, 10_000, 1_000_000, 99_000, 101_000, false},
		// Each value twice: 0.5% of a 1% sample repeats.
		{"each value twice", 99_502, 100_000, 10_000_000, 4_900_000, 5_100_000, false},
	} {
		got := EstimateDistinct(c.d, c.n, c.N)
		if got < c.lo || got > c.hi {
			t.Errorf("%s: EstimateDistinct(%d, %d, %d) = %d, want in [%d, %d]", c.name, c.d, c.n, c.N, got, c.lo, c.hi)
		}
		if c.N > 0 && (got < min(c.d, c.N) || got > c.N) {
			t.Errorf("%s: %d outside [d, N]", c.name, got)
		}
	}
	// More distinct values in the same sample, more in the table.
	prev := int64(0)
	for d := int64(1_000); d <= 100_000; d += 1_000 {
		got := EstimateDistinct(d, 100_000, 10_000_000)
		if got < prev {
			t.Fatalf("EstimateDistinct(%d, ...) = %d below %d for fewer", d, got, prev)
		}
		prev = got
	}
}

// plan is a profile plan of four columns: a number, a text with a format,
// a column the dialect computes nothing for (a BigQuery ARRAY) and a
// timestamp.
var plan = []Item{
	{Col: -1, Metric: Rows},
	{Col: 0, Metric: Nulls}, {Col: 0, Metric: Distinct}, {Col: 0, Metric: Min}, {Col: 0, Metric: Max},
	{Col: 0, Metric: Mean}, {Col: 0, Metric: StdDev}, {Col: 0, Metric: Quantile, Quantile: "p50"},
	{Col: 1, Metric: Nulls}, {Col: 1, Metric: Empty}, {Col: 1, Metric: Distinct}, {Col: 1, Metric: Min}, {Col: 1, Metric: Max}, {Col: 1, Metric: Format},
	{Col: 3, Metric: Nulls}, {Col: 3, Metric: Distinct}, {Col: 3, Metric: Min}, {Col: 3, Metric: Max},
}

var textReader = Reader[*string]{
	Int: func(v *string) int64 {
		var n int64
		if v != nil {
			fmt.Sscan(*v, &n)
		}
		return n
	},
	Float: func(v *string) *float64 {
		if v == nil {
			return nil
		}
		var f float64
		fmt.Sscan(*v, &f)
		return &f
	},
	Text: func(v *string) *string { return v },
}

func decodePlan(vals ...any) *connectors.TableProfile {
	row := make([]*string, len(vals))
	for i, v := range vals {
		if v != nil {
			s := fmt.Sprint(v)
			row[i] = &s
		}
	}
	cols := []connectors.ColumnMetrics{{Name: "n", Numeric: true}, {Name: "t"}, {Name: "tags"}, {Name: "ts"}}
	return Decode(cols, plan, row, textReader)
}

// A sample of 104,729 rows from 10,000,000.
var sampleRow = []any{
	104_729,
	0, 104_729, 1, 9_999_999, 5e6, 2.9e6, 5_000_123, // n: unique
	1_000, 2_000, 50, "AA", "ZZ", 50_864, // t: 50 values; 50,864 of 101,729 conform
	104_729, 0, nil, nil, // ts: null in the sample
}

func TestScale(t *testing.T) {
	p := decodePlan(sampleRow...)
	Scale(p, plan, 10_000_000)
	if p.Rows != 10_000_000 {
		t.Errorf("rows %d", p.Rows)
	}
	n, tx, tags, ts := p.Columns[0], p.Columns[1], p.Columns[2], p.Columns[3]
	if n.Nulls != 0 || n.Distinct != 10_000_000 || *n.Min != "1" || *n.Max != "9999999" || *n.Mean != 5e6 || *n.StdDev != 2.9e6 || *n.Median != 5_000_123 {
		t.Errorf("n %+v", n)
	}
	// round(1000·10,000,000/104,729) = round(95,484.5...)
	if tx.Nulls != 95_485 || tx.Empty != 190_969 || tx.Distinct != 50 || *tx.Min != "AA" || *tx.Max != "ZZ" {
		t.Errorf("t %+v", tx)
	}
	// A share needs no scaling: it is the sample's.
	if tx.FormatConformance == nil || math.Abs(*tx.FormatConformance-50_864.0/101_729) > 1e-12 {
		t.Errorf("t conformance %v", tx.FormatConformance)
	}
	if ts.Nulls != 10_000_000 || ts.Distinct != 0 || ts.Min != nil {
		t.Errorf("ts %+v", ts)
	}
	for _, c := range []struct {
		m    connectors.ColumnMetrics
		want string
	}{
		{n, "[nulls distinct min max mean stddev median quantiles]"},
		{tx, "[nulls empty distinct min max format_conformance]"},
		{tags, "[]"},
		{ts, "[nulls distinct]"},
	} {
		if got := fmt.Sprint(c.m.Estimated); got != c.want {
			t.Errorf("%s estimated %s, want %s", c.m.Name, got, c.want)
		}
	}
}

// Counts scaled past the table's rows (rounding) stay within them.
func TestScaleBounds(t *testing.T) {
	// Of 2 sampled rows, 1 null and 1 blank: 1.5 and 1.5 of 3, both
	// rounded up.
	p := decodePlan(2, 0, 2, 1, 2, 1.5, 0.7, 1, 1, 1, 1, " ", " ", 0, 2, 0, nil, nil)
	Scale(p, plan, 3)
	tx := p.Columns[1]
	if tx.Nulls != 2 || tx.Empty != 1 {
		t.Errorf("t %+v", tx)
	}
}

func TestRun(t *testing.T) {
	exact := func() (*connectors.TableProfile, []Item) {
		return decodePlan(4, 0, 4, 1, 4, 2.5, 1.3, 2, 1, 1, 2, "a", "b", 1, 4, 0, nil, nil), plan
	}
	for _, c := range []struct {
		name    string
		sampled bool
		rows    int64
		// sample is the sampled query's row count.
		sample  int64
		calls   string
		queries int
		est     bool
	}{
		{"exact", false, 10_000_000, 100_000, "[exact]", 1, false},
		{"small table", true, 100_000, 100_000, "[count exact]", 2, false},
		{"large table", true, 10_000_000, 104_729, "[count 1 percent]", 2, true},
		{"empty sample", true, 10_000_000, 0, "[count 1 percent exact]", 3, false},
		// A table of one block, read whole by its sample.
		{"whole sample", true, 104_729, 104_729, "[count 95.5 percent]", 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls []string
			count := func() (int64, error) { calls = append(calls, "count"); return c.rows, nil }
			query := func(pct float64) (*connectors.TableProfile, []Item, error) {
				if pct == 100 {
					calls = append(calls, "exact")
					p, items := exact()
					return p, items, nil
				}
				calls = append(calls, PercentLiteral(pct)+" percent")
				row := append([]any{c.sample}, sampleRow[1:]...)
				return decodePlan(row...), plan, nil
			}
			p, err := Run(c.sampled, 4, count, query)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(calls) != c.calls || p.Queries != c.queries {
				t.Errorf("calls %v, Queries %d; want %s, %d", calls, p.Queries, c.calls, c.queries)
			}
			if got := len(p.Columns[1].Estimated) > 0; got != c.est {
				t.Errorf("estimated %v, want %v", p.Columns[1].Estimated, c.est)
			}
			wantRows := int64(4) // the exact query's
			if strings.Contains(c.calls, "percent]") {
				wantRows = c.rows
			}
			if p.Rows != wantRows {
				t.Errorf("rows %d, want %d", p.Rows, wantRows)
			}
			if c.name == "whole sample" && p.Columns[1].Nulls != 1_000 {
				t.Errorf("whole sample scaled: %+v", p.Columns[1])
			}
		})
	}
	// Errors stop the profile.
	boom := errors.New("boom")
	if _, err := Run(true, 4, func() (int64, error) { return 0, boom }, nil); err != boom {
		t.Errorf("count error: %v", err)
	}
	if _, err := Run(true, 4, func() (int64, error) { return 1e9, nil }, func(float64) (*connectors.TableProfile, []Item, error) { return nil, nil, boom }); err != boom {
		t.Errorf("query error: %v", err)
	}
}

// A sample that counted more rows than the count did means the table grew
// between the two queries: the rows cannot tell whether the sample drew
// every block, so the table is counted again. Equal to the sample's rows,
// the sample is the table (exact); otherwise it is a sample, scaled, and
// Rows never falls below the rows the sample counted.
func TestRunTableGrew(t *testing.T) {
	for _, c := range []struct {
		name                  string
		rows, sample, recount int64
		wantRows              int64
		est                   bool
		// nulls is the text column's: 1,000 in the sample.
		nulls int64
	}{
		// A table of one block read whole after rows were added.
		{"read whole", 150_000, 1_150_000, 1_150_000, 1_150_000, false, 1_000},
		// Only some blocks of the grown table were drawn: not the table.
		{"sampled", 150_000, 1_000_000, 1_150_000, 1_150_000, true, 1_150},
		// Rows deleted after the sample: Rows stays the sample's.
		{"shrank after", 150_000, 1_000_000, 900_000, 1_000_000, true, 1_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls []string
			counts := []int64{c.rows, c.recount}
			count := func() (int64, error) {
				calls = append(calls, "count")
				n := counts[0]
				counts = counts[1:]
				return n, nil
			}
			query := func(pct float64) (*connectors.TableProfile, []Item, error) {
				calls = append(calls, PercentLiteral(pct)+" percent")
				row := append([]any{c.sample}, sampleRow[1:]...)
				return decodePlan(row...), plan, nil
			}
			p, err := Run(true, 4, count, query)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(calls); got != "[count 66.7 percent count]" || p.Queries != 3 {
				t.Errorf("calls %s, Queries %d; want the count, the sample and the count again, 3", got, p.Queries)
			}
			tx := p.Columns[1]
			if p.Rows != c.wantRows || tx.Nulls != c.nulls || (len(tx.Estimated) > 0) != c.est {
				t.Errorf("rows %d, t %+v; want rows %d, nulls %d, estimated %v", p.Rows, tx, c.wantRows, c.nulls, c.est)
			}
			for _, m := range p.Columns {
				if m.Nulls+m.Empty > p.Rows {
					t.Errorf("%s: nulls %d + empty %d above rows %d", m.Name, m.Nulls, m.Empty, p.Rows)
				}
			}
		})
	}
	// An error of the second count stops the profile.
	boom := errors.New("boom")
	n := 0
	count := func() (int64, error) {
		if n++; n > 1 {
			return 0, boom
		}
		return 150_000, nil
	}
	query := func(float64) (*connectors.TableProfile, []Item, error) {
		return decodePlan(append([]any{1_000_000}, sampleRow[1:]...)...), plan, nil
	}
	if _, err := Run(true, 4, count, query); err != boom {
		t.Errorf("second count error: %v", err)
	}
}
