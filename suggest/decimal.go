package suggest

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
)

// Decimal commas: format_fix decimal_point rewrites numbers the way a
// column of decimal commas reads them (profile.NumberAs(v, true)): "12,5"
// → "12.5", "1.234,5" → "1234.5". A value only that notation reads
// ("12,5") is right so. A value both notations read alike ("12.5", "1
// 234") is right too. A value they read differently ("1.234", "1,234") is
// ambiguous, and the step reads it with a decimal comma: right only in a
// column that writes its decimals with a comma. The column's evidence is
// its values that read one way only or show their decimal mark ("12,5"
// for the comma; "0.875" or "1,234.5" for the point), and the ambiguous
// values are right with the probability, by the rule of succession, that
// the next value follows the comma as kc of the kc + kp evidence values
// did: (kc + 1) / (kc + kp + 2). The step's confidence is
// decimalConfidence when no value is ambiguous, else the lower of the two.
const (
	decimalConfidence = 0.97
	// decimalColumnShare of the values must read as numbers.
	decimalColumnShare = 0.9
)

type decimalScan struct {
	values, numbers   int64
	commaOnly, points int64 // evidence for each decimal mark
	commaChanged      int64 // values only a decimal comma reads, which the step rewrites
	safe, ambiguous   int64 // changed values read alike, read differently
	commaEx, ambEx    []string
}

func (d *decimalScan) add(v string) {
	d.values++
	pt, okP := profile.NumberAs(v, false)
	cm, okC := profile.NumberAs(v, true)
	if !okP && !okC {
		return
	}
	d.numbers++
	hasDot := strings.IndexByte(v, '.') >= 0
	switch {
	case okC && !okP:
		d.commaOnly++
	case okP && hasDot && (!okC || pt == cm):
		d.points++
	}
	if !numeralOnly(v) || !okC {
		return // the step leaves it as it is
	}
	switch {
	case okP && pt != cm:
		d.ambiguous++
		d.ambEx = addExample(d.ambEx, v)
	case !okP:
		d.commaChanged++
		d.commaEx = addExample(d.commaEx, v)
	case strings.ContainsAny(v, ", '\u00a0\u202f"):
		d.safe++ // "1 234": grouped, read alike, written plain
	}
}

// numeralOnly reports whether v holds only what the step rewrites: a sign,
// digits, '.', ',' and the spaces that group thousands.
func numeralOnly(v string) bool {
	for i, r := range v {
		switch {
		case r >= '0' && r <= '9', r == '.', r == ',', r == ' ', r == '\'', r == '\u00a0', r == '\u202f':
		case (r == '-' || r == '+') && i == 0:
		default:
			return false
		}
	}
	return utf8.ValidString(v)
}

// decimalRule proposes format_fix decimal_point for a numeric column some
// of whose numbers are written with a decimal comma.
func (s *scan) decimalRule(c *column) *Suggestion {
	d := c.dec
	if d == nil || d.commaChanged == 0 || float64(d.numbers) < decimalColumnShare*float64(d.values) {
		return nil
	}
	changes := d.commaChanged + d.safe + d.ambiguous
	conf := decimalConfidence
	why := "every number it rewrites reads one way only"
	if d.ambiguous > 0 {
		conf = min(conf, succession(d.commaOnly, d.commaOnly+d.points))
		why = fmt.Sprintf("%d numbers such as %s read differently with a decimal comma and a decimal point, and are read with a comma, as %d of the %d numbers that show their decimal mark are written",
			d.ambiguous, c.showAll(d.ambEx), d.commaOnly, d.commaOnly+d.points)
	}
	return &Suggestion{
		Engine: EngineRule, CorrectionType: corrections.TypeFormatFix, Column: c.name, Strategy: corrections.StrategyDecimalPoint,
		Confidence: conf, Changes: changes, Issue: s.issueOf(c, quality.KindTypeMismatch, quality.KindInvalidFormat),
		Explanation: fmt.Sprintf("%s of %q are written with a decimal comma (e.g. %s). The step rewrites them with a decimal point and no thousands separators. Confidence %.2f: %s.",
			share(d.commaChanged, d.values, "numbers"), c.name, c.showAll(d.commaEx), conf, why),
	}
}
