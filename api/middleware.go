package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/ratelimit"
	"github.com/gin-gonic/gin"
)

var errNoRoute = errs.NotFound("endpoint")

const (
	ctxLogger    = "dqs.logger"
	ctxPrincipal = "dqs.principal"
	ctxAuthErr   = "dqs.auth_error"
)

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{8,64}$`)

// requestContext gives each request an id (kept from X-Request-ID when it
// is sane) and a logger carrying it, and writes one log line per request.
// The line names the route template, never the raw URL, so a token in a
// query string cannot reach the logs.
func (s *Server) requestContext(c *gin.Context) {
	id := c.GetHeader("X-Request-ID")
	if !validRequestID.MatchString(id) {
		id = auth.RandomToken(12)
	}
	c.Header("X-Request-ID", id)
	log := s.Logger.With("request_id", id)
	c.Set(ctxLogger, log)
	start := time.Now()
	c.Next()
	attrs := []any{"method", c.Request.Method, "route", c.FullPath(), "status", c.Writer.Status(),
		"duration_ms", time.Since(start).Milliseconds(), "ip", c.ClientIP()}
	if p := principalOf(c); p != nil {
		attrs = append(attrs, "org_id", p.OrgID)
	}
	log.Info("request", attrs...)
}

// recoverPanics turns a panic into a 500 envelope; the stack is logged.
func (s *Server) recoverPanics(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			logger(c).Error("panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			renderError(c, errs.ErrInternal)
		}
	}()
	c.Next()
}

func logger(c *gin.Context) *slog.Logger {
	if l, ok := c.Get(ctxLogger); ok {
		return l.(*slog.Logger)
	}
	return slog.Default()
}

// principal is who is calling: a user with an access token, or an API key.
type principal struct {
	OrgID string
	User  *models.User   // set for access tokens
	Key   *models.APIKey // set for API keys
}

// role is the caller's role; an API key with scope admin counts as admin.
func (p *principal) role() models.Role {
	if p.User != nil {
		return p.User.Role
	}
	if p.Key.Scope == models.ScopeAdmin {
		return models.RoleAdmin
	}
	return models.RoleMember
}

// userID is the acting user's id, empty for API keys.
func (p *principal) userID() string {
	if p.User != nil {
		return p.User.ID
	}
	return ""
}

// actorID is the id of whoever acts: the user, or the API key.
func (p *principal) actorID() string {
	if p.User != nil {
		return p.User.ID
	}
	return p.Key.ID
}

// limitKey identifies the caller for per-user limits.
func (p *principal) limitKey() string {
	if p.User != nil {
		return "user:" + p.User.ID
	}
	return "key:" + p.Key.ID
}

func principalOf(c *gin.Context) *principal {
	if p, ok := c.Get(ctxPrincipal); ok {
		return p.(*principal)
	}
	return nil
}

// mustPrincipal returns the caller of an authenticated route.
func mustPrincipal(c *gin.Context) *principal {
	p := principalOf(c)
	if p == nil {
		panic("api: authenticated route without a principal")
	}
	return p
}

// chain returns the middleware and handler of route r, in order: identify
// the caller (without rejecting yet, so rate-limit headers go on 401s too),
// count the request, authorise it, handle it.
func (s *Server) chain(r route) []gin.HandlerFunc {
	chain := []gin.HandlerFunc{s.identify(r), s.rateLimit(r), s.authorize(r)}
	if r.Limit == limitBilling {
		// Counted only once authorised, so refused callers cannot use up
		// the organisation's quota and lock its admins out.
		chain = append(chain, s.orgLimit)
	}
	return append(chain, r.Handle.gin())
}

// identify reads the bearer credential. It records the principal or the
// reason the credential was refused; authorize decides what that means.
func (s *Server) identify(r route) gin.HandlerFunc {
	return func(c *gin.Context) {
		if r.Access == Public {
			return
		}
		h := c.GetHeader("Authorization")
		if h == "" && r.QueryToken && c.Query("token") != "" {
			h = "Bearer " + c.Query("token")
		}
		scheme, tok, ok := strings.Cut(h, " ")
		if h == "" {
			c.Set(ctxAuthErr, errs.Unauthorized("missing credentials: send Authorization: Bearer <access token or API key>"))
			return
		}
		if !ok || !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(tok) == "" {
			c.Set(ctxAuthErr, errs.Unauthorized("malformed Authorization header: want Bearer <token>"))
			return
		}
		tok = strings.TrimSpace(tok)
		var p *principal
		var err error
		if auth.LooksLikeAPIKey(tok) {
			p, err = s.principalFromKey(c.Request.Context(), tok)
		} else {
			p, err = s.principalFromAccessToken(c.Request.Context(), tok)
		}
		if err != nil {
			c.Set(ctxAuthErr, err)
			return
		}
		c.Set(ctxPrincipal, p)
	}
}

var errBadAccessToken = errs.Unauthorized("invalid or expired access token")

func (s *Server) principalFromAccessToken(ctx context.Context, tok string) (*principal, error) {
	claims, err := s.Signer.Verify(tok, auth.KindAccess)
	if err != nil {
		return nil, errBadAccessToken
	}
	// The user is read on every request, so a deleted user or a changed
	// role takes effect at once rather than when the token expires.
	u, err := s.Stores.Users.Get(ctx, claims.OrgID, claims.Subject)
	if err != nil {
		if isNotFound(err) {
			return nil, errBadAccessToken
		}
		return nil, err
	}
	return &principal{OrgID: u.OrgID, User: u}, nil
}

func (s *Server) principalFromKey(ctx context.Context, key string) (*principal, error) {
	k, err := s.Stores.APIKeys.AuthenticateByHash(ctx, auth.HashToken(key))
	if err != nil {
		return nil, err
	}
	return &principal{OrgID: k.OrgID, Key: k}, nil
}

// authorize rejects what the route does not allow: no or a bad credential
// (401), an API key on a session route (403 forbidden), a role too low (403
// forbidden naming the role) or a key scope too low (403 insufficient_scope
// naming the scope). A permitted API key use is audited.
func (s *Server) authorize(r route) gin.HandlerFunc {
	return func(c *gin.Context) {
		if r.Access == Public {
			return
		}
		p := principalOf(c)
		if p == nil {
			err, _ := c.Get(ctxAuthErr)
			if e, ok := err.(error); ok {
				renderError(c, e)
			} else {
				renderError(c, errs.ErrUnauthorized)
			}
			return
		}
		if p.Key != nil {
			if r.Access == Session {
				renderError(c, errs.Forbidden("API keys are not accepted on this endpoint; use a user access token"))
				return
			}
			if need := r.scope(); !p.Key.Scope.Includes(need) {
				renderError(c, errs.InsufficientScope(string(need)))
				return
			}
			s.recordKeyUse(c, p.Key)
		}
		if r.Role == models.RoleAdmin && p.role() != models.RoleAdmin {
			renderError(c, errs.Forbidden("this action requires the admin role"))
			return
		}
	}
}

func (s *Server) recordKeyUse(c *gin.Context, k *models.APIKey) {
	s.Audit.Record(audit.Entry{OrgID: k.OrgID, Event: audit.APIKeyUsed, IP: c.ClientIP(), Metadata: map[string]any{
		"key_prefix": k.KeyPrefix, "api_key_id": k.ID, "method": c.Request.Method, "route": c.FullPath(),
	}})
	if err := s.Stores.APIKeys.TouchLastUsed(c.Request.Context(), k.OrgID, k.ID, time.Now().UTC()); err != nil {
		logger(c).Warn("api key last_used_at not updated", "error", err)
	}
}

// limitCheck is one rule counted for a request.
type limitCheck struct {
	key  string
	rule ratelimit.Rule
}

// checks returns the limits a request counts against. Anonymous callers
// are counted per client IP; authenticated ones per user or API key (per
// organisation for billing).
func (s *Server) checks(c *gin.Context, class limitClass) []limitCheck {
	l := s.Config.Limits
	ip := "ip:" + c.ClientIP()
	switch class {
	case limitAuth:
		return []limitCheck{{"auth:" + ip, l.Auth}}
	case limitVerify:
		// The authentication endpoints' numbers, in a bucket of its own:
		// checking certificates must not lock an address out of login.
		return []limitCheck{{"verify:" + ip, l.Auth}}
	case limitWebSocket:
		return []limitCheck{{"ws:" + ip, l.WS}}
	}
	p := principalOf(c)
	who := ip
	if p != nil {
		who = p.limitKey()
	}
	out := []limitCheck{{"general:" + who, l.General}}
	switch class {
	case limitUpload:
		out = append(out, limitCheck{"upload:" + who, l.Upload})
	case limitJobs:
		out = append(out, limitCheck{"jobs:" + who, l.Jobs})
	}
	return out
}

// orgLimit counts an authorised billing request per organisation.
func (s *Server) orgLimit(c *gin.Context) {
	s.applyLimits(c, []limitCheck{{"billing:org:" + mustPrincipal(c).OrgID, s.Config.Limits.Billing}})
}

// rateLimit counts the request against its limits and sets the X-RateLimit
// headers from the tightest one; over a limit it answers 429 rate_limited
// with Retry-After. A limiter failure lets the request through (it is logged):
// an outage of a shared limiter store must not take the API down.
func (s *Server) rateLimit(r route) gin.HandlerFunc {
	return func(c *gin.Context) { s.applyLimits(c, s.checks(c, r.Limit)) }
}

// anonymousLimit counts unknown routes per IP so they carry headers too.
func (s *Server) anonymousLimit(c *gin.Context) {
	s.applyLimits(c, []limitCheck{{"general:ip:" + c.ClientIP(), s.Config.Limits.General}})
}

func (s *Server) applyLimits(c *gin.Context, checks []limitCheck) {
	var tightest *ratelimit.Result
	for _, chk := range checks {
		res, err := s.Limiter.Take(c.Request.Context(), chk.key, chk.rule)
		if err != nil {
			logger(c).Error("rate limiter failed; request let through", "error", err)
			continue
		}
		if !res.Allowed {
			setLimitHeaders(c, res)
			c.Header("Retry-After", strconv.Itoa(int(math.Ceil(max(res.RetryAfter.Seconds(), 1)))))
			renderError(c, errs.RateLimited())
			return
		}
		if tightest == nil || res.Remaining < tightest.Remaining {
			r := res
			tightest = &r
		}
	}
	// A later check of the same request (orgLimit) overrides the headers
	// only when it is tighter.
	if prev, err := strconv.Atoi(c.Writer.Header().Get("X-RateLimit-Remaining")); tightest != nil && (err != nil || tightest.Remaining < prev) {
		setLimitHeaders(c, *tightest)
	}
}

func setLimitHeaders(c *gin.Context, r ratelimit.Result) {
	c.Header("X-RateLimit-Limit", strconv.Itoa(r.Limit))
	c.Header("X-RateLimit-Remaining", strconv.Itoa(r.Remaining))
	// Round up so a client is never told to come back early.
	reset := r.Reset.Unix()
	if r.Reset.Nanosecond() > 0 {
		reset++
	}
	c.Header("X-RateLimit-Reset", strconv.FormatInt(reset, 10))
}

func isNotFound(err error) bool { return errors.Is(err, errs.ErrNotFound) }

// clientIP is the caller's address as the audit log records it.
func clientIP(c *gin.Context) string { return c.ClientIP() }
