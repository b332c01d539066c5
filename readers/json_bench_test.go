package readers

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"testing"

	"github.com/dqs/dqs/columnar"
)

// jsonLinesBenchData returns about size bytes of JSON Lines shaped like
// the rows cmd/dqs-bench generates: 14 keys of strings and numbers.
func jsonLinesBenchData(size int) []byte {
	rng := rand.New(rand.NewSource(1))
	first := []string{"Elizabeth", "Haruto", "Thomas", "Rahul", "Ann", "José", "Zoë"}
	last := []string{"Jackson", "Thomas", "Pereira", "Williams", "Müller", "O'Brien"}
	cities := []string{"Austin", "Boston", "Marseille", "München", "Oslo"}
	words := []string{"account", "and", "contact", "needed;", "renewal", "requested", "order", "prefers", "the", `"quoted"`, "#4821"}
	var b bytes.Buffer
	for id := 1; b.Len() < size; id++ {
		notes := ""
		for n := 3 + rng.Intn(10); n > 0; n-- {
			notes += words[rng.Intn(len(words))] + " "
		}
		f, l := first[rng.Intn(len(first))], last[rng.Intn(len(last))]
		fmt.Fprintf(&b, `{"id":%d,"email":%q,"first_name":%q,"last_name":%q,"phone":"+1%010d","birth_date":"19%02d-%02d-%02d",`,
			id, fmt.Sprintf("%s.%s%d@example.com", f, l, rng.Intn(10000)), f, l, rng.Int63n(1e10), 40+rng.Intn(60), 1+rng.Intn(12), 1+rng.Intn(28))
		fmt.Fprintf(&b, `"country":"US","city":%q,"postal_code":"%05d","amount":%d.%02d,"created_at":"2021-04-06T14:27:04Z","status":"active","score":%.4f,"notes":%q}`+"\n",
			cities[rng.Intn(len(cities))], rng.Intn(100000), rng.Intn(50000), rng.Intn(100), rng.Float64()*100, notes)
	}
	return b.Bytes()
}

// BenchmarkJSONLines measures opening (pass 1: the columns) and reading
// every row into batches (pass 2) of about 50 MB of JSON Lines.
func BenchmarkJSONLines(b *testing.B) {
	data := jsonLinesBenchData(50 << 20)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		r, err := Open(bytes.NewReader(data), "bench.jsonl", Options{})
		if err != nil {
			b.Fatal(err)
		}
		batch := columnar.NewBatch(len(r.Columns()))
		rows := 0
		for {
			batch.Reset()
			err := FillBatch(r, batch)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows += batch.Rows
		}
		if rows == 0 || len(r.Columns()) != 14 {
			b.Fatalf("%d rows, columns %q", rows, r.Columns())
		}
	}
}
