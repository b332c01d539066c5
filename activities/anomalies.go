package activities

import (
	"context"
	"encoding/json"
	"time"

	"go.temporal.io/sdk/activity"

	"github.com/dqs/dqs/anomalies"
	"github.com/dqs/dqs/anomaly"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/suggest"
)

// AnomalyTally counts what a detection found.
type AnomalyTally struct {
	Anomalies int `json:"anomalies"`
	Alerts    int `json:"alerts"`
}

// DetectAnomalies judges every metric value a scan recorded (its tables
// read so far: the workflow runs it once every item is settled) against
// its series' history, table by table, and stores the anomalies with one
// alert per table whose values moved, publishing its webhook event. The
// sensitivity is the schedule's for a scheduled scan, the organisation's
// otherwise. Run again, it replaces what it stored and raises no alert
// twice.
func (a *Activities) DetectAnomalies(ctx context.Context, in ScanRef) (AnomalyTally, error) {
	var tally AnomalyTally
	sc, err := a.openScan(ctx, in)
	if err != nil {
		return tally, err
	}
	src, err := a.Stores.Sources.Get(ctx, in.OrgID, sc.SourceID)
	if err != nil {
		return tally, scanGone(err)
	}
	org, err := a.Stores.Orgs.Get(ctx, in.OrgID)
	if err != nil {
		return tally, scanGone(err)
	}
	sensitivity := a.scanSensitivity(ctx, sc, org)
	// Table by table, so that memory holds one table's points and history
	// at a time, however many tables the scan read.
	tables, err := a.Stores.Scans.Tables(ctx, in.OrgID, sc.ID)
	if err != nil {
		return tally, scanGone(err)
	}
	for _, t := range tables {
		if t.Status != models.ScanCompleted {
			continue
		}
		n, raised, err := a.detectTable(ctx, src, sc.ID, t.TableName, sensitivity, org.AnomalyExplanations)
		if err != nil {
			return tally, scanGone(err)
		}
		tally.Anomalies += n
		if raised {
			tally.Alerts++
		}
	}
	return tally, nil
}

// detectTable judges one table's values of scan scanID and records what it
// found, with the explainer's reading of it when explain; it returns the
// number of anomalies and whether a new alert was raised.
func (a *Activities) detectTable(ctx context.Context, src *models.Source, scanID, table string, s anomaly.Sensitivity, explain bool) (int, bool, error) {
	activity.RecordHeartbeat(ctx)
	current, err := a.Stores.MetricPoints.ByScanTable(ctx, src.OrgID, scanID, table)
	if err != nil || len(current) == 0 {
		return 0, false, err
	}
	history, scanIDs, err := a.Stores.MetricPoints.TableHistory(ctx, src.OrgID, src.ID, table, scanID, anomalies.HistoryScansFor(len(current)))
	if err != nil {
		return 0, false, err
	}
	activity.RecordHeartbeat(ctx)
	statuses, err := a.Stores.Anomalies.Statuses(ctx, src.OrgID, src.ID, table, scanIDs)
	if err != nil {
		return 0, false, err
	}
	incidents := anomaly.Group(anomalies.Judge(current, anomalies.Series(history, statuses), s))
	var records []models.Anomaly
	var alert *models.Alert
	if len(incidents) > 0 {
		records = anomalies.Records(incidents[0]) // one table: one incident
		alert = anomalies.Alert(src, scanID, incidents[0])
	}
	created, err := a.Stores.Anomalies.Record(ctx, src.OrgID, src.ID, scanID, table, records, alert)
	if err == nil && explain && len(incidents) > 0 {
		err = a.explainDrift(ctx, src, scanID, incidents[0])
	}
	if err != nil || alert == nil || a.Events == nil {
		return len(records), created, err
	}
	// Published on every run, not only when the alert is new: a retry after
	// a failed publish must still send it, and the event's id (the alert's
	// key) delivers it once.
	return len(records), created, a.Events.Publish(ctx, anomalies.Event(alert, incidents[0]))
}

// explainDrift adds the anomaly explainer's reading of a table's incident
// to the fix inbox, its confidence calibrated on the organisation's trust
// history of explanations.
func (a *Activities) explainDrift(ctx context.Context, src *models.Source, scanID string, in anomaly.Incident) error {
	d := anomalies.Diagnose(in)
	history, err := a.Stores.Suggestions.History(ctx, src.OrgID)
	if err != nil {
		return err
	}
	h := history[models.TrustKey{Engine: models.EngineAnomaly, CorrectionType: models.ExplanationCorrection}]
	checks, _ := json.Marshal(d.Checks) // []string always encodes
	metrics, _ := json.Marshal(d.Metrics)
	return a.Stores.Suggestions.AddExplanation(ctx, &models.DriftExplanation{OrgID: src.OrgID, SourceID: src.ID, ScanID: scanID,
		TableName: in.Table, Cause: d.Cause, Confidence: suggest.Calibrate(d.Confidence, suggest.Feedback(h)), RawConfidence: d.Confidence,
		Explanation: d.Explanation, Checks: string(checks), Metrics: string(metrics), CreatedAt: time.Now()})
}

// scanSensitivity is the sensitivity a scan's values are judged at: its
// schedule's, or the organisation's for a manual scan (or a schedule
// deleted since) org.
func (a *Activities) scanSensitivity(ctx context.Context, sc *models.Scan, org *models.Organization) anomaly.Sensitivity {
	if sc.ScheduleID != nil {
		sched, err := a.Stores.SourceSchedules.Get(ctx, sc.OrgID, sc.SourceID, *sc.ScheduleID)
		if err == nil {
			if s, err := anomaly.ParseSensitivity(sched.Sensitivity); err == nil {
				return s
			}
		}
	}
	s, err := anomaly.ParseSensitivity(org.AnomalySensitivity)
	if err != nil {
		return anomaly.Medium // a setting stored by hand: the default
	}
	return s
}
