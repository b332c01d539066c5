package models

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/dqs/dqs/errs"
	"gorm.io/gorm"
)

// Users reads and writes users.
type Users struct{ db *DB }

// NormalizeEmail lowercases and trims an address, so one mailbox is one user.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// Create inserts u into organisation orgID; an e-mail address already held
// by a user of that organisation is a conflict. Other organisations' users
// play no part: an address is unique per organisation, so whether it has
// accounts elsewhere is never revealed.
func (s Users) Create(ctx context.Context, orgID string, u *User) error {
	if u.ID == "" {
		u.ID = NewID()
	}
	u.OrgID = orgID
	u.Email = NormalizeEmail(u.Email)
	// The unique index on (org_id, email) decides, so two concurrent
	// creations of one address in one organisation cannot both win.
	if err := s.db.conn(ctx).Create(u).Error; err != nil {
		if isUniqueViolation(err) {
			return errs.Conflict("a user with this e-mail address already exists in this organization")
		}
		return err
	}
	return nil
}

// Get returns user id of organisation orgID.
func (s Users) Get(ctx context.Context, orgID, id string) (*User, error) {
	var u User
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("user")
	}
	return &u, err
}

// ListByEmailForLogin returns the accounts of address email in every
// organisation, oldest first: login is the one place where the
// organisation is derived from the user found, and one person may hold
// accounts in several organisations (the password then picks one).
func (s Users) ListByEmailForLogin(ctx context.Context, email string) ([]User, error) {
	var out []User
	err := s.db.conn(ctx).Where("email = ?", NormalizeEmail(email)).Order("created_at ASC, id ASC").
		Limit(maxAccountsPerEmail).Find(&out).Error
	return out, err
}

// maxAccountsPerEmail bounds the password checks one login may cost (each
// is an argon2 hash of ~20 MiB); a person with more accounts than this
// under one address signs in to the oldest ones only.
const maxAccountsPerEmail = 10

// List returns a page of the organisation's users, oldest first, and the total.
func (s Users) List(ctx context.Context, orgID string, p Page) ([]User, int64, error) {
	var total int64
	q := s.db.conn(ctx).Model(&User{}).Where("org_id = ?", orgID)
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []User
	err := q.Order("created_at ASC, id ASC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// countAdmins counts the organisation's admins.
func (s Users) countAdmins(ctx context.Context, orgID string) (int64, error) {
	var n int64
	err := s.db.conn(ctx).Model(&User{}).Where("org_id = ? AND role = ?", orgID, RoleAdmin).Count(&n).Error
	return n, err
}

// SetRole changes a user's role; demoting the last admin is a conflict, so an
// organisation can never lock itself out of its settings.
func (s Users) SetRole(ctx context.Context, orgID, id string, role Role) (*User, error) {
	var out *User
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		u, err := s.Get(ctx, orgID, id)
		if err != nil {
			return err
		}
		if u.Role == RoleAdmin && role != RoleAdmin {
			if n, err := s.countAdmins(ctx, orgID); err != nil {
				return err
			} else if n <= 1 {
				return errs.Conflict("the organization's last admin cannot be demoted")
			}
		}
		u.Role = role
		u.UpdatedAt = time.Now().UTC()
		if err := s.db.conn(ctx).Model(&User{}).Where("org_id = ? AND id = ?", orgID, id).
			Updates(map[string]any{"role": role, "updated_at": u.UpdatedAt}).Error; err != nil {
			return err
		}
		out = u
		return nil
	})
	return out, err
}

// Delete removes a user and their sessions; the last admin cannot be removed.
func (s Users) Delete(ctx context.Context, orgID, id string) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		u, err := s.Get(ctx, orgID, id)
		if err != nil {
			return err
		}
		if u.Role == RoleAdmin {
			if n, err := s.countAdmins(ctx, orgID); err != nil {
				return err
			} else if n <= 1 {
				return errs.Conflict("the organization's last admin cannot be deleted")
			}
		}
		c := s.db.conn(ctx)
		if err := c.Where("org_id = ? AND user_id = ?", orgID, id).Delete(&RefreshToken{}).Error; err != nil {
			return err
		}
		if err := c.Where("org_id = ? AND user_id = ?", orgID, id).Delete(&EmailVerification{}).Error; err != nil {
			return err
		}
		return c.Where("org_id = ? AND id = ?", orgID, id).Delete(&User{}).Error
	})
}

// update writes the given columns of user id.
func (s Users) update(ctx context.Context, orgID, id string, cols map[string]any) error {
	cols["updated_at"] = time.Now().UTC()
	res := s.db.conn(ctx).Model(&User{}).Where("org_id = ? AND id = ?", orgID, id).Updates(cols)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return errs.NotFound("user")
	}
	return nil
}

// MarkEmailVerified stamps the user's e-mail as verified.
func (s Users) MarkEmailVerified(ctx context.Context, orgID, id string, at time.Time) error {
	return s.update(ctx, orgID, id, map[string]any{"email_verified_at": at.UTC()})
}

// SetPendingTOTP stores the encrypted seed of a started 2FA setup.
func (s Users) SetPendingTOTP(ctx context.Context, orgID, id, sealedSecret string) error {
	return s.update(ctx, orgID, id, map[string]any{"totp_pending_secret": sealedSecret})
}

// EnableTOTP makes the pending seed the active one and records the step of
// the code that proved it.
func (s Users) EnableTOTP(ctx context.Context, orgID, id, sealedSecret string, step int64) error {
	return s.update(ctx, orgID, id, map[string]any{
		"totp_secret": sealedSecret, "totp_pending_secret": "", "totp_enabled": true, "totp_last_step": step,
	})
}

// DisableTOTP removes the authenticator.
func (s Users) DisableTOTP(ctx context.Context, orgID, id string) error {
	return s.update(ctx, orgID, id, map[string]any{
		"totp_secret": "", "totp_pending_secret": "", "totp_enabled": false, "totp_last_step": 0,
	})
}

// ClaimTOTPStep records that the code of time step step was used. It fails
// with a conflict when that step or a later one was already used, so two
// concurrent requests with one code cannot both succeed.
func (s Users) ClaimTOTPStep(ctx context.Context, orgID, id string, step int64) error {
	res := s.db.conn(ctx).Model(&User{}).Where("org_id = ? AND id = ? AND totp_last_step < ?", orgID, id, step).
		Update("totp_last_step", step)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return errs.Unauthorized("this code was already used; wait for the next one")
	}
	return nil
}

func isUniqueViolation(err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "unique constraint") || strings.Contains(msg, "duplicate key")
}
