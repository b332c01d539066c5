package anomaly

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Finding is a verdict on one series of one scan.
type Finding struct {
	Table   string  `json:"table_name"`
	Column  string  `json:"column_name"`
	Metric  string  `json:"metric"`
	Verdict Verdict `json:"verdict"`
}

// Subject names the series: "null_rate of customers.email", "row_count of
// customers".
func (f Finding) Subject() string {
	where := f.Table
	if f.Column != "" {
		where += "." + f.Column
	}
	if where == "" {
		return f.Metric
	}
	return f.Metric + " of " + where
}

// Incident is the anomalous findings of one table in one scan: metrics that
// move together (a table's row count and its columns' null rates after a
// broken load) make one alert, led by the farthest from its baseline.
type Incident struct {
	Table   string    `json:"table_name"`
	Primary Finding   `json:"primary"`
	Related []Finding `json:"related"`
}

// Group gathers the anomalous findings of one scan into one incident per
// table, the findings of each ordered by how far they are from their
// baselines (farthest first); tables come in the order of their first
// finding.
func Group(findings []Finding) []Incident {
	byTable := map[string][]Finding{}
	var order []string
	for _, f := range findings {
		if !f.Verdict.Anomalous {
			continue
		}
		if _, ok := byTable[f.Table]; !ok {
			order = append(order, f.Table)
		}
		byTable[f.Table] = append(byTable[f.Table], f)
	}
	out := make([]Incident, 0, len(order))
	for _, table := range order {
		fs := byTable[table]
		slices.SortStableFunc(fs, func(a, b Finding) int {
			return cmp.Compare(math.Abs(b.Verdict.Score), math.Abs(a.Verdict.Score))
		})
		out = append(out, Incident{Table: table, Primary: fs[0], Related: fs[1:]})
	}
	return out
}

// maxExplained bounds the related findings an incident's explanation
// names (the farthest first): a table of thousands of columns moving
// together must not make a message of megabytes.
const maxExplained = 20

// Explain says in plain words why an incident was raised: its lead
// finding's value, expected band, distance, change and the window it was
// compared with, then the related findings, and the sensitivity.
func (in Incident) Explain() string {
	var b strings.Builder
	b.WriteString(in.Primary.Explain())
	if len(in.Related) > 0 {
		shown := in.Related[:min(len(in.Related), maxExplained)]
		parts := make([]string, len(shown))
		for i, f := range shown {
			parts[i] = fmt.Sprintf("%s %s (expected %s to %s, %s)", f.Subject(), num(f.Verdict.Value),
				num(f.Verdict.Low), num(f.Verdict.High), change(f.Verdict.Change))
		}
		more := ""
		if n := len(in.Related) - len(shown); n > 0 {
			more = fmt.Sprintf("; and %d more", n)
		}
		fmt.Fprintf(&b, " In the same scan: %s%s.", strings.Join(parts, "; "), more)
	}
	return b.String()
}

// Explain says in plain words why a finding is anomalous (or that it is
// not): the value, the expected band, how far outside it, the change from
// the expected value, the window it was compared with, and the
// sensitivity.
func (f Finding) Explain() string {
	v := f.Verdict
	if v.WarmingUp {
		return fmt.Sprintf("%s was %s; the series has fewer than %d earlier scans, too few to judge.", f.Subject(), num(v.Value), WarmUp)
	}
	b := v.Baseline
	var s strings.Builder
	fmt.Fprintf(&s, "%s was %s on %s, ", f.Subject(), num(v.Value), v.At.UTC().Format("2006-01-02 15:04 UTC"))
	if v.Anomalous {
		side := "above"
		if v.Score < 0 {
			side = "below"
		}
		fmt.Fprintf(&s, "%s the expected band %s to %s: %s spreads %s the expected %s (%s). ",
			side, num(v.Low), num(v.High), strconv.FormatFloat(math.Abs(v.Score), 'f', 1, 64), side, num(b.Center), change(v.Change))
	} else {
		fmt.Fprintf(&s, "within the expected band %s to %s (%s from the expected %s). ", num(v.Low), num(v.High), change(v.Change), num(b.Center))
	}
	fmt.Fprintf(&s, "Compared with %d scans from %s to %s", b.N, b.WindowStart.UTC().Format(time.DateOnly), b.WindowEnd.UTC().Format(time.DateOnly))
	switch {
	case b.Seasonal:
		s.WriteString(", at the same point of the week")
	case b.Trend != 0:
		fmt.Fprintf(&s, ", following their trend of %s a day", signed(b.Trend))
	case b.Center != b.Median:
		// A plain baseline is centred on the median: this one follows the
		// series' last value (a series that wanders).
		s.WriteString(", from where the last of them left the series")
	}
	fmt.Fprintf(&s, " (median %s, typical spread %s). Sensitivity %s: %s spreads.", num(b.Median), num(b.Spread), v.Sensitivity, num(v.Threshold))
	return s.String()
}

// num prints a value with up to four significant decimals.
func num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func signed(v float64) string {
	if v >= 0 {
		return "+" + num(v)
	}
	return num(v)
}

// change prints a relative change as a percentage.
func change(c float64) string {
	if math.IsNaN(c) {
		return "from zero"
	}
	return fmt.Sprintf("%+.1f%%", 100*c)
}
