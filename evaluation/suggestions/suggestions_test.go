package suggestions

import (
	"bytes"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestTargets: the steps at the trust threshold meet the precision and
// recall targets on the committed corpus. This test is what keeps a change
// to the engine from making them worse unnoticed.
func TestTargets(t *testing.T) {
	rep, err := Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Print(&out)
	t.Log("\n" + out.String())
	for _, f := range rep.Failures() {
		t.Error(f)
	}
	if len(rep.Files) < 12 {
		t.Errorf("%d files, want at least 12", len(rep.Files))
	}
	for _, want := range []string{"format_fix/trim", "format_fix/standardize", "format_fix/date_iso", "format_fix/email_normalize",
		"format_fix/phone_e164", "format_fix/decimal_point", "dedupe/exact", "custom", "precision", "recall"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	// Every kind of dirt is fixed in part at least by the trusted steps,
	// but the lost numbers: a fill is a guess, never trusted.
	for kind := range expected {
		if rep.Trusted.Dirty[kind] == 0 {
			t.Errorf("no dirt of kind %s in the corpus", kind)
		}
		if kind != KindNull && kind != KindTypo && rep.Trusted.Fixed[kind] == 0 {
			t.Errorf("no %s dirt fixed by the trusted steps", kind)
		}
	}
	if rep.Trusted.Steps["null_fill/median"] != 0 {
		t.Error("a null fill was trusted")
	}
}

// TestTrapsAreNotTrusted: the clean columns a careless fix would break
// draw suggestions (the engine sees something), but none at the trust
// threshold; the columns to leave alone draw none but a trim.
func TestTrapsAreNotTrusted(t *testing.T) {
	rep, err := Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	traps := []struct{ file, column, strategy, why string }{
		{"02-orders.dirty.csv", "sku", "standardize", "SKU-1001-BLU is no typo of SKU-1001-BLK"},
		{"07-products.dirty.csv", "category", "standardize", "Skirts is no typo of Shirts"},
		{"07-products.dirty.csv", "weight_kg", "decimal_point", "1.250 kg is not 1250 kg"},
		{"10-appointments.dirty.csv", "date", "date_iso", "03/04/2024 reads both ways in a column of two locales"},
	}
	for _, trap := range traps {
		seen := false
		for _, f := range rep.Files {
			for _, s := range f.Suggestions {
				if f.Name != trap.file || s.Column != trap.column || s.Strategy != trap.strategy {
					continue
				}
				if trap.strategy == "standardize" && s.Engine != "correction" {
					continue // the case groups of the column are right
				}
				seen = true
				if s.Confidence >= Threshold {
					t.Errorf("%s %s %s at %.2f (%s): %s", f.Name, s.Column, s.Strategy, s.Confidence, trap.why, s.Explanation)
				}
			}
		}
		if !seen {
			t.Errorf("%s %s: no %s suggestion; the trap tests nothing", trap.file, trap.column, trap.strategy)
		}
	}
	for _, f := range rep.Files {
		for _, s := range f.Suggestions {
			switch s.Column {
			case "first_name", "comment", "referrer", "job_title", "recorded_at", "submitted", "customer_id", "order_id":
				if s.Strategy != "trim" {
					t.Errorf("%s: %s %s at %.2f on a column to leave alone", f.Name, s.Column, s.Strategy, s.Confidence)
				}
			}
		}
	}
}

// TestCorpusIsFresh: the committed corpus is exactly what the generator
// writes, so the clean files and the manifest come from the generator.
func TestCorpusIsFresh(t *testing.T) {
	dir := t.TempDir()
	if err := WriteCorpus(dir); err != nil {
		t.Fatal(err)
	}
	fresh := os.DirFS(dir)
	committed, err := fs.Sub(corpus, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	want, got := names(t, fresh), names(t, committed)
	if !slices.Equal(want, got) {
		t.Fatalf("testdata/ holds %v, a fresh generation %v; regenerate it with `go run ./cmd/dqs-eval -regenerate`", got, want)
	}
	total := 0
	for _, name := range want {
		a, _ := fs.ReadFile(fresh, name)
		b, _ := fs.ReadFile(committed, name)
		total += len(b)
		if !bytes.Equal(a, b) {
			t.Errorf("testdata/%s differs from a fresh generation; regenerate it with `go run ./cmd/dqs-eval -regenerate`", name)
		}
	}
	if total > 2<<20 {
		t.Errorf("the corpus takes %d bytes, keep it under 2 MiB", total)
	}
}

func names(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}
