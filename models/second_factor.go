package models

import (
	"context"
	"errors"
	"time"

	"github.com/dqs/dqs/errs"
	"gorm.io/gorm"
)

// Limits of the second factor. A temp_token allows ChallengeMaxCodes codes;
// a user may enter UserMaxFailures wrong codes within UserFailureWindow,
// whatever the tokens or clients they come from, and the one that reaches
// the limit locks the second factor of that user for UserLockout.
const (
	ChallengeMaxCodes = 5
	UserMaxFailures   = 10
	UserFailureWindow = 15 * time.Minute
	UserLockout       = 15 * time.Minute
)

// TOTPChallenge is the server-side state of one temp_token (a 2FA JWT whose
// jti is ID): how many codes were tried with it and whether it was
// exchanged for a session.
type TOTPChallenge struct {
	ID        string `gorm:"primaryKey;size:36"`
	OrgID     string `gorm:"size:36;not null;index"`
	UserID    string `gorm:"size:36;not null;index"`
	Attempts  int    `gorm:"not null;default:0"`
	UsedAt    *time.Time
	ExpiresAt time.Time `gorm:"not null;index"`
	CreatedAt time.Time `gorm:"not null"`
}

// TOTPAttempt is one code of a user (at login, or when disabling 2FA)
// that is being checked or was wrong; a right code's row is deleted. The
// wrong code that reached the limit carries LockedUntil.
type TOTPAttempt struct {
	ID          string    `gorm:"primaryKey;size:36"`
	OrgID       string    `gorm:"size:36;not null;index:idx_totp_attempts_user,priority:1"`
	UserID      string    `gorm:"size:36;not null;index:idx_totp_attempts_user,priority:2"`
	CreatedAt   time.Time `gorm:"not null;index:idx_totp_attempts_user,priority:3"`
	LockedUntil *time.Time
}

// SecondFactor keeps the state that limits TOTP codes.
type SecondFactor struct{ db *DB }

// Why a temp_token can no longer be used.
var (
	ErrChallengeInvalid   = errs.Unauthorized("invalid or expired temp_token; sign in again")
	ErrChallengeUsed      = errs.Unauthorized("this temp_token was already exchanged for a session; sign in again")
	ErrChallengeExhausted = errs.Unauthorized("too many wrong codes for this sign-in; sign in again")
)

// LockedError says that the second factor of a user is locked until Until.
type LockedError struct{ Until time.Time }

func (e *LockedError) Error() string {
	return "second factor locked until " + e.Until.Format(time.RFC3339)
}

// CreateChallenge records a new temp_token of user userID with jti id.
func (s SecondFactor) CreateChallenge(ctx context.Context, orgID, userID, id string, expiresAt time.Time) error {
	return s.db.conn(ctx).Create(&TOTPChallenge{ID: id, OrgID: orgID, UserID: userID,
		ExpiresAt: expiresAt.UTC(), CreatedAt: time.Now().UTC()}).Error
}

// TryChallenge counts one code tried with temp_token id of user userID and
// returns how many have been tried with it, this one included. A single
// conditional UPDATE decides, so concurrent requests can never try more
// than ChallengeMaxCodes codes with one token. A token unknown, expired,
// already exchanged or out of codes answers the matching ErrChallenge*.
func (s SecondFactor) TryChallenge(ctx context.Context, orgID, userID, id string, now time.Time) (int, error) {
	now = now.UTC()
	c := s.db.conn(ctx)
	res := c.Model(&TOTPChallenge{}).
		Where("id = ? AND org_id = ? AND user_id = ? AND used_at IS NULL AND expires_at > ? AND attempts < ?",
			id, orgID, userID, now, ChallengeMaxCodes).
		Update("attempts", gorm.Expr("attempts + 1"))
	if res.Error != nil {
		return 0, res.Error
	}
	var ch TOTPChallenge
	err := c.Where("id = ? AND org_id = ? AND user_id = ?", id, orgID, userID).Take(&ch).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return 0, ErrChallengeInvalid
	}
	if err != nil {
		return 0, err
	}
	if res.RowsAffected == 1 {
		return ch.Attempts, nil
	}
	switch {
	case ch.UsedAt != nil:
		return 0, ErrChallengeUsed
	case !now.Before(ch.ExpiresAt):
		return 0, ErrChallengeInvalid
	default:
		return 0, ErrChallengeExhausted
	}
}

// ConsumeChallenge marks temp_token id exchanged for a session. Of
// concurrent calls exactly one succeeds (a conditional UPDATE); the others
// answer ErrChallengeUsed.
func (s SecondFactor) ConsumeChallenge(ctx context.Context, orgID, id string, now time.Time) error {
	res := s.db.conn(ctx).Model(&TOTPChallenge{}).Where("id = ? AND org_id = ? AND used_at IS NULL", id, orgID).
		Update("used_at", now.UTC())
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return ErrChallengeUsed
	}
	return nil
}

// BeginAttempt records that a code of user userID is about to be checked
// and returns the attempt's id, or a *LockedError when the user's second
// factor is locked, or when UserMaxFailures codes were already wrong or are
// being checked within UserFailureWindow. Each attempt holds its place
// while its code is checked, so concurrent requests cannot check more
// codes than the limit allows. The check and the insert run in one
// transaction holding the user's row.
func (s SecondFactor) BeginAttempt(ctx context.Context, orgID, userID string, now time.Time) (string, error) {
	now = now.UTC()
	id := NewID()
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		if err := s.lockUser(ctx, orgID, userID); err != nil {
			return err
		}
		// Rows, not aggregates: SQLite answers MIN and MAX of a time
		// column as text. A user has at most a few attempts in the window.
		var recent []TOTPAttempt
		err := c.Where("org_id = ? AND user_id = ? AND (created_at > ? OR locked_until > ?)",
			orgID, userID, now.Add(-UserFailureWindow), now).Order("created_at ASC").Find(&recent).Error
		if err != nil {
			return err
		}
		var inWindow []TOTPAttempt
		var lockedUntil time.Time
		for _, a := range recent {
			if a.LockedUntil != nil && a.LockedUntil.After(lockedUntil) {
				lockedUntil = *a.LockedUntil
			}
			if a.CreatedAt.After(now.Add(-UserFailureWindow)) {
				inWindow = append(inWindow, a)
			}
		}
		if lockedUntil.After(now) {
			return &LockedError{Until: lockedUntil.UTC()}
		}
		if len(inWindow) >= UserMaxFailures {
			// Codes still being checked hold places too; the first place
			// frees when the oldest attempt leaves the window.
			return &LockedError{Until: inWindow[0].CreatedAt.UTC().Add(UserFailureWindow)}
		}
		return c.Create(&TOTPAttempt{ID: id, OrgID: orgID, UserID: userID, CreatedAt: now}).Error
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// ForgetAttempt removes attempt id: its code was right, and a right code
// is not a failure.
func (s SecondFactor) ForgetAttempt(ctx context.Context, orgID, id string) error {
	return s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Delete(&TOTPAttempt{}).Error
}

// FailAttempt keeps attempt id as a wrong code of user userID. When the
// attempts within UserFailureWindow reach UserMaxFailures it locks the
// user's second factor until now+UserLockout and answers that time.
func (s SecondFactor) FailAttempt(ctx context.Context, orgID, userID, id string, now time.Time) (lockedUntil *time.Time, err error) {
	now = now.UTC()
	err = s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		if err := s.lockUser(ctx, orgID, userID); err != nil {
			return err
		}
		var n int64
		err := c.Model(&TOTPAttempt{}).Where("org_id = ? AND user_id = ? AND created_at > ?", orgID, userID, now.Add(-UserFailureWindow)).
			Count(&n).Error
		if err != nil || n < UserMaxFailures {
			return err
		}
		until := now.Add(UserLockout)
		lockedUntil = &until
		return c.Model(&TOTPAttempt{}).Where("org_id = ? AND id = ?", orgID, id).Update("locked_until", until).Error
	})
	return lockedUntil, err
}

// lockUser holds user userID's row until the transaction ends, so the
// attempts of one user are counted one request after another. SQLite
// needs no lock: its transactions take the write lock when they begin.
func (s SecondFactor) lockUser(ctx context.Context, orgID, userID string) error {
	if s.db.Dialect != Postgres {
		return nil
	}
	return s.db.conn(ctx).Exec("SELECT id FROM users WHERE org_id = ? AND id = ? FOR UPDATE", orgID, userID).Error
}

// purgeBefore deletes temp_token rows that expired before cutoff, and
// attempts that left their window before cutoff, provided no lock they set
// still holds.
func (s SecondFactor) purgeBefore(ctx context.Context, cutoff time.Time) (int64, error) {
	c := s.db.conn(ctx)
	a := c.Where("expires_at < ?", cutoff).Delete(&TOTPChallenge{})
	if a.Error != nil {
		return 0, a.Error
	}
	b := c.Where("created_at < ? AND (locked_until IS NULL OR locked_until < ?)", cutoff.Add(-UserFailureWindow), cutoff).Delete(&TOTPAttempt{})
	return a.RowsAffected + b.RowsAffected, b.Error
}
