package correctionsvc

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/launch"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/records"
	"github.com/dqs/dqs/storedfile"
)

// ApplyRef names an application of a pipeline's version to a file, and
// the corrected copy it writes.
type ApplyRef struct {
	OrgID      string
	PipelineID string
	Version    int
	FileID     int64 // the file read
	CopyID     int64 // the corrected copy written
	// StepIDs, when set, limits the application to these steps (a bulk
	// apply); otherwise every runnable step of the version runs.
	StepIDs []string `json:",omitempty"`
}

// Steps returns the steps of a version (as stored with it) ref runs.
func (ref ApplyRef) Steps(version []models.CorrectionStep) corrections.Pipeline {
	steps := Runnable(version, false)
	if len(ref.StepIDs) == 0 {
		return steps
	}
	return slices.DeleteFunc(steps, func(st corrections.Step) bool { return !slices.Contains(ref.StepIDs, st.ID) })
}

// Workflows starts the workflows of corrections.
type Workflows interface {
	// ApplyCorrections starts writing and analysing the corrected copy.
	ApplyCorrections(ctx context.Context, ref ApplyRef) error
}

// Runnable returns the steps an application runs, in order: the active
// and applied ones, and the proposed ones too when withProposed (a
// preview of what approving them would do).
func Runnable(steps []models.CorrectionStep, withProposed bool) corrections.Pipeline {
	var out corrections.Pipeline
	for _, st := range steps {
		if st.Status == models.StepActive || st.Status == models.StepApplied || (withProposed && st.Status == models.StepProposed) {
			out = append(out, EngineStep(st))
		}
	}
	return out
}

// storedInput returns the organisation's analysed file id whose raw file
// is still stored, with its job, and checks steps against its columns: a
// pipeline may run on any file with the columns its steps use.
func (s *Service) storedInput(ctx context.Context, orgID string, fileID int64, steps corrections.Pipeline) (*models.File, *models.Job, error) {
	f, columns, err := s.analysedFile(ctx, orgID, fileID)
	if err != nil {
		return nil, nil, err
	}
	if f.StorageKey == "" {
		return nil, nil, errs.Conflict("the raw file of file %d was deleted (retention expired or deleted on request); corrections read the raw file", fileID)
	}
	for i, st := range steps {
		if err := st.Validate(columns); err != nil {
			return nil, nil, stepError(fmt.Sprintf("steps[%d] (step %s) on file %d", i, st.ID, fileID), err)
		}
	}
	j, err := s.Stores.Jobs.Get(ctx, orgID, f.JobID)
	if err != nil {
		return nil, nil, err
	}
	return f, j, nil
}

// PreviewInput is what to preview: the pipeline's runnable steps on the
// first Rows rows of file FileID.
type PreviewInput struct {
	FileID          int64
	Rows            int
	IncludeProposed bool
}

// MaxPreviewRows bounds a preview requested over the API: the rows come
// back in the answer.
const MaxPreviewRows = 500

// Preview runs the pipeline's steps on the first rows of a file, as Apply
// would, and writes nothing.
func (s *Service) Preview(ctx context.Context, orgID, id string, in PreviewInput) (*models.Pipeline, corrections.PreviewResult, error) {
	var none corrections.PreviewResult
	if in.Rows < 0 || in.Rows > MaxPreviewRows {
		return nil, none, errs.BadRequest("rows must be 1 to %d", MaxPreviewRows)
	}
	p, err := s.Stores.Corrections.Get(ctx, orgID, id)
	if err != nil {
		return nil, none, err
	}
	steps := Runnable(p.Steps, in.IncludeProposed)
	f, j, err := s.storedInput(ctx, orgID, in.FileID, steps)
	if err != nil {
		return nil, none, err
	}
	local, err := storedfile.Download(ctx, s.Blobs, s.Spool, f.StorageKey, f.FileName, nil)
	if err != nil {
		return nil, none, err
	}
	defer local.Close()
	d, err := storedfile.Dialect(j, f)
	if err != nil {
		return nil, none, errs.Conflict("%s", err.Error())
	}
	r, err := local.Open(d, 0)
	if err != nil {
		return nil, none, errs.Conflict("file %d cannot be read: %s", f.ID, err.Error())
	}
	defer r.Close()
	res, err := corrections.Preview(ctx, r, steps, in.Rows, corrections.Options{NullTokens: d.NullTokens})
	if err != nil {
		return nil, none, runError(err)
	}
	return p, res, nil
}

// runError is the answer to steps that failed on the rows: a *RowError
// (an expression that failed or ran out of budget), a step the file's
// rows do not fit, a budget the file exceeds or a row the reader refuses
// is the steps' or the file's fault, said as a 400; anything else is
// internal.
func runError(err error) error {
	var re *corrections.RowError
	var se *corrections.StepError
	switch {
	case errors.As(err, &re), errors.As(err, &se):
		return errs.BadRequest("%s", err.Error())
	case errors.Is(err, corrections.ErrDedupeBudget), errors.Is(err, analysis.ErrBadInput), errors.Is(err, records.ErrMalformed):
		return errs.BadRequest("%s", err.Error())
	}
	return err
}

// Apply starts writing a corrected copy of file fileID with the
// pipeline's active and applied steps as they are now (its version): a
// new file, whatever was applied before, analysed like an upload once
// written. The original is only read.
func (s *Service) Apply(ctx context.Context, orgID, id string, fileID int64) (*models.File, *models.Pipeline, error) {
	p, err := s.Stores.Corrections.Get(ctx, orgID, id)
	if err != nil {
		return nil, nil, err
	}
	copied, err := s.apply(ctx, p, ApplyRef{OrgID: orgID, PipelineID: p.ID, Version: p.Version, FileID: fileID})
	return copied, p, err
}

// applicable refuses to apply an archived pipeline.
func applicable(p *models.Pipeline) error {
	if p.Status == models.PipelineArchived {
		return errs.Conflict("the pipeline is archived; set its status to active to apply it")
	}
	return nil
}

// apply starts the application ref of pipeline p (its version and
// pipeline set), writing the copy's row first.
func (s *Service) apply(ctx context.Context, p *models.Pipeline, ref ApplyRef) (*models.File, error) {
	orgID := ref.OrgID
	if err := applicable(p); err != nil {
		return nil, err
	}
	steps := ref.Steps(p.Steps)
	if len(steps) == 0 {
		return nil, errs.Conflict("the pipeline has no active step to apply: approve a proposed step or add one")
	}
	f, _, err := s.storedInput(ctx, orgID, ref.FileID, steps)
	if err != nil {
		return nil, err
	}
	var copied *models.File
	err = launch.Run(ctx, launch.Steps{
		Write: func(ctx context.Context) (err error) {
			copied, err = s.Stores.Files.CreateCopy(ctx, orgID, f, p.ID, p.Version)
			return err
		},
		Start: func(ctx context.Context) error {
			ref.CopyID = copied.ID
			return s.Workflows.ApplyCorrections(ctx, ref)
		},
		Undo: func(ctx context.Context) error { return s.Stores.Files.Delete(ctx, orgID, copied.ID) },
	})
	if errors.Is(err, launch.ErrNotUndone) && s.Logger != nil {
		s.Logger.Error("corrected copy left processing without a workflow", "file_id", copied.ID, "error", err)
	}
	if err != nil {
		return nil, err
	}
	return copied, nil
}
