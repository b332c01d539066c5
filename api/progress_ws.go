package api

import (
	"context"
	"slices"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/dqs/dqs/models"
	"github.com/gin-gonic/gin"
)

// The job is polled from the database, which the worker's heartbeats
// update. A connection lives at most DQS_WS_LIFETIME (10 minutes, SPEC.md).
const (
	wsPollInterval = 500 * time.Millisecond
	wsWriteTimeout = 10 * time.Second
)

// progressMessage is one WebSocket message (DECISIONS.md).
type progressMessage struct {
	Type     string         `json:"type"` // progress, completed, failed
	JobID    string         `json:"job_id"`
	Status   string         `json:"status"`
	Stage    string         `json:"stage"`
	Progress int            `json:"progress"`
	Files    []fileProgress `json:"files"`
	Error    *string        `json:"error"`
}

type fileProgress struct {
	FileID   int64  `json:"file_id"`
	FileName string `json:"file_name"`
	Status   string `json:"status"`
	Progress int    `json:"progress"`
}

func (m progressMessage) equal(o progressMessage) bool {
	return m.Type == o.Type && m.Status == o.Status && m.Stage == o.Stage && m.Progress == o.Progress && slices.Equal(m.Files, o.Files)
}

// jobProgress reads the job's progress message.
func (s *Server) jobProgress(ctx context.Context, orgID, jobID string) (progressMessage, error) {
	j, err := s.Stores.Jobs.Get(ctx, orgID, jobID)
	if err != nil {
		return progressMessage{}, err
	}
	files, err := s.Stores.Files.ListByJob(ctx, orgID, jobID)
	if err != nil {
		return progressMessage{}, err
	}
	m := progressMessage{Type: "progress", JobID: j.ID, Status: j.Status, Stage: j.Stage, Progress: j.Progress, Error: strPtr(j.Error), Files: make([]fileProgress, len(files))}
	switch j.Status {
	case models.JobCompleted:
		m.Type = "completed"
	case models.JobFailed:
		m.Type = "failed"
	}
	for i, f := range files {
		m.Files[i] = fileProgress{FileID: f.ID, FileName: f.FileName, Status: f.Status, Progress: f.Progress}
	}
	return m, nil
}

// jobProgressSocket streams a job's progress: a message now, one on every
// change, and a last "completed" or "failed" message before closing. The
// job is looked up before the upgrade, so a missing or foreign job is an
// ordinary 404.
func (s *Server) jobProgressSocket(c *gin.Context) error {
	p := mustPrincipal(c)
	jobID := c.Param("job_id")
	first, err := s.jobProgress(c.Request.Context(), p.OrgID, jobID)
	if err != nil {
		return err
	}
	conn, err := websocket.Accept(c.Writer, c.Request, &websocket.AcceptOptions{})
	if err != nil {
		return nil // Accept has answered the client
	}
	defer conn.CloseNow()
	// The client sends nothing; reading detects its going away. The
	// lifetime is a timer of its own, so reaching it closes with 1001
	// rather than tearing the connection down under the reader.
	ctx := conn.CloseRead(context.WithoutCancel(c.Request.Context()))
	lifetime := time.NewTimer(s.Config.WSLifetime)
	defer lifetime.Stop()

	send := func(m progressMessage) error {
		wctx, wcancel := context.WithTimeout(ctx, wsWriteTimeout)
		defer wcancel()
		return wsjson.Write(wctx, conn, m)
	}
	last := first
	if err := send(first); err != nil {
		return nil
	}
	tick := time.NewTicker(wsPollInterval)
	defer tick.Stop()
	for last.Type == "progress" {
		select {
		case <-ctx.Done():
			return nil // the client went away
		case <-lifetime.C:
			conn.Close(websocket.StatusGoingAway, "connection lifetime of 10 minutes reached; reconnect to continue")
			return nil
		case <-tick.C:
		}
		m, err := s.jobProgress(ctx, p.OrgID, jobID)
		if err != nil {
			logger(c).Warn("job progress not read", "job_id", jobID, "error", err)
			continue
		}
		if m.equal(last) {
			continue
		}
		if err := send(m); err != nil {
			return nil
		}
		last = m
	}
	conn.Close(websocket.StatusNormalClosure, "job "+last.Status)
	return nil
}
