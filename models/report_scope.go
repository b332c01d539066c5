package models

import (
	"context"
	"time"

	"gorm.io/gorm"
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
	q := s.scopeFiles(ctx, orgID, sc).Select("id, job_id, file_name, quality_score, completed_at")
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
	CreatedAt time.Time
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

// scopeFiles is the completed uploads in the scope.
func (s Files) scopeFiles(ctx context.Context, orgID string, sc ReportScope) *gorm.DB {
	q := s.db.conn(ctx).Model(&File{}).Where("org_id = ? AND status = ? AND completed_at IS NOT NULL", orgID, FileCompleted)
	if len(sc.FileIDs) > 0 {
		q = q.Where("id IN ?", sc.FileIDs)
	}
	return sc.within(q, "completed_at")
}

// within keeps q's rows whose time column is in the scope's [From, To).
func (sc ReportScope) within(q *gorm.DB, column string) *gorm.DB {
	if sc.From != nil {
		q = q.Where(column+" >= ?", dbTime(*sc.From))
	}
	if sc.To != nil {
		q = q.Where(column+" < ?", dbTime(*sc.To))
	}
	return q
}

// LatestPerName returns, per file name in the scope, the id of its latest
// upload (a dataset is its file name), the most recently analysed names
// first, at most limit, and how many names the scope holds.
func (s Files) LatestPerName(ctx context.Context, orgID string, sc ReportScope, limit int) (ids []int64, names int64, err error) {
	err = s.db.conn(ctx).Table("(?) AS f", s.scopeFiles(ctx, orgID, sc).Select("file_name").Group("file_name")).Count(&names).Error
	if err != nil {
		return nil, 0, err
	}
	var rows []struct{ ID int64 }
	err = s.scopeFiles(ctx, orgID, sc).Select("MAX(id) AS id").Group("file_name").
		Order("MAX(completed_at) DESC, MAX(id) DESC").Limit(limit).Scan(&rows).Error
	for _, r := range rows {
		ids = append(ids, r.ID)
	}
	return ids, names, err
}

// scopeTables is the tables completed scans read in the scope.
func (s Scans) scopeTables(ctx context.Context, orgID string, sc ReportScope) *gorm.DB {
	q := s.db.conn(ctx).Table("scan_tables AS t").
		Joins("JOIN scans AS s ON s.id = t.scan_id AND s.org_id = t.org_id").
		Where("t.org_id = ? AND t.status = ?", orgID, ScanCompleted)
	if len(sc.SourceIDs) > 0 {
		q = q.Where("s.source_id IN ?", sc.SourceIDs)
	}
	return sc.within(q, "t.created_at")
}

// LatestTables returns, per source and table in the scope, its latest
// scan result (id and source), the most recently scanned first, at most
// limit, and how many tables the scope holds.
func (s Scans) LatestTables(ctx context.Context, orgID string, sc ReportScope, limit int) (latest []TableAnalysis, tables int64, err error) {
	grouped := s.scopeTables(ctx, orgID, sc).Select("s.source_id, t.table_name").Group("s.source_id, t.table_name")
	if err = s.db.conn(ctx).Table("(?) AS g", grouped).Count(&tables).Error; err != nil {
		return nil, 0, err
	}
	err = s.scopeTables(ctx, orgID, sc).
		Select("MAX(t.id) AS id, s.source_id AS source_id, t.table_name AS table_name, MAX(t.created_at) AS created_at").
		Group("s.source_id, t.table_name").Order("MAX(t.created_at) DESC, MAX(t.id) DESC").Limit(limit).Scan(&latest).Error
	return latest, tables, err
}
