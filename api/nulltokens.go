package api

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/profile"
	"github.com/gin-gonic/gin"
)

// Null tokens in requests. A list nil means the engine's defaults; an
// empty list, no tokens at all.

// nullTokensFromJSON reads a request's null_tokens: absent (set false),
// null (the defaults) or an array of strings.
func nullTokensFromJSON(raw json.RawMessage) (tokens []string, set bool, err error) {
	if len(raw) == 0 {
		return nil, false, nil
	}
	if string(raw) == "null" {
		return nil, true, nil
	}
	if err := json.Unmarshal(raw, &tokens); err != nil {
		return nil, false, errs.BadRequest("null_tokens must be an array of strings, or null for the defaults")
	}
	if tokens == nil {
		tokens = []string{}
	}
	return tokens, true, checkNullTokens(tokens)
}

// nullTokensFromQuery reads the query's null_tokens, a comma-separated
// list ("" for none); set is false when the query has none.
func nullTokensFromQuery(c *gin.Context) (tokens []string, set bool, err error) {
	raw, ok := c.GetQuery("null_tokens")
	if !ok {
		return nil, false, nil
	}
	tokens = []string{}
	if raw != "" {
		tokens = strings.Split(raw, ",")
	}
	return tokens, true, checkNullTokens(tokens)
}

// checkNullTokens refuses a list the engine cannot use.
func checkNullTokens(tokens []string) error {
	_, err := dialectOf(tokens)
	return err
}

// dialectOf is the dialect of files read with the given null tokens.
func dialectOf(tokens []string) (analysis.Dialect, error) {
	d, err := analysis.WithNullTokens(tokens)
	if err != nil {
		return d, errs.BadRequest("null_tokens: %s", err.Error())
	}
	return d, nil
}

// effectiveNullTokens is the list a response shows: the defaults spelt out
// for nil.
func effectiveNullTokens(tokens []string) []string {
	if tokens == nil {
		return slices.Clone(profile.DefaultNullTokens)
	}
	return tokens
}

// uploadNullTokens returns the caller's organisation and the null tokens
// of an upload: the query's null_tokens if it has some, else the
// organisation's.
func (s *Server) uploadNullTokens(c *gin.Context, p *principal) (*models.Organization, []string, error) {
	org, err := s.Stores.Orgs.Get(c.Request.Context(), p.OrgID)
	if err != nil {
		return nil, nil, err
	}
	tokens, set, err := nullTokensFromQuery(c)
	if err != nil {
		return nil, nil, err
	}
	if !set {
		tokens = org.NullTokenList()
	}
	return org, tokens, nil
}
