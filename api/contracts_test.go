package api_test

// Data contracts over the running service: real scans of a real
// PostgreSQL schema through the real Temporal dev server, contracts
// written by hand and imported from ODCS documents, their evaluation on
// demand and after a scheduled scan, and the contract_violation alert and
// webhook message a real HTTPS receiver gets.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/workflows"
)

// ordersODCS is an ODCS v3 document of the orders table as another tool
// would write it: two library checks DQS runs, a SQL check it cannot, and
// a property the table does not have.
const ordersODCS = `apiVersion: v3.1.0
kind: DataContract
id: orders-contract
name: Orders from the catalogue
version: 1.0.0
status: active
schema:
  - name: orders
    physicalName: orders
    quality:
      - metric: rowCount
        mustBeGreaterOrEqualTo: 900
        severity: error
      - type: sql
        query: SELECT COUNT(*) FROM orders WHERE amount < 0
        mustBe: 0
    properties:
      - name: email
        quality:
          - metric: nullValues
            mustBeLessOrEqualTo: 5
            unit: percent
      - name: ghost
        quality:
          - metric: nullValues
            mustBe: 0
`

// TestDataContracts: a contract is checked against the table its scans
// know (bad metric, operator, threshold, column: 400; another
// organisation's source: 404), evaluated on demand (never scanned: not
// passed, nothing raised; healthy: passed; broken: failed with the
// values, one alert and one webhook message per scan however often it is
// read), evaluated by itself when a scheduled scan completes and not
// after a manual one; imported from and exported to ODCS with the items
// DQS cannot run listed; updated, disabled and deleted; invisible to
// another organisation.
func TestDataContracts(t *testing.T) {
	recv := newReceiver(t)
	pg := newPGSchema(t)
	pg.exec(`CREATE TABLE $S.orders (id int, email text, amount int)`)
	pg.exec(`INSERT INTO $S.orders SELECT g, 'c' || g || '@example.com', g % 100 FROM generate_series(1, 1000) g`)
	pg.exec(`ANALYZE $S.orders`)
	env := servicetest.Start(t, servicetest.Options{WebhookReceiverCAs: recv.pool(), Configure: allowLoopback})
	user := env.Register(servicetest.Unique("contracts"))
	env.Must(201, "POST", "/api/v1/webhooks", user.Access, map[string]any{"name": "contracts", "platform": "slack",
		"webhook_url": recv.url("/slack/contracts"), "event_types": []string{"contract_violation"}})
	env.Must(200, "POST", "/api/v1/billing/credits", user.Access, map[string]any{"tokens": 1000})
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, map[string]any{"name": "shop", "type": "postgresql",
		"config": map[string]any{"schema": pg.schema}, "credentials": pg.creds}).Data()
	srcID := src["id"].(float64)
	base := fmt.Sprintf("/api/v1/sources/%v", srcID)
	scan := func() map[string]any {
		id := env.Must(202, "POST", base+"/scan", user.Access, nil).Data()["scan_id"].(string)
		s := waitJob(t, env, user.Access, base+"/scans/"+id)
		if s["status"] != "completed" {
			t.Fatalf("scan = %v", s)
		}
		return s
	}
	readKey, _ := env.APIKey(user, "read")
	evaluate := func(id any) map[string]any {
		return env.Must(200, "GET", fmt.Sprintf("/api/v1/public/contracts/evaluate?contract_id=%v", id), readKey, nil).Data()
	}
	violations := func() []map[string]any {
		return env.Must(200, "GET", "/api/v1/alerts?type=contract_violation", user.Access, nil).List()
	}
	rules := []map[string]any{
		{"metric": "row_count", "operator": ">=", "threshold": 900, "severity": "critical"},
		{"metric": "null_rate", "column": "email", "operator": "<=", "threshold": 0.05},
	}
	body := map[string]any{"name": "orders promise", "source_id": srcID, "table_name": "orders", "rules": rules}

	// Bad contracts.
	for _, bad := range []struct {
		change map[string]any
		want   string
	}{
		{map[string]any{"rules": []map[string]any{{"metric": "nulls", "column": "email", "operator": "<=", "threshold": 0.1}}}, "unknown metric"},
		{map[string]any{"rules": []map[string]any{{"metric": "null_rate", "column": "email", "operator": "=~", "threshold": 0.1}}}, "unknown operator"},
		{map[string]any{"rules": []map[string]any{{"metric": "null_rate", "operator": "<=", "threshold": 0.1}}}, "needs a column"},
		{map[string]any{"rules": []map[string]any{{"metric": "null_rate", "column": "email", "operator": "<=", "threshold": 5}}}, "within [0, 1]"},
		{map[string]any{"rules": []map[string]any{{"metric": "row_count", "operator": ">="}}}, "threshold: required"},
		{map[string]any{"rules": []map[string]any{{"metric": "row_count", "operator": ">=", "threshold": 1, "severity": "fatal"}}}, "unknown severity"},
		{map[string]any{"rules": []map[string]any{}}, "at least one rule"},
		{map[string]any{"name": " "}, "name"},
		{map[string]any{"table_name": nil}, "table_name is required"},
	} {
		b := map[string]any{}
		for k, v := range body {
			b[k] = v
		}
		for k, v := range bad.change {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		r := env.Do("POST", "/api/v1/contracts", user.Access, b)
		if r.Status != 400 || r.ErrorCode() != "bad_request" || !strings.Contains(r.ErrorMessage(), bad.want) {
			t.Errorf("contract with %v = %d %s, want 400 saying %q", bad.change, r.Status, r.Raw, bad.want)
		}
	}
	other := env.Register(servicetest.Unique("contractsother"))
	if r := env.Do("POST", "/api/v1/contracts", other.Access, body); r.Status != 404 || r.ErrorCode() != "not_found" {
		t.Fatalf("a contract on another organisation's source = %d %s, want 404", r.Status, r.Raw)
	}

	// Before any scan: stored, nothing to evaluate against.
	ct := env.Must(201, "POST", "/api/v1/contracts", user.Access, body).Data()
	path := fmt.Sprintf("/api/v1/contracts/%v", ct["id"])
	got := ct["rules"].([]any)
	if ct["enabled"] != true || ct["last_evaluation"] != nil || len(got) != 2 || got[0].(map[string]any)["column"] != nil ||
		got[1].(map[string]any)["severity"] != "warning" {
		t.Fatalf("contract = %v", ct)
	}
	ev := evaluate(ct["id"])
	if ev["scan_id"] != nil || ev["passed"] != false || ev["skipped"] != float64(2) || ev["alert_id"] != nil {
		t.Fatalf("evaluation before any scan = %v, want every rule skipped and not passed", ev)
	}

	// A healthy scan passes; a column the scan did not see is refused.
	healthy := scan()
	ev = evaluate(ct["id"])
	if ev["scan_id"] != healthy["scan_id"] || ev["passed"] != true || ev["evaluated"] != float64(2) || ev["failed"] != float64(0) ||
		ev["alert_id"] != nil || ev["results"].([]any)[0].(map[string]any)["actual"] != float64(1000) {
		t.Fatalf("evaluation of the healthy table = %v", ev)
	}
	ghost := map[string]any{"rules": []map[string]any{{"metric": "null_rate", "column": "ghost", "operator": "<=", "threshold": 0.1}}}
	if r := env.Do("PATCH", path, user.Access, ghost); r.Status != 400 || !strings.Contains(r.ErrorMessage(), `column "ghost" is not in table "orders"`) {
		t.Fatalf("a rule on a missing column = %d %s", r.Status, r.Raw)
	}

	// A broken load, scanned by hand: no evaluation by itself.
	pg.exec(`DELETE FROM $S.orders WHERE id > 500`)
	pg.exec(`UPDATE $S.orders SET email = NULL WHERE id % 5 <> 0`)
	pg.exec(`ANALYZE $S.orders`)
	broken := scan()
	if v := violations(); len(v) != 0 {
		t.Fatalf("alerts after a manual scan = %v, want none before an evaluation", v)
	}
	ev = evaluate(ct["id"])
	res := ev["results"].([]any)
	if ev["scan_id"] != broken["scan_id"] || ev["passed"] != false || ev["failed"] != float64(2) || ev["alert_id"] == nil ||
		res[0].(map[string]any)["actual"] != float64(500) || res[1].(map[string]any)["actual"] != 0.8 {
		t.Fatalf("evaluation of the broken table = %v", ev)
	}
	if again := evaluate(ct["id"]); again["alert_id"] != ev["alert_id"] {
		t.Fatalf("second evaluation's alert = %v, want the first's %v", again["alert_id"], ev["alert_id"])
	}
	v := violations()
	if len(v) != 1 || v[0]["severity"] != "critical" || v[0]["source_id"] != srcID ||
		!strings.Contains(v[0]["message"].(string), "failed 2 of 2 rules: row_count >= 900 was 500; email.null_rate <= 0.05 was 0.8") {
		t.Fatalf("contract alerts = %v", v)
	}
	msgs := recv.waitMessages(t, "/slack/contracts", 1)
	title, text := slackParts(t, msgs[0])
	if !strings.Contains(title, "orders promise") || !strings.Contains(text, "900 was 500") || !strings.Contains(text, "0.05 was 0.8") {
		t.Fatalf("webhook message = %q / %q", title, text)
	}
	if got := env.Must(200, "GET", path, user.Access, nil).Data()["last_evaluation"].(map[string]any); got["scan_id"] != broken["scan_id"] {
		t.Fatalf("last evaluation = %v", got)
	}

	// A scheduled scan evaluates the contract by itself: a new alert of
	// its own scan.
	sc := env.Must(201, "POST", base+"/schedules", user.Access, map[string]any{"cron_expression": "0 2 * * *"}).Data()
	ctx := context.Background()
	names := workflows.NamesFor(env.Config.TemporalPrefix)
	if err := env.App.Temporal.ScheduleClient().GetHandle(ctx, names.SourceScheduleID(int64(sc["id"].(float64)))).Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for len(violations()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("no contract alert after the scheduled scan: %v", violations())
		}
		time.Sleep(250 * time.Millisecond)
	}
	scheduled := env.Must(200, "GET", base+"/scans", user.Access, nil).List()[0]
	last := env.Must(200, "GET", path, user.Access, nil).Data()["last_evaluation"].(map[string]any)
	if scheduled["schedule_id"] != sc["id"] || last["scan_id"] != scheduled["scan_id"] || last["passed"] != false {
		t.Fatalf("scheduled scan %v, last evaluation %v", scheduled, last)
	}
	recv.waitMessages(t, "/slack/contracts", 2)
	time.Sleep(time.Second) // a third message, if one were sent twice, has had time to come
	if n := len(recv.messages("/slack/contracts")); n != 2 {
		t.Fatalf("%d webhook messages, want one per scan (2)", n)
	}

	// ODCS: imported with what DQS cannot run listed, exported, read back.
	yaml := map[string]string{"Content-Type": "application/yaml"}
	imp := env.DoHeaders("POST", fmt.Sprintf("/api/v1/contracts/import?source_id=%v", srcID), user.Access, ordersODCS, yaml)
	if imp.Status != 201 {
		t.Fatalf("import = %d %s", imp.Status, imp.Raw)
	}
	d := imp.Data()
	ic := d["contract"].(map[string]any)
	skipped := fmt.Sprint(d["skipped"])
	if ic["name"] != "Orders from the catalogue" || ic["table_name"] != "orders" || len(ic["rules"].([]any)) != 2 ||
		!strings.Contains(skipped, "sql") || !strings.Contains(skipped, `column "ghost" is not in table "orders"`) {
		t.Fatalf("import = %s", imp.Raw)
	}
	if r := env.DoHeaders("POST", fmt.Sprintf("/api/v1/contracts/import?source_id=%v", srcID), user.Access, "just: [text", yaml); r.Status != 400 {
		t.Fatalf("import of a broken document = %d %s", r.Status, r.Raw)
	}
	huge := ordersODCS + "# " + strings.Repeat("x", 256<<10) + "\n"
	if r := env.DoHeaders("POST", fmt.Sprintf("/api/v1/contracts/import?source_id=%v", srcID), user.Access, huge, yaml); r.Status != 413 {
		t.Fatalf("import of a document over 256 KiB = %d %s", r.Status, r.Raw)
	}
	if r := env.DoHeaders("POST", fmt.Sprintf("/api/v1/contracts/import?source_id=%v", srcID), other.Access, ordersODCS, yaml); r.Status != 404 {
		t.Fatalf("import into another organisation's source = %d %s", r.Status, r.Raw)
	}
	exp := env.Must(200, "GET", path+"/odcs", user.Access, nil)
	if !strings.HasPrefix(exp.Header.Get("Content-Type"), "application/yaml") || !strings.Contains(string(exp.Raw), "kind: DataContract") {
		t.Fatalf("export = %s %s", exp.Header.Get("Content-Type"), exp.Raw)
	}
	back := env.DoHeaders("POST", fmt.Sprintf("/api/v1/contracts/import?source_id=%v&name=copy", srcID), user.Access, string(exp.Raw), yaml)
	if back.Status != 201 || fmt.Sprint(back.Data()["contract"].(map[string]any)["rules"]) != fmt.Sprint(ct["rules"]) ||
		len(back.Data()["skipped"].([]any)) != 0 {
		t.Fatalf("the exported document read back = %d %s, want the rules %v", back.Status, back.Raw, ct["rules"])
	}

	// Update, list, delete.
	upd := env.Must(200, "PATCH", path, user.Access, map[string]any{"enabled": false,
		"rules": []map[string]any{{"metric": "row_count", "operator": ">=", "threshold": 100}}}).Data()
	if upd["enabled"] != false || upd["last_evaluation"] != nil || len(upd["rules"].([]any)) != 1 {
		t.Fatalf("updated contract = %v, want disabled with its evaluation forgotten", upd)
	}
	if r := env.Do("PATCH", path, user.Access, map[string]any{"source_id": srcID + 1000}); r.Status != 400 {
		t.Fatalf("moving a contract to another source = %d %s", r.Status, r.Raw)
	}
	if l := env.Must(200, "GET", fmt.Sprintf("/api/v1/contracts?source_id=%v&enabled=false", srcID), user.Access, nil).List(); len(l) != 1 || l[0]["id"] != ct["id"] {
		t.Fatalf("disabled contracts = %v", l)
	}
	for _, q := range []string{"source_id=x", "enabled=maybe", "limit=-1"} {
		if r := env.Do("GET", "/api/v1/contracts?"+q, user.Access, nil); r.Status != 400 {
			t.Errorf("list ?%s = %d, want 400", q, r.Status)
		}
	}
	if r := env.Do("GET", fmt.Sprintf("/api/v1/contracts?source_id=%v", srcID), other.Access, nil); r.Status != 404 {
		t.Errorf("another organisation filtering by this source = %d, want 404", r.Status)
	}
	for _, r := range []*servicetest.Response{
		env.Do("GET", path, other.Access, nil),
		env.Do("PATCH", path, other.Access, map[string]any{"enabled": true}),
		env.Do("DELETE", path, other.Access, nil),
		env.Do("GET", path+"/odcs", other.Access, nil),
		env.Do("GET", fmt.Sprintf("/api/v1/public/contracts/evaluate?contract_id=%v", ct["id"]), other.Access, nil),
	} {
		if r.Status != 404 {
			t.Errorf("another organisation's access = %d %s, want 404", r.Status, r.Raw)
		}
	}
	for _, q := range []string{"", "?contract_id=abc", "?contract_id=0"} {
		if r := env.Do("GET", "/api/v1/public/contracts/evaluate"+q, readKey, nil); r.Status != 400 {
			t.Errorf("evaluate%s = %d, want 400", q, r.Status)
		}
	}
	env.Must(200, "DELETE", path, user.Access, nil)
	env.Must(404, "GET", path, user.Access, nil)
}
