package suggest

import (
	"fmt"
	"strings"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/quality"
)

// emailScan counts the e-mail addresses that email_normalize would
// change: upper-case letters, spaces around.
type emailScan struct {
	values, upper, spaced, changed int64
	ex                             []string
}

func (e *emailScan) add(v string) {
	e.values++
	n := strings.ToLower(strings.TrimSpace(v))
	if n == v {
		return
	}
	e.changed++
	if strings.TrimSpace(v) != v {
		e.spaced++
	}
	if strings.ToLower(v) != v {
		e.upper++
	}
	e.ex = addExample(e.ex, v)
}

// Confidence of email_normalize. Domains are case-insensitive by the
// standard and mailbox names by every provider in use, so a lower-cased
// address reaches the same mailbox: the fix is right whenever the column
// keeps its addresses in lower case, as it evidently does when most of
// them already are (emailConvention); a column mostly in other cases gets
// a lower confidence, as lower case is then a normalisation it does not
// follow yet.
const (
	emailConfidence      = 0.95
	emailOtherConfidence = 0.85
	emailConvention      = 0.8
)

// emailRule proposes format_fix email_normalize for an e-mail column some
// of whose addresses have upper-case letters or spaces around.
func (s *scan) emailRule(c *column) *Suggestion {
	e := c.email
	if e == nil || e.changed == 0 {
		return nil
	}
	conf, why := emailConfidence, "most addresses are already in lower case, and an address in another case reaches the same mailbox"
	if float64(e.values-e.changed) < emailConvention*float64(e.values) {
		conf, why = emailOtherConfidence, "lower case reaches the same mailbox, but most of the column is not written so yet"
	}
	var what []string
	if e.upper > 0 {
		what = append(what, fmt.Sprintf("%d with upper-case letters", e.upper))
	}
	if e.spaced > 0 {
		what = append(what, fmt.Sprintf("%d with spaces around", e.spaced))
	}
	return &Suggestion{
		Engine: EngineRule, CorrectionType: corrections.TypeFormatFix, Column: c.name, Strategy: corrections.StrategyEmailNormalize,
		Confidence: conf, Changes: e.changed, Issue: s.issueOf(c, quality.KindInconsistentCase, quality.KindInvalidFormat),
		Explanation: fmt.Sprintf("%s of %q are not written in the normal form of an e-mail address (%s; e.g. %s). Normalising trims them and writes them in lower case. Confidence %.2f: %s.",
			share(e.changed, e.values, "addresses"), c.name, strings.Join(what, ", "), c.showAll(e.ex), conf, why),
	}
}
