package reports

import (
	"fmt"
)

// topRecommendations is how many steps a basic report lists: enough to
// act on, few enough to read.
const topRecommendations = 15

// executive lays out the executive summary: where quality stands, where
// it goes, what hurts it and what to do first.
func (d *doc) executive() {
	datasets := d.in.Datasets
	d.heading("Overall quality")
	if len(datasets) == 0 {
		d.big("n/a", "no analysed dataset in scope")
	} else {
		d.big(score1(meanScore(datasets))+" / 100",
			fmt.Sprintf("mean quality score of %d analysed dataset(s)", len(datasets)))
	}
	// Keep the heading, its sentence and the chart on one page.
	d.ensure(chartHeight + 25)
	d.heading("Trend over time")
	d.para(trendWords(d.in.Trend, "The mean quality score"))
	d.lineChart(d.in.Trend)

	d.issueBreakdown(datasets)
	d.mostMoved(datasets)
	d.openAlerts()

	d.heading("Recommendations")
	limit := topRecommendations
	if d.in.Level == Advanced {
		limit = 0
	}
	d.recommendations(Recommend(datasets, false), limit)
	d.datasetScores(datasets)
	if d.in.Level == Advanced {
		for _, ds := range datasets {
			d.executiveDataset(ds)
		}
	}
}

func meanScore(datasets []Dataset) float64 {
	var s float64
	for _, ds := range datasets {
		s += ds.Score
	}
	return s / float64(len(datasets))
}

// trendWords puts a score series' first and last points in a sentence.
func trendWords(pts []ScorePoint, what string) string {
	switch len(pts) {
	case 0:
		return "No score was recorded in the period."
	case 1:
		return fmt.Sprintf("%s was %s on %s, the only point in the period.", what, score1(pts[0].Score), day(pts[0].At))
	}
	first, last := pts[0], pts[len(pts)-1]
	change := round1(last.Score - first.Score)
	move := "no change"
	switch {
	case change > 0:
		move = "a rise of " + score1(change) + " points"
	case change < 0:
		move = "a fall of " + score1(-change) + " points"
	}
	return fmt.Sprintf("%s went from %s on %s to %s on %s: %s.", what,
		score1(first.Score), day(first.At), score1(last.Score), day(last.At), move)
}

func (d *doc) issueBreakdown(datasets []Dataset) {
	d.heading("Issues by kind and severity")
	counts := IssueBreakdown(datasets)
	rows := make([][]string, len(counts))
	bars := make([]bar, len(counts))
	top := 0.0
	for i, c := range counts {
		rows[i] = []string{orDash(c.Kind), orDash(c.Severity), count(int64(c.Issues)), count(c.Values)}
		bars[i] = bar{label: c.Kind + " (" + c.Severity + ")", value: float64(c.Issues),
			text: count(int64(c.Issues)), colour: severityColour(c.Severity)}
		top = max(top, float64(c.Issues))
	}
	d.table(table{cols: []col{{"Kind", 0.35, false}, {"Severity", 0.2, false}, {"Issues", 0.2, true}, {"Values affected", 0.25, true}},
		rows: rows, empty: "No quality issue was found."})
	d.barChart(bars, top)
}

func severityColour(s string) rgb {
	switch s {
	case "critical":
		return colourPoor
	case "warning":
		return colourFair
	}
	return colourAccent
}

func (d *doc) mostMoved(datasets []Dataset) {
	d.heading("Datasets that moved most")
	moves := MostMoved(datasets, 10)
	rows := make([][]string, len(moves))
	for i, m := range moves {
		rows[i] = []string{m.Dataset, score1(m.Previous), score1(m.Current), signed(m.Change)}
	}
	d.table(table{cols: []col{{"Dataset", 0.55, false}, {"Previous", 0.15, true}, {"Current", 0.15, true}, {"Change", 0.15, true}},
		rows: rows, empty: "No dataset has an earlier analysis to compare with."})
}

func (d *doc) openAlerts() {
	d.heading("Open alerts")
	total := max(d.in.OpenAlertsTotal, int64(len(d.in.OpenAlerts)))
	switch {
	case total == 0:
		d.para("No open alert.")
		return
	case int64(len(d.in.OpenAlerts)) < total:
		d.para(fmt.Sprintf("%s open alert(s); the %d newest are listed.", count(total), len(d.in.OpenAlerts)))
	default:
		d.para(fmt.Sprintf("%s open alert(s).", count(total)))
	}
	rows := make([][]string, len(d.in.OpenAlerts))
	for i, a := range d.in.OpenAlerts {
		rows[i] = []string{stamp(a.RaisedAt), orDash(a.Severity), orDash(a.Kind), a.Title}
	}
	d.table(table{cols: []col{{"Raised", 0.2, false}, {"Severity", 0.12, false}, {"Kind", 0.2, false}, {"Alert", 0.48, false}},
		rows: rows, empty: "The newest alerts were not provided."})
}

func (d *doc) datasetScores(datasets []Dataset) {
	d.heading("Datasets")
	rows := make([][]string, len(datasets))
	for i, ds := range datasets {
		dm := ds.Dimensions
		rows[i] = []string{ds.Name, count(ds.Rows), score1(ds.Score), score1(dm.Completeness),
			score1(dm.Validity), score1(dm.Uniqueness), score1(dm.Consistency)}
	}
	d.table(table{cols: []col{{"Dataset", 0.26, false}, {"Rows", 0.12, true}, {"Score", 0.09, true},
		{"Completeness", 0.15, true}, {"Validity", 0.12, true}, {"Uniqueness", 0.13, true}, {"Consistency", 0.13, true}},
		rows: rows, empty: "No analysed dataset in scope."})
}

// executiveDataset is the advanced report's page on one dataset.
func (d *doc) executiveDataset(ds Dataset) {
	d.pdf.AddPage()
	d.heading("Dataset: " + ds.Name)
	d.datasetFacts(ds)
	d.ensure(chartHeight + 20)
	d.subheading("Score history")
	d.para(trendWords(ds.History, "The score"))
	d.lineChart(ds.History)
	d.subheading("Columns")
	d.columnTable(ds.Columns, fieldName, fieldType, fieldScore, fieldNullRate, fieldDistinct)
	d.subheading("Issues")
	rows := make([][]string, len(ds.Issues))
	for i, is := range ds.Issues {
		rows[i] = []string{orDash(is.Kind), orDash(is.Column), orDash(is.Severity), count(is.Count), is.Message}
	}
	d.table(table{cols: []col{{"Kind", 0.17, false}, {"Column", 0.18, false}, {"Severity", 0.11, false},
		{"Values", 0.1, true}, {"Message", 0.44, false}},
		rows: rows, empty: "No quality issue was found."})
}
