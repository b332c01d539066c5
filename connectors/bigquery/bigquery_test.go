package bigquery

// These tests run the connector against an in-process FAKE of BigQuery's
// REST API (httptest): BigQuery itself cannot run here. The fake speaks
// just enough of the protocol the client library uses (tables.get and
// jobs.query answered complete, JSON f/v rows, googleapi errors) and
// answers canned results chosen by the shape of the SQL it receives; it
// records every query and its parameters so that the tests can check what
// the connector sends. It checks the bearer token's key id to play a
// service account BigQuery refuses.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

var (
	keyOnce sync.Once
	keyPEM  string
)

// serviceAccount returns a service account key file with a fresh RSA key
// and the given key id.
func serviceAccount(t *testing.T, kid string) string {
	t.Helper()
	keyOnce.Do(func() { _, keyPEM = connectortest.NewRSAKey() })
	b, _ := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "proj",
		"private_key_id": kid,
		"private_key":    keyPEM,
		"client_email":   "dqs@proj.iam.gserviceaccount.com",
		"client_id":      "1",
		"token_uri":      "http://127.0.0.1:1/token",
	})
	return string(b)
}

type query struct {
	SQL    string
	Params map[string]string
}

// fake is the BigQuery stand-in.
type fake struct {
	srv     *httptest.Server
	mu      sync.Mutex
	queries []query
	tables  map[string]fakeTable
	// profileRow answers a profile query.
	profileRow []any
	sampleRows [][]any
	// count answers a sampled profile's row count (SELECT COUNT(*) FROM
	// t), sampledRow its aggregate query over a sample (TABLESAMPLE).
	count      int64
	sampledRow []any
}

type fakeTable struct {
	fields []map[string]string
	rows   int64
	typ    string
}

func newFake(t *testing.T) *fake {
	f := &fake{tables: map[string]fakeTable{
		"people": {rows: 4, typ: "TABLE", fields: []map[string]string{
			{"name": "id", "type": "INTEGER", "mode": "REQUIRED"},
			{"name": "name", "type": "STRING"},
			{"name": "active", "type": "BOOLEAN"},
			{"name": "created", "type": "TIMESTAMP"},
		}},
		"slow": {rows: 1, typ: "TABLE", fields: []map[string]string{{"name": "id", "type": "INTEGER"}}},
	}}
	f.tables["people_view"] = fakeTable{rows: 0, typ: "VIEW", fields: f.tables["people"].fields}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, code int, reason, msg string) {
	writeJSON(w, code, map[string]any{"error": map[string]any{
		"code": code, "message": msg, "errors": []any{map[string]any{"reason": reason, "message": msg}},
	}})
}

func (f *fake) serve(w http.ResponseWriter, r *http.Request) {
	if !f.authorized(r) {
		apiError(w, 401, "unauthorized", "Request had invalid authentication credentials.")
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/bigquery/v2/")
	parts := strings.Split(path, "/")
	switch {
	case r.Method == "GET" && len(parts) == 6 && parts[0] == "projects" && parts[2] == "datasets" && parts[4] == "tables":
		tb, ok := f.tables[parts[5]]
		if parts[3] != "ds" || !ok {
			apiError(w, 404, "notFound", "Not found: Table proj:"+parts[3]+"."+parts[5])
			return
		}
		writeJSON(w, 200, map[string]any{
			"kind":           "bigquery#table",
			"tableReference": map[string]string{"projectId": "proj", "datasetId": "ds", "tableId": parts[5]},
			"schema":         map[string]any{"fields": tb.fields},
			"numRows":        fmt.Sprint(tb.rows),
			"numBytes":       "1234",
			"type":           tb.typ,
		})
	case r.Method == "POST" && len(parts) == 3 && parts[0] == "projects" && parts[2] == "queries":
		var req struct {
			Query           string `json:"query"`
			QueryParameters []struct {
				Name           string `json:"name"`
				ParameterValue struct {
					Value string `json:"value"`
				} `json:"parameterValue"`
			} `json:"queryParameters"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			apiError(w, 400, "invalid", "bad body")
			return
		}
		q := query{SQL: req.Query, Params: map[string]string{}}
		for _, p := range req.QueryParameters {
			q.Params[p.Name] = p.ParameterValue.Value
		}
		f.mu.Lock()
		f.queries = append(f.queries, q)
		f.mu.Unlock()
		f.answer(w, r, q)
	case r.Method == "GET" && getQueryResults(w, parts):
	default:
		apiError(w, 404, "notFound", "no such method "+r.Method+" "+r.URL.Path)
	}
}

// authorized accepts self-signed JWTs of key id "good".
func (f *fake) authorized(r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	head, _, _ := strings.Cut(tok, ".")
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return false
	}
	var h struct {
		Kid string `json:"kid"`
	}
	return json.Unmarshal(b, &h) == nil && h.Kid == "good"
}

func (f *fake) answer(w http.ResponseWriter, r *http.Request, q query) {
	switch {
	case strings.Contains(q.SQL, "`slow`"):
		<-r.Context().Done()
		return
	case strings.Contains(q.SQL, "`nodataset`"):
		apiError(w, 404, "notFound", "Not found: Dataset proj:nodataset")
	case strings.Contains(q.SQL, "__TABLES__"):
		queryResult(w, []string{"table_id", "row_count", "size_bytes", "type"}, [][]any{
			{"people", int64(4), int64(1234), int64(1)},
			{"a_view", int64(0), int64(0), int64(2)},
		})
	case strings.HasPrefix(q.SQL, "SELECT COUNT(*) FROM "):
		queryResult(w, []string{"f0_"}, [][]any{{f.count}})
	case strings.HasPrefix(q.SQL, "SELECT COUNT(*)"):
		row := f.profileRow
		if strings.Contains(q.SQL, " TABLESAMPLE ") {
			row = f.sampledRow
		}
		names := make([]string, len(row))
		for i := range names {
			names[i] = fmt.Sprintf("m%d", i)
		}
		queryResult(w, names, [][]any{row})
	case strings.Contains(q.SQL, "ORDER BY RAND()"):
		queryResult(w, []string{"id", "name", "active", "created"}, f.sampleRows)
	default:
		apiError(w, 400, "invalidQuery", "Syntax error")
	}
}

// queryResult writes a complete jobs.query answer; the schema follows the
// Go types of the first row (nil: STRING).
func queryResult(w http.ResponseWriter, names []string, rows [][]any) {
	fields := make([]map[string]string, len(names))
	for i, n := range names {
		fields[i] = map[string]string{"name": n, "type": "STRING"}
		if len(rows) > 0 {
			switch rows[0][i].(type) {
			case int64:
				fields[i]["type"] = "INTEGER"
			case float64:
				fields[i]["type"] = "FLOAT"
			case []float64:
				fields[i]["type"], fields[i]["mode"] = "FLOAT", "REPEATED"
			}
		}
	}
	var out []any
	for _, row := range rows {
		cells := make([]any, len(row))
		for i, v := range row {
			switch x := v.(type) {
			case nil:
				cells[i] = map[string]any{"v": nil}
			case []float64:
				var arr []any
				for _, e := range x {
					arr = append(arr, map[string]any{"v": fmt.Sprint(e)})
				}
				cells[i] = map[string]any{"v": arr}
			default:
				cells[i] = map[string]any{"v": fmt.Sprint(x)}
			}
		}
		out = append(out, map[string]any{"f": cells})
	}
	jobID := fmt.Sprint("job", jobSeq.Add(1))
	// BigQuery leaves rows out of an empty result; the client then asks
	// jobs.getQueryResults, which answers from jobs.
	resp := map[string]any{
		"kind":         "bigquery#getQueryResultsResponse",
		"jobReference": map[string]string{"projectId": "proj", "jobId": jobID, "location": "US"},
		"jobComplete":  true,
		"schema":       map[string]any{"fields": fields},
		"totalRows":    fmt.Sprint(len(rows)),
	}
	if len(out) > 0 {
		resp["rows"] = out
	}
	jobs.Store(jobID, resp)
	writeJSON(w, 200, map[string]any{
		"kind":         "bigquery#queryResponse",
		"jobReference": map[string]string{"projectId": "proj", "jobId": jobID, "location": "US"},
		"jobComplete":  true,
		"schema":       map[string]any{"fields": fields},
		"rows":         out,
		"totalRows":    fmt.Sprint(len(rows)),
	})
}

var (
	jobSeq atomic.Int64
	jobs   sync.Map
)

// getQueryResults answers GET projects/{p}/queries/{job} from jobs.
func getQueryResults(w http.ResponseWriter, parts []string) bool {
	if len(parts) != 4 || parts[0] != "projects" || parts[2] != "queries" {
		return false
	}
	resp, ok := jobs.Load(parts[3])
	if !ok {
		apiError(w, 404, "notFound", "Not found: Job")
		return true
	}
	writeJSON(w, 200, resp)
	return true
}

func (f *fake) sent() []query {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]query(nil), f.queries...)
}

func openFake(t *testing.T, f *fake, kid string) (*Source, *connectortest.CountingDialer) {
	return openFakeWith(t, f, kid, false)
}

// openFakeWith opens the fake, with Options.SampledProfile set to sampled.
func openFakeWith(t *testing.T, f *fake, kid string, sampled bool) (*Source, *connectortest.CountingDialer) {
	t.Helper()
	d := &connectortest.CountingDialer{}
	s, err := open(context.Background(), connectors.Options{
		Credentials:    connectors.Credentials{"project_id": "proj", "dataset": "ds", "service_account_json": serviceAccount(t, kid)},
		Dialer:         d,
		Timeout:        10 * time.Second,
		SampledProfile: sampled,
	}, f.srv.URL+"/bigquery/v2/")
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, d
}

func TestList(t *testing.T) {
	f := newFake(t)
	s, d := openFake(t, f, "good")
	list, err := s.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	want := []connectors.Table{
		{Schema: "ds", Name: "a_view"},
		{Schema: "ds", Name: "people", RowEstimate: 4, SizeBytes: 1234},
	}
	if fmt.Sprint(list) != fmt.Sprint(want) {
		t.Errorf("List = %+v, want %+v", list, want)
	}
	q := f.sent()
	if len(q) != 1 || !strings.Contains(q[0].SQL, "`proj`.`ds`.__TABLES__") || strings.Contains(q[0].SQL, "COUNT") {
		t.Errorf("List sent %+v", q)
	}
	if d.Dials() == 0 {
		t.Error("no connection went through the Dialer")
	}
}

// peopleRow is the profile query's row over table people (4 rows) with a
// format for name.
func peopleRow() []any {
	qs := make([]float64, 101)
	for i := range qs {
		qs[i] = float64(i)
	}
	return []any{
		int64(4),                                                  // rows
		int64(0), int64(4), "1", "4", 2.5, 1.2909944487358056, qs, // id
		int64(1), int64(1), int64(2), "AB-1234", "CD-5678", int64(1), // name: nulls, empty, distinct, min, max, format
		int64(0), int64(2), "false", "true", // active
		int64(4), int64(0), nil, nil, // created: all null
	}
}

func TestProfile(t *testing.T) {
	f := newFake(t)
	f.profileRow = peopleRow()
	s, _ := openFake(t, f, "good")
	p, err := s.Profile(context.Background(), "people", map[string]string{"name": `^[A-Z]{2}-[0-9]{4}$`})
	if err != nil {
		t.Fatalf("Profile: %v", err)
	}
	q := f.sent()
	if len(q) != 1 || p.Queries != 1 {
		t.Fatalf("Profile sent %d queries (reported %d), want 1: %+v", len(q), p.Queries, q)
	}
	if q[0].Params["p0"] != `^(?:^[A-Z]{2}-[0-9]{4}$)$` || strings.Contains(q[0].SQL, "[A-Z]") || !strings.Contains(q[0].SQL, "@p0") {
		t.Errorf("format not sent as a parameter: %+v", q[0])
	}
	if p.Rows != 4 || len(p.Columns) != 4 {
		t.Fatalf("profile %+v", p)
	}
	id := p.Columns[0]
	if id.Name != "id" || id.DataType != "INT64" || !id.Numeric || id.Distinct != 4 || *id.Min != "1" || *id.Max != "4" ||
		*id.Mean != 2.5 || *id.StdDev != 1.2909944487358056 || *id.Median != 50 ||
		id.Quantiles["p01"] != 1 || id.Quantiles["p25"] != 25 || id.Quantiles["p99"] != 99 || len(id.Quantiles) != 7 {
		t.Errorf("id metrics %+v", id)
	}
	name := p.Columns[1]
	if name.Numeric || name.Nulls != 1 || name.Empty != 1 || name.Distinct != 2 || *name.Min != "AB-1234" || name.Mean != nil ||
		name.FormatConformance == nil || *name.FormatConformance != 0.5 {
		t.Errorf("name metrics %+v", name)
	}
	active := p.Columns[2]
	if active.DataType != "BOOL" || *active.Min != "false" || *active.Max != "true" || active.FormatConformance != nil {
		t.Errorf("active metrics %+v", active)
	}
	created := p.Columns[3]
	if created.DataType != "TIMESTAMP" || created.Nulls != 4 || created.Min != nil || created.Max != nil {
		t.Errorf("created metrics %+v", created)
	}
}

func TestSample(t *testing.T) {
	f := newFake(t)
	f.sampleRows = [][]any{
		{"1", "AB-1234", "true", "2024-01-02 03:04:05+00"},
		{"2", nil, "false", nil},
	}
	s, _ := openFake(t, f, "good")
	r, err := s.Sample(context.Background(), "people", 10)
	if err != nil {
		t.Fatalf("Sample: %v", err)
	}
	defer r.Close()
	if r.Format() != "sql" || strings.Join(r.Columns(), ",") != "id,name,active,created" {
		t.Errorf("format %q columns %q", r.Format(), r.Columns())
	}
	var got []string
	for _, rec := range connectortest.ReadAll(t, r) {
		got = append(got, fmt.Sprint(rec.Values, rec.Null))
	}
	want := []string{
		"[1 AB-1234 true 2024-01-02 03:04:05+00] [false false false false]",
		"[2  false ] [false true false true]",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	q := f.sent()
	if len(q) != 1 || !strings.HasSuffix(q[0].SQL, "FROM `proj`.`ds`.`people` ORDER BY RAND() LIMIT 10") {
		t.Errorf("Sample sent %+v", q)
	}
}

func TestNotFound(t *testing.T) {
	f := newFake(t)
	s, _ := openFake(t, f, "good")
	if _, err := s.Profile(context.Background(), "nope", nil); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Profile of a missing table: %v", err)
	}
	if _, err := s.Sample(context.Background(), "nope", 5); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("Sample of a missing table: %v", err)
	}
	if n := len(f.sent()); n != 0 {
		t.Errorf("%d queries sent for a missing table", n)
	}
	s2, err := open(context.Background(), connectors.Options{
		Credentials: connectors.Credentials{"project_id": "proj", "dataset": "nodataset", "service_account_json": serviceAccount(t, "good")},
		Dialer:      &connectortest.CountingDialer{},
	}, f.srv.URL+"/bigquery/v2/")
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := s2.List(context.Background()); !errors.Is(err, connectors.ErrNotFound) {
		t.Errorf("List of a missing dataset: %v", err)
	}
}

func TestWrongCredentials(t *testing.T) {
	f := newFake(t)
	sa := serviceAccount(t, "revoked")
	s, err := open(context.Background(), connectors.Options{
		Credentials: connectors.Credentials{"project_id": "proj", "dataset": "ds", "service_account_json": sa},
		Dialer:      &connectortest.CountingDialer{},
	}, f.srv.URL+"/bigquery/v2/")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.List(context.Background())
	if !errors.Is(err, connectors.ErrConnect) {
		t.Fatalf("List with a refused key: %v, want ErrConnect", err)
	}
	msg := err.Error()
	for _, secret := range []string{"PRIVATE KEY", keyPEM[40:80], "revoked", "private_key"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error %q carries %q", msg, secret)
		}
	}
}

func TestInvalidSettings(t *testing.T) {
	for _, c := range []connectors.Credentials{
		{"dataset": "ds", "service_account_json": "{}"},
		{"project_id": "p", "service_account_json": "{}"},
		{"project_id": "p", "dataset": "ds"},
		{"project_id": "p", "dataset": "ds", "service_account_json": `{"type":"authorized_user","refresh_token":"sekrit"}`},
		{"project_id": "p", "dataset": "ds", "service_account_json": `{"type":"service_account","private_key":"sekrit"}`},
	} {
		_, err := Open(context.Background(), connectors.Options{Credentials: c, Dialer: &connectortest.CountingDialer{}})
		if !errors.Is(err, connectors.ErrInvalid) || strings.Contains(err.Error(), "sekrit") {
			t.Errorf("Open(%v): %v", c, err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	addr := connectortest.ClosedAddr(t)
	d := &connectortest.CountingDialer{}
	s, err := open(context.Background(), connectors.Options{
		Credentials: connectors.Credentials{"project_id": "proj", "dataset": "ds", "service_account_json": serviceAccount(t, "good")},
		Dialer:      d,
		Timeout:     20 * time.Second,
	}, "http://"+addr+"/bigquery/v2/")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	connectortest.FailsWithin(t, "List of a closed port", 5*time.Second, func() error {
		_, err := s.List(context.Background())
		return err
	}, connectors.ErrConnect)
	if d.Dials() == 0 {
		t.Error("the Dialer was not used")
	}
}

// A refusal by the Dialer (the network guard) is ErrConnect and still
// reachable with errors.Is.
func TestGuardRefusal(t *testing.T) {
	refused := errors.New("address not allowed")
	s, err := open(context.Background(), connectors.Options{
		Credentials: connectors.Credentials{"project_id": "proj", "dataset": "ds", "service_account_json": serviceAccount(t, "good")},
		Dialer:      connectortest.RefusingDialer{Err: refused},
	}, "http://10.0.0.1/bigquery/v2/")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.List(context.Background())
	if !errors.Is(err, connectors.ErrConnect) || !errors.Is(err, refused) {
		t.Errorf("List through a refusing guard: %v", err)
	}
}

func TestCancel(t *testing.T) {
	f := newFake(t)
	s, _ := openFake(t, f, "good")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	connectortest.FailsWithin(t, "cancelled Profile", 3*time.Second, func() error {
		_, err := s.Profile(ctx, "slow", nil)
		return err
	}, context.Canceled)
	// Already cancelled: nothing is sent.
	if _, err := s.List(ctx); err == nil {
		t.Error("List with a cancelled context succeeded")
	}
}

func TestTimeout(t *testing.T) {
	f := newFake(t)
	s, _ := openFake(t, f, "good")
	// The profile timeout, not the call timeout, bounds Profile: past
	// it the error is final (ErrTimedOut), not a connection failure.
	s.readTimeout = 300 * time.Millisecond
	err := connectortest.FailsWithin(t, "Profile past the profile timeout", 3*time.Second, func() error {
		_, err := s.Profile(context.Background(), "slow", nil)
		return err
	}, connectors.ErrTimedOut)
	if errors.Is(err, connectors.ErrConnect) || !strings.Contains(err.Error(), "within 300ms") {
		t.Errorf("Profile past the profile timeout: %v", err)
	}
}

// With Options.HTTPClient and no Dialer, requests (signed with the
// service account) go through the client's transport.
func TestHTTPClient(t *testing.T) {
	f := newFake(t)
	rt := &connectortest.CountingTransport{}
	s, err := open(context.Background(), connectors.Options{
		Credentials: connectors.Credentials{"project_id": "proj", "dataset": "ds", "service_account_json": serviceAccount(t, "good")},
		HTTPClient:  &http.Client{Transport: rt},
	}, f.srv.URL+"/bigquery/v2/")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.List(context.Background()); err != nil {
		t.Fatalf("List: %v", err)
	}
	if rt.Requests() == 0 {
		t.Error("Options.HTTPClient was not used")
	}
}
