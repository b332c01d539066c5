package records

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImportsStayLight keeps the package importable by a connector at no
// cost: it may import the standard library only, so that neither the file
// decoders (readers) nor what they pull in (arrow-go, parquet) can reach a
// connector through it. A standard library path has no dot in its first
// element; every module path outside it does.
func TestImportsStayLight(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			path, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				t.Fatal(err)
			}
			if first, _, _ := strings.Cut(path, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports %s: package records may import the standard library only", name, path)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no source file found to check")
	}
}
