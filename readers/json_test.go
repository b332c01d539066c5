package readers

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/dqs/dqs/internal/hostile"
	"reflect"
	"strings"
	"testing"
)

func TestJSONReaders(t *testing.T) {
	N := nullMark
	nestedCols := []string{"id", "user.name", "user.geo.lat", "user.geo.lon", "tags", "note", "active", "user.age", "extra"}
	nestedRows := [][]string{
		{"1", "ann", "59.91", "10.75", `["a","b"]`, N, "true", N, N},
		{"2", "bob", N, N, "[]", "x\ty \"q\" é", "false", "41", `[{"k":1},null]`},
		{"3", N, N, N, N, N, N, N, N},
	}
	rows := []string{
		`{"id": 1, "user": {"name": "ann", "geo": {"lat": 59.91, "lon": 10.75}}, "tags": ["a", "b"], "note": null, "active": true}`,
		`{"id": 2, "user": {"name": "bob", "age": 41}, "tags": [ ], "note": "x\ty \"q\" \u00e9", "active": false, "extra": [{"k": 1}, null]}`,
		`{"id": 3, "user": null}`,
	}
	cases := []struct {
		name   string
		file   string
		data   string
		format Format
		cols   []string
		rows   [][]string
	}{
		{"array", "a.json", "[\n  " + strings.Join(rows, ",\n  ") + "\n]\n", FormatJSON, nestedCols, nestedRows},
		{"jsonl", "a.jsonl", strings.Join(rows, "\n") + "\n", FormatJSONL, nestedCols, nestedRows},
		{"jsonl with blank lines and CRLF", "a.jsonl", "\r\n" + strings.Join(rows, "\r\n\r\n"), FormatJSONL, nestedCols, nestedRows},
		{"json objects without array", "a.json", strings.Join(rows, "\n"), FormatJSONL, nestedCols, nestedRows},
		{"detected by content", "upload", strings.Join(rows, "\n"), FormatJSONL, nestedCols, nestedRows},
		{"BOM", "a.json", "\xEF\xBB\xBF[{\"a\":1}]", FormatJSON, []string{"a"}, [][]string{{"1"}}},
		{"exact numbers", "a.json", `[{"big": 123456789012345678901234567890, "f": 1.10, "e": -2E-3}]`, FormatJSON,
			[]string{"big", "f", "e"}, [][]string{{"123456789012345678901234567890", "1.10", "-2E-3"}}},
		{"empty object rows", "a.json", `[{}, {"a": {}}, {"a": {"b": 1}}]`, FormatJSON,
			[]string{"a", "a.b"}, [][]string{{N, N}, {"{}", N}, {N, "1"}}},
		{"empty array", "a.json", "[]", FormatJSON, nil, nil},
		{"empty file", "a.json", "", FormatJSONL, nil, nil},
		{"whitespace only", "a.jsonl", " \n\n ", FormatJSONL, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := readBytes([]byte(c.data), c.file, Options{})
			if res.err != nil {
				t.Fatal(res.err)
			}
			if res.format != c.format {
				t.Errorf("format %s, want %s", res.format, c.format)
			}
			if len(res.cols) != 0 || len(c.cols) != 0 {
				if !reflect.DeepEqual(res.cols, c.cols) {
					t.Errorf("columns %q, want %q", res.cols, c.cols)
				}
			}
			if !reflect.DeepEqual(res.rows, c.rows) {
				t.Errorf("rows\n got %q\nwant %q", res.rows, c.rows)
			}
			checkBatchesMatch(t, []byte(c.data), c.file, Options{}, res)
		})
	}
}

func TestJSONMalformed(t *testing.T) {
	cases := []struct {
		name, file, data string
		kind             error
		message          string
		openFails        bool
		rowsBefore       int
	}{
		{"not json", "a.json", "hello", ErrMalformed, "line 1: invalid JSON", true, 0},
		{"top-level scalar", "a.jsonl", "42\n", ErrMalformed, "line 1: expected a JSON object, found a number", true, 0},
		{"non-object row in array", "a.json", "[\n{\"a\":1},\n\"str\"\n]", ErrMalformed, "row 2 (line 3): expected a JSON object, found a string", false, 1},
		{"array row in jsonl", "a.jsonl", "{\"a\":1}\n{\"a\":2}\n[1,2]\n", ErrMalformed, "line 3: expected a JSON object, found an array", false, 2},
		{"syntax error in jsonl", "a.jsonl", "{\"a\":1}\n{\"a\":2}\n{\"a\":}\n", ErrMalformed, "line 3: invalid JSON", false, 2},
		{"truncated array", "a.json", "[{\"a\":1},\n{\"a\":2", ErrMalformed, "row 2 (line 2)", false, 1},
		{"data after array", "a.json", "[{\"a\":1}] x", ErrMalformed, "after the end of the top-level array", false, 1},
		{"missing comma", "a.json", "[{\"a\":1} {\"a\":2}]", ErrMalformed, "invalid JSON", false, 1},
		{"too many keys", "a.json", `[{"a":1,"b":2,"c":3}]`, ErrUnsupported, "more than 2 distinct keys", true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opt := Options{}
			if c.name == "too many keys" {
				opt.MaxColumns = 2
			}
			res := readBytes([]byte(c.data), c.file, opt)
			if !errors.Is(res.err, c.kind) {
				t.Fatalf("err = %v, want %v", res.err, c.kind)
			}
			if !strings.Contains(res.err.Error(), c.message) {
				t.Fatalf("err = %q, want it to contain %q", res.err, c.message)
			}
			if res.openEr != c.openFails {
				t.Errorf("error from Open = %v, want %v", res.openEr, c.openFails)
			}
			if len(res.rows) != c.rowsBefore {
				t.Errorf("%d rows before the error, want %d", len(res.rows), c.rowsBefore)
			}
			checkBatchesMatch(t, []byte(c.data), c.file, opt, res)
		})
	}
}

func TestJSONValueLimit(t *testing.T) {
	data := `[{"a":"` + strings.Repeat("x", 100) + `"}]`
	res := readBytes([]byte(data), "a.json", Options{MaxFieldBytes: 50})
	if !errors.Is(res.err, ErrUnsupported) || !strings.Contains(res.err.Error(), "larger than the 50 bytes limit") {
		t.Fatalf("err = %v, want a size-limit ErrUnsupported", res.err)
	}
	checkBatchesMatch(t, []byte(data), "a.json", Options{MaxFieldBytes: 50}, res)
}

func TestJSONRowLimit(t *testing.T) {
	// One row bigger than MaxColumns*MaxFieldBytes stops the decoder
	// instead of buffering it.
	data := `[{"a":"` + strings.Repeat("x", 200000) + `"}]`
	res := readBytes([]byte(data), "a.json", Options{MaxColumns: 2, MaxFieldBytes: 1000})
	if !errors.Is(res.err, ErrUnsupported) || !strings.Contains(res.err.Error(), "single row is larger") {
		t.Fatalf("err = %v, want the row-size ErrUnsupported", res.err)
	}
	checkBatchesMatch(t, []byte(data), "a.json", Options{MaxColumns: 2, MaxFieldBytes: 1000}, res)
}

func TestJSONManyRowsStream(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("[")
	const n = 50000
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"i":%d,"s":"v%d"}`, i, i)
		if i == n-1 {
			b.WriteString(`,{"late":true}`)
		}
	}
	b.WriteString("]")
	res := readBytes(b.Bytes(), "big.json", Options{})
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(res.rows) != n+1 || !reflect.DeepEqual(res.cols, []string{"i", "s", "late"}) {
		t.Fatalf("%d rows, columns %q", len(res.rows), res.cols)
	}
	if got := res.rows[n-1]; !reflect.DeepEqual(got, []string{"49999", "v49999", nullMark}) {
		t.Fatalf("row %d = %q", n-1, got)
	}
	checkBatchesMatch(t, b.Bytes(), "big.json", Options{}, res)
}

// FuzzJSON: any input ends in rows or an error, with consistent records,
// and NextBatch gives what Next gives.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{`[{"a":1,"b":{"c":[1,{"d":null}]}}]`, "{\"a\":\"\\u00e9\"}\n{\"b\":2}", `[{}]`, `[1]`, `{"a":{}}`,
		`{"meta":{"n":2},"data":{"items":[{"a":1},{"a":2},3]},"x":[{}]}`, "{\"results\":[{\"a\":1}\n{\"a\":2}]}"} {
		f.Add([]byte(s))
	}
	seedFiles(f, "vega-datasets", ".json", 16<<10)
	f.Add(hostile.DeepJSON(2000))
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := Options{MemoryBudget: fuzzBudget}
		for _, name := range []string{"f.json", "f.jsonl"} {
			res := readBytes(data, name, opt)
			checkSentinel(t, name, res.err)
			checkBatchesMatch(t, data, name, opt, res)
		}
	})
}
