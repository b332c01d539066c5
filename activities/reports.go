package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/mailer"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reports"
	"github.com/dqs/dqs/reportsvc"
)

// ReportRef names a report.
type ReportRef struct {
	OrgID    string `json:"org_id"`
	ReportID string `json:"report_id"`
}

// ReportScheduleRef names a report schedule; ReportID is the report a run
// makes, chosen once by the run's workflow.
type ReportScheduleRef struct {
	OrgID      string `json:"org_id"`
	ScheduleID string `json:"schedule_id"`
	ReportID   string `json:"report_id,omitempty"`
}

// ErrTypeReportGone marks a report or schedule deleted while its work ran:
// nothing is left to do or to record.
const ErrTypeReportGone = "report_gone"

// maxReportAttachment bounds the PDF an e-mail carries; a larger one is
// sent as a link to the report instead.
const maxReportAttachment = 10 << 20

func reportGone(err error) error {
	if isNotFound(err) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeReportGone, nil)
	}
	return err
}

// BuildReport gathers what the report shows, issues the certificate of
// an AI readiness report, renders the PDF, stores it under the
// organisation's prefix and marks the report complete. A report no longer
// pending is left as it is (a retry after it completed).
func (a *Activities) BuildReport(ctx context.Context, in ReportRef) error {
	r, err := a.Stores.Reports.Get(ctx, in.OrgID, in.ReportID)
	if err != nil {
		return reportGone(err)
	}
	if r.Status != models.ReportPending {
		return nil
	}
	svc := reportsvc.Service{Stores: a.Stores}
	input, err := svc.Gather(ctx, in.OrgID, r)
	if e := (*errs.Error)(nil); errors.As(err, &e) && !errors.Is(err, errs.ErrInternal) {
		return temporal.NewNonRetryableApplicationError(e.Message, ErrTypeBadInput, nil)
	}
	if err != nil {
		return err
	}
	if input.Readiness != nil {
		if input.Certificate, err = a.issueCertificate(ctx, r, &input); err != nil {
			return err
		}
	}
	pdf, err := reports.Render(input)
	if err != nil {
		return temporal.NewNonRetryableApplicationError("the report could not be laid out: "+err.Error(), ErrTypeBadInput, nil)
	}
	key, err := blob.OrgKey(in.OrgID, "reports", r.ID+".pdf")
	if err != nil {
		return err
	}
	n, err := a.Blobs.Put(ctx, key, bytes.NewReader(pdf), "application/pdf")
	if err != nil {
		return err
	}
	var summary []byte
	if input.Readiness != nil {
		if summary, err = json.Marshal(reportsvc.ShareSummary(*input.Readiness)); err != nil {
			return err
		}
	}
	name := fmt.Sprintf("%s, %s", reports.Kind(r.ReportType).Title(), r.CreatedAt.UTC().Format(time.DateOnly))
	return reportGone(a.Stores.Reports.Complete(ctx, in.OrgID, r.ID, key, n, string(summary), name,
		reportsvc.LineageNodes(input.Datasets), time.Now()))
}

// issueCertificate issues (once: a retry finds it) the certificate of the
// assessment, dated at the report's creation.
func (a *Activities) issueCertificate(ctx context.Context, r *models.Report, in *reports.Input) (*reports.Certificate, error) {
	doc := reports.NewCertificate(uuid.NewString(), r.ID, in.Organization, *in.Readiness, r.CreatedAt)
	body, hash, err := doc.Canonical()
	if err != nil {
		return nil, err
	}
	issuedAt, _ := time.Parse(time.RFC3339, doc.IssuedAt)
	c, err := a.Stores.Certificates.Issue(ctx, r.OrgID, &models.Certificate{ID: doc.CertificateID, ReportID: r.ID,
		VerificationHash: hash, Grade: doc.Grade, Score: doc.Score, Certified: doc.Certified, Body: string(body), IssuedAt: issuedAt})
	if err != nil {
		return nil, err
	}
	return &reports.Certificate{VerificationHash: c.VerificationHash, Grade: c.Grade, Score: c.Score, Certified: c.Certified, IssuedAt: c.IssuedAt.UTC()}, nil
}

// ReportFailure is a report whose generation failed, with the reason.
type ReportFailure struct {
	Report ReportRef `json:"report"`
	Error  string    `json:"error"`
}

// FailReport ends a pending report failed and gives its tokens back.
func (a *Activities) FailReport(ctx context.Context, in ReportFailure) error {
	err := a.Stores.Reports.Fail(ctx, in.Report.OrgID, in.Report.ReportID, in.Error, time.Now())
	if isNotFound(err) {
		return nil
	}
	return err
}

// ReportStatus returns a report's status and error.
func (a *Activities) ReportStatus(ctx context.Context, in ReportRef) (ReportOutcome, error) {
	r, err := a.Stores.Reports.Get(ctx, in.OrgID, in.ReportID)
	if err != nil {
		return ReportOutcome{}, reportGone(err)
	}
	return ReportOutcome{Status: r.Status, Error: r.Error}, nil
}

// ReportOutcome is how a report's generation ended.
type ReportOutcome struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// CreateScheduledReport stores the report of a schedule's run (checked
// and charged as a requested one) and returns its id; a run retried after
// its answer was lost finds the report it created.
func (a *Activities) CreateScheduledReport(ctx context.Context, in ReportScheduleRef) (string, error) {
	sc, err := a.Stores.ReportSchedules.Get(ctx, in.OrgID, in.ScheduleID)
	if err != nil {
		return "", reportGone(err)
	}
	if _, err := a.Stores.Reports.Get(ctx, in.OrgID, in.ReportID); err == nil {
		return in.ReportID, nil
	}
	svc := reportsvc.Service{Stores: a.Stores}
	r, err := svc.Prepare(ctx, in.OrgID, sc.CreatedBy, reportsvc.Request{ReportType: sc.ReportType,
		Config: []byte(sc.Config), ScheduleID: &sc.ID, ID: in.ReportID})
	if err == nil {
		err = a.Stores.Reports.Create(ctx, in.OrgID, r)
	}
	if e := (*errs.Error)(nil); errors.As(err, &e) && !errors.Is(err, errs.ErrInternal) {
		return "", temporal.NewNonRetryableApplicationError(e.Message, ErrTypeBadInput, nil)
	}
	if err != nil {
		return "", err
	}
	return r.ID, nil
}

// EmailReport e-mails the run's report to the schedule's recipients, the
// PDF attached.
func (a *Activities) EmailReport(ctx context.Context, in ReportScheduleRef) error {
	sc, err := a.Stores.ReportSchedules.Get(ctx, in.OrgID, in.ScheduleID)
	if err != nil {
		return reportGone(err)
	}
	r, err := a.Stores.Reports.Get(ctx, in.OrgID, in.ReportID)
	if err != nil {
		return reportGone(err)
	}
	org, err := a.Stores.Orgs.Get(ctx, in.OrgID)
	if err != nil {
		return err
	}
	// The subject is the service's words only: the organisation's name is
	// chosen by whoever registered it and must not make the subject line
	// of mail sent from the service's address.
	title := reports.Kind(r.ReportType).Title()
	msg := mailer.Message{To: reportsvc.Recipients(sc), Subject: fmt.Sprintf("DQS: %s, %s", title, r.CreatedAt.UTC().Format(time.DateOnly)),
		Text: fmt.Sprintf("The %s of the organisation %q in DQS, generated on %s by a %s schedule, is attached.\n\nIt is also in DQS: %s/api/v1/reports/%s\n",
			title, printable(org.Name), r.CreatedAt.UTC().Format("2006-01-02 15:04 UTC"), sc.Frequency, a.AppURL, r.ID)}
	if r.SizeBytes > maxReportAttachment {
		msg.Text += fmt.Sprintf("\nThe PDF (%d MB) is too large to attach; download it from DQS.\n", r.SizeBytes>>20)
		return a.Mailer.Send(ctx, msg)
	}
	rc, err := a.Blobs.Open(ctx, r.StorageKey)
	if err != nil {
		return err
	}
	defer rc.Close()
	pdf, err := io.ReadAll(io.LimitReader(rc, maxReportAttachment+1))
	if err != nil {
		return err
	}
	msg.Attachments = []mailer.Attachment{{Filename: reportsvc.FileName(r), ContentType: "application/pdf", Data: pdf}}
	return a.Mailer.Send(ctx, msg)
}

// printable replaces control characters (a name with a line break) by
// spaces.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
}

// ScheduleRunResult is the outcome of a schedule's run.
type ScheduleRunResult struct {
	Schedule ReportScheduleRef `json:"schedule"`
	Status   string            `json:"status"`
	Error    string            `json:"error,omitempty"`
	At       time.Time         `json:"at"`
}

// RecordReportScheduleRun writes a run's outcome on its schedule.
func (a *Activities) RecordReportScheduleRun(ctx context.Context, in ScheduleRunResult) error {
	sc, err := a.Stores.ReportSchedules.Get(ctx, in.Schedule.OrgID, in.Schedule.ScheduleID)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	var report *string
	if in.Schedule.ReportID != "" {
		if _, err := a.Stores.Reports.Get(ctx, in.Schedule.OrgID, in.Schedule.ReportID); err == nil {
			report = &in.Schedule.ReportID
		}
	}
	err = a.Stores.ReportSchedules.RecordRun(ctx, sc.OrgID, sc.ID, in.Status, in.Error, report, in.At, reportsvc.NextRun(sc, in.At))
	if isNotFound(err) {
		return nil
	}
	return err
}
