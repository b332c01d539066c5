package corrections

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/profile"
)

// fixColumn applies one format_fix to a one-column table.
func fixColumn(t *testing.T, strategy string, params map[string]any, in ...string) ([]string, StepChanges) {
	t.Helper()
	rows := make(table, len(in))
	for i, v := range in {
		rows[i] = []string{v}
	}
	got, res := run(t, []string{"v"}, rows, fix("v", strategy, params))
	return column(got, 0), res.Changes[0]
}

func checkFix(t *testing.T, strategy string, params map[string]any, in, want []string, changed, unfixed int64) {
	t.Helper()
	got, c := fixColumn(t, strategy, params, in...)
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("%s:\n got %q\nwant %q", strategy, got, want)
	}
	if c.CellsChanged != changed || c.Unfixed != unfixed {
		t.Errorf("%s: %d changed, %d unfixed; want %d and %d", strategy, c.CellsChanged, c.Unfixed, changed, unfixed)
	}
}

func TestTextFixes(t *testing.T) {
	in := []string{"  Ann Lee ", "ÉCOLE", "o'neil mcdonald", N, "", "NA", "x"}
	checkFix(t, StrategyTrim, nil, in, []string{"Ann Lee", "ÉCOLE", "o'neil mcdonald", N, "", "NA", "x"}, 1, 0)
	checkFix(t, StrategyLower, nil, in, []string{"  ann lee ", "école", "o'neil mcdonald", N, "", "NA", "x"}, 2, 0)
	checkFix(t, StrategyUpper, nil, in, []string{"  ANN LEE ", "ÉCOLE", "O'NEIL MCDONALD", N, "", "NA", "X"}, 3, 0)
	checkFix(t, StrategyTitle, nil, in, []string{"  Ann Lee ", "École", "O'neil Mcdonald", N, "", "NA", "X"}, 3, 0)
	checkFix(t, StrategyEmailNormalize, nil,
		[]string{" Ann.Lee@Example.COM ", "bob@x.org", "not an email"},
		[]string{"ann.lee@example.com", "bob@x.org", "not an email"}, 1, 0)
}

func TestStandardize(t *testing.T) {
	mapping := map[string]any{"NYC": "New York", "N.Y.": "New York", "SF": "San Francisco"}
	in := []string{"NYC", "nyc", "N.Y.", "New York", "SF", "Paris", N}
	checkFix(t, StrategyStandardize, map[string]any{"mapping": mapping}, in,
		[]string{"New York", "nyc", "New York", "New York", "San Francisco", "Paris", N}, 3, 0)
	checkFix(t, StrategyStandardize, map[string]any{"mapping": mapping, "ignore_case": true}, in,
		[]string{"New York", "New York", "New York", "New York", "San Francisco", "Paris", N}, 4, 0)
}

func TestDateISO(t *testing.T) {
	in := []string{"2024-03-05", "2024/03/05", "05.03.2024", "31/01/2024", "01/31/2024", "03/04/2024", " 2024-03-05 ", "2024-02-30", "March 5", N, "NA"}
	checkFix(t, StrategyDateISO, nil, in,
		[]string{"2024-03-05", "2024-03-05", "2024-03-05", "2024-01-31", "2024-01-31", "2024-04-03", "2024-03-05", "2024-02-30", "March 5", N, "NA"}, 6, 2)
	// Month first only changes the dates that read both ways.
	got, _ := fixColumn(t, StrategyDateISO, map[string]any{"month_first": true}, "03/04/2024", "31/01/2024")
	if want := "2024-03-04|2024-01-31"; strings.Join(got, "|") != want {
		t.Errorf("month first: got %q, want %s", got, want)
	}
	formats := map[string]any{"input_formats": []any{"%d %b %Y", "Jan 2, 2006", "%Y%m%d"}}
	checkFix(t, StrategyDateISO, formats,
		[]string{"05 Mar 2024", "Mar 5, 2024", "20240305", "2024-03-05", "05/03/2024"},
		[]string{"2024-03-05", "2024-03-05", "2024-03-05", "2024-03-05", "05/03/2024"}, 3, 1)
}

// The default layouts fix exactly the values the profiler reads as dates,
// to the day the profiler reads (its day-first reading on a tie).
func TestDateISOAgreesWithTheProfiler(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	layouts := []string{"2006-01-02", "2006/01/02", "02.01.2006", "02/01/2006", "01/02/2006", "2/1/2006", "2006-1-2", "02-01-2006"}
	var in []string
	var days []time.Time
	for range 2000 {
		d := time.Date(1900+rng.IntN(200), time.Month(1+rng.IntN(12)), 1+rng.IntN(31), 0, 0, 0, 0, time.UTC)
		v := d.Format(layouts[rng.IntN(len(layouts))])
		if rng.IntN(20) == 0 {
			v = v[:len(v)-1] + "x" // not a date
		}
		in = append(in, v)
		days = append(days, d)
	}
	got, _ := fixColumn(t, StrategyDateISO, nil, in...)
	for i, v := range in {
		isDate := profile.ParsesAs(profile.TypeDate, v)
		fixed := got[i] != v || v == days[i].Format(isoDate)
		if isDate != fixed {
			t.Fatalf("%q: the profiler reads a date: %v; date_iso fixed it: %v (%q)", v, isDate, fixed, got[i])
		}
		if !fixed {
			continue
		}
		// The oracle: read the fields by hand.
		want := slowISO(v)
		if got[i] != want {
			t.Fatalf("%q: got %q, want %q", v, got[i], want)
		}
	}
}

// slowISO reads a date of the profiler's layouts field by field.
func slowISO(v string) string {
	var y, m, d int
	switch {
	case v[4] == '-' || v[4] == '/':
		y, m, d = atoi(v[0:4]), atoi(v[5:7]), atoi(v[8:10])
	case v[2] == '.':
		d, m, y = atoi(v[0:2]), atoi(v[3:5]), atoi(v[6:10])
	default:
		a, b := atoi(v[0:2]), atoi(v[3:5])
		y = atoi(v[6:10])
		if time.Date(y, time.Month(b), a, 0, 0, 0, 0, time.UTC).Day() == a && b <= 12 {
			d, m = a, b // day first when it reads so
		} else {
			m, d = a, b
		}
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

func atoi(s string) int { return must(strconv.Atoi(s)) }

func TestPhoneE164(t *testing.T) {
	in := []string{"+1 650-253-0000", "(650) 253-0000", "020 7946 0018", "+44 20 7946 0018", "12", "call me", N}
	checkFix(t, StrategyPhoneE164, map[string]any{"default_region": "US"}, in,
		[]string{"+16502530000", "+16502530000", "020 7946 0018", "+442079460018", "12", "call me", N}, 3, 3)
	checkFix(t, StrategyPhoneE164, map[string]any{"default_region": "GB"}, in,
		[]string{"+16502530000", "(650) 253-0000", "+442079460018", "+442079460018", "12", "call me", N}, 3, 3)
	checkFix(t, StrategyPhoneE164, nil, in,
		[]string{"+16502530000", "(650) 253-0000", "020 7946 0018", "+442079460018", "12", "call me", N}, 2, 4)
}

func TestDecimalPoint(t *testing.T) {
	in := []string{"1.234,5", "3,5", "-1.234.567,89", "1 234,5", "1.234", "12.5", "1234", "1,234.5", "12,50 €", "abc", "0,05", N}
	checkFix(t, StrategyDecimalPoint, nil, in,
		[]string{"1234.5", "3.5", "-1234567.89", "1234.5", "1234", "12.5", "1234", "1,234.5", "12,50 €", "abc", "0.05", N}, 6, 3)
}

// decimal_point reads numerals as the profiler reads a column of decimal
// commas (profile.NumberAs with decimalComma).
func TestDecimalPointAgreesWithTheProfiler(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seps := []string{".", " ", "'", "\u00a0", "\u202f"}
	var in []string
	for range 5000 {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteByte("-+"[rng.IntN(2)])
		}
		whole := strconv.Itoa(rng.IntN(1e9))
		if rng.IntN(10) == 0 {
			whole = "0" + whole[:rng.IntN(len(whole))] // 0, or a leading zero
		}
		if rng.IntN(2) == 0 { // grouped
			sep := seps[rng.IntN(len(seps))]
			for i, c := range whole {
				if i > 0 && (len(whole)-i)%3 == 0 {
					b.WriteString(sep)
				}
				b.WriteRune(c)
			}
		} else {
			b.WriteString(whole)
		}
		switch rng.IntN(4) {
		case 0:
			fmt.Fprintf(&b, ",%d", rng.IntN(1000))
		case 1:
			fmt.Fprintf(&b, ".%d", rng.IntN(1000))
		case 2:
			fmt.Fprintf(&b, ",%03d", rng.IntN(1000)) // 1,234: a decimal comma here
		}
		in = append(in, b.String())
	}
	got, _ := fixColumn(t, StrategyDecimalPoint, nil, in...)
	for i, v := range in {
		want, ok := profile.NumberAs(v, true)
		if !ok {
			if got[i] != v {
				t.Fatalf("%q is no number to the profiler, yet became %q", v, got[i])
			}
			continue
		}
		f, err := strconv.ParseFloat(got[i], 64)
		if err != nil || f != want {
			t.Fatalf("%q: got %q, the profiler reads %v", v, got[i], want)
		}
	}
}
