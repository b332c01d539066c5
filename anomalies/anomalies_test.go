package anomalies

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/anomaly"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
)

var t0 = time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)

// history is n daily scans of a table of 1,000 rows whose email column is
// 10% null, and the scan after it, whose points are current.
func history(n int, current map[string]float64) ([]models.MetricPoint, []models.MetricPoint) {
	var past []models.MetricPoint
	for i := range n {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		id := "scn_" + string(rune('a'+i))
		past = append(past,
			models.MetricPoint{ScanID: id, TableName: "customers", Metric: "row_count", Value: 1000, RecordedAt: at},
			models.MetricPoint{ScanID: id, TableName: "customers", ColumnName: "email", Metric: "null_rate", Value: 0.1, RecordedAt: at},
			models.MetricPoint{ScanID: id, TableName: "customers", Metric: "quality_score", Value: 95, RecordedAt: at})
	}
	at := t0.Add(time.Duration(n) * 24 * time.Hour)
	cur := []models.MetricPoint{
		{ScanID: "scn_now", TableName: "customers", Metric: "row_count", Value: current["row_count"], RecordedAt: at},
		{ScanID: "scn_now", TableName: "customers", ColumnName: "email", Metric: "null_rate", Value: current["null_rate"], RecordedAt: at},
		{ScanID: "scn_now", TableName: "customers", Metric: "quality_score", Value: current["quality_score"], RecordedAt: at},
	}
	return past, cur
}

// TestSeriesStates: each point of a series takes the state its scan's
// anomaly left it in.
func TestSeriesStates(t *testing.T) {
	past, _ := history(3, nil)
	email := models.SeriesKey{Column: "email", Metric: "null_rate"}
	statuses := map[string]map[models.SeriesKey]string{
		"scn_a": {email: models.AnomalyOpen},
		"scn_b": {email: models.AnomalyExpected},
		"scn_c": {email: models.AnomalyConfirmed, {Metric: "row_count"}: models.AnomalyOpen},
	}
	series := Series(past, statuses)
	want := []anomaly.State{anomaly.Flagged, anomaly.Expected, anomaly.Confirmed}
	for i, p := range series[email] {
		if p.State != want[i] || p.Value != 0.1 || !p.At.Equal(t0.Add(time.Duration(i)*24*time.Hour)) {
			t.Errorf("email point %d = %+v, want state %v", i, p, want[i])
		}
	}
	rows := series[models.SeriesKey{Metric: "row_count"}]
	if len(rows) != 3 || rows[0].State != anomaly.Normal || rows[2].State != anomaly.Flagged {
		t.Fatalf("row_count series = %+v", rows)
	}
}

// TestBrokenLoadIsOneIncident: a load that lost half the rows and made
// emails null is one incident with both metrics, its rows and alert
// shaped for the stores, and a quality_drop event; a calm scan finds
// nothing.
func TestBrokenLoadIsOneIncident(t *testing.T) {
	past, calm := history(20, map[string]float64{"row_count": 1000, "null_rate": 0.1, "quality_score": 95})
	series := Series(past, nil)
	if got := anomaly.Group(Judge(calm, series, anomaly.Medium)); len(got) != 0 {
		t.Fatalf("a calm scan raised %+v", got)
	}
	_, broken := history(20, map[string]float64{"row_count": 500, "null_rate": 0.6, "quality_score": 70})
	incidents := anomaly.Group(Judge(broken, series, anomaly.Medium))
	if len(incidents) != 1 {
		t.Fatalf("incidents = %+v, want one for the table", incidents)
	}
	in := incidents[0]
	if in.Primary.Metric != "null_rate" || len(in.Related) != 2 {
		t.Fatalf("incident led by %s with %d related, want null_rate (farthest) with row_count and quality_score", in.Primary.Metric, len(in.Related))
	}
	records := Records(in)
	if len(records) != 3 || records[0].ColumnName != "email" || records[0].CurrentValue != 0.6 || records[0].Status != models.AnomalyOpen ||
		!strings.Contains(records[0].Explanation, "In the same scan: ") || records[0].Sensitivity != "medium" {
		t.Fatalf("records = %+v", records)
	}
	var b anomaly.Baseline
	if err := json.Unmarshal([]byte(records[0].Baseline), &b); err != nil || b.N != 20 || b.Median != 0.1 {
		t.Fatalf("stored baseline = %s (%v)", records[0].Baseline, err)
	}
	src := &models.Source{ID: 7, Name: "warehouse"}
	a := Alert(src, "scn_now", in)
	if a.DedupKey != AlertKey("scn_now", "customers") || a.Severity != models.SeverityCritical || a.Type != models.AlertAnomaly ||
		*a.SourceID != 7 || !a.CreatedAt.Equal(in.Primary.Verdict.At) ||
		!strings.HasPrefix(a.Message, "Anomaly in customers (source warehouse): null_rate of customers.email was 0.6, expected") ||
		!strings.Contains(a.Message, "with it: ") {
		t.Fatalf("alert = %+v", a)
	}
	a.OrgID = "org-1"
	if e := Event(a, in); e.Type != events.QualityDrop || e.ID != a.DedupKey || e.OrgID != "org-1" || e.Text != in.Explain() {
		t.Fatalf("event = %+v, want quality_drop (the score fell with it)", e)
	}
	// Without the quality score falling it is a new issue; a lead close
	// to the threshold is a warning.
	in.Related = nil
	if e := Event(a, in); e.Type != events.NewIssue {
		t.Fatalf("event type = %s, want new_issue", e.Type)
	}
	in.Primary.Verdict.Score = in.Primary.Verdict.Threshold + 0.1
	if a := Alert(src, "scn_now", in); a.Severity != models.SeverityWarning {
		t.Fatalf("severity = %s, want warning", a.Severity)
	}
}

// TestJudgeKnowsTheRowCount: a share is judged with the table's sampling
// noise, so a null rate of a 200-row table moving by two rows is noise.
func TestJudgeKnowsTheRowCount(t *testing.T) {
	var past []models.MetricPoint
	for i := range 20 {
		at := t0.Add(time.Duration(i) * 24 * time.Hour)
		past = append(past, models.MetricPoint{ScanID: "s", TableName: "t", ColumnName: "c", Metric: "null_rate", Value: 0.1, RecordedAt: at})
	}
	at := t0.Add(20 * 24 * time.Hour)
	cur := []models.MetricPoint{
		{TableName: "t", Metric: "row_count", Value: 200, RecordedAt: at},
		{TableName: "t", ColumnName: "c", Metric: "null_rate", Value: 0.11, RecordedAt: at},
	}
	for _, f := range Judge(cur, Series(past, nil), anomaly.High) {
		if f.Metric == "null_rate" && f.Verdict.Anomalous {
			t.Fatalf("0.10 to 0.11 over 200 rows flagged: %+v", f.Verdict)
		}
	}
	cur[0].Value = 1_000_000 // the same move over a million rows is not noise
	for _, f := range Judge(cur, Series(past, nil), anomaly.High) {
		if f.Metric == "null_rate" && !f.Verdict.Anomalous {
			t.Fatalf("0.10 to 0.11 over a million rows not flagged: %+v", f.Verdict)
		}
	}
}

// TestHistoryScansFor: a table's history holds HistoryScans scans, fewer
// for a wide table, never fewer than a judgement needs.
func TestHistoryScansFor(t *testing.T) {
	for _, c := range []struct{ points, want int }{
		{0, HistoryScans}, {30, HistoryScans}, {2083, HistoryScans}, {2084, 119}, {18_000, 13}, {90_000, anomaly.WarmUp + anomaly.AdaptAfter},
	} {
		if got := HistoryScansFor(c.points); got != c.want {
			t.Errorf("HistoryScansFor(%d) = %d, want %d", c.points, got, c.want)
		}
	}
}
