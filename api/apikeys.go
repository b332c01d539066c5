package api

import (
	"net/http"
	"strings"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/gin-gonic/gin"
)

type createAPIKeyRequest struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
}

// createAPIKey issues a key; the key itself is in this response only.
func (s *Server) createAPIKey(c *gin.Context) error {
	p := mustPrincipal(c)
	var req createAPIKeyRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	name := strings.TrimSpace(req.Name)
	if name == "" || len(name) > 200 {
		return errs.BadRequest("name is required (at most 200 characters)")
	}
	scope := models.Scope(req.Scope)
	if !scope.Valid() {
		return errs.BadRequest("scope must be one of read, scan, write, admin")
	}
	key, prefix := auth.NewAPIKey()
	k := &models.APIKey{Name: name, Scope: scope, KeyPrefix: prefix, KeyHash: auth.HashToken(key), CreatedBy: p.userID(), CreatedAt: time.Now().UTC()}
	if err := s.Stores.APIKeys.Create(c.Request.Context(), p.OrgID, k); err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.APIKeyCreated, IP: clientIP(c),
		Metadata: map[string]any{"api_key_id": k.ID, "key_prefix": prefix, "name": name, "scope": scope}})
	v := viewAPIKey(k)
	v.Key = key
	return respond(c, http.StatusCreated, v)
}

// listAPIKeys lists active keys, never the keys themselves.
func (s *Server) listAPIKeys(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	keys, total, err := s.Stores.APIKeys.List(c.Request.Context(), p.OrgID, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]apiKeyView, len(keys))
	for i := range keys {
		out[i] = viewAPIKey(&keys[i])
	}
	return respondList(c, out, total, pg)
}

// revokeAPIKey revokes a key at once.
func (s *Server) revokeAPIKey(c *gin.Context) error {
	p := mustPrincipal(c)
	k, err := s.Stores.APIKeys.Revoke(c.Request.Context(), p.OrgID, c.Param("id"), time.Now().UTC())
	if err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.APIKeyRevoked, IP: clientIP(c),
		Metadata: map[string]any{"api_key_id": k.ID, "key_prefix": k.KeyPrefix}})
	return deleted(c, k.ID)
}
