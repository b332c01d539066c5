package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

const N = nullMark

func TestJSONWrappedRecords(t *testing.T) {
	cases := []struct {
		name, file, data string
		path             string // "" when the rows are not wrapped
		format           Format
		cols             []string
		rows             [][]string
	}{
		{"results next to metadata", "a.json", `{"meta":{"n":3},"results":[{"a":1,"b":"x"},{"a":2,"b":"y"}]}`,
			"results", FormatJSON, []string{"a", "b"}, [][]string{{"1", "x"}, {"2", "y"}}},
		{"data, no extension", "upload", `{"data": [{"id": 1}, {"id": 2, "tags": ["a"]}]}`,
			"data", FormatJSON, []string{"id", "tags"}, [][]string{{"1", N}, {"2", `["a"]`}}},
		{"nested through objects, pretty-printed", "a.json", "{\n  \"status\": \"ok\",\n  \"response\": {\n    \"total\": 2,\n    \"items\": [\n      {\"k\": \"v1\"},\n      {\"k\": \"v2\", \"n\": {\"m\": 1}}\n    ]\n  }\n}\n",
			"response.items", FormatJSON, []string{"k", "n.m"}, [][]string{{"v1", N}, {"v2", "1"}}},
		{"GeoJSON feature collection", "a.geojson", `{"type":"FeatureCollection","features":[` +
			`{"type":"Feature","geometry":{"type":"Point","coordinates":[10.7,59.9]},"properties":{"name":"Oslo"}},` +
			`{"type":"Feature","geometry":{"type":"Point","coordinates":[2.35,48.86]},"properties":{"name":"Paris"}}]}`,
			"features", FormatJSON, []string{"type", "geometry.type", "geometry.coordinates", "properties.name"},
			[][]string{{"Feature", "Point", "[10.7,59.9]", "Oslo"}, {"Feature", "Point", "[2.35,48.86]", "Paris"}}},
		{"the longest array wins", "a.json", `{"errors":[{"e":1}],"rows":[{"y":1},{"y":2}],"ids":[1,2,3,4]}`,
			"rows", FormatJSON, []string{"y"}, [][]string{{"1"}, {"2"}}},
		{"a tie goes to the first", "a.json", `{"x":{"a":[{"p":1}]},"b":[{"q":2}]}`,
			"x.a", FormatJSON, []string{"p"}, [][]string{{"1"}}},
		{"arrays inside records are values", "a.json", `{"rows":[{"inner":[{"z":1},{"z":2},{"z":3}]}]}`,
			"rows", FormatJSON, []string{"inner"}, [][]string{{`[{"z":1},{"z":2},{"z":3}]`}}},
		{"escaped key in the path, BOM", "a.json", "\xEF\xBB\xBF" + `{"r\u00e9sultats":[{"a":1}]}`,
			"résultats", FormatJSON, []string{"a"}, [][]string{{"1"}}},
		{"empty records", "a.json", `{"next":null,"data":[{}]}`, "data", FormatJSON, nil, [][]string{{}}},

		// Not wrapped: one row, as before.
		{"no array", "a.json", `{"a":1,"b":{"c":2}}`, "", FormatJSONL, []string{"a", "b.c"}, [][]string{{"1", "2"}}},
		{"empty array", "a.json", `{"results":[]}`, "", FormatJSONL, []string{"results"}, [][]string{{"[]"}}},
		{"an array of arrays", "a.json", `{"x":[[{"a":1},{"a":2}]]}`, "", FormatJSONL, []string{"x"}, [][]string{{`[[{"a":1},{"a":2}]]`}}},
		{"only half objects", "a.json", `{"d":[{"a":1},2]}`, "", FormatJSONL, []string{"d"}, [][]string{{`[{"a":1},2]`}}},
		{"JSON Lines of wrappers", "a.jsonl", "{\"data\":[{\"a\":1}]}\n{\"data\":[{\"a\":2}]}\n", "", FormatJSONL,
			[]string{"data"}, [][]string{{`[{"a":1}]`}, {`[{"a":2}]`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, onePass := range []bool{false, true} {
				opt := Options{OnePass: onePass}
				res := readBytes([]byte(c.data), c.file, opt)
				if res.err != nil {
					t.Fatal(res.err)
				}
				if res.format != c.format || !reflect.DeepEqual(res.cols, c.cols) || !reflect.DeepEqual(res.rows, c.rows) {
					t.Fatalf("one pass %v: got %s %q %q\nwant %s %q %q", onePass, res.format, res.cols, res.rows, c.format, c.cols, c.rows)
				}
				path, ok := RecordsPathOf(res.reader)
				if path != c.path || ok != (c.path != "") {
					t.Errorf("one pass %v: RecordsPathOf = %q, %v; want %q", onePass, path, ok, c.path)
				}
				checkBatchesMatch(t, []byte(c.data), c.file, opt, res)
			}
		})
	}
}

func TestJSONWrappedErrors(t *testing.T) {
	cases := []struct {
		name, data string
		kind       error
		message    string
		openFails  bool
		rowsBefore int
	}{
		{"a non-object record", "{\n \"items\": [\n  {\"a\": 1},\n  {\"a\": 2},\n  \"x\"\n ]\n}",
			ErrMalformed, "row 3 (line 5): expected a JSON object, found a string", false, 2},
		{"syntax error after the records", `{"items":[{"a":1},{"a":2}],"x":}`,
			ErrMalformed, "line 1: invalid JSON: invalid character '}' looking for beginning of value", true, 0},
		{"missing comma between records", "{\"items\":[{\"a\":1}\n{\"a\":2}]}",
			ErrMalformed, "line 2: invalid JSON: invalid character '{' after array element", true, 0},
		{"truncated", "\n{\"items\":[{\"a\":1},{\"a\":2}]",
			ErrMalformed, "line 2: the file ends in the middle of a JSON value", true, 0},
		{"a trailing comma", `{"items":[{"a":1},{"a":2},]}`,
			ErrMalformed, "line 1: invalid JSON: invalid character ']' looking for beginning of value", true, 0},
		{"a bad key", `{"items":[{"a":1}],3:1}`,
			ErrMalformed, "line 1: invalid JSON: invalid character '3' looking for beginning of object key string", true, 0},
		{"a second value after the wrapper", `{"items":[{"a":1}]} x`,
			ErrMalformed, "line 1: invalid JSON: invalid character 'x' looking for beginning of value", false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := readBytes([]byte(c.data), "a.json", Options{})
			if !errors.Is(res.err, c.kind) || res.err.Error() != c.message {
				t.Fatalf("err = %v, want %q (%v)", res.err, c.message, c.kind)
			}
			if res.openEr != c.openFails || len(res.rows) != c.rowsBefore {
				t.Errorf("open failed %v with %d rows before, want %v and %d", res.openEr, len(res.rows), c.openFails, c.rowsBefore)
			}
			checkBatchesMatch(t, []byte(c.data), "a.json", Options{}, res)
		})
	}
}

// A syntax error in a single object is worded as before the wrapped
// records were looked for, whether or not it follows a records array.
func TestJSONWrappedErrorsWordedAsBefore(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"items":[{"a":1}],"x":}`, `{"items":[1],"x":}`},
		{"{\"items\":[{\"a\":1}]\n,,", "{\"items\":[1]\n,,"},
		{`{"items":[{"a":1}],"x":[1 2]}`, `{"items":[1],"x":[1 2]}`},
		{`{"items":[{"a":1}],"x":"\q"}`, `{"items":[1],"x":"\q"}`},
	} {
		wrapped := readBytes([]byte(pair[0]), "a.json", Options{})
		plain := readBytes([]byte(pair[1]), "a.json", Options{})
		if wrapped.err == nil || plain.err == nil || wrapped.err.Error() != plain.err.Error() || !errors.Is(wrapped.err, ErrMalformed) {
			t.Errorf("%q: %v\n%q: %v", pair[0], wrapped.err, pair[1], plain.err)
		}
	}
}

// A wrapped document far larger than the row limit streams: only one
// record at a time is held.
func TestJSONWrappedStreams(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"meta":{"source":"api"},"page":{"items":[`)
	const n = 40000
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"i":%d,"s":"%s"}`, i, strings.Repeat("v", 100))
	}
	b.WriteString(`]},"next":"x"}`)
	opt := Options{MemoryBudget: MinMemoryBudget}
	if int64(b.Len()) < 4*opt.withDefaults().recordLimit() {
		t.Fatalf("the document (%d bytes) is not much larger than the row limit", b.Len())
	}
	res := readBytes(b.Bytes(), "big.json", opt)
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(res.rows) != n || !reflect.DeepEqual(res.cols, []string{"i", "s"}) || res.rows[n-1][0] != fmt.Sprint(n-1) {
		t.Fatalf("%d rows, columns %q", len(res.rows), res.cols)
	}
	if path, ok := RecordsPathOf(res.reader); path != "page.items" || !ok {
		t.Fatalf("RecordsPathOf = %q, %v", path, ok)
	}
	// A syntax error at its very end is reported as such, not as a row too
	// large.
	bad := append(bytes.TrimSuffix(b.Bytes(), []byte(`"x"}`)), `x}`...)
	res = readBytes(bad, "big.json", opt)
	if !errors.Is(res.err, ErrMalformed) || !strings.Contains(res.err.Error(), "invalid character 'x' looking for beginning of value") {
		t.Fatalf("err = %v", res.err)
	}
}

// A path longer than a column name may be is cut, and its records read
// all the same.
func TestJSONWrappedPathCut(t *testing.T) {
	long := strings.Repeat("k", maxKeyBytes)
	for _, c := range []struct{ data, path string }{
		{`{"` + long + `":{"x":[{"a":1}]}}`, "…"},
		{`{"p":{"` + long + `":{"x":[{"a":1}]}}}`, "p.…"},
		{`{"p":{"` + long[3:] + `":{"x":[{"a":1}]}}}`, "p." + long[3:] + ".…"},
	} {
		res := readBytes([]byte(c.data), "a.json", Options{})
		if res.err != nil || !reflect.DeepEqual(res.cols, []string{"a"}) || !reflect.DeepEqual(res.rows, [][]string{{"1"}}) {
			t.Fatalf("%q %q, err %v", res.cols, res.rows, res.err)
		}
		if path, ok := RecordsPathOf(res.reader); !ok || path != c.path {
			t.Errorf("RecordsPathOf = %q, %v; want %q", path, ok, c.path)
		}
	}
}

// FuzzJSONWrapped: an array read through a wrapper object gives exactly
// the columns and rows, or the error, it gives as a file of its own, and
// the wrapper's path.
func FuzzJSONWrapped(f *testing.F) {
	for _, s := range []string{`[{"a":1},{"b":[2]}]`, `[{"a":{"b":null}},{}]`, `[{"a":1},{"a":2},3]`, `[{"a":"\u00e9\n"}, {"a":1e5}]`, `[{"a":1} {"a":2}]`} {
		f.Add([]byte(s), "data")
	}
	f.Add([]byte(`[{"x":"y"}]`), "r\u00e9sultats")
	f.Fuzz(func(t *testing.T, array []byte, key string) {
		opt := Options{MemoryBudget: fuzzBudget}
		whole := readBytes(array, "f.json", opt)
		checkSentinel(t, "array", whole.err)
		k, _ := json.Marshal(key)
		data := append(append([]byte(`{"meta":{"n":[1,2]},`), k...), ':')
		data = append(append(data, array...), `,"tail":[{"t":1}]}`...)
		res := readBytes(data, "f.json", opt)
		checkSentinel(t, "wrapped", res.err)
		checkBatchesMatch(t, data, "f.json", opt, res)
		path, ok := RecordsPathOf(res.reader)
		switch {
		case whole.err != nil, len(whole.rows) < 2, !json.Valid(array):
			// An error, too few rows to be surely the records, or an array
			// the reader takes though it is cut ("[{},{},", as
			// encoding/json's Decoder did) but is no value to wrap.
			return
		case len(key) >= maxKeyBytes, !utf8.ValidString(key):
			return // a path that is cut, or a key json.Marshal changed
		case bytes.HasPrefix(array, utf8BOM), bytes.Count(array, []byte("[")) > maxScanDepth/2:
			return // a BOM inside the wrapper, or nesting the wrapper may take past the bound
		}
		if !ok || path != key || !reflect.DeepEqual(res.cols, whole.cols) || !reflect.DeepEqual(res.rows, whole.rows) {
			t.Fatalf("wrapped %q (%v): %q %q %v\nalone: %q %q", path, ok, res.cols, res.rows, res.err, whole.cols, whole.rows)
		}
	})
}

// readCounter counts what Read returns, as analysis does for progress.
type readCounter struct {
	*bytes.Reader
	read int
}

func (c *readCounter) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.read += n
	return n, err
}

// Only the passes over the records read through Read: the walk that finds
// them uses ReadAt, so that progress counted from Read is the rows'.
func TestJSONWrappedReadsOnlyTheRecordsThroughRead(t *testing.T) {
	array := `[{"a":1},{"a":2}]`
	data := `{"pad":"` + strings.Repeat("x", 1<<20) + `","items":` + array + `,"more":"` + strings.Repeat("y", 1<<20) + `"}`
	f := &readCounter{Reader: bytes.NewReader([]byte(data))}
	res := readAll(f, "a.json", Options{})
	if res.err != nil || !reflect.DeepEqual(res.rows, [][]string{{"1"}, {"2"}}) {
		t.Fatalf("%q, err %v", res.rows, res.err)
	}
	if f.read > 2*len(array) {
		t.Fatalf("%d bytes read through Read, more than two passes over the %d of the records", f.read, len(array))
	}
}
