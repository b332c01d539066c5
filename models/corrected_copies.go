package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"

	"github.com/dqs/dqs/errs"
)

// CreateCopy inserts the row of a corrected copy of file parent, written
// by version version of pipeline pipelineID: in the parent's job (so the
// job's retention deletes it with the upload) and under its name (so the
// copy's analysis is compared with the upload's), outside the index of
// uploads, processing until the copy is written and analysed. Its raw
// file is stored later (StoreCopy).
func (s Files) CreateCopy(ctx context.Context, orgID string, parent *File, pipelineID string, version int) (*File, error) {
	f := &File{JobID: parent.JobID, FileName: parent.FileName, ContentType: parent.ContentType, Status: FileProcessing,
		ParentFileID: &parent.ID, PipelineID: &pipelineID, PipelineVersion: &version, CreatedAt: dbTime(time.Now())}
	if err := s.Create(ctx, orgID, f); err != nil {
		return nil, err
	}
	return f, nil
}

// StoreCopy records where a corrected copy's raw file was stored, its
// size, and the CSV dialect it was written in (nil for other formats).
// A copy whose job's raw files were deleted meanwhile (retention, or a
// user's request, which the copy's row was too late for) is not stored:
// errs.ErrNotFound, and the caller deletes the object it wrote.
func (s Files) StoreCopy(ctx context.Context, orgID string, id int64, key string, size int64, dialect *CSVDialect) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		f, err := s.Get(ctx, orgID, id)
		if err != nil {
			return err
		}
		if err := (Jobs{s.db}).lockJob(ctx, orgID, f.JobID); err != nil {
			return err
		}
		var j Job
		err = s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, f.JobID).Take(&j).Error
		if errors.Is(err, gorm.ErrRecordNotFound) || (err == nil && j.FileDeletedAt != nil) {
			return errs.NotFound("the job's raw files")
		}
		if err != nil {
			return err
		}
		return s.db.conn(ctx).Model(&File{}).Where("org_id = ? AND id = ?", orgID, id).
			Updates(map[string]any{"storage_key": key, "size_bytes": size, "csv_dialect": EncodeCSVDialect(dialect)}).Error
	})
}

// CopyUnwritten reports a corrected copy whose raw file was never stored:
// still being written, or failed before it was (a copy written and later
// deleted by retention has its analysis, and a completion time).
func (f *File) CopyUnwritten() bool {
	return f.ParentFileID != nil && f.StorageKey == "" && f.CompletedAt == nil
}
