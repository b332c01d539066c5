package corrections

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/dqs/dqs/readers"
)

// A pipeline with a step of every type, the learning ones included.
var previewSteps = Pipeline{
	fix("name", StrategyTrim, nil),
	fix("name", StrategyLower, nil),
	step("mean", TypeNullFill, "amount", StrategyMean, nil),
	step("ff", TypeNullFill, "city", StrategyForwardFill, nil),
	step("re", TypeRegexReplace, "phone", "", map[string]any{"pattern": `[^0-9]`, "replacement": ""}),
	step("dedupe", TypeDedupe, "", StrategyKeys, map[string]any{"columns": []any{"name"}, "keep": "last"}),
	step("calc", TypeCustom, "city", "", map[string]any{"expression": `upper(row.city)`}),
}

func previewTable(n int) ([]string, table) {
	rng := rand.New(rand.NewPCG(9, 10))
	cols := []string{"name", "amount", "city", "phone"}
	pick := func(vs ...string) string { return vs[rng.IntN(len(vs))] }
	var rows table
	for range n {
		rows = append(rows, []string{
			pick(" Ann", "ann", "BOB ", "cy", "Dee", N) + fmt.Sprint(rng.IntN(20)),
			pick(N, "", fmt.Sprint(rng.IntN(100)), fmt.Sprint(rng.IntN(100)), "NA"),
			pick("paris", N, "rome", ""),
			pick("(555) 01-23", "+1 555", N, "n/a"),
		})
	}
	return cols, rows
}

// Preview's counts and rows are Apply's on the same rows.
func TestPreviewMatchesApply(t *testing.T) {
	cols, rows := previewTable(400)
	for _, limit := range []int{1, 37, 100, 1000} {
		p, err := Preview(context.Background(), newMem(cols, rows), previewSteps, limit, Options{})
		if err != nil {
			t.Fatal(err)
		}
		sample := rows[:min(limit, len(rows))]
		got, res := run(t, cols, sample, previewSteps...)
		if !reflect.DeepEqual(p.Result, res) {
			t.Fatalf("limit %d: preview counts %+v\napply counts %+v", limit, p.Result, res)
		}
		var after table
		for i, r := range p.Rows {
			if r.Row != int64(i+1) || !reflect.DeepEqual(recordRow(&r.Before), sample[i]) {
				t.Fatalf("limit %d: row %d before is %q, want %q", limit, r.Row, recordRow(&r.Before), sample[i])
			}
			if r.After != nil {
				after = append(after, recordRow(r.After))
			}
		}
		equalTables(t, after, got)
		if len(p.Rows) != len(sample) || !reflect.DeepEqual(p.Columns, cols) {
			t.Fatalf("limit %d: %d rows", limit, len(p.Rows))
		}
	}
}

// Preview reads only its sample, and writes nothing: the directory of the
// file it reads is left as it was.
func TestPreviewWritesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.csv")
	cols, rows := previewTable(300)
	writeFile(t, path, readers.FormatCSV, cols, rows)
	before, _ := os.ReadDir(dir)
	stat, _ := os.Stat(path)
	r := openFile(t, path)
	p, err := Preview(context.Background(), r, previewSteps, 10, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 10 || p.Result.Rows != 10 {
		t.Fatalf("%d rows previewed", len(p.Rows))
	}
	// The reader is where the sample ended: row 11 is next.
	rec, err := r.Next()
	if err != nil || recordRow(rec)[0] != replaceNulls(rows, "")[10][0] {
		t.Fatalf("next row %v, %v", rec, err)
	}
	after, _ := os.ReadDir(dir)
	stat2, _ := os.Stat(path)
	if len(after) != len(before) || stat2.ModTime() != stat.ModTime() || stat2.Size() != stat.Size() {
		t.Fatal("Preview changed the directory")
	}
}

func TestPreviewLimits(t *testing.T) {
	cols, rows := previewTable(MaxPreviewRows + 5)
	p, err := Preview(context.Background(), newMem(cols, rows), nil, 0, Options{})
	if err != nil || len(p.Rows) != DefaultPreviewRows {
		t.Fatalf("default: %d rows, %v", len(p.Rows), err)
	}
	p, err = Preview(context.Background(), newMem(cols, rows), nil, 1<<30, Options{})
	if err != nil || len(p.Rows) != MaxPreviewRows {
		t.Fatalf("max: %d rows, %v", len(p.Rows), err)
	}
	if _, err := Preview(context.Background(), newMem(cols, rows), Pipeline{fix("town", StrategyTrim, nil)}, 5, Options{}); err == nil {
		t.Fatal("previewed an invalid step")
	}
}
