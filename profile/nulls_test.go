package profile

import (
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dqs/dqs/columnar"
)

func TestNullTokensMatch(t *testing.T) {
	for v, want := range map[string]bool{
		"NULL": true, "null": true, "Null": true, " NULL ": true, "\tn/a\r\n": true, "N/A": true, "#N/A": true,
		"NA": true, "NaN": true, "-": true, "--": true, "—": true, "–": true, "?": true, "<NA>": true, "(null)": true,
		"": false, "   ": false, "none": false, "None": false, "0": false, "nul": false, "nulls": false, "n a": false,
		"---": false, "NULLNULL": false, "x-": false, strings.Repeat("null", 40): false, "ÑULL": false,
	} {
		if got := DefaultNulls.Match(v); got != want {
			t.Errorf("Match(%q) = %v; want %v", v, got, want)
		}
	}
	own := MustNullTokens([]string{" Missing ", "ÉTÉ", "0"})
	for v, want := range map[string]bool{"missing": true, "MISSING": true, "ÉTÉ": true, "éTé": false, "0": true, "NULL": false, "00": false} {
		if got := own.Match(v); got != want {
			t.Errorf("own Match(%q) = %v; want %v", v, got, want)
		}
	}
	var none *NullTokens
	if none.Match("NULL") || MustNullTokens(nil).Match("NULL") {
		t.Error("an empty set matches")
	}
}

func TestNewNullTokensRefuses(t *testing.T) {
	for name, tokens := range map[string][]string{
		"blank":     {"NULL", "  "},
		"empty":     {""},
		"too long":  {strings.Repeat("x", MaxNullTokenBytes+1)},
		"not UTF-8": {"\xff\xfe"},
		"too many":  strings.Split(strings.Repeat("t,", MaxNullTokens)+"t", ","),
	} {
		if _, err := NewNullTokens(tokens); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewNullTokens([]string{strings.Repeat("x", MaxNullTokenBytes)}); err != nil {
		t.Errorf("a token of the longest length: %v", err)
	}
}

// nullTokenCells is a column of values and null tokens, as a messy export
// writes it.
func nullTokenCells(n int) []string {
	tokens := []string{"NULL", " n/a", "-", "NA", "nan", "?", "none", "0"}
	out := make([]string, n)
	for i := range out {
		if i%3 == 0 {
			out[i] = tokens[i%len(tokens)]
		} else {
			out[i] = strconv.Itoa(i % 97)
		}
	}
	return out
}

// Null tokens are nulls in every lane: rows (Add), text batches with and
// without dictionary codes, and the result is that of real nulls.
func TestNullTokensInEveryLane(t *testing.T) {
	cells := nullTokenCells(3000)
	realNulls := New([]string{"v"}, Options{Seed: 1})
	byRow := New([]string{"v"}, Options{Seed: 1})
	for _, v := range cells {
		realNulls.Add([]string{v}, []bool{DefaultNulls.Match(v)})
		byRow.Add([]string{v}, []bool{false})
	}
	want := realNulls.Result()
	if got := want.Columns[0].Nulls; got != 750 { // every third cell; "none" and "0" are values
		t.Fatalf("nulls = %d, want 750", got)
	}
	if got := byRow.Result(); !reflect.DeepEqual(got, want) {
		t.Errorf("Add: %+v\nwant %+v", got.Columns[0], want.Columns[0])
	}
	for _, coded := range []bool{false, true} {
		p := New([]string{"v"}, Options{Seed: 1})
		dict, codes := columnar.NewDict(), map[string]int32{}
		for lo := 0; lo < len(cells); lo += 700 {
			c := &columnar.Column{}
			for _, v := range cells[lo:min(lo+700, len(cells))] {
				c.AppendString(v)
				if coded {
					if _, ok := codes[v]; !ok {
						codes[v] = int32(len(codes))
					}
					c.Codes, c.Dict = append(c.Codes, codes[v]), dict
				}
			}
			hashes := [][]uint64{make([]uint64, c.Len())}
			p.AddColumn(0, c, hashes[0])
			p.AddRows(c.Len(), hashes)
		}
		if got := p.Result(); !reflect.DeepEqual(got, want) {
			t.Errorf("AddColumn (codes %v): %+v\nwant %+v", coded, got.Columns[0], want.Columns[0])
		}
	}
}

// A double's NaN reads "NaN" as text: it is a null when "NaN" is a null
// token, in the typed lane as in the text one, and a value otherwise.
func TestNaNIsANullTokenInTheTypedLane(t *testing.T) {
	nan := int64(math.Float64bits(math.NaN()))
	for _, tokens := range []*NullTokens{nil, MustNullTokens([]string{"NULL"})} {
		var typed, text columnar.Column
		for i := range 500 {
			v := int64(math.Float64bits(float64(i) / 4))
			if i%5 == 0 {
				v = nan
			}
			typed.AppendNum(columnar.Float64, v)
			text.AppendString(string(columnar.Float64.Append(nil, columnar.CanonicalFloat(v))))
		}
		a := profileColumns([]*columnar.Column{&typed}, Options{NullTokens: tokens})
		b := profileColumns([]*columnar.Column{&text}, Options{NullTokens: tokens})
		ra, rb := a.Result().Columns[0], b.Result().Columns[0]
		wantNulls := int64(100)
		if tokens != nil {
			wantNulls = 0
		}
		if ra.Nulls != wantNulls || rb.Nulls != wantNulls {
			t.Errorf("tokens %v: nulls typed %d, text %d; want %d", tokens.Tokens(), ra.Nulls, rb.Nulls, wantNulls)
		}
		if ra.Count != rb.Count || ra.Distinct != rb.Distinct || ra.InferredType != rb.InferredType {
			t.Errorf("tokens %v: typed %s %d, text %s %d", tokens.Tokens(), ra.InferredType, ra.Distinct, rb.InferredType, rb.Distinct)
		}
		if *ra.Min != *rb.Min || *ra.Max != *rb.Max || (tokens == nil) != (ra.InferredType == TypeFloat) {
			t.Errorf("typed %s %s..%s, text %s %s..%s", ra.InferredType, *ra.Min, *ra.Max, rb.InferredType, *rb.Min, *rb.Max)
		}
	}
}

func BenchmarkNullTokensMatch(b *testing.B) {
	values := []string{"12345", "Stockholm", "anna@example.org", "NULL", "n/a", "2024-01-02", "nina", "-12.5", "", "North"}
	n := 0
	for i := 0; i < b.N; i++ {
		if DefaultNulls.Match(values[i%len(values)]) {
			n++
		}
	}
	_ = n
}

func BenchmarkMarkNulls(b *testing.B) {
	var c columnar.Column
	values := []string{"12345", "Stockholm", "anna@example.org", "NULL", "n/a", "2024-01-02", "nina", "-12.5", "North", "account and contact needed; a #4821 renewal requested"}
	for i := range 32 << 10 {
		c.AppendString(values[i%len(values)])
	}
	nulls := slices.Clone(c.Nulls)
	b.SetBytes(int64(c.Len()))
	for i := 0; i < b.N; i++ {
		copy(c.Nulls, nulls)
		DefaultNulls.markNulls(&c)
	}
}
