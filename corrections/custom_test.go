package corrections

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func expression(col, src string) Step {
	return step("calc", TypeCustom, col, "", map[string]any{"expression": src})
}

var people = []string{"first", "last", "country", "age"}

var peopleRows = table{
	{"ann", "lee", "fr", "31"},
	{"bob", "ray", "Us", "x"},
	{"cy", N, "de", N},
}

func TestCustom(t *testing.T) {
	for _, c := range []struct {
		col, src string
		want     []string
	}{
		{"first", `row.first + " " + row.last`, []string{"ann lee", "bob ray", "cy "}},
		{"country", `upper(row.country)`, []string{"FR", "US", "DE"}},
		{"age", `row.age matches "^[0-9]+$" ? int(row.age) + 1 : nil`, []string{"32", N, N}},
		{"age", `len(row["first"]) * 1.5`, []string{"4.5", "4.5", "3"}},
		{"last", `row.last == "" ? "unknown" : row.last`, []string{"lee", "ray", "unknown"}},
		{"first", `join(map(split(row.first, ""), upper(#)), ".")`, []string{"A.N.N", "B.O.B", "C.Y"}},
		{"first", `replace(row.first, "n", "N") + string(row.age == "31")`, []string{"aNNtrue", "bobfalse", "cyfalse"}},
	} {
		got, res := run(t, people, peopleRows, expression(c.col, c.src))
		col := map[string]int{"first": 0, "last": 1, "country": 2, "age": 3}[c.col]
		if g := column(got, col); strings.Join(g, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: got %q, want %q", c.src, g, c.want)
		}
		changed := int64(0)
		for i, w := range c.want {
			if peopleRows[i][col] != w {
				changed++
			}
		}
		if res.Changes[0].CellsChanged != changed {
			t.Errorf("%s: %d changed, want %d", c.src, res.Changes[0].CellsChanged, changed)
		}
	}
}

// What does not compile, or reaches outside the row, is refused before
// any row is read.
func TestCustomRefused(t *testing.T) {
	for _, src := range []string{
		`row.first +`,
		`row.nickname`,
		`env("HOME")`,
		`os.Getenv("HOME")`,
		`readFile("/etc/passwd")`,
		`now()`,
		`date("2024-01-01")`,
		`timezone("Europe/Paris")`,
		`duration("1h")`,
		`toJSON(row)`,
		`fromJSON(row.first)`,
		`flatten([[row.first]])`,
		`concat([1], [2])`,
		`row.first matches row.last`,
		`row.first + 1`,
		`upper(row.first) * 2`,
		`$env.HOME`,
		`HOME`,
		strings.Repeat("1 + ", MaxExpressionNodes) + "1",
		strings.Repeat(" ", MaxExpressionBytes) + "row.first",
		` `,
	} {
		err := expression("first", src).Validate(people)
		var se *StepError
		if !errors.As(err, &se) || se.Field != "params.expression" {
			t.Errorf("%.40q: got %v, want a StepError on the expression", src, err)
		}
	}
}

// Expressions that would run or allocate without bound are stopped on the
// row, quickly, naming the step; Apply then closes nothing.
func TestCustomRunaway(t *testing.T) {
	for _, c := range []struct {
		src  string
		want error // nil: any error
	}{
		{`len(1..1000000000)`, nil},
		{`map(1..100000000, # * 2)`, nil},
		{`string(len(map(1..90000, map(1..90000, #))))`, nil},
		{`let a = 1..1000; count(a, count(a, count(a, true) > 0) > 0)`, ErrExpressionTimeout},
		{`let a = 1..1000; sum(a, sum(a, sum(a, sum(a, #))))`, ErrExpressionTimeout},
		{`reduce(1..1000, #acc + #acc, row.first)`, ErrExpressionMemory},
		{`repeat(row.first, 1000000000)`, ErrExpressionMemory},
		{`let s = repeat("x", 1000000); replace(replace(s, "", s), "", s)`, ErrExpressionMemory},
		{`join(map(1..50000, repeat("x", 1000)), "")`, ErrExpressionMemory},
		{`let s = row.first + row.first; let t = s + s; let u = t + t; reduce(1..60, #acc + #acc + u, "")`, ErrExpressionMemory},
		{`len(sortBy(map(1..90000, repeat("y", #)), -len(#)))`, nil},
	} {
		start := time.Now()
		w := &tableWriter{}
		_, err := Apply(context.Background(), newMem(people, peopleRows), w, Pipeline{expression("first", c.src)}, Options{})
		took := time.Since(start)
		var re *RowError
		if !errors.As(err, &re) || re.StepID != "calc" || re.Row != 1 {
			t.Errorf("%s: got %v, want the step failing on row 1", c.src, err)
			continue
		}
		if c.want != nil && !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want %v", c.src, err, c.want)
		}
		if took > 30*time.Second { // unstopped, these run for hours; the bound only tells stopped from not
			t.Errorf("%s: stopped after %v", c.src, took)
		}
		if w.closed {
			t.Errorf("%s: the writer was closed after a failure", c.src)
		}
	}
}

func TestCustomFailsOnARow(t *testing.T) {
	_, _, err := tryRun(people, peopleRows, Options{}, expression("age", `int(row.age) + 1`))
	var re *RowError
	var ee *ExpressionError
	if !errors.As(err, &re) || re.Row != 2 || !errors.As(err, &ee) {
		t.Fatalf("got %v, want the expression failing on row 2", err)
	}
	if msg := err.Error(); !strings.Contains(msg, `step "calc" failed on row 2`) || strings.Contains(msg, "\n") {
		t.Fatalf("message %q", msg)
	}
	_, _, err = tryRun(people, peopleRows, Options{}, expression("age", `split(row.first, "")`))
	if !errors.As(err, &re) || re.Row != 1 || !strings.Contains(err.Error(), "not a value") {
		t.Fatalf("a list: got %v", err)
	}
}

// Cancelling the context stops an expression in its loop.
func TestCustomCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	opt := Options{ExpressionTimeout: time.Minute, Reopen: reopener(people, peopleRows)}
	_, err := Apply(ctx, newMem(people, peopleRows), &tableWriter{}, Pipeline{expression("first", `let a = 1..1000; count(a, count(a, count(a, true) > 0) > 0)`)}, opt)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 30*time.Second {
		t.Fatalf("got %v after %v", err, time.Since(start))
	}
}
