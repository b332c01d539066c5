package dialects

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/dqs/dqs/readers"
)

// TestCorpusIsFresh: the committed corpus is exactly what the generator
// writes, so the expectations in the manifest come from the generator.
func TestCorpusIsFresh(t *testing.T) {
	dir := t.TempDir()
	if err := Generate(dir); err != nil {
		t.Fatal(err)
	}
	fresh := os.DirFS(dir)
	committed, err := fs.Sub(corpus, "testdata")
	if err != nil {
		t.Fatal(err)
	}
	want, got := fileNames(t, fresh), fileNames(t, committed)
	if !slices.Equal(want, got) {
		t.Fatalf("testdata/ holds %d files, a fresh generation %d; regenerate it with `go run ./cmd/dqs-eval -regenerate`", len(got), len(want))
	}
	for _, name := range want {
		a, _ := fs.ReadFile(fresh, name)
		b, _ := fs.ReadFile(committed, name)
		if !bytes.Equal(a, b) {
			t.Errorf("testdata/%s differs from a fresh generation; regenerate it with `go run ./cmd/dqs-eval -regenerate`", name)
		}
	}
}

func fileNames(t *testing.T, fsys fs.FS) []string {
	t.Helper()
	entries, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestCorpusShape guards the corpus against drifting away from what the
// evaluation is meant to cover.
func TestCorpusShape(t *testing.T) {
	files, m, err := build(Seed, randomCases)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Files) < 150 {
		t.Errorf("%d files, want at least 150", len(m.Files))
	}
	total, large := 0, 0
	seen := map[string]bool{}
	for _, e := range m.Files {
		n := len(files[e.File])
		total += n
		if n > 64<<10 {
			large++
		}
		seen["delim "+string(e.Delimiter)] = true
		seen["quote "+string(e.Quote)] = true
		seen["enc "+e.Encoding] = true
	}
	if total > 8<<20 {
		t.Errorf("corpus is %d bytes, keep it under 8 MiB", total)
	}
	if large < 5 {
		t.Errorf("%d files exceed the 64 KiB sniff window, want at least 5", large)
	}
	for _, k := range []string{"delim ,", "delim ;", "delim \t", "delim |", "quote \"", "quote '", "quote \x00",
		"enc " + readers.EncodingUTF8, "enc " + readers.EncodingUTF16LE, "enc " + readers.EncodingUTF16BE, "enc " + readers.EncodingWindows1252} {
		if !seen[k] {
			t.Errorf("no corpus file with %q", k)
		}
	}
}

// TestTarget: dialect detection meets its target on the corpus.
func TestTarget(t *testing.T) {
	rep, err := Evaluate()
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Failures(); len(f) > 0 {
		var b strings.Builder
		rep.Print(&b)
		t.Log("\n" + b.String())
		t.Fatal(strings.Join(f, "\n"))
	}
}

// TestTargetOnOtherSeeds: the sniffing meets the target on corpora drawn
// from other seeds too, so it is not tuned to the committed files.
func TestTargetOnOtherSeeds(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		files, m, err := build(seed, randomCases)
		if err != nil {
			t.Fatal(err)
		}
		fsys := fstest.MapFS{}
		for name, data := range files {
			fsys[name] = &fstest.MapFile{Data: data}
		}
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		fsys[ManifestName] = &fstest.MapFile{Data: raw}
		rep, err := evaluateFS(fsys)
		if err != nil {
			t.Fatal(err)
		}
		if f := rep.Failures(); len(f) > 0 {
			var b strings.Builder
			rep.Print(&b)
			t.Errorf("seed %d:\n%s\n%s", seed, b.String(), strings.Join(f, "\n"))
		}
	}
}

// TestScoring checks the scoring on two hand-made files: one whose
// manifest entry is right, one whose entry expects another delimiter and
// row count.
func TestScoring(t *testing.T) {
	manifest := `{"files": [
		{"file": "a.csv", "delimiter": 59, "quote": 34, "has_header": true, "skip_lines": 1, "encoding": "UTF-8", "row_count": 2, "columns": 2},
		{"file": "b.csv", "delimiter": 124, "quote": 34, "has_header": true, "skip_lines": 0, "encoding": "UTF-8", "row_count": 5, "columns": 2}
	]}`
	fsys := fstest.MapFS{
		ManifestName: {Data: []byte(manifest)},
		"a.csv":      {Data: []byte("# comment\nname;amount\nx;1,5\ny;2,5\n")},
		"b.csv":      {Data: []byte("a,b\n1,2\n")},
	}
	rep, err := evaluateFS(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Results[0].Right() || rep.Results[1].Right() {
		t.Fatalf("right = %v, %v; want true, false", rep.Results[0].Right(), rep.Results[1].Right())
	}
	if rep.Share() != 0.5 || len(rep.Failures()) != 1 {
		t.Fatalf("share %v, failures %q", rep.Share(), rep.Failures())
	}
	var b strings.Builder
	rep.Print(&b)
	out := b.String()
	for _, want := range []string{
		"fully right     1/2     50.0%",
		"delimiter       1/2     50.0%",
		"encoding        2/2    100.0%",
		"b.csv",
		"delimiter want '|' got ','; row count want 5 got 1",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "a.csv") {
		t.Errorf("report lists a right file:\n%s", out)
	}
}

// TestReadErrorCountsAsWrongRowCount: a file the reader rejects midway
// has no row count.
func TestReadErrorCountsAsWrongRowCount(t *testing.T) {
	got, err := observe([]byte("a,b\n1,2\n3,4,5\n"), "x.csv")
	if err == nil || got.RowCount != -1 {
		t.Fatalf("row count %d, err %v; want -1 and an error", got.RowCount, err)
	}
}

func TestGenerateKeepsForeignFiles(t *testing.T) {
	dir := t.TempDir()
	keep := filepath.Join(dir, "README.md")
	stale := filepath.Join(dir, "999-old-case.csv")
	for _, p := range []string{keep, stale} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Generate(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("Generate removed a file it does not own: %v", err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("Generate left a stale corpus file (%v)", err)
	}
}
