package models

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/dqs/dqs/errs"
)

// Kinds of trust event: a user approved or rejected an engine's step, or
// said whether it helped.
const (
	TrustApproved  = "approved"
	TrustRejected  = "rejected"
	TrustHelpful   = "helpful"
	TrustUnhelpful = "unhelpful"
)

// TrustEvent is one judgement of an engine's step by a user: the history
// the confidence of the engine's later suggestions of the same correction
// type is calibrated on. Comment is a feedback's words.
type TrustEvent struct {
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

// MaxFeedbackCommentBytes bounds a feedback's comment.
const MaxFeedbackCommentBytes = 4000

// TrustKey names what trust is calibrated for: an engine's suggestions of
// one correction type.
type TrustKey struct {
	Engine         string
	CorrectionType string
}

// TrustCounts counts the events of a TrustKey by kind.
type TrustCounts struct {
	Approved, Rejected, Helpful, Unhelpful int64
}

// Suggestions stores the fix inbox's trust history and reads the engine
// steps of the organisations' pipelines as suggestions.
type Suggestions struct{ db *DB }

// Record stores a trust event about engine step st (in the caller's
// transaction, when its context carries one).
func (s Suggestions) Record(ctx context.Context, orgID, userID string, st CorrectionStep, kind, comment string) (*TrustEvent, error) {
	ev := &TrustEvent{ID: uuid.NewString(), OrgID: orgID, StepID: st.ID, Engine: st.Engine, CorrectionType: st.CorrectionType,
		Kind: kind, Comment: comment, CreatedBy: userID, CreatedAt: dbTime(time.Now())}
	return ev, s.db.conn(ctx).Create(ev).Error
}

// Feedback stores a user's feedback (kind TrustHelpful or
// TrustUnhelpful) on engine step st, replacing the user's earlier one on
// it: a user's word counts once in the history, however often it is
// given.
func (s Suggestions) Feedback(ctx context.Context, orgID, userID string, st CorrectionStep, kind, comment string) (*TrustEvent, error) {
	var ev *TrustEvent
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		err := s.db.conn(ctx).Where("org_id = ? AND step_id = ? AND created_by = ? AND kind IN ?", orgID, st.ID, userID,
			[]string{TrustHelpful, TrustUnhelpful}).Delete(&TrustEvent{}).Error
		if err != nil {
			return err
		}
		ev, err = s.Record(ctx, orgID, userID, st, kind, comment)
		return err
	})
	return ev, err
}

// History counts the organisation's trust events by engine and correction
// type.
func (s Suggestions) History(ctx context.Context, orgID string) (map[TrustKey]TrustCounts, error) {
	var rows []struct {
		Engine, CorrectionType, Kind string
		N                            int64
	}
	err := s.db.conn(ctx).Model(&TrustEvent{}).Select("engine, correction_type, kind, COUNT(*) AS n").
		Where("org_id = ?", orgID).Group("engine, correction_type, kind").Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := map[TrustKey]TrustCounts{}
	for _, r := range rows {
		k := TrustKey{r.Engine, r.CorrectionType}
		c := out[k]
		switch r.Kind {
		case TrustApproved:
			c.Approved += r.N
		case TrustRejected:
			c.Rejected += r.N
		case TrustHelpful:
			c.Helpful += r.N
		case TrustUnhelpful:
			c.Unhelpful += r.N
		}
		out[k] = c
	}
	return out, nil
}

// EngineStep returns the organisation's engine step id (a suggestion),
// not found for a user's step or another organisation's.
func (s Suggestions) EngineStep(ctx context.Context, orgID, id string) (*CorrectionStep, error) {
	var st CorrectionStep
	err := s.db.conn(ctx).Where("org_id = ? AND id = ? AND source = ?", orgID, id, StepSourceAuto).Take(&st).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("suggestion")
	}
	return &st, err
}

// WithProposalLock runs fn in a transaction holding the organisation's
// lock (PostgreSQL; SQLite transactions hold the write lock), so that two
// analyses proposing fixes for one file at once find or create one
// suggestions pipeline between them (InboxPipeline, then Corrections.Create
// or Edit, all with fn's context).
func (s Suggestions) WithProposalLock(ctx context.Context, orgID string, fn func(ctx context.Context) error) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		return fn(ctx)
	})
}

// InboxPipeline returns the pipeline the suggesters keep for file fileID
// (the newest, should there be more), nil when there is none.
func (s Suggestions) InboxPipeline(ctx context.Context, orgID string, fileID int64) (*Pipeline, error) {
	var row CorrectionPipeline
	err := s.db.conn(ctx).Where("org_id = ? AND file_id = ? AND origin = ?", orgID, fileID, OriginSuggestions).
		Order("created_at DESC, id DESC").Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return Corrections{s.db}.Get(ctx, orgID, row.ID)
}

// SuggestionFilter selects suggestions: engine steps of active pipelines
// in one of Statuses whose confidence is at least MinConfidence.
type SuggestionFilter struct {
	Statuses      []string
	MinConfidence float64
}

// SuggestionGroup is the suggestions of one pipeline, on its file; or,
// with Explanation set (and no pipeline), a drift explanation of a
// scanned table.
type SuggestionGroup struct {
	Pipeline    CorrectionPipeline
	FileName    string
	Steps       []CorrectionStep
	Explanation *DriftExplanation
}

// ListSuggestions returns a page of the pipelines holding suggestions
// that pass f, newest file first, each with those suggestions in their
// order, and the number of such pipelines.
func (s Suggestions) ListSuggestions(ctx context.Context, orgID string, f SuggestionFilter, p Page) ([]SuggestionGroup, int64, error) {
	steps := func() *gorm.DB {
		return s.db.conn(ctx).Table("correction_steps").
			Where("correction_steps.org_id = ? AND correction_steps.source = ? AND correction_steps.status IN ? AND correction_steps.confidence >= ?",
				orgID, StepSourceAuto, f.Statuses, f.MinConfidence)
	}
	q := s.db.conn(ctx).Model(&CorrectionPipeline{}).
		Where("org_id = ? AND status = ? AND id IN (?)", orgID, PipelineActive, steps().Select("correction_steps.pipeline_id"))
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var pipes []CorrectionPipeline
	if err := q.Order("file_id DESC, created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&pipes).Error; err != nil {
		return nil, 0, err
	}
	if len(pipes) == 0 {
		return nil, total, nil
	}
	ids := make([]string, len(pipes))
	fileIDs := make([]int64, len(pipes))
	for i, pl := range pipes {
		ids[i], fileIDs[i] = pl.ID, pl.FileID
	}
	var rows []CorrectionStep
	if err := steps().Where("correction_steps.pipeline_id IN ?", ids).Order("position ASC").Find(&rows).Error; err != nil {
		return nil, 0, err
	}
	var files []File
	if err := s.db.conn(ctx).Select("id, file_name").Where("org_id = ? AND id IN ?", orgID, fileIDs).Find(&files).Error; err != nil {
		return nil, 0, err
	}
	names := make(map[int64]string, len(files))
	for _, f := range files {
		names[f.ID] = f.FileName
	}
	out := make([]SuggestionGroup, len(pipes))
	at := make(map[string]int, len(pipes))
	for i, pl := range pipes {
		out[i] = SuggestionGroup{Pipeline: pl, FileName: names[pl.FileID]}
		at[pl.ID] = i
	}
	for _, st := range rows {
		g := &out[at[st.PipelineID]]
		g.Steps = append(g.Steps, st)
	}
	return out, total, nil
}

// DriftExplanation is the anomaly explainer's item in the fix inbox: its
// reading of a table's anomalies in one scan (anomalies.Diagnose), with
// Checks and Metrics as JSON arrays of text. Its id derives from the
// organisation, scan and table, so a retried detection writes it once.
type DriftExplanation struct {
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

// The engine and correction type of drift explanations in the trust
// history.
const (
	EngineAnomaly         = "anomaly"
	ExplanationCorrection = "explanation"
)

// DriftExplanationID is the id of the explanation of table in scan scanID.
func DriftExplanationID(orgID, scanID, table string) string {
	return uuid.NewSHA1(uuid.NameSpaceOID, []byte(orgID+"\x00"+scanID+"\x00"+table)).String()
}

// AddExplanation stores e unless its scan's explanation of the table is
// there already.
func (s Suggestions) AddExplanation(ctx context.Context, e *DriftExplanation) error {
	e.ID = DriftExplanationID(e.OrgID, e.ScanID, e.TableName)
	e.CreatedAt = dbTime(e.CreatedAt)
	return s.db.conn(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(e).Error
}

// Explanation returns the organisation's explanation id.
func (s Suggestions) Explanation(ctx context.Context, orgID, id string) (*DriftExplanation, error) {
	var e DriftExplanation
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("suggestion")
	}
	return &e, err
}

// ListExplanations returns a page of the organisation's explanations at
// or above minConfidence, newest first, and how many there are.
func (s Suggestions) ListExplanations(ctx context.Context, orgID string, minConfidence float64, p Page) ([]DriftExplanation, int64, error) {
	q := s.db.conn(ctx).Model(&DriftExplanation{}).Where("org_id = ? AND confidence >= ?", orgID, minConfidence)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []DriftExplanation
	if p.Limit <= 0 {
		return out, total, nil
	}
	err := q.Order("created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}
