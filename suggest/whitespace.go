package suggest

import (
	"fmt"

	"github.com/dqs/dqs/corrections"
)

// trimConfidence is the confidence of a trim: white space around a value
// is left over from typing, copying or padded exports, and means nothing
// in all but fixed-width layouts. When most values are padded the padding
// may be a layout (right-aligned numbers, fixed-width codes): then the
// trim is still harmless to what the values say, but less surely wanted.
const (
	trimConfidence       = 0.97
	trimLayoutConfidence = 0.85
)

// trimRule proposes format_fix trim for a column whose values start or
// end with white space (ASCII or Unicode: a no-break space copied from a
// web page counts).
func (s *scan) trimRule(c *column) *Suggestion {
	if c.padded == 0 {
		return nil
	}
	conf, why := trimConfidence, "white space around a value is almost never meant"
	if 2*c.padded > c.nonNull {
		conf, why = trimLayoutConfidence, "most values are padded, which may be a fixed-width layout rather than a slip"
	}
	return &Suggestion{
		Engine: EngineRule, CorrectionType: corrections.TypeFormatFix, Column: c.name, Strategy: corrections.StrategyTrim,
		Confidence: conf, Changes: c.padded,
		Explanation: fmt.Sprintf("%s of %q start or end with spaces (%s). Trimming removes the spaces around each value. Confidence %.2f: %s.",
			share(c.padded, c.nonNull, "values"), c.name, c.showAll(c.paddedEx), conf, why),
	}
}
