package api_test

import (
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestPasswordPolicyOnEveryWayInto: sign-up and an admin adding a user
// refuse each kind of weak password with a 400 that names the rule.
func TestPasswordPolicyOnEveryWayIn(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("pw"))
	for _, tc := range []struct {
		name, password, why string
		emailIsLocal        bool // the password is the e-mail's local part
		emailIsPassword     bool // the password is the e-mail address
	}{
		{name: "nine characters", password: "k7#mQ2vL9", why: "at least 10 characters"},
		{name: "ten spaces", password: strings.Repeat(" ", 10), why: "blank characters only"},
		{name: "common", password: "qwertyuiop", why: "too common"},
		{name: "common in capitals", password: "PASSWORD123", why: "too common"},
		{name: "the e-mail address", emailIsPassword: true, why: "e-mail address"},
		{name: "the e-mail's local part", emailIsLocal: true, why: "before the @"},
	} {
		email := servicetest.Unique("policy-" + strconv.Itoa(len(tc.name)))
		pw := tc.password
		switch {
		case tc.emailIsPassword:
			pw = strings.ToUpper(email)
		case tc.emailIsLocal:
			pw = email[:strings.IndexByte(email, '@')]
		}
		for _, way := range []struct {
			label, path, token string
			body               map[string]any
		}{
			{"register", "/api/v1/auth/register", "", map[string]any{"email": email, "password": pw, "organization_name": "Org"}},
			{"create user", "/api/v1/users", admin.Access, map[string]any{"email": email, "password": pw}},
		} {
			r := env.Do("POST", way.path, way.token, way.body)
			checkErrorEnvelope(t, way.label+" with "+tc.name, r, http.StatusBadRequest, "bad_request")
			if !strings.Contains(r.ErrorMessage(), tc.why) || !strings.HasPrefix(r.ErrorMessage(), "password") {
				t.Errorf("%s with %s: message %q does not say %q", way.label, tc.name, r.ErrorMessage(), tc.why)
			}
		}
	}
	// A strong password is still accepted both ways.
	env.Must(201, "POST", "/api/v1/users", admin.Access, map[string]any{"email": servicetest.Unique("ok"), "password": "k7#mQ2vL9p"})
	env.Must(201, "POST", "/api/v1/auth/register", "", map[string]any{"email": servicetest.Unique("ok"), "password": "k7#mQ2vL9p", "organization_name": "Org"})
}

// orgOf signs in and answers the organisation of the session.
func orgOf(t *testing.T, env *servicetest.Env, access string) string {
	t.Helper()
	return env.Must(200, "GET", "/api/v1/auth/me", access, nil).Data()["organization"].(map[string]any)["id"].(string)
}

func sortedKeys(m map[string]any) string {
	k := keysOf(m)
	sort.Strings(k)
	return strings.Join(k, ",")
}

// TestEmailIsUniquePerOrganisation: an address may have accounts in several
// organisations. Signing up or adding a user with an address used
// elsewhere answers exactly as for a new address; the password picks the
// account at login, and organization_id when it matches several.
func TestEmailIsUniquePerOrganisation(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d})
			email := servicetest.Unique("consultant")
			const pwA, pwB, pwC = "first org password", "second org password", "third org password"
			register := func(pw, org string) map[string]any {
				t.Helper()
				r := env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": email, "password": pw, "organization_name": org})
				if r.Status != http.StatusCreated {
					t.Fatalf("register %s = %d %s", org, r.Status, r.Raw)
				}
				return r.Data()
			}
			a := register(pwA, "Alpha")
			fresh := env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": servicetest.Unique("fresh"), "password": pwA, "organization_name": "Fresh"})
			b := register(pwB, "Beta") // the address is taken in Alpha
			if sortedKeys(b) != sortedKeys(fresh.Data()) || sortedKeys(b["user"].(map[string]any)) != sortedKeys(fresh.Data()["user"].(map[string]any)) {
				t.Fatalf("sign-up with a used address answers %s, with a new one %s", b, fresh.Raw)
			}
			orgA := a["organization"].(map[string]any)["id"].(string)
			orgB := b["organization"].(map[string]any)["id"].(string)
			if orgA == orgB || orgOf(t, env, b["access_token"].(string)) != orgB {
				t.Fatalf("second sign-up did not get an organisation of its own: %s, %s", orgA, orgB)
			}
			// Each account is verified by its own e-mail.
			env.WaitForMail(email, 30*time.Second)

			// An admin of a third organisation adds the address: no conflict.
			adminC := env.Register(servicetest.Unique("adminc"))
			env.Must(201, "POST", "/api/v1/users", adminC.Access, map[string]any{"email": strings.ToUpper(email), "password": pwC})
			// In its own organisation the address is taken once.
			r := env.Do("POST", "/api/v1/users", a["access_token"].(string), map[string]any{"email": email, "password": pwC})
			checkErrorEnvelope(t, "address taken in the caller's organisation", r, http.StatusConflict, "conflict")
			if strings.Contains(string(r.Raw), orgB) || strings.Contains(string(r.Raw), adminC.OrgID) {
				t.Fatalf("conflict names another organisation: %s", r.Raw)
			}

			// The password picks the account.
			for pw, org := range map[string]string{pwA: orgA, pwB: orgB, pwC: adminC.OrgID} {
				s := env.Login(email, pw)
				if got := orgOf(t, env, s.Access); got != org {
					t.Errorf("login with the password of %s signed in to %s", org, got)
				}
			}
			wrong := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": "none of these passwords"})
			unknown := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": servicetest.Unique("nobody"), "password": "none of these passwords"})
			if wrong.Status != 401 || string(wrong.Raw) != string(unknown.Raw) {
				t.Fatalf("wrong password = %d %s; unknown address = %d %s", wrong.Status, wrong.Raw, unknown.Status, unknown.Raw)
			}

			// One password for two accounts: organization_id chooses.
			d := register(pwA, "Delta")
			orgD := d["organization"].(map[string]any)["id"].(string)
			amb := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": pwA})
			checkErrorEnvelope(t, "password of two accounts", amb, http.StatusBadRequest, "bad_request")
			for _, want := range []string{"organization_id", orgA, orgD, "Alpha", "Delta"} {
				if !strings.Contains(amb.ErrorMessage(), want) {
					t.Errorf("ambiguous login message %q does not name %s", amb.ErrorMessage(), want)
				}
			}
			for _, other := range []string{orgB, adminC.OrgID} {
				if strings.Contains(amb.ErrorMessage(), other) {
					t.Errorf("ambiguous login message %q names %s, whose password differs", amb.ErrorMessage(), other)
				}
			}
			for _, org := range []string{orgA, orgD} {
				tok := env.Must(200, "POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": pwA, "organization_id": org}).Data()
				if got := orgOf(t, env, tok["access_token"].(string)); got != org {
					t.Errorf("organization_id %s signed in to %s", org, got)
				}
			}
			// organization_id only selects among the accounts the password opens.
			for _, org := range []string{orgB, models.NewID(), "not-an-id"} {
				r := env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": pwA, "organization_id": org})
				if r.Status != 401 || string(r.Raw) != string(unknown.Raw) {
					t.Errorf("organization_id %s with another account's password = %d %s, want the 401 of a wrong password", org, r.Status, r.Raw)
				}
			}
			env.Must(200, "POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": pwB, "organization_id": orgB})

			// The failed login is recorded in each organisation holding the address.
			env.FlushAudit()
			for _, tok := range []string{a["access_token"].(string), b["access_token"].(string)} {
				if n := env.Must(200, "GET", "/api/v1/audit?event=login_failed", tok, nil).Data()["total"]; n == float64(0) {
					t.Errorf("an organisation of the address has no login_failed entry")
				}
			}
		})
	}
}

// twoFAUser registers a user and enables 2FA with the code of the previous
// time step, so the current and next steps' codes are still unused.
func twoFAUser(t *testing.T, env *servicetest.Env) (s *servicetest.Session, secret string) {
	t.Helper()
	s = env.Register(servicetest.Unique("tfa"))
	secret = env.Must(200, "POST", "/api/v1/auth/totp/setup", s.Access, nil).Data()["secret"].(string)
	env.Must(200, "POST", "/api/v1/auth/totp/enable", s.Access, map[string]any{"code": totpCode(t, secret, time.Now().Add(-30*time.Second))})
	return s, secret
}

// wrongCode is a code valid at no step the server accepts now.
func wrongCode(t *testing.T, secret string) string {
	t.Helper()
	valid := map[string]bool{}
	for _, d := range []time.Duration{-60, -30, 0, 30, 60} {
		valid[totpCode(t, secret, time.Now().Add(d*time.Second))] = true
	}
	for i := 0; ; i++ {
		c := fmt.Sprintf("%06d", (123457*i+4242)%1000000)
		if !valid[c] {
			return c
		}
	}
}

func tempToken(t *testing.T, env *servicetest.Env, s *servicetest.Session, hdr map[string]string) string {
	t.Helper()
	r := env.DoHeaders("POST", "/api/v1/auth/login", "", map[string]any{"email": s.Email, "password": s.Password}, hdr)
	if r.Status != 200 || r.Data()["requires_2fa"] != true {
		t.Fatalf("login = %d %s", r.Status, r.Raw)
	}
	return r.Data()["temp_token"].(string)
}

func complete(env *servicetest.Env, temp, code string, hdr map[string]string) *servicetest.Response {
	return env.DoHeaders("POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": temp, "code": code}, hdr)
}

func lockedEntries(t *testing.T, env *servicetest.Env, s *servicetest.Session) []map[string]any {
	t.Helper()
	env.FlushAudit()
	var out []map[string]any
	for _, l := range env.Must(200, "GET", "/api/v1/audit?event=2fa_locked", s.Access, nil).Data()["logs"].([]any) {
		out = append(out, l.(map[string]any))
	}
	return out
}

// TestTempTokenAllowsFiveCodes: after five wrong codes a temp_token is void;
// even the right code then fails, telling the user to sign in again.
func TestTempTokenAllowsFiveCodes(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s, secret := twoFAUser(t, env)
	temp := tempToken(t, env, s, nil)
	for i := 1; i <= 5; i++ {
		r := complete(env, temp, wrongCode(t, secret), nil)
		checkErrorEnvelope(t, fmt.Sprintf("wrong code %d", i), r, 401, "unauthorized")
		if last := strings.Contains(r.ErrorMessage(), "sign in again"); last != (i == 5) {
			t.Errorf("wrong code %d: message %q", i, r.ErrorMessage())
		}
	}
	r := complete(env, temp, totpCode(t, secret, time.Now()), nil)
	checkErrorEnvelope(t, "right code after five wrong ones", r, 401, "unauthorized")
	if !strings.Contains(r.ErrorMessage(), "sign in again") {
		t.Errorf("message %q does not tell to sign in again", r.ErrorMessage())
	}
	// The code was not spent: a new sign-in completes with it.
	env.Must(200, "POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": tempToken(t, env, s, nil), "code": totpCode(t, secret, time.Now())})

	locked := lockedEntries(t, env, s)
	if len(locked) != 1 || metadataOf(locked[0])["reason"] != "temp_token_codes" {
		t.Fatalf("2fa_locked entries = %v, want one for the temp_token", locked)
	}
}

// TestTempTokenIsSingleUse: a temp_token exchanged for a session is void,
// even with the next valid code.
func TestTempTokenIsSingleUse(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s, secret := twoFAUser(t, env)
	temp := tempToken(t, env, s, nil)
	env.Must(200, "POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": temp, "code": totpCode(t, secret, time.Now())})
	r := complete(env, temp, totpCode(t, secret, time.Now().Add(30*time.Second)), nil)
	checkErrorEnvelope(t, "second exchange with the next code", r, 401, "unauthorized")
	if !strings.Contains(r.ErrorMessage(), "sign in again") {
		t.Errorf("message %q does not tell to sign in again", r.ErrorMessage())
	}
}

// TestTempTokenIsSingleUseUnderRace: two concurrent exchanges of one
// temp_token with two valid codes: exactly one gets a session.
func TestTempTokenIsSingleUseUnderRace(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d})
			for round := range 3 {
				s, secret := twoFAUser(t, env)
				temp := tempToken(t, env, s, nil)
				codes := []string{totpCode(t, secret, time.Now()), totpCode(t, secret, time.Now().Add(30*time.Second))}
				statuses := make([]int, len(codes))
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i, code := range codes {
					wg.Add(1)
					go func() {
						defer wg.Done()
						<-start
						statuses[i] = complete(env, temp, code, nil).Status
					}()
				}
				close(start)
				wg.Wait()
				ok := 0
				for _, st := range statuses {
					if st == 200 {
						ok++
					} else if st != 401 {
						t.Errorf("round %d: status %d", round, st)
					}
				}
				if ok != 1 {
					t.Fatalf("round %d: %d of two concurrent exchanges succeeded (%v), want exactly 1", round, ok, statuses)
				}
			}
		})
	}
}

// TestSecondFactorLockPerUser: ten wrong codes within fifteen minutes lock
// the user's second factor, whatever the temp_tokens and client addresses
// they came from: then even the right code with a new temp_token answers
// 429 with Retry-After, and so does disabling 2FA.
func TestSecondFactorLockPerUser(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d, Configure: func(c *config.Config) {
				c.TrustedProxies = []string{"127.0.0.1"} // X-Forwarded-For names the client
			}})
			s, secret := twoFAUser(t, env)
			bystander, bystanderSecret := twoFAUser(t, env)
			failures := 0
			for i, n := range []int{4, 4, 2} { // three sign-ins, none out of codes
				ip := map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i+1)}
				temp := tempToken(t, env, s, ip)
				for range n {
					failures++
					r := complete(env, temp, wrongCode(t, secret), ip)
					checkErrorEnvelope(t, fmt.Sprintf("wrong code %d", failures), r, 401, "unauthorized")
					if locking := strings.Contains(r.ErrorMessage(), "locked"); locking != (failures == 10) {
						t.Errorf("wrong code %d: message %q", failures, r.ErrorMessage())
					}
				}
			}
			ip := map[string]string{"X-Forwarded-For": "203.0.113.9"}
			r := complete(env, tempToken(t, env, s, ip), totpCode(t, secret, time.Now()), ip)
			checkErrorEnvelope(t, "right code while locked", r, http.StatusTooManyRequests, "rate_limited")
			retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
			if err != nil || retry < 850 || retry > 900 {
				t.Fatalf("Retry-After = %q, want about 900 seconds", r.Header.Get("Retry-After"))
			}
			// Disabling 2FA needs a code too, and is locked as well.
			r = env.Do("POST", "/api/v1/auth/totp/disable", s.Access, map[string]any{"code": totpCode(t, secret, time.Now())})
			checkErrorEnvelope(t, "disable while locked", r, http.StatusTooManyRequests, "rate_limited")
			if r.Header.Get("Retry-After") == "" {
				t.Error("disable while locked has no Retry-After")
			}
			// Another user is not affected.
			env.Must(200, "POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": tempToken(t, env, bystander, ip), "code": totpCode(t, bystanderSecret, time.Now())})

			locked := lockedEntries(t, env, s)
			if len(locked) != 1 {
				t.Fatalf("2fa_locked entries = %v, want one", locked)
			}
			if m := metadataOf(locked[0]); m["reason"] != "user_failures" || m["during"] != "login" || m["locked_until"] == nil {
				t.Errorf("2fa_locked metadata = %v", m)
			}
			if locked[0]["ip_address"] != "198.51.100.3" {
				t.Errorf("2fa_locked ip_address = %v, want the client of the tenth code", locked[0]["ip_address"])
			}
		})
	}
}

// TestDisableCodesCountAgainstTheLock: wrong codes sent to totp/disable by
// a session count against the same per-user limit.
func TestDisableCodesCountAgainstTheLock(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s, secret := twoFAUser(t, env)
	for i := 1; i <= 10; i++ {
		r := env.Do("POST", "/api/v1/auth/totp/disable", s.Access, map[string]any{"code": wrongCode(t, secret)})
		checkErrorEnvelope(t, fmt.Sprintf("wrong disable code %d", i), r, 400, "bad_request")
	}
	r := env.Do("POST", "/api/v1/auth/totp/disable", s.Access, map[string]any{"code": totpCode(t, secret, time.Now())})
	checkErrorEnvelope(t, "right disable code after ten wrong ones", r, http.StatusTooManyRequests, "rate_limited")
	r = complete(env, tempToken(t, env, s, nil), totpCode(t, secret, time.Now()), nil)
	checkErrorEnvelope(t, "login after ten wrong disable codes", r, http.StatusTooManyRequests, "rate_limited")
	if locked := lockedEntries(t, env, s); len(locked) != 1 || metadataOf(locked[0])["during"] != "disable" {
		t.Fatalf("2fa_locked entries = %v", locked)
	}
	if me := env.Must(200, "GET", "/api/v1/auth/me", s.Access, nil).Data()["user"].(map[string]any); me["totp_enabled"] != true {
		t.Fatalf("2FA was disabled: %v", me)
	}
}
