package api

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/mail"
	"slices"
	"strconv"
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
	// OrganizationID picks the account when the address and password
	// match accounts in several organisations.
	OrganizationID string `json:"organization_id"`
}

var errBadLogin = errs.Unauthorized("invalid e-mail or password")

// login checks the password; with 2FA on it answers a temp_token instead
// of tokens. A failure says nothing about which part was wrong.
//
// An address may have accounts in several organisations: the password is
// checked against each (one argon2 check per account, so the time depends
// on the number of accounts, not on which one matches) and picks the
// account. When it matches more than one, organization_id must say which.
func (s *Server) login(c *gin.Context) error {
	var req loginRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Email == "" || req.Password == "" {
		return errs.BadRequest("email and password are required")
	}
	ctx := c.Request.Context()
	accounts, err := s.Stores.Users.ListByEmailForLogin(ctx, req.Email)
	if err != nil {
		return err
	}
	if req.OrganizationID != "" {
		accounts = slices.DeleteFunc(accounts, func(u models.User) bool { return u.OrgID != req.OrganizationID })
	}
	if len(accounts) == 0 {
		auth.CheckDummyPassword(req.Password)
		logger(c).Info("login failed: unknown e-mail")
		return errBadLogin
	}
	var matched []*models.User
	for i := range accounts {
		u := &accounts[i]
		ok, err := auth.CheckPassword(u.PasswordHash, req.Password)
		if err != nil {
			// One unreadable hash must not lock the person out of their
			// other accounts; it never matches.
			logger(c).Error("stored password hash unreadable", "org_id", u.OrgID, "user_id", u.ID, "error", err)
			continue
		}
		if ok {
			matched = append(matched, u)
		}
	}
	switch len(matched) {
	case 0:
		for i := range accounts {
			s.Audit.Record(audit.Entry{OrgID: accounts[i].OrgID, UserID: accounts[i].ID, Event: audit.LoginFailed, IP: clientIP(c),
				Metadata: map[string]any{"reason": "bad_password"}})
		}
		return errBadLogin
	case 1:
	default:
		return s.chooseOrganization(ctx, matched)
	}
	u := matched[0]
	if u.TOTPEnabled {
		temp, err := s.newTempToken(ctx, u)
		if err != nil {
			return err
		}
		return respond(c, http.StatusOK, gin.H{"requires_2fa": true, "temp_token": temp})
	}
	return s.completeLogin(c, u, "password")
}

// chooseOrganization answers a login whose address and password match
// accounts in several organisations: 400, naming organization_id and the
// organisations to choose from. The caller has just shown the password of
// each, so naming them reveals nothing the caller could not sign in to.
func (s *Server) chooseOrganization(ctx context.Context, matched []*models.User) error {
	choices := make([]string, 0, len(matched))
	for _, u := range matched {
		name := "?"
		if org, err := s.Stores.Orgs.Get(ctx, u.OrgID); err == nil {
			name = org.Name
		}
		choices = append(choices, fmt.Sprintf("%s (%q)", u.OrgID, name))
	}
	return errs.BadRequest("this e-mail address and password match accounts in %d organizations; "+
		"send organization_id set to one of: %s", len(matched), strings.Join(choices, ", "))
}

// newTempToken records a 2FA challenge for u and signs its temp_token, whose
// jti names the record: the record makes the token single-use and counts
// the codes tried with it.
func (s *Server) newTempToken(ctx context.Context, u *models.User) (string, error) {
	id := models.NewID()
	if err := s.Stores.SecondFactor.CreateChallenge(ctx, u.OrgID, u.ID, id, time.Now().Add(twoFATokenTTL)); err != nil {
		return "", err
	}
	temp, _, err := s.Signer.IssueWithID(auth.Kind2FA, id, u.ID, u.OrgID, twoFATokenTTL)
	return temp, err
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

var errTempToken = errs.Unauthorized("invalid or expired temp_token; sign in again")

// totpComplete finishes a 2FA login with a one-time code. Codes are
// limited per temp_token (models.ChallengeMaxCodes, then the token is void)
// and per user over time whatever the token or client
// (models.UserMaxFailures within models.UserFailureWindow, then the second
// factor is locked); a temp_token is exchanged for a session once.
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
		return errTempToken
	}
	ctx := c.Request.Context()
	u, err := s.Stores.Users.Get(ctx, claims.OrgID, claims.Subject)
	if err != nil {
		if isNotFound(err) {
			return errTempToken
		}
		return err
	}
	if !u.TOTPEnabled {
		return errs.Unauthorized("two-factor authentication is not enabled; sign in again")
	}
	now := time.Now()
	attempt, err := s.Stores.SecondFactor.BeginAttempt(ctx, u.OrgID, u.ID, now)
	if err != nil {
		return lockedAnswer(c, err)
	}
	tried, err := s.Stores.SecondFactor.TryChallenge(ctx, u.OrgID, u.ID, claims.ID, now)
	if err != nil {
		// No code was checked: the attempt does not count.
		s.forgetAttempt(c, u, attempt)
		return err
	}
	secret, err := s.Secrets.Open(u.TOTPSecret)
	if err != nil {
		s.forgetAttempt(c, u, attempt)
		return err
	}
	step, ok := auth.MatchTOTP(secret, strings.TrimSpace(req.Code), now)
	wrong := errBadCode
	if ok {
		replayed := false
		err := s.Stores.DB.WithTx(ctx, func(ctx context.Context) error {
			if err := s.Stores.Users.ClaimTOTPStep(ctx, u.OrgID, u.ID, step); err != nil {
				replayed = errors.Is(err, errs.ErrUnauthorized)
				return err
			}
			return s.Stores.SecondFactor.ConsumeChallenge(ctx, u.OrgID, claims.ID, now)
		})
		if err == nil || !replayed {
			// A right code is no failure, whether or not it won the token.
			s.forgetAttempt(c, u, attempt)
			if err != nil {
				return err
			}
			return s.completeLogin(c, u, "password+totp")
		}
		wrong = errs.Public(err)
	}
	s.Audit.Record(audit.Entry{OrgID: u.OrgID, UserID: u.ID, Event: audit.LoginFailed, IP: clientIP(c),
		Metadata: map[string]any{"reason": "bad_totp_code"}})
	msg := wrong.Message
	if tried >= models.ChallengeMaxCodes {
		s.Audit.Record(audit.Entry{OrgID: u.OrgID, UserID: u.ID, Event: audit.TwoFALocked, IP: clientIP(c),
			Metadata: map[string]any{"reason": "temp_token_codes", "codes": tried}})
		msg += "; that was the last code this sign-in allows, sign in again"
	}
	if until := s.failAttempt(c, u, attempt, "login"); until != nil {
		msg += fmt.Sprintf("; too many wrong codes: two-factor authentication is locked for %d minutes", int(models.UserLockout.Minutes()))
	}
	return errs.Unauthorized("%s", msg)
}

// forgetAttempt removes an attempt whose code was right or never checked.
// Best effort: a leftover only counts against the user within the window.
func (s *Server) forgetAttempt(c *gin.Context, u *models.User, attempt string) {
	if err := s.Stores.SecondFactor.ForgetAttempt(c.Request.Context(), u.OrgID, attempt); err != nil {
		logger(c).Error("second-factor attempt not removed", "org_id", u.OrgID, "user_id", u.ID, "error", err)
	}
}

// failAttempt keeps an attempt as a wrong code; when that locks the user's
// second factor it writes 2fa_locked and answers the end of the lock.
func (s *Server) failAttempt(c *gin.Context, u *models.User, attempt, during string) *time.Time {
	until, err := s.Stores.SecondFactor.FailAttempt(c.Request.Context(), u.OrgID, u.ID, attempt, time.Now())
	if err != nil {
		// The attempt row stays and still counts as a failure.
		logger(c).Error("second-factor failure not counted", "org_id", u.OrgID, "user_id", u.ID, "error", err)
		return nil
	}
	if until != nil {
		s.Audit.Record(audit.Entry{OrgID: u.OrgID, UserID: u.ID, Event: audit.TwoFALocked, IP: clientIP(c),
			Metadata: map[string]any{"reason": "user_failures", "during": during, "failures": models.UserMaxFailures,
				"window_minutes": int(models.UserFailureWindow.Minutes()), "locked_until": until.UTC().Format(time.RFC3339)}})
	}
	return until
}

// lockedAnswer turns a lock of the second factor into 429 rate_limited
// with Retry-After; any other error passes through.
func lockedAnswer(c *gin.Context, err error) error {
	var locked *models.LockedError
	if !errors.As(err, &locked) {
		return err
	}
	secs := int(math.Ceil(time.Until(locked.Until).Seconds()))
	c.Header("Retry-After", strconv.Itoa(max(secs, 1)))
	return &errs.Error{Status: http.StatusTooManyRequests, Code: "rate_limited",
		Message: "too many wrong one-time codes for this account: two-factor authentication is locked; retry after the time in the Retry-After header"}
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
	// A stolen session must not be able to guess its way to turning 2FA
	// off: the codes count against the same per-user limit as at login.
	attempt, err := s.Stores.SecondFactor.BeginAttempt(c.Request.Context(), p.OrgID, p.User.ID, time.Now())
	if err != nil {
		return lockedAnswer(c, err)
	}
	if err := s.checkTOTP(c, p.User, p.User.TOTPSecret, req.Code); err != nil {
		if errors.Is(err, errs.ErrUnauthorized) {
			// The session is valid; only the code is wrong.
			msg := errs.Public(err).Message
			if until := s.failAttempt(c, p.User, attempt, "disable"); until != nil {
				msg += fmt.Sprintf("; too many wrong codes: two-factor authentication is locked for %d minutes", int(models.UserLockout.Minutes()))
			}
			return errs.BadRequest("%s", msg)
		}
		s.forgetAttempt(c, p.User, attempt)
		return err
	}
	s.forgetAttempt(c, p.User, attempt)
	if err := s.Stores.Users.DisableTOTP(c.Request.Context(), p.OrgID, p.User.ID); err != nil {
		return err
	}
	s.Audit.Record(audit.Entry{OrgID: p.OrgID, UserID: p.User.ID, Event: audit.TwoFADisabled, IP: clientIP(c)})
	return respond(c, http.StatusOK, gin.H{"totp_enabled": false})
}
