package readers

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// timeLimit bounds reading one fixture file; going past it is a hang.
const timeLimit = 60 * time.Second

// nullMark stands for a null value in the rows returned by readAll.
const nullMark = "\x00NULL"

// fixturesDir returns dir/sub of the shared test fixtures. It skips the
// test when they are absent, or fails it when DQS_REQUIRE_FIXTURES=1.
func fixturesDir(t testing.TB, sub string) string {
	t.Helper()
	root := os.Getenv("DQS_FIXTURES")
	if root == "" {
		root = filepath.Join("..", "shared", "fixtures")
	}
	if !filepath.IsAbs(root) {
		// Relative paths are relative to the repository root, the parent
		// of this package's directory.
		root = filepath.Join("..", root)
	}
	p := filepath.Join(root, sub)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("DQS_REQUIRE_FIXTURES") == "1" {
			t.Fatalf("test fixtures %s are missing and DQS_REQUIRE_FIXTURES=1: %v", p, err)
		}
		t.Skipf("test fixtures %s not found (set DQS_FIXTURES to the shared fixtures folder): %v", p, err)
	}
	return p
}

type readResult struct {
	format Format
	cols   []string
	rows   [][]string // null values are nullMark
	err    error
	openEr bool // err came from Open
	reader Reader
}

// openResult opens f and starts its readResult: the format and columns, or
// the error of Open (then the reader is nil).
func openResult(f File, name string, opt Options) (Reader, readResult) {
	r, err := Open(f, name, opt)
	if err != nil {
		return nil, readResult{err: err, openEr: true}
	}
	return r, readResult{reader: r, format: r.Format(), cols: append([]string(nil), r.Columns()...)}
}

// readAll opens f and reads every row, copying values.
func readAll(f File, name string, opt Options) readResult {
	r, res := openResult(f, name, opt)
	if r == nil {
		return res
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.err = err
			return res
		}
		if len(rec.Values) != len(res.cols) || len(rec.Null) != len(res.cols) {
			res.err = errors.New("record width differs from the column count")
			return res
		}
		row := make([]string, len(rec.Values))
		for i, v := range rec.Values {
			if rec.Null[i] {
				if v != "" {
					res.err = errors.New("null value with non-empty text")
					return res
				}
				v = nullMark
			}
			row[i] = v
		}
		res.rows = append(res.rows, row)
	}
}

func readBytes(data []byte, name string, opt Options) readResult {
	return readAll(bytes.NewReader(data), name, opt)
}

// readFileTimeout reads a file in a goroutine and fails the test if it
// takes longer than limit (a hang) or panics.
func readFileTimeout(t *testing.T, path string, limit time.Duration) readResult {
	t.Helper()
	done := make(chan readResult, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- readResult{err: errors.New("PANIC escaped the reader")}
			}
		}()
		f, err := os.Open(path)
		if err != nil {
			done <- readResult{err: err}
			return
		}
		defer f.Close()
		done <- readAll(f, filepath.Base(path), Options{})
	}()
	select {
	case res := <-done:
		if res.err != nil && res.err.Error() == "PANIC escaped the reader" {
			t.Fatalf("%s: panic escaped the reader", path)
		}
		return res
	case <-time.After(limit):
		t.Fatalf("%s: reading did not finish within %v", path, limit)
	}
	return readResult{}
}

func TestOpenDetectsFormat(t *testing.T) {
	cases := []struct {
		name string
		data string
		want Format
	}{
		{"a.csv", "a,b\n1,2\n", FormatCSV},
		{"a.TSV", "a\tb\n1\t2\n", FormatCSV},
		{"a.json", `[{"a":1}]`, FormatJSON},
		{"a.json", `{"a":1}` + "\n" + `{"a":2}`, FormatJSONL},
		{"a.jsonl", `{"a":1}`, FormatJSONL},
		{"a.ndjson", `{"a":1}`, FormatJSONL},
		{"upload", "  [{\"a\":1}]", FormatJSON},
		{"upload", "\xEF\xBB\xBF{\"a\":1}\n", FormatJSONL},
		{"upload.dat", "a;b\n1;2\n", FormatCSV},
	}
	for _, c := range cases {
		res := readBytes([]byte(c.data), c.name, Options{})
		if res.err != nil {
			t.Errorf("%s %q: %v", c.name, c.data, res.err)
			continue
		}
		if res.format != c.want {
			t.Errorf("%s %q: format %s, want %s", c.name, c.data, res.format, c.want)
		}
	}
}

func TestOpenDetectsParquetByContent(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	data, err := os.ReadFile(filepath.Join(dir, "alltypes_plain.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"upload.bin", "upload", "misnamed.csv"} {
		res := readBytes(data, name, Options{})
		if res.err != nil || res.format != FormatParquet || len(res.rows) != 8 {
			t.Fatalf("%s: format %s, %d rows, err %v; want parquet with 8 rows", name, res.format, len(res.rows), res.err)
		}
	}
}

func TestOpenRejectsCompressedUploads(t *testing.T) {
	res := readBytes([]byte("\x1f\x8b\x08"), "data.csv.gz", Options{})
	if !errors.Is(res.err, ErrUnsupported) {
		t.Fatalf("err = %v, want ErrUnsupported", res.err)
	}
}

func TestErrorsMatchSentinels(t *testing.T) {
	err := malformedf("line %d: bad %w", 3, io.ErrUnexpectedEOF)
	if !errors.Is(err, ErrMalformed) || errors.Is(err, ErrUnsupported) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("sentinel matching is wrong for %v", err)
	}
	if got, want := err.Error(), "line 3: bad unexpected EOF"; got != want {
		t.Fatalf("message %q, want %q", got, want)
	}
}

// A compressed file is refused, by its name or by its first bytes, with a
// message naming the compression; other files starting alike are not.
func TestCompressedFilesAreRefused(t *testing.T) {
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write([]byte("a,b\n1,2\n"))
	w.Close()
	for _, c := range []struct {
		data []byte
		name string
		kind string
	}{
		{gz.Bytes(), "people.csv", "gzip"},
		{gz.Bytes(), "people.csv.gz", "gz"},
		{[]byte("a,b\n1,2\n"), "people.zip", "zip"},
		{[]byte("PK\x03\x04rest"), "book.xlsx", "zip"},
		{[]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0}, "data", "zstd"},
		{[]byte("BZh91AY&SYrest"), "data.txt", "bzip2"},
	} {
		_, err := Open(bytes.NewReader(c.data), c.name, Options{})
		if !errors.Is(err, ErrCompressed) || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "("+c.kind+")") {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
	if _, err := Open(bytes.NewReader([]byte("BZh,x\n1,2\n")), "codes.csv", Options{}); err != nil {
		t.Fatalf("a CSV starting with BZh: %v", err)
	}
}
