package reports

import (
	"fmt"
	"math"
	"sort"
)

// The AI readiness score rates how fit the data in scope is to train or
// feed a machine-learning model, over seven dimensions, each 0-100:
//
//   - completeness, validity, uniqueness, consistency: the quality
//     engine's dimensions of the dataset (docs/quality-score.md), since
//     missing, malformed, duplicated and inconsistent values become a
//     model's errors one for one;
//   - privacy: 100 less 20 points per column of personal data and 40 per
//     column of a special category, each weighted by the classifier's
//     confidence, floored at 0: personal data in a training set is a legal
//     risk before it is a technical one, and special categories (health,
//     beliefs, biometrics) need an Article 9 condition;
//   - volume: 20 points per decade of rows, 100 from 100,000 rows up
//     (10 rows 20, 1,000 rows 60): a model learns little from a handful
//     of rows, and beyond 100,000 more rows rarely change the verdict;
//   - structure: the share of columns that carry signal, that is have an
//     inferred type, more than one distinct value and fewer than half of
//     their values missing.
//
// The overall score is the weighted mean of the seven (DimensionWeights):
// the four quality dimensions weigh 0.6 together because bad values are
// the commonest cause of bad models; privacy 0.2 because it alone can
// forbid the use; volume and structure 0.1 each because they limit what a
// model can learn but rarely make data unusable. An organisation's score
// takes each dimension as the mean over its datasets (each dataset counts
// once, however large, so a huge clean table cannot hide a small broken
// one). Grades: A from 90, B from 80, C from 70, D from 60, F below.
// Certified means ready for use: overall at least CertifyScore and no
// dimension below CertifyFloor, because a weighted mean can hide one
// failing dimension.

// Dimension keys of the AI readiness score, in the order reports list them.
const (
	DimCompleteness = "completeness"
	DimValidity     = "validity"
	DimUniqueness   = "uniqueness"
	DimConsistency  = "consistency"
	DimPrivacy      = "privacy"
	DimVolume       = "volume"
	DimStructure    = "structure"
)

// DimensionWeights are the weights of the overall score; they sum to 1.
var DimensionWeights = []struct {
	Key    string
	Weight float64
}{
	{DimCompleteness, 0.20},
	{DimValidity, 0.20},
	{DimUniqueness, 0.10},
	{DimConsistency, 0.10},
	{DimPrivacy, 0.20},
	{DimVolume, 0.10},
	{DimStructure, 0.10},
}

const (
	// CertifyScore is the least overall score of a certified assessment.
	CertifyScore = 80.0
	// CertifyFloor is the least score of every dimension of a certified
	// assessment.
	CertifyFloor = 60.0

	privacyPersonalCost = 20.0
	privacySpecialCost  = 40.0
	volumeFullRows      = 100000
)

// Assessment is an AI readiness assessment.
type Assessment struct {
	// Score is the overall score (0-100, one decimal) and Grade its letter.
	Score float64
	Grade string
	// Certified is true when the data meets the certification bar;
	// Reasons says why not otherwise.
	Certified bool
	Reasons   []string
	// Dimensions are the seven dimensions, in DimensionWeights' order.
	Dimensions []DimensionScore
	// Datasets is the per-dataset breakdown, in Input order.
	Datasets []DatasetReadiness
	// Recommendations are ranked by impact, highest first.
	Recommendations []Recommendation
}

// DimensionScore is one dimension's score and the evidence behind it.
type DimensionScore struct {
	Key      string
	Score    float64
	Weight   float64
	Evidence string
}

// DatasetReadiness is one dataset's assessment.
type DatasetReadiness struct {
	ID         string
	Name       string
	Score      float64
	Grade      string
	Dimensions []DimensionScore
}

// Grade is the letter of a 0-100 score.
func Grade(score float64) string {
	switch {
	case score >= 90:
		return "A"
	case score >= 80:
		return "B"
	case score >= 70:
		return "C"
	case score >= 60:
		return "D"
	}
	return "F"
}

// round1 rounds to one decimal, the precision every score is shown and
// certified with.
func round1(v float64) float64 { return math.Round(v*10) / 10 }

// Assess scores the datasets.
func Assess(datasets []Dataset) Assessment {
	var a Assessment
	if len(datasets) == 0 {
		a.Grade = Grade(0)
		a.Reasons = []string{"no analysed dataset is in the report's scope"}
		for _, w := range DimensionWeights {
			a.Dimensions = append(a.Dimensions, DimensionScore{Key: w.Key, Weight: w.Weight, Evidence: "no data"})
		}
		return a
	}
	sums := make([]float64, len(DimensionWeights))
	for _, d := range datasets {
		dims := datasetDimensions(d)
		for i, s := range dims {
			sums[i] += s.Score
		}
		score := overall(dims)
		a.Datasets = append(a.Datasets, DatasetReadiness{ID: d.ID, Name: d.Name, Score: score, Grade: Grade(score), Dimensions: dims})
	}
	for i, w := range DimensionWeights {
		a.Dimensions = append(a.Dimensions, DimensionScore{Key: w.Key, Weight: w.Weight,
			Score: round1(sums[i] / float64(len(datasets))), Evidence: organisationEvidence(w.Key, datasets)})
	}
	a.Score = overall(a.Dimensions)
	a.Grade = Grade(a.Score)
	if a.Score < CertifyScore {
		a.Reasons = append(a.Reasons, fmt.Sprintf("the overall score %.1f is below %.0f", a.Score, CertifyScore))
	}
	for _, d := range a.Dimensions {
		if d.Score < CertifyFloor {
			a.Reasons = append(a.Reasons, fmt.Sprintf("%s scores %.1f, below %.0f", d.Key, d.Score, CertifyFloor))
		}
	}
	a.Certified = len(a.Reasons) == 0
	a.Recommendations = Recommend(datasets, true)
	return a
}

// overall is the weighted mean of dimension scores given in
// DimensionWeights' order.
func overall(dims []DimensionScore) float64 {
	var s float64
	for i, w := range DimensionWeights {
		s += w.Weight * dims[i].Score
	}
	return round1(s)
}

// datasetDimensions scores one dataset.
func datasetDimensions(d Dataset) []DimensionScore {
	scores := map[string]DimensionScore{
		DimCompleteness: {Score: d.Dimensions.Completeness, Evidence: fmt.Sprintf("%.1f%% of values present", d.Dimensions.Completeness)},
		DimValidity:     {Score: d.Dimensions.Validity, Evidence: fmt.Sprintf("%.1f%% of values valid for their column", d.Dimensions.Validity)},
		DimUniqueness:   {Score: d.Dimensions.Uniqueness, Evidence: fmt.Sprintf("uniqueness %.1f (duplicate rows and keys)", d.Dimensions.Uniqueness)},
		DimConsistency:  {Score: d.Dimensions.Consistency, Evidence: fmt.Sprintf("consistency %.1f (case, formats, types)", d.Dimensions.Consistency)},
		DimPrivacy:      privacy(d),
		DimVolume:       volume(d.Rows),
		DimStructure:    structure(d),
	}
	out := make([]DimensionScore, len(DimensionWeights))
	for i, w := range DimensionWeights {
		s := scores[w.Key]
		s.Key, s.Weight, s.Score = w.Key, w.Weight, round1(clamp(s.Score))
		out[i] = s
	}
	return out
}

// clamp bounds a score to 0-100; NaN and infinities (a profile stored by
// hand, a division by an empty column) count as 0 so that they can
// neither pass the certification bar nor break the certificate's JSON.
func clamp(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return math.Max(0, math.Min(100, v))
}

func privacy(d Dataset) DimensionScore {
	cost := 0.0
	personal, special := 0, 0
	for _, c := range d.Columns {
		switch {
		case c.Special():
			special++
			cost += privacySpecialCost * c.Confidence
		case c.Personal():
			personal++
			cost += privacyPersonalCost * c.Confidence
		}
	}
	ev := "no personal data found"
	if personal+special > 0 {
		ev = fmt.Sprintf("%d column(s) of personal data, %d of a special category", personal, special)
	}
	return DimensionScore{Score: 100 - cost, Evidence: ev}
}

func volume(rows int64) DimensionScore {
	s := 0.0
	if rows > 0 {
		s = 20 * math.Log10(float64(rows))
	}
	return DimensionScore{Score: s, Evidence: fmt.Sprintf("%d rows (100 from %d)", rows, volumeFullRows)}
}

// structure is the share of columns that carry signal.
func structure(d Dataset) DimensionScore {
	if len(d.Columns) == 0 {
		return DimensionScore{Evidence: "no columns"}
	}
	useful := 0
	for _, c := range d.Columns {
		if c.Type != "" && c.Distinct > 1 && c.NullRate < 0.5 {
			useful++
		}
	}
	return DimensionScore{Score: 100 * float64(useful) / float64(len(d.Columns)),
		Evidence: fmt.Sprintf("%d of %d columns typed, varied and mostly present", useful, len(d.Columns))}
}

// organisationEvidence sums a dimension's evidence over the datasets.
func organisationEvidence(key string, datasets []Dataset) string {
	switch key {
	case DimPrivacy:
		personal, special := 0, 0
		for _, d := range datasets {
			for _, c := range d.Columns {
				if c.Special() {
					special++
				} else if c.Personal() {
					personal++
				}
			}
		}
		return fmt.Sprintf("%d column(s) of personal data and %d of a special category in %d dataset(s)", personal, special, len(datasets))
	case DimVolume:
		var rows int64
		small := 0
		for _, d := range datasets {
			rows += d.Rows
			if d.Rows < volumeFullRows {
				small++
			}
		}
		return fmt.Sprintf("%d rows in %d dataset(s); %d under %d rows", rows, len(datasets), small, volumeFullRows)
	case DimStructure:
		useful, cols := 0, 0
		for _, d := range datasets {
			for _, c := range d.Columns {
				cols++
				if c.Type != "" && c.Distinct > 1 && c.NullRate < 0.5 {
					useful++
				}
			}
		}
		return fmt.Sprintf("%d of %d columns typed, varied and mostly present", useful, cols)
	}
	worst, at := 101.0, ""
	for _, d := range datasets {
		v := clamp(map[string]float64{DimCompleteness: d.Dimensions.Completeness, DimValidity: d.Dimensions.Validity,
			DimUniqueness: d.Dimensions.Uniqueness, DimConsistency: d.Dimensions.Consistency}[key])
		if v < worst {
			worst, at = v, d.Name
		}
	}
	return fmt.Sprintf("mean over %d dataset(s); lowest %.1f (%s)", len(datasets), worst, at)
}

// sortRecommendations sorts recommendations by impact, then dataset, column and
// action, so equal impacts keep one order whatever the input order.
func sortRecommendations(r []Recommendation) {
	sort.SliceStable(r, func(i, j int) bool {
		if r[i].Impact != r[j].Impact {
			return r[i].Impact > r[j].Impact
		}
		if r[i].Dataset != r[j].Dataset {
			return r[i].Dataset < r[j].Dataset
		}
		if r[i].Column != r[j].Column {
			return r[i].Column < r[j].Column
		}
		return r[i].Action < r[j].Action
	})
}
