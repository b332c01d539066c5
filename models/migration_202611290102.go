package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateCorrections creates the correction pipelines, their steps and
// the version history (one row per edit, unique per pipeline and
// version).
func migrateCorrections(tx *gorm.DB) error {
	type correctionPipeline struct {
		ID        string    `gorm:"primaryKey;size:36"`
		OrgID     string    `gorm:"size:36;not null;index:idx_correction_pipelines_org_status,priority:1"`
		FileID    int64     `gorm:"not null;index"`
		Name      string    `gorm:"size:200;not null"`
		Status    string    `gorm:"size:16;not null;index:idx_correction_pipelines_org_status,priority:2"`
		Version   int       `gorm:"not null"`
		CreatedBy string    `gorm:"size:36;not null;default:''"`
		CreatedAt time.Time `gorm:"not null"`
		UpdatedAt time.Time `gorm:"not null"`
	}
	type correctionStep struct {
		ID             string `gorm:"primaryKey;size:36"`
		OrgID          string `gorm:"size:36;not null;index:idx_correction_steps_org_status,priority:1"`
		PipelineID     string `gorm:"size:36;not null;index"`
		Position       int    `gorm:"not null"`
		CorrectionType string `gorm:"size:16;not null"`
		ColumnName     string `gorm:"size:1024;not null;default:''"`
		Strategy       string `gorm:"size:32;not null;default:''"`
		Params         string `gorm:"type:text;not null"`
		Status         string `gorm:"size:16;not null;index:idx_correction_steps_org_status,priority:2"`
		Source         string `gorm:"size:8;not null"`
		Confidence     *float64
		Explanation    string `gorm:"type:text;not null;default:''"`
		Preview        string `gorm:"type:text;not null;default:''"`
		Error          string `gorm:"type:text;not null;default:''"`
	}
	type correctionVersion struct {
		ID         int64     `gorm:"primaryKey;autoIncrement"`
		OrgID      string    `gorm:"size:36;not null;index"`
		PipelineID string    `gorm:"size:36;not null;uniqueIndex:idx_correction_versions_pipeline_version,priority:1"`
		Version    int       `gorm:"not null;uniqueIndex:idx_correction_versions_pipeline_version,priority:2"`
		Name       string    `gorm:"size:200;not null"`
		Status     string    `gorm:"size:16;not null"`
		Steps      string    `gorm:"type:text;not null"`
		Change     string    `gorm:"size:64;not null"`
		CreatedBy  string    `gorm:"size:36;not null;default:''"`
		CreatedAt  time.Time `gorm:"not null"`
	}
	return createTables(tx, []table{{"correction_pipelines", &correctionPipeline{}}, {"correction_steps", &correctionStep{}},
		{"correction_versions", &correctionVersion{}}})
}
