package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/columnar"
)

// withOnePassHead makes the one-pass reader's first pass read only n bytes.
func withOnePassHead(t *testing.T, n int64) {
	old := onePassHead
	onePassHead = n
	t.Cleanup(func() { onePassHead = old })
}

// readOnePass reads f opened with OnePass, through NextBatch or Next, and
// gives the rows in terms of the columns Kept reports (or, after an error,
// of the columns want lists), so that it compares with a two-pass read.
func readOnePass(f File, name string, opt Options, batches bool, want []string) readResult {
	opt.OnePass = true
	r, err := Open(f, name, opt)
	if err != nil {
		return readResult{err: err, openEr: true}
	}
	defer r.Close()
	g, ok := r.(GrowingReader)
	if !ok {
		return readResult{err: fmt.Errorf("a one-pass %T is not a GrowingReader", r)}
	}
	res := readResult{format: r.Format()}
	var rows [][]string // by the reader's columns at the time
	b := columnar.NewBatch(len(r.Columns()))
	for {
		var err error
		if batches {
			b.Reset()
			err = FillBatch(r, b)
			if len(b.Cols) != len(r.Columns()) {
				return readResult{err: fmt.Errorf("a batch has %d columns, the reader %d", len(b.Cols), len(r.Columns()))}
			}
			for i := 0; i < b.Rows; i++ {
				row := make([]string, len(b.Cols))
				for c := range row {
					v, null := b.Cols[c].Cell(i)
					if null {
						v = nullMark
					}
					row[c] = strings.Clone(v)
				}
				rows = append(rows, row)
			}
			if err == io.EOF && b.Rows > 0 {
				err = nil
			}
		} else {
			var rec *Record
			if rec, err = r.Next(); err == nil {
				if len(rec.Values) != len(r.Columns()) {
					return readResult{err: fmt.Errorf("a record has %d values, the reader %d columns", len(rec.Values), len(r.Columns()))}
				}
				rows = append(rows, recordRow(rec))
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			res.err = err
			break
		}
	}
	all := r.Columns()
	if res.err == nil {
		want = nil
		for i, keep := range g.Kept() {
			if keep {
				want = append(want, all[i])
			}
		}
	}
	res.cols = want
	place := map[string]int{}
	for i, c := range all {
		place[c] = i
	}
	for _, row := range rows {
		out := make([]string, len(want))
		for j, c := range want {
			out[j] = nullMark // columns found after the row: null in it
			if i, ok := place[c]; ok && i < len(row) {
				out[j] = row[i]
			}
		}
		res.rows = append(res.rows, out)
	}
	return res
}

// randomJSONRows writes n rows whose keys show up at random places in the
// file: nested objects, keys only ever null, keys null until they hold an
// object (or a value), repeated keys, arrays and the odd bad row.
func randomJSONRows(rng *rand.Rand, n int, lines bool, bad bool) []byte {
	var buf bytes.Buffer
	first := make(map[string]int) // key: the row it starts at
	for _, k := range []string{"id", "name", "user", "p", "q", "tags", "note", "k", "z1", "z2", "z3", "z4"} {
		first[k] = rng.IntN(n)
	}
	first["id"] = 0
	badRow := -1
	if bad {
		badRow = 1 + rng.IntN(n-1)
	}
	if !lines {
		buf.WriteString("[\n")
	}
	for r := range n {
		var m []string
		has := func(k string) bool { return r >= first[k] && rng.IntN(4) > 0 }
		m = append(m, fmt.Sprintf(`"id":%d`, r))
		if has("name") {
			m = append(m, fmt.Sprintf(`"name":"n%d é\u00e9 \"q\""`, rng.IntN(50)))
		}
		if has("user") {
			m = append(m, fmt.Sprintf(`"user":{"age":%d,"city":%s}`, rng.IntN(90), []string{`"Paris"`, "null", `{"zip":"75001"}`}[rng.IntN(3)]))
		}
		if has("p") { // null-only until it holds an object: dropped while it never holds a value
			if r > first["p"]+n/3 {
				m = append(m, `"p":{"x":1}`)
			} else {
				m = append(m, `"p":null`)
			}
		}
		if has("q") { // null, then numbers and now and then an object
			if r > first["q"]+n/2 && rng.IntN(5) == 0 {
				m = append(m, `"q":{"y":true}`)
			} else if r > first["q"]+n/2 {
				m = append(m, fmt.Sprintf(`"q":%d`, r))
			} else {
				m = append(m, `"q":null`)
			}
		}
		if has("tags") {
			m = append(m, `"tags":["a",1,{"b":null}]`)
		}
		if has("note") {
			m = append(m, `"note":null`) // only ever null, no children: kept
		}
		if has("k") {
			m = append(m, `"k":1`, `"k":"again"`)
		}
		for _, z := range []string{"z1", "z2", "z3", "z4"} {
			if has(z) {
				m = append(m, fmt.Sprintf(`"%s":%v`, z, rng.Float64()))
			}
		}
		rng.Shuffle(len(m)-1, func(i, j int) { m[i+1], m[j+1] = m[j+1], m[i+1] })
		row := "{" + strings.Join(m, ",") + "}"
		if r == badRow {
			row = row[:len(row)-1] + `,"broken":}`
		}
		if !lines && r > 0 {
			buf.WriteString(",\n")
		}
		buf.WriteString(row)
		if lines {
			buf.WriteString("\n")
		}
	}
	if !lines {
		buf.WriteString("\n]\n")
	}
	return buf.Bytes()
}

// One pass gives exactly the columns, rows and errors of two passes.
func TestJSONOnePassEqualsTwoPasses(t *testing.T) {
	withOnePassHead(t, 300)
	rng := rand.New(rand.NewPCG(11, 12))
	grown := 0
	for trial := range 60 {
		lines, bad := trial%2 == 0, trial%5 == 4
		name := "f.json"
		if lines {
			name = "f.jsonl"
		}
		data := randomJSONRows(rng, 20+rng.IntN(300), lines, bad)
		want := readBatches(bytes.NewReader(data), name, Options{})
		if bad && want.err == nil {
			t.Fatalf("trial %d: the bad row was read without an error", trial)
		}
		for _, batches := range []bool{true, false} {
			for _, chunk := range []int{0, 5} {
				var f File = bytes.NewReader(data)
				if chunk > 0 {
					f = &chunkedFile{bytes.NewReader(data), chunk}
				}
				got := readOnePass(f, name, Options{}, batches, want.cols)
				if !sameResult(got, want) {
					t.Fatalf("trial %d (batches %v, chunks %d): one pass\n got %s\nwant %s", trial, batches, chunk, describeResult(got), describeResult(want))
				}
			}
		}
		if r, err := Open(bytes.NewReader(data), name, Options{OnePass: true}); err == nil {
			if len(r.Columns()) < len(want.cols) {
				grown++
			}
		}
	}
	if grown < 20 {
		t.Fatalf("columns grew after Open in only %d trials: the test hardly tests growth", grown)
	}
}

// Too many keys fail at the row that brings one too many: from Open when it
// is in the first rows, from reading otherwise.
func TestJSONOnePassTooManyKeys(t *testing.T) {
	withOnePassHead(t, 100)
	var rows []string
	for i := range 50 {
		rows = append(rows, fmt.Sprintf(`{"id":%d,"k%d":1}`, i, i))
	}
	data := []byte(strings.Join(rows, "\n"))
	opt := Options{MaxColumns: 30}
	want := readAll(bytes.NewReader(data), "f.jsonl", opt)
	if !errors.Is(want.err, ErrUnsupported) || !want.openEr {
		t.Fatalf("two passes: %v (from Open: %v), want ErrUnsupported from Open", want.err, want.openEr)
	}
	got := readOnePass(bytes.NewReader(data), "f.jsonl", opt, true, nil)
	if !errors.Is(got.err, ErrUnsupported) || got.openEr || got.err.Error() != want.err.Error() {
		t.Fatalf("one pass: %v (from Open: %v), want %q from reading", got.err, got.openEr, want.err)
	}
	if len(got.rows) != 29 { // rows 0..28 bring 30 keys with id; row 29 the 31st
		t.Errorf("one pass read %d rows before the error, want 29", len(got.rows))
	}
}

// Without OnePass a JSON reader is not a GrowingReader, nor is any other.
func TestOnlyOnePassJSONGrows(t *testing.T) {
	for name, data := range map[string]string{"f.jsonl": "{\"a\":1}\n", "f.csv": "a\n1\n"} {
		for _, one := range []bool{false, true} {
			r, err := Open(bytes.NewReader([]byte(data)), name, Options{OnePass: one})
			if err != nil {
				t.Fatal(err)
			}
			_, grows := r.(GrowingReader)
			if want := one && name == "f.jsonl"; grows != want {
				t.Errorf("%s, OnePass %v: GrowingReader %v, want %v", name, one, grows, want)
			}
			if !reflect.DeepEqual(r.Columns(), []string{"a"}) {
				t.Errorf("%s: columns %q", name, r.Columns())
			}
		}
	}
}
