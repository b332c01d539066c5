package connectors

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestKeyUnderAndFolderPrefix(t *testing.T) {
	for _, c := range []struct {
		prefix, key string
		ok          bool
	}{
		{"", "a.csv", true},
		{"", "/a.csv", true},
		{"d/", "d/a.csv", true},
		{"d/", "d/x/y/a.csv", true},
		{"d/", "da.csv", false},
		{"d/", "d/", false},
		{"d/", "d/x/", false},
		{"d/", "d/../a.csv", false},
		{"d/", "d/x/./a.csv", false},
		{"d/", "e/a.csv", false},
		{"d/", "d/a\x00.csv", false},
		{"d/", "d/..a.csv", true},
	} {
		if got := KeyUnder(c.prefix, c.key); got != c.ok {
			t.Errorf("KeyUnder(%q, %q) = %v", c.prefix, c.key, got)
		}
	}
	if FolderPrefix("/data") != "data/" || FolderPrefix("data/") != "data/" || FolderPrefix("") != "" || FolderPrefix("/") != "" {
		t.Error("FolderPrefix")
	}
}

func TestSupportedExtension(t *testing.T) {
	for key, want := range map[string]bool{
		"a.csv": true, "d/B.TSV": true, "x.jsonl": true, "x.NDJSON": true, "p.parquet": true, "p.pq": true,
		"notes.md": false, "d.csv/readme": false, ".csv": false, "noext": false, "d/x.gz": false,
	} {
		if got := SupportedExtension(key); got != want {
			t.Errorf("SupportedExtension(%q) = %v, want %v", key, got, want)
		}
	}
}

func TestClipKeepsRunesWholeAndOneLine(t *testing.T) {
	if got := Clip("short", 10); got != "short" {
		t.Fatalf("Clip = %q", got)
	}
	if got := Clip("line one\nline\ttwo", 100); got != "line one line two" {
		t.Fatalf("Clip = %q, want one line", got)
	}
	long := strings.Repeat("é", 200) // 2 bytes each
	got := Clip(long, 201)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 201+len("…") {
		t.Fatalf("Clip = %q (%d bytes), want valid UTF-8 cut at 201 bytes", got, len(got))
	}
	if strings.TrimSuffix(got, "…") != strings.Repeat("é", 100) {
		t.Fatalf("Clip cut at the wrong place: %q", got)
	}
}
