package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// The comparison rules on hand-made outputs of both engines, as JSON the
// way `dqs profile --json` and duckdb-figures.mjs write it (no DuckDB or
// Node.js needed). Every rule is checked on both sides of its bound.

const testDQS = `[{"format": "jsonl", "row_count": 1000, "columns": [
 {"name": "n", "nulls": 2, "empty": 0, "distinct": 1030, "distinct_exact": false, "inferred_type": "integer",
  "min": "11000075756", "max": "5", "mean": 100, "stddev": 100,
  "quantiles": {"p01": 1, "p25": 250, "p50": 500, "p75": 750},
  "classification": {"gdpr_category": "none"}},
 {"name": "f", "nulls": 0, "empty": 0, "distinct": 1031, "distinct_exact": false, "inferred_type": "float",
  "min": "0.1", "max": "2.5", "mean": 1, "stddev": 1, "quantiles": {"p25": 1.5, "p50": 2, "p75": 2.5},
  "classification": {"gdpr_category": "none"}},
 {"name": "k", "nulls": 0, "empty": 0, "distinct": 3, "distinct_exact": true, "inferred_type": "integer",
  "min": "1", "max": "3", "mean": 2, "stddev": 1, "quantiles": {"p25": 1, "p50": 2, "p75": 2},
  "classification": {"gdpr_category": "none"}},
 {"name": "at", "nulls": 0, "empty": 0, "distinct": 2, "distinct_exact": true, "inferred_type": "datetime",
  "min": "2019-01-01T01:34:23+01:00", "max": "2025-12-30T23:47:41Z",
  "classification": {"gdpr_category": "none"}},
 {"name": "born", "nulls": 0, "empty": 0, "distinct": 2, "distinct_exact": true, "inferred_type": "date",
  "min": "********01", "max": "1999-12-31", "classification": {"gdpr_category": "personal"}},
 {"name": "who", "nulls": 1, "empty": 1, "distinct": 4, "distinct_exact": true, "inferred_type": "string",
  "min": "****ia", "max": "****ib", "classification": {"gdpr_category": "personal"}},
 {"name": "city", "nulls": 0, "empty": 0, "distinct": 2, "distinct_exact": true, "inferred_type": "string",
  "min": "Zurich", "max": "Zürich", "classification": {"gdpr_category": "none"}},
 {"name": "gone", "nulls": 0, "empty": 0, "distinct": 1, "distinct_exact": true, "inferred_type": "string",
  "min": "x", "max": "x", "classification": {"gdpr_category": "none"}}
]}]`

// The exact figures: n's quartile p25 (rank 250) is held by dqs's value at
// ranks 245-245, 0.5% of n away (agrees); p50 at 494-494, 0.6% away (does
// not); p75's value is no value of the column.
const testDuck = `{"duckdb_version": "v0", "rows": 1000, "columns": [
 {"name": "n", "duckdb_type": "VARCHAR", "nulls": 1, "blank": 0, "tokens": 1, "distinct": 1000, "approx_distinct": 1100,
  "min_num": 11000075756, "max_num": 5.5, "mean": 100.00000005, "stddev": 100.0000002, "n": 1000,
  "quantiles": {"p25": {"rank": 250, "value": 251, "below": 244, "not_above": 245},
                "p50": {"rank": 500, "value": 501, "below": 493, "not_above": 494},
                "p75": {"rank": 750, "value": 751, "below": 740, "not_above": 740}}},
 {"name": "f", "duckdb_type": "DOUBLE", "nulls": 0, "blank": 0, "tokens": 0, "distinct": 1000, "approx_distinct": 990,
  "min_num": 0.1, "max_num": 2.5, "mean": 1, "stddev": 1, "n": 1000,
  "quantiles": {"p25": {"rank": 250, "value": 1.5, "below": 249, "not_above": 252},
                "p50": {"rank": 500, "value": 2, "below": 400, "not_above": 505}}},
 {"name": "k", "duckdb_type": "BIGINT", "nulls": 0, "blank": 0, "tokens": 0, "distinct": 3, "approx_distinct": 3,
  "min_num": 1, "max_num": 3, "mean": 2, "stddev": 1, "n": 1000,
  "quantiles": {"p25": {"rank": 250, "value": 1, "below": 0, "not_above": 300},
                "p50": {"rank": 500, "value": 2, "below": 300, "not_above": 600},
                "p75": {"rank": 750, "value": 3, "below": 600, "not_above": 1000}}},
 {"name": "at", "duckdb_type": "TIMESTAMP", "nulls": 0, "blank": 0, "tokens": 0, "distinct": 2, "approx_distinct": 2,
  "min_us": 1546302863000000, "max_us": 1767138462000000},
 {"name": "born", "duckdb_type": "DATE", "nulls": 0, "blank": 0, "tokens": 0, "distinct": 2, "approx_distinct": 2,
  "min_us": -946771200000000, "max_us": 946598400000000},
 {"name": "who", "duckdb_type": "VARCHAR", "nulls": 1, "blank": 1, "tokens": 0, "distinct": 4, "approx_distinct": 4,
  "min_text": "Amelia", "max_text": "Amelia"},
 {"name": "city", "duckdb_type": "VARCHAR", "nulls": 0, "blank": 0, "tokens": 0, "distinct": 3, "approx_distinct": 3,
  "min_text": "Zurich", "max_text": "Zurich"},
 {"name": "gone", "missing": true}
]}`

type verdict struct {
	dqs, duck string
	ok        bool
}

func decodeTest(t *testing.T, dqsJSON, duckJSON string) (*dqsFile, *duckFile) {
	t.Helper()
	var files []dqsFile
	if err := json.Unmarshal([]byte(dqsJSON), &files); err != nil || len(files) != 1 {
		t.Fatalf("dqs JSON: %v", err)
	}
	var d duckFile
	if err := json.Unmarshal([]byte(duckJSON), &d); err != nil {
		t.Fatal(err)
	}
	return &files[0], &d
}

func verdicts(checks []check) map[string]verdict {
	got := map[string]verdict{}
	for _, c := range checks {
		got[c.column+"/"+c.figure] = verdict{c.dqs, c.duck, c.ok}
	}
	return got
}

func TestCompareRules(t *testing.T) {
	p, d := decodeTest(t, testDQS, testDuck)
	checks := compareFile("jsonl", p, d)
	want := map[string]verdict{
		"/rows": {"1000", "1000", true},
		// nulls = NULL + tokens; missing adds empty and blank.
		"n/missing":    {"2 (0.200%)", "2 (0.200%)", true},
		"n/nulls":      {"2 (0.200%)", "2 (0.200%)", true},
		"n/min":        {"11000075756", "11000075756", true},
		"n/max":        {"5", "5.5", false},
		"n/mean":       {"100", "100.00000005", true}, // 5e-10 relative
		"n/stddev":     {"100", "100.0000002", false}, // 2e-9 relative
		"n/p25":        {"250", "251", true},          // 5 ranks = 0.5% of n
		"n/p50":        {"500", "501", false},         // 6 ranks
		"n/p75":        {"750", "751", false},         // not a value
		"n/distinct":   {"1030", "1000", true},        // +3.0%
		"f/missing":    {"0 (0.000%)", "0 (0.000%)", true},
		"f/nulls":      {"0 (0.000%)", "0 (0.000%)", true},
		"f/min":        {"0.1", "0.1", true},
		"f/max":        {"2.5", "2.5", true},
		"f/mean":       {"1", "1", true},
		"f/stddev":     {"1", "1", true},
		"f/p25":        {"1.5", "1.5", true}, // rank 250 within ranks 250-252
		"f/p50":        {"2", "2", true},     // rank 500 within ranks 401-505
		"f/p75":        {"present", "missing", false},
		"f/distinct":   {"1031", "1000", false}, // +3.1%
		"k/missing":    {"0 (0.000%)", "0 (0.000%)", true},
		"k/nulls":      {"0 (0.000%)", "0 (0.000%)", true},
		"k/min":        {"1", "1", true},
		"k/max":        {"3", "3", true},
		"k/mean":       {"2", "2", true},
		"k/stddev":     {"1", "1", true},
		"k/p25":        {"1", "1", true},
		"k/p50":        {"2", "2", true},
		"k/p75":        {"2", "3", false}, // exact: equal or nothing, however close the rank
		"k/distinct":   {"3", "3", true},
		"at/missing":   {"0 (0.000%)", "0 (0.000%)", true},
		"at/nulls":     {"0 (0.000%)", "0 (0.000%)", true},
		"at/min":       {"2019-01-01T01:34:23+01:00", "2019-01-01T00:34:23Z", true}, // one instant
		"at/max":       {"2025-12-30T23:47:41Z", "2025-12-30T23:47:42Z", false},
		"at/distinct":  {"2", "2", true},
		"born/missing": {"0 (0.000%)", "0 (0.000%)", true},
		"born/nulls":   {"0 (0.000%)", "0 (0.000%)", true},
		"born/min":     {"********01", "1940-01-01", true},
		// A personal column's value is compared masked, so even an
		// unmasked equal one disagrees.
		"born/max":      {"1999-12-31", "1999-12-31", false},
		"born/distinct": {"2", "2", true},
		"who/missing":   {"2 (0.200%)", "2 (0.200%)", true},
		"who/nulls":     {"1 (0.100%)", "1 (0.100%)", true},
		"who/min":       {"****ia", "Amelia", true},
		"who/max":       {"****ib", "Amelia", false},
		"who/distinct":  {"4", "4", true},
		"city/missing":  {"0 (0.000%)", "0 (0.000%)", true},
		"city/nulls":    {"0 (0.000%)", "0 (0.000%)", true},
		"city/min":      {"Zurich", "Zurich", true},
		"city/max":      {"Zürich", "Zurich", false}, // byte-wise
		"city/distinct": {"2", "3", false},           // exact
		"gone/column":   {"present", "missing", false},
	}
	got := verdicts(checks)
	if len(checks) != len(want) {
		t.Errorf("%d checks, want %d", len(checks), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: not compared", k)
		} else if g != w {
			t.Errorf("%s = %+v, want %+v", k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: compared, not expected", k)
		}
	}
}

// In CSV, DuckDB reads an empty field as NULL, which dqs counts as an
// empty value: only the sum is compared, and the empty string is one more
// distinct value to dqs.
func TestCompareCSVEmptyFields(t *testing.T) {
	p, d := decodeTest(t,
		`[{"format": "csv", "row_count": 10, "columns": [{"name": "notes", "nulls": 1, "empty": 3,
		   "distinct": 5, "distinct_exact": true, "inferred_type": "string", "min": "a", "max": "d"}]}]`,
		`{"rows": 10, "columns": [{"name": "notes", "duckdb_type": "VARCHAR", "nulls": 3, "blank": 0, "tokens": 1,
		   "distinct": 4, "approx_distinct": 4, "min_text": "a", "max_text": "d"}]}`)
	got := verdicts(compareFile("csv", p, d))
	want := map[string]verdict{
		"/rows":          {"10", "10", true},
		"notes/missing":  {"4 (40.000%)", "4 (40.000%)", true},
		"notes/min":      {"a", "a", true},
		"notes/max":      {"d", "d", true},
		"notes/distinct": {"5", "5", true},
	}
	if !mapsEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	// Without NULLs there is no empty value to add.
	d.Columns[0].Nulls, d.Columns[0].Blank = 0, 3
	if v := verdicts(compareFile("csv", p, d))["notes/distinct"]; v != (verdict{"5", "4", false}) {
		t.Errorf("distinct without NULLs = %+v", v)
	}
}

func mapsEqual(a, b map[string]verdict) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestSpecFor(t *testing.T) {
	p, _ := decodeTest(t, testDQS, testDuck)
	s := specFor("jsonl", "/data/x.jsonl", p)
	if s.Format != "jsonl" || s.Path != "/data/x.jsonl" || !slices.Contains(s.NullTokens, "n/a") {
		t.Fatalf("spec = %+v", s)
	}
	var got []string
	for _, c := range s.Columns {
		got = append(got, fmt.Sprintf("%s:%s:%v", c.Name, c.Kind, c.Probes))
	}
	want := []string{
		"n:number:map[p25:250 p50:500 p75:750]", // p01 is not ranked
		"f:number:map[p25:1.5 p50:2 p75:2.5]",
		"k:number:map[p25:1 p50:2 p75:2]",
		"at:temporal:map[]", "born:temporal:map[]",
		"who:string:map[]", "city:string:map[]", "gone:string:map[]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("columns = %q\nwant %q", got, want)
	}
}

func TestPrintChecks(t *testing.T) {
	var b bytes.Buffer
	bad := printChecks(&b, []check{
		{format: "csv", column: "a", figure: "min", dqs: "1", duck: "1", ok: true},
		{format: "csv", column: "a", figure: "max", dqs: "2", duck: "3"},
		{format: "parquet", column: "a", figure: "min", dqs: "1", duck: "1", ok: true},
	})
	out := b.String()
	if bad != 1 {
		t.Errorf("printChecks = %d, want 1", bad)
	}
	for _, line := range []string{
		"csv: 2 figures, 1 agree, 1 disagree\n",
		"parquet: 1 figures, 1 agree, 0 disagree\n",
		"1 of 3 figures disagree\n",
	} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if strings.Count(out, " NO ") != 1 {
		t.Errorf("want one NO row:\n%s", out)
	}
}
