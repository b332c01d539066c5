package api_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/ratelimit"
)

// lowLimits sets the rate limits a test counts against; the harness raises
// them for every other test.
func lowLimits(auth, general, billing ratelimit.Rule) func(*config.Config) {
	return func(c *config.Config) {
		c.Limits.Auth = auth
		c.Limits.General = general
		c.Limits.Billing = billing
	}
}

var (
	rlAuth3    = ratelimit.Rule{Limit: 3, Window: time.Minute}
	rlGeneral5 = ratelimit.Rule{Limit: 5, Window: time.Minute}
	rlBilling2 = ratelimit.Rule{Limit: 2, Window: time.Hour}
	rlHigh     = ratelimit.Rule{Limit: 100000, Window: time.Minute}
)

// limitHeaders checks that r carries well-formed X-RateLimit-* headers for
// a rule of window and returns their values.
func limitHeaders(t *testing.T, label string, r *servicetest.Response, window time.Duration) (limit, remaining int) {
	t.Helper()
	now := time.Now().Unix()
	get := func(name string) (int64, bool) {
		v := r.Header.Get(name)
		if v == "" {
			t.Errorf("%s: no %s header (status %d)", label, name, r.Status)
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Errorf("%s: %s = %q, want an integer", label, name, v)
			return 0, false
		}
		return n, true
	}
	l, okL := get("X-RateLimit-Limit")
	rem, okR := get("X-RateLimit-Remaining")
	reset, okReset := get("X-RateLimit-Reset")
	if okL && l < 1 {
		t.Errorf("%s: X-RateLimit-Limit = %d, want ≥ 1", label, l)
	}
	if okL && okR && (rem < 0 || rem > l) {
		t.Errorf("%s: X-RateLimit-Remaining = %d, want 0..%d", label, rem, l)
	}
	// Unix epoch seconds, in the future, no later than one window ahead
	// (plus the second the server rounds up).
	latest := now + int64(window/time.Second) + 1
	if okReset && (reset <= now || reset > latest) {
		t.Errorf("%s: X-RateLimit-Reset = %d, want epoch seconds in (%d, %d]", label, reset, now, latest)
	}
	return int(l), int(rem)
}

// checkRateLimited checks a 429: rate_limited envelope, Remaining 0 and a
// Retry-After of whole seconds within the window.
func checkRateLimited(t *testing.T, label string, r *servicetest.Response, rule ratelimit.Rule) {
	t.Helper()
	if r.Status != http.StatusTooManyRequests || r.ErrorCode() != "rate_limited" {
		t.Fatalf("%s = %d %s, want 429 rate_limited", label, r.Status, r.Raw)
	}
	if d, ok := r.Body["data"]; !ok || d != nil {
		t.Errorf("%s: data = %v, want null", label, d)
	}
	ra, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > int(rule.Window/time.Second)+1 {
		t.Errorf("%s: Retry-After = %q, want integer seconds in [1, %d]", label, r.Header.Get("Retry-After"), int(rule.Window/time.Second)+1)
	}
	limit, remaining := limitHeaders(t, label, r, rule.Window)
	if limit != rule.Limit || remaining != 0 {
		t.Errorf("%s: X-RateLimit-Limit/Remaining = %d/%d, want %d/0", label, limit, remaining, rule.Limit)
	}
}

// TestRateLimitHeadersOnEveryResponse: successes, a 401, 404s, 400s and
// health all carry the three headers, counted against the right rule.
func TestRateLimitHeadersOnEveryResponse(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: lowLimits(rlAuth3, rlGeneral5, rlBilling2)})
	var admin *servicetest.Session
	tok := func() string { return admin.Access }
	none := func() string { return "" }
	steps := []struct {
		name          string
		method, path  string
		token         func() string
		body          any
		status        int
		rule          ratelimit.Rule
		wantRemaining int
	}{
		// Anonymous requests count per IP against the general rule.
		{"health", "GET", "/api/v1/public/health", none, nil, 200, rlGeneral5, 4},
		{"unknown route", "GET", "/api/v1/no-such-route", none, nil, 404, rlGeneral5, 3},
		{"unknown method", "PUT", "/api/v1/users", none, nil, 404, rlGeneral5, 2},
		{"no credential", "GET", "/api/v1/auth/me", none, nil, 401, rlGeneral5, 1},
		// Authentication endpoints count per IP against the auth rule.
		{"register", "POST", "/api/v1/auth/register", none, map[string]any{"email": servicetest.Unique("hdr"), "password": servicetest.Password, "organization_name": "Hdr"}, 201, rlAuth3, 2},
		{"login bad body", "POST", "/api/v1/auth/login", none, `{"email":`, 400, rlAuth3, 1},
		// A user counts against their own general rule.
		{"me", "GET", "/api/v1/auth/me", tok, nil, 200, rlGeneral5, 4},
		{"settings bad body", "PATCH", "/api/v1/org/settings", tok, `[1,2]`, 400, rlGeneral5, 3},
		// Credits count against general (2 left) and billing (1 left): the tighter wins.
		{"credits", "POST", "/api/v1/billing/credits", tok, map[string]any{"tokens": 5}, 200, rlBilling2, 1},
		{"users list", "GET", "/api/v1/users", tok, nil, 200, rlGeneral5, 1},
	}
	for _, s := range steps {
		r := env.Do(s.method, s.path, s.token(), s.body)
		if r.Status != s.status {
			t.Fatalf("%s: %s %s = %d %s, want %d", s.name, s.method, s.path, r.Status, r.Raw, s.status)
		}
		limit, remaining := limitHeaders(t, s.name, r, s.rule.Window)
		if limit != s.rule.Limit || remaining != s.wantRemaining {
			t.Errorf("%s: X-RateLimit-Limit/Remaining = %d/%d, want %d/%d", s.name, limit, remaining, s.rule.Limit, s.wantRemaining)
		}
		if s.name == "register" {
			d := r.Data()
			admin = &servicetest.Session{Access: d["access_token"].(string)}
		}
	}
	// The window's reset does not move with each request of a fixed window.
	// The fifth request of the user uses the quota up; the sixth is a 429
	// that carries the headers too, with the same reset (a fixed window).
	a := env.Do("GET", "/api/v1/auth/me", admin.Access, nil)
	if _, rem := limitHeaders(t, "fifth", a, time.Minute); a.Status != 200 || rem != 0 {
		t.Fatalf("fifth request = %d, remaining %d, want 200 with 0 left", a.Status, rem)
	}
	b := env.Do("GET", "/api/v1/auth/me", admin.Access, nil)
	checkRateLimited(t, "sixth general request", b, rlGeneral5)
	if a.Header.Get("X-RateLimit-Reset") != b.Header.Get("X-RateLimit-Reset") {
		t.Errorf("reset moved within one window: %s then %s", a.Header.Get("X-RateLimit-Reset"), b.Header.Get("X-RateLimit-Reset"))
	}
}

// TestRateLimitAuthPerIP: authentication endpoints are limited per client
// IP; the (limit+1)th login is 429 and does nothing; another IP and another
// route class are not blocked.
func TestRateLimitAuthPerIP(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) {
		lowLimits(rlAuth3, rlHigh, rlHigh)(c)
		// The test client is the trusted proxy, so X-Forwarded-For picks the client IP.
		c.TrustedProxies = []string{"127.0.0.1"}
	}})
	admin := env.Register(servicetest.Unique("authrl")) // from 127.0.0.1
	login := map[string]any{"email": admin.Email, "password": servicetest.Password}
	from := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }

	var last map[string]any
	for i := 1; i <= rlAuth3.Limit; i++ {
		r := sendWithHeaders(t, env, "POST", "/api/v1/auth/login", "", login, from("198.51.100.7"))
		if r.Status != 200 {
			t.Fatalf("login %d = %d %s", i, r.Status, r.Raw)
		}
		if _, rem := limitHeaders(t, "login", r, rlAuth3.Window); rem != rlAuth3.Limit-i {
			t.Errorf("login %d: remaining %d, want %d", i, rem, rlAuth3.Limit-i)
		}
		last = r.Data()
	}
	r := sendWithHeaders(t, env, "POST", "/api/v1/auth/login", "", login, from("198.51.100.7"))
	checkRateLimited(t, "login over the limit", r, rlAuth3)
	if r.Body["data"] != nil {
		t.Fatalf("a rate-limited login returned tokens: %s", r.Raw)
	}
	// Every authentication endpoint shares the class: refresh is limited too,
	// and the refused refresh did not rotate the token.
	refresh := map[string]any{"refresh_token": last["refresh_token"]}
	checkRateLimited(t, "refresh over the limit", sendWithHeaders(t, env, "POST", "/api/v1/auth/refresh", "", refresh, from("198.51.100.7")), rlAuth3)

	// Another client IP has its own count.
	other := sendWithHeaders(t, env, "POST", "/api/v1/auth/login", "", login, from("198.51.100.8"))
	if other.Status != 200 {
		t.Fatalf("login from another IP = %d %s, want 200", other.Status, other.Raw)
	}
	if r := sendWithHeaders(t, env, "POST", "/api/v1/auth/refresh", "", refresh, from("198.51.100.8")); r.Status != 200 {
		t.Fatalf("refresh from another IP after a 429'd refresh = %d %s, want 200 (the 429 must not have used the token)", r.Status, r.Raw)
	}
	// Another route class from the exhausted IP is not blocked.
	me := sendWithHeaders(t, env, "GET", "/api/v1/auth/me", last["access_token"].(string), nil, from("198.51.100.7"))
	if me.Status != 200 {
		t.Fatalf("GET /auth/me from the exhausted IP = %d %s, want 200", me.Status, me.Raw)
	}
	if limit, _ := limitHeaders(t, "me", me, time.Minute); limit != rlHigh.Limit {
		t.Errorf("GET /auth/me counted against limit %d, want the general limit %d", limit, rlHigh.Limit)
	}
	// The refused login wrote no login entry: 3 from one IP, 1 from the other.
	env.FlushAudit()
	if n := env.Must(200, "GET", "/api/v1/audit?event=login", admin.Access, nil).Data()["total"]; n != float64(4) {
		t.Errorf("login audit entries = %v, want 4", n)
	}
}

// TestRateLimitAuthIgnoresUntrustedForwardedFor: without trusted proxies a
// client cannot dodge the per-IP limit by sending X-Forwarded-For.
func TestRateLimitAuthIgnoresUntrustedForwardedFor(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: lowLimits(rlAuth3, rlHigh, rlHigh)})
	admin := env.Register(servicetest.Unique("xff")) // 1
	login := map[string]any{"email": admin.Email, "password": servicetest.Password}
	env.Must(200, "POST", "/api/v1/auth/login", "", login) // 2
	env.Must(200, "POST", "/api/v1/auth/login", "", login) // 3
	checkRateLimited(t, "login 4", env.Do("POST", "/api/v1/auth/login", "", login), rlAuth3)
	spoofed := sendWithHeaders(t, env, "POST", "/api/v1/auth/login", "", login, map[string]string{"X-Forwarded-For": "203.0.113.9", "X-Real-IP": "203.0.113.9"})
	checkRateLimited(t, "login with a spoofed X-Forwarded-For", spoofed, rlAuth3)
}

// TestRateLimitGeneralPerUser: the general limit is per user and per API
// key: one exhausted caller blocks no one else of the organisation.
func TestRateLimitGeneralPerUser(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: lowLimits(rlHigh, rlGeneral5, rlHigh)})
	a := env.Register(servicetest.Unique("usera"))
	b := env.AddUser(a, servicetest.Unique("userb"), "member") // a: 1 (POST /users)
	key, _ := env.APIKey(a, "read")                            // a: 2 (POST /api-keys)

	exhaust := func(label, path, token string, used int) {
		t.Helper()
		for i := used + 1; i <= rlGeneral5.Limit; i++ {
			r := env.Do("GET", path, token, nil)
			if r.Status != 200 {
				t.Fatalf("%s request %d = %d %s, want 200", label, i, r.Status, r.Raw)
			}
			if _, rem := limitHeaders(t, label, r, rlGeneral5.Window); rem != rlGeneral5.Limit-i {
				t.Errorf("%s request %d: remaining %d, want %d", label, i, rem, rlGeneral5.Limit-i)
			}
		}
		checkRateLimited(t, label+" over the limit", env.Do("GET", path, token, nil), rlGeneral5)
	}
	exhaust("user A", "/api/v1/auth/me", a.Access, 2)

	// User B of the same organisation is not affected.
	rb := env.Do("GET", "/api/v1/auth/me", b.Access, nil)
	if rb.Status != 200 {
		t.Fatalf("user B after A was limited = %d %s", rb.Status, rb.Raw)
	}
	if _, rem := limitHeaders(t, "user B", rb, rlGeneral5.Window); rem != rlGeneral5.Limit-1 {
		t.Errorf("user B remaining = %d, want %d (own count)", rem, rlGeneral5.Limit-1)
	}
	// The API key is counted apart from its creator.
	rk := env.Do("GET", "/api/v1/org/settings", key, nil)
	if rk.Status != 200 {
		t.Fatalf("API key of the limited user A = %d %s, want 200", rk.Status, rk.Raw)
	}
	if _, rem := limitHeaders(t, "API key", rk, rlGeneral5.Window); rem != rlGeneral5.Limit-1 {
		t.Errorf("API key remaining = %d, want %d (own count)", rem, rlGeneral5.Limit-1)
	}
	exhaust("API key", "/api/v1/org/settings", key, 1)
	// B still has their own quota; anonymous callers count per IP apart.
	env.Must(200, "GET", "/api/v1/users", b.Access, nil)
	env.Must(200, "GET", "/api/v1/public/health", "", nil)
}

// TestRateLimitBillingPerOrganisation: adding credits is limited per
// organisation (admins share it, other organisations do not), and a 429
// adds nothing.
func TestRateLimitBillingPerOrganisation(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: lowLimits(rlHigh, rlHigh, rlBilling2)})
	a1 := env.Register(servicetest.Unique("bill1"))
	a2 := env.AddUser(a1, servicetest.Unique("bill2"), "admin")
	other := env.Register(servicetest.Unique("billother"))
	credit := map[string]any{"tokens": 10}

	r := env.Must(200, "POST", "/api/v1/billing/credits", a1.Access, credit)
	if l, rem := limitHeaders(t, "credit 1", r, rlBilling2.Window); l != 2 || rem != 1 {
		t.Errorf("credit 1: limit/remaining = %d/%d, want 2/1", l, rem)
	}
	r = env.Must(200, "POST", "/api/v1/billing/credits", a2.Access, credit)
	if l, rem := limitHeaders(t, "credit 2 (second admin)", r, rlBilling2.Window); l != 2 || rem != 0 {
		t.Errorf("credit 2: limit/remaining = %d/%d, want 2/0 (shared per organisation)", l, rem)
	}
	checkRateLimited(t, "credit 3 by the first admin", env.Do("POST", "/api/v1/billing/credits", a1.Access, credit), rlBilling2)
	checkRateLimited(t, "credit 3 by the second admin", env.Do("POST", "/api/v1/billing/credits", a2.Access, credit), rlBilling2)

	// The 429s added nothing; reading the balance is not limited by billing.
	if bal := env.Must(200, "GET", "/api/v1/billing/balance", a1.Access, nil).Data()["tokens"]; bal != float64(120) {
		t.Errorf("balance after two credits and two 429s = %v, want 120", bal)
	}
	env.FlushAudit()
	if n := env.Must(200, "GET", "/api/v1/audit?event=credits_added", a1.Access, nil).Data()["total"]; n != float64(2) {
		t.Errorf("credits_added entries = %v, want 2", n)
	}
	// Another organisation has its own count.
	if bal := env.Must(200, "POST", "/api/v1/billing/credits", other.Access, credit).Data()["tokens"]; bal != float64(110) {
		t.Errorf("other organisation's balance = %v, want 110", bal)
	}
}

// TestRateLimitBillingNotSpentByForbiddenCallers: the billing limit is the
// organisation's, so requests that may not add credits at all (a member's,
// refused 403) must not use it up and lock the admins out for the window.
func TestRateLimitBillingNotSpentByForbiddenCallers(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: lowLimits(rlHigh, rlHigh, rlBilling2)})
	admin := env.Register(servicetest.Unique("billadm"))
	member := env.AddUser(admin, servicetest.Unique("billmem"), "member")
	for i := 0; i < rlBilling2.Limit; i++ {
		if r := env.Do("POST", "/api/v1/billing/credits", member.Access, map[string]any{"tokens": 1}); r.Status != 403 || r.ErrorCode() != "forbidden" {
			t.Fatalf("member credit = %d %s, want 403 forbidden", r.Status, r.Raw)
		}
	}
	if r := env.Do("POST", "/api/v1/billing/credits", admin.Access, map[string]any{"tokens": 1}); r.Status != 200 {
		t.Errorf("admin credit after a member's refused attempts = %d %s, want 200: forbidden requests used up the organisation's billing limit", r.Status, r.Raw)
	}
}
