package retention

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/models"
)

// Reason says why a job's raw files are deleted.
type Reason int

const (
	// Expired is the timer or the sweep: only a due job is touched, and the
	// audit entry is files_expiring.
	Expired Reason = iota + 1
	// Requested is DELETE /jobs/{job_id}/files: any mode, any time, and
	// the audit entry is files_deleted.
	Requested
)

// Outcome is what a deletion did.
type Outcome string

const (
	// Deleted: this call removed the objects and recorded it.
	Deleted Outcome = "deleted"
	// AlreadyDeleted: the job's files were deleted before; nothing to do.
	AlreadyDeleted Outcome = "already_deleted"
	// NotDue: an expiry deletion of a job whose retention has not passed
	// (or that keeps its files for good); nothing was touched.
	NotDue Outcome = "not_due"
)

// Request names the job and why and when its files are deleted.
type Request struct {
	OrgID  string
	JobID  string
	Reason Reason
	// At is the deletion time, stamped as file_deleted_at; an Expired
	// request deletes only when the job's expiry is at or before it.
	At time.Time
	// UserID and IP say who asked (Requested only).
	UserID string
	IP     string
}

// Deleter deletes the raw files of jobs.
type Deleter struct {
	Jobs  models.Jobs
	Files models.Files
	Blobs blob.Store
	Audit audit.Recorder
}

// ErrStorage wraps the failures of a deletion whose storage objects could
// not all be removed; nothing was recorded as deleted and a later run (or
// the caller) tries again.
var ErrStorage = errors.New("raw files could not all be removed from storage")

// Delete removes the job's raw files in the order SPEC.md fixes: the audit
// entry first, then every storage object (one already gone counts as
// deleted), then, in one transaction, the files' storage keys are cleared
// and the job's file_deleted_at is stamped. If any object deletion fails,
// nothing is recorded and ErrStorage is returned. The job row, the results
// and the audit log stay. Safe to run twice or concurrently: a second run
// finds the job stamped and does nothing.
func (d Deleter) Delete(ctx context.Context, r Request) (Outcome, error) {
	j, err := d.Jobs.Get(ctx, r.OrgID, r.JobID)
	if err != nil {
		return "", err
	}
	if j.FileDeletedAt != nil {
		return AlreadyDeleted, nil
	}
	if r.Reason == Expired && (j.RetentionExpiresAt == nil || j.RetentionExpiresAt.After(r.At)) {
		return NotDue, nil
	}
	files, err := d.Files.ListByJob(ctx, r.OrgID, r.JobID)
	if err != nil {
		return "", err
	}
	var keys []string
	for _, f := range files {
		if f.StorageKey != "" {
			keys = append(keys, f.StorageKey)
		}
	}
	d.audit(ctx, r, j, len(keys))

	var failed []error
	for _, k := range keys {
		if err := d.Blobs.Delete(ctx, k); err != nil {
			failed = append(failed, err)
		}
	}
	if len(failed) > 0 {
		return "", fmt.Errorf("%w: %d of %d objects of job %s: %w", ErrStorage, len(failed), len(keys), r.JobID, errors.Join(failed...))
	}
	stamped, err := d.Jobs.MarkFilesDeleted(ctx, r.OrgID, r.JobID, keys, r.At)
	if err != nil {
		return "", err
	}
	if !stamped {
		return AlreadyDeleted, nil // a concurrent run recorded it first
	}
	return Deleted, nil
}

// audit records the deletion before anything is removed and, when the
// recorder batches, waits for the entry to be written, so the log never
// misses a deletion that happened. Audit stays best effort: a write that
// fails does not stop the deletion.
func (d Deleter) audit(ctx context.Context, r Request, j *models.Job, objects int) {
	if d.Audit == nil {
		return
	}
	e := audit.Entry{OrgID: r.OrgID, Event: audit.FilesDeleted, UserID: r.UserID, IP: r.IP, At: r.At,
		Metadata: map[string]any{"job_id": j.ID, "objects": objects, "retention_mode": j.RetentionMode}}
	if r.Reason == Expired {
		e.Event = audit.FilesExpiring
		e.Metadata["retention_days"] = j.RetentionDays
		e.Metadata["expired_at"] = j.RetentionExpiresAt.UTC()
	}
	d.Audit.Record(e)
	if f, ok := d.Audit.(audit.Flusher); ok {
		_ = f.Flush(ctx)
	}
}
