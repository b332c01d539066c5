package activities

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/storedfile"
	"go.temporal.io/sdk/activity"
)

// JobRef names a job of an organisation.
type JobRef struct {
	OrgID string
	JobID string
}

// FileRef names one file of a job and its place in the job.
type FileRef struct {
	OrgID  string
	JobID  string
	FileID int64
	Index  int
	Total  int
	// Rerun is a re-analysis of one file of a finished job: the job's
	// status and progress are left alone.
	Rerun bool
}

// msgRawFileDeleted is the failure of a file whose raw file was deleted
// before (or while) it was analysed.
const msgRawFileDeleted = "the raw file was deleted before it could be analysed"

// BeginJob marks the job processing and returns its files in order.
func (a *Activities) BeginJob(ctx context.Context, in JobRef) ([]int64, error) {
	if err := a.Stores.Jobs.SetProgress(ctx, in.OrgID, in.JobID, models.JobProcessing, analysis.StageParsing, 0); err != nil {
		return nil, err
	}
	files, err := a.Stores.Files.ListByJob(ctx, in.OrgID, in.JobID)
	if err != nil {
		return nil, err
	}
	ids := make([]int64, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	return ids, nil
}

// progressInterval throttles progress writes to the database.
const progressInterval = time.Second

// AnalyzeFile streams one file from storage through the engine and stores
// the result. It heartbeats its progress, which the polling endpoint and
// the WebSocket read from the database. Bad input marks the file failed
// and returns nil: retrying cannot fix the file, and the job goes on.
func (a *Activities) AnalyzeFile(ctx context.Context, in FileRef) error {
	f, err := a.Stores.Files.Get(ctx, in.OrgID, in.FileID)
	if err != nil {
		return err
	}
	if f.Status == models.FileCompleted || f.Status == models.FileFailed {
		return nil // a retry after the result was stored
	}
	if f.StorageKey == "" {
		return a.MarkFileFailed(ctx, in, msgRawFileDeleted)
	}
	if err := a.Stores.Files.SetStatus(ctx, in.OrgID, f.ID, models.FileProcessing, 0, ""); err != nil {
		return err
	}
	tmp, err := a.downloadFile(ctx, f)
	if errors.Is(err, blob.ErrNotFound) && a.rawFileDeleted(ctx, in) {
		return a.MarkFileFailed(ctx, in, msgRawFileDeleted)
	}
	if err != nil {
		return err
	}
	defer tmp.Close()

	j, err := a.Stores.Jobs.Get(ctx, in.OrgID, f.JobID)
	if err != nil {
		return err
	}
	d, err := storedfile.Dialect(j, f)
	if err != nil {
		return a.MarkFileFailed(ctx, in, err.Error())
	}
	report := a.progressReporter(ctx, in)
	res, err := analysis.Run(ctx, tmp.File, f.FileName, f.SizeBytes, d, a.Memory, report)
	if errors.Is(err, analysis.ErrBadInput) {
		return a.MarkFileFailed(ctx, in, err.Error())
	}
	if err != nil {
		return err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return err
	}
	cols := make([]models.FileColumn, len(res.Columns))
	for i, c := range res.Columns {
		cols[i] = models.FileColumn{Name: c.Name, InferredType: c.InferredType, Classification: c.Classification.Label,
			GDPRCategory: string(c.Classification.Category), Confidence: c.Classification.Confidence}
	}
	return a.Stores.Files.SaveResult(ctx, in.OrgID, f.ID, models.FileResult{
		Format: res.Format, RowCount: res.RowCount, ColumnCount: len(res.Columns), QualityScore: res.Quality.Score,
		Profile: string(raw), Columns: cols,
	}, time.Now())
}

// rawFileDeleted reports whether the file's raw file was deleted (its
// storage key cleared) since the activity read it: a user deleted the
// job's files mid-analysis. A missing object with its key still recorded
// is a storage fault, retried.
func (a *Activities) rawFileDeleted(ctx context.Context, in FileRef) bool {
	f, err := a.Stores.Files.Get(ctx, in.OrgID, in.FileID)
	return err == nil && f.StorageKey == ""
}

// downloadFile copies f's raw file to the spool, heartbeating while a
// large object downloads, so the download counts as progress and a dead
// worker is still noticed.
func (a *Activities) downloadFile(ctx context.Context, f *models.File) (*storedfile.Local, error) {
	var last time.Time
	return storedfile.Download(ctx, a.Blobs, a.Spool, f.StorageKey, f.FileName, func(read int64) {
		if time.Since(last) > 5*time.Second {
			last = time.Now()
			activity.RecordHeartbeat(ctx, read)
		}
	})
}

// progressReporter heartbeats every report and writes the file's and the
// job's progress at most once a second.
func (a *Activities) progressReporter(ctx context.Context, in FileRef) analysis.Progress {
	var mu sync.Mutex
	var last time.Time
	return func(stage string, frac float64) {
		pct := int(frac * 100)
		activity.RecordHeartbeat(ctx, pct)
		mu.Lock()
		defer mu.Unlock()
		if time.Since(last) < progressInterval && frac < 1 {
			return
		}
		last = time.Now()
		if err := a.Stores.Files.SetStatus(ctx, in.OrgID, in.FileID, models.FileProcessing, pct, ""); err != nil {
			a.Logger.Warn("file progress not saved", "job_id", in.JobID, "error", err)
		}
		if in.Rerun {
			return
		}
		jobPct := (in.Index*100 + pct) / max(in.Total, 1)
		if err := a.Stores.Jobs.SetProgress(ctx, in.OrgID, in.JobID, models.JobProcessing, stage, min(jobPct, 99)); err != nil {
			a.Logger.Warn("job progress not saved", "job_id", in.JobID, "error", err)
		}
	}
}

// MarkFileFailed records that a file could not be analysed, with a message
// for the user.
func (a *Activities) MarkFileFailed(ctx context.Context, in FileRef, message string) error {
	return a.Stores.Files.SetStatus(ctx, in.OrgID, in.FileID, models.FileFailed, 100, message)
}

// CompleteJobInput names the job and when it ended.
type CompleteJobInput struct {
	OrgID string
	JobID string
	// At is the completion time; the workflow passes its own clock, so
	// the retention timer it then sets is counted from the same instant.
	// Zero means now (a workflow started before this field existed).
	At time.Time
}

// RetentionPlan says when a completed job's raw files expire and are
// deleted; both nil when they are kept until a user deletes them.
type RetentionPlan struct {
	ExpiresAt *time.Time
	DeleteAt  *time.Time
}

// CompleteJob ends the job: completed when any file was analysed, failed
// when none was; audited as job_completed. It stores when the job's raw
// files expire and returns when the workflow should delete them.
func (a *Activities) CompleteJob(ctx context.Context, in CompleteJobInput) (RetentionPlan, error) {
	at := in.At
	if at.IsZero() {
		at = time.Now()
	}
	j, err := a.Stores.Jobs.Get(ctx, in.OrgID, in.JobID)
	if err != nil {
		return RetentionPlan{}, err
	}
	var plan RetentionPlan
	if expires, ok := a.retentionPolicy().ExpiresAt(at, j.RetentionMode, j.RetentionDays); ok {
		deleteAt := a.retentionPolicy().DeleteAt(expires)
		plan = RetentionPlan{ExpiresAt: &expires, DeleteAt: &deleteAt}
	}
	return plan, a.finishJob(ctx, in, at, plan.ExpiresAt)
}

// finishJob records the job's outcome and audits it.
func (a *Activities) finishJob(ctx context.Context, in CompleteJobInput, at time.Time, expiresAt *time.Time) error {
	files, err := a.Stores.Files.ListByJob(ctx, in.OrgID, in.JobID)
	if err != nil {
		return err
	}
	status, message, done, personal := models.JobFailed, "no file could be analysed", 0, 0
	for _, f := range files {
		if f.Status == models.FileCompleted {
			status, message = models.JobCompleted, ""
			done++
		}
	}
	ids := make([]int64, len(files))
	for i, f := range files {
		ids[i] = f.ID
	}
	cols, err := a.Stores.Files.ColumnsOfFiles(ctx, in.OrgID, ids)
	if err != nil {
		return err
	}
	for _, c := range cols {
		if classify.IsPersonal(classify.Result{Category: classify.GDPRCategory(c.GDPRCategory), Confidence: c.Confidence}) {
			personal++
		}
	}
	if err := a.Stores.Jobs.Finish(ctx, in.OrgID, in.JobID, status, message, at, expiresAt); err != nil {
		return err
	}
	if a.Audit != nil {
		a.Audit.Record(audit.Entry{OrgID: in.OrgID, Event: audit.JobCompleted, Metadata: map[string]any{
			"job_id": in.JobID, "status": status, "files": len(files), "files_analysed": done, "personal_data_columns": personal,
		}})
	}
	return nil
}
