package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/retention"
	"github.com/gin-gonic/gin"
)

// Limits of a job's declared files.
const (
	maxJobFiles    = 100
	maxFileNameLen = 255
)

type createJobRequest struct {
	Filenames     []string `json:"filenames"`
	RetentionMode *string  `json:"retention_mode"`
	RetentionDays *int     `json:"retention_days"`
	// NullTokens: an array, or null for the defaults; absent takes the
	// organisation's.
	NullTokens json.RawMessage `json:"null_tokens"`
}

// resolveRetention resolves a job's retention from the organisation's
// defaults and the request's overrides: analysis_only keeps files exactly
// 1 day, short_term 1–365 days, full_retention until deleted by the user
// (stored as 0 days).
func resolveRetention(org *models.Organization, mode *string, days *int) (string, int, error) {
	m, d := org.RetentionMode, org.RetentionDays
	if mode != nil {
		if !oneOf(*mode, retention.Modes) {
			return "", 0, errs.BadRequest("retention_mode must be one of analysis_only, short_term, full_retention")
		}
		m = *mode
	}
	if days != nil {
		if *days < retention.MinDays || *days > retention.MaxDays {
			return "", 0, errs.BadRequest("retention_days must be between %d and %d", retention.MinDays, retention.MaxDays)
		}
		d = *days
	}
	return m, retention.Days(m, d), nil
}

func validFileName(n string) bool {
	return n != "" && len(n) <= maxFileNameLen && !strings.ContainsAny(n, "/\\\x00\r\n") && n != "." && n != ".."
}

// createJob records a job and the names of the files it will receive.
func (s *Server) createJob(c *gin.Context) error {
	p := mustPrincipal(c)
	var req createJobRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if len(req.Filenames) == 0 || len(req.Filenames) > maxJobFiles {
		return errs.BadRequest("filenames must list between 1 and %d file names", maxJobFiles)
	}
	seen := map[string]bool{}
	for _, n := range req.Filenames {
		if !validFileName(n) {
			return errs.BadRequest("each file name must be 1–%d characters without path separators", maxFileNameLen)
		}
		if seen[n] {
			return errs.BadRequest("file name %q is listed twice", n)
		}
		seen[n] = true
	}
	ctx := c.Request.Context()
	org, err := s.Stores.Orgs.Get(ctx, p.OrgID)
	if err != nil {
		return err
	}
	mode, days, err := resolveRetention(org, req.RetentionMode, req.RetentionDays)
	if err != nil {
		return err
	}
	tokens, set, err := nullTokensFromJSON(req.NullTokens)
	if err != nil {
		return err
	}
	if !set {
		tokens = org.NullTokenList()
	}
	j, err := s.newJob(c, p, req.Filenames, mode, days, tokens)
	if err != nil {
		return err
	}
	return s.respondJob(c, http.StatusCreated, p.OrgID, j)
}

// newJob records a created job (audited as job_created) whose files count
// nullTokens as nulls (nil: the defaults).
func (s *Server) newJob(c *gin.Context, p *principal, filenames []string, mode string, days int, nullTokens []string) (*models.Job, error) {
	names, err := json.Marshal(filenames)
	if err != nil {
		return nil, err
	}
	j := &models.Job{CreatedBy: p.userID(), Filenames: string(names), RetentionMode: mode, RetentionDays: days,
		NullTokens: models.EncodeNullTokens(nullTokens), CreatedAt: time.Now().UTC()}
	if err := s.Stores.Jobs.Create(c.Request.Context(), p.OrgID, j); err != nil {
		return nil, err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.JobCreated, IP: clientIP(c),
		Metadata: map[string]any{"job_id": j.ID, "files": len(filenames), "retention_mode": mode}})
	return j, nil
}

// listJobs lists the organisation's jobs, newest first.
func (s *Server) listJobs(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	jobs, total, err := s.Stores.Jobs.List(c.Request.Context(), p.OrgID, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]jobView, len(jobs))
	for i := range jobs {
		if out[i], err = s.jobView(c.Request.Context(), p.OrgID, &jobs[i]); err != nil {
			return err
		}
	}
	return respondList(c, out, total, pg)
}

// getJob answers a job with its files and columns (the polling endpoint).
func (s *Server) getJob(c *gin.Context) error {
	p := mustPrincipal(c)
	j, err := s.Stores.Jobs.Get(c.Request.Context(), p.OrgID, c.Param("job_id"))
	if err != nil {
		return err
	}
	return s.respondJob(c, http.StatusOK, p.OrgID, j)
}

type startJobRequest struct {
	RetentionMode *string `json:"retention_mode"`
}

// startJob queues the job's analysis; retention is fixed from here on.
func (s *Server) startJob(c *gin.Context) error {
	p := mustPrincipal(c)
	var req startJobRequest
	if c.Request.ContentLength != 0 {
		if err := bindJSON(c, &req); err != nil {
			return err
		}
	}
	ctx := c.Request.Context()
	j, err := s.Stores.Jobs.Get(ctx, p.OrgID, c.Param("job_id"))
	if err != nil {
		return err
	}
	if j.Status != models.JobCreated {
		return errs.Conflict("job %s was already started (status %s); its retention cannot change", j.ID, j.Status)
	}
	if j.FileDeletedAt != nil {
		return errFilesOfJobDeleted(j)
	}
	files, err := s.Stores.Files.ListByJob(ctx, p.OrgID, j.ID)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return errs.Conflict("job %s has no files yet; upload them with POST /api/v1/jobs/%s/files first", j.ID, j.ID)
	}
	// Only the mode may change at start; a job created under another mode
	// takes the organisation's default days when switched to short_term.
	org, err := s.Stores.Orgs.Get(ctx, p.OrgID)
	if err != nil {
		return err
	}
	var days *int
	if j.RetentionMode == retention.ShortTerm {
		days = &j.RetentionDays
	}
	if req.RetentionMode == nil {
		req.RetentionMode = &j.RetentionMode
	}
	mode, keep, err := resolveRetention(org, req.RetentionMode, days)
	if err != nil {
		return err
	}
	started, err := s.startAnalysis(c, p, j.ID, len(files), mode, keep)
	if err != nil {
		return err
	}
	return s.respondJob(c, http.StatusAccepted, p.OrgID, started)
}

// startAnalysis queues the job and starts its analysis (jobs.Service.Start).
func (s *Server) startAnalysis(c *gin.Context, p *principal, jobID string, files int, mode string, days int) (*models.Job, error) {
	return s.Jobs.Start(c.Request.Context(), audit.Actor{OrgID: p.OrgID, UserID: p.userID(), IP: clientIP(c)}, jobID, files, mode, days)
}

type jobFileView struct {
	FileID       int64    `json:"file_id"`
	FileName     string   `json:"file_name"`
	Status       string   `json:"status"`
	Progress     int      `json:"progress"`
	SizeBytes    int64    `json:"size_bytes"`
	RowCount     int64    `json:"row_count"`
	ColumnCount  int      `json:"column_count"`
	QualityScore *float64 `json:"quality_score"`
	Error        *string  `json:"error"`
	// CSVDialect is the dialect the file was uploaded with, in the
	// uploader's words; absent when it was sniffed.
	CSVDialect *models.CSVDialect `json:"csv_dialect,omitempty"`
}

type jobColumnView struct {
	Name           string  `json:"name"`
	Classification string  `json:"classification"`
	GDPRCategory   string  `json:"gdpr_category"`
	Confidence     float64 `json:"confidence"`
	InferredType   string  `json:"inferred_type"`
	FileID         int64   `json:"file_id"`
}

type jobView struct {
	ID            string          `json:"id"`
	JobID         string          `json:"job_id"`
	Status        string          `json:"status"`
	Stage         string          `json:"stage"`
	Progress      int             `json:"progress"`
	FileID        *int64          `json:"file_id"`
	Filenames     []string        `json:"filenames"`
	Files         []jobFileView   `json:"files"`
	Columns       []jobColumnView `json:"columns"`
	RetentionMode string          `json:"retention_mode"`
	RetentionDays int             `json:"retention_days"`
	NullTokens    []string        `json:"null_tokens"`
	CreatedAt     time.Time       `json:"created_at"`
	StartedAt     *time.Time      `json:"started_at"`
	CompletedAt   *time.Time      `json:"completed_at"`
	// RetentionExpiresAt is when the raw files stop being kept (deleted
	// at the first 02:00 UTC from then on); null until the job ends and
	// for full_retention.
	RetentionExpiresAt *time.Time `json:"retention_expires_at"`
	FileDeletedAt      *time.Time `json:"file_deleted_at"`
	Error              *string    `json:"error"`
}

func strPtr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// jobView reads the job's files and columns and renders them.
func (s *Server) jobView(ctx context.Context, orgID string, j *models.Job) (jobView, error) {
	files, err := s.Stores.Files.ListByJob(ctx, orgID, j.ID)
	if err != nil {
		return jobView{}, err
	}
	v := jobView{ID: j.ID, JobID: j.ID, Status: j.Status, Stage: j.Stage, Progress: j.Progress,
		RetentionMode: j.RetentionMode, RetentionDays: j.RetentionDays, NullTokens: effectiveNullTokens(j.NullTokenList()),
		CreatedAt: j.CreatedAt.UTC(),
		StartedAt: utcPtr(j.StartedAt), CompletedAt: utcPtr(j.CompletedAt), FileDeletedAt: utcPtr(j.FileDeletedAt),
		RetentionExpiresAt: utcPtr(j.RetentionExpiresAt),
		Error:              strPtr(j.Error), Files: []jobFileView{}, Columns: []jobColumnView{}}
	_ = json.Unmarshal([]byte(j.Filenames), &v.Filenames)
	ids := make([]int64, len(files))
	for i, f := range files {
		ids[i] = f.ID
		v.Files = append(v.Files, jobFileView{FileID: f.ID, FileName: f.FileName, Status: f.Status, Progress: f.Progress,
			SizeBytes: f.SizeBytes, RowCount: f.RowCount, ColumnCount: f.ColumnCount, QualityScore: f.QualityScore, Error: strPtr(f.Error),
			CSVDialect: f.CSVDialectWords()})
	}
	if len(ids) > 0 {
		v.FileID = &ids[0]
	}
	cols, err := s.Stores.Files.ColumnsOfFiles(ctx, orgID, ids)
	if err != nil {
		return jobView{}, err
	}
	for _, c := range cols {
		v.Columns = append(v.Columns, jobColumnView{Name: c.Name, Classification: c.Classification, GDPRCategory: c.GDPRCategory,
			Confidence: c.Confidence, InferredType: c.InferredType, FileID: c.FileID})
	}
	return v, nil
}

func (s *Server) respondJob(c *gin.Context, status int, orgID string, j *models.Job) error {
	v, err := s.jobView(c.Request.Context(), orgID, j)
	if err != nil {
		return err
	}
	return respond(c, status, v)
}

// errFilesOfJobDeleted refuses work that needs a job's deleted raw files.
func errFilesOfJobDeleted(j *models.Job) error {
	return errs.Conflict("the raw files of job %s were deleted on %s; upload them to a new job", j.ID, j.FileDeletedAt.UTC().Format(time.RFC3339))
}

// deleteJobFiles removes the job's raw files now, whatever its retention
// mode (audited as files_deleted). The job, its results and the audit log
// stay. Deleting again answers the job as it is.
func (s *Server) deleteJobFiles(c *gin.Context) error {
	p := mustPrincipal(c)
	ctx := c.Request.Context()
	jobID := c.Param("job_id")
	d := retention.Deleter{Jobs: s.Stores.Jobs, Files: s.Stores.Files, Blobs: s.Blobs, Audit: s.Audit}
	_, err := d.Delete(ctx, retention.Request{OrgID: p.OrgID, JobID: jobID, Reason: retention.Requested,
		At: time.Now(), UserID: p.userID(), IP: clientIP(c)})
	if errors.Is(err, retention.ErrStorage) || errors.Is(err, models.ErrFilesChanged) {
		logger(c).Error("raw files not deleted", "job_id", jobID, "error", err)
		return &errs.Error{Status: http.StatusServiceUnavailable, Code: "storage_unavailable",
			Message: "storage did not remove every raw file of the job; nothing was recorded as deleted, try again"}
	}
	if err != nil {
		return err
	}
	j, err := s.Stores.Jobs.Get(ctx, p.OrgID, jobID)
	if err != nil {
		return err
	}
	return s.respondJob(c, http.StatusOK, p.OrgID, j)
}
