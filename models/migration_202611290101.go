package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateReports creates the reports, the AI readiness certificates issued
// with them, and the report schedules. A share token and a verification
// hash are unique (each finds one report or certificate, across
// organisations); a report has at most one certificate.
func migrateReports(tx *gorm.DB) error {
	type report struct {
		ID             string    `gorm:"primaryKey;size:36"`
		OrgID          string    `gorm:"size:36;not null;index:idx_reports_org_created,priority:1"`
		ReportType     string    `gorm:"size:32;not null"`
		Level          string    `gorm:"size:16;not null"`
		Config         string    `gorm:"type:text;not null"`
		Status         string    `gorm:"size:16;not null"`
		Error          string    `gorm:"type:text;not null;default:''"`
		Tokens         int64     `gorm:"not null;default:0"`
		Refunded       bool      `gorm:"not null;default:false"`
		StorageKey     string    `gorm:"size:1024;not null;default:''"`
		SizeBytes      int64     `gorm:"not null;default:0"`
		Summary        string    `gorm:"type:text;not null;default:''"`
		ShareTokenHash *string   `gorm:"size:64;uniqueIndex"`
		ScheduleID     *string   `gorm:"size:36;index"`
		CreatedBy      string    `gorm:"size:36;not null;default:''"`
		CreatedAt      time.Time `gorm:"not null;index:idx_reports_org_created,priority:2"`
		CompletedAt    *time.Time
	}
	type certificate struct {
		ID               string    `gorm:"primaryKey;size:36"`
		OrgID            string    `gorm:"size:36;not null;index:idx_certificates_org_issued,priority:1"`
		ReportID         string    `gorm:"size:36;not null;uniqueIndex"`
		VerificationHash string    `gorm:"size:64;not null;uniqueIndex"`
		Grade            string    `gorm:"size:2;not null"`
		Score            float64   `gorm:"not null"`
		Certified        bool      `gorm:"not null"`
		Body             string    `gorm:"type:text;not null"`
		IssuedAt         time.Time `gorm:"not null;index:idx_certificates_org_issued,priority:2"`
	}
	type reportSchedule struct {
		ID            string `gorm:"primaryKey;size:36"`
		OrgID         string `gorm:"size:36;not null;index"`
		ReportType    string `gorm:"size:32;not null"`
		Frequency     string `gorm:"size:16;not null"`
		Recipients    string `gorm:"type:text;not null"`
		Config        string `gorm:"type:text;not null"`
		Enabled       bool   `gorm:"not null"`
		NextRunAt     *time.Time
		LastRunAt     *time.Time
		LastRunStatus string    `gorm:"size:16;not null;default:''"`
		LastRunError  string    `gorm:"type:text;not null;default:''"`
		LastReportID  *string   `gorm:"size:36"`
		CreatedBy     string    `gorm:"size:36;not null;default:''"`
		CreatedAt     time.Time `gorm:"not null"`
		UpdatedAt     time.Time `gorm:"not null"`
	}
	return createTables(tx, []table{{"reports", &report{}}, {"certificates", &certificate{}}, {"report_schedules", &reportSchedule{}}})
}
