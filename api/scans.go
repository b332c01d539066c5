package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/scanner"
	"github.com/dqs/dqs/scans"
)

// scanStartTimeout bounds starting a scan, which lists the source to
// estimate it.
const scanStartTimeout = time.Minute

// scanStarted is the answer to a scan request (SPEC.md "Scan").
type scanStarted struct {
	ScanID          string `json:"scan_id"`
	Status          string `json:"status"`
	EstimatedTokens int64  `json:"estimated_tokens"`
}

// scanView is a scan's status (DECISIONS.md "Scan status body").
type scanView struct {
	ScanID          string         `json:"scan_id"`
	SourceID        int64          `json:"source_id"`
	ScheduleID      *int64         `json:"schedule_id"`
	Status          string         `json:"status"`
	Progress        int            `json:"progress"`
	Tables          []string       `json:"tables"`
	TablesTotal     int            `json:"tables_total"`
	TablesScanned   int            `json:"tables_scanned"`
	TablesFailed    int            `json:"tables_failed"`
	RowsRead        int64          `json:"rows_read"`
	EstimatedTokens int64          `json:"estimated_tokens"`
	ChargedTokens   int64          `json:"charged_tokens"`
	Error           *string        `json:"error"`
	CreatedAt       time.Time      `json:"created_at"`
	StartedAt       *time.Time     `json:"started_at"`
	CompletedAt     *time.Time     `json:"completed_at"`
	Results         []scanItemView `json:"results,omitempty"`
}

// scanItemView is how one table or object of a scan ended, in the scan's
// status: a scan reads up to scans.MaxItems of them, so the status carries
// no profiles (GET .../results pages those).
type scanItemView struct {
	TableName string  `json:"table_name"`
	Status    string  `json:"status"`
	Error     *string `json:"error"`
	Rows      int64   `json:"rows"`
}

// scanTableView is the result of one table or object of a scan with its
// profile.
type scanTableView struct {
	scanItemView
	Profile *scanner.Result `json:"profile"`
}

func viewScan(sc *models.Scan) scanView {
	tables := []string{}
	_ = json.Unmarshal([]byte(sc.Tables), &tables) // written by the service
	return scanView{ScanID: sc.ID, SourceID: sc.SourceID, ScheduleID: sc.ScheduleID, Status: sc.Status, Progress: sc.Progress,
		Tables: tables, TablesTotal: sc.TablesTotal, TablesScanned: sc.TablesScanned, TablesFailed: sc.TablesFailed,
		RowsRead: sc.RowsRead, EstimatedTokens: sc.EstimatedTokens, ChargedTokens: sc.ChargedTokens, Error: strPtr(sc.Error),
		CreatedAt: sc.CreatedAt.UTC(), StartedAt: utcPtr(sc.StartedAt), CompletedAt: utcPtr(sc.CompletedAt)}
}

func viewScanItem(t *models.ScanTable) scanItemView {
	return scanItemView{TableName: t.TableName, Status: t.Status, Error: strPtr(t.Error), Rows: t.Rows}
}

func viewScanTable(t *models.ScanTable) scanTableView {
	v := scanTableView{scanItemView: viewScanItem(t)}
	if t.Profile != "" {
		var r scanner.Result
		if json.Unmarshal([]byte(t.Profile), &r) == nil {
			v.Profile = &r
		}
	}
	return v
}

// scanRequest is the optional body of a manual scan.
type scanRequest struct {
	Tables []string `json:"tables"`
	Schema string   `json:"schema"`
}

// startScan starts a scan of a source (member, scope scan): 202 with the
// scan's id and estimate; 402 when the balance is below the estimate.
func (s *Server) startScan(c *gin.Context) error {
	p := mustPrincipal(c)
	id, err := sourceID(c)
	if err != nil {
		return err
	}
	var req scanRequest
	if c.Request.ContentLength != 0 {
		if err := bindJSON(c, &req); err != nil {
			return err
		}
	}
	return s.launchScan(c, p.OrgID, id, scans.Request{Tables: req.Tables, Schema: req.Schema})
}

// publicScanTriggerRequest is the body of POST /public/scan/trigger.
type publicScanTriggerRequest struct {
	SourceID  *int64 `json:"source_id"`
	TableName string `json:"table_name"`
	Schema    string `json:"schema"`
}

// publicScanTrigger starts a scan of a source's table, or of the whole
// source without table_name (scope scan).
func (s *Server) publicScanTrigger(c *gin.Context) error {
	p := mustPrincipal(c)
	var req publicScanTriggerRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.SourceID == nil {
		return errs.BadRequest("source_id is required")
	}
	var tables []string
	if req.TableName != "" {
		tables = []string{req.TableName}
	}
	return s.launchScan(c, p.OrgID, *req.SourceID, scans.Request{Tables: tables, Schema: req.Schema})
}

func (s *Server) launchScan(c *gin.Context, orgID string, sourceID int64, req scans.Request) error {
	ctx, cancel := context.WithTimeout(c.Request.Context(), scanStartTimeout)
	defer cancel()
	sc, err := s.Scans.Start(ctx, orgID, sourceID, req)
	if err != nil {
		if ctx.Err() != nil && c.Request.Context().Err() == nil {
			return errs.SourceUnreachable("the source did not answer within %s", scanStartTimeout)
		}
		return err
	}
	return respond(c, http.StatusAccepted, scanStarted{ScanID: sc.ID, Status: sc.Status, EstimatedTokens: sc.EstimatedTokens})
}

// listScans lists a source's scans, newest first, paged.
func (s *Server) listScans(c *gin.Context) error {
	orgID, id, pg, err := s.ownedSourcePage(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	list, total, err := s.Stores.Scans.ListBySource(ctx, orgID, id, models.Page(pg))
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewScan), total, pg)
}

// getScan is one scan of a source with each table's or object's result.
func (s *Server) getScan(c *gin.Context) error {
	p := mustPrincipal(c)
	id, err := sourceID(c)
	if err != nil {
		return err
	}
	v, err := s.scanWithResults(c.Request.Context(), p.OrgID, c.Param("scan_id"))
	if err != nil {
		return err
	}
	if v.SourceID != id {
		return errs.NotFound("scan")
	}
	return respond(c, http.StatusOK, v)
}

// publicScanStatus is a scan's status for integrators polling it.
func (s *Server) publicScanStatus(c *gin.Context) error {
	v, err := s.scanWithResults(c.Request.Context(), mustPrincipal(c).OrgID, c.Param("scan_id"))
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, v)
}

func (s *Server) scanWithResults(ctx context.Context, orgID, scanID string) (scanView, error) {
	sc, err := s.Stores.Scans.Get(ctx, orgID, scanID)
	if err != nil {
		return scanView{}, err
	}
	tables, err := s.Stores.Scans.Tables(ctx, orgID, scanID)
	if err != nil {
		return scanView{}, err
	}
	v := viewScan(sc)
	v.Results = make([]scanItemView, len(tables))
	for i := range tables {
		v.Results[i] = viewScanItem(&tables[i])
	}
	return v, nil
}

// listScanResults pages the results of a scan of a source with their
// profiles; filter table keeps one table's or object's.
func (s *Server) listScanResults(c *gin.Context) error {
	orgID, id, pg, err := s.ownedSourcePage(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	sc, err := s.Stores.Scans.Get(ctx, orgID, c.Param("scan_id"))
	if err != nil {
		return err
	}
	if sc.SourceID != id {
		return errs.NotFound("scan")
	}
	list, total, err := s.Stores.Scans.Results(ctx, orgID, sc.ID, c.Query("table"), models.Page(pg))
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewScanTable), total, pg)
}

// metricPointView is one recorded value (DECISIONS.md "Metric history").
type metricPointView struct {
	ScanID     string    `json:"scan_id"`
	TableName  string    `json:"table_name"`
	ColumnName *string   `json:"column_name"`
	Value      float64   `json:"value"`
	RecordedAt time.Time `json:"recorded_at"`
}

// metricHistory lists the recorded values of one metric of a source,
// oldest first, paged; filters table, column (empty: the table-level
// values) and since.
func (s *Server) metricHistory(c *gin.Context) error {
	orgID, id, err := s.ownedSource(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	metric := c.Param("metric")
	if !scanner.IsMetric(metric) {
		return errs.BadRequest("unknown metric %q; metrics are %s", metric, strings.Join(scanner.MetricNames, ", "))
	}
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	f := models.MetricFilter{SourceID: id, Metric: metric, Table: c.Query("table")}
	if col, ok := c.GetQuery("column"); ok {
		f.Column = &col
	}
	if f.Since, err = sinceQuery(c); err != nil {
		return err
	}
	list, total, err := s.Stores.MetricPoints.History(ctx, orgID, f, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]metricPointView, len(list))
	for i, m := range list {
		out[i] = metricPointView{ScanID: m.ScanID, TableName: m.TableName, ColumnName: strPtr(m.ColumnName), Value: m.Value, RecordedAt: m.RecordedAt.UTC()}
	}
	return respondList(c, out, total, pg)
}

// parseSince reads a since filter: an RFC 3339 timestamp or a YYYY-MM-DD
// date (UTC midnight).
func parseSince(raw string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, raw); err == nil {
		return t, nil
	}
	return time.Time{}, errs.BadRequest("since must be an RFC 3339 timestamp (2026-11-27T08:00:00Z) or a date (2026-11-27)")
}
