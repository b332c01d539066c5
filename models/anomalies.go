package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/dqs/dqs/errs"
)

// Anomaly statuses: open as detected; a user marks it expected (the value
// trains later baselines) or confirmed (a real incident: it stays out of
// them).
const (
	AnomalyOpen      = "open"
	AnomalyExpected  = "expected"
	AnomalyConfirmed = "confirmed"
)

// Anomaly is a metric value of a scan that anomaly detection flagged.
type Anomaly struct {
	ID           int64     `gorm:"primaryKey;autoIncrement"`
	OrgID        string    `gorm:"size:36;not null;index:idx_anomalies_org_source_detected,priority:1;uniqueIndex:idx_anomalies_scan_series,priority:1"`
	SourceID     int64     `gorm:"not null;index:idx_anomalies_org_source_detected,priority:2"`
	ScanID       string    `gorm:"size:36;not null;uniqueIndex:idx_anomalies_scan_series,priority:2"`
	TableName    string    `gorm:"size:1024;not null"`
	ColumnName   string    `gorm:"size:1024;not null;default:''"`
	Metric       string    `gorm:"size:64;not null;uniqueIndex:idx_anomalies_scan_series,priority:5"`
	TableHash    string    `gorm:"size:64;not null;uniqueIndex:idx_anomalies_scan_series,priority:3"`
	ColumnHash   string    `gorm:"size:64;not null;uniqueIndex:idx_anomalies_scan_series,priority:4"`
	CurrentValue float64   `gorm:"not null"`
	Low          float64   `gorm:"not null"` // the expected band
	High         float64   `gorm:"not null"`
	Score        float64   `gorm:"not null"`
	Baseline     string    `gorm:"type:text;not null"` // JSON
	Sensitivity  string    `gorm:"size:8;not null"`
	Explanation  string    `gorm:"type:text;not null"`
	Status       string    `gorm:"size:16;not null"`
	AlertID      *int64    `gorm:"index"`
	DetectedAt   time.Time `gorm:"not null;index:idx_anomalies_org_source_detected,priority:3"`
}

// Alert types and severities (DECISIONS.md).
const (
	AlertAnomaly           = "anomaly"
	AlertScanFailure       = "scan_failure"
	AlertContractViolation = "contract_violation"
	AlertQualityDrop       = "quality_drop"
	AlertNewIssue          = "new_issue"
	SeverityInfo           = "info"
	SeverityWarning        = "warning"
	SeverityCritical       = "critical"
	maxAlertKeyBytes       = 200
	maxAnomalyPerTable     = 20_000
)

// Alert is something an organisation should look at.
type Alert struct {
	ID    int64  `gorm:"primaryKey;autoIncrement"`
	OrgID string `gorm:"size:36;not null;index:idx_alerts_org_created,priority:1;uniqueIndex:idx_alerts_org_key,priority:1"`
	// DedupKey names what raised the alert ("anomaly/<scan>/<table
	// hash>"), so raising it again (a retried activity) stores it once.
	DedupKey       string    `gorm:"size:200;not null;uniqueIndex:idx_alerts_org_key,priority:2"`
	Severity       string    `gorm:"size:16;not null"`
	Type           string    `gorm:"size:32;not null"`
	Message        string    `gorm:"type:text;not null"`
	SourceID       *int64    `gorm:"index"`
	FileID         *int64    `gorm:"index"`
	CreatedAt      time.Time `gorm:"not null;index:idx_alerts_org_created,priority:2"`
	AcknowledgedAt *time.Time
	AcknowledgedBy string `gorm:"size:36;not null;default:''"`
}

// --- Alerts ----------------------------------------------------------------

// Alerts stores the organisations' alerts.
type Alerts struct{ db *DB }

// Raise stores a, unless the organisation has an alert of its key already,
// which is then returned in a (created false). CreatedAt defaults to now.
func (s Alerts) Raise(ctx context.Context, orgID string, a *Alert) (created bool, err error) {
	if a.DedupKey == "" || len(a.DedupKey) > maxAlertKeyBytes {
		return false, fmt.Errorf("alert key %q: want 1 to %d bytes", a.DedupKey, maxAlertKeyBytes)
	}
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		var existing Alert
		err := s.db.conn(ctx).Where("org_id = ? AND dedup_key = ?", orgID, a.DedupKey).Take(&existing).Error
		if err == nil {
			*a = existing
			return nil
		}
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return err
		}
		fresh := *a
		fresh.ID, fresh.OrgID = 0, orgID
		if fresh.CreatedAt.IsZero() {
			fresh.CreatedAt = time.Now()
		}
		fresh.CreatedAt = dbTime(fresh.CreatedAt)
		fresh.AcknowledgedAt, fresh.AcknowledgedBy = nil, ""
		// Two raisers racing (two evaluations of a contract at once): the
		// loser's insert does nothing, rather than failing its transaction
		// on PostgreSQL, and it reads the winner's alert.
		res := s.db.conn(ctx).Clauses(clause.OnConflict{
			Columns:   []clause.Column{{Name: "org_id"}, {Name: "dedup_key"}},
			DoNothing: true,
		}).Create(&fresh)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 1 {
			*a, created = fresh, true
			return nil
		}
		return s.db.conn(ctx).Where("org_id = ? AND dedup_key = ?", orgID, a.DedupKey).Take(a).Error
	})
	return created, err
}

// Get returns alert id of the organisation.
func (s Alerts) Get(ctx context.Context, orgID string, id int64) (*Alert, error) {
	var a Alert
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&a).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("alert")
	}
	return &a, err
}

// AlertFilter narrows an alert list; zero fields do not filter.
type AlertFilter struct {
	Severity     string
	Type         string
	SourceID     *int64
	Acknowledged *bool
	Since        *time.Time
}

// List returns a page of the organisation's alerts, newest first, and
// their total.
func (s Alerts) List(ctx context.Context, orgID string, f AlertFilter, p Page) ([]Alert, int64, error) {
	q := s.db.conn(ctx).Model(&Alert{}).Where("org_id = ?", orgID)
	if f.Severity != "" {
		q = q.Where("severity = ?", f.Severity)
	}
	if f.Type != "" {
		q = q.Where("type = ?", f.Type)
	}
	if f.SourceID != nil {
		q = q.Where("source_id = ?", *f.SourceID)
	}
	if f.Acknowledged != nil {
		if *f.Acknowledged {
			q = q.Where("acknowledged_at IS NOT NULL")
		} else {
			q = q.Where("acknowledged_at IS NULL")
		}
	}
	if f.Since != nil {
		q = q.Where("created_at >= ?", dbTime(*f.Since))
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Alert
	err := q.Order("created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Acknowledge marks alert id acknowledged by userID at at; acknowledging
// it again keeps the first acknowledgement.
func (s Alerts) Acknowledge(ctx context.Context, orgID string, id int64, userID string, at time.Time) (*Alert, error) {
	err := s.db.conn(ctx).Model(&Alert{}).Where("org_id = ? AND id = ? AND acknowledged_at IS NULL", orgID, id).
		UpdateColumns(map[string]any{"acknowledged_at": dbTime(at), "acknowledged_by": userID}).Error
	if err != nil {
		return nil, err
	}
	return s.Get(ctx, orgID, id)
}

// --- Anomalies -------------------------------------------------------------

// Anomalies stores what anomaly detection flagged.
type Anomalies struct{ db *DB }

// Record stores the anomalies detection found in table of scan scanID of
// source sourceID, replacing what an earlier run of the same detection
// stored, and raises alert (when given) for them, linking each to it; in
// one transaction, holding the source's row so a source deleted meanwhile
// leaves nothing behind (not found). It reports whether the alert is new.
func (s Anomalies) Record(ctx context.Context, orgID string, sourceID int64, scanID, table string, found []Anomaly, alert *Alert) (bool, error) {
	if len(found) > maxAnomalyPerTable {
		return false, fmt.Errorf("%d anomalies in table %q, more than %d", len(found), table, maxAnomalyPerTable)
	}
	created := false
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.lockSource(ctx, orgID, sourceID); err != nil {
			return err
		}
		c := s.db.conn(ctx)
		err := c.Where("org_id = ? AND scan_id = ? AND table_hash = ? AND table_name = ?", orgID, scanID, nameHash(table), table).
			Delete(&Anomaly{}).Error
		if err != nil || len(found) == 0 {
			return err
		}
		var alertID *int64
		if alert != nil {
			if created, err = (Alerts{s.db}).Raise(ctx, orgID, alert); err != nil {
				return err
			}
			alertID = &alert.ID
		}
		for i := range found {
			a := &found[i]
			a.ID, a.OrgID, a.SourceID, a.ScanID, a.TableName = 0, orgID, sourceID, scanID, table
			a.TableHash, a.ColumnHash, a.AlertID = nameHash(table), nameHash(a.ColumnName), alertID
			a.DetectedAt = dbTime(a.DetectedAt)
			if a.Status == "" {
				a.Status = AnomalyOpen
			}
		}
		return c.CreateInBatches(found, 200).Error
	})
	return created, err
}

// SeriesKey names a series within a table: its column ("" for the
// table's own metrics) and metric.
type SeriesKey struct{ Column, Metric string }

// Statuses returns, per scan and series, the status of the anomalies of
// table among scans scanIDs of source sourceID.
func (s Anomalies) Statuses(ctx context.Context, orgID string, sourceID int64, table string, scanIDs []string) (map[string]map[SeriesKey]string, error) {
	out := map[string]map[SeriesKey]string{}
	if len(scanIDs) == 0 {
		return out, nil
	}
	var rows []Anomaly
	err := s.db.conn(ctx).Select("scan_id", "column_name", "metric", "status").
		Where("org_id = ? AND source_id = ? AND scan_id IN ? AND table_hash = ? AND table_name = ?", orgID, sourceID, scanIDs, nameHash(table), table).
		Find(&rows).Error
	for _, r := range rows {
		if out[r.ScanID] == nil {
			out[r.ScanID] = map[SeriesKey]string{}
		}
		out[r.ScanID][SeriesKey{r.ColumnName, r.Metric}] = r.Status
	}
	return out, err
}

// AnomalyFilter narrows an anomaly list; zero fields do not filter.
type AnomalyFilter struct {
	SourceID int64
	Table    string
	Column   *string
	Metric   string
	Since    *time.Time
}

// List returns a page of a source's anomalies, newest first, and their
// total.
func (s Anomalies) List(ctx context.Context, orgID string, f AnomalyFilter, p Page) ([]Anomaly, int64, error) {
	q := s.db.conn(ctx).Model(&Anomaly{}).Where("org_id = ? AND source_id = ?", orgID, f.SourceID)
	if f.Table != "" {
		q = q.Where("table_hash = ? AND table_name = ?", nameHash(f.Table), f.Table)
	}
	if f.Column != nil {
		q = q.Where("column_hash = ? AND column_name = ?", nameHash(*f.Column), *f.Column)
	}
	if f.Metric != "" {
		q = q.Where("metric = ?", f.Metric)
	}
	if f.Since != nil {
		q = q.Where("detected_at >= ?", dbTime(*f.Since))
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Anomaly
	err := q.Order("detected_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// SetStatus marks anomaly id of source sourceID expected, confirmed or
// open again; later detections read it.
func (s Anomalies) SetStatus(ctx context.Context, orgID string, sourceID, id int64, status string) (*Anomaly, error) {
	switch status {
	case AnomalyOpen, AnomalyExpected, AnomalyConfirmed:
	default:
		return nil, errs.BadRequest("status must be %s, %s or %s", AnomalyOpen, AnomalyExpected, AnomalyConfirmed)
	}
	res := s.db.conn(ctx).Model(&Anomaly{}).Where("org_id = ? AND source_id = ? AND id = ?", orgID, sourceID, id).
		UpdateColumn("status", status)
	if res.Error != nil {
		return nil, res.Error
	}
	if res.RowsAffected == 0 {
		var n int64
		if err := s.db.conn(ctx).Model(&Anomaly{}).Where("org_id = ? AND source_id = ? AND id = ?", orgID, sourceID, id).Count(&n).Error; err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, errs.NotFound("anomaly")
		}
	}
	var a Anomaly
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&a).Error
	return &a, err
}
