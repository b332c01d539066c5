package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateAnomaliesAlerts creates the anomalies anomaly detection records
// per scan and series, and the organisations' alerts. An anomaly is
// unique per scan and series (a retried detection replaces it); an alert
// per organisation and key (what raised it: raising it again stores it
// once).
func migrateAnomaliesAlerts(tx *gorm.DB) error {
	type anomaly struct {
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
		Low          float64   `gorm:"not null"`
		High         float64   `gorm:"not null"`
		Score        float64   `gorm:"not null"`
		Baseline     string    `gorm:"type:text;not null"`
		Sensitivity  string    `gorm:"size:8;not null"`
		Explanation  string    `gorm:"type:text;not null"`
		Status       string    `gorm:"size:16;not null"`
		AlertID      *int64    `gorm:"index"`
		DetectedAt   time.Time `gorm:"not null;index:idx_anomalies_org_source_detected,priority:3"`
	}
	type alert struct {
		ID             int64     `gorm:"primaryKey;autoIncrement"`
		OrgID          string    `gorm:"size:36;not null;index:idx_alerts_org_created,priority:1;uniqueIndex:idx_alerts_org_key,priority:1"`
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
	return createTables(tx, []table{{"anomalies", &anomaly{}}, {"alerts", &alert{}}})
}
