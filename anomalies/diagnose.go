package anomalies

import (
	"fmt"
	"math"
	"strings"

	"github.com/dqs/dqs/anomaly"
	"github.com/dqs/dqs/scanner"
)

// Causes the anomaly explainer names.
const (
	CausePartialLoad     = "partial_load"
	CauseDuplicatedLoad  = "duplicated_load"
	CauseColumnNotFilled = "column_not_filled"
	CausePlaceholder     = "placeholder_values"
	CauseFormatChange    = "format_change"
	CauseScaleChange     = "scale_change"
	CauseUnknown         = "unknown"
)

// Diagnosis is the anomaly explainer's reading of an incident: the
// likeliest cause of the metrics that moved together, how sure it is, a
// plain-language explanation and what to check first.
type Diagnosis struct {
	Cause       string
	Confidence  float64
	Explanation string
	Checks      []string
	// Metrics names the series that moved ("row_count of orders").
	Metrics []string
}

// movement is what one finding says, reduced to what the rules read.
type movement struct {
	metric string
	column string
	up     bool
	change float64 // relative change from the baseline's centre; NaN when it was 0
}

// Diagnose reads an incident by rules over which metrics moved and which
// way, the first that matches winning (the confidences are the rules'
// own, documented in docs/decisions.md "Correction pipelines"):
//
//   - fewer rows with columns going empty: a partial or broken load (0.8);
//     fewer rows alone: a partial load or a new filter upstream (0.6);
//   - about twice the rows (+80% to +120%): rows loaded twice (0.7); more
//     rows otherwise: a backfill or a duplicated load (0.5);
//   - columns going empty without fewer rows: a field no longer filled
//     upstream, renamed or dropped (0.7);
//   - a column's distinct values collapsing by half or more: a default or
//     placeholder written instead of the values (0.7);
//   - format conformance falling: the writer of the column changed its
//     format (0.75);
//   - a mean or median moved by a factor near a power of ten (×10, ×100,
//     ×1000 or their inverses, within 15%): a unit or scale change (0.7);
//   - anything else: a drift without a known pattern (0.3).
func Diagnose(in anomaly.Incident) Diagnosis {
	findings := append([]anomaly.Finding{in.Primary}, in.Related...)
	var moves []movement
	var subjects []string
	for _, f := range findings {
		moves = append(moves, movement{metric: f.Metric, column: f.Column, up: f.Verdict.Score > 0, change: f.Verdict.Change})
		subjects = append(subjects, f.Subject())
	}
	d := rule(in.Table, moves)
	d.Metrics = subjects
	d.Explanation = fmt.Sprintf("%s Metrics that moved together in this scan: %s.", d.Explanation, strings.Join(subjects, ", "))
	return d
}

func rule(table string, moves []movement) Diagnosis {
	has := func(metric string, up bool) []movement {
		var out []movement
		for _, m := range moves {
			if m.metric == metric && m.up == up {
				out = append(out, m)
			}
		}
		return out
	}
	rowsDown, rowsUp := has(scanner.MetricRowCount, false), has(scanner.MetricRowCount, true)
	emptier := append(has(scanner.MetricNullRate, true), has(scanner.MetricEmptyRate, true)...)
	switch {
	case len(rowsDown) > 0 && len(emptier) > 0:
		return Diagnosis{Cause: CausePartialLoad, Confidence: 0.8,
			Explanation: fmt.Sprintf("%s has fewer rows than usual and %s went empty at the same time: the likeliest cause is a partial or broken load.", table, columnsOf(emptier)),
			Checks:      []string{"the loading job's logs for this run", "whether the source delivered every file or partition", "rows missing for the latest dates"}}
	case len(rowsDown) > 0:
		return Diagnosis{Cause: CausePartialLoad, Confidence: 0.6,
			Explanation: fmt.Sprintf("%s has fewer rows than usual: a partial load, or a new filter upstream.", table),
			Checks:      []string{"the loading job's logs for this run", "recent changes to the query or filter that feeds the table"}}
	case len(rowsUp) > 0 && rowsUp[0].change >= 0.8 && rowsUp[0].change <= 1.2:
		return Diagnosis{Cause: CauseDuplicatedLoad, Confidence: 0.7,
			Explanation: fmt.Sprintf("%s has about twice its usual rows: the likeliest cause is the same data loaded twice.", table),
			Checks:      []string{"duplicate rows on the table's key", "whether a load was retried without removing the first attempt"}}
	case len(rowsUp) > 0:
		return Diagnosis{Cause: CauseDuplicatedLoad, Confidence: 0.5,
			Explanation: fmt.Sprintf("%s has more rows than usual: a backfill, or data loaded twice.", table),
			Checks:      []string{"duplicate rows on the table's key", "backfills run on the source"}}
	case len(emptier) > 0:
		return Diagnosis{Cause: CauseColumnNotFilled, Confidence: 0.7,
			Explanation: fmt.Sprintf("%s went empty while the row count held: the field is no longer filled upstream (renamed, dropped, or a broken mapping).", columnsOf(emptier)),
			Checks:      []string{"the source system's recent schema changes", "the mapping of the field in the pipeline that writes the table"}}
	}
	if collapsed := collapses(has(scanner.MetricDistinctCount, false)); len(collapsed) > 0 {
		return Diagnosis{Cause: CausePlaceholder, Confidence: 0.7,
			Explanation: fmt.Sprintf("%s lost most of its distinct values: a default or placeholder value is likely written instead of the real ones.", columnsOf(collapsed)),
			Checks:      []string{"the most frequent values of the column now", "defaults set in the application or the loading job"}}
	}
	if worse := has(scanner.MetricFormatConformance, false); len(worse) > 0 {
		return Diagnosis{Cause: CauseFormatChange, Confidence: 0.75,
			Explanation: fmt.Sprintf("%s no longer follows its usual format: whoever writes it changed how (a new date or number format, a new system).", columnsOf(worse)),
			Checks:      []string{"sample values that do not match the usual format", "recent releases of the system that writes the column"}}
	}
	for _, m := range moves {
		if (m.metric == scanner.MetricMean || m.metric == scanner.MetricMedian) && powerOfTen(m.change) {
			return Diagnosis{Cause: CauseScaleChange, Confidence: 0.7,
				Explanation: fmt.Sprintf("the %s of %s moved by a factor near a power of ten: a unit or scale change (cents and euros, grams and kilograms) is likely.", m.metric, m.column),
				Checks:      []string{"the unit the source writes the column in", "conversions in the pipeline that writes the table"}}
		}
	}
	return Diagnosis{Cause: CauseUnknown, Confidence: 0.3,
		Explanation: fmt.Sprintf("%s drifted without a known pattern.", table),
		Checks:      []string{"what changed in the source around the scan's time"}}
}

// collapses are the distinct-count drops of half or more.
func collapses(down []movement) []movement {
	var out []movement
	for _, m := range down {
		if !math.IsNaN(m.change) && m.change <= -0.5 {
			out = append(out, m)
		}
	}
	return out
}

// powerOfTen reports whether a relative change makes the value about 10,
// 100 or 1000 times larger or smaller (within 15% of the factor).
func powerOfTen(change float64) bool {
	if math.IsNaN(change) || math.IsInf(change, 0) || change <= -1 {
		return false
	}
	factor := 1 + change
	for _, f := range []float64{10, 100, 1000, 0.1, 0.01, 0.001} {
		if math.Abs(factor/f-1) <= 0.15 {
			return true
		}
	}
	return false
}

// columnsOf names the columns of moves ("email and phone", "the table").
func columnsOf(moves []movement) string {
	var cols []string
	seen := map[string]bool{}
	for _, m := range moves {
		if m.column != "" && !seen[m.column] {
			seen[m.column] = true
			cols = append(cols, m.column)
		}
	}
	switch len(cols) {
	case 0:
		return "the table"
	case 1:
		return cols[0]
	}
	return strings.Join(cols[:len(cols)-1], ", ") + " and " + cols[len(cols)-1]
}
