package suggest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// dirtyFile has dirt of every kind the engine fixes.
func dirtyFile(t testing.TB) *file {
	t.Helper()
	rows := zipRows(480, func(i int, _, city string) string {
		switch {
		case i == 12:
			return "Malmö"
		case i%31 == 0:
			return strings.ToUpper(city)
		case i%37 == 0:
			return city + " "
		case i == 50:
			return "Stokholm"
		}
		return city
	})
	for i := range rows {
		d := fmt.Sprintf("2024-%02d-%02d", i%12+1, i%28+1)
		if i%9 == 0 {
			d = fmt.Sprintf("%02d/%02d/2024", i%28+1, i%12+1)
		}
		a := fmt.Sprintf("%d.%02d", 100+i, i%100)
		if i%11 == 0 {
			a = fmt.Sprintf("%d,%02d", 100+i, i%100)
		}
		rows[i] = append(rows[i], d, a, fmt.Sprintf("p%d@example.com", i))
	}
	rows[7][6] = "P7@EXAMPLE.COM"
	rows = append(rows, rows[3], rows[40])
	return csvFile(t, []string{"id", "street", "zip", "city", "day", "amount", "email"}, rows)
}

func TestOrderAndDeterminism(t *testing.T) {
	f := dirtyFile(t)
	a := f.suggest(t, Options{})
	b := f.suggest(t, Options{})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("two runs differ")
	}
	order := map[string]int{"": 0}
	for i, c := range f.res.Columns {
		order[c.Name] = i + 1
	}
	engines := map[string]int{EngineRule: 0, EngineCorrection: 1}
	for i := 1; i < len(a); i++ {
		p, q := a[i-1], a[i]
		if order[p.Column] > order[q.Column] || (p.Column == q.Column && engines[p.Engine] > engines[q.Engine]) {
			t.Errorf("out of order: %s/%s before %s/%s", p.Column, p.Engine, q.Column, q.Engine)
		}
	}
	kinds := map[string]bool{}
	for _, s := range a {
		kinds[s.CorrectionType+"/"+s.Strategy] = true
	}
	for _, want := range []string{"dedupe/exact", "format_fix/trim", "format_fix/standardize", "format_fix/date_iso",
		"format_fix/decimal_point", "format_fix/email_normalize", "custom/"} {
		if !kinds[want] {
			t.Errorf("no %s among %v", want, kinds)
		}
	}
	// The whole list applies in one pipeline.
	if out := f.apply(t, a); len(out) != 480 {
		t.Errorf("%d rows after the steps", len(out))
	}
}

func TestBounds(t *testing.T) {
	f := dirtyFile(t)
	for name, opt := range map[string]Options{
		"distinct": {MaxDistinct: 3},
		"memory":   {ValueMemory: 200},
		"pairs":    {MaxPairs: 2},
		"entries":  {MaxPairEntries: 5},
		"columns":  {MaxPairColumns: 1},
	} {
		ss := f.suggest(t, opt)
		var custom, cluster int
		for _, s := range ss {
			switch {
			case s.CorrectionType == corrections.TypeCustom:
				custom++
			case s.Engine == EngineCorrection:
				cluster++
			}
		}
		if custom != 0 {
			t.Errorf("%s: %d dependency steps past the bound", name, custom)
		}
		if (name == "distinct" || name == "memory") && cluster != 0 {
			t.Errorf("%s: %d cluster steps past the bound", name, cluster)
		}
	}
	// A mapping cut to MaxMapping keeps its most frequent variants.
	for _, s := range f.suggest(t, Options{MaxMapping: 1}) {
		if m, ok := s.Params["mapping"].(map[string]any); ok && len(m) > 1 {
			t.Errorf("%d variants past MaxMapping 1", len(m))
		}
	}
}

func TestCancelAndErrors(t *testing.T) {
	f := dirtyFile(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Suggest(ctx, f.res, f.open, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Suggest(context.Background(), f.res, func() (records.Reader, error) { return nil, errBroken }, Options{}); !errors.Is(err, errBroken) {
		t.Errorf("open failing: %v", err)
	}
	broken := func() (records.Reader, error) {
		return &failingReader{memReader: memReader{cols: []string{"id"}, rows: [][]string{{"1"}, {"2"}}}, after: 1}, nil
	}
	if _, err := Suggest(context.Background(), f.res, broken, Options{}); !errors.Is(err, errBroken) {
		t.Errorf("reading failing: %v", err)
	}
	if _, err := Suggest(context.Background(), nil, f.open, Options{}); err == nil {
		t.Error("no analysis, no error")
	}
}

// Any source of rows will do, as for AnalyzeRecords: a connector's.
func TestInMemoryReader(t *testing.T) {
	cols := []string{"id", "status"}
	rows := repeat(120, func(i int) []string {
		s := []string{"shipped", "pending", "delivered"}[i%3]
		if i == 4 {
			s = "SHIPPED"
		}
		return []string{fmt.Sprint(i), s}
	})
	open := func() (records.Reader, error) { return &memReader{cols: cols, rows: rows}, nil }
	r, _ := open()
	res, err := analysis.AnalyzeRecords(context.Background(), r, analysis.StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ss, err := Suggest(context.Background(), res, open, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].Params["mapping"].(map[string]any)["SHIPPED"] != "shipped" {
		t.Errorf("suggestions = %+v", ss)
	}
}

// A JSON file's columns grow while it is read: a column first seen late
// is still bound.
func TestGrowingColumns(t *testing.T) {
	var b bytes.Buffer
	for i := range 120 {
		if i < 60 {
			fmt.Fprintf(&b, "{\"id\": %d}\n", i)
			continue
		}
		city := cities[i%len(cities)]
		if i == 70 {
			city += " "
		}
		fmt.Fprintf(&b, "{\"id\": %d, \"city\": %q}\n", i, city)
	}
	f := analysed(t, "rows.jsonl", b.Bytes())
	open := func() (records.Reader, error) {
		return readers.Open(bytes.NewReader(b.Bytes()), "rows.jsonl", readers.Options{OnePass: true})
	}
	ss, err := Suggest(context.Background(), f.res, open, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(find(ss, "city", corrections.StrategyTrim)) != 1 {
		t.Errorf("suggestions = %+v", ss)
	}
}

func TestCalibrate(t *testing.T) {
	for _, c := range []struct {
		raw  float64
		h    Feedback
		want float64
	}{
		{0.9, Feedback{}, 0.9},
		{0.9, Feedback{Approved: 10}, (9 + 10) / 20.0},
		{0.9, Feedback{Rejected: 10}, 9 / 20.0},
		{0.5, Feedback{Approved: 3, Helpful: 2, Rejected: 1, Unhelpful: 4}, (5 + 5) / 20.0},
		{0.8, Feedback{Approved: 1000}, (8 + 1000) / 1010.0},
		{0.8, Feedback{Rejected: 1000}, 8 / 1010.0},
		{1, Feedback{Approved: 5}, 1},
		{0, Feedback{Rejected: 5}, 0},
		{1.7, Feedback{}, 1},
		{-1, Feedback{}, 0},
		{math.NaN(), Feedback{}, 0},
		{0.6, Feedback{Approved: -5}, 0.6},
	} {
		if got := Calibrate(c.raw, c.h); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Calibrate(%v, %+v) = %v, want %v", c.raw, c.h, got, c.want)
		}
	}
	// Monotone in each count.
	base := Feedback{Approved: 3, Rejected: 2, Helpful: 1, Unhelpful: 1}
	c0 := Calibrate(0.7, base)
	for name, h := range map[string]Feedback{
		"approved": {4, 2, 1, 1}, "helpful": {3, 2, 2, 1},
	} {
		if Calibrate(0.7, h) <= c0 {
			t.Errorf("one more %s did not raise it", name)
		}
	}
	for name, h := range map[string]Feedback{
		"rejected": {3, 3, 1, 1}, "unhelpful": {3, 2, 1, 2},
	} {
		if Calibrate(0.7, h) >= c0 {
			t.Errorf("one more %s did not lower it", name)
		}
	}
}
