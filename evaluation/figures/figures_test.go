package figures

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dqs/dqs/profile"
)

// fixturesDir is the shared fixtures folder (DQS_FIXTURES, default
// ../shared/fixtures from the repository root); without it the test fails
// when DQS_REQUIRE_FIXTURES=1 and is skipped otherwise.
func fixturesDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv("DQS_FIXTURES")
	if root == "" {
		root = filepath.Join("..", "shared", "fixtures")
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join("..", "..", root) // from evaluation/figures
	}
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("DQS_REQUIRE_FIXTURES") == "1" {
			t.Fatalf("test fixtures %s are missing and DQS_REQUIRE_FIXTURES=1: %v", root, err)
		}
		t.Skipf("test fixtures %s not found (set DQS_FIXTURES): %v", root, err)
	}
	return root
}

func TestEngineAgreesWithTheOracle(t *testing.T) {
	rep, err := Evaluate(context.Background(), fixturesDir(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Mismatches {
		t.Error(m)
	}
	compared, agreed := rep.Figures()
	t.Logf("%d files compared (of %d), %d figures, %d agree", rep.Compared, rep.Files, compared, agreed)
	if rep.Files < 200 || rep.Compared < 200 {
		t.Fatalf("the corpus holds %d files, %d compared: fewer than 200", rep.Files, rep.Compared)
	}
	if agreed != compared && len(rep.Mismatches) == 0 {
		t.Fatalf("%d of %d figures disagree, none described", compared-agreed, compared)
	}
}

// A figure that differs from the oracle's is counted and described.
func TestCompareColumnCountsDisagreement(t *testing.T) {
	cells := []oracleCell{{value: "1"}, {value: "2"}, {value: "", null: true}, {value: "2"}}
	want := oracleProfile("n", cells, 10, 10_000)
	got := want.Column
	got.Tails = &profile.Tails{Low: []profile.TailValue{{X: 1, Count: 1}, {X: 2, Count: 2}}, High: []profile.TailValue{{X: 2, Count: 2}, {X: 1, Count: 1}}}
	got.Nulls++
	var mismatches []string
	tl := newTally(&mismatches)
	compareColumn(tl, "f.csv", got, want)
	if tl.compared["nulls"] != 1 || tl.agreed["nulls"] != 0 || tl.agreed["count"] != 1 {
		t.Fatalf("tally %v / %v", tl.compared, tl.agreed)
	}
	// The issue the extra null raises disagrees too.
	if len(mismatches) != 2 || mismatches[0] != `f.csv, column "n": nulls = 2, want 1` ||
		mismatches[1] != `f.csv, column "n": missing_values count 2, want 1` {
		t.Fatalf("mismatches %q", mismatches)
	}
}
