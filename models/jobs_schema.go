package models

import "time"

// Job statuses (DECISIONS.md): created → queued → processing → completed | failed.
const (
	JobCreated    = "created"
	JobQueued     = "queued"
	JobProcessing = "processing"
	JobCompleted  = "completed"
	JobFailed     = "failed"
)

// File statuses within a job.
const (
	FileUploaded   = "uploaded"
	FileProcessing = "processing"
	FileCompleted  = "completed"
	FileFailed     = "failed"
)

// Job is one analysis of uploaded files. Its retention mode is fixed once
// it starts.
type Job struct {
	ID            string    `gorm:"primaryKey;size:32"`
	OrgID         string    `gorm:"size:36;not null;index:idx_jobs_org_created,priority:1"`
	CreatedBy     string    `gorm:"size:36;not null;default:''"`
	Status        string    `gorm:"size:16;not null"`
	Stage         string    `gorm:"size:16;not null;default:''"`
	Progress      int       `gorm:"not null;default:0"`
	Filenames     string    `gorm:"type:text;not null"` // JSON array of the names declared at creation
	RetentionMode string    `gorm:"size:32;not null"`
	RetentionDays int       `gorm:"not null"`
	Error         string    `gorm:"type:text;not null;default:''"`
	CreatedAt     time.Time `gorm:"not null;index:idx_jobs_org_created,priority:2"`
	StartedAt     *time.Time
	CompletedAt   *time.Time
	// RetentionExpiresAt is completion plus the retention period; null
	// until the job ends and for full_retention. The daily sweep deletes
	// the raw files of jobs past it whose FileDeletedAt is still null.
	RetentionExpiresAt *time.Time `gorm:"index:idx_jobs_retention_due,priority:2"`
	FileDeletedAt      *time.Time `gorm:"index:idx_jobs_retention_due,priority:1"`
	// NullTokens is the JSON array of the values the job's files count as
	// nulls, fixed when the job is created; null means the engine's
	// defaults at analysis time (see NullTokenList).
	NullTokens *string `gorm:"type:text"`
}

// File is one uploaded (or corrected) file and, once analysed, its results.
// A job holds one upload of each declared name (uploadNameIndex, migration
// 202611260101); corrected copies, which have a parent, are outside it.
type File struct {
	ID          int64  `gorm:"primaryKey;autoIncrement"`
	OrgID       string `gorm:"size:36;not null;index"`
	JobID       string `gorm:"size:32;not null;index;uniqueIndex:idx_files_job_upload_name,priority:1,where:parent_file_id IS NULL"`
	FileName    string `gorm:"size:512;not null;uniqueIndex:idx_files_job_upload_name,priority:2,where:parent_file_id IS NULL"`
	StorageKey  string `gorm:"size:1024;not null;default:''"` // cleared when the raw file is deleted
	ContentType string `gorm:"size:128;not null;default:''"`
	SizeBytes   int64  `gorm:"not null;default:0"`
	Status      string `gorm:"size:16;not null"`
	Progress    int    `gorm:"not null;default:0"`
	Format      string `gorm:"size:16;not null;default:''"`
	RowCount    int64  `gorm:"not null;default:0"`
	ColumnCount int    `gorm:"not null;default:0"`
	// QualityScore is null until analysed.
	QualityScore *float64
	// Profile is the JSON of the analysis: per column metrics,
	// classification and issues; per file score and dimensions.
	Profile         string `gorm:"type:text;not null;default:''"`
	Error           string `gorm:"type:text;not null;default:''"`
	ParentFileID    *int64
	PipelineID      *string `gorm:"size:36"`
	PipelineVersion *int
	CreatedAt       time.Time `gorm:"not null"`
	CompletedAt     *time.Time
	// CSVDialect is the JSON of the CSV dialect the uploader gave, in
	// their words (see CSVDialect); null when it is sniffed. It is the
	// file's, not the job's: a job may hold files written differently.
	CSVDialect *string `gorm:"type:text"`
}

// FileColumn is one analysed column, kept as rows so later features (GDPR
// reports, lineage) can query classifications without parsing profiles.
type FileColumn struct {
	ID             int64   `gorm:"primaryKey;autoIncrement"`
	OrgID          string  `gorm:"size:36;not null;index"`
	FileID         int64   `gorm:"not null;index"`
	Position       int     `gorm:"not null"`
	Name           string  `gorm:"size:512;not null"`
	InferredType   string  `gorm:"size:16;not null"`
	Classification string  `gorm:"size:64;not null"`
	GDPRCategory   string  `gorm:"column:gdpr_category;size:32;not null"`
	Confidence     float64 `gorm:"not null"`
}
