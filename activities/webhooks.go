package activities

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/webhook"
	"go.temporal.io/sdk/temporal"
)

// PublishJobEventsInput names a finished job and when it finished.
type PublishJobEventsInput struct {
	OrgID string
	JobID string
	At    time.Time
}

// PublishJobEvents publishes the events of a finished job's analysed
// files: gdpr_detected, quality_drop, quality_improved and new_issue,
// each file compared with the previous analysis of the same dataset.
// Event ids derive from the job and file, so a retry delivers nothing
// twice.
func (a *Activities) PublishJobEvents(ctx context.Context, in PublishJobEventsInput) (int, error) {
	files, err := a.Stores.Files.ListByJob(ctx, in.OrgID, in.JobID)
	if err != nil {
		return 0, err
	}
	n := 0
	for i := range files {
		if files[i].Status != models.FileCompleted || files[i].ParentFileID != nil {
			continue // corrected copies, written since, are not the job's uploads
		}
		cur, err := a.fileAnalysis(ctx, in.OrgID, &files[i])
		if err != nil {
			return n, err
		}
		var prev *events.Analysis
		pf, err := a.Stores.Files.PreviousAnalysis(ctx, in.OrgID, files[i].FileName, files[i].ID)
		if err != nil {
			return n, err
		}
		if pf != nil {
			if prev, err = a.fileAnalysis(ctx, in.OrgID, pf); err != nil {
				return n, err
			}
		}
		for _, e := range events.Detect(in.OrgID, *cur, prev, in.At) {
			// The alert first: a retry after a failed publish finds it
			// raised and raises it no second time.
			if alert := uploadAlert(e, cur, prev); alert != nil {
				if _, err := a.Stores.Alerts.Raise(ctx, in.OrgID, alert); err != nil {
					return n, err
				}
			}
			if a.Events == nil {
				continue
			}
			if err := a.Events.Publish(ctx, e); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// uploadAlert is the alert an upload's event raises, keyed by the event's
// id, or nil: a quality drop against the dataset's previous analysis
// (critical from 20 points), and issues that analysis did not have. A
// dataset's first analysis raises none (every issue of it is "new", which
// is news for a webhook, not an incident), nor does personal data found or
// quality improved.
func uploadAlert(e events.Event, cur *events.Analysis, prev *events.Analysis) *models.Alert {
	if prev == nil || (e.Type != events.QualityDrop && e.Type != events.NewIssue) {
		return nil
	}
	severity := models.SeverityWarning
	if e.Type == events.QualityDrop && prev.Score-cur.Score >= 20 {
		severity = models.SeverityCritical
	}
	msg := e.Title + ": " + strings.ReplaceAll(e.Text, "\n", " ")
	if len(msg) > maxUploadAlertMessage {
		msg = strings.ToValidUTF8(msg[:maxUploadAlertMessage], "") + "…"
	}
	fileID := cur.FileID
	return &models.Alert{DedupKey: e.ID, Severity: severity, Type: e.Type, Message: msg, FileID: &fileID, CreatedAt: e.OccurredAt}
}

// maxUploadAlertMessage bounds an upload alert's message (the new issues
// of a wide file are many lines).
const maxUploadAlertMessage = 2000

// fileAnalysis reads what event detection needs from a stored result.
func (a *Activities) fileAnalysis(ctx context.Context, orgID string, f *models.File) (*events.Analysis, error) {
	var res analysis.Result
	if err := json.Unmarshal([]byte(f.Profile), &res); err != nil {
		return nil, temporal.NewNonRetryableApplicationError("stored profile does not parse", "bad_profile", err)
	}
	cols, err := a.Stores.Files.ColumnsOfFiles(ctx, orgID, []int64{f.ID})
	if err != nil {
		return nil, err
	}
	out := &events.Analysis{FileID: f.ID, JobID: f.JobID, FileName: f.FileName, Score: res.Quality.Score, Issues: res.Quality.Issues}
	for _, c := range cols {
		if classify.IsPersonal(classify.Result{Category: classify.GDPRCategory(c.GDPRCategory), Confidence: c.Confidence}) {
			out.PersonalColumns = append(out.PersonalColumns, c.Name)
		}
	}
	return out, nil
}

// DeliveryInput is one event for one webhook.
type DeliveryInput struct {
	OrgID     string
	WebhookID string
	Event     events.Event
}

// DeliveryOutcome says whether a delivery was made at all.
type DeliveryOutcome struct {
	// Skipped: the webhook was deleted, disabled or unsubscribed from
	// the event type since the event was published.
	Skipped bool
}

// ErrWebhookRejected is the error type of a delivery that retrying cannot
// fix (refused target, redirect, 4xx other than 408 and 429); the
// delivery workflow's retry policy does not retry it.
const ErrWebhookRejected = "webhook_rejected"

// SendWebhook sends one event to one webhook, once; the workflow retries.
func (a *Activities) SendWebhook(ctx context.Context, in DeliveryInput) (DeliveryOutcome, error) {
	w, err := a.Stores.Webhooks.Get(ctx, in.OrgID, in.WebhookID)
	if isNotFound(err) {
		return DeliveryOutcome{Skipped: true}, nil
	}
	if err != nil {
		return DeliveryOutcome{}, err
	}
	if !w.Enabled || !slices.Contains(w.Events(), in.Event.Type) {
		return DeliveryOutcome{Skipped: true}, nil
	}
	url, err := a.Secrets.Open(w.URLSealed)
	if err != nil {
		return DeliveryOutcome{}, temporal.NewNonRetryableApplicationError("the webhook URL cannot be unsealed (was DQS_ENCRYPTION_KEY changed?)", ErrWebhookRejected, nil)
	}
	res := a.Webhooks.Post(ctx, w.Platform, url, webhook.Message{Title: in.Event.Title, Text: in.Event.Text})
	if res.OK() {
		return DeliveryOutcome{}, nil
	}
	a.Logger.Warn("webhook delivery failed", "org_id", in.OrgID, "webhook_id", w.ID, "event", in.Event.Type,
		"status", res.Status, "error", res.Err.Error())
	if res.Permanent {
		return DeliveryOutcome{}, temporal.NewNonRetryableApplicationError(res.Err.Error(), ErrWebhookRejected, nil)
	}
	return DeliveryOutcome{}, temporal.NewApplicationError(res.Err.Error(), "webhook_failed")
}

// RecordDeliveryInput is a delivery's final outcome.
type RecordDeliveryInput struct {
	OrgID     string
	WebhookID string
	OK        bool
	At        time.Time
}

// RecordWebhookDelivery counts a finished delivery: a success resets the
// consecutive failures, a failure (after all retries) adds one.
func (a *Activities) RecordWebhookDelivery(ctx context.Context, in RecordDeliveryInput) error {
	return a.Stores.Webhooks.RecordDelivery(ctx, in.OrgID, in.WebhookID, in.OK, in.At)
}
