package api

import (
	"encoding/json"
	"time"

	"github.com/dqs/dqs/models"
)

// The JSON shapes of responses. Credentials and secrets have no field here,
// so they cannot be rendered by mistake.

type userView struct {
	ID            string     `json:"id"`
	Email         string     `json:"email"`
	Role          string     `json:"role"`
	TOTPEnabled   bool       `json:"totp_enabled"`
	EmailVerified bool       `json:"email_verified"`
	CreatedAt     time.Time  `json:"created_at"`
	VerifiedAt    *time.Time `json:"email_verified_at"`
}

func viewUser(u *models.User) userView {
	return userView{ID: u.ID, Email: u.Email, Role: string(u.Role), TOTPEnabled: u.TOTPEnabled,
		EmailVerified: u.EmailVerifiedAt != nil, VerifiedAt: utcPtr(u.EmailVerifiedAt), CreatedAt: u.CreatedAt.UTC()}
}

type orgView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func viewOrg(o *models.Organization) orgView { return orgView{ID: o.ID, Name: o.Name} }

type settingsView struct {
	RetentionMode      string  `json:"retention_mode"`
	RetentionDays      int     `json:"retention_days"`
	AnomalySensitivity string  `json:"anomaly_sensitivity"`
	TrustThreshold     float64 `json:"trust_threshold"`
	GDPRCheckEnabled   bool    `json:"gdpr_check_enabled"`
	// AnomalyExplanations: the anomaly explainer adds its reading of each
	// table anomaly detection flags to the fix inbox.
	AnomalyExplanations bool `json:"anomaly_explanations"`
	// NullTokens are the values new jobs count as nulls.
	NullTokens []string `json:"null_tokens"`
}

func viewSettings(o *models.Organization) settingsView {
	return settingsView{RetentionMode: o.RetentionMode, RetentionDays: o.RetentionDays,
		AnomalySensitivity: o.AnomalySensitivity, TrustThreshold: o.TrustThreshold, GDPRCheckEnabled: o.GDPRCheckEnabled,
		AnomalyExplanations: o.AnomalyExplanations, NullTokens: effectiveNullTokens(o.NullTokenList())}
}

type apiKeyView struct {
	ID         string     `json:"id"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope"`
	KeyPrefix  string     `json:"key_prefix"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	// Key is set only in the creation response.
	Key string `json:"key,omitempty"`
}

func viewAPIKey(k *models.APIKey) apiKeyView {
	return apiKeyView{ID: k.ID, Name: k.Name, Scope: string(k.Scope), KeyPrefix: k.KeyPrefix,
		CreatedAt: k.CreatedAt.UTC(), LastUsedAt: utcPtr(k.LastUsedAt)}
}

type auditView struct {
	ID        string          `json:"id"`
	Event     string          `json:"event"`
	UserEmail *string         `json:"user_email,omitempty"`
	IPAddress string          `json:"ip_address"`
	CreatedAt time.Time       `json:"created_at"`
	Metadata  json.RawMessage `json:"metadata"`
}

func viewAudit(e *models.AuditEntry) auditView {
	meta := json.RawMessage(e.Metadata)
	if !json.Valid(meta) {
		meta = json.RawMessage("{}")
	}
	return auditView{ID: e.ID, Event: e.Event, UserEmail: e.UserEmail, IPAddress: e.IPAddress,
		CreatedAt: e.CreatedAt.UTC(), Metadata: meta}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// views maps stored items to their views, for a list's data.
func views[T, V any](items []T, view func(*T) V) []V {
	out := make([]V, len(items))
	for i := range items {
		out[i] = view(&items[i])
	}
	return out
}
