package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/scans"
)

// scheduleView is a source schedule (DECISIONS.md "Scan schedule body").
type scheduleView struct {
	ID             int64      `json:"id"`
	SourceID       int64      `json:"source_id"`
	CronExpression string     `json:"cron_expression"`
	Tables         []string   `json:"tables"`
	Enabled        bool       `json:"enabled"`
	Sensitivity    string     `json:"sensitivity"`
	NextRunAt      *time.Time `json:"next_run_at"`
	LastRunAt      *time.Time `json:"last_run_at"`
	LastRunStatus  *string    `json:"last_run_status"`
	LastRunError   *string    `json:"last_run_error"`
	CreatedAt      time.Time  `json:"created_at"`
	UpdatedAt      time.Time  `json:"updated_at"`
}

func viewSchedule(sc *models.SourceSchedule, now time.Time) scheduleView {
	tables := []string{}
	_ = json.Unmarshal([]byte(sc.Tables), &tables) // written by the service
	return scheduleView{ID: sc.ID, SourceID: sc.SourceID, CronExpression: sc.CronExpression, Tables: tables, Enabled: sc.Enabled,
		Sensitivity: sc.Sensitivity, NextRunAt: scans.NextRun(sc, now), LastRunAt: utcPtr(sc.LastRunAt),
		LastRunStatus: strPtr(sc.LastRunStatus), LastRunError: strPtr(sc.LastRunError),
		CreatedAt: sc.CreatedAt.UTC(), UpdatedAt: sc.UpdatedAt.UTC()}
}

// scheduleRequest is the body of a schedule's create and update.
type scheduleRequest struct {
	CronExpression *string   `json:"cron_expression"`
	Tables         *[]string `json:"tables"`
	Enabled        *bool     `json:"enabled"`
	Sensitivity    *string   `json:"sensitivity"`
}

func (r scheduleRequest) input() scans.ScheduleInput {
	return scans.ScheduleInput{CronExpression: r.CronExpression, Tables: r.Tables, Enabled: r.Enabled, Sensitivity: r.Sensitivity}
}

// schedulePath reads the caller's organisation and the source and
// schedule ids of the path; ids that are not positive numbers are 404.
func schedulePath(c *gin.Context) (orgID string, id, sid int64, err error) {
	if id, err = sourceID(c); err != nil {
		return "", 0, 0, err
	}
	sid, err = strconv.ParseInt(c.Param("sid"), 10, 64)
	if err != nil || sid < 1 {
		return "", 0, 0, errs.NotFound("schedule")
	}
	return mustPrincipal(c).OrgID, id, sid, nil
}

// createSchedule adds a cron schedule of scans to a source (member).
func (s *Server) createSchedule(c *gin.Context) error {
	orgID, id, err := s.ownedSource(c)
	if err != nil {
		return err
	}
	var req scheduleRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	sc, err := s.Scans.CreateSchedule(c.Request.Context(), orgID, id, req.input())
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, viewSchedule(sc, time.Now()))
}

// listSchedules lists a source's schedules, oldest first, paged.
func (s *Server) listSchedules(c *gin.Context) error {
	orgID, id, pg, err := s.ownedSourcePage(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	list, err := s.Stores.SourceSchedules.List(ctx, orgID, id)
	if err != nil {
		return err
	}
	return respondSchedules(c, list, pg)
}

// respondSchedules answers a page of a source's schedules (a source holds
// at most models.MaxSchedulesPerSource, so they are paged in memory).
func respondSchedules(c *gin.Context, list []models.SourceSchedule, pg page) error {
	now := time.Now()
	total := int64(len(list))
	list = list[min(pg.Offset, len(list)):]
	list = list[:min(pg.Limit, len(list))]
	return respondList(c, views(list, func(sc *models.SourceSchedule) scheduleView { return viewSchedule(sc, now) }), total, pg)
}

// updateSchedule changes a schedule (member): cron_expression, tables,
// enabled (pauses or resumes it), sensitivity.
func (s *Server) updateSchedule(c *gin.Context) error {
	orgID, id, sid, err := schedulePath(c)
	if err != nil {
		return err
	}
	var req scheduleRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	sc, err := s.Scans.UpdateSchedule(c.Request.Context(), orgID, id, sid, req.input())
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewSchedule(sc, time.Now()))
}

// deleteSchedule removes a schedule (member).
func (s *Server) deleteSchedule(c *gin.Context) error {
	orgID, id, sid, err := schedulePath(c)
	if err != nil {
		return err
	}
	if err := s.Scans.DeleteSchedule(c.Request.Context(), orgID, id, sid); err != nil {
		return err
	}
	return respond(c, http.StatusOK, gin.H{"id": sid, "deleted": true})
}

// setScheduleSensitivity sets the sensitivity of a source's scheduled
// scans (member) and answers its schedules.
func (s *Server) setScheduleSensitivity(c *gin.Context) error {
	orgID, id, err := s.ownedSource(c)
	if err != nil {
		return err
	}
	var req struct {
		Sensitivity *string `json:"sensitivity"`
	}
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	list, err := s.Scans.SetSensitivity(c.Request.Context(), orgID, id, req.Sensitivity)
	if err != nil {
		return err
	}
	now := time.Now()
	return respond(c, http.StatusOK, views(list, func(sc *models.SourceSchedule) scheduleView { return viewSchedule(sc, now) }))
}
