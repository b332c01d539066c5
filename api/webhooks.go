package api

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/webhook"
	"github.com/gin-gonic/gin"
)

// maxWebhookName bounds a webhook's label.
const maxWebhookName = 200

// webhookTestTimeout is SPEC.md's limit of the test request.
const webhookTestTimeout = 10 * time.Second

type webhookView struct {
	ID                  string     `json:"id"`
	Name                string     `json:"name"`
	Platform            string     `json:"platform"`
	WebhookURL          string     `json:"webhook_url"`
	EventTypes          []string   `json:"event_types"`
	Enabled             bool       `json:"enabled"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	LastDeliveryAt      *time.Time `json:"last_delivery_at"`
	LastDeliveryStatus  *string    `json:"last_delivery_status"`
	CreatedAt           time.Time  `json:"created_at"`
}

func viewWebhook(w *models.Webhook) webhookView {
	types := w.Events()
	if types == nil {
		types = []string{}
	}
	return webhookView{ID: w.ID, Name: w.Name, Platform: w.Platform, WebhookURL: webhook.Masked(w.URLLength, w.URLTail),
		EventTypes: types, Enabled: w.Enabled, ConsecutiveFailures: w.ConsecutiveFailures,
		LastDeliveryAt: utcPtr(w.LastDeliveryAt), LastDeliveryStatus: strPtr(w.LastDeliveryStatus), CreatedAt: w.CreatedAt.UTC()}
}

// webhookRequest is the body of create and update; every field is
// optional on update.
type webhookRequest struct {
	Name       *string   `json:"name"`
	Platform   *string   `json:"platform"`
	WebhookURL *string   `json:"webhook_url"`
	EventTypes *[]string `json:"event_types"`
	Enabled    *bool     `json:"enabled"`
}

// applyWebhookRequest validates the request's fields and writes them
// into w.
func (s *Server) applyWebhookRequest(ctx context.Context, req webhookRequest, w *models.Webhook) error {
	if req.Name != nil {
		n := strings.TrimSpace(*req.Name)
		if n == "" || utf8.RuneCountInString(n) > maxWebhookName {
			return errs.BadRequest("name must be 1–%d characters", maxWebhookName)
		}
		w.Name = n
	}
	if req.Platform != nil {
		if !oneOf(*req.Platform, webhook.Platforms) {
			return errs.BadRequest("platform must be slack or teams")
		}
		w.Platform = *req.Platform
	}
	if req.EventTypes != nil {
		types := *req.EventTypes
		if len(types) == 0 {
			return errs.BadRequest("event_types must list at least one event type")
		}
		seen := map[string]bool{}
		for _, t := range types {
			if !events.Known(t) {
				return errs.BadRequest("unknown event type %q; event types are %s", t, strings.Join(events.Types, ", "))
			}
			if seen[t] {
				return errs.BadRequest("event type %q is listed twice", t)
			}
			seen[t] = true
		}
		w.SetEvents(types)
	}
	if req.Enabled != nil {
		w.Enabled = *req.Enabled
	}
	if req.WebhookURL != nil {
		raw := strings.TrimSpace(*req.WebhookURL)
		if err := s.WebhookGuard.Check(ctx, raw); err != nil {
			return errs.BadRequest("webhook_url: %s", targetReason(err))
		}
		sealed, err := s.Secrets.Seal(raw)
		if err != nil {
			return err
		}
		w.URLSealed, w.URLTail, w.URLLength = sealed, webhook.Tail(raw), utf8.RuneCountInString(raw)
	}
	return nil
}

// targetReason is the guard's refusal without its sentinel prefix.
func targetReason(err error) string {
	return strings.TrimPrefix(err.Error(), webhook.ErrTarget.Error()+": ")
}

// listWebhooks lists the organisation's webhooks (any user), oldest
// first, paged like every list.
func (s *Server) listWebhooks(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	list, total, err := s.Stores.Webhooks.List(c.Request.Context(), p.OrgID, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]webhookView, len(list))
	for i := range list {
		out[i] = viewWebhook(&list[i])
	}
	return respondList(c, out, total, pg)
}

// createWebhook adds a webhook (admin); at most 10 per organisation.
func (s *Server) createWebhook(c *gin.Context) error {
	p := mustPrincipal(c)
	var req webhookRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	switch {
	case req.Name == nil:
		return errs.BadRequest("name is required")
	case req.Platform == nil:
		return errs.BadRequest("platform is required (slack or teams)")
	case req.WebhookURL == nil:
		return errs.BadRequest("webhook_url is required")
	}
	w := &models.Webhook{Enabled: true, CreatedBy: p.userID()}
	w.SetEvents(events.DefaultSubscription)
	if err := s.applyWebhookRequest(c.Request.Context(), req, w); err != nil {
		return err
	}
	if err := s.Stores.Webhooks.Create(c.Request.Context(), p.OrgID, w); err != nil {
		return err
	}
	return respond(c, http.StatusCreated, viewWebhook(w))
}

// updateWebhook changes the given fields (admin).
func (s *Server) updateWebhook(c *gin.Context) error {
	p := mustPrincipal(c)
	var req webhookRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req == (webhookRequest{}) {
		return errs.BadRequest("nothing to change: send name, platform, webhook_url, event_types or enabled")
	}
	ctx := c.Request.Context()
	w, err := s.Stores.Webhooks.Get(ctx, p.OrgID, c.Param("webhook_id"))
	if err != nil {
		return err
	}
	if err := s.applyWebhookRequest(ctx, req, w); err != nil {
		return err
	}
	if err := s.Stores.Webhooks.Save(ctx, p.OrgID, w); err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewWebhook(w))
}

// deleteWebhook removes a webhook (admin); deliveries under way skip it.
func (s *Server) deleteWebhook(c *gin.Context) error {
	p := mustPrincipal(c)
	id := c.Param("webhook_id")
	if err := s.Stores.Webhooks.Delete(c.Request.Context(), p.OrgID, id); err != nil {
		return err
	}
	return deleted(c, id)
}

type webhookTestResult struct {
	Success bool    `json:"success"`
	Error   *string `json:"error"`
}

// testWebhook sends one test message now, with a 10-second timeout, and
// answers 200 with the outcome: a failed delivery is `success: false`
// with the reason, not an error envelope (SPEC.md). It does not count as
// a delivery.
func (s *Server) testWebhook(c *gin.Context) error {
	p := mustPrincipal(c)
	ctx := c.Request.Context()
	w, err := s.Stores.Webhooks.Get(ctx, p.OrgID, c.Param("webhook_id"))
	if err != nil {
		return err
	}
	raw, err := s.Secrets.Open(w.URLSealed)
	if err != nil {
		return errors.Join(errs.ErrInternal, err)
	}
	ctx, cancel := context.WithTimeout(ctx, webhookTestTimeout)
	defer cancel()
	res := s.WebhookSender.Post(ctx, w.Platform, raw, webhook.Message{
		Title: "DQS test message",
		Text:  "This channel receives DQS alerts from the webhook \"" + w.Name + "\": " + strings.Join(w.Events(), ", ") + ".",
	})
	if !res.OK() {
		msg := res.Err.Error()
		return respond(c, http.StatusOK, webhookTestResult{Error: &msg})
	}
	return respond(c, http.StatusOK, webhookTestResult{Success: true})
}
