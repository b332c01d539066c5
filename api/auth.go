package api

import (
	"context"
	"errors"
	"net/http"
	"net/mail"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/gin-gonic/gin"
)

// twoFATokenTTL is how long a temp_token may complete a login (DECISIONS.md).
const twoFATokenTTL = 5 * time.Minute

// refreshTokenBytes is the entropy of a refresh token.
const refreshTokenBytes = 32

type tokenSet struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
}

// newAccessToken signs a short-lived access token for u.
func (s *Server) newAccessToken(u *models.User) (string, error) {
	tok, _, err := s.Signer.Issue(auth.KindAccess, u.ID, u.OrgID, s.Config.AccessTokenTTL)
	return tok, err
}

// startSession issues a token set for a new login: a new refresh family.
func (s *Server) startSession(ctx context.Context, u *models.User) (*tokenSet, error) {
	access, err := s.newAccessToken(u)
	if err != nil {
		return nil, err
	}
	refresh := auth.RandomToken(refreshTokenBytes)
	now := time.Now().UTC()
	rt := &models.RefreshToken{UserID: u.ID, FamilyID: models.NewID(), TokenHash: auth.HashToken(refresh), ExpiresAt: now.Add(s.Config.RefreshTokenTTL)}
	if err := s.Stores.RefreshTokens.Create(ctx, u.OrgID, rt); err != nil {
		return nil, err
	}
	return &tokenSet{AccessToken: access, RefreshToken: refresh, TokenType: "bearer", ExpiresIn: int(s.Config.AccessTokenTTL.Seconds())}, nil
}

type registerRequest struct {
	Email            string `json:"email"`
	Password         string `json:"password"`
	OrganizationName string `json:"organization_name"`
}

// validateCredentials checks the e-mail and password of a new user.
func validateCredentials(email, password string) error {
	if !validEmail(email) {
		return errs.BadRequest("email must be a valid e-mail address")
	}
	if err := auth.ValidatePassword(password, email); err != nil {
		return errs.BadRequest("%s", err.Error())
	}
	return nil
}

// validEmail accepts a bare address (no display name) of printable
// characters with a dotted domain, as net/mail parses it.
func validEmail(e string) bool {
	e = strings.TrimSpace(e)
	if len(e) > 320 || !utf8.ValidString(e) {
		return false
	}
	for _, r := range e {
		if !unicode.IsPrint(r) || r == utf8.RuneError {
			return false
		}
	}
	a, err := mail.ParseAddress(e)
	if err != nil || a.Name != "" || a.Address != e {
		return false
	}
	at := strings.LastIndexByte(e, '@')
	return at > 0 && strings.Contains(e[at:], ".")
}

// register creates an organisation with its first user as admin.
func (s *Server) register(c *gin.Context) error {
	var req registerRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if err := validateCredentials(req.Email, req.Password); err != nil {
		return err
	}
	name := strings.TrimSpace(req.OrganizationName)
	if name == "" || len(name) > 200 {
		return errs.BadRequest("organization_name is required (at most 200 characters)")
	}
	hash, err := auth.HashPassword(req.Password)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	org := &models.Organization{Name: name}
	user := &models.User{Email: req.Email, PasswordHash: hash, Role: models.RoleAdmin}
	err = s.Stores.DB.WithTx(ctx, func(ctx context.Context) error {
		if err := s.Stores.Orgs.Create(ctx, org); err != nil {
			return err
		}
		return s.Stores.Users.Create(ctx, org.ID, user)
	})
	if err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: org.ID, UserID: user.ID, Event: audit.Register, IP: clientIP(c),
		Metadata: map[string]any{"email": user.Email, "organization_name": org.Name}})
	if err := s.Workflows.SendVerificationEmail(ctx, org.ID, user.ID); err != nil {
		// The account exists; the e-mail can be re-sent. Do not fail the sign-up.
		logger(c).Error("verification e-mail not started", "org_id", org.ID, "user_id", user.ID, "error", err)
	}
	ts, err := s.startSession(ctx, user)
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, registerResponse{tokenSet: *ts, User: viewUser(user), Organization: viewOrg(org)})
}

// registerResponse is the token set plus the new user and organisation.
type registerResponse struct {
	tokenSet
	User         userView `json:"user"`
	Organization orgView  `json:"organization"`
}

type tokenRequest struct {
	Token string `json:"token"`
}

// verifyEmail consumes an e-mailed verification token.
func (s *Server) verifyEmail(c *gin.Context) error {
	var req tokenRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Token == "" {
		return errs.BadRequest("token is required")
	}
	ctx := c.Request.Context()
	now := time.Now().UTC()
	var user *models.User
	err := s.Stores.DB.WithTx(ctx, func(ctx context.Context) error {
		v, err := s.Stores.EmailVerifications.Consume(ctx, auth.HashToken(req.Token), now)
		if err != nil {
			return err
		}
		if err := s.Stores.Users.MarkEmailVerified(ctx, v.OrgID, v.UserID, now); err != nil {
			return err
		}
		user, err = s.Stores.Users.Get(ctx, v.OrgID, v.UserID)
		return err
	})
	if err != nil {
		if isNotFound(err) {
			return errs.BadRequest("invalid or expired verification token")
		}
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: user.OrgID, UserID: user.ID, Event: audit.EmailVerified, IP: clientIP(c)})
	return respond(c, http.StatusOK, gin.H{"verified": true, "user": viewUser(user)})
}

type loginRequest struct {
	Email    string `json:"email"`
	Password string `json:"password"`
}

var errBadLogin = errs.Unauthorized("invalid e-mail or password")

// login checks the password; with 2FA on it answers a temp_token instead
// of tokens. A failure says nothing about which part was wrong.
func (s *Server) login(c *gin.Context) error {
	var req loginRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Email == "" || req.Password == "" {
		return errs.BadRequest("email and password are required")
	}
	ctx := c.Request.Context()
	u, err := s.Stores.Users.FindByEmailForLogin(ctx, req.Email)
	if err != nil {
		if isNotFound(err) {
			auth.CheckDummyPassword(req.Password)
			logger(c).Info("login failed: unknown e-mail")
			return errBadLogin
		}
		return err
	}
	ok, err := auth.CheckPassword(u.PasswordHash, req.Password)
	if err != nil {
		return err
	}
	if !ok {
		s.Audit.Record(audit.Entry{OrgID: u.OrgID, UserID: u.ID, Event: audit.LoginFailed, IP: clientIP(c),
			Metadata: map[string]any{"reason": "bad_password"}})
		return errBadLogin
	}
	if u.TOTPEnabled {
		temp, _, err := s.Signer.Issue(auth.Kind2FA, u.ID, u.OrgID, twoFATokenTTL)
		if err != nil {
			return err
		}
		return respond(c, http.StatusOK, gin.H{"requires_2fa": true, "temp_token": temp})
	}
	return s.completeLogin(c, u, "password")
}

func (s *Server) completeLogin(c *gin.Context, u *models.User, method string) error {
	ts, err := s.startSession(c.Request.Context(), u)
	if err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: u.OrgID, UserID: u.ID, Event: audit.Login, IP: clientIP(c),
		Metadata: map[string]any{"method": method}})
	return respond(c, http.StatusOK, ts)
}

type totpCompleteRequest struct {
	TempToken string `json:"temp_token"`
	Code      string `json:"code"`
}

// totpComplete finishes a 2FA login with a one-time code.
func (s *Server) totpComplete(c *gin.Context) error {
	var req totpCompleteRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.TempToken == "" || req.Code == "" {
		return errs.BadRequest("temp_token and code are required")
	}
	claims, err := s.Signer.Verify(req.TempToken, auth.Kind2FA)
	if err != nil {
		return errs.Unauthorized("invalid or expired temp_token; sign in again")
	}
	ctx := c.Request.Context()
	u, err := s.Stores.Users.Get(ctx, claims.OrgID, claims.Subject)
	if err != nil {
		if isNotFound(err) {
			return errs.Unauthorized("invalid or expired temp_token; sign in again")
		}
		return err
	}
	if !u.TOTPEnabled {
		return errs.Unauthorized("two-factor authentication is not enabled; sign in again")
	}
	if err := s.checkTOTP(c, u, u.TOTPSecret, req.Code); err != nil {
		s.Audit.Record(audit.Entry{OrgID: u.OrgID, UserID: u.ID, Event: audit.LoginFailed, IP: clientIP(c),
			Metadata: map[string]any{"reason": "bad_totp_code"}})
		return err
	}
	return s.completeLogin(c, u, "password+totp")
}

var errBadCode = errs.Unauthorized("invalid one-time code")

// checkTOTP verifies code against the sealed seed and claims its time step,
// so the same code never works twice.
func (s *Server) checkTOTP(c *gin.Context, u *models.User, sealed, code string) error {
	secret, err := s.Secrets.Open(sealed)
	if err != nil {
		return err
	}
	step, ok := auth.MatchTOTP(secret, strings.TrimSpace(code), time.Now())
	if !ok {
		return errBadCode
	}
	return s.Stores.Users.ClaimTOTPStep(c.Request.Context(), u.OrgID, u.ID, step)
}

type refreshRequest struct {
	RefreshToken string `json:"refresh_token"`
}

// refresh rotates a refresh token; reuse of a rotated one revokes the family.
func (s *Server) refresh(c *gin.Context) error {
	var req refreshRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.RefreshToken == "" {
		return errs.BadRequest("refresh_token is required")
	}
	ctx := c.Request.Context()
	now := time.Now().UTC()
	next := auth.RandomToken(refreshTokenBytes)
	old, err := s.Stores.RefreshTokens.Rotate(ctx, auth.HashToken(req.RefreshToken),
		&models.RefreshToken{TokenHash: auth.HashToken(next), ExpiresAt: now.Add(s.Config.RefreshTokenTTL)}, now)
	if err != nil {
		if err == models.ErrRefreshReused {
			logger(c).Warn("refresh token reuse detected; family revoked")
		}
		return err
	}
	u, err := s.Stores.Users.Get(ctx, old.OrgID, old.UserID)
	if err != nil {
		if isNotFound(err) {
			return errs.Unauthorized("invalid or expired refresh token")
		}
		return err
	}
	access, err := s.newAccessToken(u)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, tokenSet{AccessToken: access, RefreshToken: next, TokenType: "bearer", ExpiresIn: int(s.Config.AccessTokenTTL.Seconds())})
}

// logout revokes the refresh token's family. It answers the same whether
// or not the token was known, so it cannot be used to test tokens.
func (s *Server) logout(c *gin.Context) error {
	var req refreshRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.RefreshToken == "" {
		return errs.BadRequest("refresh_token is required")
	}
	t, err := s.Stores.RefreshTokens.RevokeFamilyByHash(c.Request.Context(), auth.HashToken(req.RefreshToken), time.Now().UTC())
	if err != nil && !isNotFound(err) {
		return err
	}
	if t != nil {
		s.Audit.Record(audit.Entry{OrgID: t.OrgID, UserID: t.UserID, Event: audit.Logout, IP: clientIP(c)})
	}
	return respond(c, http.StatusOK, gin.H{"logged_out": true})
}

// me answers the caller and their organisation.
func (s *Server) me(c *gin.Context) error {
	p := mustPrincipal(c)
	org, err := s.Stores.Orgs.Get(c.Request.Context(), p.OrgID)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, gin.H{"user": viewUser(p.User), "organization": viewOrg(org)})
}

// totpSetup starts 2FA setup: a new seed, kept pending until a code from it
// is shown to totp/enable. The seed is returned this once.
func (s *Server) totpSetup(c *gin.Context) error {
	p := mustPrincipal(c)
	if p.User.TOTPEnabled {
		return errs.Conflict("two-factor authentication is already enabled; disable it first")
	}
	secret, url, err := auth.NewTOTPSecret(p.User.Email)
	if err != nil {
		return err
	}
	sealed, err := s.Secrets.Seal(secret)
	if err != nil {
		return err
	}
	if err := s.Stores.Users.SetPendingTOTP(c.Request.Context(), p.OrgID, p.User.ID, sealed); err != nil {
		return err
	}
	return respond(c, http.StatusOK, gin.H{"secret": secret, "otpauth_url": url})
}

type codeRequest struct {
	Code string `json:"code"`
}

// totpEnable turns 2FA on once a code from the pending seed is shown.
func (s *Server) totpEnable(c *gin.Context) error {
	p := mustPrincipal(c)
	var req codeRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Code == "" {
		return errs.BadRequest("code is required")
	}
	if p.User.TOTPEnabled {
		return errs.Conflict("two-factor authentication is already enabled")
	}
	if p.User.TOTPPendingSecret == "" {
		return errs.Conflict("no two-factor setup in progress; call /auth/totp/setup first")
	}
	secret, err := s.Secrets.Open(p.User.TOTPPendingSecret)
	if err != nil {
		return err
	}
	step, ok := auth.MatchTOTP(secret, strings.TrimSpace(req.Code), time.Now())
	if !ok {
		return errs.BadRequest("invalid one-time code; check the authenticator's clock and try the current code")
	}
	if err := s.Stores.Users.EnableTOTP(c.Request.Context(), p.OrgID, p.User.ID, p.User.TOTPPendingSecret, step); err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.User.ID, Event: audit.TwoFAEnabled, IP: clientIP(c)})
	return respond(c, http.StatusOK, gin.H{"totp_enabled": true})
}

// totpDisable turns 2FA off; it needs a current code, not only a session.
func (s *Server) totpDisable(c *gin.Context) error {
	p := mustPrincipal(c)
	var req codeRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Code == "" {
		return errs.BadRequest("code is required")
	}
	if !p.User.TOTPEnabled {
		return errs.Conflict("two-factor authentication is not enabled")
	}
	if err := s.checkTOTP(c, p.User, p.User.TOTPSecret, req.Code); err != nil {
		if errors.Is(err, errs.ErrUnauthorized) {
			// The session is valid; only the code is wrong.
			return errs.BadRequest("%s", errs.Public(err).Message)
		}
		return err
	}
	if err := s.Stores.Users.DisableTOTP(c.Request.Context(), p.OrgID, p.User.ID); err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.User.ID, Event: audit.TwoFADisabled, IP: clientIP(c)})
	return respond(c, http.StatusOK, gin.H{"totp_enabled": false})
}
