package api

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"time"

	_ "embed"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reports"
	"github.com/dqs/dqs/reportsvc"
)

// reportView is a report (SPEC.md "Report", DECISIONS.md "Reports,
// certificates, webhooks"): file_url is the download path once complete;
// certificate is set for a complete AI readiness report.
type reportView struct {
	ID            string          `json:"id"`
	ReportType    string          `json:"report_type"`
	Status        string          `json:"status"`
	FileURL       *string         `json:"file_url"`
	Config        json.RawMessage `json:"config"`
	TokensCharged int64           `json:"tokens_charged"`
	Error         *string         `json:"error"`
	ScheduleID    *string         `json:"schedule_id"`
	Shared        bool            `json:"shared"`
	Certificate   map[string]any  `json:"certificate"`
	CreatedAt     time.Time       `json:"created_at"`
	CompletedAt   *time.Time      `json:"completed_at"`
}

func viewReport(r *models.Report, cert *models.Certificate) reportView {
	v := reportView{ID: r.ID, ReportType: r.ReportType, Status: r.Status, Config: json.RawMessage(r.Config),
		TokensCharged: r.Tokens, Error: strPtr(r.Error), ScheduleID: r.ScheduleID, Shared: r.ShareTokenHash != nil,
		CreatedAt: r.CreatedAt.UTC(), CompletedAt: utcPtr(r.CompletedAt)}
	if r.Refunded {
		v.TokensCharged = 0
	}
	if r.Status == models.ReportComplete {
		u := v1 + "/reports/" + r.ID + "/download"
		v.FileURL = &u
	}
	if cert != nil {
		v.Certificate = reportsvc.CertificateJSON(cert)
	}
	return v
}

// reportRequest is the body of POST /reports/generate.
type reportRequest struct {
	ReportType string          `json:"report_type"`
	Config     json.RawMessage `json:"config"`
}

// generateReport charges the report's tokens and starts its generation
// (202 pending; 402 when the balance is short, nothing queued).
func (s *Server) generateReport(c *gin.Context) error {
	var req reportRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	p := mustPrincipal(c)
	r, err := s.Reports.Generate(c.Request.Context(), p.OrgID, p.actorID(), reportsvc.Request{ReportType: req.ReportType, Config: req.Config})
	if err != nil {
		return err
	}
	s.Audit.Record(actorOf(c, p).Entry(audit.ReportGenerated, map[string]any{"report_id": r.ID, "report_type": r.ReportType, "tokens": r.Tokens}))
	return respond(c, http.StatusAccepted, viewReport(r, nil))
}

// listReports lists the organisation's reports, newest first, paged;
// filter report_type.
func (s *Server) listReports(c *gin.Context) error {
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	kind := c.Query("report_type")
	if kind != "" {
		if _, err := reportsvc.ParseKind(kind); err != nil {
			return err
		}
	}
	ctx, orgID := c.Request.Context(), mustPrincipal(c).OrgID
	list, total, err := s.Stores.Reports.List(ctx, orgID, kind, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]reportView, len(list))
	for i := range list {
		cert, err := s.reportCertificate(c, &list[i])
		if err != nil {
			return err
		}
		out[i] = viewReport(&list[i], cert)
	}
	return respondList(c, out, total, pg)
}

// reportCertificate is the certificate of a complete AI readiness
// report, nil otherwise.
func (s *Server) reportCertificate(c *gin.Context, r *models.Report) (*models.Certificate, error) {
	if r.ReportType != string(reports.AIReadiness) || r.Status != models.ReportComplete {
		return nil, nil
	}
	cert, err := s.Stores.Certificates.ForReport(c.Request.Context(), r.OrgID, r.ID)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil // a report completed before certificates were kept
	}
	return cert, err
}

// reportParam reads the report of the path, the caller's organisation's.
func (s *Server) reportParam(c *gin.Context) (*models.Report, error) {
	return s.Stores.Reports.Get(c.Request.Context(), mustPrincipal(c).OrgID, c.Param("id"))
}

// getReport returns a report's status, download path and certificate.
func (s *Server) getReport(c *gin.Context) error {
	r, err := s.reportParam(c)
	if err != nil {
		return err
	}
	cert, err := s.reportCertificate(c, r)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewReport(r, cert))
}

// reportURLTTL is how long a report's download URL works.
const reportURLTTL = 15 * time.Minute

// downloadReport redirects (307) to a time-limited URL of the PDF; 409
// report_not_ready before it is complete.
func (s *Server) downloadReport(c *gin.Context) error {
	r, err := s.reportParam(c)
	if err != nil {
		return err
	}
	if r.Status != models.ReportComplete {
		return errs.ReportNotReady("the report is %s; it can be downloaded once complete", r.Status)
	}
	url, err := s.Blobs.SignedURL(c.Request.Context(), r.StorageKey, reportURLTTL, reportsvc.FileName(r))
	if err != nil {
		return err
	}
	c.Redirect(http.StatusTemporaryRedirect, url)
	return nil
}

// shareView is a new share link; the token is shown once.
type shareView struct {
	ReportID   string `json:"report_id"`
	ShareToken string `json:"share_token"`
	URL        string `json:"url"`
}

// shareReport makes a share link of a complete AI readiness report (201),
// replacing the one before.
func (s *Server) shareReport(c *gin.Context) error {
	p := mustPrincipal(c)
	token, url, err := s.Reports.Share(c.Request.Context(), p.OrgID, c.Param("id"))
	if err != nil {
		return err
	}
	s.Audit.Record(actorOf(c, p).Entry(audit.ReportShared, map[string]any{"report_id": c.Param("id")}))
	return respond(c, http.StatusCreated, shareView{ReportID: c.Param("id"), ShareToken: token, URL: url})
}

// unshareReport revokes the report's share link.
func (s *Server) unshareReport(c *gin.Context) error {
	p := mustPrincipal(c)
	if err := s.Reports.Unshare(c.Request.Context(), p.OrgID, c.Param("id")); err != nil {
		return err
	}
	s.Audit.Record(actorOf(c, p).Entry(audit.ReportUnshared, map[string]any{"report_id": c.Param("id")}))
	return respond(c, http.StatusOK, map[string]any{"id": c.Param("id"), "shared": false})
}

// publicDimension, publicDataset and publicRecommendation are what a
// share link shows: scores, grades and recommendations, never a value of
// the data.
type publicDimension struct {
	Key      string  `json:"key"`
	Score    float64 `json:"score"`
	Weight   float64 `json:"weight"`
	Evidence string  `json:"evidence"`
}

type publicDataset struct {
	Name  string  `json:"name"`
	Score float64 `json:"score"`
	Grade string  `json:"grade"`
}

type publicRecommendation struct {
	Dataset string  `json:"dataset"`
	Action  string  `json:"action"`
	Impact  float64 `json:"impact"`
}

// sharedReportView is the JSON of a shared AI readiness report.
type sharedReportView struct {
	ReportID        string                 `json:"report_id"`
	ReportType      string                 `json:"report_type"`
	GeneratedAt     time.Time              `json:"generated_at"`
	Score           float64                `json:"score"`
	Grade           string                 `json:"grade"`
	Certified       bool                   `json:"certified"`
	Reasons         []string               `json:"reasons"`
	Dimensions      []publicDimension      `json:"dimensions"`
	Datasets        []publicDataset        `json:"datasets"`
	Recommendations []publicRecommendation `json:"recommendations"`
	Certificate     map[string]any         `json:"certificate"`
}

func viewShared(sh *reportsvc.Shared) sharedReportView {
	a := sh.Assessment
	v := sharedReportView{ReportID: sh.Report.ID, ReportType: sh.Report.ReportType, GeneratedAt: sh.Report.CreatedAt.UTC(),
		Score: a.Score, Grade: a.Grade, Certified: a.Certified, Reasons: append([]string{}, a.Reasons...),
		Dimensions: []publicDimension{}, Datasets: []publicDataset{}, Recommendations: []publicRecommendation{},
		Certificate: reportsvc.CertificateJSON(sh.Certificate)}
	for _, d := range a.Dimensions {
		v.Dimensions = append(v.Dimensions, publicDimension{Key: d.Key, Score: d.Score, Weight: d.Weight, Evidence: d.Evidence})
	}
	for _, d := range a.Datasets {
		v.Datasets = append(v.Datasets, publicDataset{Name: d.Name, Score: d.Score, Grade: d.Grade})
	}
	for _, r := range a.Recommendations { // bounded when stored (reportsvc.ShareSummary)
		v.Recommendations = append(v.Recommendations, publicRecommendation{Dataset: r.Dataset, Action: r.Action, Impact: r.Impact})
	}
	return v
}

// publicReport is the JSON of a shared report (no credential: the token
// is one).
func (s *Server) publicReport(c *gin.Context) error {
	sh, err := s.Reports.OpenShared(c.Request.Context(), c.Param("share_token"))
	if err != nil {
		return err
	}
	c.Header("Cache-Control", "private, no-store")
	return respond(c, http.StatusOK, viewShared(sh))
}

//go:embed share_page.html
var sharePageSource string

var sharePage = template.Must(template.New("share").Funcs(template.FuncMap{
	"pct": func(w float64) int { return int(w*100 + 0.5) },
}).Parse(sharePageSource))

// sharedReportPage is the readable page of a share link.
func (s *Server) sharedReportPage(c *gin.Context) error {
	sh, err := s.Reports.OpenShared(c.Request.Context(), c.Param("share_token"))
	c.Header("Cache-Control", "private, no-store")
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	c.Header("Referrer-Policy", "no-referrer")
	c.Header("Content-Type", "text/html; charset=utf-8")
	if err != nil {
		c.Status(http.StatusNotFound)
		return sharePage.Execute(c.Writer, nil)
	}
	c.Status(http.StatusOK)
	v := viewShared(sh)
	return sharePage.Execute(c.Writer, &v)
}

// verifyRequest is the body of the certificate verification.
type verifyRequest struct {
	VerificationHash string `json:"verification_hash"`
}

// verifyCertificate answers 200 {valid, certificate} when a certificate
// has the hash, 404 otherwise; no credential needed.
func (s *Server) verifyCertificate(c *gin.Context) error {
	var req verifyRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	cert, err := s.Reports.Verify(c.Request.Context(), req.VerificationHash)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, map[string]any{"valid": true, "certificate": reportsvc.CertificateJSON(cert)})
}
