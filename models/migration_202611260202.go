package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateSecondFactorGuard creates the server-side state of the second
// factor: one row per temp_token (its jti), which makes the token
// single-use and counts its codes, and one row per code being checked or
// found wrong, which bounds the codes tried per user over time whatever the
// token or client.
func migrateSecondFactorGuard(tx *gorm.DB) error {
	type totpChallenge struct {
		ID        string `gorm:"primaryKey;size:36"`
		OrgID     string `gorm:"size:36;not null;index"`
		UserID    string `gorm:"size:36;not null;index"`
		Attempts  int    `gorm:"not null;default:0"`
		UsedAt    *time.Time
		ExpiresAt time.Time `gorm:"not null;index"`
		CreatedAt time.Time `gorm:"not null"`
	}
	type totpAttempt struct {
		ID          string    `gorm:"primaryKey;size:36"`
		OrgID       string    `gorm:"size:36;not null;index:idx_totp_attempts_user,priority:1"`
		UserID      string    `gorm:"size:36;not null;index:idx_totp_attempts_user,priority:2"`
		CreatedAt   time.Time `gorm:"not null;index:idx_totp_attempts_user,priority:3"`
		LockedUntil *time.Time
	}
	return createTables(tx, []table{{"totp_challenges", &totpChallenge{}}, {"totp_attempts", &totpAttempt{}}})
}
