package suggest

import (
	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
)

// What the analysis tells the pass to count of each column, before it
// reads a row: counting costs, and some fixes are wrong for some kinds of
// column whatever the data says.

// vocabularyLabels are the labels of columns whose values come from a
// vocabulary with spellings to standardise (a city, a status, a country):
// they are clustered and take part in dependencies. Names of people are
// not among them: "Jon" and "John", "Katherine" and "Catherine" are
// different people, not a typo of one another; nor are free text,
// identifiers, addresses or anything personal.
var vocabularyLabels = map[string]bool{
	classify.LabelCategory: true, classify.LabelUnknown: true, "": true,
}

// determinantLabels may determine another column (zip → city, a store's id
// → its town).
var determinantLabels = map[string]bool{
	classify.LabelCategory: true, classify.LabelUnknown: true, "": true,
	classify.LabelPostalCode: true, classify.LabelIdentifier: true,
}

// noCaseLabels are the labels whose letter case is not a spelling: free
// text says what its author wrote, identifiers and secrets are
// case-sensitive, e-mail addresses have their own step.
var noCaseLabels = map[string]bool{
	classify.LabelFreeText: true, classify.LabelIdentifier: true, classify.LabelURL: true,
	classify.LabelPassword: true, classify.LabelPasswordHash: true, classify.LabelSecret: true,
	classify.LabelEmail: true, classify.LabelUsername: true, classify.LabelIBAN: true,
	classify.LabelVIN: true, classify.LabelMAC: true, classify.LabelPassport: true,
	classify.LabelDriverLic: true, classify.LabelBankAccount: true,
}

// numberLabels are the labels of string columns that may hold numbers
// with a decimal comma.
var numberLabels = map[string]bool{
	classify.LabelNumber: true, classify.LabelMoney: true, classify.LabelUnknown: true,
	classify.LabelCategory: true, "": true,
}

func (s *scan) plan(c *column) {
	typ, label := c.a.InferredType, c.a.Classification.Label
	rows := s.res.RowCount
	c.caseOK = (typ == profile.TypeString || typ == profile.TypeBoolean) && !noCaseLabels[label]
	// A vocabulary repeats its values: on average twice or more.
	repeats := c.a.Distinct >= 2 && 2*c.a.Distinct <= nonEmpty(c.a)
	c.clusterOK = typ == profile.TypeString && vocabularyLabels[label] && repeats
	// A determinant needs values of several rows each (standardize's
	// MinRows) over most of the file.
	c.depA = (typ == profile.TypeString || typ == profile.TypeInteger) && determinantLabels[label] &&
		c.a.Distinct >= 2 && 3*c.a.Distinct <= rows
	c.depB = typ == profile.TypeString && vocabularyLabels[label] && c.a.Distinct >= 2
	if (c.caseOK || c.clusterOK || c.depA || c.depB) && c.a.Distinct <= int64(s.opt.MaxDistinct) {
		c.values = newValueTable()
	}
	if c.values == nil {
		c.caseOK, c.clusterOK, c.depA, c.depB = false, false, false, false
	}
	switch label {
	case classify.LabelEmail:
		c.email = &emailScan{}
	case classify.LabelPhone:
		c.phone = newPhoneScan()
	}
	if label == classify.LabelDate || label == classify.LabelDateOfBirth || typ == profile.TypeDate ||
		hasIssue(s.res.Quality.Issues, quality.KindInconsistentFormat, c.name) {
		c.dates = &dateScan{}
	}
	if typ == profile.TypeInteger || typ == profile.TypeFloat || (typ == profile.TypeString && numberLabels[label]) {
		c.dec = &decimalScan{}
	}
}

// planPairs chooses the column pairs counted for dependencies: pairs of
// the first MaxPairColumns candidate columns where one may determine the
// other.
func (s *scan) planPairs() {
	var cand []int
	for i := range s.cols {
		if c := &s.cols[i]; c.depA || c.depB {
			cand = append(cand, i)
		}
		if len(cand) == s.opt.MaxPairColumns {
			break
		}
	}
	for x, i := range cand {
		for _, j := range cand[x+1:] {
			a, b := &s.cols[i], &s.cols[j]
			if (a.depA && b.depB) || (b.depA && a.depB) {
				s.pairs = append(s.pairs, &pairTable{a: i, b: j, counts: map[uint64]int64{}})
			}
		}
	}
}

func nonEmpty(c *analysis.Column) int64 {
	return max(0, c.Count-c.Nulls-c.Empty)
}

func hasIssue(issues []quality.Issue, kind, column string) bool {
	return findIssue(issues, kind, column) != nil
}

func findIssue(issues []quality.Issue, kind, column string) *quality.Issue {
	for i := range issues {
		if issues[i].Kind == kind && issues[i].Column == column {
			return &issues[i]
		}
	}
	return nil
}
