package quality

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dqs/dqs/profile"
)

func f64(v float64) *float64 { return &v }

// col is a clean integer column of n values; tests change what they need.
func col(name string, n int64) profile.Column {
	return profile.Column{
		Name: name, Count: n, Distinct: n, DistinctExact: true, InferredType: profile.TypeInteger,
		Format: "9+", FormatConformance: 1, TypeConformance: 1,
	}
}

func find(issues []Issue, kind, column string) *Issue {
	for i := range issues {
		if issues[i].Kind == kind && issues[i].Column == column {
			return &issues[i]
		}
	}
	return nil
}

func TestDimensionsAndScore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		col   profile.Column
		dims  Dimensions
		score float64
	}{
		{"clean", col("a", 100), Dimensions{100, 100, 100, 100}, 100},
		{"missing", func() profile.Column { c := col("a", 100); c.Nulls, c.Empty = 10, 10; return c }(),
			Dimensions{80, 100, 100, 100}, 93},
		{"type conformance", func() profile.Column { c := col("a", 100); c.TypeConformance = 0.97; return c }(),
			Dimensions{100, 97, 100, 100}, 99.1},
		{"format consistency", func() profile.Column { c := col("a", 100); c.FormatConformance = 0.6; return c }(),
			Dimensions{100, 100, 100, 60}, 94},
		{"string with dominant format", func() profile.Column {
			c := col("a", 100)
			c.InferredType, c.Format, c.FormatConformance = profile.TypeString, "A+-9+", 0.8
			return c
		}(), Dimensions{100, 80, 100, 80}, 91},
		{"free text", func() profile.Column {
			c := col("a", 100)
			c.InferredType, c.Format, c.FormatConformance = profile.TypeString, "A+ A+", 0.3
			return c
		}(), Dimensions{100, 100, 100, 100}, 100},
		{"all null", profile.Column{Name: "a", Count: 100, Nulls: 100, InferredType: profile.TypeEmpty, TypeConformance: 1, FormatConformance: 1},
			Dimensions{0, 100, 100, 100}, 65},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Assess(&profile.Profile{RowCount: 100, Columns: []profile.Column{tc.col}}, nil)
			if r.Columns[0].Dimensions != tc.dims || r.Columns[0].Score != tc.score {
				t.Errorf("got %+v %g; want %+v %g", r.Columns[0].Dimensions, r.Columns[0].Score, tc.dims, tc.score)
			}
			if r.Dimensions != tc.dims || r.Score != tc.score {
				t.Errorf("file: got %+v %g", r.Dimensions, r.Score)
			}
		})
	}
}

func TestFileDimensions(t *testing.T) {
	a, b := col("a", 200), col("b", 200)
	a.Nulls = 100             // completeness 50
	b.TypeConformance = 0.9   // validity 90
	b.FormatConformance = 0.5 // consistency 50
	p := &profile.Profile{RowCount: 200, DuplicateRows: 50, Columns: []profile.Column{a, b}}
	r := Assess(p, nil)
	want := Dimensions{Completeness: 75, Validity: 95, Uniqueness: 75, Consistency: 75}
	if r.Dimensions != want {
		t.Errorf("dimensions %+v", r.Dimensions)
	}
	if ws := 0.35*75 + 0.30*95 + 0.20*75 + 0.15*75; r.Score != math.Round(ws*10)/10 {
		t.Errorf("score %g want %g", r.Score, ws)
	}
	// Column uniqueness is always 100: duplicates are a file-level matter.
	if r.Columns[0].Dimensions.Uniqueness != 100 || r.Columns[0].Score != 82.5 {
		t.Errorf("column a %+v", r.Columns[0])
	}
	if r.Score != 81 { // 26.25 + 28.5 + 15 + 11.25
		t.Errorf("score %g", r.Score)
	}
}

func TestIssues(t *testing.T) {
	type want struct {
		kind, column, severity string
		count                  int64
		examples               []string
	}
	for _, tc := range []struct {
		name     string
		p        profile.Profile
		personal string
		want     []want
	}{
		{"clean", profile.Profile{RowCount: 10, Columns: []profile.Column{col("a", 10)}}, "", nil},
		{"missing warning", profile.Profile{RowCount: 100, Columns: []profile.Column{func() profile.Column {
			c := col("a", 100)
			c.Nulls, c.Empty = 3, 3
			return c
		}()}}, "", []want{{KindMissingValues, "a", SeverityWarning, 6, nil}}},
		{"missing at 5% is fine", profile.Profile{RowCount: 100, Columns: []profile.Column{func() profile.Column {
			c := col("a", 100)
			c.Nulls = 5
			return c
		}()}}, "", nil},
		{"missing critical", profile.Profile{RowCount: 100, Columns: []profile.Column{func() profile.Column {
			c := col("a", 100)
			c.Nulls = 31
			return c
		}()}}, "", []want{{KindMissingValues, "a", SeverityCritical, 31, nil}}},
		{"duplicates warning", profile.Profile{RowCount: 100, DuplicateRows: 10, Columns: []profile.Column{col("a", 100)}}, "",
			[]want{{KindDuplicateRows, "", SeverityWarning, 10, nil}}},
		{"duplicates critical", profile.Profile{RowCount: 100, DuplicateRows: 11, Columns: []profile.Column{col("a", 100)}}, "",
			[]want{{KindDuplicateRows, "", SeverityCritical, 11, nil}}},
		// An estimate counts as it is.
		{"few estimated duplicates", profile.Profile{RowCount: 2_000_000, DuplicateRows: 40_000, DuplicateRowsEstimated: true,
			Columns: []profile.Column{col("a", 2_000_000)}}, "", []want{{KindDuplicateRows, "", SeverityWarning, 40_000, nil}}},
		{"estimated duplicates", profile.Profile{RowCount: 2_000_000, DuplicateRows: 300_000, DuplicateRowsEstimated: true,
			Columns: []profile.Column{col("a", 2_000_000)}}, "", []want{{KindDuplicateRows, "", SeverityCritical, 300_000, nil}}},
		{"invalid format", profile.Profile{RowCount: 100, Columns: []profile.Column{{
			Name: "code", Count: 100, Distinct: 100, InferredType: profile.TypeString, TypeConformance: 1,
			Format: "A+-9+", FormatConformance: 0.9, Sample: []string{"AB-12", "AB12", "CD-34", "X 99", "AB12", "Q-1-2", "ZZ"},
		}}}, "", []want{{KindInvalidFormat, "code", SeverityWarning, 10, []string{"AB12", "X 99", "Q-1-2"}}}},
		{"invalid date format, personal", profile.Profile{RowCount: 100, Columns: []profile.Column{{
			Name: "birth", Count: 100, Distinct: 90, InferredType: profile.TypeDate, TypeConformance: 1,
			Format: "9+-9+-9+", FormatConformance: 0.4, Sample: []string{"1990-01-02", "02/01/1990", "1990/01/03"},
		}}}, "birth", []want{{KindInvalidFormat, "birth", SeverityWarning, 60, []string{"********90", "********03"}}}},
		{"no format issue for free text or numbers", profile.Profile{RowCount: 100, Columns: []profile.Column{
			{Name: "notes", Count: 100, Distinct: 90, InferredType: profile.TypeString, TypeConformance: 1, Format: "A+ A+", FormatConformance: 0.2, Sample: []string{"a b c"}},
			{Name: "price", Count: 100, Distinct: 90, InferredType: profile.TypeFloat, TypeConformance: 1, Format: "9+.9+", FormatConformance: 0.7, Sample: []string{"10"}},
		}}, "", nil},
		{"type mismatch", profile.Profile{RowCount: 200, Columns: []profile.Column{{
			Name: "age", Count: 200, Nulls: 0, Distinct: 60, InferredType: profile.TypeInteger, TypeConformance: 0.98,
			Format: "9+", FormatConformance: 0.98, Sample: []string{"12", "n/a", "40", "unknown", "n/a"},
		}}}, "", []want{{KindTypeMismatch, "age", SeverityWarning, 4, []string{"n/a", "unknown"}}}},
		{"constant", profile.Profile{RowCount: 10, Columns: []profile.Column{{
			Name: "k", Count: 10, Nulls: 2, Distinct: 1, InferredType: profile.TypeString, TypeConformance: 1, Format: "A+", FormatConformance: 1,
			TopValues: []profile.ValueCount{{Value: "yes-sir", Count: 8}},
		}}}, "", []want{{KindMissingValues, "k", SeverityWarning, 2, nil}, {KindConstantColumn, "k", SeverityInfo, 8, []string{"yes-sir"}}}},
		{"single row is not constant", profile.Profile{RowCount: 1, Columns: []profile.Column{col("a", 1)}}, "", nil},
		{"outliers", profile.Profile{RowCount: 1000, Columns: []profile.Column{{
			Name: "amount", Count: 1000, Distinct: 900, InferredType: profile.TypeFloat, TypeConformance: 1, Format: "9+.9+", FormatConformance: 1,
			Quantiles: map[string]float64{"p01": 1, "p05": 5, "p25": 20, "p50": 50, "p75": 80, "p95": 95, "p99": 99},
			Sample:    []string{"10", "50.5", "1000", "-200", "379", "-180", "inf", "abc"},
		}}}, "", []want{{KindOutliers, "amount", SeverityInfo, 500, []string{"1000", "-200", "379"}}}}, // 4 of 8 sampled
		{"inconsistent case", profile.Profile{RowCount: 100, Columns: []profile.Column{{
			Name: "city", Count: 100, Distinct: 5, InferredType: profile.TypeString, TypeConformance: 1, Format: "A+", FormatConformance: 1,
			Sample: []string{"Paris", "PARIS", "Lyon", "Paris", "paris", "Lyon", "Nice", "Paris", "Rome", "ROME"},
		}}}, "", []want{{KindInconsistentCase, "city", SeverityInfo, 30, []string{"PARIS", "paris", "Rome"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Assess(&tc.p, func(c string) Meaning { return Meaning{Personal: c == tc.personal} })
			var got []want
			for _, is := range r.Issues {
				got = append(got, want{is.Kind, is.Column, is.Severity, is.Count, is.Examples})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestIssueOrder(t *testing.T) {
	a := col("a", 100)
	a.Nulls = 50 // critical
	b := col("b", 100)
	b.Nulls = 10 // warning
	b.Distinct = 1
	p := &profile.Profile{RowCount: 100, DuplicateRows: 1, Columns: []profile.Column{b, a}}
	var kinds []string
	for _, is := range Assess(p, nil).Issues {
		kinds = append(kinds, is.Severity+":"+is.Kind+":"+is.Column)
	}
	want := []string{"critical:missing_values:a", "warning:duplicate_rows:", "warning:missing_values:b", "info:constant_column:b"}
	if !reflect.DeepEqual(kinds, want) {
		t.Errorf("%v", kinds)
	}
}

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"0612345678": "********78", "abc": "*bc", "ab": "**", "é": "*", "": "", "Zoë": "*oë",
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q; want %q", in, got, want)
		}
	}
}

func TestEmptyInput(t *testing.T) {
	for name, p := range map[string]*profile.Profile{
		"nil":        nil,
		"no columns": {},
		"no rows":    profile.New([]string{"a", "b", "c"}, profile.Options{}).Result(),
	} {
		r := Assess(p, nil)
		all := Dimensions{100, 100, 100, 100}
		if r.Score != 100 || r.Dimensions != all || len(r.Issues) != 0 || r.Issues == nil {
			t.Errorf("%s: %+v", name, r)
		}
		for _, c := range r.Columns {
			if c.Score != 100 || c.Dimensions != all {
				t.Errorf("%s: column %+v", name, c)
			}
		}
		if b, err := json.Marshal(r); err != nil || strings.Contains(string(b), "NaN") {
			t.Errorf("%s: %s %v", name, b, err)
		}
	}
}

func inRange(f float64) bool { return f >= 0 && f <= 100 && !math.IsNaN(f) }

func checkRange(t *testing.T, r Report) {
	t.Helper()
	dims := func(d Dimensions) bool {
		return inRange(d.Completeness) && inRange(d.Validity) && inRange(d.Uniqueness) && inRange(d.Consistency)
	}
	if !inRange(r.Score) || !dims(r.Dimensions) {
		t.Fatalf("file out of range: %+v", r)
	}
	for _, c := range r.Columns {
		if !inRange(c.Score) || !dims(c.Dimensions) {
			t.Fatalf("column out of range: %+v", c)
		}
	}
	for _, is := range r.Issues {
		if is.Count < 0 || len(is.Examples) > maxExamples {
			t.Fatalf("bad issue %+v", is)
		}
	}
}

// Property: whatever the profile, even an inconsistent or corrupt one, every
// score and dimension is in [0, 100].
func TestScoresAlwaysInRange(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ints := []int64{0, 1, 2, 5, 100, -3, math.MaxInt64, math.MinInt64}
	floats := []float64{0, 0.5, 0.95, 1, 1.5, -0.2, math.NaN(), math.Inf(1), math.Inf(-1)}
	types := []string{"integer", "float", "boolean", "date", "datetime", "string", "empty", "", "weird"}
	anyInt := func() int64 {
		if r.IntN(2) == 0 {
			return ints[r.IntN(len(ints))]
		}
		return r.Int64N(1000)
	}
	anyFloat := func() float64 {
		if r.IntN(2) == 0 {
			return floats[r.IntN(len(floats))]
		}
		return r.Float64()
	}
	for range 20_000 {
		p := &profile.Profile{RowCount: anyInt(), DuplicateRows: anyInt()}
		for j := range r.IntN(5) {
			c := profile.Column{
				Name: strconv.Itoa(j), Count: anyInt(), Nulls: anyInt(), Empty: anyInt(), Distinct: anyInt(),
				InferredType: types[r.IntN(len(types))], Format: "9+", FormatConformance: anyFloat(), TypeConformance: anyFloat(),
				Sample: []string{"1", "x", "1e308", "-5", "NaN", ""},
			}
			if r.IntN(2) == 0 {
				c.Quantiles = map[string]float64{"p01": anyFloat(), "p25": anyFloat(), "p75": anyFloat(), "p99": anyFloat()}
			}
			p.Columns = append(p.Columns, c)
		}
		checkRange(t, Assess(p, nil))
	}
}

// Property, on real profiles of random tables.
func TestScoresOfRandomTablesInRange(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	pool := []string{"", " ", "1", "-7", "3.5", "yes", "No", "2024-01-02", "02/01/2024", "2024-01-02 10:00:00", "Paris", "PARIS", "a-1", "zz"}
	for range 200 {
		ncol := 1 + r.IntN(4)
		p := profile.New(make([]string, ncol), profile.Options{SampleSize: 20})
		vals, nulls := make([]string, ncol), make([]bool, ncol)
		for range r.IntN(300) {
			for j := range ncol {
				vals[j], nulls[j] = pool[r.IntN(len(pool))], r.IntN(8) == 0
			}
			p.Add(vals, nulls)
		}
		checkRange(t, Assess(p.Result(), func(string) Meaning { return Meaning{Personal: r.IntN(2) == 0} }))
	}
}

func TestEndToEnd(t *testing.T) {
	p := profile.New([]string{"id", "email", "age", "city"}, profile.Options{})
	cities := []string{"Paris", "Lyon", "Nice", "PARIS"}
	for i := range 1000 {
		age := strconv.Itoa(20 + i%50)
		if i%100 == 0 {
			age = "unknown"
		}
		email := "user" + strconv.Itoa(i) + "@example.com"
		null := []bool{false, i%10 == 0, false, false}
		p.Add([]string{strconv.Itoa(i % 990), email, age, cities[i%4]}, null)
	}
	r := Assess(p.Result(), func(c string) Meaning { return Meaning{Personal: c == "email"} })
	for _, k := range []struct{ kind, col string }{
		{KindMissingValues, "email"}, {KindTypeMismatch, "age"}, {KindInconsistentCase, "city"},
	} {
		if find(r.Issues, k.kind, k.col) == nil {
			t.Errorf("missing %s on %q: %+v", k.kind, k.col, r.Issues)
		}
	}
	if is := find(r.Issues, KindTypeMismatch, "age"); is != nil && (is.Count != 10 || !reflect.DeepEqual(is.Examples, []string{"unknown"})) {
		t.Errorf("type mismatch %+v", is)
	}
	if r.Score <= 0 || r.Score >= 100 {
		t.Errorf("score %g", r.Score)
	}
}
