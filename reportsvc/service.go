// Package reportsvc is the service layer of reports: it checks a report
// request, charges its tokens and launches its workflow (write the row,
// start GenerateReport, undo the row and the charge if the start fails),
// gathers what a report shows from the organisation's data, shares AI
// readiness reports by link, verifies certificates, and keeps report
// schedules in line with their Temporal Schedules.
package reportsvc

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"

	"github.com/google/uuid"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/launch"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reports"
)

// Workflows starts the durable work of reports.
type Workflows interface {
	// GenerateReport starts report reportID's generation (workflow id =
	// the report id).
	GenerateReport(ctx context.Context, orgID, reportID string) error
}

// Service manages reports.
type Service struct {
	Stores    *models.Stores
	Workflows Workflows
	// Schedules keeps the report schedules' Temporal Schedules.
	Schedules Schedules
	// AppURL is the public base URL share links point at.
	AppURL string
	Logger *slog.Logger
}

// Request is a report request.
type Request struct {
	ReportType string
	Config     json.RawMessage
	// ScheduleID is the schedule whose run asks for it, nil otherwise.
	ScheduleID *string
	// ID, when set, is the report's id (a schedule's run chooses it so a
	// retry finds its report).
	ID string
}

// Prepare checks a request and returns the report to store: its type,
// level and normalised config, its cost. Files and sources it names must
// be the organisation's.
func (s *Service) Prepare(ctx context.Context, orgID, userID string, req Request) (*models.Report, error) {
	kind, err := ParseKind(req.ReportType)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(req.Config)
	if err != nil {
		return nil, err
	}
	for _, id := range cfg.FileIDs {
		if _, err := s.Stores.Files.Get(ctx, orgID, id); err != nil {
			return nil, err
		}
	}
	for _, id := range cfg.SourceIDs {
		if _, err := s.Stores.Sources.Get(ctx, orgID, id); err != nil {
			return nil, err
		}
	}
	id := req.ID
	if id == "" {
		id = uuid.NewString()
	}
	return &models.Report{ID: id, ReportType: string(kind), Level: string(cfg.Level), Config: cfg.JSON(),
		Tokens: Cost(kind, cfg.Level), ScheduleID: req.ScheduleID, CreatedBy: userID}, nil
}

// Generate checks the request, charges its tokens (402 when short,
// nothing stored) and starts its generation.
func (s *Service) Generate(ctx context.Context, orgID, userID string, req Request) (*models.Report, error) {
	r, err := s.Prepare(ctx, orgID, userID, req)
	if err != nil {
		return nil, err
	}
	err = launch.Run(ctx, launch.Steps{
		Write: func(ctx context.Context) error { return s.Stores.Reports.Create(ctx, orgID, r) },
		Start: func(ctx context.Context) error { return s.Workflows.GenerateReport(ctx, orgID, r.ID) },
		Undo:  func(ctx context.Context) error { return s.Stores.Reports.Delete(ctx, orgID, r.ID) },
	})
	if err != nil {
		if errors.Is(err, launch.ErrNotUndone) && s.Logger != nil {
			s.Logger.Error("report left pending without a workflow", "org_id", orgID, "report_id", r.ID, "error", err)
		}
		return nil, err
	}
	return r, nil
}

// Share makes a new share link of an AI readiness report, replacing the
// one before (which stops working). The token is returned once; only its
// hash is stored.
func (s *Service) Share(ctx context.Context, orgID, reportID string) (token, url string, err error) {
	r, err := s.Stores.Reports.Get(ctx, orgID, reportID)
	if err != nil {
		return "", "", err
	}
	if r.ReportType != string(reports.AIReadiness) {
		return "", "", errs.BadRequest("only AI readiness reports can be shared; this is a %s report", r.ReportType)
	}
	if r.Status != models.ReportComplete {
		return "", "", errs.ReportNotReady("the report is %s; it can be shared once complete", r.Status)
	}
	token = newShareToken()
	h := tokenHash(token)
	if err := s.Stores.Reports.SetShareHash(ctx, orgID, reportID, &h); err != nil {
		return "", "", err
	}
	return token, s.ShareURL(token), nil
}

// Unshare revokes the report's share link.
func (s *Service) Unshare(ctx context.Context, orgID, reportID string) error {
	return s.Stores.Reports.SetShareHash(ctx, orgID, reportID, nil)
}

// ShareURL is the page a share token opens.
func (s *Service) ShareURL(token string) string {
	return strings.TrimRight(s.AppURL, "/") + "/report/" + token
}

// shareTokenBytes is the share token's randomness: 256 bits.
const shareTokenBytes = 32

var shareTokenForm = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

func newShareToken() string {
	b := make([]byte, shareTokenBytes)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b)
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// MaxSharedRecommendations bounds the recommendations a share link shows.
const MaxSharedRecommendations = 20

// ShareSummary is the part of an assessment a share link shows, stored
// with the report: scores, grades and the leading recommendations; the
// per-dataset dimensions and evidence stay in the PDF.
func ShareSummary(a reports.Assessment) reports.Assessment {
	out := a
	out.Recommendations = a.Recommendations[:min(len(a.Recommendations), MaxSharedRecommendations)]
	out.Datasets = make([]reports.DatasetReadiness, len(a.Datasets))
	for i, d := range a.Datasets {
		out.Datasets[i] = reports.DatasetReadiness{ID: d.ID, Name: d.Name, Score: d.Score, Grade: d.Grade}
	}
	return out
}

// Shared is what a share link shows.
type Shared struct {
	Report      *models.Report
	Certificate *models.Certificate
	Assessment  reports.Assessment
}

// OpenShared returns the report a share token opens, with the assessment
// it was generated with (not the data as it is now): not found for a
// token of the wrong form, a revoked one, or a report no longer complete.
func (s *Service) OpenShared(ctx context.Context, token string) (*Shared, error) {
	if !shareTokenForm.MatchString(token) {
		return nil, errs.NotFound("shared report")
	}
	r, err := s.Stores.Reports.GetShared(ctx, tokenHash(token))
	if err != nil {
		return nil, err
	}
	if r.Status != models.ReportComplete {
		return nil, errs.NotFound("shared report")
	}
	c, err := s.Stores.Certificates.ForReport(ctx, r.OrgID, r.ID)
	if err != nil {
		return nil, err
	}
	sh := &Shared{Report: r, Certificate: c}
	if err := json.Unmarshal([]byte(r.Summary), &sh.Assessment); err != nil {
		return nil, fmt.Errorf("report %s: stored summary: %w", r.ID, err)
	}
	return sh, nil
}

var hashForm = regexp.MustCompile(`^[0-9a-f]{64}$`)

// Verify returns the certificate with the verification hash (hex, any
// case); not found otherwise.
func (s *Service) Verify(ctx context.Context, hash string) (*models.Certificate, error) {
	hash = strings.ToLower(strings.TrimSpace(hash))
	if !hashForm.MatchString(hash) {
		return nil, errs.BadRequest("verification_hash must be 64 hexadecimal characters (a SHA-256)")
	}
	return s.Stores.Certificates.ByHash(ctx, hash)
}

// CertificateJSON is a certificate as the API shows it: the hashed
// document with its verification_hash added.
func CertificateJSON(c *models.Certificate) map[string]any {
	var m map[string]any
	if err := json.Unmarshal([]byte(c.Body), &m); err != nil || m == nil {
		m = map[string]any{}
	}
	m["verification_hash"] = c.VerificationHash
	return m
}

// FileName is the name a report's PDF downloads and travels under.
func FileName(r *models.Report) string {
	return fmt.Sprintf("dqs-%s-%s.pdf", strings.ReplaceAll(r.ReportType, "_", "-"), r.CreatedAt.UTC().Format("2006-01-02"))
}
