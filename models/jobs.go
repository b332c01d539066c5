package models

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"strings"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

var idEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewShortID returns prefix + "_" + 12 random lower-case base32 characters
// (60 bits), the form of job and scan ids (DECISIONS.md).
func NewShortID(prefix string) string {
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return prefix + "_" + strings.ToLower(idEncoding.EncodeToString(b))[:12]
}

// Jobs reads and writes analysis jobs.
type Jobs struct{ db *DB }

// Create inserts j in status created.
func (s Jobs) Create(ctx context.Context, orgID string, j *Job) error {
	if j.ID == "" {
		j.ID = NewShortID("job")
	}
	j.OrgID = orgID
	j.Status = JobCreated
	if j.Filenames == "" {
		j.Filenames = "[]"
	}
	return s.db.conn(ctx).Create(j).Error
}

// Get returns job id of the organisation.
func (s Jobs) Get(ctx context.Context, orgID, id string) (*Job, error) {
	var j Job
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&j).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("job")
	}
	return &j, err
}

// List returns a page of the organisation's jobs, newest first.
func (s Jobs) List(ctx context.Context, orgID string, p Page) ([]Job, int64, error) {
	q := s.db.conn(ctx).Model(&Job{}).Where("org_id = ?", orgID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Job
	err := q.Order("created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Start moves a created job to queued with its final retention settings.
// Any other status is a conflict: a job starts once, and its retention is
// fixed from then on.
func (s Jobs) Start(ctx context.Context, orgID, id, retentionMode string, retentionDays int, now time.Time) (*Job, error) {
	res := s.db.conn(ctx).Model(&Job{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, JobCreated).
		Updates(map[string]any{"status": JobQueued, "stage": "queued", "retention_mode": retentionMode,
			"retention_days": retentionDays, "started_at": now.UTC()})
	if res.Error != nil {
		return nil, res.Error
	}
	j, err := s.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	if res.RowsAffected == 0 {
		return nil, errs.Conflict("job %s was already started (status %s)", id, j.Status)
	}
	return j, nil
}

// SetProgress records the job's stage and percentage.
func (s Jobs) SetProgress(ctx context.Context, orgID, id, status, stage string, progress int) error {
	return s.db.conn(ctx).Model(&Job{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"status": status, "stage": stage, "progress": progress}).Error
}

// Finish records the job's end: completed or failed with a message, and
// when its raw files expire (nil: never).
func (s Jobs) Finish(ctx context.Context, orgID, id, status, message string, now time.Time, expiresAt *time.Time) error {
	return s.db.conn(ctx).Model(&Job{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"status": status, "stage": "done", "progress": 100, "error": message,
			"completed_at": now.UTC(), "retention_expires_at": utc(expiresAt)}).Error
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// ExpiredCursor is where a walk over expired jobs goes on from: after the
// job with this expiry and id. The zero cursor starts at the beginning.
type ExpiredCursor struct {
	ExpiresAt time.Time
	ID        string
}

// CursorAfter is the cursor that goes on after job j.
func CursorAfter(j Job) ExpiredCursor {
	return ExpiredCursor{ExpiresAt: j.RetentionExpiresAt.UTC(), ID: j.ID}
}

// Expired returns up to limit jobs, across organisations, whose raw files
// expired at or before asOf and are not yet deleted, oldest expiry first,
// after the cursor (a maintenance sweep; each job carries its OrgID for
// the calls that follow).
func (s Jobs) Expired(ctx context.Context, asOf time.Time, after ExpiredCursor, limit int) ([]Job, error) {
	q := s.db.conn(ctx).Where("file_deleted_at IS NULL AND retention_expires_at IS NOT NULL AND retention_expires_at <= ?", asOf.UTC())
	if !after.ExpiresAt.IsZero() {
		at := after.ExpiresAt.UTC()
		q = q.Where("(retention_expires_at > ? OR (retention_expires_at = ? AND id > ?))", at, at, after.ID)
	}
	var out []Job
	err := q.Order("retention_expires_at ASC, id ASC").Limit(limit).Find(&out).Error
	return out, err
}

// ErrFilesChanged says a job's files changed while its raw files were
// being deleted (an upload landed meanwhile); the deletion is not recorded
// and must run again.
var ErrFilesChanged = errors.New("the job's files changed during deletion")

// MarkFilesDeleted records, in one transaction, that the objects at keys
// are gone: it clears those storage keys on the job's files and stamps the
// job's file_deleted_at (kept if already stamped). Should a file of the
// job still hold another key, nothing is recorded and ErrFilesChanged is
// returned, so a stamped job never has a raw file left. It reports whether
// this call stamped the job.
func (s Jobs) MarkFilesDeleted(ctx context.Context, orgID, jobID string, keys []string, at time.Time) (bool, error) {
	stamped := false
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		if err := s.lockJob(ctx, orgID, jobID); err != nil {
			return err
		}
		if len(keys) > 0 {
			err := c.Model(&File{}).Where("org_id = ? AND job_id = ? AND storage_key IN ?", orgID, jobID, keys).
				Update("storage_key", "").Error
			if err != nil {
				return err
			}
		}
		var left int64
		if err := c.Model(&File{}).Where("org_id = ? AND job_id = ? AND storage_key <> ''", orgID, jobID).Count(&left).Error; err != nil {
			return err
		}
		if left > 0 {
			return ErrFilesChanged
		}
		res := c.Model(&Job{}).Where("org_id = ? AND id = ? AND file_deleted_at IS NULL", orgID, jobID).
			Update("file_deleted_at", at.UTC())
		stamped = res.RowsAffected > 0
		return res.Error
	})
	return stamped, err
}

// lockJob holds the job's row for the transaction in ctx (PostgreSQL;
// SQLite transactions hold the write lock), so that a corrected copy is
// either stored before its job's raw files are counted and deleted, or
// sees them deleted (Files.StoreCopy takes the same lock).
func (s Jobs) lockJob(ctx context.Context, orgID, jobID string) error {
	if s.db.Dialect != Postgres {
		return nil
	}
	var id string
	return s.db.conn(ctx).Model(&Job{}).Clauses(clause.Locking{Strength: "UPDATE"}).Select("id").
		Where("org_id = ? AND id = ?", orgID, jobID).Scan(&id).Error
}

// Files reads and writes files and their analysis results.
type Files struct{ db *DB }

// Create inserts f for job f.JobID of the organisation. A job holds one
// upload of each name, and a unique index decides it: of concurrent
// uploads of one name exactly one is inserted, the others get a conflict.
func (s Files) Create(ctx context.Context, orgID string, f *File) error {
	f.OrgID = orgID
	if f.Status == "" {
		f.Status = FileUploaded
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.conn(ctx).Create(f).Error; err != nil {
			if isUploadNameTaken(err) {
				return errs.Conflict("file %q was already uploaded to this job", f.FileName)
			}
			return err
		}
		_, err := Lineage{s.db}.EnsureNode(ctx, orgID, lineage.TypeFile, FileRef(f.ID), f.FileName)
		return err
	})
}

// isUploadNameTaken reports whether err is a violation of the unique
// index of upload names (PostgreSQL names the index, SQLite its columns).
func isUploadNameTaken(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, uploadNameIndex) || strings.Contains(msg, "files.job_id, files.file_name")
}

// Get returns file id of the organisation.
func (s Files) Get(ctx context.Context, orgID string, id int64) (*File, error) {
	var f File
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&f).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("file")
	}
	return &f, err
}

// ListByJob returns the job's files in upload order.
func (s Files) ListByJob(ctx context.Context, orgID, jobID string) ([]File, error) {
	var out []File
	err := s.db.conn(ctx).Where("org_id = ? AND job_id = ?", orgID, jobID).Order("id ASC").Find(&out).Error
	return out, err
}

// List returns a page of the organisation's files, newest first.
func (s Files) List(ctx context.Context, orgID string, p Page) ([]File, int64, error) {
	q := s.db.conn(ctx).Model(&File{}).Where("org_id = ?", orgID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []File
	err := q.Order("id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// SetStatus records a file's status, progress and error message.
func (s Files) SetStatus(ctx context.Context, orgID string, id int64, status string, progress int, message string) error {
	return s.db.conn(ctx).Model(&File{}).Where("org_id = ? AND id = ?", orgID, id).
		Updates(map[string]any{"status": status, "progress": progress, "error": message}).Error
}

// FileResult is what an analysis stores for a file.
type FileResult struct {
	Format       string
	RowCount     int64
	ColumnCount  int
	QualityScore float64
	Profile      string
	Columns      []FileColumn
}

// SaveResult stores a file's analysis and columns in one transaction,
// replacing any earlier result (an activity retried after a crash writes
// the same rows again instead of duplicating them).
func (s Files) SaveResult(ctx context.Context, orgID string, id int64, r FileResult, now time.Time) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		score := r.QualityScore
		res := c.Model(&File{}).Where("org_id = ? AND id = ?", orgID, id).Updates(map[string]any{
			"status": FileCompleted, "progress": 100, "error": "", "format": r.Format, "row_count": r.RowCount,
			"column_count": r.ColumnCount, "quality_score": &score, "profile": r.Profile, "completed_at": now.UTC(),
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.NotFound("file")
		}
		if err := c.Where("org_id = ? AND file_id = ?", orgID, id).Delete(&FileColumn{}).Error; err != nil {
			return err
		}
		if len(r.Columns) == 0 {
			return nil
		}
		cols := make([]FileColumn, len(r.Columns))
		for i, col := range r.Columns {
			col.ID = 0
			col.OrgID = orgID
			col.FileID = id
			col.Position = i
			cols[i] = col
		}
		return c.CreateInBatches(cols, 200).Error
	})
}

// ColumnsOfFiles returns the analysed columns of the given files, in file
// and column order.
func (s Files) ColumnsOfFiles(ctx context.Context, orgID string, fileIDs []int64) ([]FileColumn, error) {
	if len(fileIDs) == 0 {
		return nil, nil
	}
	var out []FileColumn
	err := s.db.conn(ctx).Where("org_id = ? AND file_id IN ?", orgID, fileIDs).Order("file_id ASC, position ASC").Find(&out).Error
	return out, err
}

// Unstart returns a queued job to created when its workflow could not be
// started.
func (s Jobs) Unstart(ctx context.Context, orgID, id string) error {
	return s.db.conn(ctx).Model(&Job{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, JobQueued).
		Updates(map[string]any{"status": JobCreated, "stage": "", "started_at": nil}).Error
}

// Delete removes a file row (an upload undone before its job started).
func (s Files) Delete(ctx context.Context, orgID string, id int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Delete(&File{}).Error; err != nil {
			return err
		}
		return Lineage{s.db}.DeleteByRefs(ctx, orgID, lineage.TypeFile, []string{FileRef(id)})
	})
}

// BeginRerun moves an analysed (or failed) file whose raw file is still
// stored to processing, for a re-analysis; a file being analysed is a
// conflict and one whose raw file was deleted is not found.
func (s Files) BeginRerun(ctx context.Context, orgID string, id int64) (*File, error) {
	res := s.db.conn(ctx).Model(&File{}).
		Where("org_id = ? AND id = ? AND status IN ? AND storage_key <> ''", orgID, id, []string{FileCompleted, FileFailed}).
		Updates(map[string]any{"status": FileProcessing, "progress": 0, "error": ""})
	if res.Error != nil {
		return nil, res.Error
	}
	f, err := s.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	switch {
	case res.RowsAffected > 0:
		return f, nil
	case f.StorageKey == "":
		return nil, errs.NotFound("raw file")
	}
	return nil, errs.Conflict("file %d is %s; it can be analysed again once that ends", id, f.Status)
}

// PreviousAnalysis returns the latest completed file of the organisation
// named fileName uploaded before file beforeID (the previous run of the
// same dataset), or nil when there is none.
func (s Files) PreviousAnalysis(ctx context.Context, orgID, fileName string, beforeID int64) (*File, error) {
	var f File
	err := s.db.conn(ctx).Where("org_id = ? AND file_name = ? AND id < ? AND status = ?", orgID, fileName, beforeID, FileCompleted).
		Order("id DESC").Take(&f).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &f, nil
}
