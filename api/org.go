package api

import (
	"encoding/json"
	"net/http"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/retention"
	"github.com/gin-gonic/gin"
)

// anomalySensitivities are the allowed values of anomaly_sensitivity.
var anomalySensitivities = []string{"low", "medium", "high"}

func oneOf(v string, allowed []string) bool {
	for _, a := range allowed {
		if v == a {
			return true
		}
	}
	return false
}

// getSettings answers the organisation's settings.
func (s *Server) getSettings(c *gin.Context) error {
	p := mustPrincipal(c)
	org, err := s.Stores.Orgs.Get(c.Request.Context(), p.OrgID)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewSettings(org))
}

type settingsRequest struct {
	RetentionMode      *string  `json:"retention_mode"`
	RetentionDays      *int     `json:"retention_days"`
	AnomalySensitivity *string  `json:"anomaly_sensitivity"`
	TrustThreshold     *float64 `json:"trust_threshold"`
	GDPRCheckEnabled   *bool    `json:"gdpr_check_enabled"`
	// AnomalyExplanations turns the anomaly explainer on or off.
	AnomalyExplanations *bool `json:"anomaly_explanations"`
	// NullTokens: an array, or null for the defaults; absent leaves them.
	NullTokens json.RawMessage `json:"null_tokens"`
}

// updateSettings changes the given settings (admin). Turning the GDPR check
// off is audited as gdpr_check_disabled.
func (s *Server) updateSettings(c *gin.Context) error {
	p := mustPrincipal(c)
	var req settingsRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.RetentionMode != nil && !oneOf(*req.RetentionMode, retention.Modes) {
		return errs.BadRequest("retention_mode must be one of analysis_only, short_term, full_retention")
	}
	if req.RetentionDays != nil && (*req.RetentionDays < retention.MinDays || *req.RetentionDays > retention.MaxDays) {
		return errs.BadRequest("retention_days must be between %d and %d", retention.MinDays, retention.MaxDays)
	}
	if req.AnomalySensitivity != nil && !oneOf(*req.AnomalySensitivity, anomalySensitivities) {
		return errs.BadRequest("anomaly_sensitivity must be one of low, medium, high")
	}
	if req.TrustThreshold != nil && (*req.TrustThreshold < 0 || *req.TrustThreshold > 1) {
		return errs.BadRequest("trust_threshold must be between 0 and 1")
	}
	tokens, setTokens, err := nullTokensFromJSON(req.NullTokens)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	before, err := s.Stores.Orgs.Get(ctx, p.OrgID)
	if err != nil {
		return err
	}
	org, err := s.Stores.Orgs.UpdateSettings(ctx, p.OrgID, models.SettingsUpdate{
		RetentionMode: req.RetentionMode, RetentionDays: req.RetentionDays, AnomalySensitivity: req.AnomalySensitivity,
		TrustThreshold: req.TrustThreshold, GDPRCheckEnabled: req.GDPRCheckEnabled, AnomalyExplanations: req.AnomalyExplanations,
		SetNullTokens: setTokens, NullTokens: tokens,
	})
	if err != nil {
		return err
	}
	changes := map[string]any{}
	if req.RetentionMode != nil {
		changes["retention_mode"] = org.RetentionMode
	}
	if req.RetentionDays != nil {
		changes["retention_days"] = org.RetentionDays
	}
	if req.AnomalySensitivity != nil {
		changes["anomaly_sensitivity"] = org.AnomalySensitivity
	}
	if req.TrustThreshold != nil {
		changes["trust_threshold"] = org.TrustThreshold
	}
	if req.GDPRCheckEnabled != nil {
		changes["gdpr_check_enabled"] = org.GDPRCheckEnabled
	}
	if req.AnomalyExplanations != nil {
		changes["anomaly_explanations"] = org.AnomalyExplanations
	}
	if setTokens {
		changes["null_tokens"] = effectiveNullTokens(org.NullTokenList())
	}
	if len(changes) > 0 {
		s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.SettingsUpdated, IP: clientIP(c), Metadata: changes})
	}
	if before.GDPRCheckEnabled && !org.GDPRCheckEnabled {
		s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.GDPRCheckOff, IP: clientIP(c)})
	}
	return respond(c, http.StatusOK, viewSettings(org))
}
