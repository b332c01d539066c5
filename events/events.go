// Package events is the service's internal event bus: activities publish
// what happened (personal data found, a quality score moved, a scan
// failed), and the bus hands each event to every enabled webhook of the
// organisation that subscribes to its type.
//
// Publishing is idempotent: an event's ID is derived from what caused it,
// so an activity retried after a crash publishes the same event again and
// each webhook still receives it once.
package events

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Event types (SPEC.md "Webhook event types").
const (
	QualityDrop       = "quality_drop"
	QualityImproved   = "quality_improved"
	GDPRDetected      = "gdpr_detected"
	NewIssue          = "new_issue"
	ScanFailure       = "scan_failure"
	ContractViolation = "contract_violation"
)

// Types lists every event type, in the order of SPEC.md.
var Types = []string{QualityDrop, QualityImproved, GDPRDetected, NewIssue, ScanFailure, ContractViolation}

// DefaultSubscription is what a webhook created without event_types gets.
var DefaultSubscription = []string{QualityDrop, GDPRDetected, NewIssue, ScanFailure}

// Known reports whether t is an event type.
func Known(t string) bool {
	for _, k := range Types {
		if k == t {
			return true
		}
	}
	return false
}

// Event is one thing that happened in an organisation.
type Event struct {
	// ID is stable for the cause (e.g. "job_x/file/3/gdpr_detected"), so
	// publishing twice delivers once.
	ID    string
	Type  string
	OrgID string
	// Title is one line (a chat message's header); Text the details, in
	// plain text with line breaks.
	Title      string
	Text       string
	OccurredAt time.Time
}

// Publisher takes events; activities depend on this.
type Publisher interface {
	Publish(ctx context.Context, e Event) error
}

// Subscribers finds the enabled webhooks of an organisation that take an
// event type.
type Subscribers interface {
	Subscribed(ctx context.Context, orgID, eventType string) ([]string, error)
}

// Deliverer starts the durable delivery of one event to one webhook; it
// must be idempotent on (webhook, event ID).
type Deliverer interface {
	Deliver(ctx context.Context, orgID, webhookID string, e Event) error
}

// Bus publishes to every subscribed webhook.
type Bus struct {
	Webhooks Subscribers
	Delivery Deliverer
}

// Publish starts one delivery per subscribed webhook. A delivery that
// cannot be started is an error (the publishing activity retries; the
// deliveries already started are not duplicated).
func (b Bus) Publish(ctx context.Context, e Event) error {
	if !Known(e.Type) {
		return fmt.Errorf("events: unknown event type %q", e.Type)
	}
	ids, err := b.Webhooks.Subscribed(ctx, e.OrgID, e.Type)
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range ids {
		if err := b.Delivery.Deliver(ctx, e.OrgID, id, e); err != nil {
			errs = append(errs, fmt.Errorf("webhook %s: %w", id, err))
		}
	}
	return errors.Join(errs...)
}
