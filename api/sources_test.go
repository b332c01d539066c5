package api_test

// Data sources over the running service: a real S3-compatible server
// (gofakes3 on a loopback listener, reached through the official AWS SDK
// by the connector) and the real network guard.

import (
	"bytes"
	"fmt"
	"net"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

const (
	sourceBucket = "acme-exports"
	sourceKeyID  = "AKIAEXAMPLEKEY000001"
	// sourceSecret must never appear in an answer, a log line or the
	// audit log.
	sourceSecret = "s3cr3t-Zq9wX7vT5rP3nL1kJ8hG6fD4sA2"
)

// bucketServer is an S3-compatible server holding sourceBucket with a
// few objects.
func bucketServer(t *testing.T) string {
	url, _ := bucketWith(t, map[string]string{
		"exports/customers.csv": "name,email\nAda,ada@example.com\n",
		"exports/orders.jsonl":  `{"id":1}` + "\n",
		"exports/readme.md":     "not a data file",
		"other/outside.csv":     "a\n1\n",
	})
	return url
}

// bucketWith is an S3-compatible server holding sourceBucket with
// objects, and a function that stores (or replaces) one more.
func bucketWith(t *testing.T, objects map[string]string) (url string, put func(key, body string)) {
	t.Helper()
	for _, k := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"} {
		t.Setenv(k, "")
	}
	backend := s3mem.New()
	if err := backend.CreateBucket(sourceBucket); err != nil {
		t.Fatal(err)
	}
	put = func(key, body string) {
		if _, err := backend.PutObject(sourceBucket, key, map[string]string{}, bytes.NewReader([]byte(body)), int64(len(body)), nil); err != nil {
			t.Fatal(err)
		}
	}
	for key, body := range objects {
		put(key, body)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return srv.URL, put
}

func s3Source(name, endpoint string) map[string]any {
	return map[string]any{"name": name, "type": "s3", "credentials": map[string]any{
		"bucket": sourceBucket, "prefix": "exports", "region": "eu-north-1", "endpoint": endpoint,
		"access_key_id": sourceKeyID, "secret_access_key": sourceSecret,
	}}
}

// allowLoopback lets sources reach the test's loopback servers, as the
// single-machine shape does.
func allowLoopback(c *config.Config) { c.SourceAllowLoopback = true }

func TestSourceLifecycle(t *testing.T) {
	endpoint := bucketServer(t)
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	admin := env.Register(servicetest.Unique("sources"))
	member := env.AddUser(admin, servicetest.Unique("srcmember"), "member")

	// Test first, as a user would, without saving anything.
	res := env.Must(200, "POST", "/api/v1/sources/test-connection", member.Access, s3Source("", endpoint)).Data()
	if res["success"] != true || res["tables_found"] != float64(2) {
		t.Fatalf("test-connection = %v, want success with the 2 data files under the prefix", res)
	}
	tables := res["tables"].([]any)
	first := tables[0].(map[string]any)
	if first["table_name"] != "exports/customers.csv" || first["size_bytes"] != float64(len("name,email\nAda,ada@example.com\n")) {
		t.Fatalf("tables = %v", tables)
	}

	src := env.Must(201, "POST", "/api/v1/sources", member.Access, s3Source("Exports", endpoint)).Data()
	id := src["id"].(float64)
	if src["name"] != "Exports" || src["type"] != "s3" || src["status"] != "active" || src["last_scan_at"] != nil ||
		src["credentials"] != nil || fmt.Sprint(src["config"]) != "map[]" {
		t.Fatalf("created source = %v", src)
	}
	path := fmt.Sprintf("/api/v1/sources/%v", id)
	if got := env.Must(200, "GET", path, member.Access, nil).Data(); got["name"] != "Exports" || got["credentials"] != nil {
		t.Fatalf("GET = %v", got)
	}
	if list := env.Must(200, "GET", "/api/v1/sources", member.Access, nil).List(); len(list) != 1 || list[0]["id"] != id {
		t.Fatalf("list = %v", list)
	}
	if files := env.Must(200, "GET", path+"/files", member.Access, nil).List(); len(files) != 0 {
		t.Fatalf("files of a source never scanned = %v", files)
	}

	// A duplicate name is a conflict; the first source is untouched.
	if r := env.Do("POST", "/api/v1/sources", member.Access, s3Source("Exports", endpoint)); r.Status != 409 {
		t.Fatalf("duplicate name = %d %s, want 409", r.Status, r.Raw)
	}

	// Rename, and replace one credential: the others stay.
	p := env.Must(200, "PATCH", path, member.Access, map[string]any{"name": "Exports EU", "credentials": map[string]any{"prefix": "other"}}).Data()
	if p["name"] != "Exports EU" {
		t.Fatalf("patched = %v", p)
	}
	if r := env.Do("PATCH", path, member.Access, map[string]any{"type": "gcs"}); r.Status != 400 || !strings.Contains(r.ErrorMessage(), "type") {
		t.Fatalf("changing the type = %d %s", r.Status, r.Raw)
	}
	if r := env.Do("PATCH", path, member.Access, map[string]any{"credentials": map[string]any{"bucket": nil}}); r.Status != 400 || !strings.Contains(r.ErrorMessage(), "bucket") {
		t.Fatalf("removing the bucket = %d %s, want 400 naming it", r.Status, r.Raw)
	}
	if r := env.Do("PATCH", path, member.Access, map[string]any{}); r.Status != 400 {
		t.Fatalf("empty patch = %d %s", r.Status, r.Raw)
	}

	// Members cannot delete; admins can, and the source is gone.
	if r := env.Do("DELETE", path, member.Access, nil); r.Status != 403 {
		t.Fatalf("member DELETE = %d %s, want 403", r.Status, r.Raw)
	}
	if d := env.Must(200, "DELETE", path, admin.Access, nil).Data(); d["id"] != id || d["deleted"] != true {
		t.Fatalf("DELETE = %v", d)
	}
	env.Must(404, "GET", path, admin.Access, nil)
	env.Must(404, "DELETE", path, admin.Access, nil)

	// The audit log names the source and the fields changed, never a
	// credential.
	env.FlushAudit()
	logs := env.Must(200, "GET", "/api/v1/audit?limit=200", admin.Access, nil)
	events := map[string]int{}
	for _, l := range logs.Data()["logs"].([]any) {
		events[l.(map[string]any)["event"].(string)]++
	}
	if events["source_created"] != 1 || events["source_updated"] != 1 || events["source_deleted"] != 1 {
		t.Fatalf("audit events = %v, want one each of source_created, source_updated, source_deleted", events)
	}
	for _, where := range []string{string(logs.Raw), env.Logs.String()} {
		if strings.Contains(where, sourceSecret) || strings.Contains(where, sourceKeyID) {
			t.Fatal("a source credential reached the audit log or the logs")
		}
	}
}

func TestSourceConnectionFailuresAreResultsNotErrors(t *testing.T) {
	endpoint := bucketServer(t)
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("srcfail"))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()

	missing := s3Source("", endpoint)
	missing["credentials"].(map[string]any)["bucket"] = "no-such-bucket"
	for name, body := range map[string]map[string]any{
		"missing bucket": missing,
		"closed port":    s3Source("", closed),
	} {
		r := env.Do("POST", "/api/v1/sources/test-connection", user.Access, body)
		d := r.Data()
		if r.Status != 200 || d["success"] != false || d["error"] == "" || d["tables_found"] != float64(0) {
			t.Errorf("%s: test-connection = %d %s, want 200 with success false and a reason", name, r.Status, r.Raw)
		}
		if strings.Contains(string(r.Raw), sourceSecret) {
			t.Errorf("%s: the answer quotes the secret key: %s", name, r.Raw)
		}
	}
}

func TestSourceSettingsAreChecked(t *testing.T) {
	// The cluster default: no loopback for sources. Every case below is
	// also sent to test-connection, more than the default jobs limit a
	// minute allows.
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) { c.Limits.Jobs.Limit = 1000 }})
	user := env.Register(servicetest.Unique("srcbad"))
	pg := func(host string, extra ...any) map[string]any {
		c := map[string]any{"host": host, "database": "sales", "username": "reader", "password": sourceSecret}
		for i := 0; i+1 < len(extra); i += 2 {
			c[extra[i].(string)] = extra[i+1]
		}
		return map[string]any{"name": "warehouse", "type": "postgresql", "credentials": c}
	}
	cases := []struct {
		name string
		body map[string]any
		want string
	}{
		{"no type", map[string]any{"name": "x", "credentials": map[string]any{"bucket": "b"}}, "type"},
		{"unknown type", map[string]any{"name": "x", "type": "ftp", "credentials": map[string]any{"bucket": "b"}}, "type must be one of"},
		{"no credentials", map[string]any{"name": "x", "type": "s3"}, "credentials"},
		{"credentials not an object", map[string]any{"name": "x", "type": "s3", "credentials": "bucket=b"}, "credentials"},
		{"unknown credential", map[string]any{"name": "x", "type": "s3", "credentials": map[string]any{"bucket": "b", "pasword": "x"}}, `"pasword"`},
		{"missing bucket", map[string]any{"name": "x", "type": "gcs", "credentials": map[string]any{"prefix": "p"}}, "bucket"},
		{"half an s3 key", map[string]any{"name": "x", "type": "s3", "credentials": map[string]any{"bucket": "b", "access_key_id": "AKIA"}}, "secret_access_key"},
		{"snowflake with both", map[string]any{"name": "x", "type": "snowflake", "credentials": map[string]any{"account": "a", "warehouse": "w", "database": "d", "schema": "s", "username": "u", "password": "p", "private_key": "k"}}, "exactly one"},
		{"port out of range", pg("93.184.216.34", "port", 70000), "port"},
		{"port not a number", pg("93.184.216.34", "port", "five"), "port"},
		{"unknown config", map[string]any{"name": "x", "type": "postgresql", "credentials": pg("93.184.216.34")["credentials"], "config": map[string]any{"shema": "sales"}}, "shema"},
		{"schema on a bucket", map[string]any{"name": "x", "type": "s3", "credentials": map[string]any{"bucket": "b"}, "config": map[string]any{"schema": "s"}}, "schema"},
		{"unknown profile mode", map[string]any{"name": "x", "type": "postgresql", "credentials": pg("93.184.216.34")["credentials"], "config": map[string]any{"profile_mode": "fast"}}, "exact or sampled"},
		{"profile mode not a string", map[string]any{"name": "x", "type": "postgresql", "credentials": pg("93.184.216.34")["credentials"], "config": map[string]any{"profile_mode": true}}, "profile_mode must be a string"},
		{"profile mode on a bucket", map[string]any{"name": "x", "type": "s3", "credentials": map[string]any{"bucket": "b"}, "config": map[string]any{"profile_mode": "sampled"}}, "profile_mode"},
		{"loopback database", pg("127.0.0.1"), "network policy"},
		{"localhost database", pg("localhost"), "network policy"},
		{"private database", pg("10.1.2.3"), "network policy"},
		{"metadata address", pg("169.254.169.254", "port", 80), "network policy"},
		{"private endpoint", map[string]any{"name": "x", "type": "s3", "credentials": map[string]any{"bucket": "b", "endpoint": "http://192.168.0.10:9000"}}, "network policy"},
		{"endpoint with credentials", map[string]any{"name": "x", "type": "s3", "credentials": map[string]any{"bucket": "b", "endpoint": "http://user:pw@93.184.216.34"}}, "endpoint"},
	}
	for _, c := range cases {
		for _, route := range []string{"/api/v1/sources", "/api/v1/sources/test-connection"} {
			body := c.body
			if body["name"] == nil && route == "/api/v1/sources" {
				continue
			}
			r := env.Do("POST", route, user.Access, body)
			if r.Status != 400 || r.ErrorCode() != "bad_request" || !strings.Contains(r.ErrorMessage(), c.want) {
				t.Errorf("%s: POST %s = %d %s, want 400 mentioning %q", c.name, route, r.Status, r.Raw, c.want)
			}
			if strings.Contains(string(r.Raw), sourceSecret) {
				t.Errorf("%s: the error quotes the password", c.name)
			}
		}
	}
	if r := env.Do("POST", "/api/v1/sources", user.Access, map[string]any{"type": "s3", "credentials": map[string]any{"bucket": "b"}}); r.Status != 400 || !strings.Contains(r.ErrorMessage(), "name") {
		t.Errorf("no name = %d %s", r.Status, r.Raw)
	}
	if r := env.Do("POST", "/api/v1/sources", user.Access, map[string]any{"name": strings.Repeat("n", 201), "type": "s3", "credentials": map[string]any{"bucket": "b"}}); r.Status != 400 {
		t.Errorf("long name = %d %s", r.Status, r.Raw)
	}
	if list := env.Must(200, "GET", "/api/v1/sources", user.Access, nil).List(); len(list) != 0 {
		t.Fatalf("refused sources were stored: %v", list)
	}
	// A public host is accepted without connecting (a test does that).
	ok := env.Must(201, "POST", "/api/v1/sources", user.Access, pg("93.184.216.34", "port", 5433, "sslmode", "require")).Data()
	if ok["type"] != "postgresql" || fmt.Sprint(ok["config"]) != "map[]" {
		t.Fatalf("postgresql source = %v", ok)
	}
	if strings.Contains(env.Logs.String(), sourceSecret) {
		t.Fatal("a password reached the logs")
	}
}

func TestSourcesOfAnotherOrganisationAreNotFound(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	owner := env.Register(servicetest.Unique("srcowner"))
	other := env.Register(servicetest.Unique("srcother"))
	src := env.Must(201, "POST", "/api/v1/sources", owner.Access, map[string]any{"name": "lake", "type": "s3", "credentials": map[string]any{"bucket": "acme"}}).Data()
	path := fmt.Sprintf("/api/v1/sources/%v", src["id"])
	for _, c := range []struct{ method, path string }{
		{"GET", path}, {"PATCH", path}, {"DELETE", path}, {"GET", path + "/files"},
		{"GET", "/api/v1/sources/abc"}, {"GET", "/api/v1/sources/0"}, {"GET", "/api/v1/sources/99999999"},
	} {
		var body any
		if c.method == "PATCH" {
			body = map[string]any{"name": "stolen"}
		}
		r := env.Do(c.method, c.path, other.Access, body)
		if r.Status != 404 || r.ErrorCode() != "not_found" {
			t.Errorf("%s %s by another organisation = %d %s, want 404", c.method, c.path, r.Status, r.Raw)
		}
	}
	if list := env.Must(200, "GET", "/api/v1/sources", other.Access, nil).List(); len(list) != 0 {
		t.Fatalf("another organisation's list = %v", list)
	}
	if got := env.Must(200, "GET", path, owner.Access, nil).Data(); got["name"] != "lake" {
		t.Fatalf("the owner's source changed: %v", got)
	}
	// A read-only API key lists but cannot create.
	key, _ := env.APIKey(owner, "read")
	env.Must(200, "GET", "/api/v1/sources", key, nil)
	if r := env.Do("POST", "/api/v1/sources", key, map[string]any{"name": "x", "type": "s3", "credentials": map[string]any{"bucket": "b"}}); r.Status != 403 || r.ErrorCode() != "insufficient_scope" {
		t.Fatalf("read key POST = %d %s", r.Status, r.Raw)
	}
}

// TestPostgresSourceListsItsSchema connects to the real PostgreSQL of the
// tests, as the README's walk-through does with the local one, and lists a
// schema of its own.
// pgSchema is a PostgreSQL schema of the test's own (dropped after it)
// that a postgresql source reaches with creds; exec and query run SQL in
// it, $S standing for the quoted schema.
type pgSchema struct {
	t      *testing.T
	db     *models.DB
	schema string
	creds  map[string]any
}

func newPGSchema(t *testing.T) *pgSchema {
	t.Helper()
	dsn := modelstest.URL(t, models.Postgres)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := models.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	password, _ := u.User.Password()
	creds := map[string]any{"host": u.Hostname(), "port": u.Port(), "database": strings.TrimPrefix(u.Path, "/"),
		"username": u.User.Username(), "password": password, "sslmode": "disable"}
	if creds["port"] == "" {
		creds["port"] = "5432"
	}
	return &pgSchema{t: t, db: db, schema: u.Query().Get("search_path"), creds: creds}
}

func (p *pgSchema) sql(s string) string {
	return strings.ReplaceAll(s, "$S", fmt.Sprintf("%q", p.schema))
}

func (p *pgSchema) exec(s string) {
	p.t.Helper()
	if err := p.db.Gorm.Exec(p.sql(s)).Error; err != nil {
		p.t.Fatalf("%s: %v", s, err)
	}
}

func (p *pgSchema) query(s string) float64 {
	p.t.Helper()
	var v float64
	if err := p.db.Gorm.Raw(p.sql(s)).Scan(&v).Error; err != nil {
		p.t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestPostgresSourceListsItsSchema(t *testing.T) {
	pg := newPGSchema(t)
	pg.exec(`CREATE TABLE $S.customers (id int, email text)`)
	pg.exec(`INSERT INTO $S.customers SELECT g, 'c' || g || '@example.com' FROM generate_series(1, 500) g`)
	pg.exec(`ANALYZE $S.customers`)
	schema, creds := pg.schema, pg.creds
	body := map[string]any{"type": "postgresql", "credentials": creds, "config": map[string]any{"schema": schema}}

	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("pgsource"))
	res := env.Must(200, "POST", "/api/v1/sources/test-connection", user.Access, body).Data()
	tables, _ := res["tables"].([]any)
	if res["success"] != true || res["tables_found"] != float64(1) || len(tables) != 1 {
		t.Fatalf("test-connection = %v", res)
	}
	if tb := tables[0].(map[string]any); tb["schema"] != schema || tb["table_name"] != "customers" || tb["row_estimate"] != float64(500) {
		t.Fatalf("table = %v, want customers with the catalogue's 500 rows", tb)
	}

	wrong := map[string]any{"type": "postgresql", "config": body["config"], "credentials": map[string]any{
		"host": creds["host"], "port": creds["port"], "database": creds["database"], "username": "no_such_role_x", "password": sourceSecret, "sslmode": "disable"}}
	r := env.Do("POST", "/api/v1/sources/test-connection", user.Access, wrong)
	if r.Status != 200 || r.Data()["success"] != false || strings.Contains(string(r.Raw), sourceSecret) {
		t.Fatalf("wrong user = %d %s, want success false without the password", r.Status, r.Raw)
	}
}
