package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"github.com/dqs/dqs/profile"
	"github.com/google/uuid"
)

// sendWithHeaders is env.Do with extra request headers.
func sendWithHeaders(t testing.TB, env *servicetest.Env, method, path, token string, body any, hdr map[string]string) *servicetest.Response {
	t.Helper()
	return env.DoHeaders(method, path, token, body, hdr)
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkSuccessEnvelope: {data, error: null, meta: {...}} and nothing else.
func checkSuccessEnvelope(t *testing.T, label string, r *servicetest.Response) {
	t.Helper()
	if got := strings.Join(keysOf(r.Body), ","); got != "data,error,meta" {
		t.Errorf("%s: envelope keys = %s, want data,error,meta: %s", label, got, r.Raw)
	}
	if e, ok := r.Body["error"]; !ok || e != nil {
		t.Errorf("%s: error = %v, want null", label, e)
	}
	if r.Body["data"] == nil {
		t.Errorf("%s: data is null on success", label)
	}
	if _, ok := r.Body["meta"].(map[string]any); !ok {
		t.Errorf("%s: meta = %v, want an object", label, r.Body["meta"])
	}
}

// checkErrorEnvelope: data null, error {code, message} with code want.
func checkErrorEnvelope(t *testing.T, label string, r *servicetest.Response, status int, code string) {
	t.Helper()
	if r.Status != status || r.ErrorCode() != code {
		t.Errorf("%s = %d %s, want %d %s", label, r.Status, r.Raw, status, code)
		return
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		t.Errorf("%s: Content-Type = %q", label, r.Header.Get("Content-Type"))
	}
	if d, ok := r.Body["data"]; !ok || d != nil {
		t.Errorf("%s: data = %v (present %v), want null", label, d, ok)
	}
	e, ok := r.Body["error"].(map[string]any)
	if !ok {
		t.Errorf("%s: error = %v, want an object", label, r.Body["error"])
		return
	}
	if got := strings.Join(keysOf(e), ","); got != "code,message" {
		t.Errorf("%s: error keys = %s, want code,message", label, got)
	}
	if m, _ := e["message"].(string); m == "" {
		t.Errorf("%s: error.message is empty", label)
	}
}

// auditLogs reads the organisation's audit entries of event (all when "").
func auditLogs(t *testing.T, env *servicetest.Env, admin *servicetest.Session, event string) []map[string]any {
	t.Helper()
	env.FlushAudit()
	path := "/api/v1/audit?limit=200"
	if event != "" {
		path += "&event=" + event
	}
	d := env.Must(200, "GET", path, admin.Access, nil).Data()
	var out []map[string]any
	for _, l := range d["logs"].([]any) {
		out = append(out, l.(map[string]any))
	}
	if d["total"] != float64(len(out)) {
		t.Fatalf("audit %q: total %v but %d logs", event, d["total"], len(out))
	}
	return out
}

func metadataOf(e map[string]any) map[string]any {
	m, _ := e["metadata"].(map[string]any)
	return m
}

// --- Envelope ---------------------------------------------------------------

// TestEnvelopeShapes: successes, failures and health have the documented
// shapes.
func TestEnvelopeShapes(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("env"))
	member := env.AddUser(admin, servicetest.Unique("envm"), "member")

	for _, c := range []struct {
		name, method, path string
		token              string
		body               any
		status             int
	}{
		{"me", "GET", "/api/v1/auth/me", admin.Access, nil, 200},
		{"users list", "GET", "/api/v1/users", admin.Access, nil, 200},
		{"api key create", "POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": "env", "scope": "read"}, 201},
		{"settings", "GET", "/api/v1/org/settings", admin.Access, nil, 200},
		{"balance", "GET", "/api/v1/billing/balance", member.Access, nil, 200},
		{"audit", "GET", "/api/v1/audit", admin.Access, nil, 200},
	} {
		r := env.Do(c.method, c.path, c.token, c.body)
		if r.Status != c.status {
			t.Errorf("%s = %d %s, want %d", c.name, r.Status, r.Raw, c.status)
			continue
		}
		checkSuccessEnvelope(t, c.name, r)
	}
	// A list's meta is the pagination meta.
	meta := env.Must(200, "GET", "/api/v1/users", admin.Access, nil).Body["meta"].(map[string]any)
	if got := strings.Join(keysOf(meta), ","); got != "limit,offset,page,total" {
		t.Errorf("list meta keys = %s, want limit,offset,page,total", got)
	}

	for _, c := range []struct {
		name, method, path string
		token              string
		body               any
		status             int
		code               string
	}{
		{"no credential", "GET", "/api/v1/users", "", nil, 401, "unauthorized"},
		{"member on admin route", "POST", "/api/v1/users", member.Access, map[string]any{"email": servicetest.Unique("x"), "password": servicetest.Password}, 403, "forbidden"},
		{"unknown route", "GET", "/api/v1/no-such-thing", admin.Access, nil, 404, "not_found"},
		{"unknown route outside /api/v1", "POST", "/nowhere", "", `{}`, 404, "not_found"},
		{"root", "GET", "/", "", nil, 404, "not_found"},
		{"unknown method", "PUT", "/api/v1/org/settings", admin.Access, `{}`, 404, "not_found"},
		{"missing id", "DELETE", "/api/v1/api-keys/" + uuid.NewString(), admin.Access, nil, 404, "not_found"},
		{"bad body", "POST", "/api/v1/billing/credits", admin.Access, `{"tokens":`, 400, "bad_request"},
		{"duplicate e-mail", "POST", "/api/v1/users", admin.Access, map[string]any{"email": member.Email, "password": servicetest.Password}, 409, "conflict"},
	} {
		checkErrorEnvelope(t, c.name, env.Do(c.method, c.path, c.token, c.body), c.status, c.code)
	}

	// Health is {"data": {"status", "version"}} and nothing else.
	h := env.Do("GET", "/api/v1/public/health", "", nil)
	if h.Status != 200 || !strings.HasPrefix(h.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("health = %d %q %s", h.Status, h.Header.Get("Content-Type"), h.Raw)
	}
	if got := strings.Join(keysOf(h.Body), ","); got != "data" {
		t.Errorf("health keys = %s, want only data: %s", got, h.Raw)
	}
	d := h.Data()
	if got := strings.Join(keysOf(d), ","); got != "status,version" || d["status"] != "ok" || d["version"] != "test" {
		t.Errorf("health data = %v, want {status: ok, version: test}", d)
	}
	// Health answers with a credential too, even an invalid one.
	if r := env.Do("GET", "/api/v1/public/health", "garbage", nil); r.Status != 200 {
		t.Errorf("health with a bad credential = %d %s", r.Status, r.Raw)
	}
}

// TestBehaviourRequestID: a sane X-Request-ID is echoed; anything else is
// replaced by a generated one, on successes and errors alike.
func TestBehaviourRequestID(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	sane := regexp.MustCompile(`^[A-Za-z0-9._-]{8,64}$`)
	seen := map[string]bool{}
	for _, c := range []struct {
		name, sent string
		echoed     bool
	}{
		{"sane", "req-1234.abcd_EF", true},
		{"sane 64 chars", strings.Repeat("a", 64), true},
		{"none", "", false},
		{"too short", "abc", false},
		{"too long", strings.Repeat("a", 65), false},
		{"spaces", "has some spaces", false},
		{"injection", "abcdefgh\"><script>", false},
		{"non-ASCII", "idé-12345678", false},
	} {
		for _, path := range []string{"/api/v1/public/health", "/api/v1/nope"} {
			hdr := map[string]string{}
			if c.sent != "" {
				hdr["X-Request-ID"] = c.sent
			}
			r := sendWithHeaders(t, env, "GET", path, "", nil, hdr)
			got := r.Header.Get("X-Request-ID")
			switch {
			case c.echoed && got != c.sent:
				t.Errorf("%s %s: X-Request-ID = %q, want %q echoed", c.name, path, got, c.sent)
			case !c.echoed && (got == "" || got == c.sent || !sane.MatchString(got)):
				t.Errorf("%s %s: X-Request-ID = %q, want a generated sane id", c.name, path, got)
			case !c.echoed && seen[got]:
				t.Errorf("%s %s: generated X-Request-ID %q was used before", c.name, path, got)
			}
			seen[got] = true
		}
	}
}

// --- Bad input ----------------------------------------------------------------

// badInputTarget is a JSON endpoint and how to make its bodies.
type badInputTarget struct {
	name, method, path string
	token              string
	valid              func() map[string]any // a body the endpoint accepts
	typeField          string                // a field and a value of the wrong type for it
	typeValue          any
	strField           string // a string field to abuse; "" when none
	longStatus         int    // status of a very long strField (0: any 4xx)
}

// TestBadInputNeverFails500 sends malformed bodies to every JSON endpoint
// on both databases: each is a 4xx envelope (or, for bodies that are
// valid JSON of odd content, a success), never a 500.
func TestBadInputNeverFails500(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) { badInput(t, d) })
	}
}

func badInput(t *testing.T, dialect models.Dialect) {
	env := servicetest.Start(t, servicetest.Options{Dialect: dialect})
	admin := env.Register(servicetest.Unique("bad"))
	n := 0
	uniq := func(name string) string { n++; return fmt.Sprintf("%s%d-%s", name, n, servicetest.Unique("")) }
	targets := []badInputTarget{
		{name: "register", method: "POST", path: "/api/v1/auth/register",
			valid: func() map[string]any {
				return map[string]any{"email": uniq("reg"), "password": servicetest.Password, "organization_name": "Bad Input Org"}
			},
			typeField: "email", typeValue: 5, strField: "organization_name", longStatus: 400},
		{name: "login", method: "POST", path: "/api/v1/auth/login",
			valid:     func() map[string]any { return map[string]any{"email": admin.Email, "password": servicetest.Password} },
			typeField: "password", typeValue: true, strField: "email", longStatus: 401},
		{name: "users create", method: "POST", path: "/api/v1/users", token: admin.Access,
			valid: func() map[string]any {
				return map[string]any{"email": uniq("usr"), "password": servicetest.Password, "role": "member"}
			},
			typeField: "role", typeValue: 1, strField: "email", longStatus: 400},
		{name: "api-keys create", method: "POST", path: "/api/v1/api-keys", token: admin.Access,
			valid:     func() map[string]any { return map[string]any{"name": "bad input", "scope": "read"} },
			typeField: "scope", typeValue: []string{"read"}, strField: "name", longStatus: 400},
		{name: "settings patch", method: "PATCH", path: "/api/v1/org/settings", token: admin.Access,
			valid:     func() map[string]any { return map[string]any{"retention_days": 10} },
			typeField: "retention_days", typeValue: "30", strField: "retention_mode", longStatus: 400},
		{name: "credits", method: "POST", path: "/api/v1/billing/credits", token: admin.Access,
			valid:     func() map[string]any { return map[string]any{"tokens": 5} },
			typeField: "tokens", typeValue: "10"},
	}

	marshal := func(m map[string]any) []byte {
		raw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	with := func(m map[string]any, k string, v any) map[string]any { m[k] = v; return m }
	// withRawString puts raw bytes (possibly invalid UTF-8) as the value of field.
	withRawString := func(m map[string]any, field string, raw []byte) []byte {
		m[field] = "\x00PLACEHOLDER\x00"
		b := marshal(m)
		return bytes.Replace(b, []byte(`\u0000PLACEHOLDER\u0000`), raw, 1)
	}

	type result struct {
		status int    // 0: any non-5xx
		code   string // checked when set
		inMsg  string // error message must contain it
	}
	bad := func(code, inMsg string) result { return result{400, code, inMsg} }
	cases := []struct {
		name string
		body func(tg badInputTarget) any // nil result: case does not apply
		want func(tg badInputTarget) result
	}{
		{"empty body", func(badInputTarget) any { return "" }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"whitespace body", func(badInputTarget) any { return "  \n " }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"truncated JSON", func(badInputTarget) any { return `{"a":` }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"not JSON", func(badInputTarget) any { return `hello` }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"single quotes", func(badInputTarget) any { return `{'a': 1}` }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"trailing garbage", func(tg badInputTarget) any { return string(marshal(tg.valid())) + " trailing" },
			func(badInputTarget) result { return bad("bad_request", "") }},
		{"two objects", func(tg badInputTarget) any { return string(marshal(tg.valid())) + string(marshal(tg.valid())) },
			func(badInputTarget) result { return bad("bad_request", "") }},
		{"empty array", func(badInputTarget) any { return `[]` }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"array of the object", func(tg badInputTarget) any { return "[" + string(marshal(tg.valid())) + "]" },
			func(badInputTarget) result { return bad("bad_request", "") }},
		{"string", func(badInputTarget) any { return `"text"` }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"number", func(badInputTarget) any { return `42` }, func(badInputTarget) result { return bad("bad_request", "") }},
		{"null", func(badInputTarget) any { return `null` }, func(badInputTarget) result { return result{} }},
		{"wrong field type", func(tg badInputTarget) any { return with(tg.valid(), tg.typeField, tg.typeValue) },
			func(tg badInputTarget) result { return bad("bad_request", tg.typeField) }},
		{"object for a field", func(tg badInputTarget) any { return with(tg.valid(), tg.typeField, map[string]any{"x": 1}) },
			func(tg badInputTarget) result { return bad("bad_request", tg.typeField) }},
		{"unknown field", func(tg badInputTarget) any { return with(tg.valid(), "surprise_field", 1) },
			func(badInputTarget) result { return bad("bad_request", "surprise_field") }},
		{"body over 1 MiB", func(tg badInputTarget) any {
			return with(tg.valid(), "padding", strings.Repeat("a", 1<<20+1024))
		}, func(badInputTarget) result { return result{413, "payload_too_large", ""} }},
		{"very long string", func(tg badInputTarget) any {
			if tg.strField == "" {
				return nil
			}
			return with(tg.valid(), tg.strField, strings.Repeat("x", 64<<10)+"@example.com")
		}, func(tg badInputTarget) result { return result{tg.longStatus, "", ""} }},
		{"huge number", func(tg badInputTarget) any {
			return strings.Replace(string(marshal(with(tg.valid(), tg.typeField, "NUM"))), `"NUM"`, strings.Repeat("9", 64<<10), 1)
		}, func(tg badInputTarget) result { return bad("bad_request", "") }},
		{"non-UTF-8 in a string", func(tg badInputTarget) any {
			if tg.strField == "" {
				return nil
			}
			return withRawString(tg.valid(), tg.strField, []byte("\xff\xfe\xc3(bad\x80@example.com"))
		}, func(badInputTarget) result { return result{} }},
		{"non-UTF-8 outside strings", func(badInputTarget) any { return []byte("{\xff\xfe: 1}") },
			func(badInputTarget) result { return bad("bad_request", "") }},
		{"control characters", func(tg badInputTarget) any {
			if tg.strField == "" {
				return nil
			}
			return with(tg.valid(), tg.strField, "\x01\x02\x1b[31m\u2028\ufeff@example.com")
		}, func(badInputTarget) result { return result{} }},
	}

	for _, tg := range targets {
		for _, c := range cases {
			body := c.body(tg)
			if body == nil {
				continue
			}
			label := tg.name + ": " + c.name
			r := env.Do(tg.method, tg.path, tg.token, body)
			want := c.want(tg)
			if r.Status >= 500 {
				t.Errorf("%s = %d %s, want no 5xx", label, r.Status, r.Raw)
				continue
			}
			if want.status == 0 {
				if r.Status >= 400 && (r.Body == nil || r.ErrorCode() == "") {
					t.Errorf("%s = %d %s, want an error envelope", label, r.Status, r.Raw)
				}
				continue
			}
			if want.code == "" {
				want.code = r.ErrorCode()
			}
			checkErrorEnvelope(t, label, r, want.status, want.code)
			if want.inMsg != "" && !strings.Contains(r.ErrorMessage(), want.inMsg) {
				t.Errorf("%s: message %q does not name %q", label, r.ErrorMessage(), want.inMsg)
			}
		}
	}
	// None of the refused credit requests added tokens.
	if bal := env.Must(200, "GET", "/api/v1/billing/balance", admin.Access, nil).Data()["tokens"]; bal != float64(100) {
		t.Errorf("balance after refused credit requests = %v, want 100", bal)
	}
	// The service still works.
	env.Must(200, "GET", "/api/v1/auth/me", admin.Access, nil)
}

// TestBadInputNULInStrings: "\u0000" is valid JSON inside a string, but
// PostgreSQL text cannot hold it; the service must answer 4xx (or accept and
// strip it), never 500 on either database.
func TestBadInputNULInStrings(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d})
			admin := env.Register(servicetest.Unique("nul"))
			nulMail := func() string { return "nul\x00" + servicetest.Unique("x") }
			for _, c := range []struct {
				name, method, path, token string
				body                      map[string]any
			}{
				{"register e-mail", "POST", "/api/v1/auth/register", "", map[string]any{"email": nulMail(), "password": servicetest.Password, "organization_name": "Nul"}},
				{"register organisation name", "POST", "/api/v1/auth/register", "", map[string]any{"email": servicetest.Unique("nulorg"), "password": servicetest.Password, "organization_name": "Nul\x00Org"}},
				{"login e-mail", "POST", "/api/v1/auth/login", "", map[string]any{"email": nulMail(), "password": servicetest.Password}},
				{"login password", "POST", "/api/v1/auth/login", "", map[string]any{"email": admin.Email, "password": "pass\x00word-long"}},
				{"users create e-mail", "POST", "/api/v1/users", admin.Access, map[string]any{"email": nulMail(), "password": servicetest.Password}},
				{"users create password", "POST", "/api/v1/users", admin.Access, map[string]any{"email": servicetest.Unique("nulpw"), "password": "pass\x00word-long"}},
				{"api-keys create name", "POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": "nul\x00key", "scope": "read"}},
				{"settings retention_mode", "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"retention_mode": "short_term\x00"}},
				{"verify-email token", "POST", "/api/v1/auth/verify-email", "", map[string]any{"token": "tok\x00en"}},
				{"refresh token", "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": "tok\x00en"}},
			} {
				r := env.Do(c.method, c.path, c.token, c.body)
				if r.Status >= 500 || (r.Status >= 400 && r.ErrorCode() == "") {
					t.Errorf("%s with a NUL character = %d %s, want a 4xx envelope or success", c.name, r.Status, r.Raw)
				}
			}
		})
	}
}

// --- Users -------------------------------------------------------------------------

// TestUsersRolesAndLastAdmin: admins manage users; members cannot; the last
// admin can be neither demoted nor deleted.
func TestUsersRolesAndLastAdmin(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("uadm"))

	email := servicetest.Unique("umem")
	r := env.Must(201, "POST", "/api/v1/users", admin.Access, map[string]any{"email": email, "password": servicetest.Password})
	checkSuccessEnvelope(t, "create user", r)
	created := r.Data()
	if created["role"] != "member" || created["email"] != email || created["id"] == "" {
		t.Fatalf("created user = %v, want role member by default", created)
	}
	for _, k := range []string{"password", "password_hash", "totp_secret"} {
		if _, ok := created[k]; ok {
			t.Errorf("created user shows %s", k)
		}
	}
	memberID := created["id"].(string)
	member := env.Login(email, servicetest.Password)

	ev := auditLogs(t, env, admin, "user_created")
	if len(ev) != 1 || metadataOf(ev[0])["user_id"] != memberID || ev[0]["user_email"] != admin.Email {
		t.Fatalf("user_created entries = %v", ev)
	}

	// Members cannot manage users; they may list them.
	for _, c := range []struct{ method, path string }{
		{"POST", "/api/v1/users"}, {"PATCH", "/api/v1/users/" + admin.UserID}, {"DELETE", "/api/v1/users/" + admin.UserID},
	} {
		body := map[string]any{"email": servicetest.Unique("no"), "password": servicetest.Password}
		if c.method == "PATCH" {
			body = map[string]any{"role": "member"}
		}
		if c.method == "DELETE" {
			body = nil
		}
		checkErrorEnvelope(t, "member "+c.method+" "+c.path, env.Do(c.method, c.path, member.Access, body), 403, "forbidden")
	}
	if n := len(env.Must(200, "GET", "/api/v1/users", member.Access, nil).List()); n != 2 {
		t.Errorf("member's user list has %d users, want 2", n)
	}

	// Validation and conflicts.
	for _, c := range []struct {
		name   string
		body   map[string]any
		status int
		code   string
	}{
		{"duplicate e-mail", map[string]any{"email": email, "password": servicetest.Password}, 409, "conflict"},
		{"duplicate e-mail, other case", map[string]any{"email": strings.ToUpper(email), "password": servicetest.Password}, 409, "conflict"},
		{"bad role", map[string]any{"email": servicetest.Unique("r"), "password": servicetest.Password, "role": "owner"}, 400, "bad_request"},
		{"bad e-mail", map[string]any{"email": "not-an-email", "password": servicetest.Password}, 400, "bad_request"},
		{"short password", map[string]any{"email": servicetest.Unique("s"), "password": "short"}, 400, "bad_request"},
	} {
		checkErrorEnvelope(t, c.name, env.Do("POST", "/api/v1/users", admin.Access, c.body), c.status, c.code)
	}
	for _, c := range []struct {
		name, id string
		body     any
		status   int
		code     string
	}{
		{"bad role", memberID, map[string]any{"role": "root"}, 400, "bad_request"},
		{"no role", memberID, map[string]any{}, 400, "bad_request"},
		{"null role", memberID, map[string]any{"role": nil}, 400, "bad_request"},
		{"unknown user", uuid.NewString(), map[string]any{"role": "admin"}, 404, "not_found"},
		{"non-UUID id", "not-a-uuid", map[string]any{"role": "admin"}, 404, "not_found"},
		{"last admin demoted", admin.UserID, map[string]any{"role": "member"}, 409, "conflict"},
	} {
		checkErrorEnvelope(t, "PATCH "+c.name, env.Do("PATCH", "/api/v1/users/"+c.id, admin.Access, c.body), c.status, c.code)
	}
	checkErrorEnvelope(t, "last admin deleted", env.Do("DELETE", "/api/v1/users/"+admin.UserID, admin.Access, nil), 409, "conflict")
	// Still an admin after the refusals.
	env.Must(200, "GET", "/api/v1/audit", admin.Access, nil)

	// With a second admin, the first can be demoted, and takes effect at once.
	if d := env.Must(200, "PATCH", "/api/v1/users/"+memberID, admin.Access, map[string]any{"role": "admin"}).Data(); d["role"] != "admin" || d["id"] != memberID {
		t.Fatalf("promote = %v", d)
	}
	// Setting the same role again is harmless.
	env.Must(200, "PATCH", "/api/v1/users/"+memberID, admin.Access, map[string]any{"role": "admin"})
	env.Must(200, "PATCH", "/api/v1/users/"+admin.UserID, admin.Access, map[string]any{"role": "member"})
	checkErrorEnvelope(t, "demoted admin creates a user", env.Do("POST", "/api/v1/users", admin.Access, map[string]any{"email": servicetest.Unique("z"), "password": servicetest.Password}), 403, "forbidden")
	// The promoted user is now the last admin.
	checkErrorEnvelope(t, "new last admin demotes self", env.Do("PATCH", "/api/v1/users/"+memberID, member.Access, map[string]any{"role": "member"}), 409, "conflict")
	// Re-promote, then an admin can be deleted while another remains.
	env.Must(200, "PATCH", "/api/v1/users/"+admin.UserID, member.Access, map[string]any{"role": "admin"})
	d := env.Must(200, "DELETE", "/api/v1/users/"+admin.UserID, member.Access, nil)
	checkSuccessEnvelope(t, "delete admin", d)
	if d.Data()["id"] != admin.UserID || d.Data()["deleted"] != true {
		t.Errorf("delete = %v, want {id, deleted: true}", d.Data())
	}
	checkErrorEnvelope(t, "last admin deletes self", env.Do("DELETE", "/api/v1/users/"+memberID, member.Access, nil), 409, "conflict")
	checkErrorEnvelope(t, "delete twice", env.Do("DELETE", "/api/v1/users/"+admin.UserID, member.Access, nil), 404, "not_found")

	if ev := auditLogs(t, env, member, "user_role_changed"); len(ev) != 4 {
		t.Errorf("user_role_changed entries = %d, want 4", len(ev))
	}
	if ev := auditLogs(t, env, member, "user_deleted"); len(ev) != 1 || metadataOf(ev[0])["user_id"] != admin.UserID {
		t.Errorf("user_deleted entries = %v", ev)
	}
}

// TestUsersDeleteRevokesSessions: a deleted user's refresh and access
// tokens stop working at once.
func TestUsersDeleteRevokesSessions(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("udel"))
	u := env.AddUser(admin, servicetest.Unique("gone"), "member")
	second := env.Login(u.Email, u.Password) // a second session
	env.Must(200, "DELETE", "/api/v1/users/"+u.UserID, admin.Access, nil)
	for _, rt := range []string{u.Refresh, second.Refresh} {
		checkErrorEnvelope(t, "refresh of a deleted user", env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": rt}), 401, "unauthorized")
	}
	checkErrorEnvelope(t, "access token of a deleted user", env.Do("GET", "/api/v1/auth/me", u.Access, nil), 401, "unauthorized")
	checkErrorEnvelope(t, "login of a deleted user", env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": u.Email, "password": u.Password}), 401, "unauthorized")
	// The e-mail is free again.
	env.Must(201, "POST", "/api/v1/users", admin.Access, map[string]any{"email": u.Email, "password": servicetest.Password})
	// The admin's own session is untouched.
	env.Must(200, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": admin.Refresh})
}

// --- API keys ------------------------------------------------------------------

// TestAPIKeysLimitRevokeAndAudit: 10 active keys, then limit_exceeded;
// revoking frees a slot and kills the key; keys never appear in listings.
func TestAPIKeysLimitRevokeAndAudit(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("keys"))
	keyForm := regexp.MustCompile(`^dqs_live_[0-9A-Za-z]{32,}$`)
	type key struct{ plain, id, prefix string }
	var keys []key
	for i := 0; i < 10; i++ {
		r := env.Must(201, "POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": fmt.Sprintf("k%d", i), "scope": []string{"read", "scan", "write", "admin"}[i%4]})
		checkSuccessEnvelope(t, "create key", r)
		d := r.Data()
		plain, _ := d["key"].(string)
		if !keyForm.MatchString(plain) || d["key_prefix"] == "" || !strings.HasPrefix(plain, d["key_prefix"].(string)) {
			t.Fatalf("created key = %v", d)
		}
		for _, f := range []string{"id", "name", "scope", "key_prefix", "created_at", "last_used_at"} {
			if _, ok := d[f]; !ok {
				t.Errorf("created key has no %s: %v", f, d)
			}
		}
		keys = append(keys, key{plain, d["id"].(string), d["key_prefix"].(string)})
	}
	eleventh := env.Do("POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": "k10", "scope": "read"})
	checkErrorEnvelope(t, "11th key", eleventh, 409, "limit_exceeded")

	list := env.Must(200, "GET", "/api/v1/api-keys?limit=200", admin.Access, nil)
	if n := len(list.List()); n != 10 || list.Body["meta"].(map[string]any)["total"] != float64(10) {
		t.Fatalf("listing has %d keys (meta %v), want 10", n, list.Body["meta"])
	}
	for _, k := range list.List() {
		for _, f := range []string{"key", "key_hash", "hash"} {
			if _, ok := k[f]; ok {
				t.Errorf("listed key has field %q: %v", f, k)
			}
		}
	}
	for _, k := range keys {
		if strings.Contains(string(list.Raw), k.plain) || strings.Contains(string(list.Raw), k.plain[len(k.prefix):]) {
			t.Fatalf("listing shows a key: %s", list.Raw)
		}
	}

	// Revoke one: it stops working, a slot is free, a second revoke is 404.
	victim := keys[0]
	env.Must(200, "GET", "/api/v1/org/settings", victim.plain, nil)
	del := env.Must(200, "DELETE", "/api/v1/api-keys/"+victim.id, admin.Access, nil).Data()
	if del["id"] != victim.id || del["deleted"] != true {
		t.Errorf("revoke = %v", del)
	}
	checkErrorEnvelope(t, "revoked key", env.Do("GET", "/api/v1/org/settings", victim.plain, nil), 401, "unauthorized")
	checkErrorEnvelope(t, "revoke twice", env.Do("DELETE", "/api/v1/api-keys/"+victim.id, admin.Access, nil), 404, "not_found")
	checkErrorEnvelope(t, "revoke unknown", env.Do("DELETE", "/api/v1/api-keys/"+uuid.NewString(), admin.Access, nil), 404, "not_found")
	for _, l := range env.Must(200, "GET", "/api/v1/api-keys", admin.Access, nil).List() {
		if l["id"] == victim.id {
			t.Errorf("revoked key still listed")
		}
	}
	env.Must(200, "GET", "/api/v1/org/settings", keys[1].plain, nil) // the others still work
	replacement := env.Must(201, "POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": "replacement", "scope": "read"}).Data()
	checkErrorEnvelope(t, "11th key after the replacement", env.Do("POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": "k11", "scope": "read"}), 409, "limit_exceeded")
	env.Must(200, "GET", "/api/v1/org/settings", replacement["key"].(string), nil)

	// Validation, roles and credentials.
	member := env.AddUser(admin, servicetest.Unique("keymem"), "member")
	for _, c := range []struct {
		name, token string
		body        any
		status      int
		code        string
	}{
		{"bad scope", admin.Access, map[string]any{"name": "x", "scope": "root"}, 400, "bad_request"},
		{"no scope", admin.Access, map[string]any{"name": "x"}, 400, "bad_request"},
		{"no name", admin.Access, map[string]any{"scope": "read"}, 400, "bad_request"},
		{"blank name", admin.Access, map[string]any{"name": "   ", "scope": "read"}, 400, "bad_request"},
		{"member", member.Access, map[string]any{"name": "x", "scope": "read"}, 403, "forbidden"},
		{"admin API key", keys[3].plain, map[string]any{"name": "x", "scope": "read"}, 403, "forbidden"},
	} {
		checkErrorEnvelope(t, "create key: "+c.name, env.Do("POST", "/api/v1/api-keys", c.token, c.body), c.status, c.code)
	}
	checkErrorEnvelope(t, "member lists keys", env.Do("GET", "/api/v1/api-keys", member.Access, nil), 403, "forbidden")
	checkErrorEnvelope(t, "member revokes", env.Do("DELETE", "/api/v1/api-keys/"+keys[2].id, member.Access, nil), 403, "forbidden")

	// Audit: created and revoked, with the prefix, never the key.
	created := auditLogs(t, env, admin, "api_key_created")
	if len(created) != 11 {
		t.Errorf("api_key_created entries = %d, want 11", len(created))
	}
	prefixes := map[string]bool{}
	for _, e := range created {
		prefixes[fmt.Sprint(metadataOf(e)["key_prefix"])] = true
		if e["user_email"] != admin.Email {
			t.Errorf("api_key_created by %v, want %s", e["user_email"], admin.Email)
		}
	}
	for _, k := range keys {
		if !prefixes[k.prefix] {
			t.Errorf("no api_key_created entry with key_prefix %s", k.prefix)
		}
	}
	revoked := auditLogs(t, env, admin, "api_key_revoked")
	if len(revoked) != 1 || metadataOf(revoked[0])["key_prefix"] != victim.prefix || metadataOf(revoked[0])["api_key_id"] != victim.id {
		t.Errorf("api_key_revoked entries = %v, want one with key_prefix %s", revoked, victim.prefix)
	}
	raw := string(env.Must(200, "GET", "/api/v1/audit?limit=200", admin.Access, nil).Raw)
	for _, k := range keys {
		if strings.Contains(raw, k.plain) {
			t.Fatalf("audit log contains a full API key")
		}
	}
}

// TestUsersAndAPIKeysHappyPathBothDatabases runs the core of user and key
// management on SQLite and PostgreSQL.
func TestUsersAndAPIKeysHappyPathBothDatabases(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d})
			admin := env.Register(servicetest.Unique("hp"))
			m := env.AddUser(admin, servicetest.Unique("hpm"), "member")
			if users := env.Must(200, "GET", "/api/v1/users", m.Access, nil); len(users.List()) != 2 || users.Body["meta"].(map[string]any)["total"] != float64(2) {
				t.Fatalf("users = %s", users.Raw)
			}
			env.Must(409, "POST", "/api/v1/users", admin.Access, map[string]any{"email": m.Email, "password": servicetest.Password})
			env.Must(409, "PATCH", "/api/v1/users/"+admin.UserID, admin.Access, map[string]any{"role": "member"})
			if d := env.Must(200, "PATCH", "/api/v1/users/"+m.UserID, admin.Access, map[string]any{"role": "admin"}).Data(); d["role"] != "admin" {
				t.Fatalf("promote = %v", d)
			}
			env.Must(200, "PATCH", "/api/v1/users/"+m.UserID, admin.Access, map[string]any{"role": "member"})
			env.Must(404, "PATCH", "/api/v1/users/not-a-uuid", admin.Access, map[string]any{"role": "member"})

			key, id := env.APIKey(admin, "read")
			env.Must(200, "GET", "/api/v1/org/settings", key, nil)
			list := env.Must(200, "GET", "/api/v1/api-keys", admin.Access, nil)
			if len(list.List()) != 1 || strings.Contains(string(list.Raw), key) {
				t.Fatalf("keys = %s", list.Raw)
			}
			for i := 1; i < 10; i++ {
				env.APIKey(admin, "scan")
			}
			env.Must(409, "POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": "over", "scope": "read"})
			env.Must(200, "DELETE", "/api/v1/api-keys/"+id, admin.Access, nil)
			env.Must(401, "GET", "/api/v1/org/settings", key, nil)
			env.Must(404, "DELETE", "/api/v1/api-keys/"+id, admin.Access, nil)
			env.Must(404, "DELETE", "/api/v1/api-keys/not-a-uuid", admin.Access, nil)
			env.APIKey(admin, "read")

			env.Must(200, "DELETE", "/api/v1/users/"+m.UserID, admin.Access, nil)
			env.Must(401, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": m.Refresh})
			env.Must(409, "DELETE", "/api/v1/users/"+admin.UserID, admin.Access, nil)

			events := map[string]int{}
			for _, e := range auditLogs(t, env, admin, "") {
				events[e["event"].(string)]++
			}
			for ev, n := range map[string]int{"user_created": 1, "user_role_changed": 2, "user_deleted": 1, "api_key_created": 11, "api_key_revoked": 1} {
				if events[ev] != n {
					t.Errorf("%s entries = %d, want %d (all: %v)", ev, events[ev], n, events)
				}
			}
		})
	}
}

// --- Settings --------------------------------------------------------------------

// TestSettingsDefaultsValidationAndGDPRAudit.
func TestSettingsDefaultsValidationAndGDPRAudit(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("set"))
	member := env.AddUser(admin, servicetest.Unique("setm"), "member")
	defaults := map[string]any{"retention_mode": "short_term", "retention_days": float64(30), "anomaly_sensitivity": "medium", "trust_threshold": 0.8, "gdpr_check_enabled": true,
		"anomaly_explanations": false, "null_tokens": anyList(profile.DefaultNullTokens)}
	get := func() map[string]any {
		t.Helper()
		return env.Must(200, "GET", "/api/v1/org/settings", member.Access, nil).Data()
	}
	same := func(label string, got, want map[string]any) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: settings = %v, want %v", label, got, want)
		}
	}
	same("defaults", get(), defaults)

	for _, c := range []struct {
		body  string
		field string
	}{
		{`{"retention_mode":"forever"}`, "retention_mode"},
		{`{"retention_mode":""}`, "retention_mode"},
		{`{"retention_days":0}`, "retention_days"},
		{`{"retention_days":366}`, "retention_days"},
		{`{"retention_days":-1}`, "retention_days"},
		{`{"retention_days":30.5}`, "retention_days"},
		{`{"retention_days":"30"}`, "retention_days"},
		{`{"anomaly_sensitivity":"extreme"}`, "anomaly_sensitivity"},
		{`{"anomaly_sensitivity":"HIGH"}`, "anomaly_sensitivity"},
		{`{"trust_threshold":1.5}`, "trust_threshold"},
		{`{"trust_threshold":-0.1}`, "trust_threshold"},
		{`{"trust_threshold":"0.5"}`, "trust_threshold"},
		{`{"gdpr_check_enabled":"false"}`, "gdpr_check_enabled"},
		{`{"gdpr_check_enabled":0}`, "gdpr_check_enabled"},
		{`{"anomaly_explanations":"yes"}`, "anomaly_explanations"},
		{`{"retention_days":10,"trust_threshold":2}`, "trust_threshold"},
		{`{"gdpr_check_enabled":false,"retention_days":0}`, "retention_days"},
		{`{"retention":10}`, "retention"},
	} {
		r := env.Do("PATCH", "/api/v1/org/settings", admin.Access, c.body)
		checkErrorEnvelope(t, "PATCH "+c.body, r, 400, "bad_request")
		if !strings.Contains(r.ErrorMessage(), c.field) {
			t.Errorf("PATCH %s: message %q does not name %s", c.body, r.ErrorMessage(), c.field)
		}
	}
	// Nothing was changed by the refused requests, not even their valid parts.
	same("after refused PATCHes", get(), defaults)

	// Boundaries are accepted; a PATCH changes only what it names.
	for _, b := range []map[string]any{{"retention_days": 1}, {"retention_days": 365}, {"trust_threshold": 0}, {"trust_threshold": 1}} {
		r := env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, b)
		checkSuccessEnvelope(t, fmt.Sprint("PATCH ", b), r)
	}
	r := env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"anomaly_sensitivity": "high", "retention_mode": "analysis_only",
		"anomaly_explanations": true}).Data()
	want := map[string]any{"retention_mode": "analysis_only", "retention_days": float64(365), "anomaly_sensitivity": "high", "trust_threshold": float64(1), "gdpr_check_enabled": true,
		"anomaly_explanations": true, "null_tokens": anyList(profile.DefaultNullTokens)}
	same("PATCH response", r, want)
	same("GET after PATCH", get(), want)

	checkErrorEnvelope(t, "member PATCH", env.Do("PATCH", "/api/v1/org/settings", member.Access, map[string]any{"retention_days": 5}), 403, "forbidden")
	same("after member PATCH", get(), want)

	// Turning the GDPR check off is audited once per switch-off.
	if len(auditLogs(t, env, admin, "gdpr_check_disabled")) != 0 {
		t.Fatal("gdpr_check_disabled before any switch-off")
	}
	if d := env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"gdpr_check_enabled": false}).Data(); d["gdpr_check_enabled"] != false {
		t.Fatalf("gdpr off = %v", d)
	}
	ev := auditLogs(t, env, admin, "gdpr_check_disabled")
	if len(ev) != 1 || ev[0]["user_email"] != admin.Email {
		t.Fatalf("gdpr_check_disabled entries = %v, want 1 by the admin", ev)
	}
	env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"gdpr_check_enabled": false})
	env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"retention_days": 3})
	if n := len(auditLogs(t, env, admin, "gdpr_check_disabled")); n != 1 {
		t.Errorf("gdpr_check_disabled entries after a second off = %d, want 1", n)
	}
	env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"gdpr_check_enabled": true})
	if n := len(auditLogs(t, env, admin, "gdpr_check_disabled")); n != 1 {
		t.Errorf("gdpr_check_disabled entries after switching on = %d, want 1", n)
	}
	env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"gdpr_check_enabled": false})
	if n := len(auditLogs(t, env, admin, "gdpr_check_disabled")); n != 2 {
		t.Errorf("gdpr_check_disabled entries after off, on, off = %d, want 2", n)
	}
	if get()["gdpr_check_enabled"] != false {
		t.Errorf("gdpr_check_enabled not persisted")
	}

	// Settings are the organisation's own.
	other := env.Register(servicetest.Unique("setother"))
	same("another organisation", env.Must(200, "GET", "/api/v1/org/settings", other.Access, nil).Data(), defaults)
}

// --- Billing ----------------------------------------------------------------------

// TestBillingBalanceAndCredits.
func TestBillingBalanceAndCredits(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("bill"))
	member := env.AddUser(admin, servicetest.Unique("billm"), "member")
	balance := func() any {
		t.Helper()
		return env.Must(200, "GET", "/api/v1/billing/balance", member.Access, nil).Data()["tokens"]
	}
	if b := balance(); b != float64(100) {
		t.Fatalf("new organisation balance = %v, want 100", b)
	}
	r := env.Must(200, "POST", "/api/v1/billing/credits", admin.Access, map[string]any{"tokens": 50})
	checkSuccessEnvelope(t, "credits", r)
	if r.Data()["tokens"] != float64(150) || balance() != float64(150) {
		t.Fatalf("after +50: %v / %v, want 150", r.Data(), balance())
	}
	for _, body := range []string{
		`{"tokens":0}`, `{"tokens":-5}`, `{"tokens":1.5}`, `{"tokens":"10"}`, `{"tokens":2000000}`, `{"tokens":1000001}`,
		`{"tokens":null}`, `{"tokens":true}`, `{}`, `{"tokens":1e3}`, `{"tokens":9223372036854775808}`, `{"tokens":-9223372036854775808}`,
	} {
		r := env.Do("POST", "/api/v1/billing/credits", admin.Access, body)
		checkErrorEnvelope(t, "credits "+body, r, 400, "bad_request")
		if !strings.Contains(r.ErrorMessage(), "tokens") {
			t.Errorf("credits %s: message %q does not name tokens", body, r.ErrorMessage())
		}
	}
	checkErrorEnvelope(t, "member credits", env.Do("POST", "/api/v1/billing/credits", member.Access, map[string]any{"tokens": 5}), 403, "forbidden")
	if b := balance(); b != float64(150) {
		t.Fatalf("balance after refused credits = %v, want 150", b)
	}
	// The maximum of one call is accepted.
	if d := env.Must(200, "POST", "/api/v1/billing/credits", admin.Access, map[string]any{"tokens": 1000000}).Data(); d["tokens"] != float64(1000150) {
		t.Errorf("after +1000000: %v", d)
	}

	ev := auditLogs(t, env, admin, "credits_added")
	if len(ev) != 2 {
		t.Fatalf("credits_added entries = %d, want 2", len(ev))
	}
	// Newest first.
	if metadataOf(ev[1])["tokens_added"] != float64(50) || metadataOf(ev[0])["tokens_added"] != float64(1000000) || ev[1]["user_email"] != admin.Email {
		t.Errorf("credits_added entries = %v", ev)
	}
	// Balances are per organisation.
	other := env.Register(servicetest.Unique("billother"))
	if b := env.Must(200, "GET", "/api/v1/billing/balance", other.Access, nil).Data()["tokens"]; b != float64(100) {
		t.Errorf("other organisation's balance = %v, want 100", b)
	}
}
