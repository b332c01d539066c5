package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strconv"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
	"github.com/dqs/dqs/storedfile"
)

// CopyOutcome is what writing a corrected copy came to: the copy's job
// (for its analysis) or the reason it failed, which the copy's row holds.
type CopyOutcome struct {
	JobID  string `json:"job_id"`
	Failed bool   `json:"failed"`
}

// WriteCorrectedCopy runs the pipeline's version on the original file
// and stores the result as the copy's raw file, in the original's format.
// What retrying cannot fix (a step failing on a row, the original gone, a
// file that cannot be read) marks the copy failed, and the failing step
// too, and is not an error: the workflow ends there. The original is only
// read.
func (a *Activities) WriteCorrectedCopy(ctx context.Context, in correctionsvc.ApplyRef) (CopyOutcome, error) {
	cp, err := a.Stores.Files.Get(ctx, in.OrgID, in.CopyID)
	if err != nil {
		return CopyOutcome{}, err
	}
	out := CopyOutcome{JobID: cp.JobID}
	switch {
	case cp.Status == models.FileFailed:
		return CopyOutcome{JobID: cp.JobID, Failed: true}, nil
	case cp.StorageKey != "":
		return out, nil // a retry after the copy was stored
	}
	fail := func(msg string) (CopyOutcome, error) {
		out.Failed = true
		return out, a.Stores.Files.SetStatus(ctx, in.OrgID, in.CopyID, models.FileFailed, 100, msg)
	}
	steps, err := a.versionSteps(ctx, in)
	if err != nil {
		return out, err
	}
	src, err := a.Stores.Files.Get(ctx, in.OrgID, in.FileID)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && src.StorageKey == "") {
		return fail("the original's raw file was deleted before the copy was written")
	}
	if err != nil {
		return out, err
	}
	j, err := a.Stores.Jobs.Get(ctx, in.OrgID, src.JobID)
	if err != nil {
		return out, err
	}
	d, err := storedfile.Dialect(j, src)
	if err != nil {
		return fail(err.Error())
	}
	local, err := a.downloadFile(ctx, src)
	if errors.Is(err, blob.ErrNotFound) {
		return fail("the original's raw file was deleted before the copy was written")
	}
	if err != nil {
		return out, err
	}
	defer local.Close()
	written, dialect, err := a.correct(ctx, local, d, steps)
	if written != nil {
		defer func() { written.Close(); os.Remove(written.Name()) }()
	}
	var re *corrections.RowError
	if errors.As(err, &re) {
		a.failStep(ctx, in, steps, re)
		return fail(err.Error())
	}
	if errors.Is(err, analysis.ErrBadInput) || errors.Is(err, corrections.ErrDedupeBudget) || isStepError(err) {
		return fail(err.Error())
	}
	if err != nil {
		return out, err
	}
	return out, a.storeCopy(ctx, in, cp, written, dialect)
}

// versionSteps returns the steps version in.Version of the pipeline runs.
func (a *Activities) versionSteps(ctx context.Context, in correctionsvc.ApplyRef) (corrections.Pipeline, error) {
	v, err := a.Stores.Corrections.Version(ctx, in.OrgID, in.PipelineID, in.Version)
	if err != nil {
		return nil, err
	}
	var steps []models.CorrectionStep
	if err := json.Unmarshal([]byte(v.Steps), &steps); err != nil {
		return nil, fmt.Errorf("pipeline %s version %d: stored steps: %w", in.PipelineID, in.Version, err)
	}
	return in.Steps(steps), nil
}

func isStepError(err error) bool {
	var se *corrections.StepError
	return errors.As(err, &se)
}

// correct applies steps to the rows of local into a spool file, which it
// returns positioned at its start with the CSV dialect it was written in
// (nil for other formats). It heartbeats while it works.
func (a *Activities) correct(ctx context.Context, local *storedfile.Local, d analysis.Dialect, steps corrections.Pipeline) (*os.File, *models.CSVDialect, error) {
	r, err := local.Open(d, 0)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	tmp, err := a.createTemp("corrected-*")
	if err != nil {
		return nil, nil, err
	}
	opt := corrections.WriterOptionsFor(r)
	w, err := corrections.NewWriter(r.Format(), tmp, opt)
	if err != nil {
		return tmp, nil, err
	}
	stop := keepHeartbeat(ctx) // applying steps has no progress of its own
	defer stop()
	_, err = corrections.Apply(ctx, r, w, steps, corrections.Options{
		NullTokens: d.NullTokens,
		Reopen:     func() (records.Reader, error) { return local.Open(d, 0) },
	})
	if err != nil {
		return tmp, nil, err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return tmp, nil, err
	}
	var dialect *models.CSVDialect
	if r.Format() == readers.FormatCSV {
		// The writer's own: the original's delimiter, double quotes, a
		// header on the first line, UTF-8 (see corrections.NewWriter).
		delim := opt.Delimiter
		if delim == 0 {
			delim = ','
		}
		dialect = &models.CSVDialect{Delimiter: string(delim), Quote: `"`, Header: "1", Encoding: "utf-8"}
	}
	return tmp, dialect, nil
}

func (a *Activities) createTemp(pattern string) (*os.File, error) {
	if a.Spool != nil {
		return a.Spool.CreateTemp(pattern)
	}
	return os.CreateTemp("", pattern)
}

// storeCopy uploads the written copy and records it with the copy's row;
// when the job's raw files were deleted meanwhile, the object is deleted
// again and the copy failed.
func (a *Activities) storeCopy(ctx context.Context, in correctionsvc.ApplyRef, cp *models.File, written *os.File, dialect *models.CSVDialect) error {
	// The copy's own key: a retry after a crash overwrites the object
	// instead of leaving one no row names, which retention would miss.
	key, err := blob.OrgKey(in.OrgID, "corrections", cp.JobID, strconv.FormatInt(cp.ID, 10))
	if err != nil {
		return err
	}
	n, err := a.Blobs.Put(ctx, key, written, cp.ContentType)
	if err != nil {
		return err
	}
	err = a.Stores.Files.StoreCopy(ctx, in.OrgID, cp.ID, key, n, dialect)
	if err == nil {
		return nil
	}
	if derr := a.Blobs.Delete(ctx, key); derr != nil {
		return errors.Join(err, derr)
	}
	if errors.Is(err, errs.ErrNotFound) {
		return a.Stores.Files.SetStatus(ctx, in.OrgID, cp.ID, models.FileFailed, 100, msgRawFileDeleted)
	}
	return err
}

// failStep marks the step that failed on a row failed with the reason, in
// a new version of the pipeline; a step edited or removed since is left
// alone.
func (a *Activities) failStep(ctx context.Context, in correctionsvc.ApplyRef, ran corrections.Pipeline, re *corrections.RowError) {
	_, err := a.Stores.Corrections.Edit(ctx, in.OrgID, in.PipelineID, "", func(ctx context.Context, p *models.Pipeline) (string, error) {
		i := slices.IndexFunc(p.Steps, func(st models.CorrectionStep) bool { return st.ID == re.StepID })
		if i < 0 || p.Steps[i].Status == models.StepRejected || !sameStep(ran, p.Steps[i]) {
			return "", errStepGone
		}
		p.Steps[i].Status, p.Steps[i].Error = models.StepFailed, re.Error()
		return "step failed", nil
	})
	if err != nil && !errors.Is(err, errStepGone) {
		a.Logger.Warn("failed step not marked", "pipeline_id", in.PipelineID, "step_id", re.StepID, "error", err)
	}
}

var errStepGone = errors.New("the step is no longer in the pipeline")

// FinishCorrections records a written copy: the steps it ran become
// applied (those still active), in a new version of the pipeline, and the
// lineage graph gets original → pipeline → copy.
func (a *Activities) FinishCorrections(ctx context.Context, in correctionsvc.ApplyRef) error {
	ran, err := a.versionSteps(ctx, in)
	if err != nil {
		return err
	}
	p, err := a.Stores.Corrections.Edit(ctx, in.OrgID, in.PipelineID, "", func(ctx context.Context, p *models.Pipeline) (string, error) {
		n := 0
		for i, st := range p.Steps {
			if st.Status == models.StepActive && sameStep(ran, st) {
				p.Steps[i].Status = models.StepApplied
				n++
			}
		}
		if n == 0 {
			return "", errNothingToMark // a retry after the edit landed, or all applied before
		}
		return fmt.Sprintf("applied to file %d", in.FileID), nil
	})
	if errors.Is(err, errNothingToMark) {
		p, err = a.Stores.Corrections.Get(ctx, in.OrgID, in.PipelineID)
	}
	if err != nil {
		return err
	}
	return a.Stores.Lineage.LinkCorrection(ctx, in.OrgID, in.PipelineID, p.Name, in.FileID, in.CopyID)
}

var errNothingToMark = errors.New("no active step to mark applied")

// sameStep reports whether st, as the pipeline holds it now, is one of the
// steps that ran, unchanged: a step the user edited meanwhile keeps its id
// but is another step, which neither became applied nor failed.
func sameStep(ran corrections.Pipeline, st models.CorrectionStep) bool {
	now := correctionsvc.EngineStep(st)
	return slices.ContainsFunc(ran, func(r corrections.Step) bool {
		return r.ID == now.ID && r.Type == now.Type && r.Column == now.Column && r.Strategy == now.Strategy && reflect.DeepEqual(r.Params, now.Params)
	})
}
