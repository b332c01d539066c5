package corrections

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/profile"
)

// FuzzCustom: any expression either fails to validate with a StepError,
// or runs on rows without panicking, and fails, if it does, with a
// RowError in its budget.
func FuzzCustom(f *testing.F) {
	for _, s := range []string{
		`row.a + " " + row.b`, `upper(row.a)`, `len(1..1000000000)`, `map(1..100000000, # * 2)`,
		`row.a matches "^[0-9]+$" ? int(row.a) : nil`, `reduce(1..100, #acc + #acc, row.b)`,
		`{"a": row.a}.a`, `split(row.b, "")[5]`, `let x = 1..50; sortBy(x, -#)[0]`, `row.a ?? "x"`,
		`string(float(row.a) / 0)`, `max(1, 2, int(row.b))`, `[1, 2][9]`, `row["a"][1:]`,
	} {
		f.Add(s, "12", "héllo")
	}
	cols := []string{"a", "b"}
	f.Fuzz(func(t *testing.T, src, a, b string) {
		s := expression("a", src)
		if err := s.Validate(cols); err != nil {
			var se *StepError
			if !errors.As(err, &se) {
				t.Fatalf("%q: %v is no StepError", src, err)
			}
			return
		}
		start := time.Now()
		opt := Options{ExpressionTimeout: 20 * time.Millisecond}
		_, _, err := tryRun(cols, table{{a, b}, {b, N}}, opt, s)
		var re *RowError
		if err != nil && !errors.As(err, &re) {
			t.Fatalf("%q: %v is no RowError", src, err)
		}
		if took := time.Since(start); took > 30*time.Second {
			t.Fatalf("%q ran for %v", src, took)
		}
	})
}

// FuzzRegexReplace: a pattern validates as Go's regexp compiles it, and
// the step replaces as regexp does.
func FuzzRegexReplace(f *testing.F) {
	for _, s := range [][3]string{
		{`[^0-9]`, "", "(555) 123"}, {`(\w+)@(\w+)`, "$2 at $1", "ann@example"}, {`a*`, "-", "baaac"},
		{`(`, "", "x"}, {`\b`, "|", "hé llo"}, {`x{1001}`, "", "x"}, {`(?i)ABC`, "${0}${0}", "abcABC"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, pattern, repl, v string) {
		s := replace("v", pattern, repl)
		re, compileErr := regexp.Compile(pattern)
		err := s.Validate([]string{"v"})
		valid := compileErr == nil && pattern != "" && len(pattern) <= MaxPatternBytes && len(repl) <= MaxReplacementBytes
		if (err == nil) != valid {
			t.Fatalf("%q → %q: validate says %v, regexp %v", pattern, repl, err, compileErr)
		}
		if err != nil {
			return
		}
		got, _, err := tryRun([]string{"v"}, table{{v}}, Options{MaxValueBytes: 1 << 16}, s)
		if err != nil {
			var re *RowError
			if !errors.As(err, &re) {
				t.Fatalf("%v is no RowError", err)
			}
			return
		}
		if want := re.ReplaceAllString(v, repl); got[0][0] != want {
			t.Fatalf("%q → %q on %q: got %q, want %q", pattern, repl, v, got[0][0], want)
		}
	})
}

// FuzzDecimalPoint: the step agrees with the profiler's reading of a
// column of decimal commas, and changes nothing it does not read.
func FuzzDecimalPoint(f *testing.F) {
	for _, s := range []string{"1.234,5", "3,5", "1 234.5", "12.5", "1,234.5", "007,5", "0.234", "-1.234.567,89", "abc", "1e5", "0 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		out, fixed, _ := decimalPointFix(v)
		want, ok := profile.NumberAs(strings.TrimSpace(v), true) // the step trims

		switch {
		case !ok && out != v:
			t.Fatalf("%q is no number to the profiler, yet became %q", v, out)
		case ok && fixed:
			if got, err := strconv.ParseFloat(strings.TrimSpace(out), 64); err != nil || got != want {
				t.Fatalf("%q became %q; the profiler reads %v", v, out, want)
			}
		}
	})
}
