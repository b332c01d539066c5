// Package jobs is the service layer of analysis jobs: it starts a job's
// analysis and a file's re-analysis, each as one launch (write the row,
// start the workflow, undo the row if the start fails), so that the HTTP
// handlers only read requests and write answers.
package jobs

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/launch"
	"github.com/dqs/dqs/models"
)

// Workflows starts the durable work of jobs.
type Workflows interface {
	// AnalyzeJob starts the analysis of a queued job (workflow id = job
	// id, so starting it twice joins the first).
	AnalyzeJob(ctx context.Context, orgID, jobID string) error
	// ReanalyzeFile starts the re-analysis of one file of a finished job.
	ReanalyzeFile(ctx context.Context, orgID, jobID string, fileID int64) error
}

// Service starts jobs' work.
type Service struct {
	Stores    *models.Stores
	Workflows Workflows
	Audit     audit.Recorder
	Logger    *slog.Logger
}

// Start moves a created job to queued with its final retention and starts
// its analysis (audited as job_started). If the workflow cannot be
// started, the job goes back to created, so it can be started again rather
// than sit queued forever. files is the number of its files, for the audit
// entry.
func (s *Service) Start(ctx context.Context, a audit.Actor, jobID string, files int, mode string, days int) (*models.Job, error) {
	var j *models.Job
	err := launch.Run(ctx, launch.Steps{
		Write: func(ctx context.Context) (err error) {
			j, err = s.Stores.Jobs.Start(ctx, a.OrgID, jobID, mode, days, time.Now())
			return err
		},
		Start: func(ctx context.Context) error { return s.Workflows.AnalyzeJob(ctx, a.OrgID, jobID) },
		Undo:  func(ctx context.Context) error { return s.Stores.Jobs.Unstart(ctx, a.OrgID, jobID) },
	})
	if err != nil {
		s.logNotUndone(err, "job left queued without a workflow", "job_id", jobID)
		return nil, err
	}
	s.Audit.Record(a.Entry(audit.JobStarted,
		map[string]any{"job_id": jobID, "files": files, "retention_mode": mode, "retention_days": days}))
	return j, nil
}

// Reanalyze moves a finished file back to processing and starts its
// re-analysis; if the workflow cannot be started, the file gets back the
// status, progress and error it had.
func (s *Service) Reanalyze(ctx context.Context, orgID string, before *models.File) (*models.File, error) {
	var f *models.File
	err := launch.Run(ctx, launch.Steps{
		Write: func(ctx context.Context) (err error) {
			f, err = s.Stores.Files.BeginRerun(ctx, orgID, before.ID)
			return err
		},
		Start: func(ctx context.Context) error { return s.Workflows.ReanalyzeFile(ctx, orgID, f.JobID, f.ID) },
		Undo: func(ctx context.Context) error {
			return s.Stores.Files.SetStatus(ctx, orgID, before.ID, before.Status, before.Progress, before.Error)
		},
	})
	if err != nil {
		s.logNotUndone(err, "file left processing without a workflow", "file_id", before.ID)
		return nil, err
	}
	return f, nil
}

func (s *Service) logNotUndone(err error, msg string, args ...any) {
	if errors.Is(err, launch.ErrNotUndone) {
		s.Logger.Error(msg, append(args, "error", err)...)
	}
}
