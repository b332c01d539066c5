package models

import (
	"context"
	"errors"
	"time"

	"github.com/dqs/dqs/errs"
	"gorm.io/gorm"
)

// MaxAPIKeys is the number of active keys an organisation may hold.
const MaxAPIKeys = 10

// APIKeys stores API key hashes.
type APIKeys struct{ db *DB }

// Create stores k unless the organisation already has MaxAPIKeys active keys.
func (s APIKeys) Create(ctx context.Context, orgID string, k *APIKey) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		var n int64
		if err := c.Model(&APIKey{}).Where("org_id = ? AND revoked_at IS NULL", orgID).Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxAPIKeys {
			return errs.LimitExceeded("an organization may hold at most %d active API keys; revoke one first", MaxAPIKeys)
		}
		if k.ID == "" {
			k.ID = NewID()
		}
		k.OrgID = orgID
		return c.Create(k).Error
	})
}

// List returns the organisation's active keys, newest first, and the total.
func (s APIKeys) List(ctx context.Context, orgID string, p Page) ([]APIKey, int64, error) {
	q := s.db.conn(ctx).Model(&APIKey{}).Where("org_id = ? AND revoked_at IS NULL", orgID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []APIKey
	err := q.Order("created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Revoke revokes key id; an unknown, foreign or already revoked key is not found.
func (s APIKeys) Revoke(ctx context.Context, orgID, id string, now time.Time) (*APIKey, error) {
	now = now.UTC()
	var k APIKey
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		err := c.Where("org_id = ? AND id = ? AND revoked_at IS NULL", orgID, id).Take(&k).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return errs.NotFound("API key")
		}
		if err != nil {
			return err
		}
		k.RevokedAt = &now
		return c.Model(&APIKey{}).Where("org_id = ? AND id = ?", orgID, id).Update("revoked_at", now).Error
	})
	if err != nil {
		return nil, err
	}
	return &k, nil
}

// AuthenticateByHash finds the active key with hash h; the organisation comes
// from the key found.
func (s APIKeys) AuthenticateByHash(ctx context.Context, h string) (*APIKey, error) {
	var k APIKey
	err := s.db.conn(ctx).Where("key_hash = ? AND revoked_at IS NULL", h).Take(&k).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.Unauthorized("invalid API key")
	}
	return &k, err
}

// TouchLastUsed records a use; it writes at most once a minute per key so a
// busy integration does not turn every read into a write.
func (s APIKeys) TouchLastUsed(ctx context.Context, orgID, id string, now time.Time) error {
	now = now.UTC()
	return s.db.conn(ctx).Model(&APIKey{}).
		Where("org_id = ? AND id = ? AND (last_used_at IS NULL OR last_used_at < ?)", orgID, id, now.Add(-time.Minute)).
		Update("last_used_at", now).Error
}
