package api_test

// Anomaly detection over the running service: real scans of a real
// PostgreSQL schema through the real Temporal dev server, the anomalies
// and alerts they leave, and the webhook message a real HTTPS receiver
// gets.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dqs/dqs/internal/servicetest"
)

// TestAnomalyDetectionAfterScans: a table scanned the same way for the
// warm-up raises nothing; a broken load (half the rows gone, most e-mails
// null) raises one explained alert for the table listing every metric
// that moved, and its webhook message; users mark an anomaly expected and
// acknowledge the alert; bad filters are 400s.
func TestAnomalyDetectionAfterScans(t *testing.T) {
	recv := newReceiver(t)
	pg := newPGSchema(t)
	pg.exec(`CREATE TABLE $S.customers (id int, email text, age int)`)
	pg.exec(`INSERT INTO $S.customers SELECT g, 'c' || g || '@example.com', 18 + g % 70 FROM generate_series(1, 1000) g`)
	pg.exec(`ANALYZE $S.customers`)
	env := servicetest.Start(t, servicetest.Options{WebhookReceiverCAs: recv.pool(),
		Configure: allowLoopback})
	user := env.Register(servicetest.Unique("anomalies"))
	env.Must(201, "POST", "/api/v1/webhooks", user.Access, map[string]any{"name": "issues", "platform": "slack",
		"webhook_url": recv.url("/slack/issues"), "event_types": []string{"new_issue", "quality_drop"}})
	env.Must(200, "POST", "/api/v1/billing/credits", user.Access, map[string]any{"tokens": 1000})
	if got := env.Must(200, "PATCH", "/api/v1/org/settings", user.Access, map[string]any{"anomaly_explanations": true}).Data(); got["anomaly_explanations"] != true {
		t.Fatalf("settings = %v", got)
	}
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, map[string]any{"name": "warehouse", "type": "postgresql",
		"config": map[string]any{"schema": pg.schema}, "credentials": pg.creds}).Data()
	base := fmt.Sprintf("/api/v1/sources/%v", src["id"])
	scan := func() map[string]any {
		id := env.Must(202, "POST", base+"/scan", user.Access, nil).Data()["scan_id"].(string)
		return waitJob(t, env, user.Access, base+"/scans/"+id)
	}

	// The warm-up and one more: eight scans to learn from, the ninth
	// judged; the same data each time is no anomaly.
	for i := range 9 {
		if s := scan(); s["status"] != "completed" {
			t.Fatalf("scan %d = %v", i, s)
		}
	}
	if got := env.Must(200, "GET", base+"/anomalies", user.Access, nil).List(); len(got) != 0 {
		t.Fatalf("anomalies of unchanged data = %v", got)
	}

	// What customers feeds: a second source, linked by hand.
	env.Must(201, "POST", "/api/v1/sources", user.Access, map[string]any{"name": "crm", "type": "s3",
		"credentials": map[string]any{"bucket": "acme-crm"}})
	ids := map[string]any{}
	for _, n := range env.Must(200, "GET", "/api/v1/lineage", user.Access, nil).Data()["nodes"].([]any) {
		ids[fmt.Sprint(n.(map[string]any)["name"])] = n.(map[string]any)["id"]
	}
	env.Must(201, "POST", "/api/v1/lineage/edges", user.Access, map[string]any{"source_node_id": ids["customers"], "target_node_id": ids["crm"]})

	// A broken load.
	pg.exec(`DELETE FROM $S.customers WHERE id > 500`)
	pg.exec(`UPDATE $S.customers SET email = NULL WHERE id % 5 <> 0`)
	pg.exec(`ANALYZE $S.customers`)
	broken := scan()
	anomalies := env.Must(200, "GET", base+"/anomalies", user.Access, nil).List()
	metrics := map[string]map[string]any{}
	for _, a := range anomalies {
		metrics[fmt.Sprint(a["metric"], "/", a["column_name"])] = a
	}
	nulls, rows := metrics["null_rate/email"], metrics["row_count/<nil>"]
	if nulls == nil || rows == nil {
		t.Fatalf("anomalies = %v, want the email null rate and the row count", anomalies)
	}
	if nulls["scan_id"] != broken["scan_id"] || nulls["current_value"] != 0.8 || nulls["status"] != "open" || nulls["sensitivity"] != "medium" ||
		nulls["alert_id"] == nil || nulls["alert_id"] != rows["alert_id"] {
		t.Fatalf("null rate anomaly = %v, row count anomaly = %v; want both of the broken scan under one alert", nulls, rows)
	}
	if affected := fmt.Sprint(nulls["affected"]); !strings.Contains(affected, "name:crm") || !strings.Contains(affected, "depth:1") {
		t.Fatalf("null rate anomaly's blast radius = %v, want the crm source", nulls["affected"])
	}
	b := nulls["baseline"].(map[string]any)
	if b["n"] != float64(9) || b["median"] != float64(0) || b["expected_low"] != float64(0) || b["window_start"] == nil {
		t.Fatalf("null rate baseline = %v, want the 9 earlier scans at 0", b)
	}
	explanation := nulls["explanation"].(string)
	for _, want := range []string{"was 0.8", "expected band", "Compared with 9 scans", "row_count of customers 500", "Sensitivity medium"} {
		if !strings.Contains(explanation, want) {
			t.Errorf("explanation lacks %q: %s", want, explanation)
		}
	}

	// The anomaly explainer's reading is in the fix inbox, for the table.
	var explained map[string]any
	for _, g := range env.Must(200, "GET", "/api/v1/suggestions", user.Access, nil).List() {
		if g["kind"] == "table" && g["table_name"] == "customers" && g["source_id"] == src["id"] {
			explained = g["suggestions"].([]any)[0].(map[string]any)
		}
	}
	if explained == nil || explained["correction_type"] != "explanation" || explained["engine"] != "anomaly" || explained["confidence"] != 0.8 ||
		explained["config"].(map[string]any)["strategy"] != "partial_load" || !strings.Contains(explained["explanation"].(string), "email went empty") {
		t.Fatalf("drift explanation = %v", explained)
	}
	env.Must(201, "POST", fmt.Sprintf("/api/v1/suggestions/%v/feedback", explained["id"]), user.Access, map[string]any{"helpful": true})

	alerts := env.Must(200, "GET", "/api/v1/alerts?type=anomaly", user.Access, nil).List()
	if len(alerts) != 1 || alerts[0]["id"] != nulls["alert_id"] || alerts[0]["source_id"] != src["id"] || alerts[0]["acknowledged_at"] != nil ||
		!strings.HasPrefix(alerts[0]["message"].(string), "Anomaly in customers (source warehouse)") {
		t.Fatalf("alerts = %v, want one for the table", alerts)
	}
	title, text := slackParts(t, recv.waitMessages(t, "/slack/issues", 1)[0])
	if title != "Anomaly in customers" || !strings.Contains(text, "null_rate of customers.email was 0.8") {
		t.Fatalf("webhook message = %q / %q", title, text)
	}

	// Public alerts for integrators: scope read, severity and since.
	key, _ := env.APIKey(user, "read")
	pub := env.Must(200, "GET", "/api/v1/public/alerts?since=2020-01-01", key, nil)
	if got := pub.List(); len(got) != 1 || got[0]["message"] != alerts[0]["message"] || pub.Body["meta"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("public alerts = %s", pub.Raw)
	}
	for _, q := range []string{"/api/v1/alerts?severity=loud", "/api/v1/alerts?acknowledged=maybe", "/api/v1/alerts?source_id=x",
		"/api/v1/alerts?type=comet", "/api/v1/public/alerts?since=yesterday", base + "/anomalies?metric=vibes"} {
		if r := env.Do("GET", q, user.Access, nil); r.Status != 400 || r.ErrorCode() != "bad_request" {
			t.Errorf("GET %s = %d %s, want 400", q, r.Status, r.Raw)
		}
	}

	// Marking: expected trains later baselines; a bad status is a 400; the
	// alert is acknowledged once; a read key may do neither.
	path := fmt.Sprintf("%s/anomalies/%v", base, nulls["id"])
	if r := env.Do("PATCH", path, user.Access, map[string]any{"status": "fine"}); r.Status != 400 {
		t.Fatalf("PATCH status fine = %d %s", r.Status, r.Raw)
	}
	if r := env.Do("PATCH", path, key, map[string]any{"status": "expected"}); r.Status != 403 {
		t.Fatalf("PATCH with a read key = %d %s, want 403", r.Status, r.Raw)
	}
	if got := env.Must(200, "PATCH", path, user.Access, map[string]any{"status": "expected"}).Data(); got["status"] != "expected" {
		t.Fatalf("marked = %v", got)
	}
	ack := fmt.Sprintf("/api/v1/alerts/%v/acknowledge", alerts[0]["id"])
	first := env.Must(200, "POST", ack, user.Access, nil).Data()["acknowledged_at"]
	if first == nil || env.Must(200, "POST", ack, user.Access, nil).Data()["acknowledged_at"] != first {
		t.Fatalf("acknowledged_at = %v, then changed", first)
	}
	if got := env.Must(200, "GET", "/api/v1/alerts?acknowledged=false", user.Access, nil).List(); len(got) != 0 {
		t.Fatalf("unacknowledged alerts = %v", got)
	}
}
