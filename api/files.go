package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/readers"
	"github.com/gin-gonic/gin"
)

// downloadURLTTL is how long a signed download URL works.
const downloadURLTTL = 15 * time.Minute

// multipartOverhead is the allowance for the multipart framing (boundaries
// and part headers) beyond DQS_MAX_UPLOAD_BYTES of file bytes, both in a
// declared Content-Length and in a body read without one. 1 MiB holds the
// framing of far more parts than a job may declare.
const multipartOverhead = 1 << 20

// rawPasswordError refuses file name for its columns of plaintext
// passwords, naming them: the user must know which to remove or hash.
func rawPasswordError(name string, columns []string) error {
	quoted := make([]string, len(columns))
	for i, c := range columns {
		quoted[i] = strconv.Quote(c)
	}
	noun := "a column"
	if len(columns) > 1 {
		noun = "columns"
	}
	return &errs.Error{Status: http.StatusBadRequest, Code: "raw_password_detected",
		Message: fmt.Sprintf("the file %q has %s of plaintext passwords (%s); remove or hash it before uploading", name, noun, strings.Join(quoted, ", "))}
}

// spooledPart is an uploaded file part written to a temporary file, so it
// can be prescanned before anything is stored and never sits in memory.
type spooledPart struct {
	name string
	file *os.File
	size int64
}

func (p *spooledPart) close() {
	p.file.Close()
	os.Remove(p.file.Name())
}

func closeParts(parts []*spooledPart) {
	for _, sp := range parts {
		sp.close()
	}
}

// spoolOnePart spools a body that must hold exactly one file part; the
// caller closes it.
func (s *Server) spoolOnePart(c *gin.Context) (*spooledPart, error) {
	parts, err := s.spoolParts(c)
	if err != nil {
		return nil, err
	}
	if len(parts) != 1 {
		closeParts(parts)
		return nil, errs.BadRequest("send exactly one part named \"file\"")
	}
	return parts[0], nil
}

// spoolParts streams each `file` part of a multipart body to a file of the
// process's spool directory. The file bytes are capped at
// DQS_MAX_UPLOAD_BYTES (413 beyond): a body that declares more (plus the
// framing allowance) is refused before any of it is read, and one sent
// without a length (chunked) is cut off while it is read.
func (s *Server) spoolParts(c *gin.Context) ([]*spooledPart, error) {
	if declared := c.Request.ContentLength; declared > s.Config.MaxUploadBytes+multipartOverhead {
		return nil, errs.PayloadTooLarge("uploads are limited to %d bytes; this request declares %d", s.Config.MaxUploadBytes, declared)
	}
	if s.Spool == nil {
		return nil, errors.New("api: no spool directory for uploads")
	}
	ct, _, err := mime.ParseMediaType(c.GetHeader("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return nil, errs.BadRequest("send the files as multipart/form-data with one or more parts named \"file\"")
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, s.Config.MaxUploadBytes+multipartOverhead)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		return nil, errs.BadRequest("malformed multipart body")
	}
	var parts []*spooledPart
	fail := func(err error) ([]*spooledPart, error) {
		closeParts(parts)
		return nil, err
	}
	var total int64
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(uploadError(err, s.Config.MaxUploadBytes))
		}
		if part.FormName() != "file" {
			part.Close()
			continue
		}
		name := part.FileName()
		if !validFileName(name) {
			return fail(errs.BadRequest("each file part needs a file name of 1–%d characters without path separators", maxFileNameLen))
		}
		tmp, err := s.Spool.CreateTemp("upload-*")
		if err != nil {
			return fail(err)
		}
		sp := &spooledPart{name: name, file: tmp}
		parts = append(parts, sp)
		n, err := io.Copy(tmp, io.LimitReader(part, s.Config.MaxUploadBytes-total+1))
		sp.size = n
		total += n
		if err != nil {
			return fail(uploadError(err, s.Config.MaxUploadBytes))
		}
		if total > s.Config.MaxUploadBytes {
			return fail(errs.PayloadTooLarge("uploads are limited to %d bytes", s.Config.MaxUploadBytes))
		}
	}
	if len(parts) == 0 {
		return nil, errs.BadRequest("no file part: send one or more parts named \"file\"")
	}
	return parts, nil
}

func uploadError(err error, limit int64) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errs.PayloadTooLarge("uploads are limited to %d bytes", limit)
	}
	return errs.BadRequest("malformed multipart body")
}

// checkNoPasswords prescans a spooled file and refuses one with a column
// of plaintext passwords (audited as file_rejected_raw_password).
func (s *Server) checkNoPasswords(c *gin.Context, p *principal, sp *spooledPart, d analysis.Dialect) error {
	if _, err := sp.file.Seek(0, io.SeekStart); err != nil {
		return err
	}
	res, err := analysis.Prescan(c.Request.Context(), sp.file, sp.name, sp.size, d, s.Memory)
	if errors.Is(err, readers.ErrCompressed) {
		// Refused now rather than stored and failed in the analysis.
		return errs.BadRequest("%s", strings.TrimPrefix(err.Error(), analysis.ErrBadInput.Error()+": "))
	}
	if errors.Is(err, analysis.ErrBadInput) {
		// An unreadable file is still stored: the analysis marks it
		// failed with the reader's message.
		return nil
	}
	if err != nil {
		return err
	}
	return s.rejectPasswords(c, p, sp, res)
}

// rejectPasswords refuses a prescanned file with plaintext password
// columns, audited as file_rejected_raw_password.
func (s *Server) rejectPasswords(c *gin.Context, p *principal, sp *spooledPart, res *analysis.PrescanResult) error {
	if len(res.PasswordColumns) == 0 {
		return nil
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.FileRejectedPw, IP: clientIP(c),
		Metadata: map[string]any{"filename": sp.name, "size_bytes": sp.size, "columns": res.PasswordColumns}})
	return rawPasswordError(sp.name, res.PasswordColumns)
}

// checkParts prescans every part, read in dialect d as its analysis will
// read it, before anything is stored or created.
func (s *Server) checkParts(c *gin.Context, p *principal, parts []*spooledPart, d analysis.Dialect) error {
	for _, sp := range parts {
		if err := s.checkNoPasswords(c, p, sp, d); err != nil {
			return err
		}
	}
	return nil
}

// storeParts stores each checked part and records its file row, with the
// CSV dialect the upload gave (nil: sniffed); a failure part-way, such as
// a concurrent upload of the same name winning the insert (409), removes
// what this request stored, blobs and rows.
func (s *Server) storeParts(c *gin.Context, p *principal, jobID string, parts []*spooledPart, csv *models.CSVDialect) ([]models.File, error) {
	ctx := c.Request.Context()
	var stored []models.File
	undo := func(err error) ([]models.File, error) {
		ctx := context.WithoutCancel(ctx)
		for _, f := range stored {
			if derr := s.Blobs.Delete(ctx, f.StorageKey); derr != nil {
				logger(c).Error("stored upload not removed after a failure", "file_id", f.ID, "error", derr)
			}
			s.Stores.Files.Delete(ctx, p.OrgID, f.ID)
		}
		return nil, err
	}
	for _, sp := range parts {
		key, err := blob.OrgKey(p.OrgID, "uploads", jobID, auth.RandomToken(12))
		if err != nil {
			return undo(err)
		}
		if _, err := sp.file.Seek(0, io.SeekStart); err != nil {
			return undo(err)
		}
		if _, err := s.Blobs.Put(ctx, key, sp.file, "application/octet-stream"); err != nil {
			return undo(fmt.Errorf("store upload: %w", err))
		}
		f := models.File{JobID: jobID, FileName: sp.name, StorageKey: key, SizeBytes: sp.size, CSVDialect: models.EncodeCSVDialect(csv), CreatedAt: time.Now().UTC()}
		if err := s.Stores.Files.Create(ctx, p.OrgID, &f); err != nil {
			s.Blobs.Delete(context.WithoutCancel(ctx), key)
			return undo(err)
		}
		stored = append(stored, f)
	}
	for _, f := range stored {
		s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.FileUploaded, IP: clientIP(c),
			Metadata: map[string]any{"file_id": f.ID, "filename": f.FileName, "size_bytes": f.SizeBytes, "job_id": jobID}})
	}
	return stored, nil
}

// uploadJobFiles receives files declared at job creation.
func (s *Server) uploadJobFiles(c *gin.Context) error {
	p := mustPrincipal(c)
	ctx := c.Request.Context()
	j, err := s.Stores.Jobs.Get(ctx, p.OrgID, c.Param("job_id"))
	if err != nil {
		return err
	}
	if j.Status != models.JobCreated {
		return errs.Conflict("job %s was already started; files can no longer be added", j.ID)
	}
	if j.FileDeletedAt != nil {
		return errFilesOfJobDeleted(j)
	}
	// The job's null tokens, and this request's CSV dialect: the files of
	// one job may come from different exports.
	d, csv, err := uploadDialect(c, j.NullTokenList())
	if err != nil {
		return err
	}
	parts, err := s.spoolParts(c)
	if err != nil {
		return err
	}
	defer closeParts(parts)
	var declared []string
	_ = json.Unmarshal([]byte(j.Filenames), &declared)
	existing, err := s.Stores.Files.ListByJob(ctx, p.OrgID, j.ID)
	if err != nil {
		return err
	}
	// A name already stored is refused here, before anything is stored;
	// of concurrent uploads of one name, the database's unique index lets
	// one be stored and the others get the same 409 (storeParts).
	have := map[string]bool{}
	for _, f := range existing {
		have[f.FileName] = true
	}
	for _, sp := range parts {
		if !oneOf(sp.name, declared) {
			return errs.BadRequest("file %q was not declared in the job's filenames", sp.name)
		}
		if have[sp.name] {
			return errs.Conflict("file %q was already uploaded to this job", sp.name)
		}
		have[sp.name] = true
	}
	if err := s.checkParts(c, p, parts, d); err != nil {
		return err
	}
	if _, err := s.storeParts(c, p, j.ID, parts, csv); err != nil {
		return err
	}
	return s.respondJob(c, http.StatusCreated, p.OrgID, j)
}

// publicUpload is the integration shortcut: one request creates a job with
// the organisation's retention defaults, stores the file and starts it.
// The query's null_tokens, if any, replace the organisation's; its CSV
// dialect, if any, is stored with the file.
func (s *Server) publicUpload(c *gin.Context) error {
	p := mustPrincipal(c)
	org, tokens, err := s.uploadNullTokens(c, p)
	if err != nil {
		return err
	}
	d, csv, err := uploadDialect(c, tokens)
	if err != nil {
		return err
	}
	sp, err := s.spoolOnePart(c)
	if err != nil {
		return err
	}
	defer sp.close()
	parts := []*spooledPart{sp}
	if err := s.checkParts(c, p, parts, d); err != nil {
		return err
	}
	mode, days, err := resolveRetention(org, nil, nil)
	if err != nil {
		return err
	}
	j, err := s.newJob(c, p, []string{sp.name}, mode, days, tokens)
	if err != nil {
		return err
	}
	if _, err := s.storeParts(c, p, j.ID, parts, csv); err != nil {
		return err
	}
	started, err := s.startAnalysis(c, p, j.ID, 1, mode, days)
	if err != nil {
		return err
	}
	return respond(c, http.StatusAccepted, gin.H{"job_id": started.ID, "file_name": sp.name, "status": started.Status})
}

// publicJob is the polling endpoint of integrations.
func (s *Server) publicJob(c *gin.Context) error { return s.getJob(c) }

// prescan classifies the head of a file without storing anything, with
// the query's null_tokens or else the organisation's, and the query's CSV
// dialect.
func (s *Server) prescan(c *gin.Context) error {
	p := mustPrincipal(c)
	_, tokens, err := s.uploadNullTokens(c, p)
	if err != nil {
		return err
	}
	d, _, err := uploadDialect(c, tokens)
	if err != nil {
		return err
	}
	sp, err := s.spoolOnePart(c)
	if err != nil {
		return err
	}
	defer sp.close()
	res, err := analysis.Prescan(c.Request.Context(), sp.file, sp.name, sp.size, d, s.Memory)
	if err != nil {
		if errors.Is(err, analysis.ErrBadInput) {
			return errs.BadRequest("%s", err.Error())
		}
		return err
	}
	if err := s.rejectPasswords(c, p, sp, res); err != nil {
		return err
	}
	return respond(c, http.StatusOK, res)
}

type fileView struct {
	ID              int64      `json:"id"`
	FileID          int64      `json:"file_id"`
	JobID           string     `json:"job_id"`
	FileName        string     `json:"file_name"`
	Status          string     `json:"status"`
	Format          string     `json:"format"`
	SizeBytes       int64      `json:"size_bytes"`
	RowCount        int64      `json:"row_count"`
	ColumnCount     int        `json:"column_count"`
	QualityScore    *float64   `json:"quality_score"`
	RawFileDeleted  bool       `json:"raw_file_deleted"`
	ParentFileID    *int64     `json:"parent_file_id"`
	PipelineID      *string    `json:"pipeline_id"`
	PipelineVersion *int       `json:"pipeline_version"`
	Error           *string    `json:"error"`
	CreatedAt       time.Time  `json:"created_at"`
	CompletedAt     *time.Time `json:"completed_at"`
	// CSVDialect is the dialect the file was uploaded with, in the
	// uploader's words; absent when it was sniffed.
	CSVDialect *models.CSVDialect `json:"csv_dialect,omitempty"`
	Profile    json.RawMessage    `json:"profile,omitempty"`
}

func viewFile(f *models.File, withProfile bool) fileView {
	v := fileView{ID: f.ID, FileID: f.ID, JobID: f.JobID, FileName: f.FileName, Status: f.Status, Format: f.Format,
		SizeBytes: f.SizeBytes, RowCount: f.RowCount, ColumnCount: f.ColumnCount, QualityScore: f.QualityScore,
		RawFileDeleted: f.StorageKey == "" && !f.CopyUnwritten(), ParentFileID: f.ParentFileID, PipelineID: f.PipelineID,
		PipelineVersion: f.PipelineVersion, Error: strPtr(f.Error), CreatedAt: f.CreatedAt.UTC(), CompletedAt: utcPtr(f.CompletedAt),
		CSVDialect: f.CSVDialectWords()}
	if withProfile && f.Profile != "" {
		v.Profile = json.RawMessage(f.Profile)
	}
	return v
}

// listFiles lists the organisation's files, newest first.
func (s *Server) listFiles(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	files, total, err := s.Stores.Files.List(c.Request.Context(), p.OrgID, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]fileView, len(files))
	for i := range files {
		out[i] = viewFile(&files[i], false)
	}
	return respondList(c, out, total, pg)
}

var errFileNotFound = errs.NotFound("file")

// errRawFileDeleted answers a download or re-analysis of a file whose raw
// file was deleted, by its retention or by a user.
var errRawFileDeleted = &errs.Error{Status: http.StatusNotFound, Code: "not_found",
	Message: "the raw file was deleted (retention expired or deleted on request); its analysis remains available at GET /api/v1/files/{id}"}

// reanalyzeFile analyses a file of a finished job again, replacing its
// result (after the engine improved, say); 202 with the file, whose
// status and progress then follow the analysis.
func (s *Server) reanalyzeFile(c *gin.Context) error {
	p := mustPrincipal(c)
	ctx := c.Request.Context()
	f, err := s.fileParam(c)
	if err != nil {
		return err
	}
	if f.StorageKey == "" {
		return errRawFileDeleted
	}
	j, err := s.Stores.Jobs.Get(ctx, p.OrgID, f.JobID)
	if err != nil {
		return err
	}
	if j.Status != models.JobCompleted && j.Status != models.JobFailed {
		return errs.Conflict("job %s is %s; a file can be analysed again once its job has finished", j.ID, j.Status)
	}
	f, err = s.Jobs.Reanalyze(ctx, p.OrgID, f)
	if err != nil {
		return err
	}
	return respond(c, http.StatusAccepted, viewFile(f, false))
}

func (s *Server) fileParam(c *gin.Context) (*models.File, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return nil, errFileNotFound
	}
	return s.Stores.Files.Get(c.Request.Context(), mustPrincipal(c).OrgID, id)
}

// getFile answers a file with its profile.
func (s *Server) getFile(c *gin.Context) error {
	f, err := s.fileParam(c)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewFile(f, true))
}

// downloadFile redirects to a time-limited signed URL of the raw file.
func (s *Server) downloadFile(c *gin.Context) error {
	f, err := s.fileParam(c)
	if err != nil {
		return err
	}
	if f.CopyUnwritten() {
		return errs.Conflict("file %d is a corrected copy that is %s and has no raw file yet", f.ID, f.Status)
	}
	if f.StorageKey == "" {
		return errRawFileDeleted
	}
	url, err := s.Blobs.SignedURL(c.Request.Context(), f.StorageKey, downloadURLTTL, f.FileName)
	if err != nil {
		return err
	}
	c.Redirect(http.StatusTemporaryRedirect, url)
	return nil
}

var errBadBlobLink = errs.NotFound("download link (invalid or expired)")

// serveBlob serves a signed URL of the local blob driver.
func (s *Server) serveBlob(c *gin.Context) error {
	if s.LocalBlobs == nil {
		return errBadBlobLink
	}
	key, filename, err := s.LocalBlobs.Verify(c.Param("token"), time.Now())
	if err != nil {
		return errBadBlobLink
	}
	rc, err := s.Blobs.Open(c.Request.Context(), key)
	if errors.Is(err, blob.ErrNotFound) {
		return errBadBlobLink
	}
	if err != nil {
		return err
	}
	defer rc.Close()
	c.Header("Content-Disposition", blob.ContentDisposition(filename))
	c.Header("Cache-Control", "private, no-store")
	c.Header("X-Content-Type-Options", "nosniff")
	c.Status(http.StatusOK)
	c.Header("Content-Type", "application/octet-stream")
	_, err = io.Copy(c.Writer, rc)
	if err != nil {
		logger(c).Warn("blob download interrupted", "error", err)
	}
	return nil
}
