package reports

import (
	"fmt"
	"math"
	"sort"
)

// Recommendation is one step that would improve the data, with the
// estimated number of score points it would win back.
type Recommendation struct {
	Dataset string
	Column  string
	// Action says what to do; Why what it fixes.
	Action string
	Why    string
	// Impact estimates the points of the dataset's score the step would
	// regain (0-100), the ranking key.
	Impact float64
}

// severityFactor scales an issue's impact by how bad the quality engine
// judged it.
var severityFactor = map[string]float64{"critical": 1, "warning": 0.6, "info": 0.3}

// issueAdvice says, per issue kind, what to do and the quality dimension
// (and its weight in the quality score) the fix restores.
var issueAdvice = map[string]struct {
	action func(col string, n int64) string
	weight float64
}{
	"missing_values": {func(c string, n int64) string { return fmt.Sprintf("Fill or drop the %d missing values of %q", n, c) }, 0.35},
	"invalid_format": {func(c string, n int64) string {
		return fmt.Sprintf("Correct the %d values of %q that do not match its format", n, c)
	}, 0.30},
	"type_mismatch": {func(c string, n int64) string {
		return fmt.Sprintf("Convert or remove the %d values of %q not of its type", n, c)
	}, 0.30},
	"outliers":            {func(c string, n int64) string { return fmt.Sprintf("Review the %d outliers of %q", n, c) }, 0.30},
	"duplicate_rows":      {func(_ string, _ int64) string { return "Remove the duplicate rows" }, 0.20},
	"inconsistent_case":   {func(c string, n int64) string { return fmt.Sprintf("Normalise the case of %q (%d values)", c, n) }, 0.15},
	"inconsistent_format": {func(c string, n int64) string { return fmt.Sprintf("Standardise the format of %q (%d values)", c, n) }, 0.15},
	"constant_column": {func(c string, _ int64) string {
		return fmt.Sprintf("Drop %q: it holds a single value and carries no signal", c)
	}, 0.15},
}

// Recommend turns the datasets' quality issues into ranked steps; with
// privacy, their personal-data columns too (pseudonymise before use).
// The impact of an issue is the share of the dataset's rows it touches
// (at most 1) times its severity factor times the weight of the quality
// dimension it hurts, in score points; of a personal column, the privacy
// points it costs (readiness.go) times the privacy weight.
func Recommend(datasets []Dataset, privacy bool) []Recommendation {
	var out []Recommendation
	for _, d := range datasets {
		for _, is := range d.Issues {
			adv, ok := issueAdvice[is.Kind]
			if !ok {
				continue
			}
			share := 1.0
			if d.Rows > 0 {
				share = math.Max(0, math.Min(1, float64(is.Count)/float64(d.Rows)))
			}
			factor, ok := severityFactor[is.Severity]
			if !ok {
				factor = severityFactor["info"]
			}
			out = append(out, Recommendation{Dataset: d.Name, Column: is.Column, Action: adv.action(is.Column, is.Count),
				Why: is.Message, Impact: round1(100 * share * factor * adv.weight)})
		}
		if !privacy {
			continue
		}
		for _, c := range d.Columns {
			if !c.Personal() {
				continue
			}
			cost, what := privacyPersonalCost, "personal data"
			if c.Special() {
				cost, what = privacySpecialCost, "a special category of personal data (GDPR Article 9)"
			}
			out = append(out, Recommendation{Dataset: d.Name, Column: c.Name,
				Action: fmt.Sprintf("Pseudonymise, mask or remove %q before the data is used or shared", c.Name),
				Why:    fmt.Sprintf("%q holds %s (%s, confidence %.2f)", c.Name, what, c.Classification, c.Confidence),
				Impact: round1(cost * c.Confidence * 0.2)})
		}
	}
	sortRecommendations(out)
	if len(out) > MaxRecommendations {
		out = out[:MaxRecommendations]
	}
	return out
}

// MaxRecommendations bounds the recommendations of a report: the ones
// with the most impact; the rest would not be read.
const MaxRecommendations = 200

// Movement is a dataset's score change against its previous analysis.
type Movement struct {
	Dataset  string
	Previous float64
	Current  float64
	Change   float64
}

// MostMoved lists the datasets whose score moved the most (either way)
// since their previous analysis, largest change first, at most n.
func MostMoved(datasets []Dataset, n int) []Movement {
	var out []Movement
	for _, d := range datasets {
		if d.PreviousScore == nil {
			continue
		}
		out = append(out, Movement{Dataset: d.Name, Previous: *d.PreviousScore, Current: d.Score, Change: round1(d.Score - *d.PreviousScore)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		ai, aj := math.Abs(out[i].Change), math.Abs(out[j].Change)
		if ai != aj {
			return ai > aj
		}
		return out[i].Dataset < out[j].Dataset
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// IssueCount is how many issues of a kind and severity the datasets have.
type IssueCount struct {
	Kind     string
	Severity string
	Issues   int
	Values   int64
}

// IssueBreakdown counts the datasets' issues by kind and severity, most
// issues first.
func IssueBreakdown(datasets []Dataset) []IssueCount {
	idx := map[[2]string]int{}
	var out []IssueCount
	for _, d := range datasets {
		for _, is := range d.Issues {
			k := [2]string{is.Kind, is.Severity}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, IssueCount{Kind: is.Kind, Severity: is.Severity})
			}
			out[i].Issues++
			out[i].Values += is.Count
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Issues != out[j].Issues {
			return out[i].Issues > out[j].Issues
		}
		if ri, rj := SeverityRank(out[i].Severity), SeverityRank(out[j].Severity); ri != rj {
			return ri < rj
		}
		if out[i].Kind != out[j].Kind {
			return out[i].Kind < out[j].Kind
		}
		return out[i].Severity < out[j].Severity
	})
	return out
}

// severityRank orders severities worst first.
var severityRank = map[string]int{"critical": 0, "warning": 1, "info": 2}

// SeverityRank is a severity's rank, worst first (critical 0, warning 1,
// info 2); an unknown one comes last.
func SeverityRank(severity string) int {
	if r, ok := severityRank[severity]; ok {
		return r
	}
	return len(severityRank)
}

// ComplianceStatus is a dataset's GDPR status in the compliance report.
type ComplianceStatus string

const (
	// StatusNoPersonalData: no column classified as personal data.
	StatusNoPersonalData ComplianceStatus = "no personal data detected"
	// StatusReview: personal data, to be covered by the record of
	// processing and a lawful basis.
	StatusReview ComplianceStatus = "personal data: review"
	// StatusActionRequired: a special category, or personal data kept
	// without a time limit for erasure.
	StatusActionRequired ComplianceStatus = "action required"
)

// Compliance is a dataset's status and why.
func Compliance(d Dataset) (ComplianceStatus, string) {
	personal, special := 0, 0
	for _, c := range d.Columns {
		if c.Special() {
			special++
		} else if c.Personal() {
			personal++
		}
	}
	switch {
	case special > 0:
		return StatusActionRequired, fmt.Sprintf("%d column(s) of a special category need an Article 9 condition", special)
	case personal > 0 && d.Kind == KindTable:
		return StatusReview, fmt.Sprintf("%d column(s) of personal data held in the source; its retention is the source's", personal)
	case personal > 0 && d.ErasedAt != nil:
		return StatusReview, fmt.Sprintf("%d column(s) of personal data; the raw file was erased on %s, its profile remains", personal, d.ErasedAt.UTC().Format("2006-01-02"))
	case personal > 0 && d.ErasureDueAt == nil:
		return StatusActionRequired, fmt.Sprintf("%d column(s) of personal data kept without an erasure date", personal)
	case personal > 0:
		return StatusReview, fmt.Sprintf("%d column(s) of personal data", personal)
	}
	return StatusNoPersonalData, "no column was classified as personal data"
}
