// Package anomalies turns a scan's metric points into anomaly records and
// alerts: it builds each series of a table from the metric history (with
// what users made of earlier anomalies), has the anomaly engine judge the
// scan's values, and shapes what the stores keep and the webhooks send.
// The scan activities call it after a scan completes.
package anomalies

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/dqs/dqs/anomaly"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/scanner"
)

// HistoryScans is how many earlier scans of a source a table's series are
// read from: more than the engine's window, so that a new level and a
// weekly pattern of daily scans are seen.
const HistoryScans = 120

// maxHistoryPoints bounds the points of one table's history held at once.
const maxHistoryPoints = 250_000

// HistoryScansFor is how many earlier scans are read for a table whose
// scan recorded points metric values: HistoryScans, fewer for a table so
// wide that they would pass maxHistoryPoints (a table of 2,000 columns
// keeps 13 scans: past the warm-up, short of a weekly pattern).
func HistoryScansFor(points int) int {
	return max(anomaly.WarmUp+anomaly.AdaptAfter, min(HistoryScans, maxHistoryPoints/max(points, 1)))
}

// stateOf is the engine's reading of an anomaly's status.
func stateOf(status string) anomaly.State {
	switch status {
	case models.AnomalyExpected:
		return anomaly.Expected
	case models.AnomalyConfirmed:
		return anomaly.Confirmed
	case "":
		return anomaly.Normal
	}
	return anomaly.Flagged
}

// Series groups a table's history into its series, oldest first, each
// point in the state its anomaly (if any) left it: statuses maps a scan and
// series to the status of the anomaly recorded there.
func Series(history []models.MetricPoint, statuses map[string]map[models.SeriesKey]string) map[models.SeriesKey][]anomaly.Point {
	out := map[models.SeriesKey][]anomaly.Point{}
	for _, p := range history {
		k := models.SeriesKey{Column: p.ColumnName, Metric: p.Metric}
		out[k] = append(out[k], anomaly.Point{At: p.RecordedAt, Value: p.Value, State: stateOf(statuses[p.ScanID][k])})
	}
	return out
}

// Judge evaluates each of a table's current points against its series, at
// the sensitivity; shares are judged knowing the table's row count (their
// sampling noise).
func Judge(current []models.MetricPoint, series map[models.SeriesKey][]anomaly.Point, s anomaly.Sensitivity) []anomaly.Finding {
	var rows int64
	for _, p := range current {
		if p.ColumnName == "" && p.Metric == scanner.MetricRowCount {
			rows = int64(p.Value)
		}
	}
	out := make([]anomaly.Finding, len(current))
	for i, p := range current {
		k := models.SeriesKey{Column: p.ColumnName, Metric: p.Metric}
		v := anomaly.Evaluate(series[k], anomaly.Point{At: p.RecordedAt, Value: p.Value},
			anomaly.Options{Sensitivity: s, Scale: anomaly.ScaleOf(p.Metric), Rows: rows})
		out[i] = anomaly.Finding{Table: p.TableName, Column: p.ColumnName, Metric: p.Metric, Verdict: v}
	}
	return out
}

// MaxRecords bounds the anomaly rows of one incident: the farthest from
// their baselines are kept (the explanation says how many moved).
const MaxRecords = 1000

// Records are the anomaly rows of an incident, lead finding first, at most
// MaxRecords of them.
func Records(in anomaly.Incident) []models.Anomaly {
	all := append([]anomaly.Finding{in.Primary}, in.Related...)
	all = all[:min(len(all), MaxRecords)]
	out := make([]models.Anomaly, len(all))
	for i, f := range all {
		v := f.Verdict
		raw, err := json.Marshal(finiteBaseline(v.Baseline))
		if err != nil { // numbers and times only: cannot fail
			raw = []byte("{}")
		}
		out[i] = models.Anomaly{ColumnName: f.Column, Metric: f.Metric, CurrentValue: finite(v.Value), Low: finite(v.Low), High: finite(v.High),
			Score: finite(v.Score), Baseline: string(raw), Sensitivity: string(v.Sensitivity), Explanation: f.Explain(),
			Status: models.AnomalyOpen, DetectedAt: v.At}
	}
	// The lead anomaly explains the whole incident.
	out[0].Explanation = in.Explain()
	return out
}

// finite keeps a number storable and encodable: an overflow (a level
// near the float64 limit) becomes the largest finite value of its sign,
// NaN zero.
func finite(v float64) float64 {
	switch {
	case math.IsNaN(v):
		return 0
	case math.IsInf(v, 1):
		return math.MaxFloat64
	case math.IsInf(v, -1):
		return -math.MaxFloat64
	}
	return v
}

// finiteBaseline is b with every number finite.
func finiteBaseline(b anomaly.Baseline) anomaly.Baseline {
	for _, f := range []*float64{&b.Center, &b.Spread, &b.Mean, &b.StdDev, &b.Median, &b.MAD, &b.Trend} {
		*f = finite(*f)
	}
	return b
}

// AlertKey is the dedup key of the alert of table's incident in scan
// scanID.
func AlertKey(scanID, table string) string {
	return fmt.Sprintf("anomaly/%s/%s", scanID, models.NameHash(table))
}

// Alert is the alert of an incident of source src in scan scanID: critical
// when its lead value is twice the threshold or more from its baseline,
// a warning otherwise.
func Alert(src *models.Source, scanID string, in anomaly.Incident) *models.Alert {
	severity := models.SeverityWarning
	if v := in.Primary.Verdict; math.Abs(v.Score) >= 2*v.Threshold {
		severity = models.SeverityCritical
	}
	id := src.ID
	return &models.Alert{DedupKey: AlertKey(scanID, in.Table), Severity: severity, Type: models.AlertAnomaly,
		Message: Message(src.Name, in), SourceID: &id, CreatedAt: in.Primary.Verdict.At}
}

// Message is an incident in one or two lines: where, the lead value against
// its band, and how many other metrics moved with it.
func Message(sourceName string, in anomaly.Incident) string {
	v := in.Primary.Verdict
	var b strings.Builder
	fmt.Fprintf(&b, "Anomaly in %s (source %s): %s was %s, expected %s to %s", in.Table, sourceName, in.Primary.Subject(),
		num(v.Value), num(v.Low), num(v.High))
	if n := len(in.Related); n > 0 {
		names := make([]string, min(n, 5))
		for i := range names {
			names[i] = in.Related[i].Subject()
		}
		more := ""
		if n > len(names) {
			more = fmt.Sprintf(" and %d more", n-len(names))
		}
		fmt.Fprintf(&b, "; with it: %s%s", strings.Join(names, ", "), more)
	}
	return b.String()
}

func num(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.4g", v), ".0") }

// Event is the webhook event of an incident's new alert: quality_drop when
// the table's quality score fell with it, new_issue otherwise.
func Event(a *models.Alert, in anomaly.Incident) events.Event {
	typ := events.NewIssue
	for _, f := range append([]anomaly.Finding{in.Primary}, in.Related...) {
		if f.Metric == "quality_score" && f.Verdict.Score < 0 {
			typ = events.QualityDrop
		}
	}
	return events.Event{ID: a.DedupKey, Type: typ, OrgID: a.OrgID, Title: fmt.Sprintf("Anomaly in %s", in.Table),
		Text: in.Explain(), OccurredAt: a.CreatedAt}
}
