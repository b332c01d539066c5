package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateSources creates the tables of data sources: sources, their scan
// schedules, scans and the scanned tables' results, the objects found in
// object-storage sources, and the metric values scans record.
//
// Keys, table and column names may be up to 1024 characters, too long for a
// PostgreSQL index entry, so the indexes hold their SHA-256 hashes
// (discovered_files.key_hash, metric_points.table_hash and column_hash).
func migrateSources(tx *gorm.DB) error {
	type source struct {
		ID                  int64  `gorm:"primaryKey;autoIncrement"`
		OrgID               string `gorm:"size:36;not null;uniqueIndex:idx_sources_org_name,priority:1"`
		Name                string `gorm:"size:200;not null;uniqueIndex:idx_sources_org_name,priority:2"`
		Type                string `gorm:"size:16;not null"`
		Config              string `gorm:"type:text;not null"`
		CredentialsSealed   string `gorm:"type:text;not null"`
		Status              string `gorm:"size:16;not null;default:'active'"`
		LastScanAt          *time.Time
		LastScanStatus      string    `gorm:"size:16;not null;default:''"`
		ScheduleSensitivity string    `gorm:"size:8;not null;default:''"`
		CreatedBy           string    `gorm:"size:36;not null;default:''"`
		CreatedAt           time.Time `gorm:"not null"`
		UpdatedAt           time.Time `gorm:"not null"`
	}
	type sourceSchedule struct {
		ID             int64  `gorm:"primaryKey;autoIncrement"`
		OrgID          string `gorm:"size:36;not null;index:idx_source_schedules_org_source,priority:1"`
		SourceID       int64  `gorm:"not null;index:idx_source_schedules_org_source,priority:2"`
		CronExpression string `gorm:"size:120;not null"`
		Tables         string `gorm:"type:text;not null"`
		Enabled        bool   `gorm:"not null"`
		Sensitivity    string `gorm:"size:8;not null"`
		NextRunAt      *time.Time
		LastRunAt      *time.Time
		LastRunStatus  string    `gorm:"size:16;not null;default:''"`
		LastRunError   string    `gorm:"type:text;not null;default:''"`
		CreatedAt      time.Time `gorm:"not null"`
		UpdatedAt      time.Time `gorm:"not null"`
	}
	type scan struct {
		ID              string `gorm:"primaryKey;size:36"`
		OrgID           string `gorm:"size:36;not null;index:idx_scans_org_source_created,priority:1"`
		SourceID        int64  `gorm:"not null;index:idx_scans_org_source_created,priority:2"`
		ScheduleID      *int64
		Status          string    `gorm:"size:16;not null"`
		Progress        int       `gorm:"not null;default:0"`
		Tables          string    `gorm:"type:text;not null"`
		TablesTotal     int       `gorm:"not null;default:0"`
		TablesScanned   int       `gorm:"not null;default:0"`
		TablesFailed    int       `gorm:"not null;default:0"`
		RowsRead        int64     `gorm:"not null;default:0"`
		EstimatedTokens int64     `gorm:"not null;default:0"`
		ChargedTokens   int64     `gorm:"not null;default:0"`
		Error           string    `gorm:"type:text;not null;default:''"`
		CreatedAt       time.Time `gorm:"not null;index:idx_scans_org_source_created,priority:3"`
		StartedAt       *time.Time
		CompletedAt     *time.Time
	}
	type scanTable struct {
		ID        int64     `gorm:"primaryKey;autoIncrement"`
		OrgID     string    `gorm:"size:36;not null;index:idx_scan_tables_org_scan,priority:1"`
		ScanID    string    `gorm:"size:36;not null;index:idx_scan_tables_org_scan,priority:2"`
		TableName string    `gorm:"size:1024;not null"`
		Status    string    `gorm:"size:16;not null"`
		Error     string    `gorm:"type:text;not null;default:''"`
		Rows      int64     `gorm:"not null;default:0"`
		Profile   string    `gorm:"type:text;not null;default:''"`
		CreatedAt time.Time `gorm:"not null"`
	}
	type discoveredFile struct {
		ID            int64     `gorm:"primaryKey;autoIncrement"`
		OrgID         string    `gorm:"size:36;not null;index"`
		SourceID      int64     `gorm:"not null;uniqueIndex:idx_discovered_files_source_key,priority:1"`
		Key           string    `gorm:"size:1024;not null"`
		KeyHash       string    `gorm:"size:64;not null;uniqueIndex:idx_discovered_files_source_key,priority:2"`
		SizeBytes     int64     `gorm:"not null;default:0"`
		ETag          string    `gorm:"column:etag;size:200;not null;default:''"`
		LastModified  time.Time `gorm:"not null"`
		SyncState     string    `gorm:"size:16;not null"`
		ChangedAt     time.Time `gorm:"not null"`
		LastScannedAt *time.Time
		FileID        *int64
		CreatedAt     time.Time `gorm:"not null"`
		UpdatedAt     time.Time `gorm:"not null"`
	}
	type metricPoint struct {
		ID         int64     `gorm:"primaryKey;autoIncrement"`
		OrgID      string    `gorm:"size:36;not null;index:idx_metric_points_series,priority:1;index:idx_metric_points_org_scan,priority:1"`
		SourceID   int64     `gorm:"not null;index:idx_metric_points_series,priority:2"`
		ScanID     string    `gorm:"size:36;not null;default:'';index:idx_metric_points_org_scan,priority:2"`
		TableName  string    `gorm:"size:1024;not null"`
		ColumnName string    `gorm:"size:1024;not null;default:''"`
		Metric     string    `gorm:"size:64;not null;index:idx_metric_points_series,priority:3"`
		TableHash  string    `gorm:"size:64;not null;index:idx_metric_points_series,priority:4"`
		ColumnHash string    `gorm:"size:64;not null;index:idx_metric_points_series,priority:5"`
		Value      float64   `gorm:"not null"`
		RecordedAt time.Time `gorm:"not null;index:idx_metric_points_series,priority:6"`
	}
	return createTables(tx, []table{
		{"sources", &source{}},
		{"source_schedules", &sourceSchedule{}},
		{"scans", &scan{}},
		{"scan_tables", &scanTable{}},
		{"discovered_files", &discoveredFile{}},
		{"metric_points", &metricPoint{}},
	})
}
