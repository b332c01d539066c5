package suggest

import (
	"fmt"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
)

// Nulls: a numeric column with some missing values but mostly complete
// (nullFillCompleteness) may have them filled with its median
// (null_fill median: the profiler's lower median, one of the column's
// values). Filling is a guess: the median is the value the missing one
// most likely is only in a column where most values are the median. The
// confidence is nullFillBase plus nullFillSpread times the share of the
// column's values equal to its median (from the top values; masked ones,
// of personal columns, count none), so it stays under 0.8, the default
// trust threshold: a user decides to fill.
const (
	nullFillCompleteness = 0.9
	nullFillBase         = 0.5
	nullFillSpread       = 0.25
)

func (s *scan) nullFillRule(c *column) *Suggestion {
	a := c.a
	if a.InferredType != profile.TypeInteger && a.InferredType != profile.TypeFloat {
		return nil
	}
	is := findIssue(s.res.Quality.Issues, quality.KindMissingValues, c.name)
	if is == nil || a.Count == 0 || a.Median == nil {
		return nil
	}
	missing := a.Nulls + a.Empty
	if complete := 1 - float64(missing)/float64(a.Count); complete < nullFillCompleteness {
		return nil
	}
	comma := len(a.Notation) >= len("decimal comma") && a.Notation[:len("decimal comma")] == "decimal comma"
	var atMedian int64
	for _, tv := range a.TopValues {
		if x, ok := profile.NumberAs(tv.Value, comma); ok && x == *a.Median {
			atMedian += tv.Count
		}
	}
	values := a.Count - missing
	s0 := 0.0
	if values > 0 {
		s0 = float64(atMedian) / float64(values)
	}
	conf := nullFillBase + nullFillSpread*s0
	return &Suggestion{
		Engine: EngineRule, CorrectionType: corrections.TypeNullFill, Column: c.name, Strategy: corrections.StrategyMedian,
		Confidence: conf, Changes: missing, Issue: quality.KindMissingValues,
		Explanation: fmt.Sprintf("%s of %q are missing, in a column otherwise complete. The step fills them with the column's median, %s. "+
			"Confidence %.2f: a fill is a guess; %.0f%% of the column's values equal the median, the chance a filled value is the one that was lost.",
			share(missing, a.Count, "values"), c.name, formatNumber(*a.Median), conf, 100*s0),
	}
}

func formatNumber(f float64) string { return fmt.Sprintf("%g", f) }
