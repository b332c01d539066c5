package snowflake

// These tests run the connector against an in-process FAKE of Snowflake's
// HTTP protocol (httptest): Snowflake itself cannot run here. The fake
// speaks the part of the protocol gosnowflake v1.19.1 uses for a session:
// POST /session/v1/login-request (password or key-pair JWT, checked),
// POST /queries/v1/query-request answered with JSON rowsets ("rowtype",
// "rowset"), /queries/v1/abort-request and session deletion; errors as
// Snowflake sends them (success false, a numeric code). It answers canned
// results chosen by the SQL text and records every query and its bind
// values so that the tests can check what the connector sends. A real
// Snowflake answers queries in Arrow by default; the driver decodes both,
// but only its JSON path runs here.

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

const goodPassword = "s3cret-Passw0rd!"

var (
	keyOnce sync.Once
	rsaKey  *rsa.PrivateKey
	keyPEM  string
)

func testKey() (*rsa.PrivateKey, string) {
	keyOnce.Do(func() { rsaKey, keyPEM = connectortest.NewRSAKey() })
	return rsaKey, keyPEM
}

type query struct {
	SQL  string
	Args []string
}

// col is a result column: name and Snowflake wire type (fixed, real,
// text, boolean).
type col struct{ Name, Type string }

type result struct {
	cols []col
	rows [][]*string
}

func sp(s string) *string { return &s }

type fake struct {
	srv     *httptest.Server
	mu      sync.Mutex
	queries []query
	logins  int
	// answer returns the result of a query, or a Snowflake error code.
	answer func(r *http.Request, q query) (*result, string)
}

func newFake(t *testing.T) *fake {
	f := &fake{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	f.answer = defaultAnswer
	return f
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/session/v1/login-request":
		var body struct {
			Data struct {
				AccountName   string `json:"ACCOUNT_NAME"`
				LoginName     string `json:"LOGIN_NAME"`
				Password      string `json:"PASSWORD"`
				Authenticator string `json:"AUTHENTICATOR"`
				Token         string `json:"TOKEN"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, "bad body", 400)
			return
		}
		d := body.Data
		ok := strings.EqualFold(d.AccountName, "testacc")
		switch d.Authenticator {
		case "SNOWFLAKE_JWT":
			k, _ := testKey()
			tok, err := jwt.Parse(d.Token, func(*jwt.Token) (any, error) { return &k.PublicKey, nil }, jwt.WithValidMethods([]string{"RS256"}))
			sub := ""
			if err == nil {
				sub, _ = tok.Claims.GetSubject()
			}
			ok = ok && err == nil && sub == "TESTACC.DQS"
		default:
			ok = ok && strings.EqualFold(d.LoginName, "dqs") && d.Password == goodPassword
		}
		if !ok {
			writeJSON(w, map[string]any{"success": false, "code": "390100", "message": "Incorrect username or password was specified.", "data": nil})
			return
		}
		f.mu.Lock()
		f.logins++
		f.mu.Unlock()
		writeJSON(w, map[string]any{"success": true, "code": nil, "message": nil, "data": map[string]any{
			"token": "session-token", "masterToken": "master-token", "validityInSeconds": 3600, "masterValidityInSeconds": 14400,
			"sessionId": 42, "parameters": []any{}, "serverVersion": "9.0.0",
			"sessionInfo": map[string]string{"databaseName": "DB", "schemaName": "PUBLIC", "warehouseName": "WH", "roleName": "R"},
		}})
	case "/queries/v1/query-request":
		if r.Header.Get("Authorization") != `Snowflake Token="session-token"` {
			writeJSON(w, map[string]any{"success": false, "code": "390104", "message": "not logged in"})
			return
		}
		var req struct {
			SQLText  string `json:"sqlText"`
			Bindings map[string]struct {
				Type  string `json:"type"`
				Value any    `json:"value"`
			} `json:"bindings"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, "bad body", 400)
			return
		}
		q := query{SQL: req.SQLText}
		for i := 1; i <= len(req.Bindings); i++ {
			q.Args = append(q.Args, fmt.Sprint(req.Bindings[strconv.Itoa(i)].Value))
		}
		f.mu.Lock()
		f.queries = append(f.queries, q)
		f.mu.Unlock()
		res, code := f.answer(r, q)
		if res == nil && code == "" {
			return // the client went away
		}
		if code != "" {
			writeJSON(w, map[string]any{"success": false, "code": code, "message": "SQL compilation error: Object does not exist or not authorized.",
				"data": map[string]any{"sqlState": "42S02", "queryId": "q-err"}})
			return
		}
		rowtype := make([]map[string]any, len(res.cols))
		for i, c := range res.cols {
			rowtype[i] = map[string]any{"name": c.Name, "type": c.Type, "nullable": true, "scale": 0, "precision": 38, "length": 100}
		}
		rows := res.rows
		if rows == nil {
			rows = [][]*string{}
		}
		writeJSON(w, map[string]any{"success": true, "code": nil, "message": nil, "data": map[string]any{
			"rowtype": rowtype, "rowset": rows, "total": len(rows), "returned": len(rows),
			"queryId": "q-1", "queryResultFormat": "json", "parameters": []any{},
		}})
	case "/queries/v1/abort-request", "/session", "/session/heartbeat":
		writeJSON(w, map[string]any{"success": true, "code": nil, "message": nil, "data": nil})
	default:
		http.NotFound(w, r)
	}
}

func (f *fake) sent() []query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]query(nil), f.queries...)
}

// columnsCols are the columns of columnsQuery's result.
var columnsCols = []col{{"TABLE_SCHEMA", "text"}, {"COLUMN_NAME", "text"}, {"DATA_TYPE", "text"}, {"TABLE_TYPE", "text"}}

// defaultAnswer knows schema PUBLIC with table PEOPLE, the views
// PEOPLE_VIEW and PEOPLE_MVIEW (materialized) of the same columns (and a
// SLOW table whose queries never end).
func defaultAnswer(r *http.Request, q query) (*result, string) {
	switch {
	case strings.Contains(q.SQL, `"SLOW"`):
		<-r.Context().Done()
		return nil, ""
	case strings.Contains(q.SQL, "INFORMATION_SCHEMA.COLUMNS"):
		// Before the TABLES case: columnsQuery joins both.
		kind := map[string]string{"PEOPLE": "BASE TABLE", "SLOW": "BASE TABLE", "PEOPLE_VIEW": "VIEW", "PEOPLE_MVIEW": "MATERIALIZED VIEW"}
		if len(q.Args) != 3 || kind[q.Args[2]] == "" {
			return &result{cols: columnsCols}, ""
		}
		k := kind[q.Args[2]]
		return &result{cols: columnsCols, rows: [][]*string{
			{sp("PUBLIC"), sp("ID"), sp("NUMBER"), sp(k)},
			{sp("PUBLIC"), sp("NAME"), sp("TEXT"), sp(k)},
			{sp("PUBLIC"), sp("ACTIVE"), sp("BOOLEAN"), sp(k)},
			{sp("PUBLIC"), sp("CREATED"), sp("TIMESTAMP_NTZ"), sp(k)},
		}}, ""
	case strings.Contains(q.SQL, "INFORMATION_SCHEMA.TABLES"):
		return &result{cols: []col{{"TABLE_SCHEMA", "text"}, {"TABLE_NAME", "text"}, {"ROW_COUNT", "fixed"}, {"BYTES", "fixed"}}, rows: [][]*string{
			{sp("PUBLIC"), sp("PEOPLE"), sp("4"), sp("2048")},
			{sp("PUBLIC"), sp("A_VIEW"), nil, nil},
		}}, ""
	case strings.Contains(q.SQL, "INFORMATION_SCHEMA.SCHEMATA"):
		return &result{cols: []col{{"SCHEMA_NAME", "text"}}, rows: [][]*string{{sp("PUBLIC")}}}, ""
	case strings.HasPrefix(q.SQL, "SELECT COUNT(*)"):
		vals := []*string{
			sp("4"),
			sp("0"), sp("4"), sp("1"), sp("4"), sp("2.5"), sp("1.2909944487358056"),
			sp("1"), sp("1"), sp("1.75"), sp("2.5"), sp("3.25"), sp("4"), sp("4"),
			sp("1"), sp("1"), sp("2"), sp("AB-1234"), sp("CD-5678"), sp("1"),
			sp("0"), sp("2"), sp("false"), sp("true"),
			sp("4"), sp("0"), nil, nil,
		}
		cols := make([]col, len(vals))
		for i := range cols {
			cols[i] = col{fmt.Sprintf("M%d", i), "text"}
		}
		return &result{cols: cols, rows: [][]*string{vals}}, ""
	case strings.HasPrefix(q.SQL, `SELECT * FROM "PUBLIC"."PEOPLE" SAMPLE`):
		return &result{cols: []col{{"ID", "fixed"}, {"NAME", "text"}, {"ACTIVE", "boolean"}}, rows: [][]*string{
			{sp("1"), sp("AB-1234"), sp("1")},
			{sp("2"), nil, sp("0")},
			{sp("3"), sp(""), nil},
		}}, ""
	case strings.HasPrefix(q.SQL, "SELECT * FROM"):
		return nil, "002003"
	}
	return nil, "001003"
}

func creds(extra map[string]string) connectors.Credentials {
	c := connectors.Credentials{"account": "testacc", "username": "dqs", "password": goodPassword,
		"warehouse": "WH", "database": "DB", "schema": "public"}
	for k, v := range extra {
		if v == "" {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func fakeEndpoint(t *testing.T, rawURL string) *endpoint {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(u.Port())
	return &endpoint{Protocol: "http", Host: u.Hostname(), Port: port}
}

func openFake(t *testing.T, f *fake, c connectors.Credentials, d connectors.Dialer, timeout time.Duration) *Source {
	t.Helper()
	if d == nil {
		d = &connectortest.CountingDialer{}
	}
	s, err := open(context.Background(), connectors.Options{Credentials: c, Dialer: d, Timeout: timeout}, fakeEndpoint(t, f.srv.URL))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestList(t *testing.T) {
	f := newFake(t)
	d := &connectortest.CountingDialer{}
	s := openFake(t, f, creds(nil), d, 10*time.Second)
	list, err := s.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := []connectors.Table{{Schema: "PUBLIC", Name: "A_VIEW"}, {Schema: "PUBLIC", Name: "PEOPLE", RowEstimate: 4, SizeBytes: 2048}}
	if fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("List = %+v, want %+v", list, want)
	}
	q := f.sent()
	if len(q) != 1 || q[0].SQL != listQuery || fmt.Sprint(q[0].Args) != "[public public]" {
		t.Errorf("List sent %+v", q)
	}
	if d.Dials() == 0 {
		t.Error("no connection went through the Dialer")
	}
}

func TestProfile(t *testing.T) {
	f := newFake(t)
	s := openFake(t, f, creds(nil), nil, 10*time.Second)
	p, err := s.Profile(context.Background(), "PEOPLE", map[string]string{"NAME": `^[A-Z]{2}-[0-9]{4}$`})
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 2 || p.Queries != 2 {
		t.Fatalf("Profile sent %d queries (reported %d), want 2: %+v", len(q), p.Queries, q)
	}
	if fmt.Sprint(q[0].Args) != "[public public PEOPLE]" {
		t.Errorf("columns query binds %v", q[0].Args)
	}
	agg := q[1]
	if !strings.HasPrefix(agg.SQL, "SELECT COUNT(*)") || !strings.HasSuffix(agg.SQL, `FROM "PUBLIC"."PEOPLE"`) ||
		strings.Contains(agg.SQL, "[A-Z]") || len(agg.Args) != 1 || agg.Args[0] != `^[A-Z]{2}-[0-9]{4}$` {
		t.Errorf("aggregate query %+v", agg)
	}
	if p.Rows != 4 || len(p.Columns) != 4 {
		t.Fatalf("profile %+v", p)
	}
	id := p.Columns[0]
	if id.DataType != "NUMBER" || !id.Numeric || id.Distinct != 4 || *id.Min != "1" || *id.Max != "4" || *id.Mean != 2.5 ||
		*id.StdDev != 1.2909944487358056 || *id.Median != 2.5 || id.Quantiles["p25"] != 1.75 || id.Quantiles["p99"] != 4 || len(id.Quantiles) != 7 {
		t.Errorf("ID metrics %+v", id)
	}
	name := p.Columns[1]
	if name.Numeric || name.Nulls != 1 || name.Empty != 1 || name.Distinct != 2 || *name.Min != "AB-1234" || *name.Max != "CD-5678" ||
		name.FormatConformance == nil || *name.FormatConformance != 0.5 || name.Mean != nil {
		t.Errorf("NAME metrics %+v", name)
	}
	active := p.Columns[2]
	if active.DataType != "BOOLEAN" || *active.Min != "false" || *active.Max != "true" || active.FormatConformance != nil {
		t.Errorf("ACTIVE metrics %+v", active)
	}
	created := p.Columns[3]
	if created.Nulls != 4 || created.Min != nil || created.Max != nil {
		t.Errorf("CREATED metrics %+v", created)
	}
}

func TestSample(t *testing.T) {
	f := newFake(t)
	s := openFake(t, f, creds(nil), nil, 10*time.Second)
	r, err := s.Sample(context.Background(), "PEOPLE", 10)
	if err != nil {
		t.Fatalf("Sample: %v", err)
	}
	defer r.Close()
	if r.Format() != "sql" || strings.Join(r.Columns(), ",") != "ID,NAME,ACTIVE" {
		t.Errorf("format %q columns %q", r.Format(), r.Columns())
	}
	var got []string
	for _, rec := range connectortest.ReadAll(t, r) {
		got = append(got, fmt.Sprintf("%q %v", rec.Values, rec.Null))
	}
	want := []string{
		`["1" "AB-1234" "true"] [false false false]`,
		`["2" "" "false"] [false true false]`,
		`["3" "" ""] [false false true]`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows\n got %q\nwant %q", got, want)
	}
	q := f.sent()
	if len(q) != 2 || q[0].SQL != schemaQuery || q[1].SQL != `SELECT * FROM "PUBLIC"."PEOPLE" SAMPLE (10 ROWS)` {
		t.Errorf("Sample sent %+v", q)
	}
	// The schema's stored name is looked up once.
	r2, err := s.Sample(context.Background(), "PEOPLE", 2)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for ; ; n++ {
		if _, err := r2.Next(); err != nil {
			break
		}
	}
	r2.Close()
	if n != 2 {
		t.Errorf("limit 2 gave %d rows", n)
	}
	if q := f.sent(); len(q) != 3 {
		t.Errorf("second Sample sent %d queries in all, want 3", len(q))
	}
}

func TestKeyPair(t *testing.T) {
	f := newFake(t)
	_, pemKey := testKey()
	s := openFake(t, f, creds(map[string]string{"password": "", "private_key": pemKey}), nil, 10*time.Second)
	if _, err := s.List(context.Background()); err != nil {
		t.Fatalf("List with a key pair: %v", err)
	}
}

func TestNotFound(t *testing.T) {
	f := newFake(t)
	s := openFake(t, f, creds(nil), nil, 10*time.Second)
	if _, err := s.Profile(context.Background(), "NOPE", nil); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Profile of a missing table: %v", err)
	}
	if _, err := s.Sample(context.Background(), "NOPE", 5); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Sample of a missing table: %v", err)
	}
	for _, q := range f.sent() {
		if strings.HasPrefix(q.SQL, "SELECT COUNT(*)") {
			t.Errorf("an aggregate query was sent for a missing table: %s", q.SQL)
		}
	}
}

func TestWrongCredentials(t *testing.T) {
	f := newFake(t)
	_, otherPEM := connectortest.NewRSAKey()
	for name, c := range map[string]connectors.Credentials{
		"password": creds(map[string]string{"password": "wrong-Passw0rd-xyz"}),
		"key":      creds(map[string]string{"password": "", "private_key": otherPEM}),
	} {
		t.Run(name, func(t *testing.T) {
			s := openFake(t, f, c, nil, 10*time.Second)
			err := connectortest.FailsWithin(t, "List with refused credentials", 5*time.Second, func() error {
				_, err := s.List(context.Background())
				return err
			}, connectors.ErrConnect)
			msg := err.Error()
			for _, secret := range []string{"wrong-Passw0rd-xyz", "PRIVATE KEY", otherPEM[40:80]} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q carries a secret", msg)
				}
			}
		})
	}
}

func TestInvalidSettings(t *testing.T) {
	for _, c := range []connectors.Credentials{
		creds(map[string]string{"account": ""}),
		creds(map[string]string{"account": "evil.com/x?"}),
		creds(map[string]string{"username": ""}),
		creds(map[string]string{"password": ""}),
		creds(map[string]string{"warehouse": ""}),
		creds(map[string]string{"database": ""}),
		creds(map[string]string{"password": "", "private_key": "-----BEGIN PRIVATE KEY-----\nc2Vrcml0\n-----END PRIVATE KEY-----\n"}),
		creds(map[string]string{"private_key": "sekrit"}),
	} {
		_, err := Open(context.Background(), connectors.Options{Credentials: c, Dialer: &connectortest.CountingDialer{}})
		if !errors.Is(err, connectors.ErrInvalid) || strings.Contains(err.Error(), "sekrit") || strings.Contains(err.Error(), "c2Vrcml0") {
			t.Errorf("Open(%v): %v", c, err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	addr := connectortest.ClosedAddr(t)
	d := &connectortest.CountingDialer{}
	s, err := open(context.Background(), connectors.Options{Credentials: creds(nil), Dialer: d, Timeout: 20 * time.Second}, fakeEndpoint(t, "http://"+addr))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	err = connectortest.FailsWithin(t, "List of a closed port", 5*time.Second, func() error {
		_, err := s.List(context.Background())
		return err
	}, connectors.ErrConnect)
	if strings.Contains(err.Error(), goodPassword) || d.Dials() == 0 {
		t.Errorf("error %q, %d dials", err, d.Dials())
	}
}

func TestGuardRefusal(t *testing.T) {
	refused := errors.New("address not allowed")
	s, err := open(context.Background(), connectors.Options{Credentials: creds(nil), Dialer: connectortest.RefusingDialer{Err: refused}}, &endpoint{Protocol: "http", Host: "10.0.0.1", Port: 80})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	connectortest.FailsWithin(t, "List through a refusing guard", 5*time.Second, func() error {
		_, err := s.List(context.Background())
		return err
	}, connectors.ErrConnect, refused)
}

func TestCancel(t *testing.T) {
	f := newFake(t)
	s := openFake(t, f, creds(nil), nil, 10*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	connectortest.FailsWithin(t, "cancelled Profile", 3*time.Second, func() error {
		_, err := s.Profile(ctx, "SLOW", nil)
		return err
	}, context.Canceled)
	if _, err := s.List(ctx); err == nil {
		t.Error("List with a cancelled context succeeded")
	}
	// The source still works.
	if _, err := s.List(context.Background()); err != nil {
		t.Errorf("List after a cancelled call: %v", err)
	}
}

func TestTimeout(t *testing.T) {
	f := newFake(t)
	s := openFake(t, f, creds(nil), nil, 10*time.Second)
	if _, err := s.List(context.Background()); err != nil { // logged in
		t.Fatal(err)
	}
	// The profile timeout, not the call timeout, bounds Profile: past
	// it the error is final (ErrTimedOut), not a connection failure.
	s.readTimeout = 400 * time.Millisecond
	err := connectortest.FailsWithin(t, "Profile past the profile timeout", 3*time.Second, func() error {
		_, err := s.Profile(context.Background(), "SLOW", nil)
		return err
	}, connectors.ErrTimedOut)
	if errors.Is(err, connectors.ErrConnect) || !strings.Contains(err.Error(), "within 400ms") {
		t.Errorf("Profile past the profile timeout: %v", err)
	}
}

// With Options.HTTPClient and no Dialer, the driver's requests go through
// the client's transport.
func TestHTTPClient(t *testing.T) {
	f := newFake(t)
	rt := &connectortest.CountingTransport{}
	s, err := open(context.Background(), connectors.Options{Credentials: creds(nil), HTTPClient: &http.Client{Transport: rt}}, fakeEndpoint(t, f.srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.List(context.Background()); err != nil {
		t.Fatalf("List: %v", err)
	}
	if rt.Requests() < 2 {
		t.Errorf("Options.HTTPClient saw %d requests, want the login and the query", rt.Requests())
	}
}

// The driver's probing of cloud metadata servers, which would not go
// through the Dialer, is off, and so is its native library.
func TestPlatformDetectionAndNativeLibraryOff(t *testing.T) {
	for _, name := range []string{"SNOWFLAKE_DISABLE_PLATFORM_DETECTION", "SF_DISABLE_MINICORE"} {
		if v := os.Getenv(name); v != "true" {
			t.Errorf("%s=%q", name, v)
		}
	}
}
