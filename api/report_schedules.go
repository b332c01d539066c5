package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reportsvc"
)

// reportScheduleView is a report schedule (SPEC.md "Report schedule"
// plus DECISIONS.md's id, next_run_at, last_run_at, created_at) with the
// outcome of its last run.
type reportScheduleView struct {
	ID            string          `json:"id"`
	ReportType    string          `json:"report_type"`
	Frequency     string          `json:"frequency"`
	Recipients    []string        `json:"recipients"`
	Config        json.RawMessage `json:"config"`
	Enabled       bool            `json:"enabled"`
	NextRunAt     *time.Time      `json:"next_run_at"`
	LastRunAt     *time.Time      `json:"last_run_at"`
	LastRunStatus *string         `json:"last_run_status"`
	LastRunError  *string         `json:"last_run_error"`
	LastReportID  *string         `json:"last_report_id"`
	CreatedAt     time.Time       `json:"created_at"`
	UpdatedAt     time.Time       `json:"updated_at"`
}

func viewReportSchedule(sc *models.ReportSchedule, now time.Time) reportScheduleView {
	recipients := reportsvc.Recipients(sc)
	if recipients == nil {
		recipients = []string{}
	}
	return reportScheduleView{ID: sc.ID, ReportType: sc.ReportType, Frequency: sc.Frequency, Recipients: recipients,
		Config: json.RawMessage(sc.Config), Enabled: sc.Enabled, NextRunAt: reportsvc.NextRun(sc, now),
		LastRunAt: utcPtr(sc.LastRunAt), LastRunStatus: strPtr(sc.LastRunStatus), LastRunError: strPtr(sc.LastRunError),
		LastReportID: sc.LastReportID, CreatedAt: sc.CreatedAt.UTC(), UpdatedAt: sc.UpdatedAt.UTC()}
}

// reportScheduleRequest is the body of a schedule's create (report_type,
// frequency and recipients required) and update (any subset).
type reportScheduleRequest struct {
	ReportType *string         `json:"report_type"`
	Frequency  *string         `json:"frequency"`
	Recipients *[]string       `json:"recipients"`
	Config     json.RawMessage `json:"config"`
	Enabled    *bool           `json:"enabled"`
}

func bindReportSchedule(c *gin.Context) (reportsvc.ScheduleInput, error) {
	var req reportScheduleRequest
	if err := bindJSON(c, &req); err != nil {
		return reportsvc.ScheduleInput{}, err
	}
	return reportsvc.ScheduleInput{ReportType: req.ReportType, Frequency: req.Frequency, Recipients: req.Recipients,
		Config: req.Config, Enabled: req.Enabled}, nil
}

// createReportSchedule adds a schedule (admin).
func (s *Server) createReportSchedule(c *gin.Context) error {
	in, err := bindReportSchedule(c)
	if err != nil {
		return err
	}
	p := mustPrincipal(c)
	sc, err := s.Reports.CreateSchedule(c.Request.Context(), p.OrgID, p.actorID(), in)
	if err != nil {
		return err
	}
	s.Audit.Record(actorOf(c, p).Entry(audit.ReportScheduleCreated, map[string]any{"schedule_id": sc.ID, "report_type": sc.ReportType, "frequency": sc.Frequency}))
	return respond(c, http.StatusCreated, viewReportSchedule(sc, time.Now()))
}

// listReportSchedules lists the organisation's schedules (any member).
func (s *Server) listReportSchedules(c *gin.Context) error {
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	list, total, err := s.Stores.ReportSchedules.List(c.Request.Context(), mustPrincipal(c).OrgID, models.Page(pg))
	if err != nil {
		return err
	}
	now := time.Now()
	return respondList(c, views(list, func(sc *models.ReportSchedule) reportScheduleView { return viewReportSchedule(sc, now) }), total, pg)
}

// getReportSchedule returns one schedule (any member).
func (s *Server) getReportSchedule(c *gin.Context) error {
	sc, err := s.Stores.ReportSchedules.Get(c.Request.Context(), mustPrincipal(c).OrgID, c.Param("id"))
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewReportSchedule(sc, time.Now()))
}

// updateReportSchedule changes a schedule (admin).
func (s *Server) updateReportSchedule(c *gin.Context) error {
	p := mustPrincipal(c)
	if _, err := s.Stores.ReportSchedules.Get(c.Request.Context(), p.OrgID, c.Param("id")); err != nil {
		return err // another organisation's schedule is 404 whatever the body
	}
	in, err := bindReportSchedule(c)
	if err != nil {
		return err
	}
	sc, err := s.Reports.UpdateSchedule(c.Request.Context(), p.OrgID, c.Param("id"), in)
	if err != nil {
		return err
	}
	s.Audit.Record(actorOf(c, p).Entry(audit.ReportScheduleUpdated, map[string]any{"schedule_id": sc.ID}))
	return respond(c, http.StatusOK, viewReportSchedule(sc, time.Now()))
}

// deleteReportSchedule removes a schedule and its Temporal Schedule
// (admin).
func (s *Server) deleteReportSchedule(c *gin.Context) error {
	p := mustPrincipal(c)
	if err := s.Reports.DeleteSchedule(c.Request.Context(), p.OrgID, c.Param("id")); err != nil {
		return err
	}
	s.Audit.Record(actorOf(c, p).Entry(audit.ReportScheduleDeleted, map[string]any{"schedule_id": c.Param("id")}))
	return respond(c, http.StatusOK, map[string]any{"id": c.Param("id"), "deleted": true})
}

// runReportSchedule starts a run of the schedule now (admin): the report
// is generated, charged and e-mailed as a scheduled run's.
func (s *Server) runReportSchedule(c *gin.Context) error {
	p := mustPrincipal(c)
	sc, err := s.Reports.RunSchedule(c.Request.Context(), p.OrgID, c.Param("id"))
	if err != nil {
		return err
	}
	return respond(c, http.StatusAccepted, viewReportSchedule(sc, time.Now()))
}
