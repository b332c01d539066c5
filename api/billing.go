package api

import (
	"net/http"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/errs"
	"github.com/gin-gonic/gin"
)

// maxCreditsPerCall bounds one credit so a typo cannot mint billions.
const maxCreditsPerCall = 1_000_000

// balance answers the organisation's token balance.
func (s *Server) balance(c *gin.Context) error {
	p := mustPrincipal(c)
	org, err := s.Stores.Orgs.Get(c.Request.Context(), p.OrgID)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, gin.H{"tokens": org.TokenBalance})
}

type creditsRequest struct {
	Tokens int64 `json:"tokens"`
}

// addCredits adds tokens to the balance (admin).
func (s *Server) addCredits(c *gin.Context) error {
	p := mustPrincipal(c)
	var req creditsRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Tokens < 1 || req.Tokens > maxCreditsPerCall {
		return errs.BadRequest("tokens must be an integer between 1 and %d", maxCreditsPerCall)
	}
	balance, err := s.Stores.Orgs.AddTokens(c.Request.Context(), p.OrgID, req.Tokens)
	if err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.userID(), Event: audit.CreditsAdded, IP: clientIP(c),
		Metadata: map[string]any{"tokens_added": req.Tokens, "balance": balance}})
	return respond(c, http.StatusOK, gin.H{"tokens": balance})
}
