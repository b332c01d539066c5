// Package connectortest is the conformance suite every connector passes:
// RunObjectSource (objects.go) for object stores, RunTableSource for table
// sources (postgresql, bigquery, snowflake): what List, Profile and Sample
// return for a small, known set of tables, and the errors they fail with.
// RunTableSource knows nothing of a kind: the caller creates the Fixture tables in its
// source (in the schema or dataset it then opens), however that kind
// creates tables, and hands the suite a function that opens the source.
//
//	tables := connectortest.Fixture()
//	for _, tbl := range tables { create(t, tbl) } // the kind's own DDL and inserts
//	connectortest.RunTableSource(t, func(t *testing.T) connectors.TableSource { return open(t) }, tables)
//
// Expect computes the exact profile of a Table in Go; Compare checks a
// source's profile against it with the tolerances the interface allows
// (approximate distinct counts and quantiles), so a kind's own tests can
// use the same oracle on tables of their own.
package connectortest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/connectors"
)

// ColumnType is the type of a fixture column; each kind maps it to its
// own (integer: bigint, INT64, NUMBER; float: double precision, FLOAT64,
// FLOAT; text: text, STRING, VARCHAR; boolean: boolean, BOOL, BOOLEAN).
type ColumnType string

// Column types.
const (
	Integer ColumnType = "integer"
	Float   ColumnType = "float"
	Text    ColumnType = "text"
	Boolean ColumnType = "boolean"
)

// Column is a fixture column.
type Column struct {
	Name string
	Type ColumnType
}

// Table is a table a source must hold for the suite: its rows hold, per
// column, an int64 (Integer), a float64 (Float), a string (Text), a bool
// (Boolean) or nil (NULL).
type Table struct {
	Name    string
	Columns []Column
	Rows    [][]any
	// Formats are the formats the suite profiles the table with.
	Formats map[string]string
}

// Names of the fixture tables.
const (
	PeopleTable = "dqs_people"
	EmptyTable  = "dqs_empty"
	// MissingTable is a table no source holds.
	MissingTable = "dqs_no_such_table"
)

// CodeFormat is the format of the people table's code column: two capital
// letters, a hyphen and four digits. Its syntax reads the same in RE2,
// PostgreSQL, BigQuery and Snowflake.
const CodeFormat = `^[A-Z]{2}-[0-9]{4}$`

// Fixture returns the tables the suite expects, in name order: a
// 500-row table of every column type with nulls, blanks, duplicates and
// values off the code format, and an empty table.
func Fixture() []Table {
	names := []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia", "peggy", "rupert", "sybil", "trent", "victor", "walter"}
	people := Table{
		Name: PeopleTable,
		Columns: []Column{
			{"id", Integer}, {"name", Text}, {"score", Float}, {"code", Text}, {"active", Boolean}, {"qty", Integer},
		},
		Formats: map[string]string{"code": CodeFormat},
	}
	for i := int64(1); i <= 500; i++ {
		row := make([]any, 6)
		row[0] = i
		switch {
		case i%17 == 0:
			row[1] = nil
		case i%23 == 0:
			row[1] = ""
		case i%29 == 0:
			row[1] = "  "
		default:
			row[1] = names[(i*7)%int64(len(names))] + strconv.FormatInt(i%5, 10)
		}
		if i%11 != 0 {
			row[2] = float64((i*37)%1000)/8 - 20
		}
		switch {
		case i%13 == 0:
			row[3] = fmt.Sprintf("Q%03d", i) // off format
		case i%41 == 0:
			row[3] = nil
		default:
			row[3] = fmt.Sprintf("%c%c-%04d", 'A'+rune(i%20), 'A'+rune(i%7), (i*97)%10000)
		}
		if i%19 != 0 {
			row[4] = i%3 == 0
		}
		if i%31 != 0 {
			row[5] = i % 7
		}
		people.Rows = append(people.Rows, row)
	}
	empty := Table{Name: EmptyTable, Columns: []Column{{"id", Integer}, {"label", Text}}}
	return []Table{empty, people}
}

// Tolerances of Compare: distinct counts within DistinctError (relative,
// and at least 2), quantiles within QuantileRankError of their rank, float
// metrics within FloatError (relative).
const (
	DistinctError     = 0.05
	QuantileRankError = 0.05
	FloatError        = 1e-9
)

// RunTableSource runs the suite. open returns the source opened on the
// schema holding tables (Fixture's, created by the caller); it is called
// once per subtest, and the suite closes what it returns.
func RunTableSource(t *testing.T, open func(t *testing.T) connectors.TableSource, tables []Table) {
	t.Helper()
	src := func(t *testing.T) connectors.TableSource {
		s := open(t)
		t.Cleanup(func() { s.Close() })
		return s
	}
	ctx := func(t *testing.T) context.Context {
		c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		t.Cleanup(cancel)
		return c
	}

	t.Run("List", func(t *testing.T) {
		list, err := src(t).List(ctx(t))
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		byName := map[string]connectors.Table{}
		for i, tb := range list {
			if i > 0 && list[i-1].Name >= tb.Name {
				t.Errorf("List not in name order or duplicated: %q then %q", list[i-1].Name, tb.Name)
			}
			if tb.RowEstimate < 0 || tb.SizeBytes < 0 {
				t.Errorf("table %q: negative estimate %d or size %d", tb.Name, tb.RowEstimate, tb.SizeBytes)
			}
			byName[tb.Name] = tb
		}
		for _, want := range tables {
			got, ok := byName[want.Name]
			if !ok {
				t.Errorf("List lacks %q (got %d tables)", want.Name, len(list))
				continue
			}
			if got.Schema == "" {
				t.Errorf("table %q: no schema", want.Name)
			}
			// An estimate, but never wildly above the truth.
			if n := int64(len(want.Rows)); got.RowEstimate > 2*n+10 {
				t.Errorf("table %q: row estimate %d for %d rows", want.Name, got.RowEstimate, n)
			}
		}
		if _, ok := byName[MissingTable]; ok {
			t.Errorf("List holds %q", MissingTable)
		}
	})

	for _, tbl := range tables {
		t.Run("Profile/"+tbl.Name, func(t *testing.T) {
			got, err := src(t).Profile(ctx(t), tbl.Name, tbl.Formats)
			if err != nil {
				t.Fatalf("Profile: %v", err)
			}
			if got.Queries < 1 || got.Queries > 3 {
				t.Errorf("Profile sent %d queries, want 1 to 3 (two aggregate queries and a catalogue one)", got.Queries)
			}
			Compare(t, got, Expect(tbl, tbl.Formats))
		})
	}

	t.Run("ProfileMissing", func(t *testing.T) {
		_, err := src(t).Profile(ctx(t), MissingTable, nil)
		if !errors.Is(err, connectors.ErrNotFound) {
			t.Fatalf("Profile of a missing table: %v, want ErrNotFound", err)
		}
	})

	t.Run("SampleMissing", func(t *testing.T) {
		r, err := src(t).Sample(ctx(t), MissingTable, 10)
		if err == nil {
			// Some dialects report it on the first row.
			_, err = r.Next()
			r.Close()
		}
		if !errors.Is(err, connectors.ErrNotFound) {
			t.Fatalf("Sample of a missing table: %v, want ErrNotFound", err)
		}
	})

	for _, tbl := range tables {
		for _, limit := range []int{10, len(tbl.Rows) + 5} {
			t.Run(fmt.Sprintf("Sample/%s/%d", tbl.Name, limit), func(t *testing.T) {
				checkSample(t, src(t), ctx(t), tbl, limit)
			})
		}
	}

	t.Run("Cancelled", func(t *testing.T) {
		s := src(t)
		c, cancel := context.WithCancel(context.Background())
		cancel()
		start := time.Now()
		if _, err := s.Profile(c, tables[len(tables)-1].Name, nil); err == nil {
			t.Error("Profile with a cancelled context succeeded")
		}
		if _, err := s.List(c); err == nil {
			t.Error("List with a cancelled context succeeded")
		}
		if r, err := s.Sample(c, tables[len(tables)-1].Name, 10); err == nil {
			_, err = r.Next()
			r.Close()
			if err == nil {
				t.Error("Sample with a cancelled context returned a row")
			}
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("calls with a cancelled context took %v", d)
		}
		// The source still works.
		if _, err := s.List(ctx(t)); err != nil {
			t.Errorf("List after cancelled calls: %v", err)
		}
	})
}

func checkSample(t *testing.T, s connectors.TableSource, ctx context.Context, tbl Table, limit int) {
	t.Helper()
	r, err := s.Sample(ctx, tbl.Name, limit)
	if err != nil {
		t.Fatalf("Sample: %v", err)
	}
	defer r.Close()
	if r.Format() == "" {
		t.Error("Sample: empty Format")
	}
	cols := r.Columns()
	if len(cols) != len(tbl.Columns) {
		t.Fatalf("Sample columns %q, want %d", cols, len(tbl.Columns))
	}
	for i, c := range tbl.Columns {
		if !strings.EqualFold(cols[i], c.Name) {
			t.Errorf("Sample column %d is %q, want %q", i, cols[i], c.Name)
		}
	}
	// The first column of every fixture table is a unique integer id.
	byID := map[int64][]any{}
	for _, row := range tbl.Rows {
		byID[row[0].(int64)] = row
	}
	seen := map[int64]bool{}
	n := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Sample row %d: %v", n, err)
		}
		n++
		if len(rec.Values) != len(cols) || len(rec.Null) != len(cols) {
			t.Fatalf("Sample row %d has %d values, %d nulls for %d columns", n, len(rec.Values), len(rec.Null), len(cols))
		}
		id, err := strconv.ParseInt(rec.Values[0], 10, 64)
		want, ok := byID[id]
		if err != nil || !ok {
			t.Fatalf("Sample row %d: id %q is no fixture id", n, rec.Values[0])
		}
		if seen[id] {
			t.Errorf("Sample returned id %d twice", id)
		}
		seen[id] = true
		for i, c := range tbl.Columns {
			if msg := checkValue(c.Type, want[i], rec.Values[i], rec.Null[i]); msg != "" {
				t.Errorf("Sample id %d column %q: %s", id, c.Name, msg)
			}
		}
	}
	if n > limit || n > len(tbl.Rows) {
		t.Errorf("Sample returned %d rows, limit %d, table %d", n, limit, len(tbl.Rows))
	}
	if n == 0 && len(tbl.Rows) > 0 {
		t.Errorf("Sample of a %d-row table returned no row", len(tbl.Rows))
	}
}

// checkValue compares a sampled value's text with the fixture value.
func checkValue(typ ColumnType, want any, got string, null bool) string {
	if want == nil {
		if !null || got != "" {
			return fmt.Sprintf("got %q (null %v), want NULL", got, null)
		}
		return ""
	}
	if null {
		return fmt.Sprintf("got NULL, want %v", want)
	}
	switch typ {
	case Integer:
		if v, err := strconv.ParseInt(got, 10, 64); err != nil || v != want.(int64) {
			return fmt.Sprintf("got %q, want %d", got, want)
		}
	case Float:
		if v, err := strconv.ParseFloat(got, 64); err != nil || !near(v, want.(float64)) {
			return fmt.Sprintf("got %q, want %v", got, want)
		}
	case Boolean:
		if v, err := strconv.ParseBool(got); err != nil || v != want.(bool) {
			return fmt.Sprintf("got %q, want %v", got, want)
		}
	case Text:
		if got != want.(string) {
			return fmt.Sprintf("got %q, want %q", got, want)
		}
	}
	return ""
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= FloatError*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// Expected is the exact profile of a table, with what Compare needs to
// check quantiles by rank.
type Expected struct {
	connectors.TableProfile
	// Types are the columns' types.
	Types []ColumnType
	// Numbers holds each numeric column's non-null values, sorted.
	Numbers map[string][]float64
}

// Quantile names and levels, the file engine's.
var (
	quantileNames  = []string{"p01", "p05", "p25", "p50", "p75", "p95", "p99"}
	quantileLevels = []float64{0.01, 0.05, 0.25, 0.50, 0.75, 0.95, 0.99}
)

// LowerQuantile is the q-quantile of sorted numbers as the file engine
// defines it: the value at rank max(1, ceil(q·n)).
func LowerQuantile(sorted []float64, q float64) float64 {
	rank := max(1, int(math.Ceil(q*float64(len(sorted))-1e-9)))
	return sorted[rank-1]
}

// IsBlank reports whether a text value is blank: only spaces, tabs and
// line breaks.
func IsBlank(s string) bool { return strings.Trim(s, " \t\n\r\f\v") == "" }

// Expect computes tbl's exact profile. Text min and max are in byte order
// over non-blank values; formats are read as RE2 expressions.
func Expect(tbl Table, formats map[string]string) *Expected {
	e := &Expected{Numbers: map[string][]float64{}}
	e.Rows = int64(len(tbl.Rows))
	for ci, c := range tbl.Columns {
		m := connectors.ColumnMetrics{Name: c.Name, Numeric: c.Type == Integer || c.Type == Float}
		distinct := map[any]bool{}
		var nums []float64
		var strMin, strMax *string
		var matched, nonBlank int64
		var re *regexp.Regexp
		if f, ok := formats[c.Name]; ok {
			re = regexp.MustCompile(f)
		}
		for _, row := range tbl.Rows {
			v := row[ci]
			if v == nil {
				m.Nulls++
				continue
			}
			distinct[v] = true
			text := fmt.Sprint(v)
			switch x := v.(type) {
			case int64:
				nums = append(nums, float64(x))
			case float64:
				nums = append(nums, x)
			case bool:
				text = strconv.FormatBool(x)
			case string:
				if IsBlank(x) {
					m.Empty++
				} else {
					if strMin == nil || x < *strMin {
						strMin = &x
					}
					if strMax == nil || x > *strMax {
						strMax = &x
					}
				}
			}
			if c.Type != Text || !IsBlank(text) {
				nonBlank++
				if re != nil && re.MatchString(text) {
					matched++
				}
			}
		}
		m.Distinct = int64(len(distinct))
		m.Min, m.Max = strMin, strMax
		if m.Numeric && len(nums) > 0 {
			slices.Sort(nums)
			e.Numbers[c.Name] = nums
			lo, hi := nums[0], nums[len(nums)-1]
			m.Min, m.Max = ptr(formatNumber(c.Type, lo)), ptr(formatNumber(c.Type, hi))
			mean, sd := MeanStdDev(nums)
			m.Mean, m.StdDev = &mean, &sd
			m.Quantiles = map[string]float64{}
			for i, q := range quantileLevels {
				m.Quantiles[quantileNames[i]] = LowerQuantile(nums, q)
			}
			m.Median = ptr(m.Quantiles["p50"])
		}
		if re != nil {
			share := 1.0
			if nonBlank > 0 {
				share = float64(matched) / float64(nonBlank)
			}
			m.FormatConformance = &share
		}
		e.Columns = append(e.Columns, m)
		e.Types = append(e.Types, c.Type)
	}
	return e
}

func formatNumber(typ ColumnType, x float64) string {
	if typ == Integer {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// MeanStdDev returns the mean and the sample standard deviation (n-1; 0
// for one value) of xs, computed stably.
func MeanStdDev(xs []float64) (mean, sd float64) {
	var m2 float64
	for i, x := range xs {
		d := x - mean
		mean += d / float64(i+1)
		m2 += d * (x - mean)
	}
	if len(xs) > 1 {
		sd = math.Sqrt(m2 / float64(len(xs)-1))
	}
	return mean, sd
}

func ptr[T any](v T) *T { return &v }

// Compare checks got against the exact profile want: rows, columns (by
// name, in order), nulls, blanks, numeric flags, min and max (numbers by
// value, text exactly; booleans unchecked, their rendering is the
// dialect's), mean and standard deviation within FloatError, distinct
// counts within DistinctError, quantiles within QuantileRankError of their
// rank, and format conformance exactly when the source measured it.
func Compare(t testing.TB, got *connectors.TableProfile, want *Expected) {
	t.Helper()
	if got.Rows != want.Rows {
		t.Errorf("rows %d, want %d", got.Rows, want.Rows)
	}
	if len(got.Columns) != len(want.Columns) {
		t.Fatalf("%d columns, want %d", len(got.Columns), len(want.Columns))
	}
	for i, w := range want.Columns {
		g := got.Columns[i]
		if !strings.EqualFold(g.Name, w.Name) {
			t.Errorf("column %d is %q, want %q", i, g.Name, w.Name)
			continue
		}
		name := w.Name
		if g.Nulls != w.Nulls {
			t.Errorf("%s: nulls %d, want %d", name, g.Nulls, w.Nulls)
		}
		if g.Empty != w.Empty {
			t.Errorf("%s: empty %d, want %d", name, g.Empty, w.Empty)
		}
		if g.Numeric != w.Numeric {
			t.Errorf("%s: numeric %v, want %v", name, g.Numeric, w.Numeric)
		}
		if tol := max(2, int64(math.Ceil(DistinctError*float64(w.Distinct)))); abs(g.Distinct-w.Distinct) > tol {
			t.Errorf("%s: distinct %d, want %d ± %d", name, g.Distinct, w.Distinct, tol)
		}
		nums := want.Numbers[name]
		if w.Numeric {
			checkNumber(t, name+" min", g.Min, w.Min)
			checkNumber(t, name+" max", g.Max, w.Max)
			checkFloat(t, name+" mean", g.Mean, w.Mean)
			checkFloat(t, name+" stddev", g.StdDev, w.StdDev)
			if len(nums) > 0 {
				if g.Median == nil || len(g.Quantiles) == 0 {
					t.Errorf("%s: no median or quantiles", name)
				}
				for k, v := range g.Quantiles {
					lvl := slices.Index(quantileNames, k)
					if lvl < 0 {
						t.Errorf("%s: unknown quantile %q", name, k)
						continue
					}
					if msg := RankError(nums, quantileLevels[lvl], v, QuantileRankError); msg != "" {
						t.Errorf("%s %s: %s", name, k, msg)
					}
				}
				if g.Median != nil {
					if msg := RankError(nums, 0.5, *g.Median, QuantileRankError); msg != "" {
						t.Errorf("%s median: %s", name, msg)
					}
				}
			}
		} else if want.Types[i] == Text {
			if deref(g.Min) != deref(w.Min) || deref(g.Max) != deref(w.Max) {
				t.Errorf("%s: min %s max %s, want %s %s", name, deref(g.Min), deref(g.Max), deref(w.Min), deref(w.Max))
			}
		}
		switch {
		case w.FormatConformance == nil && g.FormatConformance != nil:
			t.Errorf("%s: format conformance %v without a format", name, *g.FormatConformance)
		case w.FormatConformance != nil && g.FormatConformance != nil && !near(*g.FormatConformance, *w.FormatConformance):
			t.Errorf("%s: format conformance %v, want %v", name, *g.FormatConformance, *w.FormatConformance)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return strconv.Quote(*s)
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func checkNumber(t testing.TB, what string, got, want *string) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Errorf("%s: %s, want %s", what, deref(got), deref(want))
		return
	}
	if got == nil {
		return
	}
	g, err1 := strconv.ParseFloat(*got, 64)
	w, err2 := strconv.ParseFloat(*want, 64)
	if err1 != nil || err2 != nil || !near(g, w) {
		t.Errorf("%s: %s, want %s", what, *got, *want)
	}
}

func checkFloat(t testing.TB, what string, got, want *float64) {
	t.Helper()
	switch {
	case (got == nil) != (want == nil):
		t.Errorf("%s: got %v, want %v", what, got, want)
	case got != nil && !near(*got, *want):
		t.Errorf("%s: %v, want %v", what, *got, *want)
	}
}

// RankError checks that v is a q-quantile of sorted within a rank error
// of tol (a share of len(sorted)): the rank interval v occupies must come
// within tol·n of the exact rank ceil(q·n). It returns "" when it does.
func RankError(sorted []float64, q, v, tol float64) string {
	n := len(sorted)
	lo, _ := slices.BinarySearchFunc(sorted, v, func(a, b float64) int { return cmp.Compare(a, b) })
	hi := lo
	for hi < n && sorted[hi] == v {
		hi++
	}
	// v occupies ranks lo+1..hi (none when it is not a value).
	rank := float64(max(1, int(math.Ceil(q*float64(n)-1e-9))))
	slack := tol*float64(n) + 1
	var dist float64
	switch {
	case hi == lo: // not a value of the column: between ranks lo and lo+1
		dist = math.Min(math.Abs(rank-float64(lo)), math.Abs(rank-float64(lo+1)))
	case rank < float64(lo+1):
		dist = float64(lo+1) - rank
	case rank > float64(hi):
		dist = rank - float64(hi)
	}
	if dist > slack {
		return fmt.Sprintf("%v is %.0f ranks from rank %.0f of %d (tolerance %.0f)", v, dist, rank, n, slack)
	}
	return ""
}
