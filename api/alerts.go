package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/anomaly"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/scanner"
)

// anomalyBaseline is what an anomaly's value was compared with
// (DECISIONS.md "Anomaly": mean, stddev, median, mad, n, window_start,
// window_end), with the center and spread it was judged against and the
// expected band at the sensitivity.
type anomalyBaseline struct {
	anomaly.Baseline
	Low  float64 `json:"expected_low"`
	High float64 `json:"expected_high"`
}

// anomalyView is one anomaly (DECISIONS.md "Anomaly").
type anomalyView struct {
	ID           int64           `json:"id"`
	SourceID     int64           `json:"source_id"`
	ScanID       string          `json:"scan_id"`
	TableName    string          `json:"table_name"`
	ColumnName   *string         `json:"column_name"`
	Metric       string          `json:"metric"`
	CurrentValue float64         `json:"current_value"`
	Baseline     anomalyBaseline `json:"baseline"`
	Sensitivity  string          `json:"sensitivity"`
	Score        float64         `json:"score"`
	Explanation  string          `json:"explanation"`
	Status       string          `json:"status"`
	AlertID      *int64          `json:"alert_id"`
	DetectedAt   time.Time       `json:"detected_at"`
	// Affected is what the anomaly's table feeds (its lineage blast
	// radius), read when the anomaly is.
	Affected *lineage.BlastRadius `json:"affected"`
}

// withAffected fills each anomaly's blast radius: one walk per table.
func (s *Server) withAffected(ctx context.Context, orgID string, list []anomalyView) error {
	byTable := map[string]*lineage.BlastRadius{}
	for i := range list {
		a := &list[i]
		br, ok := byTable[a.TableName]
		if !ok {
			var err error
			if br, err = s.Lineage.TableDownstream(ctx, orgID, a.SourceID, a.TableName); err != nil {
				return err
			}
			byTable[a.TableName] = br
		}
		a.Affected = br
	}
	return nil
}

func viewAnomaly(a *models.Anomaly) anomalyView {
	var b anomalyBaseline
	_ = json.Unmarshal([]byte(a.Baseline), &b) // written by the detection
	b.WindowStart, b.WindowEnd = b.WindowStart.UTC(), b.WindowEnd.UTC()
	b.Low, b.High = a.Low, a.High
	return anomalyView{ID: a.ID, SourceID: a.SourceID, ScanID: a.ScanID, TableName: a.TableName, ColumnName: strPtr(a.ColumnName),
		Metric: a.Metric, CurrentValue: a.CurrentValue, Baseline: b, Sensitivity: a.Sensitivity, Score: a.Score,
		Explanation: a.Explanation, Status: a.Status, AlertID: a.AlertID, DetectedAt: a.DetectedAt.UTC()}
}

// listAnomalies lists a source's anomalies, newest first, paged; filters
// table, column (empty: the table's own metrics), metric and since.
func (s *Server) listAnomalies(c *gin.Context) error {
	orgID, id, pg, err := s.ownedSourcePage(c)
	if err != nil {
		return err
	}
	f := models.AnomalyFilter{SourceID: id, Table: c.Query("table"), Metric: c.Query("metric")}
	if f.Metric != "" && !scanner.IsMetric(f.Metric) {
		return errs.BadRequest("unknown metric %q; metrics are %s", f.Metric, strings.Join(scanner.MetricNames, ", "))
	}
	if col, ok := c.GetQuery("column"); ok {
		f.Column = &col
	}
	if f.Since, err = sinceQuery(c); err != nil {
		return err
	}
	list, total, err := s.Stores.Anomalies.List(c.Request.Context(), orgID, f, models.Page(pg))
	if err != nil {
		return err
	}
	out := views(list, viewAnomaly)
	if err := s.withAffected(c.Request.Context(), orgID, out); err != nil {
		return err
	}
	return respondList(c, out, total, pg)
}

// anomalyStatusRequest marks an anomaly.
type anomalyStatusRequest struct {
	Status string `json:"status"`
}

// setAnomalyStatus marks an anomaly expected (its value trains later
// baselines), confirmed (it stays out of them) or open again (member,
// scope write).
func (s *Server) setAnomalyStatus(c *gin.Context) error {
	orgID, id, err := s.ownedSource(c)
	if err != nil {
		return err
	}
	anomalyID, err := strconv.ParseInt(c.Param("anomaly_id"), 10, 64)
	if err != nil || anomalyID < 1 {
		return errs.NotFound("anomaly")
	}
	var req anomalyStatusRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	a, err := s.Stores.Anomalies.SetStatus(c.Request.Context(), orgID, id, anomalyID, req.Status)
	if err != nil {
		return err
	}
	out := []anomalyView{viewAnomaly(a)}
	if err := s.withAffected(c.Request.Context(), orgID, out); err != nil {
		return err
	}
	return respond(c, http.StatusOK, out[0])
}

// alertView is one alert (DECISIONS.md "Alert").
type alertView struct {
	ID             int64      `json:"id"`
	Severity       string     `json:"severity"`
	Type           string     `json:"type"`
	Message        string     `json:"message"`
	SourceID       *int64     `json:"source_id"`
	FileID         *int64     `json:"file_id"`
	CreatedAt      time.Time  `json:"created_at"`
	AcknowledgedAt *time.Time `json:"acknowledged_at"`
}

func viewAlert(a *models.Alert) alertView {
	return alertView{ID: a.ID, Severity: a.Severity, Type: a.Type, Message: a.Message, SourceID: a.SourceID, FileID: a.FileID,
		CreatedAt: a.CreatedAt.UTC(), AcknowledgedAt: utcPtr(a.AcknowledgedAt)}
}

// publicAlertView is an alert as the public API lists it (SPEC.md).
type publicAlertView struct {
	ID        int64     `json:"id"`
	Severity  string    `json:"severity"`
	Message   string    `json:"message"`
	CreatedAt time.Time `json:"created_at"`
}

var (
	alertSeverities = []string{models.SeverityInfo, models.SeverityWarning, models.SeverityCritical}
	alertTypes      = []string{models.AlertAnomaly, models.AlertContractViolation, models.AlertQualityDrop, models.AlertNewIssue, models.AlertScanFailure, "gdpr_detected"}
)

// alertFilter reads the filters of an alert list: severity, since, and
// (with all) type, source_id and acknowledged.
func alertFilter(c *gin.Context, all bool) (models.AlertFilter, error) {
	var f models.AlertFilter
	var err error
	if f.Severity, err = queryOneOf(c, "severity", alertSeverities); err != nil {
		return f, err
	}
	if f.Since, err = sinceQuery(c); err != nil || !all {
		return f, err
	}
	if f.Type, err = queryOneOf(c, "type", alertTypes); err != nil {
		return f, err
	}
	if raw, ok := c.GetQuery("source_id"); ok {
		id, err := strconv.ParseInt(raw, 10, 64)
		if err != nil || id < 1 {
			return f, errs.BadRequest("source_id must be a positive integer")
		}
		f.SourceID = &id
	}
	if raw, ok := c.GetQuery("acknowledged"); ok {
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return f, errs.BadRequest("acknowledged must be true or false")
		}
		f.Acknowledged = &b
	}
	return f, nil
}

// queryOneOf reads query parameter name, which must be one of allowed
// when given.
func queryOneOf(c *gin.Context, name string, allowed []string) (string, error) {
	v, ok := c.GetQuery(name)
	if !ok || oneOf(v, allowed) {
		return v, nil
	}
	return "", errs.BadRequest("%s must be one of %s", name, strings.Join(allowed, ", "))
}

// sinceQuery reads the since filter, when given.
func sinceQuery(c *gin.Context) (*time.Time, error) {
	raw, ok := c.GetQuery("since")
	if !ok {
		return nil, nil
	}
	t, err := parseSince(raw)
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// alertsPage reads a page of the caller's alerts with the filters of
// alertFilter.
func (s *Server) alertsPage(c *gin.Context, all bool) ([]models.Alert, int64, page, error) {
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return nil, 0, pg, err
	}
	f, err := alertFilter(c, all)
	if err != nil {
		return nil, 0, pg, err
	}
	list, total, err := s.Stores.Alerts.List(c.Request.Context(), mustPrincipal(c).OrgID, f, models.Page(pg))
	return list, total, pg, err
}

// listAlerts lists the organisation's alerts, newest first, paged.
func (s *Server) listAlerts(c *gin.Context) error {
	list, total, pg, err := s.alertsPage(c, true)
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewAlert), total, pg)
}

// publicAlerts lists the organisation's alerts for integrators (scope
// read): filters severity and since.
func (s *Server) publicAlerts(c *gin.Context) error {
	list, total, pg, err := s.alertsPage(c, false)
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewPublicAlert), total, pg)
}

func viewPublicAlert(a *models.Alert) publicAlertView {
	return publicAlertView{ID: a.ID, Severity: a.Severity, Message: a.Message, CreatedAt: a.CreatedAt.UTC()}
}

// acknowledgeAlert marks an alert acknowledged by the caller (member,
// scope write); acknowledging it again keeps the first acknowledgement.
func (s *Server) acknowledgeAlert(c *gin.Context) error {
	p := mustPrincipal(c)
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return errs.NotFound("alert")
	}
	a, err := s.Stores.Alerts.Acknowledge(c.Request.Context(), p.OrgID, id, p.userID(), time.Now())
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewAlert(a))
}
