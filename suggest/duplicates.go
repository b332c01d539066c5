package suggest

import (
	"fmt"
	"math"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/quality"
)

// Duplicate rows: dedupe exact, keep first, removes the rows equal to an
// earlier one in every column. Whether such a row is a copy (an export
// run twice, a form sent twice) or a second real event that looks the
// same depends on how likely two real rows are to coincide. With columns
// of d₁, d₂, … distinct values, rows drawn independently coincide by
// chance in about R² / 2D of R rows, D = d₁·d₂·… (each dᵢ at most R): a
// file with an identifier, or many varied columns, has D far above R²,
// and its duplicates are copies. The confidence is the share of the
// duplicates not explained by chance, 1 − expected/observed, within
// [dedupeMinConfidence, dedupeConfidence]. The independence makes the
// chance an estimate; real columns are correlated, which makes
// coincidences likelier, and that is why the cap stays below 1. A column
// whose values are all distinct but for the duplicates (an identifier)
// cannot coincide by chance: its repeats are copies, dedupeConfidence.
const (
	dedupeConfidence    = 0.97
	dedupeMinConfidence = 0.3
)

func duplicateRows(res *analysis.Result) []Suggestion {
	dups := res.DuplicateRows
	if dups <= 0 || res.RowCount <= 0 {
		return nil
	}
	r := float64(res.RowCount)
	logD := 0.0
	for _, c := range res.Columns {
		d := float64(max(1, c.Distinct))
		if c.Nulls > 0 {
			d++ // a null is one more value
		}
		logD += math.Log(min(d, r))
	}
	expected := math.Exp(2*math.Log(r) - math.Log(2) - logD)
	conf := clamp(1-expected/float64(dups), dedupeMinConfidence, dedupeConfidence)
	why := fmt.Sprintf("rows as varied as these coincide by chance about %.2g times in a file of this size, so the repeats are copies", expected)
	if key := identifier(res); key != "" {
		conf = dedupeConfidence
		why = fmt.Sprintf("every other row has a %q of its own, so the repeats are copies", key)
	}
	est := ""
	if res.DuplicateRowsEstimated {
		est = " (estimated from a sample of the rows)"
	}
	return []Suggestion{{
		Engine: EngineRule, CorrectionType: corrections.TypeDedupe, Strategy: corrections.StrategyExact,
		Params: map[string]any{"keep": "first"}, Confidence: conf, Changes: dups, Issue: quality.KindDuplicateRows,
		Explanation: fmt.Sprintf("%s%s repeat an earlier row exactly, in every column. The step removes them, keeping the first of each. "+
			"Confidence %.2f: %s.",
			share(dups, res.RowCount, "rows"), est, conf, why),
	}}
}

// identifier is the first column without nulls whose values are distinct
// but for the duplicate rows (within identifierSlack of the rows), "" if
// none.
func identifier(res *analysis.Result) string {
	distinctRows := float64(res.RowCount - res.DuplicateRows)
	for _, c := range res.Columns {
		if c.Nulls == 0 && c.Empty == 0 && float64(c.Distinct) >= (1-identifierSlack)*distinctRows && float64(c.Distinct) <= distinctRows {
			return c.Name
		}
	}
	return ""
}

// identifierSlack allows for the estimate of the distinct count past
// 10,000 values (HyperLogLog, under 1% off).
const identifierSlack = 0.01
