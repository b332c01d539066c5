package reports

import (
	"fmt"
	"strings"
)

// verifyHint tells a third party how to check a certificate.
const verifyHint = "Verify at POST /api/v1/ai-readiness/certificates/verify with this hash."

// readiness lays out the AI readiness report: the verdict first (grade,
// score, certification), then the dimensions and datasets behind it, the
// way to improve it, the certificate and how the score is computed.
func (d *doc) readiness() {
	a := d.assessment()
	d.heading("Overall score")
	d.big(a.Grade+"   "+score1(a.Score)+" / 100",
		fmt.Sprintf("AI readiness grade and score over %d dataset(s)", len(a.Datasets)))
	d.certification(a)

	d.heading("Dimensions")
	d.dimensionTable(a.Dimensions)
	labels := make([]string, len(a.Dimensions))
	scores := make([]float64, len(a.Dimensions))
	for i, s := range a.Dimensions {
		labels[i], scores[i] = capital(s.Key), s.Score
	}
	d.barChart(scoreBars(labels, scores), 100)

	d.readinessDatasets(a.Datasets)
	d.gradeHistory(a)
	d.heading("Recommendations")
	limit := topRecommendations
	if d.in.Level == Advanced {
		limit = 0
	}
	d.recommendations(a.Recommendations, limit)
	if d.in.Certificate != nil {
		d.certificate(*d.in.Certificate)
	}
	d.method()
	if d.in.Level == Advanced {
		d.readinessDetails(a.Datasets)
	}
}

// assessment is the report's assessment: the service's when it gave one
// (it is what the certificate was issued for), else computed here.
func (d *doc) assessment() Assessment {
	if d.in.Readiness != nil {
		return *d.in.Readiness
	}
	return Assess(d.in.Datasets)
}

func (d *doc) certification(a Assessment) {
	d.ensure(2 * bodyLine)
	d.font("B", 12)
	if a.Certified {
		d.colour(colourGood)
		d.pdf.MultiCell(0, 6, d.txt("Certified"), "", "L", false)
		d.body()
		d.para("The data meets the certification bar.")
		return
	}
	d.colour(colourPoor)
	d.pdf.MultiCell(0, 6, d.txt("Not certified"), "", "L", false)
	d.body()
	if len(a.Reasons) > 0 {
		d.bullets(a.Reasons)
	}
}

func (d *doc) dimensionTable(dims []DimensionScore) {
	rows := make([][]string, len(dims))
	for i, s := range dims {
		rows[i] = []string{capital(s.Key), score1(s.Score), fmt.Sprintf("%.2f", s.Weight), s.Evidence}
	}
	d.table(table{cols: []col{{"Dimension", 0.18, false}, {"Score", 0.1, true}, {"Weight", 0.1, true}, {"Evidence", 0.62, false}},
		rows: rows, empty: "No dimension was scored."})
}

// readinessDatasets is the per-dataset breakdown, one column per
// dimension in DimensionWeights' order.
func (d *doc) readinessDatasets(sets []DatasetReadiness) {
	d.heading("Datasets")
	cols := []col{{"Dataset", 0.24, false}, {"Score", 0.08, true}, {"Grade", 0.08, false}}
	for _, w := range DimensionWeights {
		cols = append(cols, col{dimensionAbbrev(w.Key), 0.086, true})
	}
	rows := make([][]string, len(sets))
	for i, r := range sets {
		row := []string{r.Name, score1(r.Score), r.Grade}
		for _, w := range DimensionWeights {
			row = append(row, dimensionScore(r.Dimensions, w.Key))
		}
		rows[i] = row
	}
	d.table(table{cols: cols, rows: rows, empty: "No analysed dataset in scope."})
}

// dimensionAbbrev shortens a dimension's name to fit a narrow column.
func dimensionAbbrev(key string) string {
	switch key {
	case DimCompleteness:
		return "Compl."
	case DimUniqueness:
		return "Uniq."
	case DimConsistency:
		return "Consist."
	case DimStructure:
		return "Struct."
	}
	return capital(key)
}

// dimensionScore finds a dimension by key rather than position: an
// assessment handed in by the service need not list all seven.
func dimensionScore(dims []DimensionScore, key string) string {
	for _, s := range dims {
		if s.Key == key {
			return score1(s.Score)
		}
	}
	return "-"
}

// gradeHistory shows the earlier reports' grades and this one's last.
func (d *doc) gradeHistory(a Assessment) {
	d.heading("Grade history")
	history := append(append([]GradePoint(nil), d.in.GradeHistory...),
		GradePoint{At: d.in.GeneratedAt, Grade: a.Grade, Score: a.Score})
	rows := make([][]string, len(history))
	pts := make([]ScorePoint, len(history))
	for i, g := range history {
		report := ""
		if i == len(history)-1 {
			report = "this report"
		}
		rows[i] = []string{day(g.At), orDash(g.Grade), score1(g.Score), report}
		pts[i] = ScorePoint{At: g.At, Score: g.Score}
	}
	d.table(table{cols: []col{{"Date", 0.25, false}, {"Grade", 0.15, false}, {"Score", 0.15, true}, {"", 0.45, false}}, rows: rows})
	if len(pts) < 2 {
		d.note("This is the first AI readiness report: no earlier grade to compare with.")
		return
	}
	d.lineChart(pts)
}

func (d *doc) certificate(c Certificate) {
	d.heading("Certificate")
	d.kvMono("Verification hash", c.VerificationHash)
	d.kv("Grade", orDash(c.Grade))
	d.kv("Score", score1(c.Score))
	d.kv("Issued at", stamp(c.IssuedAt))
	certified := "no"
	if c.Certified {
		certified = "yes"
	}
	d.kv("Certified", certified)
	d.pdf.Ln(2)
	d.para(verifyHint)
}

// method summarises the doc comment of readiness.go. The figures come
// from its constants, so the text cannot drift from the computation.
func (d *doc) method() {
	d.heading("How the score is computed")
	d.para("The AI readiness score rates how fit the data in scope is to train or feed a machine-learning model, over seven dimensions, each scored 0-100:")
	d.bullets([]string{
		"Completeness, validity, uniqueness and consistency: the quality engine's dimensions of each dataset, since missing, malformed, duplicated and inconsistent values become a model's errors one for one.",
		fmt.Sprintf("Privacy: 100 less %.0f points per column of personal data and %.0f per column of a special category, each weighted by the classifier's confidence, floored at 0.",
			privacyPersonalCost, privacySpecialCost),
		fmt.Sprintf("Volume: 20 points per decade of rows (10 rows 20, 1,000 rows 60), 100 from %s rows up.", count(volumeFullRows)),
		"Structure: the share of columns that carry signal, that is have an inferred type, more than one distinct value and fewer than half of their values missing.",
	})
	weights := make([]string, len(DimensionWeights))
	for i, w := range DimensionWeights {
		weights[i] = fmt.Sprintf("%s %.0f%%", w.Key, 100*w.Weight)
	}
	d.para("The overall score is the weighted mean of the seven: " + strings.Join(weights, ", ") +
		". An organisation's score takes each dimension as the mean over its datasets; each dataset counts once, however large, so a large clean table cannot hide a small broken one.")
	d.para("Grades: A from 90, B from 80, C from 70, D from 60, F below 60.")
	d.para(fmt.Sprintf("Certified means ready for use: an overall score of at least %.0f and no dimension below %.0f, because a weighted mean can hide one failing dimension.",
		CertifyScore, CertifyFloor))
}

// readinessDetails is the advanced report's page per dataset.
func (d *doc) readinessDetails(sets []DatasetReadiness) {
	byID := make(map[string]int, len(d.in.Datasets)) // lookup only
	for i, ds := range d.in.Datasets {
		byID[ds.ID] = i
	}
	for _, r := range sets {
		d.pdf.AddPage()
		d.heading("Dataset: " + r.Name)
		d.kv("AI readiness", orDash(r.Grade)+", "+score1(r.Score)+" / 100")
		i, ok := byID[r.ID]
		if ok {
			d.datasetFacts(d.in.Datasets[i])
		}
		d.subheading("Dimensions")
		d.dimensionTable(r.Dimensions)
		if !ok {
			continue
		}
		d.subheading("Columns")
		d.columnTable(d.in.Datasets[i].Columns, fieldName, fieldType, fieldClass, fieldCategory, fieldNullRate, fieldDistinct)
	}
}
