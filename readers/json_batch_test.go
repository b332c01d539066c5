package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/columnar"
)

// chunkedFile returns at most n bytes per Read, so that rows straddle the
// reader's buffer at every place.
type chunkedFile struct {
	*bytes.Reader
	n int
}

func (c *chunkedFile) Read(p []byte) (int, error) {
	return c.Reader.Read(p[:min(len(p), c.n)])
}

// readBatches opens f and reads every row through FillBatch, in the shape
// readAll gives.
func readBatches(f File, name string, opt Options) readResult {
	r, res := openResult(f, name, opt)
	if r == nil {
		return res
	}
	defer r.Close()
	b := columnar.NewBatch(len(res.cols))
	for {
		b.Reset()
		err := FillBatch(r, b)
		for i := 0; i < b.Rows; i++ {
			row := make([]string, len(res.cols))
			for c := range row {
				v, null := b.Cols[c].Cell(i)
				if null {
					if v != "" {
						res.err = errors.New("null cell with text")
						return res
					}
					v = nullMark
				}
				row[c] = strings.Clone(v)
			}
			res.rows = append(res.rows, row)
		}
		if err == io.EOF && b.Rows == 0 {
			return res
		}
		if err != nil {
			res.err = err
			return res
		}
		for c := range b.Cols {
			if b.Cols[c].Len() != b.Rows {
				res.err = fmt.Errorf("column %d has %d cells for %d rows", c, b.Cols[c].Len(), b.Rows)
				return res
			}
		}
	}
}

// checkBatchesMatch fails the test unless reading data through NextBatch,
// whole or in small reads, gives what Next gave (want).
func checkBatchesMatch(t *testing.T, data []byte, name string, opt Options, want readResult) {
	t.Helper()
	for _, chunk := range []int{0, 1, 7, 4096} {
		var f File = bytes.NewReader(data)
		if chunk > 0 {
			f = &chunkedFile{bytes.NewReader(data), chunk}
		}
		got := readBatches(f, name, opt)
		if !sameResult(got, want) {
			t.Fatalf("%s read in chunks of %d through NextBatch:\n got %s\nwant %s (Next)", name, chunk, describeResult(got), describeResult(want))
		}
	}
}

func sameResult(a, b readResult) bool {
	errText := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	return a.format == b.format && reflect.DeepEqual(a.cols, b.cols) && reflect.DeepEqual(a.rows, b.rows) &&
		errText(a.err) == errText(b.err) && a.openEr == b.openEr &&
		errors.Is(a.err, ErrMalformed) == errors.Is(b.err, ErrMalformed) &&
		errors.Is(a.err, ErrUnsupported) == errors.Is(b.err, ErrUnsupported)
}

func describeResult(r readResult) string {
	rows := fmt.Sprintf("%q", r.rows)
	if len(rows) > 500 {
		rows = rows[:500] + "..."
	}
	return fmt.Sprintf("format %s, columns %q, %d rows %s, err %v (from Open: %v)", r.format, r.cols, len(r.rows), rows, r.err, r.openEr)
}

// nestedObjects is n objects nested in one another under key "a", around 1.
func nestedObjects(n int) string {
	return strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
}

// TestJSONValuesAndErrors pins the values and the messages of the reader
// that was built on encoding/json, which these are taken from, and checks
// that NextBatch agrees with Next.
func TestJSONValuesAndErrors(t *testing.T) {
	N := nullMark
	cases := []struct {
		name, file, data string
		opt              Options
		cols             []string
		rows             [][]string // nil: only the count matters
		nRows            int
		openFails        bool
		kind             error
		err              string
	}{
		{name: "escapes", file: "a.jsonl",
			data: `{"s":"a\"b\\c\/d\b\f\n\r\t","u":"\u00e9\u4E2D\ud83d\ude00","lone":"x\ud83dy","low":"\ude00","pair2":"\ud83d\ud83d\ude00","zero":"\u0000"}`,
			cols: []string{"s", "u", "lone", "low", "pair2", "zero"},
			rows: [][]string{{"a\"b\\c/d\b\f\n\r\t", "é中😀", "x\uFFFDy", "\uFFFD", "\uFFFD😀", "\x00"}}},
		{name: "invalid UTF-8", file: "a.jsonl",
			data: "{\"plain\":\"a\xff\xfeb\",\"esc\":\"a\xff\xfe\\nb\",\"sur\":\"\xed\xa0\x80\",\"arr\":[\"\xff\xff\", 1],\"k\xff\":1,\"ok\":\"é\"}",
			cols: []string{"plain", "esc", "sur", "arr", "k\uFFFD", "ok"},
			rows: [][]string{{"a\uFFFDb", "a\uFFFD\uFFFD\nb", "\uFFFD", "[\"\uFFFD\",1]", "1", "é"}}},
		{name: "numbers", file: "a.jsonl",
			data: `{"a":0,"b":-0,"c":12,"d":-12.50,"e":1e5,"f":1E+5,"g":-1.5e-07,"h":123456789012345678901234567890,"i":0.0000,"j":true,"k":false}`,
			cols: []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"},
			rows: [][]string{{"0", "-0", "12", "-12.50", "1e5", "1E+5", "-1.5e-07", "123456789012345678901234567890", "0.0000", "true", "false"}}},
		{name: "arrays", file: "a.jsonl",
			data: `{"a":[ 1 , "x y" , {"k" : [ ] } , null , true ],"b":[],"c":[[]],"d":["\u00e9", "a\"b"]}`,
			cols: []string{"a", "b", "c", "d"},
			rows: [][]string{{`[1,"x y",{"k":[]},null,true]`, "[]", "[[]]", `["\u00e9","a\"b"]`}}},
		{name: "nested", file: "a.jsonl",
			data: "{\"a\":{\"b\":{\"c\":1,\"d\":{ }},\"e\":null},\"f\":{}}\n{\"a\":{\"\":{\"x\":1}},\"\":{\"y\":2},\"g\":{\"\":{}}}",
			cols: []string{"a.b.c", "a.b.d", "a.e", "f", "a..x", "y", "g."},
			rows: [][]string{{"1", "{}", N, "{}", N, N, N}, {N, N, N, N, "1", "2", "{}"}}},
		{name: "duplicate keys", file: "a.jsonl",
			data: "{\"a\":1,\"a\":2}\n{\"a\":1,\"a\":null}\n{\"a.b\":1,\"a\":{\"b\":2}}\n{\"a\":{\"b\":1},\"a\":2}",
			cols: []string{"a", "a.b"},
			rows: [][]string{{"2", N}, {N, N}, {N, "2"}, {"2", "1"}}},
		{name: "keys appearing late", file: "a.jsonl",
			data: "{\"a\":1}\n{\"b\":2}\n{\"c\":{\"d\":3},\"a\":4}",
			cols: []string{"a", "b", "c.d"},
			rows: [][]string{{"1", N, N}, {N, "2", N}, {"4", N, "3"}}},
		{name: "null parents", file: "a.jsonl",
			data: "{\"a\":null,\"b\":null}\n{\"a\":{\"x\":1},\"b\":1}\n{\"b\":{\"y\":2}}",
			cols: []string{"b", "a.x", "b.y"},
			rows: [][]string{{N, N, N}, {"1", "1", N}, {N, N, "2"}}},
		{name: "CRLF, blank lines and a BOM", file: "a.jsonl",
			data: "\xef\xbb\xbf\r\n{\"a\":1}\r\n\r\n\r\n{\"a\":2}\r\n\r\n",
			cols: []string{"a"}, rows: [][]string{{"1"}, {"2"}}},
		{name: "values spanning and sharing lines", file: "a.jsonl",
			data: "{\n \"a\": 1,\n \"b\": [1,\n 2]\n}\n{\"a\":2} {\"a\":3}{\"a\":4}\n",
			cols: []string{"a", "b"},
			rows: [][]string{{"1", "[1,2]"}, {"2", N}, {"3", N}, {"4", N}}},
		{name: "objects 1000 deep", file: "a.jsonl", data: nestedObjects(1001),
			cols: []string{strings.Repeat("a.", 1000) + "a"}, rows: [][]string{{"1"}}},
		{name: "arrays 9999 deep", file: "a.jsonl", data: `{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + "}",
			cols: []string{"a"}, rows: [][]string{{strings.Repeat("[", 9999) + strings.Repeat("]", 9999)}}},
		{name: "array with a trailing comma at the end", file: "a.json", data: "[{\"a\":1},\n",
			cols: []string{"a"}, rows: [][]string{{"1"}}},
		{name: "array, pretty", file: "a.json", data: "[\n  {\n    \"a\": 1\n  },\n  {\n    \"b\": \"x\"\n  }\n]\n",
			cols: []string{"a", "b"}, rows: [][]string{{"1", N}, {N, "x"}}},

		{name: "not json", file: "a.json", data: "hello", openFails: true, kind: ErrMalformed,
			err: "line 1: invalid JSON: invalid character 'h' looking for beginning of value"},
		{name: "top-level scalar", file: "a.jsonl", data: "42\n", openFails: true, kind: ErrMalformed,
			err: "line 1: expected a JSON object, found a number"},
		{name: "top-level string", file: "a.jsonl", data: "{\"a\":1}\n\"s\"\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: expected a JSON object, found a string"},
		{name: "top-level null", file: "a.jsonl", data: "{\"a\":1}\nnull\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: expected a JSON object, found null"},
		{name: "top-level boolean", file: "a.jsonl", data: "{\"a\":1}\ntrue\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: expected a JSON object, found a boolean"},
		{name: "missing value", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '}' looking for beginning of value"},
		{name: "missing colon", file: "a.jsonl", data: "{\"a\":1}\n{\"a\" 1}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '1' after object key"},
		{name: "missing comma", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":1 \"b\":2}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '\"' after object key:value pair"},
		{name: "unquoted key", file: "a.jsonl", data: "{\"a\":1}\n{a:1}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character 'a' looking for beginning of object key string"},
		{name: "trailing comma", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":1,}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{name: "bad escape", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"\\x\"}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character 'x' in string escape code"},
		{name: "bad unicode escape", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"\\u12g4\"}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character 'g' in \\u hexadecimal character escape"},
		{name: "tab in string", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"x\ty\"}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '\\t' in string literal"},
		{name: "newline in string", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"x\ny\"}\n", nRows: 1, kind: ErrMalformed,
			err: "line 3: invalid JSON: invalid character '\\n' in string literal"},
		{name: "leading zero", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":01}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '1' after object key:value pair"},
		{name: "no digit after the point", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":1.}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '}' after decimal point in numeric literal"},
		{name: "no exponent digit", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":1e}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '}' in exponent of numeric literal"},
		{name: "lone minus", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":-x}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character 'x' in numeric literal"},
		{name: "plus sign", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":+1}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '+' looking for beginning of value"},
		{name: "bad literal", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":tru}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '}' in literal true (expecting 'e')"},
		{name: "invalid UTF-8 outside strings", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\xff}\n", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character 'ÿ' looking for beginning of value"},
		{name: "garbage after an object", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":2} x\n", nRows: 2, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character 'x' looking for beginning of value"},
		{name: "comma between objects", file: "a.jsonl", data: "{\"a\":1},{\"a\":2}\n", nRows: 1, kind: ErrMalformed,
			err: "line 1: invalid JSON: invalid character ',' looking for beginning of value"},
		{name: "truncated last line", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":2", nRows: 1, kind: ErrMalformed,
			err: "line 2: the file ends in the middle of a JSON value"},
		{name: "truncated in a string", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"2", nRows: 1, kind: ErrMalformed,
			err: "line 2: the file ends in the middle of a JSON value"},
		{name: "objects nested too deep", file: "a.jsonl", data: "{\"a\":1}\n" + nestedObjects(1002), nRows: 1, kind: ErrMalformed,
			err: "line 2: objects are nested more than 1000 levels deep"},
		{name: "arrays nested too deep", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":" + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}", nRows: 1, kind: ErrMalformed,
			err: "line 2: invalid JSON: invalid character '[' exceeded max depth"},
		{name: "value too large", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"" + strings.Repeat("x", 100) + "\"}\n", opt: Options{MaxFieldBytes: 50},
			openFails: true, kind: ErrUnsupported, err: "line 2: the value of \"a\" is larger than the 50 bytes limit"},
		{name: "value too large, then a syntax error", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"" + strings.Repeat("x", 100) + "\",}\n", opt: Options{MaxFieldBytes: 50},
			nRows: 1, kind: ErrMalformed, err: "line 2: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{name: "too many keys, then a syntax error", file: "a.jsonl", data: "{\"a\":1}\n{\"b\":1,\"c\":2,}\n", opt: Options{MaxColumns: 2},
			nRows: 1, kind: ErrMalformed, err: "line 2: invalid JSON: invalid character '}' looking for beginning of object key string"},
		{name: "too many keys in a later row", file: "a.jsonl", data: "{\"a\":1}\n{\"b\":1,\"c\":2}\n", opt: Options{MaxColumns: 2},
			openFails: true, kind: ErrUnsupported, err: "the file has more than 2 distinct keys (columns)"},
		{name: "row too large", file: "a.jsonl", data: "{\"a\":1}\n{\"a\":\"" + strings.Repeat("x", 5000) + "\"}\n", opt: Options{MaxColumns: 2, MaxFieldBytes: 1000},
			openFails: true, kind: ErrUnsupported, err: "line 2: a single row is larger than the 2000 bytes limit"},
		{name: "missing comma in an array", file: "a.json", data: "[{\"a\":1}\n {\"a\":2}]", nRows: 1, kind: ErrMalformed,
			err: "row 2 (line 2): invalid JSON: expected comma after array element"},
		{name: "trailing comma in an array", file: "a.json", data: "[{\"a\":1},]", nRows: 1, kind: ErrMalformed,
			err: "row 2 (line 1): invalid JSON: invalid character ']' looking for beginning of value"},
		{name: "brace closing an array", file: "a.json", data: "[{\"a\":1}\n}", nRows: 1, kind: ErrMalformed,
			err: "row 1 (line 2): invalid JSON: invalid character '}' after array element"},
		{name: "array not closed", file: "a.json", data: "[{\"a\":1}\n", nRows: 1, kind: ErrMalformed,
			err: "row 1 (line 2): the file ends in the middle of a JSON value"},
		{name: "syntax error in a later array row", file: "a.json", data: "[\n\n  {\"a\":1},\n  {\"a\":1},\n  {\"a\":x}\n]", nRows: 2, kind: ErrMalformed,
			err: "row 3 (line 5): invalid JSON: invalid character 'x' looking for beginning of value"},
		{name: "value after the array", file: "a.json", data: "[{\"a\":1}]\n\n\"x\"\n", nRows: 1, kind: ErrMalformed,
			err: "line 3: unexpected data after the end of the top-level array"},
		{name: "bad value after the array", file: "a.json", data: "[{\"a\":1}]\n\nxyz\n", nRows: 1, kind: ErrMalformed,
			err: "line 3: unexpected data after the end of the top-level array"},
		{name: "second array", file: "a.json", data: "[{\"a\":1}]\n[{\"a\":2}]", nRows: 1, kind: ErrMalformed,
			err: "line 2: unexpected data after the end of the top-level array"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := readBytes([]byte(c.data), c.file, c.opt)
			if c.err == "" && res.err != nil {
				t.Fatal(res.err)
			}
			if c.err != "" && (res.err == nil || res.err.Error() != c.err || !errors.Is(res.err, c.kind) || res.openEr != c.openFails) {
				t.Fatalf("err = %v (from Open: %v), want %q (from Open: %v)", res.err, res.openEr, c.err, c.openFails)
			}
			if c.cols != nil && !reflect.DeepEqual(res.cols, c.cols) {
				t.Errorf("columns %q, want %q", res.cols, c.cols)
			}
			if c.rows != nil && !reflect.DeepEqual(res.rows, c.rows) {
				t.Errorf("rows\n got %q\nwant %q", res.rows, c.rows)
			}
			if c.rows == nil && len(res.rows) != c.nRows {
				t.Errorf("%d rows, want %d", len(res.rows), c.nRows)
			}
			checkBatchesMatch(t, []byte(c.data), c.file, c.opt, res)
		})
	}
}

// TestJSONSpectrumFixtures reads the JSON files of the csv-spectrum
// fixtures (arrays of pretty-printed objects of strings).
func TestJSONSpectrumFixtures(t *testing.T) {
	dir := fixturesDir(t, "csv-spectrum")
	files, err := filepath.Glob(filepath.Join(dir, "json", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no csv-spectrum JSON files in %s (%v)", dir, err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var want []map[string]string
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			res := readBytes(data, filepath.Base(path), Options{})
			if res.err != nil || len(res.rows) != len(want) {
				t.Fatalf("%d rows, err %v; want %d rows", len(res.rows), res.err, len(want))
			}
			for i, row := range res.rows {
				for c, name := range res.cols {
					if w, ok := want[i][name]; ok && row[c] != w || !ok && row[c] != nullMark {
						t.Errorf("row %d, %s = %q, want %q", i, name, row[c], w)
					}
				}
			}
			checkBatchesMatch(t, data, filepath.Base(path), Options{}, res)
		})
	}
}

// TestJSONBufferBoundaries reads rows that straddle the read buffer and
// rows much larger than it, which make it grow.
func TestJSONBufferBoundaries(t *testing.T) {
	var b bytes.Buffer
	for i := 0; b.Len() < 3<<20; i++ {
		fmt.Fprintf(&b, `{"i":%d,"s":"%s","e":"\u00e9\n%d","n":{"x":[%d, "y"]}}`+"\n", i, strings.Repeat("x", i%300), i, i)
		if i == 2000 {
			fmt.Fprintf(&b, `{"big":"%s","late":null}`+"\n", strings.Repeat("é", 1<<19-1))
		}
	}
	for _, name := range []string{"a.jsonl", "a.json"} {
		data := b.Bytes()
		if name == "a.json" {
			data = []byte("[" + strings.ReplaceAll(strings.TrimSuffix(b.String(), "\n"), "\n", ",\n") + "]")
		}
		res := readBytes(data, name, Options{})
		if res.err != nil || len(res.rows) < 5000 || !reflect.DeepEqual(res.cols, []string{"i", "s", "e", "n.x", "big", "late"}) {
			t.Fatalf("%s: %d rows, columns %q, err %v", name, len(res.rows), res.cols, res.err)
		}
		if got := res.rows[4000]; !reflect.DeepEqual(got, []string{"3999", strings.Repeat("x", 3999%300), "é\n3999", `[3999,"y"]`, nullMark, nullMark}) {
			t.Fatalf("%s: row 4000 = %q", name, got)
		}
		for _, chunk := range []int{0, 1000, 70000} {
			var f File = bytes.NewReader(data)
			if chunk > 0 {
				f = &chunkedFile{bytes.NewReader(data), chunk}
			}
			if got := readBatches(f, name, Options{}); !sameResult(got, res) {
				t.Fatalf("%s, chunks of %d: NextBatch gives %d rows, err %v; Next gave %d rows", name, chunk, len(got.rows), got.err, len(res.rows))
			}
		}
	}
}

// TestJSONHugeLine: a line past the row size limit fails with the row
// size error, at its line, whether it is the first row or a later one.
func TestJSONHugeLine(t *testing.T) {
	opt := Options{MaxColumns: 4, MaxFieldBytes: 100 << 10}
	huge := `{"a":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	for _, c := range []struct{ data, err string }{
		{huge + `{"a":"y"}`, "line 1: a single row is larger than the 400 KiB limit"},
		{`{"a":"y"}` + "\n\n" + huge, "line 3: a single row is larger than the 400 KiB limit"},
	} {
		res := readBytes([]byte(c.data), "a.jsonl", opt)
		if !errors.Is(res.err, ErrUnsupported) || res.err.Error() != c.err || !res.openEr {
			t.Fatalf("err = %v (from Open: %v), want %q from Open", res.err, res.openEr, c.err)
		}
	}
}

// failingFile fails reads past n bytes.
type failingFile struct {
	*bytes.Reader
	n int64
}

func (f *failingFile) Read(p []byte) (int, error) {
	pos, _ := f.Seek(0, io.SeekCurrent)
	if pos >= f.n {
		return 0, errors.New("disk on fire")
	}
	return f.Reader.Read(p[:min(int64(len(p)), f.n-pos)])
}

func TestJSONReadError(t *testing.T) {
	data := []byte("{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n")
	res := readAll(&failingFile{bytes.NewReader(data), 12}, "a.jsonl", Options{})
	if res.err == nil || res.err.Error() != "line 2: reading file: disk on fire" || len(res.rows) != 1 || res.openEr {
		t.Fatalf("err = %v (from Open: %v) after %d rows", res.err, res.openEr, len(res.rows))
	}
	if got := readBatches(&failingFile{bytes.NewReader(data), 12}, "a.jsonl", Options{}); !sameResult(got, res) {
		t.Fatalf("NextBatch: %s", describeResult(got))
	}
}

// TestJSONNextBatchStopsAtBadRow: the rows before a bad one are in the
// batch, and the error stays.
func TestJSONNextBatchStopsAtBadRow(t *testing.T) {
	r, err := Open(bytes.NewReader([]byte("{\"a\":1,\"b\":[1]}\n{\"a\":2}\n{\"a\":3,\"b\":}\n{\"a\":4}\n")), "a.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := columnar.NewBatch(2)
	err = FillBatch(r, b)
	if err == nil || err.Error() != "line 3: invalid JSON: invalid character '}' looking for beginning of value" {
		t.Fatalf("err = %v", err)
	}
	if b.Rows != 2 || b.Cols[0].Len() != 2 || b.Cols[1].Len() != 2 {
		t.Fatalf("%d rows, %d and %d cells", b.Rows, b.Cols[0].Len(), b.Cols[1].Len())
	}
	if v, null := b.Cols[1].Cell(1); v != "" || !null {
		t.Fatalf("b in row 2 = %q, %v", v, null)
	}
	if err2 := FillBatch(r, b); err2 == nil || err2.Error() != err.Error() || b.Rows != 2 {
		t.Fatalf("second call: %v, %d rows", err2, b.Rows)
	}
}
