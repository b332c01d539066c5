package api_test

// Scans over the running service: the real Temporal dev server and
// worker, a real PostgreSQL schema as the scanned database, and a real
// S3-compatible server (gofakes3) read through the official AWS SDK.

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
)

// pgScanSource makes a PostgreSQL schema of its own holding customers
// (500 rows, every tenth e-mail null) and orders (1,200 rows), and
// returns the source body that reaches it and a query runner for oracles.
func pgScanSource(t *testing.T) (body map[string]any, query func(sql string) float64) {
	t.Helper()
	pg := newPGSchema(t)
	pg.exec(`CREATE TABLE $S.customers (id int, email text, age int)`)
	pg.exec(`INSERT INTO $S.customers SELECT g, CASE WHEN g % 10 = 0 THEN NULL ELSE 'c' || g || '@example.com' END, 18 + g % 70 FROM generate_series(1, 500) g`)
	pg.exec(`CREATE TABLE $S.orders (id int, amount numeric(10,2))`)
	pg.exec(`INSERT INTO $S.orders SELECT g, (g * 7 % 1000) / 10.0 FROM generate_series(1, 1200) g`)
	pg.exec(`ANALYZE $S.customers`)
	pg.exec(`ANALYZE $S.orders`)
	body = map[string]any{"name": "warehouse", "type": "postgresql", "config": map[string]any{"schema": pg.schema}, "credentials": pg.creds}
	return body, pg.query
}

func resultOf(t *testing.T, scan map[string]any, table string) map[string]any {
	t.Helper()
	for _, r := range scan["results"].([]any) {
		if m := r.(map[string]any); m["table_name"] == table {
			return m
		}
	}
	t.Fatalf("scan has no result for %s: %v", table, scan["results"])
	return nil
}

// profileOf is the result of one table or object of a scan with its
// profile, as GET .../results?table= answers it.
func profileOf(t *testing.T, env *servicetest.Env, token, scanPath, table string) map[string]any {
	t.Helper()
	r := env.Must(200, "GET", scanPath+"/results?table="+url.QueryEscape(table), token, nil)
	if list := r.List(); len(list) == 1 && list[0]["table_name"] == table && r.Body["meta"].(map[string]any)["total"] == float64(1) {
		return list[0]
	}
	t.Fatalf("results of %s = %s, want exactly its result", table, r.Raw)
	return nil
}

func columnOf(t *testing.T, result map[string]any, name string) map[string]any {
	t.Helper()
	for _, c := range result["profile"].(map[string]any)["columns"].([]any) {
		if m := c.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no column %s in %v", name, result)
	return nil
}

func TestScanPostgresSource(t *testing.T) {
	body, query := pgScanSource(t)
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("scanpg"))
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, body).Data()
	base := fmt.Sprintf("/api/v1/sources/%v", src["id"])

	// Estimate from the catalogue: each table 1 + 1 per started 100,000 rows.
	started := env.Must(202, "POST", base+"/scan", user.Access, nil).Data()
	if started["status"] != "queued" || started["estimated_tokens"] != float64(4) || !strings.HasPrefix(started["scan_id"].(string), "scn_") {
		t.Fatalf("scan = %v, want queued, estimated 4 tokens, a scn_ id", started)
	}
	scan := waitJob(t, env, user.Access, base+"/scans/"+started["scan_id"].(string))
	if scan["status"] != "completed" || scan["tables_scanned"] != float64(2) || scan["tables_failed"] != float64(0) ||
		scan["rows_read"] != float64(1700) || scan["charged_tokens"] != float64(4) || scan["progress"] != float64(100) ||
		scan["started_at"] == nil || scan["completed_at"] == nil || scan["error"] != nil {
		t.Fatalf("scan = %v", scan)
	}
	if b := env.Must(200, "GET", "/api/v1/billing/balance", user.Access, nil).Data()["tokens"]; b != float64(96) {
		t.Fatalf("balance = %v, want 100 - 4", b)
	}
	if s := env.Must(200, "GET", base, user.Access, nil).Data(); s["last_scan_status"] != "completed" || s["last_scan_at"] == nil {
		t.Fatalf("source after scan = %v", s)
	}

	if r := resultOf(t, scan, "customers"); r["rows"] != float64(500) || r["status"] != "completed" || r["profile"] != nil {
		t.Fatalf("customers in the scan's status = %v, want its rows and status without the profile", r)
	}
	customers := profileOf(t, env, user.Access, base+"/scans/"+started["scan_id"].(string), "customers")
	email := columnOf(t, customers, "email")
	cls := email["classification"].(map[string]any)
	if customers["rows"] != float64(500) || cls["label"] != "email" || email["nulls"] != float64(50) || email["format_conformance"] != float64(1) {
		t.Fatalf("customers.email = %v (rows %v), want 50 nulls of 500, classified email, all conforming", email, customers["rows"])
	}
	if email["min"] != nil || email["max"] != nil {
		t.Fatalf("a personal column shows its values: %v", email)
	}

	// The history holds what the database says, computed here by hand.
	hist := func(metric, filter string) []map[string]any {
		return env.Must(200, "GET", base+"/metrics/"+metric+"/history?"+filter, user.Access, nil).List()
	}
	if h := hist("row_count", "table=customers&column="); len(h) != 1 || h[0]["value"] != float64(500) || h[0]["scan_id"] != started["scan_id"] || h[0]["column_name"] != nil {
		t.Fatalf("row_count history = %v", h)
	}
	wantNull := query(`SELECT count(*) FILTER (WHERE email IS NULL)::float8 / count(*) FROM $S.customers`)
	if h := hist("null_rate", "table=customers&column=email"); len(h) != 1 || h[0]["value"] != wantNull {
		t.Fatalf("null_rate history = %v, want %v", h, wantNull)
	}
	wantMean := query(`SELECT avg(age)::float8 FROM $S.customers`)
	if h := hist("mean", "table=customers&column=age"); len(h) != 1 || math.Abs(h[0]["value"].(float64)-wantMean) > 1e-9 {
		t.Fatalf("mean history = %v, want %v", h, wantMean)
	}
	if h := hist("row_count", "since=2099-01-01"); len(h) != 0 {
		t.Fatalf("since in the future = %v", h)
	}
	for _, bad := range []string{"/metrics/row_count/history?since=yesterday", "/metrics/no_such_metric/history"} {
		if r := env.Do("GET", base+bad, user.Access, nil); r.Status != 400 || r.ErrorCode() != "bad_request" {
			t.Errorf("GET %s = %d %s, want 400", bad, r.Status, r.Raw)
		}
	}

	// A table named that the source lacks fails alone.
	started = env.Must(202, "POST", base+"/scan", user.Access, map[string]any{"tables": []string{"orders", "gone"}}).Data()
	scan = waitJob(t, env, user.Access, base+"/scans/"+started["scan_id"].(string))
	if scan["status"] != "completed" || scan["tables_scanned"] != float64(1) || scan["tables_failed"] != float64(1) ||
		!strings.Contains(fmt.Sprint(scan["error"]), "gone") || resultOf(t, scan, "gone")["status"] != "failed" {
		t.Fatalf("partial scan = %v", scan)
	}
	list := env.Must(200, "GET", base+"/scans", user.Access, nil)
	if list.Body["meta"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("scans list = %s", list.Raw)
	}

	// Bad requests and the token check.
	for _, tc := range []struct {
		body any
		code string
	}{
		{map[string]any{"tables": []string{""}}, "bad_request"},
		{map[string]any{"schema": "elsewhere"}, "bad_request"},
		{map[string]any{"tables": "customers"}, "bad_request"},
	} {
		if r := env.Do("POST", base+"/scan", user.Access, tc.body); r.ErrorCode() != tc.code {
			t.Errorf("scan %v = %d %s, want %s", tc.body, r.Status, r.Raw, tc.code)
		}
	}
	balance := env.Must(200, "GET", "/api/v1/billing/balance", user.Access, nil).Data()["tokens"].(float64)
	if _, err := env.App.Stores.Orgs.SpendTokens(context.Background(), user.OrgID, int64(balance)-3); err != nil {
		t.Fatal(err)
	}
	if r := env.Do("POST", base+"/scan", user.Access, nil); r.Status != 402 || r.ErrorCode() != "insufficient_tokens" {
		t.Fatalf("scan with 3 tokens = %d %s, want 402", r.Status, r.Raw)
	}
	if l := env.Must(200, "GET", base+"/scans", user.Access, nil).Body["meta"].(map[string]any)["total"]; l != float64(2) {
		t.Fatalf("a refused scan was stored: %v scans", l)
	}

	// The public API: trigger one table by API key (scope scan), poll it.
	key, _ := env.APIKey(user, "scan")
	pub := env.Must(202, "POST", "/api/v1/public/scan/trigger", key, map[string]any{"source_id": src["id"], "table_name": "orders"}).Data()
	done := waitJob(t, env, key, "/api/v1/public/scan/"+pub["scan_id"].(string)+"/status")
	if done["status"] != "completed" || done["tables_scanned"] != float64(1) || done["source_id"] != src["id"] {
		t.Fatalf("public scan = %v", done)
	}
	readKey, _ := env.APIKey(user, "read")
	if r := env.Do("POST", "/api/v1/public/scan/trigger", readKey, map[string]any{"source_id": src["id"]}); r.Status != 403 {
		t.Fatalf("trigger with a read key = %d %s, want 403", r.Status, r.Raw)
	}
	if r := env.Do("POST", "/api/v1/public/scan/trigger", key, map[string]any{"table_name": "orders"}); r.Status != 400 {
		t.Fatalf("trigger without source_id = %d %s, want 400", r.Status, r.Raw)
	}
	other := env.Register(servicetest.Unique("scanother"))
	if r := env.Do("GET", "/api/v1/public/scan/"+pub["scan_id"].(string)+"/status", other.Access, nil); r.Status != 404 {
		t.Fatalf("another organisation's scan = %d %s, want 404", r.Status, r.Raw)
	}
	if r := env.Do("POST", "/api/v1/public/scan/trigger", other.Access, map[string]any{"source_id": src["id"]}); r.Status != 404 {
		t.Fatalf("another organisation's source = %d %s, want 404", r.Status, r.Raw)
	}
}

func TestScanObjectSource(t *testing.T) {
	url, put := bucketWith(t, map[string]string{
		"exports/customers.csv":  "name,email\nAda,ada@example.com\nBob,bob@example.com\nEve,\n",
		"exports/orders.jsonl":   `{"id":1,"amount":10.5}` + "\n" + `{"id":2,"amount":4.5}` + "\n",
		"exports/broken.parquet": "this is not a parquet file",
	})
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("scans3"))
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, s3Source("lake", url)).Data()
	base := fmt.Sprintf("/api/v1/sources/%v", src["id"])
	if r := env.Do("POST", base+"/scan", user.Access, map[string]any{"tables": []string{"x"}}); r.Status != 400 {
		t.Fatalf("tables on a bucket = %d %s, want 400", r.Status, r.Raw)
	}

	started := env.Must(202, "POST", base+"/scan", user.Access, nil).Data()
	if started["estimated_tokens"] != float64(3) {
		t.Fatalf("estimate = %v, want 1 per new object", started)
	}
	scan := waitJob(t, env, user.Access, base+"/scans/"+started["scan_id"].(string))
	if scan["status"] != "completed" || scan["tables_scanned"] != float64(2) || scan["tables_failed"] != float64(1) ||
		scan["rows_read"] != float64(5) || scan["charged_tokens"] != float64(4) {
		t.Fatalf("scan = %v", scan)
	}
	if r := resultOf(t, scan, "exports/broken.parquet"); r["status"] != "failed" || r["error"] == nil {
		t.Fatalf("broken object = %v, want failed with a reason", r)
	}
	customers := profileOf(t, env, user.Access, base+"/scans/"+started["scan_id"].(string), "exports/customers.csv")
	if e := columnOf(t, customers, "email"); e["classification"].(map[string]any)["label"] != "email" {
		t.Fatalf("customers.email = %v", e)
	}
	if h := env.Must(200, "GET", base+"/metrics/row_count/history?table=exports/orders.jsonl", user.Access, nil).List(); len(h) != 1 || h[0]["value"] != float64(2) {
		t.Fatalf("orders row_count history = %v", h)
	}
	files := env.Must(200, "GET", base+"/files", user.Access, nil).List()
	if len(files) != 3 || files[0]["last_scanned_at"] == nil || files[0]["sync_state"] != "new" {
		t.Fatalf("files = %v", files)
	}

	// Nothing changed: the next scan reads nothing and costs nothing.
	started = env.Must(202, "POST", base+"/scan", user.Access, nil).Data()
	if started["estimated_tokens"] != float64(0) {
		t.Fatalf("estimate of an unchanged bucket = %v", started)
	}
	scan = waitJob(t, env, user.Access, base+"/scans/"+started["scan_id"].(string))
	if scan["status"] != "completed" || scan["tables_total"] != float64(0) || scan["charged_tokens"] != float64(0) {
		t.Fatalf("second scan = %v", scan)
	}
	// A modified object is read again.
	put("exports/orders.jsonl", `{"id":1,"amount":10.5}`+"\n")
	started = env.Must(202, "POST", base+"/scan", user.Access, nil).Data()
	scan = waitJob(t, env, user.Access, base+"/scans/"+started["scan_id"].(string))
	if scan["tables_total"] != float64(1) || resultOf(t, scan, "exports/orders.jsonl")["rows"] != float64(1) {
		t.Fatalf("scan after a change = %v", scan)
	}
}

// TestScanOneAtATime: a source is read by one scan at a time; a scan whose
// workflow is gone does not hold the source; the estimates of unfinished
// scans are held against the balance; object scans count the
// organisation's null tokens as nulls.
func TestScanOneAtATime(t *testing.T) {
	url, put := bucketWith(t, map[string]string{"exports/codes.csv": "code,name\nMISSING,a\n7,b\n9,c\n"})
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("scanone"))
	ctx := context.Background()
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, s3Source("lake", url)).Data()
	srcID := int64(src["id"].(float64))
	base := fmt.Sprintf("/api/v1/sources/%d", srcID)

	// A scan just written, its workflow not started yet, holds the source.
	pending := &models.Scan{SourceID: srcID}
	if err := env.App.Stores.Scans.Create(ctx, user.OrgID, pending); err != nil {
		t.Fatal(err)
	}
	if r := env.Do("POST", base+"/scan", user.Access, nil); r.Status != 409 || r.ErrorCode() != "conflict" || !strings.Contains(r.ErrorMessage(), pending.ID) {
		t.Fatalf("second scan = %d %s, want 409 naming %s", r.Status, r.Raw, pending.ID)
	}
	// Running without a workflow (terminated from the Temporal UI): it is
	// ended, and the new scan goes ahead.
	if err := env.App.Stores.Scans.Start(ctx, user.OrgID, pending.ID, 1, time.Now()); err != nil {
		t.Fatal(err)
	}
	env.Must(200, "PATCH", "/api/v1/org/settings", user.Access, map[string]any{"null_tokens": []string{"MISSING"}})
	started := env.Must(202, "POST", base+"/scan", user.Access, nil).Data()
	abandoned := env.Must(200, "GET", base+"/scans/"+pending.ID, user.Access, nil).Data()
	if abandoned["status"] != "failed" || !strings.Contains(fmt.Sprint(abandoned["error"]), "workflow ended") || abandoned["charged_tokens"] != float64(0) {
		t.Fatalf("abandoned scan = %v, want failed, its workflow named, nothing charged", abandoned)
	}
	scanPath := base + "/scans/" + started["scan_id"].(string)
	if scan := waitJob(t, env, user.Access, scanPath); scan["status"] != "completed" {
		t.Fatalf("scan = %v", scan)
	}
	// The organisation's null tokens: MISSING is a null, as in an upload.
	code := columnOf(t, profileOf(t, env, user.Access, scanPath, "exports/codes.csv"), "code")
	if code["nulls"] != float64(1) || code["numeric"] != true {
		t.Fatalf("code = %v, want 1 null (MISSING) and numeric", code)
	}

	// Another source's unfinished scan holds its estimate: the balance
	// less what it holds is below this scan's estimate.
	other := env.Must(201, "POST", "/api/v1/sources", user.Access, s3Source("lake2", url)).Data()
	balance := int64(env.Must(200, "GET", "/api/v1/billing/balance", user.Access, nil).Data()["tokens"].(float64))
	holder := &models.Scan{SourceID: int64(other["id"].(float64)), EstimatedTokens: balance}
	if err := env.App.Stores.Scans.Create(ctx, user.OrgID, holder); err != nil {
		t.Fatal(err)
	}
	// A changed object makes the next scan cost 1: refused, the whole
	// balance being held.
	put("exports/codes.csv", "code,name\n1,a\n")
	r := env.Do("POST", base+"/scan", user.Access, nil)
	if r.Status != 402 || r.ErrorCode() != "insufficient_tokens" || !strings.Contains(r.ErrorMessage(), fmt.Sprintf("%d are held by unfinished scans (1)", balance)) {
		t.Fatalf("scan while the balance is held = %d %s, want 402 saying what is held", r.Status, r.Raw)
	}
	// Once the holder ends, the same scan starts.
	if err := env.App.Stores.Scans.Finish(ctx, user.OrgID, holder.ID, models.ScanFailed, "ended", 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	env.Must(202, "POST", base+"/scan", user.Access, nil)
}

// TestScanSampledPostgresSource: a source set to profile_mode sampled
// counts a large table's rows exactly and estimates its nulls from the
// sample (saying so); set back to exact, the next scan counts them.
func TestScanSampledPostgresSource(t *testing.T) {
	pg := newPGSchema(t)
	pg.exec(`CREATE TABLE $S.events (id int, note text, email text)`)
	pg.exec(`INSERT INTO $S.events SELECT g, CASE WHEN random() < 0.25 THEN NULL ELSE 'n' || g END, 'u' || g || '@example.com' FROM generate_series(1, 250000) g`)
	pg.exec(`ANALYZE $S.events`)
	exact := pg.query(`SELECT count(*) FILTER (WHERE note IS NULL)::float8 FROM $S.events`)
	body := map[string]any{"name": "big", "type": "postgresql", "config": map[string]any{"schema": pg.schema, "profile_mode": "sampled"}, "credentials": pg.creds}
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("scansampled"))
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, body).Data()
	if cfg := src["config"].(map[string]any); cfg["profile_mode"] != "sampled" || cfg["schema"] != pg.schema {
		t.Fatalf("config = %v", cfg)
	}
	base := fmt.Sprintf("/api/v1/sources/%v", src["id"])
	var result map[string]any
	note := func() map[string]any {
		t.Helper()
		id := env.Must(202, "POST", base+"/scan", user.Access, nil).Data()["scan_id"].(string)
		if scan := waitJob(t, env, user.Access, base+"/scans/"+id); scan["status"] != "completed" || scan["rows_read"] != float64(250000) {
			t.Fatalf("scan = %v", scan)
		}
		result = profileOf(t, env, user.Access, base+"/scans/"+id, "events")
		return columnOf(t, result, "note")
	}

	c := note()
	// A personal column's min and max are neither shown nor said to be
	// estimated.
	if email := columnOf(t, result, "email"); email["min"] != nil || email["max"] != nil ||
		!strings.Contains(fmt.Sprint(email["estimated"]), "nulls") || strings.Contains(fmt.Sprint(email["estimated"]), "min") {
		t.Fatalf("email = %v, want no min or max, and none named estimated", email)
	}
	nulls := c["nulls"].(float64)
	if !strings.Contains(fmt.Sprint(c["estimated"]), "nulls") || math.Abs(nulls-exact) > 0.1*exact {
		t.Fatalf("sampled note = %v, want about %v nulls, estimated", c, exact)
	}
	env.Must(200, "PATCH", base, user.Access, map[string]any{"config": map[string]any{"schema": pg.schema, "profile_mode": "exact"}})
	if c := note(); c["nulls"] != exact || strings.Contains(fmt.Sprint(c["estimated"]), "nulls") {
		t.Fatalf("exact note = %v, want exactly %v nulls", c, exact)
	}
	if cfg := env.Must(200, "GET", base, user.Access, nil).Data()["config"].(map[string]any); cfg["profile_mode"] != nil || cfg["schema"] != pg.schema {
		t.Fatalf("config after setting exact = %v, want the schema and the default mode (no profile_mode)", cfg)
	}
	// Config is updated key by key: the mode alone keeps the schema, and
	// null puts a key back to its default.
	cfg := env.Must(200, "PATCH", base, user.Access, map[string]any{"config": map[string]any{"profile_mode": "sampled"}}).Data()["config"].(map[string]any)
	if cfg["profile_mode"] != "sampled" || cfg["schema"] != pg.schema {
		t.Fatalf("config after setting the mode alone = %v, want the schema kept", cfg)
	}
	cfg = env.Must(200, "PATCH", base, user.Access, map[string]any{"config": map[string]any{"profile_mode": nil}}).Data()["config"].(map[string]any)
	if cfg["profile_mode"] != nil || cfg["schema"] != pg.schema {
		t.Fatalf("config after resetting the mode = %v", cfg)
	}
}
