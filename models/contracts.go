package models

import "time"

// Contract is a data contract of one table of a source: rules over the
// metrics its scans record (package contracts), evaluated when a scheduled
// scan completes and on demand. Rules holds the JSON of the rules, their
// severities filled in (contracts.Normalize).
type Contract struct {
	ID        int64  `gorm:"primaryKey;autoIncrement"`
	OrgID     string `gorm:"size:36;not null;index:idx_contracts_org_source,priority:1"`
	SourceID  int64  `gorm:"not null;index:idx_contracts_org_source,priority:2"`
	TableName string `gorm:"size:1024;not null"`
	Name      string `gorm:"size:200;not null"`
	Enabled   bool   `gorm:"not null"`
	Rules     string `gorm:"type:text;not null"`
	// LastEvaluation is the JSON of the latest evaluation (nil before the
	// first), so a dashboard shows a contract's state without evaluating.
	LastEvaluation  *string `gorm:"type:text"`
	LastEvaluatedAt *time.Time
	CreatedBy       string    `gorm:"size:36;not null;default:''"`
	CreatedAt       time.Time `gorm:"not null"`
	UpdatedAt       time.Time `gorm:"not null"`
}

// Contracts stores the organisations' data contracts.
type Contracts struct{ db *DB }
