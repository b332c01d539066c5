package models

import (
	"context"
	"errors"
	"time"

	"github.com/dqs/dqs/errs"
	"gorm.io/gorm"
)

// RefreshTokens stores refresh-token hashes and their families.
type RefreshTokens struct{ db *DB }

// Create stores a newly issued token.
func (s RefreshTokens) Create(ctx context.Context, orgID string, t *RefreshToken) error {
	if t.ID == "" {
		t.ID = NewID()
	}
	t.OrgID = orgID
	return s.db.conn(ctx).Create(t).Error
}

// ErrRefreshReused is returned by Rotate when a rotated token is presented
// again: the family has then been revoked.
var ErrRefreshReused = errs.Unauthorized("refresh token was already used; the session has been revoked, sign in again")

var errRefreshInvalid = errs.Unauthorized("invalid or expired refresh token")

// Rotate consumes the token with hash oldHash and stores next in the same
// family, atomically. The organisation comes from the token found. A token
// already rotated revokes its whole family and answers ErrRefreshReused.
func (s RefreshTokens) Rotate(ctx context.Context, oldHash string, next *RefreshToken, now time.Time) (*RefreshToken, error) {
	now = now.UTC()
	var old RefreshToken
	reused := false
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		err := c.Where("token_hash = ?", oldHash).Take(&old).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return errRefreshInvalid
		}
		if err != nil {
			return err
		}
		if old.RevokedAt != nil || !now.Before(old.ExpiresAt) {
			return errRefreshInvalid
		}
		// Claim the token with a conditional update so two concurrent
		// refreshes with the same token cannot both win.
		res := c.Model(&RefreshToken{}).Where("id = ? AND rotated_at IS NULL", old.ID).Update("rotated_at", now)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			reused = true
			return c.Model(&RefreshToken{}).Where("family_id = ? AND revoked_at IS NULL", old.FamilyID).
				Update("revoked_at", now).Error
		}
		next.ID = NewID()
		next.OrgID = old.OrgID
		next.UserID = old.UserID
		next.FamilyID = old.FamilyID
		return c.Create(next).Error
	})
	if err != nil {
		return nil, err
	}
	if reused {
		return nil, ErrRefreshReused
	}
	return &old, nil
}

// RevokeFamilyByHash revokes the family of the token with hash h (logout);
// it returns the token found, or not_found.
func (s RefreshTokens) RevokeFamilyByHash(ctx context.Context, h string, now time.Time) (*RefreshToken, error) {
	now = now.UTC()
	var t RefreshToken
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		err := c.Where("token_hash = ?", h).Take(&t).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return errs.NotFound("refresh token")
		}
		if err != nil {
			return err
		}
		return c.Model(&RefreshToken{}).Where("family_id = ? AND revoked_at IS NULL", t.FamilyID).
			Update("revoked_at", now).Error
	})
	if err != nil {
		return nil, err
	}
	return &t, nil
}

// PurgeExpired deletes refresh tokens, e-mail verifications and temp_token
// states that expired before cutoff, and second-factor attempts that no
// longer count, across organisations (a maintenance sweep).
func (s RefreshTokens) PurgeExpired(ctx context.Context, cutoff time.Time) (int64, error) {
	cutoff = cutoff.UTC()
	c := s.db.conn(ctx)
	a := c.Where("expires_at < ?", cutoff).Delete(&RefreshToken{})
	if a.Error != nil {
		return 0, a.Error
	}
	b := c.Where("expires_at < ?", cutoff).Delete(&EmailVerification{})
	if b.Error != nil {
		return 0, b.Error
	}
	n, err := SecondFactor{s.db}.purgeBefore(ctx, cutoff)
	return a.RowsAffected + b.RowsAffected + n, err
}

// EmailVerifications stores e-mail verification token hashes.
type EmailVerifications struct{ db *DB }

// Create stores a verification token for a user.
func (s EmailVerifications) Create(ctx context.Context, orgID string, v *EmailVerification) error {
	if v.ID == "" {
		v.ID = NewID()
	}
	v.OrgID = orgID
	return s.db.conn(ctx).Create(v).Error
}

// Consume marks the token with hash h used and returns it; the organisation
// comes from the token. An unknown, used or expired token is a bad request.
func (s EmailVerifications) Consume(ctx context.Context, h string, now time.Time) (*EmailVerification, error) {
	now = now.UTC()
	var v EmailVerification
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		err := c.Where("token_hash = ?", h).Take(&v).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return errs.BadRequest("invalid or expired verification token")
		}
		if err != nil {
			return err
		}
		if !now.Before(v.ExpiresAt) {
			return errs.BadRequest("invalid or expired verification token")
		}
		res := c.Model(&EmailVerification{}).Where("id = ? AND used_at IS NULL", v.ID).Update("used_at", now)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.BadRequest("invalid or expired verification token")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &v, nil
}
