package suggest

import (
	"bytes"
	"context"
	"testing"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// FuzzSuggest: whatever the bytes of a CSV file, an analysis that succeeds
// is followed by suggestions without a panic, each of which validates.
func FuzzSuggest(f *testing.F) {
	for _, s := range []string{
		"id,city\n1,Paris\n2,PARIS\n3,paris \n4,Paris\n5,Paris\n6,Paris\n1,Paris\n",
		"d,n\n2024-01-02,\"1,5\"\n03/04/2024,2.5\n13/04/2024,\n2024-01-02,3\nJan 2, 2024,4\n",
		"email,phone\nA@B.COM,+46 70 123 45 67\na@b.com,070-123 45 67\n,\n",
		"zip,city\n1,a\n1,a\n1,a\n1,a\n1,a\n1,b\n2,c\n2,c\n2,c\n2,c\n2,c\n",
		"a;b\n\"x\"\"y\";\x1f\n\xff\xfe;1\n",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx := context.Background()
		res, err := analysis.Run(ctx, bytes.NewReader(data), "fuzz.csv", int64(len(data)), analysis.Dialect{}, analysis.Limits{}, nil)
		if err != nil {
			return
		}
		open := func() (records.Reader, error) {
			return readers.Open(bytes.NewReader(data), "fuzz.csv", readers.Options{})
		}
		ss, err := Suggest(ctx, res, open, Options{})
		if err != nil {
			return
		}
		cols := make([]string, len(res.Columns))
		for i, c := range res.Columns {
			cols[i] = c.Name
		}
		for _, s := range ss {
			checkSuggestion(t, s, cols)
		}
	})
}
