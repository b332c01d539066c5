package models

import (
	"context"
	"time"
)

// ReportScope is what a report covers: the given files (none: every
// file), the given sources' tables (none: every source), analyses in
// [From, To) (nil: unbounded).
type ReportScope struct {
	FileIDs   []int64
	SourceIDs []int64
	From, To  *time.Time
}

// MaxScopeAnalyses bounds the analyses a report reads the metadata of
// (newest first): the datasets it shows and their histories come from
// them.
const MaxScopeAnalyses = 5000

// FileAnalysis is a completed analysis of an uploaded file, without its
// profile.
type FileAnalysis struct {
	ID           int64
	JobID        string
	FileName     string
	QualityScore *float64
	CompletedAt  time.Time
}

// AnalysesInScope returns the organisation's completed file analyses in
// the scope, newest first, at most MaxScopeAnalyses.
func (s Files) AnalysesInScope(ctx context.Context, orgID string, sc ReportScope) ([]FileAnalysis, error) {
	q := s.db.conn(ctx).Model(&File{}).Select("id, job_id, file_name, quality_score, completed_at").
		Where("org_id = ? AND status = ? AND completed_at IS NOT NULL", orgID, FileCompleted)
	if len(sc.FileIDs) > 0 {
		q = q.Where("id IN ?", sc.FileIDs)
	}
	if sc.From != nil {
		q = q.Where("completed_at >= ?", dbTime(*sc.From))
	}
	if sc.To != nil {
		q = q.Where("completed_at < ?", dbTime(*sc.To))
	}
	var out []FileAnalysis
	err := q.Order("completed_at DESC, id DESC").Limit(MaxScopeAnalyses).Find(&out).Error
	return out, err
}

// GetMany returns the organisation's files with the given ids (any
// order; ids of other organisations are left out).
func (s Files) GetMany(ctx context.Context, orgID string, ids []int64) ([]File, error) {
	var out []File
	if len(ids) == 0 {
		return out, nil
	}
	err := s.db.conn(ctx).Where("org_id = ? AND id IN ?", orgID, ids).Find(&out).Error
	return out, err
}

// TableAnalysis is a table a completed scan read, without its profile.
type TableAnalysis struct {
	ID        int64
	SourceID  int64
	TableName string
	Rows      int64 `gorm:"column:row_count"`
	CreatedAt time.Time
}

// TableAnalysesInScope returns the tables the organisation's completed
// scans read in the scope, newest first, at most MaxScopeAnalyses.
func (s Scans) TableAnalysesInScope(ctx context.Context, orgID string, sc ReportScope) ([]TableAnalysis, error) {
	q := s.db.conn(ctx).Table("scan_tables AS t").
		Select("t.id AS id, s.source_id AS source_id, t.table_name AS table_name, t.rows AS row_count, t.created_at AS created_at").
		Joins("JOIN scans AS s ON s.id = t.scan_id AND s.org_id = t.org_id").
		Where("t.org_id = ? AND t.status = ?", orgID, ScanCompleted)
	if len(sc.SourceIDs) > 0 {
		q = q.Where("s.source_id IN ?", sc.SourceIDs)
	}
	if sc.From != nil {
		q = q.Where("t.created_at >= ?", dbTime(*sc.From))
	}
	if sc.To != nil {
		q = q.Where("t.created_at < ?", dbTime(*sc.To))
	}
	var out []TableAnalysis
	err := q.Order("t.created_at DESC, t.id DESC").Limit(MaxScopeAnalyses).Scan(&out).Error
	return out, err
}

// TablesByID returns the organisation's scan tables with the given ids.
func (s Scans) TablesByID(ctx context.Context, orgID string, ids []int64) ([]ScanTable, error) {
	var out []ScanTable
	if len(ids) == 0 {
		return out, nil
	}
	err := s.db.conn(ctx).Where("org_id = ? AND id IN ?", orgID, ids).Find(&out).Error
	return out, err
}
