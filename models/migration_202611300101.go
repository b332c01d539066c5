package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateSuggestions gives organisations the setting of the anomaly
// explainer and creates the drift explanations it writes, marks the
// pipelines the suggesters keep for a file,
// gives correction steps the engine that proposed them
// and its confidence before calibration, and creates the trust history
// the calibration learns from (one row per approval, rejection or
// feedback on an engine's step).
func migrateSuggestions(tx *gorm.DB) error {
	type correctionPipeline struct {
		Origin string `gorm:"size:16;not null;default:'user'"`
	}
	if err := tx.Table("correction_pipelines").Migrator().AddColumn(&correctionPipeline{}, "Origin"); err != nil {
		return err
	}
	type correctionStep struct {
		Engine        string `gorm:"size:32;not null;default:''"`
		RawConfidence *float64
	}
	for _, col := range []string{"Engine", "RawConfidence"} {
		if err := tx.Table("correction_steps").Migrator().AddColumn(&correctionStep{}, col); err != nil {
			return err
		}
	}
	type trustEvent struct {
		ID             string    `gorm:"primaryKey;size:36"`
		OrgID          string    `gorm:"size:36;not null;index:idx_trust_events_org_kind,priority:1"`
		StepID         string    `gorm:"size:36;not null;index"`
		Engine         string    `gorm:"size:32;not null;index:idx_trust_events_org_kind,priority:2"`
		CorrectionType string    `gorm:"size:16;not null;index:idx_trust_events_org_kind,priority:3"`
		Kind           string    `gorm:"size:16;not null"`
		Comment        string    `gorm:"type:text;not null;default:''"`
		CreatedBy      string    `gorm:"size:36;not null;default:''"`
		CreatedAt      time.Time `gorm:"not null"`
	}
	type organization struct {
		AnomalyExplanations bool `gorm:"not null;default:false"`
	}
	if err := tx.Table("organizations").Migrator().AddColumn(&organization{}, "AnomalyExplanations"); err != nil {
		return err
	}
	type driftExplanation struct {
		ID            string    `gorm:"primaryKey;size:36"`
		OrgID         string    `gorm:"size:36;not null;index:idx_drift_explanations_org_created,priority:1"`
		SourceID      int64     `gorm:"not null"`
		ScanID        string    `gorm:"size:36;not null"`
		TableName     string    `gorm:"size:1024;not null"`
		Cause         string    `gorm:"size:32;not null"`
		Confidence    float64   `gorm:"not null"`
		RawConfidence float64   `gorm:"not null"`
		Explanation   string    `gorm:"type:text;not null"`
		Checks        string    `gorm:"type:text;not null"`
		Metrics       string    `gorm:"type:text;not null"`
		CreatedAt     time.Time `gorm:"not null;index:idx_drift_explanations_org_created,priority:2"`
	}
	return createTables(tx, []table{{"trust_events", &trustEvent{}}, {"drift_explanations", &driftExplanation{}}})
}
