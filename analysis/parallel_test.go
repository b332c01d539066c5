package analysis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
)

// wideCSV has several batches of rows and columns past every exact bound
// (unique ids and e-mails, 20,000 distinct codes) next to low-cardinality
// ones, nulls and blanks.
func wideCSV(rows int) []byte {
	var b bytes.Buffer
	b.WriteString("id,email,code,country,amount,note\n")
	for i := range rows {
		note := ""
		if i%7 != 0 {
			note = fmt.Sprintf("note %d", i%97)
		}
		fmt.Fprintf(&b, "%d,user%d@example.org,C%05d,%s,%d.%02d,%s\n",
			i, i*7919%rows, i*31%20_000, []string{"SE", "FI", "NO", "DK"}[i%4], i%5000, i%100, note)
	}
	return b.Bytes()
}

func profileWith(t *testing.T, data []byte, workers int) *profile.Profile {
	t.Helper()
	r, err := readers.Open(bytes.NewReader(data), "t.csv", readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := bytes.NewReader(data)
	p, err := profileParallel(context.Background(), r, profile.Options{}, workers, func() int64 { return f.Size() }, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.Result()
}

func TestParallelResultDoesNotDependOnWorkers(t *testing.T) {
	data := wideCSV(150_000) // about 5 batches
	one := profileWith(t, data, 1)
	if one.RowCount != 150_000 || one.Columns[0].DistinctExact || !one.Columns[3].DistinctExact {
		t.Fatalf("the data does not cross the bounds as planned: %+v", one.Columns[0])
	}
	for _, workers := range []int{2, 3, 8} {
		if got := profileWith(t, data, workers); !reflect.DeepEqual(one, got) {
			t.Errorf("%d workers: the profile differs from one worker's", workers)
		}
	}
}

func TestParallelEqualsOnePassRowByRow(t *testing.T) {
	data := wideCSV(150_000)
	r, err := readers.Open(bytes.NewReader(data), "t.csv", readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	single := profile.New(r.Columns(), profile.Options{})
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		single.Add(rec.Values, rec.Null)
	}
	if got := profileWith(t, data, 2); !reflect.DeepEqual(single.Result(), got) {
		t.Error("the batched, column-parallel profile differs from a single pass row by row")
	}
}

func TestParallelStopsAtTheFirstBadRow(t *testing.T) {
	data := append(wideCSV(100_000), "1,\"unterminated\n"...)
	r, err := readers.Open(bytes.NewReader(data), "t.csv", readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = profileParallel(context.Background(), r, profile.Options{}, 2, func() int64 { return 0 }, nil)
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "line") {
		t.Fatalf("err = %v, want a bad input error naming the line", err)
	}
}

func TestParallelStopsWhenProgressFails(t *testing.T) {
	data := wideCSV(150_000)
	r, err := readers.Open(bytes.NewReader(data), "t.csv", readers.Options{})
	if err != nil {
		t.Fatal(err)
	}
	stop := errors.New("stop")
	calls := 0
	_, err = profileParallel(context.Background(), r, profile.Options{}, 2, func() int64 { return 0 }, func(int64, int64) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err = %v after %d progress calls, want stop after 1", err, calls)
	}
}
