package corrections

import (
	"errors"
	"regexp"
	"strings"
	"testing"
)

func replace(col, pattern, replacement string) Step {
	return step("re", TypeRegexReplace, col, "", map[string]any{"pattern": pattern, "replacement": replacement})
}

func TestRegexReplace(t *testing.T) {
	cols := []string{"v"}
	rows := table{{"(555) 123-4567"}, {"N/A"}, {""}, {N}, {"+1 555 000"}, {"none"}}
	got, res := run(t, cols, rows, replace("v", `[^0-9+]`, ""))
	equalTables(t, got, table{{"5551234567"}, {""}, {""}, {N}, {"+1555000"}, {""}})
	if c := res.Changes[0]; c.CellsChanged != 4 || c.Unfixed != 0 {
		t.Fatalf("counts %+v", c)
	}
	// Groups, and null tokens seen as text.
	got, _ = run(t, cols, table{{"2024-03-05"}, {"N/A"}, {"x"}}, replace("v", `^(\d{4})-(\d\d)-(\d\d)$|^N/A$`, "${3}/${2}/${1}"))
	equalTables(t, got, table{{"05/03/2024"}, {"//"}, {"x"}})
}

// The oracle: Go's regexp on each value, which the step must agree with.
func TestRegexReplaceAgreesWithRegexp(t *testing.T) {
	values := []string{"", "a", "aaa", "abcabc", "héllo wörld", "a\nb", "x-1-2-3"}
	for _, c := range []struct{ pattern, repl string }{
		{`a`, "b"}, {`a*`, "-"}, {`\b`, "|"}, {`(\w)(\w)`, "$2$1"}, {`^`, ">"}, {`$`, "<"}, {`(?m)^`, "#"}, {`\d`, "<$0>"},
	} {
		var rows table
		for _, v := range values {
			rows = append(rows, []string{v})
		}
		got, _ := run(t, []string{"v"}, rows, replace("v", c.pattern, c.repl))
		re := regexp.MustCompile(c.pattern)
		for i, v := range values {
			if want := re.ReplaceAllString(v, c.repl); got[i][0] != want {
				t.Errorf("%q → %q on %q: got %q, want %q", c.pattern, c.repl, v, got[i][0], want)
			}
		}
	}
}

// A replacement that would blow a value up past the limit fails the step
// before it is made, and one within it goes through.
func TestRegexReplaceBound(t *testing.T) {
	big := strings.Repeat("ab", 200_000) // 400 KB
	repl := strings.Repeat("x", 100)
	_, _, err := tryRun([]string{"v"}, table{{"ok"}, {big}}, Options{}, replace("v", `x*`, repl))
	var re *RowError
	if !errors.As(err, &re) || re.Row != 2 || re.StepID != "re" {
		t.Fatalf("got %v, want the step failing on row 2", err)
	}
	// Few matches in a big value: counted, and allowed.
	got, _ := run(t, []string{"v"}, table{{big + "Z"}}, replace("v", `Z`, repl))
	if got[0][0] != big+repl {
		t.Fatal("a big value with one match was not replaced")
	}
	// Past MaxValueBytes, even when the bound allowed it.
	_, _, err = tryRun([]string{"v"}, table{{big}}, Options{MaxValueBytes: 500_000}, replace("v", `a`, "aa"))
	var tooLong errValueTooLong
	if !errors.As(err, &tooLong) {
		t.Fatalf("got %v, want errValueTooLong", err)
	}
}
