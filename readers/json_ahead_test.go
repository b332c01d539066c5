package readers

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingFile counts the bytes pass 1 reads in sequence (Read), as opposed
// to the scout's ReadAt.
type countingFile struct {
	*bytes.Reader
	read int
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.Reader.Read(p)
	c.read += n
	return n, err
}

// openColumns opens data as JSON Lines with the scout on or off and returns
// the columns or the open error, and how many bytes were read in sequence.
func openColumns(t *testing.T, data []byte, scout bool) (cols string, err error, seqRead int) {
	t.Helper()
	saved := scoutMinBytes
	defer func() { scoutMinBytes = saved }()
	scoutMinBytes = 1 << 62
	if scout {
		scoutMinBytes = 0
	}
	f := &countingFile{Reader: bytes.NewReader(data)}
	r, err := Open(f, "data.jsonl", Options{})
	if err != nil {
		return "", err, f.read
	}
	return strings.Join(r.Columns(), ","), nil, f.read
}

// sameWithScout checks that the scout changes nothing about the open.
func sameWithScout(t *testing.T, name string, data []byte) (seqRead int) {
	t.Helper()
	want, wantErr, _ := openColumns(t, data, false)
	got, gotErr, n := openColumns(t, data, true)
	if got != want || fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%s: with the scout %q, %v; without %q, %v", name, got, gotErr, want, wantErr)
	}
	return n
}

func jsonlRows(rng *rand.Rand, n int, keys []string, pretty bool) []byte {
	var b bytes.Buffer
	for i := range n {
		b.WriteString("{")
		first := true
		for _, k := range keys {
			if rng.IntN(3) == 0 {
				continue
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			if pretty {
				b.WriteString("\n  ")
			}
			switch rng.IntN(4) {
			case 0:
				fmt.Fprintf(&b, "%q:null", k)
			case 1:
				fmt.Fprintf(&b, "%q:{\"in\":%d}", k, i)
			default:
				fmt.Fprintf(&b, "%q:%d", k, rng.IntN(1000))
			}
		}
		if pretty {
			b.WriteString("\n")
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// A compact file: the scout is used (pass 1 reads about half the file in
// sequence) and finds what the sequential pass finds, including keys seen
// only in one half and objects whose only values are null in one half.
func TestKeyScoutCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 20 {
		data := jsonlRows(rng, 200+trial, []string{"a", "b", "c"}, false)
		data = append(data, jsonlRows(rng, 150, []string{"c", "d", "a", "e"}, false)...)
		sameWithScout(t, fmt.Sprint("compact ", trial), data)
	}
	// Large enough (6 MB) for pass 1 to read it in several pieces.
	data := jsonlRows(rng, 150_000, []string{"a", "b", "c"}, false)
	data = append(data, jsonlRows(rng, 110_000, []string{"c", "d", "a", "e"}, false)...)
	if n := sameWithScout(t, "large", data); n > len(data)/2+2*jsonBuffer {
		t.Fatalf("pass 1 read %d of %d bytes in sequence: the scout was not used", n, len(data))
	}
}

// Pretty-printed objects, one after another: the middle newline usually
// lies inside an object, and the sequential pass must then go on alone.
func TestKeyScoutPretty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 40 {
		data := jsonlRows(rng, 100+trial, []string{"a", "b"}, true)
		data = append(data, jsonlRows(rng, 80, []string{"z", "a", "y"}, true)...)
		sameWithScout(t, fmt.Sprint("pretty ", trial), data)
	}
	// Nested objects that start on their own line, so that the scout starts
	// on a line that is itself a whole object.
	var b bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&b, "{\"k%d\":\n{\"inner\":%d}}\n", i%7, i)
	}
	sameWithScout(t, "nested", b.Bytes())
}

// Errors and problems in either half, and the column limit reached only by
// the union of the halves, come out exactly as without the scout.
func TestKeyScoutErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	half := func(keys ...string) []byte { return jsonlRows(rng, 200, keys, false) }
	cases := map[string][]byte{
		"bad row in second half":  append(append(half("a", "b"), half("c")...), []byte("{\"x\":\n")...),
		"bad row in first half":   append(append(half("a"), "{oops}\n"...), half("b")...),
		"array in second half":    append(append(half("a"), half("b")...), "[1,2]\n"...),
		"scalar row at the scout": append(append(half("a"), "\"text\"\n"...), half("b")...),
		"conflicting key":         append(half("a"), []byte(strings.Repeat("{\"a\":{\"x\":1},\"a.x\":2}\n", 200))...),
		"empty second half":       append(half("a"), bytes.Repeat([]byte("\n"), 20000)...),
		"bom at the scout":        append(append(half("a"), "\xef\xbb\xbf"...), half("b")...),
	}
	for name, data := range cases {
		sameWithScout(t, name, data)
	}
	// The column limit, passed only by both halves together.
	var b bytes.Buffer
	for i := range 6000 {
		fmt.Fprintf(&b, "{\"c%d\":1}\n", i)
	}
	saved := scoutMinBytes
	scoutMinBytes = 0
	defer func() { scoutMinBytes = saved }()
	f := bytes.NewReader(b.Bytes())
	_, err := Open(f, "data.jsonl", Options{MaxColumns: 5000})
	scoutMinBytes = 1 << 62
	_, err2 := Open(bytes.NewReader(b.Bytes()), "data.jsonl", Options{MaxColumns: 5000})
	if err == nil || fmt.Sprint(err) != fmt.Sprint(err2) {
		t.Fatalf("column limit: with the scout %v; without %v", err, err2)
	}
}

// The scout never outlives the open: an open that fails on the first row
// returns only once the scout has stopped reading, even from slow storage.
func TestKeyScoutStopsWithTheOpen(t *testing.T) {
	saved := scoutMinBytes
	scoutMinBytes = 0
	defer func() { scoutMinBytes = saved }()
	rng := rand.New(rand.NewPCG(7, 8))
	data := append([]byte("{oops}\n"), jsonlRows(rng, 100_000, []string{"a", "b"}, false)...)
	f := &slowFile{Reader: bytes.NewReader(data)}
	if _, err := Open(f, "data.jsonl", Options{}); err == nil {
		t.Fatal("a bad first row was accepted")
	}
	if n := f.reading.Load(); n != 0 {
		t.Fatalf("%d reads still under way after the open returned", n)
	}
}

// slowFile takes a while over every ReadAt and counts those under way.
type slowFile struct {
	*bytes.Reader
	reading atomic.Int32
}

func (f *slowFile) ReadAt(p []byte, off int64) (int, error) {
	f.reading.Add(1)
	defer f.reading.Add(-1)
	time.Sleep(20 * time.Millisecond)
	return f.Reader.ReadAt(p, off)
}
