package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateSuggestions marks the pipelines the suggesters keep for a file,
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
	return createTables(tx, []table{{"trust_events", &trustEvent{}}})
}
