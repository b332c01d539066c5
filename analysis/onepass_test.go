package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
)

// growingJSONL has rows over several batches whose keys show up late: one
// in the second batch, two more in the last, a key null until it holds an
// object (dropped from the columns), personal data to classify and now and
// then a row just like the one before.
func growingJSONL(rows int) []byte {
	var b bytes.Buffer
	for n := range rows {
		i := n
		if i%997 == 0 && i > 0 {
			i-- // a duplicate row
		}
		fmt.Fprintf(&b, `{"id":%d,"email":"user%d@example.org","country":"%s"`, i, i*7919%rows, []string{"SE", "FI", "NO"}[i%3])
		if i >= 40_000 && i%3 != 0 {
			fmt.Fprintf(&b, `,"amount":%d.%02d`, i%5000, i%100)
		}
		if i%1000 == 0 {
			b.WriteString(`,"meta":null`)
		}
		if i >= rows-10_000 {
			fmt.Fprintf(&b, `,"meta":{"source":"s%d"},"phone":"+46 70 %03d %02d %02d"`, i%4, i%1000, i%100, i%97)
		}
		if i%50 == 0 {
			b.WriteString(`,"id":"dup"`) // a repeated key: the last value counts
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// analyseJSONL analyses data, a JSON Lines file, read as opt says.
func analyseJSONL(t *testing.T, data []byte, opt readers.Options) *Result {
	t.Helper()
	res, err := run(context.Background(), bytes.NewReader(data), "t.jsonl", int64(len(data)), Dialect{}, Limits{}, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestOnePassEqualsTwoPasses(t *testing.T) {
	data := growingJSONL(120_000)
	want := analyseJSONL(t, data, readers.Options{})
	var names []string
	for _, c := range want.Columns {
		names = append(names, c.Name)
	}
	if !reflect.DeepEqual(names, []string{"id", "email", "country", "amount", "meta.source", "phone"}) || want.DuplicateRows == 0 {
		t.Fatalf("two passes: columns %q, %d duplicate rows; the data is not as planned", names, want.DuplicateRows)
	}
	if got := analyseJSONL(t, data, readers.Options{OnePass: true}); !reflect.DeepEqual(want, got) {
		t.Errorf("one pass differs from two:\n got %+v\nwant %+v", got, want)
	}
}

// The columns grow while batches are in flight, for any number of workers.
func TestGrowingColumnsAnyWorkers(t *testing.T) {
	data := growingJSONL(120_000)
	var want any
	for _, workers := range []int{1, 2, 3} {
		r, err := readers.Open(bytes.NewReader(data), "t.jsonl", readers.Options{OnePass: true})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(r.Columns()); n != 4 {
			t.Fatalf("%d columns at Open, want 4 (the file's first rows)", n)
		}
		p, err := profileParallel(context.Background(), r, profile.Options{}, workers, func() int64 { return 0 }, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := p.Result()
		if len(got.Columns) != 7 || got.RowCount != 120_000 {
			t.Fatalf("%d workers: %d columns, %d rows; want 7 and 120000", workers, len(got.Columns), got.RowCount)
		}
		if want == nil {
			want = got
		} else if !reflect.DeepEqual(want, got) {
			t.Errorf("%d workers: the profile differs from one worker's", workers)
		}
	}
}

// A run stopped as its columns grow stops and does not hang, whether the
// stop comes before the wait to add columns or during it (which one is up
// to the scheduler).
func TestGrowingColumnsStop(t *testing.T) {
	data := growingJSONL(120_000)
	r, err := readers.Open(bytes.NewReader(data), "t.jsonl", readers.Options{OnePass: true})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	_, err = profileParallel(context.Background(), r, profile.Options{}, 2, func() int64 { return 0 }, func(int64, int64) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want stop", err)
	}
}

// A file whose first rows have no keys at all starts with no columns.
func TestOnePassFromNoColumns(t *testing.T) {
	var b bytes.Buffer
	for i := range 60_000 {
		if i < 40_000 {
			b.WriteString("{}\n")
		} else {
			fmt.Fprintf(&b, "{\"n\":%d,\"s\":\"v%d\"}\n", i%10, i%7)
		}
	}
	data := b.Bytes()
	want := analyseJSONL(t, data, readers.Options{})
	if len(want.Columns) != 2 || want.Columns[0].Nulls != 40_000 {
		t.Fatalf("two passes: %d columns; the data is not as planned", len(want.Columns))
	}
	if got := analyseJSONL(t, data, readers.Options{OnePass: true}); !reflect.DeepEqual(want, got) {
		t.Errorf("one pass differs from two:\n got %+v\nwant %+v", got, want)
	}
}

// A row that brings too many columns at once into a batch holding rows
// sends the analysis back to two passes: same result, progress never back.
func TestOnePassTooWideStartsOver(t *testing.T) {
	var b bytes.Buffer
	for i := range 40_000 {
		fmt.Fprintf(&b, "{\"a\":%d}\n", i%100)
	}
	b.WriteString("{")
	for k := range 300 {
		fmt.Fprintf(&b, "\"k%d\":%d,", k, k)
	}
	b.WriteString("\"a\":1}\n")
	data := b.Bytes()

	r, err := readers.Open(bytes.NewReader(data), "t.jsonl", readers.Options{OnePass: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := profileParallel(context.Background(), r, profile.Options{}, 2, func() int64 { return 0 }, nil); !errors.Is(err, readers.ErrTooWideToGrow) {
		t.Fatalf("one pass alone: err = %v, want ErrTooWideToGrow", err)
	}

	want := analyseJSONL(t, data, readers.Options{})
	var seen []float64
	got, err := Run(context.Background(), bytes.NewReader(data), "t.jsonl", int64(len(data)), Dialect{}, Limits{}, func(_ string, f float64) { seen = append(seen, f) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Columns) != 301 || !reflect.DeepEqual(want, got) {
		t.Errorf("started over: %d columns, equal to two passes: %v", len(got.Columns), reflect.DeepEqual(want, got))
	}
	for i := 1; i < len(seen); i++ {
		if seen[i] < seen[i-1] {
			t.Fatalf("progress went back: %v", seen)
		}
	}
}
