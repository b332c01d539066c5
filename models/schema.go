package models

import (
	"time"

	"github.com/google/uuid"
)

// Role of a user within an organisation.
type Role string

const (
	RoleMember Role = "member"
	RoleAdmin  Role = "admin"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return r == RoleMember || r == RoleAdmin }

// Scope of an API key. Scopes are hierarchical: read < scan < write < admin.
type Scope string

const (
	ScopeRead  Scope = "read"
	ScopeScan  Scope = "scan"
	ScopeWrite Scope = "write"
	ScopeAdmin Scope = "admin"
)

var scopeRank = map[Scope]int{ScopeRead: 1, ScopeScan: 2, ScopeWrite: 3, ScopeAdmin: 4}

// Valid reports whether s is a known scope.
func (s Scope) Valid() bool { return scopeRank[s] > 0 }

// Includes reports whether a key of scope s may do what needs scope need.
func (s Scope) Includes(need Scope) bool {
	return scopeRank[s] >= scopeRank[need] && scopeRank[need] > 0
}

// Organization is a tenant. Its settings live on the row; its token balance
// is changed only by atomic updates.
type Organization struct {
	ID                 string  `gorm:"primaryKey;size:36"`
	Name               string  `gorm:"size:200;not null"`
	TokenBalance       int64   `gorm:"not null"`
	RetentionMode      string  `gorm:"size:32;not null"`
	RetentionDays      int     `gorm:"not null"`
	AnomalySensitivity string  `gorm:"size:16;not null"`
	TrustThreshold     float64 `gorm:"not null"`
	GDPRCheckEnabled   bool    `gorm:"column:gdpr_check_enabled;not null"`
	// AnomalyExplanations turns the anomaly explainer on: a drift
	// explanation in the fix inbox for each table anomaly detection flags.
	AnomalyExplanations bool      `gorm:"not null;default:false"`
	CreatedAt           time.Time `gorm:"not null"`
	UpdatedAt           time.Time `gorm:"not null"`
	// NullTokens is the JSON array of the values the organisation's files
	// count as nulls; null means the engine's defaults (see NullTokenList).
	NullTokens *string `gorm:"type:text"`
}

// User belongs to one organisation. An e-mail address is unique within an
// organisation (idx_users_org_email), and one person may hold accounts in
// several; login looks an address up across organisations
// (idx_users_email_lookup). Both indexes are migration
// 202611260201_users_email_per_org's.
type User struct {
	ID              string `gorm:"primaryKey;size:36"`
	OrgID           string `gorm:"size:36;not null;index;uniqueIndex:idx_users_org_email,priority:1"`
	Email           string `gorm:"size:320;not null;uniqueIndex:idx_users_org_email,priority:2;index:idx_users_email_lookup"`
	PasswordHash    string `gorm:"size:200;not null"`
	Role            Role   `gorm:"size:16;not null"`
	EmailVerifiedAt *time.Time
	// TOTPSecret is the encrypted seed of an enabled authenticator;
	// TOTPPendingSecret the encrypted seed between setup and enable.
	TOTPSecret        string `gorm:"column:totp_secret;size:300;not null;default:''"`
	TOTPPendingSecret string `gorm:"column:totp_pending_secret;size:300;not null;default:''"`
	TOTPEnabled       bool   `gorm:"column:totp_enabled;not null;default:false"`
	// TOTPLastStep is the time step of the last accepted code: a code of the
	// same or an earlier step is refused, so no code works twice.
	TOTPLastStep int64     `gorm:"column:totp_last_step;not null;default:0"`
	CreatedAt    time.Time `gorm:"not null"`
	UpdatedAt    time.Time `gorm:"not null"`
}

// RefreshToken is one issued refresh token, stored only as a SHA-256 hash.
// Tokens of one login share a family; using a rotated token again revokes
// the whole family (reuse detection).
type RefreshToken struct {
	ID        string    `gorm:"primaryKey;size:36"`
	OrgID     string    `gorm:"size:36;not null;index"`
	UserID    string    `gorm:"size:36;not null;index"`
	FamilyID  string    `gorm:"size:36;not null;index"`
	TokenHash string    `gorm:"size:64;not null;uniqueIndex"`
	ExpiresAt time.Time `gorm:"not null;index"`
	RotatedAt *time.Time
	RevokedAt *time.Time
	CreatedAt time.Time `gorm:"not null"`
}

// EmailVerification is a one-time e-mail verification token (hashed).
type EmailVerification struct {
	ID        string    `gorm:"primaryKey;size:36"`
	OrgID     string    `gorm:"size:36;not null;index"`
	UserID    string    `gorm:"size:36;not null;index"`
	TokenHash string    `gorm:"size:64;not null;uniqueIndex"`
	ExpiresAt time.Time `gorm:"not null;index"`
	UsedAt    *time.Time
	CreatedAt time.Time `gorm:"not null"`
}

// APIKey is an integration credential, stored only as a SHA-256 hash; the
// key itself is shown once at creation.
type APIKey struct {
	ID         string    `gorm:"primaryKey;size:36"`
	OrgID      string    `gorm:"size:36;not null;index"`
	Name       string    `gorm:"size:200;not null"`
	Scope      Scope     `gorm:"size:16;not null"`
	KeyPrefix  string    `gorm:"size:32;not null"`
	KeyHash    string    `gorm:"size:64;not null;uniqueIndex"`
	CreatedBy  string    `gorm:"size:36;not null"`
	CreatedAt  time.Time `gorm:"not null"`
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// AuditLog is one append-only audit entry. The database itself refuses
// UPDATE and DELETE on this table (see the migrations).
type AuditLog struct {
	ID        string    `gorm:"primaryKey;size:36"`
	OrgID     string    `gorm:"size:36;not null;index:idx_audit_org_created,priority:1"`
	UserID    *string   `gorm:"size:36"`
	Event     string    `gorm:"size:64;not null;index"`
	IPAddress string    `gorm:"size:64;not null;default:''"`
	Metadata  string    `gorm:"type:text;not null"`
	CreatedAt time.Time `gorm:"not null;index:idx_audit_org_created,priority:2"`
}

// NewID returns a random UUID string.
func NewID() string { return uuid.NewString() }

// newTimeOrderedID returns a UUIDv7, whose order follows creation time; audit
// entries use it so "newest first" is stable within one timestamp.
func newTimeOrderedID() string {
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.NewString()
	}
	return id.String()
}
