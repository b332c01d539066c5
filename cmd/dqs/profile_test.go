package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// nullsOf runs dqs profile --json with args and returns each column's
// null count.
func nullsOf(t *testing.T, args ...string) map[string]int64 {
	t.Helper()
	code, out, errOut := runCmd(t, append([]string{"profile", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res []struct {
		Columns []struct {
			Name  string `json:"name"`
			Nulls int64  `json:"nulls"`
		} `json:"columns"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 1 {
		t.Fatalf("output %q: %v", out, err)
	}
	got := map[string]int64{}
	for _, c := range res[0].Columns {
		got[c.Name] = c.Nulls
	}
	return got
}

func TestProfileNullTokens(t *testing.T) {
	path := writeFile(t, "codes.csv", "id,code\n1,NULL\n2,x\n3,-\n4,missing\n5,y\n")
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{nil, 2}, // NULL and -
		{[]string{"--null-tokens", "missing,x"}, 2}, // the list replaces the defaults
		{[]string{"--null-tokens", ""}, 0},
	} {
		if got := nullsOf(t, append(tc.args, path)...)["code"]; got != tc.want {
			t.Errorf("%q: %d nulls, want %d", tc.args, got, tc.want)
		}
	}
	code, _, errOut := runCmd(t, "profile", "--null-tokens", "a, ,b", path)
	if code != 2 || !strings.Contains(errOut, "blank") {
		t.Errorf("a blank token: exit %d, %q", code, errOut)
	}
}

func TestProfilePrintsIssueMessages(t *testing.T) {
	path := writeFile(t, "people.csv", "name,city\nAnn,Paris\nBob,\nEve,\nJo,PARIS\nAl,Paris\n")
	code, out, errOut := runCmd(t, "profile", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		`critical missing_values: 2 of 5 values of "city" (40.0%) are missing: null, empty or a null token.`,
		`info inconsistent_case: 1 of 3 values of "city" (33.3%) are spelt in another letter case than the same value elsewhere in the column.`,
		`    examples: "PARIS"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestProfileExitStatus(t *testing.T) {
	good := writeFile(t, "ok.csv", "a,b\n1,2\n")
	if code, _, _ := runCmd(t, "profile"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	code, _, errOut := runCmd(t, "profile", good, filepath.Join(t.TempDir(), "missing.csv"))
	if code != 1 || !strings.Contains(errOut, "missing.csv") {
		t.Errorf("a missing file: exit %d, %q", code, errOut)
	}
}

// TestProfileCSVDialect: the dialect flags are how a CSV file is read; the
// text says which dialect was read, and --json carries it.
func TestProfileCSVDialect(t *testing.T) {
	path := writeFile(t, "regions.csv", "Export of 2026-11-26\nid;city\n1;Paris\n2;Rome\n3;Oslo\n")
	code, out, errOut := runCmd(t, "profile", "--json", "--delimiter", "semicolon", "--header", "2", "--quote", "'", "--encoding", "latin-1", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res []struct {
		RowCount int64          `json:"row_count"`
		CSV      map[string]any `json:"csv"`
		Columns  []struct {
			Name string `json:"name"`
		} `json:"columns"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 1 {
		t.Fatalf("output %q: %v", out, err)
	}
	want := map[string]any{"delimiter": ";", "quote": "'", "header_line": float64(2), "encoding": "windows-1252"}
	if !reflect.DeepEqual(res[0].CSV, want) || res[0].RowCount != 3 || len(res[0].Columns) != 2 || res[0].Columns[1].Name != "city" {
		t.Errorf("--json = %+v, want csv %v and the columns id, city", res[0], want)
	}

	// With null tokens too: each flag keeps its part of the dialect.
	if got := nullsOf(t, "--null-tokens", "Rome", "--delimiter", ";", "--header", "2", path)["city"]; got != 1 {
		t.Errorf("--null-tokens with --delimiter: %d nulls in city, want 1", got)
	}
	// Told there is no header: the header line is a row.
	code, out, errOut = runCmd(t, "profile", "--header", "none", "--delimiter", ";", path)
	if code != 0 || !strings.Contains(out, `  read as CSV: delimiter ";", quote "\"", no header, encoding utf-8`+"\n") || !strings.Contains(out, "col_1") {
		t.Errorf("--header none: exit %d, %q %q", code, out, errOut)
	}
	// Sniffed, the line says what was found.
	code, out, _ = runCmd(t, "profile", path)
	if code != 0 || !strings.Contains(out, `  read as CSV: delimiter ";", quote "\"", header on line 2, encoding utf-8`+"\n") {
		t.Errorf("sniffed: exit %d, %q", code, out)
	}
	for _, args := range [][]string{{"--delimiter", "ab"}, {"--quote", "xy"}, {"--header", "0"}, {"--encoding", "ebcdic"}, {"--delimiter", "'", "--quote", "'"}} {
		code, out, errOut := runCmd(t, append(append([]string{"profile"}, args...), path)...)
		if code != 2 || out != "" || !strings.HasPrefix(errOut, "dqs profile: the ") {
			t.Errorf("%q: exit %d, %q %q", args, code, out, errOut)
		}
	}
}

// TestProfileWrappedJSON: records wrapped in an object are the rows, and
// both outputs say where they were found.
func TestProfileWrappedJSON(t *testing.T) {
	path := writeFile(t, "export.json", `{"response": {"page": 1, "items": [{"id": 1, "city": "Paris"}, {"id": 2, "city": "Rome"}]}}`)
	code, out, errOut := runCmd(t, "profile", path)
	if code != 0 || !strings.Contains(out, "2 rows, 2 columns") || !strings.Contains(out, `  records read from the array at "response.items"`+"\n") || strings.Contains(out, "read as CSV") {
		t.Errorf("text: exit %d, %q %q", code, out, errOut)
	}
	code, out, errOut = runCmd(t, "profile", "--json", path)
	var res []map[string]any
	if err := json.Unmarshal([]byte(out), &res); code != 0 || err != nil || len(res) != 1 || res[0]["records_path"] != "response.items" || res[0]["csv"] != nil {
		t.Errorf("--json: exit %d, %v, %q %q", code, err, out, errOut)
	}
}
