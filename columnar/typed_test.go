package columnar

import (
	"fmt"
	"math"
	"math/rand"
	"strconv"
	"testing"
	"time"
)

// typedKinds are the kinds other than Text.
var typedKinds = []Kind{Int, Date, TimestampS, TimestampMS, TimestampUS, TimestampNS}

// refText is the text of value v of kind k, through the standard library:
// what Kind.Append must write.
func refText(k Kind, v int64) string {
	switch k {
	case Int:
		return strconv.FormatInt(v, 10)
	case Date:
		return time.Unix(v*86400, 0).UTC().Format("2006-01-02")
	}
	per := k.PerSecond()
	sec, frac := v/per, v%per
	if frac < 0 {
		sec, frac = sec-1, frac+per
	}
	return time.Unix(sec, frac*(1e9/per)).UTC().Format(time.RFC3339Nano)
}

// cell is a cell's expected text and null flag.
type cell struct {
	v    string
	null bool
}

// checkCells fails the test unless c holds exactly want, cell by cell, and
// keeps the typed column's invariant when c is typed.
func checkCells(t *testing.T, what string, c *Column, want []cell) {
	t.Helper()
	if c.Len() != len(want) || len(c.Nulls) != len(want) {
		t.Fatalf("%s: %d cells (%d nulls flags), want %d", what, c.Len(), len(c.Nulls), len(want))
	}
	if c.Kind != Text {
		if len(c.Nums) != len(c.Ends) || len(c.Text) != 0 {
			t.Fatalf("%s: typed column with %d values for %d cells and %d bytes of text", what, len(c.Nums), len(c.Ends), len(c.Text))
		}
		for r, e := range c.Ends {
			if e != 0 {
				t.Fatalf("%s: typed column, cell %d ends at %d", what, r, e)
			}
		}
	}
	for r, w := range want {
		if v, null := c.Cell(r); v != w.v || null != w.null {
			t.Errorf("%s: cell %d = %q, %v; want %q, %v", what, r, v, null, w.v, w.null)
		}
		if c.Kind == Text {
			if v, null := c.TextCell(r); v != w.v || null != w.null {
				t.Errorf("%s: TextCell %d = %q, %v; want %q, %v", what, r, v, null, w.v, w.null)
			}
		}
	}
}

func TestAppendNumEmpty(t *testing.T) {
	for _, k := range typedKinds {
		var c Column
		if !c.CanType(k) {
			t.Fatalf("%d: an empty column cannot take values", k)
		}
		c.AppendNum(k, 1_700_000_000)
		c.AppendNull()
		c.AppendNum(k, -3)
		if c.Kind != k {
			t.Fatalf("kind %d after AppendNum(%d)", c.Kind, k)
		}
		if len(c.Nums) != 3 || c.Nums[0] != 1_700_000_000 || c.Nums[2] != -3 {
			t.Fatalf("kind %d: values %v", k, c.Nums)
		}
		checkCells(t, fmt.Sprint("kind ", k), &c, []cell{{refText(k, 1_700_000_000), false}, {"", true}, {refText(k, -3), false}})
		for _, other := range typedKinds {
			if got := c.CanType(other); got != (other == k) {
				t.Errorf("column of kind %d: CanType(%d) = %v", k, other, got)
			}
		}
	}
	// A few texts pinned by hand, not through the reference.
	pinned := []struct {
		k    Kind
		v    int64
		want string
	}{
		{Int, -42, "-42"},
		{Date, 0, "1970-01-01"},
		{Date, -1, "1969-12-31"},
		{Date, 19_000, "2022-01-08"},
		{TimestampS, 0, "1970-01-01T00:00:00Z"},
		{TimestampS, -1, "1969-12-31T23:59:59Z"},
		{TimestampMS, 1_500_000_000_120, "2017-07-14T02:40:00.12Z"},
		{TimestampMS, -1, "1969-12-31T23:59:59.999Z"},
		{TimestampUS, 1, "1970-01-01T00:00:00.000001Z"},
		{TimestampNS, 1_500_000_000_123_456_789, "2017-07-14T02:40:00.123456789Z"},
		{TimestampNS, -1, "1969-12-31T23:59:59.999999999Z"},
	}
	for _, p := range pinned {
		var c Column
		c.AppendNum(p.k, p.v)
		if v, null := c.Cell(0); v != p.want || null {
			t.Errorf("kind %d value %d: %q, %v; want %q", p.k, p.v, v, null, p.want)
		}
	}
}

func TestAppendNumAfterNulls(t *testing.T) {
	for _, k := range typedKinds {
		var c Column
		c.AppendNull()
		c.AppendNull()
		if !c.CanType(k) || c.Kind != Text {
			t.Fatalf("a column of nulls: CanType(%d) %v, kind %d", k, c.CanType(k), c.Kind)
		}
		c.AppendNum(k, 86_400)
		c.AppendNull()
		if c.Kind != k {
			t.Fatalf("kind %d after AppendNum(%d) on nulls", c.Kind, k)
		}
		if len(c.Nums) != 4 || c.Nums[0] != 0 || c.Nums[1] != 0 || c.Nums[2] != 86_400 || c.Nums[3] != 0 {
			t.Fatalf("kind %d: values %v, want [0 0 86400 0]", k, c.Nums)
		}
		checkCells(t, fmt.Sprint("kind ", k), &c, []cell{{"", true}, {"", true}, {refText(k, 86_400), false}, {"", true}})
	}

	// SetKind on nulls whose Nums held stale values from an earlier use:
	// they are zero-filled.
	var c Column
	c.AppendNum(Int, 7)
	c.AppendNum(Int, 8)
	c.reset()
	c.AppendNull()
	c.AppendNull()
	c.SetKind(TimestampMS)
	if c.Kind != TimestampMS || len(c.Nums) != 2 || c.Nums[0] != 0 || c.Nums[1] != 0 {
		t.Fatalf("SetKind on two nulls: kind %d, values %v", c.Kind, c.Nums)
	}

	// A column holding a text cell, even an empty one, cannot be typed.
	var e Column
	e.AppendNull()
	e.AppendString("")
	if e.CanType(Int) {
		t.Error("CanType on a column with an empty text cell")
	}
	e.AppendNum(Int, 5)
	if e.Kind != Text {
		t.Errorf("kind %d after AppendNum on a text column", e.Kind)
	}
	checkCells(t, "text column", &e, []cell{{"", true}, {"", false}, {"5", false}})
	var s Column
	s.AppendString("x")
	if s.CanType(Date) {
		t.Error("CanType on a column with text")
	}
	s.AppendNum(Date, 1)
	s.AppendNull()
	s.AppendNum(TimestampS, 1)
	checkCells(t, "text column", &s, []cell{{"x", false}, {"1970-01-02", false}, {"", true}, {"1970-01-01T00:00:01Z", false}})
}

func TestAppendNumMixedKinds(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, a := range typedKinds {
		for _, b := range typedKinds {
			if a == b {
				continue
			}
			var c Column
			var want []cell
			for range 5 {
				if rng.Intn(3) == 0 {
					c.AppendNull()
					want = append(want, cell{"", true})
					continue
				}
				v := rng.Int63n(4e12) - 2e12
				c.AppendNum(a, v)
				want = append(want, cell{refText(a, v), false})
			}
			c.AppendNum(a, 0) // at least one value of a
			want = append(want, cell{refText(a, 0), false})
			if c.Kind != a {
				t.Fatalf("kind %d, want %d", c.Kind, a)
			}
			v := rng.Int63n(4e12) - 2e12
			c.AppendNum(b, v)
			want = append(want, cell{refText(b, v), false})
			if c.Kind != Text || len(c.Nums) != 0 {
				t.Fatalf("kind %d then %d: kind %d, %d values; want text", a, b, c.Kind, len(c.Nums))
			}
			c.AppendNull()
			c.AppendNum(a, 12)
			want = append(want, cell{"", true}, cell{refText(a, 12), false})
			checkCells(t, fmt.Sprintf("kind %d then %d", a, b), &c, want)
		}
	}
}

// typedColumn makes a column of kind k with nulls and values, and the
// cells it should hold.
func typedColumn(rng *rand.Rand, k Kind, n int) (*Column, []cell) {
	c := new(Column)
	var want []cell
	for range n {
		if rng.Intn(4) == 0 {
			c.AppendNull()
			want = append(want, cell{"", true})
			continue
		}
		v := rng.Int63n(1e13) - 5e12
		if k == Date {
			v = rng.Int63n(4_000_000) - 1_000_000
		}
		c.AppendNum(k, v)
		want = append(want, cell{refText(k, v), false})
	}
	return c, want
}

func TestTypedToText(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	appenders := []struct {
		name string
		add  func(c *Column, v string)
	}{
		{"Append", func(c *Column, v string) { c.Append([]byte(v)) }},
		{"AppendString", func(c *Column, v string) { c.AppendString(v) }},
		{"EndCell", func(c *Column, v string) {
			c.Text = append(c.Text, v...)
			c.EndCell()
		}},
	}
	for _, a := range appenders {
		for _, k := range typedKinds {
			for _, text := range []string{"extra", ""} {
				what := fmt.Sprintf("%s %q onto kind %d", a.name, text, k)
				// A null first: its end must stay 0.
				var c Column
				c.AppendNull()
				want := []cell{{"", true}}
				more, moreWant := typedColumn(rng, k, 20)
				for r := range more.Len() {
					if more.Nulls[r] {
						c.AppendNull()
					} else {
						c.AppendNum(k, more.Nums[r])
					}
				}
				want = append(want, moreWant...)
				if c.Kind != k {
					t.Fatalf("%s: kind %d before", what, c.Kind)
				}
				func() {
					defer func() {
						if recover() == nil {
							t.Fatalf("%s: no panic on a typed column", what)
						}
					}()
					a.add(&c, text)
				}()
				if c.Kind != k || c.Len() != len(want) {
					t.Fatalf("%s: the column changed on a refused append", what)
				}
				c.ToText()
				a.add(&c, text)
				want = append(want, cell{text, false})
				if c.Kind != Text || len(c.Nums) != 0 {
					t.Fatalf("%s: kind %d, %d values after; want text", what, c.Kind, len(c.Nums))
				}
				checkCells(t, what, &c, want)
				// The ends are those of the texts, back to back.
				end := int32(0)
				for r, w := range want {
					end += int32(len(w.v))
					if c.Ends[r] != end {
						t.Fatalf("%s: cell %d ends at %d, want %d", what, r, c.Ends[r], end)
					}
				}
				// It goes on as a text column.
				c.AppendNull()
				c.AppendString("more")
				c.AppendNum(k, 42)
				want = append(want, cell{"", true}, cell{"more", false}, cell{refText(k, 42), false})
				checkCells(t, what+", then more", &c, want)
			}
		}
	}
}

// A typed column of nulls only becomes text with no text.
func TestTypedNullsToText(t *testing.T) {
	var c Column
	c.SetKind(Int)
	c.AppendNull()
	c.AppendNull()
	if c.Kind != Int || len(c.Nums) != 2 {
		t.Fatalf("kind %d, %d values", c.Kind, len(c.Nums))
	}
	c.ToText()
	c.Text = append(c.Text, "ab"...)
	c.EndCell()
	checkCells(t, "nulls then EndCell", &c, []cell{{"", true}, {"", true}, {"ab", false}})
	if c.Ends[0] != 0 || c.Ends[1] != 0 || c.Ends[2] != 2 {
		t.Fatalf("ends %v", c.Ends)
	}
}

func TestTypedTruncateAndReset(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, k := range typedKinds {
		c, want := typedColumn(rng, k, 30)
		c.Truncate(17)
		if c.Kind != k || len(c.Nums) != 17 {
			t.Fatalf("kind %d: after Truncate(17), kind %d, %d values", k, c.Kind, len(c.Nums))
		}
		checkCells(t, "truncated", c, want[:17])
		// Appending after a truncation overwrites the dropped values.
		c.AppendNum(k, 99)
		c.AppendNull()
		want = append(want[:17], cell{refText(k, 99), false}, cell{"", true})
		checkCells(t, "truncated then appended", c, want)
		if c.Nums[17] != 99 {
			t.Fatalf("value 17 is %d, want 99", c.Nums[17])
		}
		// Truncating to nothing keeps the kind, and the column takes values
		// of its kind.
		c.Truncate(0)
		if c.Len() != 0 || len(c.Nums) != 0 || c.Kind != k {
			t.Fatalf("Truncate(0): %d cells, %d values, kind %d", c.Len(), len(c.Nums), c.Kind)
		}
		c.AppendNum(k, 5)
		checkCells(t, "truncated to nothing then appended", c, []cell{{refText(k, 5), false}})
		// Then a text cell after a truncation.
		c.ToText()
		c.AppendString("t")
		checkCells(t, "then text", c, []cell{{refText(k, 5), false}, {"t", false}})
	}

	b := NewBatch(3)
	for r := range 10 {
		b.Cols[0].AppendNum(TimestampUS, int64(r)*1_000_001)
		b.Cols[1].AppendString(strconv.Itoa(r))
		if r%2 == 0 {
			b.Cols[2].AppendNull()
		} else {
			b.Cols[2].AppendNum(Date, int64(r))
		}
		b.Rows++
	}
	if b.Cols[0].Kind != TimestampUS || b.Cols[1].Kind != Text || b.Cols[2].Kind != Date {
		t.Fatalf("kinds %d %d %d", b.Cols[0].Kind, b.Cols[1].Kind, b.Cols[2].Kind)
	}
	if b.Full() {
		t.Fatal("a batch of 10 rows is full")
	}
	b.Reset()
	for i := range b.Cols {
		c := &b.Cols[i]
		if c.Kind != Text || c.Len() != 0 || len(c.Nums) != 0 || len(c.Text) != 0 {
			t.Fatalf("column %d after Reset: kind %d, %d cells, %d values, %d bytes", i, c.Kind, c.Len(), len(c.Nums), len(c.Text))
		}
	}
	// After the reset, a once-typed column takes text, and another kind.
	b.Cols[0].AppendString("plain")
	b.Cols[1].AppendNum(Int, -7)
	b.Cols[2].AppendNull()
	b.Cols[2].AppendNum(TimestampS, 60)
	checkCells(t, "column 0 after Reset", &b.Cols[0], []cell{{"plain", false}})
	checkCells(t, "column 1 after Reset", &b.Cols[1], []cell{{"-7", false}})
	checkCells(t, "column 2 after Reset", &b.Cols[2], []cell{{"", true}, {"1970-01-01T00:01:00Z", false}})
	if b.Cols[1].Kind != Int || b.Cols[2].Kind != TimestampS {
		t.Fatalf("kinds after Reset %d %d", b.Cols[1].Kind, b.Cols[2].Kind)
	}

	// Widen gives new columns of nulls, which take values.
	b.Rows = 1
	b.Widen(4)
	b.Cols[3].AppendNum(Int, 3)
	checkCells(t, "widened column", &b.Cols[3], []cell{{"", true}, {"3", false}})
}

func TestPerSecond(t *testing.T) {
	want := map[Kind]int64{Text: 0, Int: 0, Date: 0, TimestampS: 1, TimestampMS: 1e3, TimestampUS: 1e6, TimestampNS: 1e9}
	for k, w := range want {
		if got := k.PerSecond(); got != w {
			t.Errorf("kind %d: PerSecond %d, want %d", k, got, w)
		}
	}
}

// Kind.Append must write what the standard library writes, for every
// kind, across years 0 to 9999, around them and far outside them.
func TestKindAppendMatchesTime(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	check := func(k Kind, v int64) {
		t.Helper()
		want := refText(k, v)
		got := string(k.Append(nil, v))
		if got != want {
			t.Fatalf("kind %d value %d: %q, want %q", k, v, got, want)
		}
		// Appending to text already there leaves it alone.
		if got := string(k.Append([]byte("pre|"), v)); got != "pre|"+want {
			t.Fatalf("kind %d value %d after a prefix: %q", k, v, got)
		}
	}

	// Ints: every magnitude, both signs, and the extremes.
	for _, v := range []int64{0, 1, -1, 9, 10, -10, math.MaxInt64, math.MinInt64, math.MaxInt32, math.MinInt32} {
		check(Int, v)
	}
	for range 20_000 {
		v := rng.Int63() >> uint(rng.Intn(63))
		if rng.Intn(2) == 0 {
			v = -v
		}
		check(Int, v)
	}

	// Dates: the bounds of years 0 to 9999 and one past each, day by day
	// around them, leap days, and random days near and far.
	days := []int64{0, 1, -1, -719528, -719529, -719527, 2932896, 2932897, 2932895,
		-719162, // 0001-01-01
		11016,   // 2000-02-29
		-25508,  // 1900-03-01
		math.MaxInt32, math.MinInt32, -1_000_000_000, 1_000_000_000}
	for d := int64(-721_000); d < -717_000; d++ {
		days = append(days, d)
	}
	for d := int64(2_931_000); d < 2_934_000; d++ {
		days = append(days, d)
	}
	for range 30_000 {
		switch rng.Intn(3) {
		case 0:
			days = append(days, rng.Int63n(2932897+719528)-719528) // years 0 to 9999
		case 1:
			days = append(days, rng.Int63n(80_000)-40_000) // years 1860 to 2080
		default:
			days = append(days, rng.Int63n(2e9)-1e9) // far outside
		}
	}
	for _, d := range days {
		check(Date, d)
	}
	if got := string(Date.Append(nil, -719528)); got != "0000-01-01" {
		t.Errorf("day -719528: %q", got)
	}
	if got := string(Date.Append(nil, 2932896)); got != "9999-12-31" {
		t.Errorf("day 2932896: %q", got)
	}
	if got := string(Date.Append(nil, -719529)); got != "-0001-12-31" {
		t.Errorf("day -719529: %q", got)
	}
	if got := string(Date.Append(nil, 2932897)); got != "10000-01-01" {
		t.Errorf("day 2932897: %q", got)
	}

	// Timestamps: the seconds that bound years 0 to 9999 and one past
	// each, in every unit, with and without fractions; random instants.
	const minSec, maxSec = -62167219200, 253402300799
	secs := []int64{0, 1, -1, 59, 60, 86399, 86400, -86400, -86401, 1e9, -1e9,
		minSec, minSec - 1, minSec + 1, maxSec, maxSec + 1, maxSec - 1}
	for _, k := range typedKinds[2:] {
		per := k.PerSecond()
		vals := []int64{math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
		for _, s := range secs {
			if s > math.MaxInt64/per-1 || s < math.MinInt64/per+1 {
				continue
			}
			vals = append(vals, s*per, s*per+1, s*per-1, s*per+per/2, s*per+per-1)
		}
		for range 30_000 {
			switch rng.Intn(4) {
			case 0: // years 1900 to 2100
				vals = append(vals, (rng.Int63n(200*365*86400)-70*365*86400)*per+rng.Int63n(per))
			case 1: // years 0 to 9999 (wrapping around in nanoseconds)
				vals = append(vals, (rng.Int63n(maxSec-minSec+1)+minSec)*per+rng.Int63n(per))
			case 2: // round fractions: trailing zeros dropped
				vals = append(vals, rng.Int63n(4e9)*per+rng.Int63n(10)*(per/10))
			default: // any value at all
				vals = append(vals, int64(rng.Uint64()))
			}
		}
		for _, v := range vals {
			check(k, v)
		}
	}
	pinned := []struct {
		k    Kind
		v    int64
		want string
	}{
		{TimestampS, minSec, "0000-01-01T00:00:00Z"},
		{TimestampS, minSec - 1, "-0001-12-31T23:59:59Z"},
		{TimestampS, maxSec, "9999-12-31T23:59:59Z"},
		{TimestampS, maxSec + 1, "10000-01-01T00:00:00Z"},
		{TimestampMS, minSec*1000 - 1, "-0001-12-31T23:59:59.999Z"},
		{TimestampUS, maxSec*1_000_000 + 999_999, "9999-12-31T23:59:59.999999Z"},
		{TimestampNS, math.MinInt64, "1677-09-21T00:12:43.145224192Z"},
		{TimestampNS, math.MaxInt64, "2262-04-11T23:47:16.854775807Z"},
	}
	for _, p := range pinned {
		if got := string(p.k.Append(nil, p.v)); got != p.want {
			t.Errorf("kind %d value %d: %q, want %q", p.k, p.v, got, p.want)
		}
	}
}
