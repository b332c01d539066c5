package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
