package models

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/dqs/dqs/errs"
	"gorm.io/gorm"
)

// MaxWebhooks is the number of webhooks an organisation may hold.
const MaxWebhooks = 10

// Webhook is a chat channel that receives an organisation's events. Its
// URL carries the channel's secret token, so it is stored sealed
// (AES-GCM under DQS_ENCRYPTION_KEY) with only its last characters in
// clear, for display.
type Webhook struct {
	ID                  string `gorm:"primaryKey;size:36"`
	OrgID               string `gorm:"size:36;not null;index"`
	Name                string `gorm:"size:200;not null"`
	Platform            string `gorm:"size:16;not null"`
	URLSealed           string `gorm:"column:url_sealed;type:text;not null"`
	URLTail             string `gorm:"column:url_tail;size:16;not null"`
	URLLength           int    `gorm:"column:url_length;not null"`
	EventTypes          string `gorm:"type:text;not null"` // JSON array
	Enabled             bool   `gorm:"not null"`
	ConsecutiveFailures int    `gorm:"not null;default:0"`
	LastDeliveryAt      *time.Time
	LastDeliveryStatus  string    `gorm:"size:32;not null;default:''"`
	CreatedBy           string    `gorm:"size:36;not null;default:''"`
	CreatedAt           time.Time `gorm:"not null"`
	UpdatedAt           time.Time `gorm:"not null"`
}

// Events returns the subscribed event types.
func (w *Webhook) Events() []string {
	var out []string
	_ = json.Unmarshal([]byte(w.EventTypes), &out)
	return out
}

// SetEvents stores the subscribed event types.
func (w *Webhook) SetEvents(types []string) {
	b, _ := json.Marshal(types)
	w.EventTypes = string(b)
}

// Delivery statuses of a webhook.
const (
	DeliveryOK     = "success"
	DeliveryFailed = "failed"
)

// Webhooks stores the organisations' webhooks.
type Webhooks struct{ db *DB }

// Create stores w unless the organisation already has MaxWebhooks.
func (s Webhooks) Create(ctx context.Context, orgID string, w *Webhook) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		c := s.db.conn(ctx)
		var n int64
		if err := c.Model(&Webhook{}).Where("org_id = ?", orgID).Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxWebhooks {
			return errs.LimitExceeded("an organization may hold at most %d webhooks; delete one first", MaxWebhooks)
		}
		if w.ID == "" {
			w.ID = NewID()
		}
		w.OrgID = orgID
		now := time.Now().UTC()
		w.CreatedAt, w.UpdatedAt = now, now
		return c.Create(w).Error
	})
}

// List returns a page of the organisation's webhooks, oldest first, and
// their total.
func (s Webhooks) List(ctx context.Context, orgID string, p Page) ([]Webhook, int64, error) {
	q := s.db.conn(ctx).Model(&Webhook{}).Where("org_id = ?", orgID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Webhook
	err := q.Order("created_at ASC, id ASC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Get returns webhook id of the organisation.
func (s Webhooks) Get(ctx context.Context, orgID, id string) (*Webhook, error) {
	var w Webhook
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&w).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("webhook")
	}
	return &w, err
}

// Save writes the editable fields of w (name, platform, URL, event types,
// enabled); delivery counters are left alone.
func (s Webhooks) Save(ctx context.Context, orgID string, w *Webhook) error {
	w.UpdatedAt = time.Now().UTC()
	res := s.db.conn(ctx).Model(&Webhook{}).Where("org_id = ? AND id = ?", orgID, w.ID).Updates(map[string]any{
		"name": w.Name, "platform": w.Platform, "url_sealed": w.URLSealed, "url_tail": w.URLTail, "url_length": w.URLLength,
		"event_types": w.EventTypes, "enabled": w.Enabled, "updated_at": w.UpdatedAt,
	})
	if res.Error == nil && res.RowsAffected == 0 {
		return errs.NotFound("webhook")
	}
	return res.Error
}

// Delete removes webhook id of the organisation.
func (s Webhooks) Delete(ctx context.Context, orgID, id string) error {
	res := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Delete(&Webhook{})
	if res.Error == nil && res.RowsAffected == 0 {
		return errs.NotFound("webhook")
	}
	return res.Error
}

// Subscribed returns the ids of the organisation's enabled webhooks that
// take eventType.
func (s Webhooks) Subscribed(ctx context.Context, orgID, eventType string) ([]string, error) {
	var all []Webhook
	if err := s.db.conn(ctx).Where("org_id = ? AND enabled = ?", orgID, true).Order("created_at ASC, id ASC").Find(&all).Error; err != nil {
		return nil, err
	}
	var ids []string
	for i := range all {
		if slices.Contains(all[i].Events(), eventType) {
			ids = append(ids, all[i].ID)
		}
	}
	return ids, nil
}

// RecordDelivery records the outcome of one delivery (after its retries):
// a success resets the consecutive failure count, a failure adds one.
func (s Webhooks) RecordDelivery(ctx context.Context, orgID, id string, ok bool, at time.Time) error {
	updates := map[string]any{"last_delivery_at": at.UTC(), "last_delivery_status": DeliveryOK, "consecutive_failures": 0}
	if !ok {
		updates["last_delivery_status"] = DeliveryFailed
		updates["consecutive_failures"] = gorm.Expr("consecutive_failures + 1")
	}
	return s.db.conn(ctx).Model(&Webhook{}).Where("org_id = ? AND id = ?", orgID, id).Updates(updates).Error
}
