package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/dqs/dqs/errs"
)

// Pipeline and step states, and where a step came from.
const (
	PipelineActive   = "active"
	PipelineArchived = "archived"

	StepProposed = "proposed"
	StepActive   = "active"
	StepApplied  = "applied"
	StepRejected = "rejected"
	StepFailed   = "failed"

	StepSourceAuto = "auto"
	StepSourceUser = "user"

	OriginUser        = "user"
	OriginSuggestions = "suggestions"
)

// CorrectionPipeline is a versioned, ordered list of correction steps
// authored against a file (its columns are the pipeline's schema).
// Version counts its edits: every change makes a new version, kept in
// CorrectionVersion.
type CorrectionPipeline struct {
	ID        string    `gorm:"primaryKey;size:36"`
	OrgID     string    `gorm:"size:36;not null;index:idx_correction_pipelines_org_status,priority:1"`
	FileID    int64     `gorm:"not null;index"`
	Name      string    `gorm:"size:200;not null"`
	Status    string    `gorm:"size:16;not null;index:idx_correction_pipelines_org_status,priority:2"`
	Version   int       `gorm:"not null"`
	CreatedBy string    `gorm:"size:36;not null;default:''"`
	CreatedAt time.Time `gorm:"not null"`
	UpdatedAt time.Time `gorm:"not null"`
	// Origin is OriginUser for a pipeline a user created, OriginSuggestions
	// for the one the suggesters keep for a file (its fix inbox).
	Origin string `gorm:"size:16;not null;default:'user'"`
}

// CorrectionStep is one step of a pipeline. Params is the JSON object of
// the strategy's parameters; Preview the JSON of a proposed step's
// before/after rows; Confidence is set for engine steps only.
type CorrectionStep struct {
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
	// Engine is the suggestion engine that proposed an engine step
	// ("" for a user's), and RawConfidence its confidence before the
	// organisation's trust history calibrated it into Confidence.
	Engine        string `gorm:"size:32;not null;default:''"`
	RawConfidence *float64
}

// CorrectionVersion is a pipeline as one edit left it: its name, status
// and steps (JSON of []CorrectionStep), and what the edit was.
type CorrectionVersion struct {
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

// MaxCorrectionSteps bounds a pipeline's steps (the engine's own bound).
const MaxCorrectionSteps = 100

// MaxStepBytes bounds a step's stored params and preview, and
// MaxPipelineBytes all of a pipeline's: every version keeps a copy of the
// steps, so their size is what each edit costs.
const (
	MaxStepBytes     = 64 << 10
	MaxPipelineBytes = 1 << 20
)

// checkSteps holds steps to the bounds and to what the API can show (a
// confidence from 0 to 1, a preview that is JSON).
func checkSteps(steps []CorrectionStep) error {
	total := 0
	for i, st := range steps {
		n := len(st.Params) + len(st.Preview) + len(st.Explanation)
		if n > MaxStepBytes {
			return errs.BadRequest("step %d is %d bytes of configuration; at most %d", i+1, n, MaxStepBytes)
		}
		total += n
		if st.Confidence != nil && !(*st.Confidence >= 0 && *st.Confidence <= 1) {
			return fmt.Errorf("step %s: confidence %v outside [0, 1]", st.ID, *st.Confidence)
		}
		if st.Preview != "" && !json.Valid([]byte(st.Preview)) {
			return fmt.Errorf("step %s: preview is not JSON", st.ID)
		}
	}
	if total > MaxPipelineBytes {
		return errs.BadRequest("the pipeline's steps are %d bytes of configuration; at most %d", total, MaxPipelineBytes)
	}
	return nil
}

// encodeSteps is the JSON of steps as a version keeps them (HTML
// characters as they are: the text is never served as HTML, and escaping
// would triple the size of a pattern full of < and >).
func encodeSteps(steps []CorrectionStep) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if steps == nil {
		steps = []CorrectionStep{}
	}
	if err := enc.Encode(steps); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// Pipeline is a pipeline with its steps in order.
type Pipeline struct {
	CorrectionPipeline
	Steps []CorrectionStep
}

// Corrections stores the organisations' correction pipelines.
type Corrections struct{ db *DB }

// Create stores a new pipeline at version 1 with its steps.
func (s Corrections) Create(ctx context.Context, orgID, userID string, p *Pipeline) error {
	if len(p.Steps) > MaxCorrectionSteps {
		return errs.BadRequest("a pipeline holds at most %d steps", MaxCorrectionSteps)
	}
	if err := checkSteps(p.Steps); err != nil {
		return err
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		now := dbTime(time.Now())
		p.OrgID, p.Version, p.CreatedBy, p.CreatedAt, p.UpdatedAt = orgID, 1, userID, now, now
		if p.Status == "" {
			p.Status = PipelineActive
		}
		if p.Origin == "" {
			p.Origin = OriginUser
		}
		if err := s.db.conn(ctx).Create(&p.CorrectionPipeline).Error; err != nil {
			return err
		}
		if err := s.writeSteps(ctx, orgID, p); err != nil {
			return err
		}
		return s.snapshot(ctx, p, "created", userID, now)
	})
}

// writeSteps stores p's steps in their order, replacing what was stored.
func (s Corrections) writeSteps(ctx context.Context, orgID string, p *Pipeline) error {
	if err := s.db.conn(ctx).Where("org_id = ? AND pipeline_id = ?", orgID, p.ID).Delete(&CorrectionStep{}).Error; err != nil {
		return err
	}
	for i := range p.Steps {
		p.Steps[i].OrgID, p.Steps[i].PipelineID, p.Steps[i].Position = orgID, p.ID, i+1
	}
	if len(p.Steps) == 0 {
		return nil
	}
	return s.db.conn(ctx).Create(&p.Steps).Error
}

// snapshot records p as version p.Version.
func (s Corrections) snapshot(ctx context.Context, p *Pipeline, change, userID string, at time.Time) error {
	steps, err := encodeSteps(p.Steps)
	if err != nil {
		return err
	}
	return s.db.conn(ctx).Create(&CorrectionVersion{OrgID: p.OrgID, PipelineID: p.ID, Version: p.Version, Name: p.Name,
		Status: p.Status, Steps: steps, Change: change, CreatedBy: userID, CreatedAt: at}).Error
}

// Get returns pipeline id of the organisation with its steps.
func (s Corrections) Get(ctx context.Context, orgID, id string) (*Pipeline, error) {
	return s.get(ctx, s.db.conn(ctx), orgID, id)
}

func (s Corrections) get(ctx context.Context, q *gorm.DB, orgID, id string) (*Pipeline, error) {
	var p Pipeline
	err := q.Where("org_id = ? AND id = ?", orgID, id).Take(&p.CorrectionPipeline).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("correction pipeline")
	}
	if err != nil {
		return nil, err
	}
	// The steps are read from the snapshot of the row's version, written
	// in the same transaction as the row: read apart from it, the steps
	// table may already hold the next edit's.
	v, err := s.Version(ctx, orgID, id, p.Version)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(v.Steps), &p.Steps); err != nil {
		return nil, fmt.Errorf("pipeline %s version %d: stored steps: %w", id, p.Version, err)
	}
	return &p, nil
}

// Edit changes a pipeline as one edit: it holds the pipeline's row, reads
// it with its steps, lets change mutate them (returning what the edit was,
// for the version history; change's context carries the transaction, for
// any read it makes), and writes the pipeline at the next version
// with its snapshot. Two edits at once both land, one after the other.
func (s Corrections) Edit(ctx context.Context, orgID, id, userID string, change func(ctx context.Context, p *Pipeline) (string, error)) (*Pipeline, error) {
	var out *Pipeline
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		q := s.db.conn(ctx)
		if s.db.Dialect == Postgres {
			q = q.Clauses(clause.Locking{Strength: "UPDATE"})
		}
		p, err := s.get(ctx, q, orgID, id)
		if err != nil {
			return err
		}
		what, err := change(ctx, p)
		if err != nil {
			return err
		}
		if len(p.Steps) > MaxCorrectionSteps {
			return errs.BadRequest("a pipeline holds at most %d steps", MaxCorrectionSteps)
		}
		if err := checkSteps(p.Steps); err != nil {
			return err
		}
		now := dbTime(time.Now())
		p.Version++
		p.UpdatedAt = now
		res := s.db.conn(ctx).Model(&CorrectionPipeline{}).Where("org_id = ? AND id = ? AND version = ?", orgID, id, p.Version-1).
			Updates(map[string]any{"name": p.Name, "status": p.Status, "version": p.Version, "updated_at": now})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.Conflict("the pipeline changed meanwhile; read it again")
		}
		if err := s.writeSteps(ctx, orgID, p); err != nil {
			return err
		}
		out = p
		return s.snapshot(ctx, p, what, userID, now)
	})
	return out, err
}

// List returns the organisation's pipelines of a status, newest first,
// with their steps.
func (s Corrections) List(ctx context.Context, orgID, status string, p Page) ([]Pipeline, int64, error) {
	q := s.db.conn(ctx).Model(&CorrectionPipeline{}).Where("org_id = ? AND status = ?", orgID, status)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var rows []CorrectionPipeline
	if err := q.Order("created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&rows).Error; err != nil {
		return nil, 0, err
	}
	out := make([]Pipeline, len(rows))
	for i, r := range rows {
		out[i].CorrectionPipeline = r
	}
	// Each pipeline's steps as its version's snapshot holds them (see get).
	for i := range out {
		v, err := s.Version(ctx, orgID, out[i].ID, out[i].Version)
		if err != nil {
			return nil, 0, err
		}
		if err := json.Unmarshal([]byte(v.Steps), &out[i].Steps); err != nil {
			return nil, 0, fmt.Errorf("pipeline %s version %d: stored steps: %w", out[i].ID, out[i].Version, err)
		}
	}
	return out, total, nil
}

// Versions returns a pipeline's versions, newest first.
func (s Corrections) Versions(ctx context.Context, orgID, id string, p Page) ([]CorrectionVersion, int64, error) {
	if _, err := s.Get(ctx, orgID, id); err != nil {
		return nil, 0, err
	}
	q := s.db.conn(ctx).Model(&CorrectionVersion{}).Where("org_id = ? AND pipeline_id = ?", orgID, id)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []CorrectionVersion
	err := q.Order("version DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Version returns version v of a pipeline.
func (s Corrections) Version(ctx context.Context, orgID, id string, v int) (*CorrectionVersion, error) {
	var out CorrectionVersion
	err := s.db.conn(ctx).Where("org_id = ? AND pipeline_id = ? AND version = ?", orgID, id, v).Take(&out).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("version")
	}
	return &out, err
}

// PendingCount counts the proposed steps of the organisation's active
// pipelines.
func (s Corrections) PendingCount(ctx context.Context, orgID string) (int64, error) {
	var n int64
	err := s.db.conn(ctx).Model(&CorrectionStep{}).
		Joins("JOIN correction_pipelines AS p ON p.id = correction_steps.pipeline_id AND p.org_id = correction_steps.org_id").
		Where("correction_steps.org_id = ? AND correction_steps.status = ? AND p.status = ?", orgID, StepProposed, PipelineActive).
		Count(&n).Error
	return n, err
}
