package scans

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/models"
)

// tokensOracle counts as DECISIONS.md words it: 1 token, plus 1 for each
// started block of 100,000 rows, walking the blocks one by one.
func tokensOracle(rows int64) int64 {
	n := int64(1)
	for start := int64(0); start < rows; start += 100_000 {
		n++
	}
	return n
}

func TestItemTokens(t *testing.T) {
	for _, rows := range []int64{-5, 0, 1, 99_999, 100_000, 100_001, 199_999, 200_000, 1_234_567, 10_000_000} {
		if got, want := itemTokens(rows), tokensOracle(rows); got != want {
			t.Errorf("itemTokens(%d) = %d, want %d", rows, got, want)
		}
	}
	huge := []connectors.Table{{Name: "a", RowEstimate: math.MaxInt64}, {Name: "b", RowEstimate: math.MaxInt64}}
	// A catalogue may report anything: the estimate must never wrap
	// below the balance check.
	if got, want := Estimate(huge), int64(2*(2+math.MaxInt64/100_000)); got != want {
		t.Errorf("Estimate of huge catalogue rows = %d, want %d", got, want)
	}
	if got := addTokens(math.MaxInt64-1, 5); got != math.MaxInt64 {
		t.Errorf("addTokens near the top = %d, want it to saturate", got)
	}
}

func TestEstimateAndCharge(t *testing.T) {
	tables := []connectors.Table{{Name: "a", RowEstimate: 0}, {Name: "b", RowEstimate: 250_000}, {Name: "c", RowEstimate: 100_000}}
	if got := Estimate(tables); got != 1+4+2 {
		t.Errorf("Estimate = %d, want 7", got)
	}
	results := []models.ScanTable{
		{TableName: "a", Status: models.ScanCompleted, Rows: 3},
		{TableName: "b", Status: models.ScanFailed, Rows: 0},
		{TableName: "c", Status: models.ScanCompleted, Rows: 100_000},
	}
	if got := Charge(results); got != 2+2 {
		t.Errorf("Charge = %d, want 4 (a failed table costs nothing)", got)
	}
}

func TestPickTables(t *testing.T) {
	listed := []connectors.Table{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	picked, missing := PickTables(listed, nil)
	if len(picked) != 3 || missing != nil {
		t.Errorf("every table: %v %v", picked, missing)
	}
	picked, missing = PickTables(listed, []string{"c", "x", "a"})
	if !reflect.DeepEqual(picked, []connectors.Table{{Name: "c"}, {Name: "a"}}) || !reflect.DeepEqual(missing, []string{"x"}) {
		t.Errorf("requested: %v %v", picked, missing)
	}
}

func TestOutcome(t *testing.T) {
	ok := models.ScanTable{TableName: "a", Status: models.ScanCompleted}
	bad := models.ScanTable{TableName: "b", Status: models.ScanFailed, Error: "gone"}
	for _, tc := range []struct {
		tables      []models.ScanTable
		planErr     string
		status, msg string
	}{
		{nil, "", models.ScanCompleted, ""},
		{[]models.ScanTable{ok}, "", models.ScanCompleted, ""},
		{[]models.ScanTable{ok, bad}, "", models.ScanCompleted, "1 of 2 tables failed; b: gone"},
		{[]models.ScanTable{bad}, "", models.ScanFailed, "every table failed; b: gone"},
		{nil, "unreachable", models.ScanFailed, "unreachable"},
	} {
		if status, msg := Outcome(tc.tables, tc.planErr); status != tc.status || msg != tc.msg {
			t.Errorf("Outcome(%v, %q) = %s %q, want %s %q", tc.tables, tc.planErr, status, msg, tc.status, tc.msg)
		}
	}
}

func TestRequestCheck(t *testing.T) {
	db := &models.Source{Type: connectors.PostgreSQL}
	bucket := &models.Source{Type: connectors.S3}
	for _, tc := range []struct {
		src *models.Source
		req Request
		ok  bool
	}{
		{db, Request{}, true},
		{db, Request{Tables: []string{"a", "b"}}, true},
		{db, Request{Tables: []string{"a", "a"}}, false},
		{db, Request{Tables: []string{" "}}, false},
		{db, Request{Tables: make([]string, MaxItems+1)}, false},
		{db, Request{Schema: "public"}, true},
		{db, Request{Schema: "other"}, false},
		{bucket, Request{Tables: []string{"a"}}, false},
		{bucket, Request{}, true},
	} {
		if err := tc.req.check(tc.src, "public"); (err == nil) != tc.ok {
			t.Errorf("check(%s, %+v) = %v, want ok %v", tc.src.Type, tc.req, err, tc.ok)
		}
	}
}

func TestParseCron(t *testing.T) {
	for expr, ok := range map[string]bool{
		"0 2 * * *": true, "*/15 * * * *": true, "0 3 * * 1-5": true, "0 0 1 * *": true,
		"": false, "@daily": false, "0 2 * * * *": false, "61 * * * *": false, "0 25 * * *": false,
		"TZ=Europe/Stockholm 0 2 * * *": false, "every day": false,
	} {
		if _, err := ParseCron(expr); (err == nil) != ok {
			t.Errorf("ParseCron(%q) = %v, want ok %v", expr, err, ok)
		}
	}
}

// TestEstimateObjects: an object is priced as rows of 200 bytes: 1 token,
// plus 1 per started 100,000 such rows (20 MB).
func TestEstimateObjects(t *testing.T) {
	for _, c := range []struct {
		sizes []int64
		want  int64
	}{
		{nil, 0},
		{[]int64{0}, 1},
		{[]int64{199}, 1},                  // under one row
		{[]int64{200}, 2},                  // one row starts a block of 100,000
		{[]int64{20_000_000}, 2},           // exactly 100,000 rows
		{[]int64{20_000_200}, 3},           // 100,001 rows
		{[]int64{1 << 30, 10}, 1 + 54 + 1}, // 5,368,709 rows: 1 + 54 started blocks; and 0 rows
		{[]int64{math.MaxInt64, math.MaxInt64}, 2 * (2 + math.MaxInt64/200/100_000)},
	} {
		objects := make([]models.ListedObject, len(c.sizes))
		for i, n := range c.sizes {
			objects[i] = models.ListedObject{Key: fmt.Sprint("k", i), SizeBytes: n}
		}
		if got := EstimateObjects(objects); got != c.want {
			t.Errorf("EstimateObjects(%v) = %d, want %d", c.sizes, got, c.want)
		}
	}
}
