package api_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models/modelstest"
)

var tokenInMail = regexp.MustCompile(`"token":"([A-Za-z0-9_-]+)"`)

// TestNewUserFlow walks the README's path on both databases: register, the
// verification e-mail delivered by the Temporal worker, verify, enable 2FA,
// log in with it, create an API key, use it, and read the audit log.
func TestNewUserFlow(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d})
			email := servicetest.Unique("ann")
			s := env.Register(email)

			// The verification e-mail goes through the SendVerificationEmail workflow.
			mail := env.WaitForMail(email, 30*time.Second)
			m := tokenInMail.FindStringSubmatch(mail)
			if m == nil {
				t.Fatalf("no token in e-mail:\n%s", mail)
			}
			// The link lands on a page that verifies only when its button POSTs.
			link := env.BaseURL + "/verify-email?token=" + m[1]
			if !strings.Contains(mail, link) {
				t.Fatalf("e-mail has no link %s:\n%s", link, mail)
			}
			page := env.Must(200, "GET", strings.TrimPrefix(link, env.BaseURL), "", nil)
			if !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(page.Raw), "/api/v1/auth/verify-email") {
				t.Fatalf("verification page = %s %.200s", page.Header.Get("Content-Type"), page.Raw)
			}
			env.Must(400, "POST", "/api/v1/auth/verify-email", "", map[string]any{"token": "not-a-token"})
			v := env.Must(200, "POST", "/api/v1/auth/verify-email", "", map[string]any{"token": m[1]}).Data()
			if v["verified"] != true {
				t.Fatalf("verify-email = %v", v)
			}
			if r := env.Do("POST", "/api/v1/auth/verify-email", "", map[string]any{"token": m[1]}); r.Status != 400 || r.ErrorCode() != "bad_request" {
				t.Fatalf("second use of a verification token = %d %s", r.Status, r.Raw)
			}
			me := env.Must(200, "GET", "/api/v1/auth/me", s.Access, nil).Data()
			if u := me["user"].(map[string]any); u["email_verified"] != true || u["role"] != "admin" || u["totp_enabled"] != false {
				t.Fatalf("me.user = %v", u)
			}

			// Enable 2FA with a code from the seed, as an authenticator would.
			setup := env.Must(200, "POST", "/api/v1/auth/totp/setup", s.Access, nil).Data()
			secret := setup["secret"].(string)
			if !strings.HasPrefix(setup["otpauth_url"].(string), "otpauth://totp/DQS:") {
				t.Fatalf("otpauth_url = %v", setup["otpauth_url"])
			}
			if r := env.Do("POST", "/api/v1/auth/totp/enable", s.Access, map[string]any{"code": "000000"}); r.Status != 400 {
				t.Fatalf("enable with a wrong code = %d %s", r.Status, r.Raw)
			}
			// Codes of successive steps (previous, current, next: all inside the
			// one-step skew) so the test never waits for the clock; each step
			// is later than the one before, as the replay guard requires.
			code := totpCode(t, secret, time.Now().Add(-30*time.Second))
			env.Must(200, "POST", "/api/v1/auth/totp/enable", s.Access, map[string]any{"code": code})

			// Password alone no longer signs in.
			lr := env.Must(200, "POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": s.Password}).Data()
			if lr["requires_2fa"] != true || lr["access_token"] != nil {
				t.Fatalf("login with 2FA on = %v", lr)
			}
			temp := lr["temp_token"].(string)
			// The temp token is not an access token.
			env.Must(401, "GET", "/api/v1/auth/me", temp, nil)
			// The code that enabled 2FA was used; it cannot complete a login.
			if r := env.Do("POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": temp, "code": code}); r.Status != 401 {
				t.Fatalf("replayed code = %d %s", r.Status, r.Raw)
			}
			next := totpCode(t, secret, time.Now())
			tokens := env.Must(200, "POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": temp, "code": next}).Data()
			if tokens["token_type"] != "bearer" || tokens["access_token"] == "" || tokens["refresh_token"] == "" {
				t.Fatalf("totp/complete = %v", tokens)
			}
			if r := env.Do("POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": temp, "code": next}); r.Status != 401 {
				t.Fatalf("same code twice = %d %s", r.Status, r.Raw)
			}
			access := tokens["access_token"].(string)

			// An API key, shown once, used on an endpoint that accepts keys.
			key := env.Must(201, "POST", "/api/v1/api-keys", access, map[string]any{"name": "ci", "scope": "read"}).Data()
			plain := key["key"].(string)
			if !regexp.MustCompile(`^dqs_live_[0-9A-Za-z]{40}$`).MatchString(plain) || key["key_prefix"] != plain[:17] {
				t.Fatalf("api key = %v", key)
			}
			list := env.Must(200, "GET", "/api/v1/api-keys", access, nil)
			if strings.Contains(string(list.Raw), plain) || len(list.List()) != 1 {
				t.Fatalf("key listing = %s", list.Raw)
			}
			settings := env.Must(200, "GET", "/api/v1/org/settings", plain, nil).Data()
			if settings["retention_mode"] != "short_term" || settings["retention_days"] != float64(30) {
				t.Fatalf("settings = %v", settings)
			}
			if r := env.Do("PATCH", "/api/v1/org/settings", plain, map[string]any{"retention_days": 7}); r.Status != 403 || r.ErrorCode() != "insufficient_scope" || !strings.Contains(r.ErrorMessage(), "admin") {
				t.Fatalf("read key on an admin route = %d %s", r.Status, r.Raw)
			}

			// The audit log has every step, newest first, with the acting user.
			env.FlushAudit()
			logs := env.Must(200, "GET", "/api/v1/audit?limit=200", access, nil).Data()
			events := map[string]map[string]any{}
			var order []string
			for _, l := range logs["logs"].([]any) {
				e := l.(map[string]any)
				order = append(order, e["event"].(string))
				if _, seen := events[e["event"].(string)]; !seen {
					events[e["event"].(string)] = e
				}
			}
			for _, want := range []string{"register", "email_verified", "2fa_enabled", "login", "login_failed", "api_key_created", "api_key_used"} {
				if events[want] == nil {
					t.Errorf("audit log has no %s entry: %v", want, order)
				}
			}
			if order[len(order)-1] != "register" {
				t.Errorf("oldest entry = %s, want register (newest first): %v", order[len(order)-1], order)
			}
			if used := events["api_key_used"]; used != nil {
				if used["metadata"].(map[string]any)["key_prefix"] != plain[:17] {
					t.Errorf("api_key_used metadata = %v", used["metadata"])
				}
			}
			if reg := events["register"]; reg != nil && (reg["user_email"] != email || reg["ip_address"] != "127.0.0.1") {
				t.Errorf("register entry = %v", reg)
			}
			filtered := env.Must(200, "GET", "/api/v1/audit?event=api_key_used", access, nil).Data()
			for _, l := range filtered["logs"].([]any) {
				if l.(map[string]any)["event"] != "api_key_used" {
					t.Fatalf("event filter returned %v", l)
				}
			}
			env.Must(400, "GET", "/api/v1/audit?event=no_such_event", access, nil)

			// Disable 2FA needs a fresh code.
			env.Must(400, "POST", "/api/v1/auth/totp/disable", access, map[string]any{"code": next})
			env.Must(200, "POST", "/api/v1/auth/totp/disable", access, map[string]any{"code": totpCode(t, secret, time.Now().Add(30*time.Second))})
			env.FlushAudit()
			off := env.Must(200, "GET", "/api/v1/audit?event=2fa_disabled", access, nil).Data()
			if off["total"] != float64(1) {
				t.Fatalf("2fa_disabled entries = %v", off)
			}
		})
	}
}

// TestRefreshRotationAndReuse: a refresh token works once; presenting a
// rotated one revokes the whole family, including the newest token.
func TestRefreshRotationAndReuse(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s := env.Register(servicetest.Unique("rot"))
	r1 := env.Must(200, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": s.Refresh}).Data()
	newer := r1["refresh_token"].(string)
	if newer == s.Refresh {
		t.Fatal("refresh token not rotated")
	}
	env.Must(200, "GET", "/api/v1/auth/me", r1["access_token"].(string), nil)
	// Reuse of the first token: refused, and the family is revoked.
	if r := env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": s.Refresh}); r.Status != 401 {
		t.Fatalf("reuse = %d %s", r.Status, r.Raw)
	}
	if r := env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": newer}); r.Status != 401 {
		t.Fatalf("newest token after reuse = %d %s, want 401 (family revoked)", r.Status, r.Raw)
	}
	// Logout revokes a session; the refresh token is dead afterwards.
	s2 := env.Login(s.Email, s.Password)
	env.Must(200, "POST", "/api/v1/auth/logout", "", map[string]any{"refresh_token": s2.Refresh})
	env.Must(401, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": s2.Refresh})
	env.Must(200, "POST", "/api/v1/auth/logout", "", map[string]any{"refresh_token": "unknown"})
	env.FlushAudit()
	logs := env.Must(200, "GET", "/api/v1/audit?event=logout", s2.Access, nil).Data()
	if logs["total"] != float64(1) {
		t.Fatalf("logout entries = %v", logs["total"])
	}
}

// TestLoginFailures: wrong password and unknown e-mail answer alike.
func TestLoginFailures(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s := env.Register(servicetest.Unique("lf"))
	bad := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": s.Email, "password": "wrong password!"})
	unknown := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": "nobody@example.com", "password": "wrong password!"})
	if bad.Status != http.StatusUnauthorized || string(bad.Raw) != string(unknown.Raw) || bad.Status != unknown.Status {
		t.Fatalf("wrong password = %d %s; unknown e-mail = %d %s", bad.Status, bad.Raw, unknown.Status, unknown.Raw)
	}
	// E-mail is case-insensitive.
	env.Must(200, "POST", "/api/v1/auth/login", "", map[string]any{"email": strings.ToUpper(s.Email), "password": s.Password})
	// An address used elsewhere signs up like a new one (see TestEmailIsUniquePerOrganisation).
	env.Must(201, "POST", "/api/v1/auth/register", "", map[string]any{"email": s.Email, "password": "another org's password", "organization_name": "x"})
	env.Must(400, "POST", "/api/v1/auth/register", "", map[string]any{"email": "new@example.com", "password": "short", "organization_name": "x"})
}

func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := auth.TOTPCode(secret, at)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
