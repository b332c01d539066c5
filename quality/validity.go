package quality

import (
	"math"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// Validity follows what a column means. The rule for a column, first match:
//
//   - ruleValidator: a string, date or datetime column whose label has a
//     validator (e-mail, phone, IBAN, payment card, national IDs, IP and
//     MAC addresses, URLs, VINs, dates; classify.Conformance): the share of
//     sampled values the validator accepts,
//     however they are spaced or written (an IBAN printed in groups of four
//     is valid). Consistency is the share written in the most used layout
//     for dates (inconsistent_format lists the layouts), validity otherwise.
//   - ruleTyped: another typed column (integer, float, boolean, date,
//     datetime): the share of values that parse as its type.
//   - ruleVocabulary: a category (or gender) column: its values are its own
//     set, and a value is outside it when it occurs once in a column of at
//     least 50 values whose every other value repeats (a typo in a set of
//     repeated codes); counted only when the column's top values hold all
//     its distinct values with exact counts, else nothing is outside.
//   - ruleFree: names, addresses, free text and the special categories'
//     vocabularies: nothing to check; validity and consistency are 100 (an
//     apostrophe in O'Brien or a third word in a title is no error).
//   - rulePattern: anything else, codes and identifiers above all: the
//     share of values in the dominant format signature, when that format
//     covers at least half of them (otherwise free text: 100).
type validityRule int

const (
	rulePattern validityRule = iota
	ruleTyped
	ruleValidator
	ruleVocabulary
	ruleFree
)

// freeLabels have no format to check.
var freeLabels = map[string]bool{
	classify.LabelPersonName: true, classify.LabelStreet: true, classify.LabelFreeText: true,
	classify.LabelHealth: true, classify.LabelReligion: true, classify.LabelEthnicity: true,
	classify.LabelOrientation: true, classify.LabelPolitical: true,
}

// vocabularyLabels are closed sets of values.
var vocabularyLabels = map[string]bool{classify.LabelCategory: true, classify.LabelGender: true}

func validityRuleOf(c *profile.Column, m Meaning) validityRule {
	temporal := c.InferredType == profile.TypeDate || c.InferredType == profile.TypeDatetime
	switch {
	case m.Conformance != nil && m.Conformance.Checked > 0 && (c.InferredType == profile.TypeString || temporal):
		return ruleValidator
	case c.InferredType != profile.TypeString:
		return ruleTyped
	case vocabularyLabels[m.Label]:
		return ruleVocabulary
	case freeLabels[m.Label]:
		return ruleFree
	}
	return rulePattern
}

// minVocabularyValues is the fewest non-empty values from which a value seen
// once in a set of repeated values stands out.
const minVocabularyValues = 50

// outsideVocabulary counts the values of a category column seen exactly
// once while each of its other values repeats, with those values as
// examples. It needs exact counts of every distinct value: the top values
// must hold them all.
func outsideVocabulary(c *profile.Column) (int64, []string) {
	if !c.DistinctExact || int64(len(c.TopValues)) != c.Distinct || nonEmpty(c) < minVocabularyValues {
		return 0, nil
	}
	var once int64
	var ex []string
	for _, tv := range c.TopValues {
		if tv.Count == 1 {
			once++
			ex = addExample(ex, tv.Value)
		}
	}
	// A set: most values repeat. Several singletons make an open list.
	if once == 0 || once*20 > nonEmpty(c) || int64(len(c.TopValues))-once < 2 {
		return 0, nil
	}
	return once, ex
}

// validityIssues are the invalid_format and inconsistent_format findings of
// a non-empty column, by its validity rule.
func validityIssues(c *profile.Column, m Meaning, ne int64) []Issue {
	var out []Issue
	switch validityRuleOf(c, m) {
	case ruleValidator:
		v := m.Conformance
		if fail := float64(v.Failed) / float64(v.Checked); fail > 0.05 {
			n, est := scaled(v.Failed, v.Checked, ne)
			out = append(out, Issue{Kind: KindInvalidFormat, Severity: SeverityWarning, Count: n, Estimated: est,
				Examples: append([]string(nil), v.Examples...), Message: invalidValueMessage(c.Name, v.Rule, n, ne, est)})
		}
		if len(v.Formats) > 1 {
			out = append(out, mixedFormats(c.Name, v, ne))
		}
	case ruleVocabulary:
		if n, ex := outsideVocabulary(c); n > 0 {
			out = append(out, Issue{Kind: KindInvalidFormat, Severity: SeverityWarning, Count: n, Examples: ex,
				Message: outsideVocabularyMessage(c.Name, n, ne, int64(len(c.TopValues))-n)})
		}
	case ruleTyped, rulePattern:
		fc := unit(c.FormatConformance)
		formatApplies := c.Format != "" && fc < 0.95 && !isNumeric(c.InferredType) &&
			(c.InferredType != profile.TypeString || fc >= 0.5)
		if formatApplies {
			ex := pick(c.Sample, func(v string) bool { return !profile.MatchesFormat(c.Format, v) })
			n := atLeast1(math.Round((1 - fc) * float64(ne)))
			out = append(out, Issue{Kind: KindInvalidFormat, Severity: SeverityWarning, Count: n, Examples: ex,
				Message: invalidFormatMessage(c.Name, c.Format, n, ne)})
		}
	}
	return out
}

// mixedFormats is the inconsistent_format finding of a column whose valid
// values are written in several layouts: the values not in the most used
// one, with the layouts and their (scaled) counts in the message and one
// example of each other layout.
func mixedFormats(column string, v *classify.Conformance, ne int64) Issue {
	other := 0
	var ex []string
	for _, f := range v.Formats[1:] {
		other += f.Count
		if f.Example != "" {
			ex = addExample(ex, f.Example)
		}
	}
	formats := make([]formatShare, len(v.Formats))
	for i, f := range v.Formats {
		formats[i].format = f.Format
		formats[i].count, _ = scaled(f.Count, v.Checked, ne)
	}
	n, est := scaled(other, v.Checked, ne)
	return Issue{Kind: KindInconsistentFormat, Severity: SeverityInfo, Count: n, Estimated: est, Examples: ex,
		Message: inconsistentFormatMessage(column, formats, n, ne, est)}
}

// formatShare is a layout and its count, scaled to the column.
type formatShare struct {
	format string
	count  int64
}
