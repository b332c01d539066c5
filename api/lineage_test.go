package api_test

// The lineage graph over the running service: nodes that appear with
// sources, scanned tables and uploaded files; edges users add through the
// public API and the dashboard's routes, refused when they would close a
// cycle; neighbourhoods; and the blast radius of a contract violation.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dqs/dqs/internal/servicetest"
)

// TestLineageGraph walks the graph an organisation builds by using DQS
// and by adding edges, every bad request, and another organisation.
func TestLineageGraph(t *testing.T) {
	pg := newPGSchema(t)
	pg.exec(`CREATE TABLE $S.orders (id int, amount int)`)
	pg.exec(`CREATE TABLE $S.revenue (day int, total int)`)
	pg.exec(`INSERT INTO $S.orders SELECT g, g % 100 FROM generate_series(1, 200) g`)
	pg.exec(`INSERT INTO $S.revenue SELECT g, g FROM generate_series(1, 30) g`)
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("lineage"))
	env.Must(200, "POST", "/api/v1/billing/credits", user.Access, map[string]any{"tokens": 1000})
	readKey, _ := env.APIKey(user, "read")
	writeKey, _ := env.APIKey(user, "write")
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, map[string]any{"name": "shop", "type": "postgresql",
		"config": map[string]any{"schema": pg.schema}, "credentials": pg.creds}).Data()
	base := fmt.Sprintf("/api/v1/sources/%v", src["id"])
	id := env.Must(202, "POST", base+"/scan", user.Access, nil).Data()["scan_id"].(string)
	if s := waitJob(t, env, user.Access, base+"/scans/"+id); s["status"] != "completed" {
		t.Fatalf("scan = %v", s)
	}
	job := upload(t, env, "/api/v1/public/upload", user.Access, map[string]string{"people.csv": peopleCSV(5)}).Data()
	waitJob(t, env, user.Access, fmt.Sprintf("/api/v1/jobs/%v", job["job_id"]))

	// The nodes DQS made: the source, its two tables (each fed by the
	// source) and the uploaded file.
	g := env.Must(200, "GET", "/api/v1/public/lineage", readKey, nil).Data()
	byName := map[string]map[string]any{}
	for _, n := range g["nodes"].([]any) {
		n := n.(map[string]any)
		byName[fmt.Sprint(n["type"], ":", n["name"])] = n
	}
	source, orders, revenue, file := byName["source:shop"], byName["table:orders"], byName["table:revenue"], byName["file:people.csv"]
	if source == nil || orders == nil || revenue == nil || file == nil || len(byName) != 4 || g["total_nodes"] != float64(4) ||
		g["truncated"] != false || len(g["edges"].([]any)) != 2 {
		t.Fatalf("graph = %v", g)
	}
	if source["ref_id"] != fmt.Sprint(src["id"]) || orders["ref_id"] != fmt.Sprintf("%v/orders", src["id"]) {
		t.Fatalf("refs: source %v, table %v", source, orders)
	}
	edge := func(token string, from, to map[string]any) *servicetest.Response {
		return env.Do("POST", "/api/v1/public/lineage/edges", token, map[string]any{"source_node_id": from["id"], "target_node_id": to["id"]})
	}

	// Users add edges: orders feeds revenue, revenue the uploaded file.
	e1 := edge(writeKey, orders, revenue)
	if e1.Status != 201 || e1.Data()["source_node_id"] != orders["id"] || e1.Data()["id"] == nil {
		t.Fatalf("edge = %d %s", e1.Status, e1.Raw)
	}
	env.Must(201, "POST", "/api/v1/lineage/edges", user.Access, map[string]any{"source_node_id": revenue["id"], "target_node_id": file["id"]})

	// What is refused.
	if r := edge(writeKey, file, orders); r.Status != 400 || !strings.Contains(r.ErrorMessage(), "cycle") ||
		!strings.Contains(r.ErrorMessage(), "revenue") {
		t.Fatalf("an edge closing a cycle = %d %s, want 400 naming the path", r.Status, r.Raw)
	}
	if r := edge(writeKey, orders, revenue); r.Status != 409 {
		t.Fatalf("a duplicate edge = %d %s, want 409", r.Status, r.Raw)
	}
	if r := edge(writeKey, orders, orders); r.Status != 400 {
		t.Fatalf("a self-loop = %d %s, want 400", r.Status, r.Raw)
	}
	missing := map[string]any{"id": "00000000-0000-4000-8000-000000000000"}
	if r := edge(writeKey, orders, missing); r.Status != 404 {
		t.Fatalf("an edge to an unknown node = %d %s, want 404", r.Status, r.Raw)
	}
	if r := edge(writeKey, orders, map[string]any{"id": "not-a-uuid"}); r.Status != 400 {
		t.Fatalf("an edge to a malformed id = %d %s, want 400", r.Status, r.Raw)
	}
	if r := env.Do("POST", "/api/v1/public/lineage/edges", writeKey, map[string]any{"source_node_id": orders["id"]}); r.Status != 400 {
		t.Fatalf("an edge without its target = %d %s, want 400", r.Status, r.Raw)
	}

	// Neighbourhoods.
	down := env.Must(200, "GET", fmt.Sprintf("/api/v1/public/lineage?node=%v&direction=downstream&depth=1", orders["id"]), readKey, nil).Data()
	nodes := down["nodes"].([]any)
	if len(nodes) != 2 || nodes[1].(map[string]any)["name"] != "revenue" || nodes[1].(map[string]any)["hidden_neighbours"] != float64(1) {
		t.Fatalf("orders' downstream at depth 1 = %v, want revenue with the file hidden", down)
	}
	both := env.Must(200, "GET", fmt.Sprintf("/api/v1/lineage?node=%v&depth=5", orders["id"]), user.Access, nil).Data()
	if len(both["nodes"].([]any)) != 4 || len(both["edges"].([]any)) != 4 {
		t.Fatalf("orders' neighbourhood at depth 5 = %v, want the four nodes and the four edges among them", both)
	}
	for _, q := range []string{"?node=x", fmt.Sprintf("?node=%v&depth=0", orders["id"]), fmt.Sprintf("?node=%v&depth=51", orders["id"]),
		fmt.Sprintf("?node=%v&direction=sideways", orders["id"]), "?depth=2"} {
		if r := env.Do("GET", "/api/v1/public/lineage"+q, readKey, nil); r.Status != 400 {
			t.Errorf("lineage%s = %d %s, want 400", q, r.Status, r.Raw)
		}
	}
	if r := env.Do("GET", "/api/v1/public/lineage?node="+missing["id"].(string), readKey, nil); r.Status != 404 {
		t.Errorf("an unknown node's neighbourhood = %d, want 404", r.Status)
	}

	// The blast radius of a contract violation on orders.
	ct := env.Must(201, "POST", "/api/v1/contracts", user.Access, map[string]any{"name": "big", "source_id": src["id"], "table_name": "orders",
		"rules": []map[string]any{{"metric": "row_count", "operator": ">=", "threshold": 1000}}}).Data()
	ev := env.Must(200, "GET", fmt.Sprintf("/api/v1/public/contracts/evaluate?contract_id=%v", ct["id"]), readKey, nil).Data()
	affected := fmt.Sprint(ev["affected"])
	if ev["passed"] != false || !strings.Contains(affected, "revenue") || !strings.Contains(affected, "people.csv") {
		t.Fatalf("violation's blast radius = %v, want revenue and the file", ev["affected"])
	}
	alerts := env.Must(200, "GET", "/api/v1/alerts?type=contract_violation", user.Access, nil).List()
	if len(alerts) != 1 || !strings.Contains(alerts[0]["message"].(string), "Downstream: 2 node(s) (table revenue, file people.csv)") {
		t.Fatalf("violation alert = %v", alerts)
	}

	// Another organisation sees none of it and cannot link to it.
	other := env.Register(servicetest.Unique("lineageother"))
	if g := env.Must(200, "GET", "/api/v1/lineage", other.Access, nil).Data(); len(g["nodes"].([]any)) != 0 {
		t.Fatalf("another organisation's graph = %v", g)
	}
	if r := env.Do("GET", fmt.Sprintf("/api/v1/lineage?node=%v", orders["id"]), other.Access, nil); r.Status != 404 {
		t.Fatalf("another organisation's neighbourhood = %d", r.Status)
	}
	if r := edge(other.Access, orders, revenue); r.Status != 404 {
		t.Fatalf("another organisation's edge = %d %s, want 404", r.Status, r.Raw)
	}
	if r := env.Do("DELETE", fmt.Sprintf("/api/v1/lineage/edges/%v", e1.Data()["id"]), other.Access, nil); r.Status != 404 {
		t.Fatalf("another organisation deleting an edge = %d", r.Status)
	}

	// Users remove their edges, not DQS's own.
	var auto string
	for _, e := range g["edges"].([]any) {
		auto = e.(map[string]any)["id"].(string)
	}
	if r := env.Do("DELETE", "/api/v1/lineage/edges/"+auto, user.Access, nil); r.Status != 409 {
		t.Fatalf("deleting a source's edge to its table = %d %s, want 409", r.Status, r.Raw)
	}
	env.Must(200, "DELETE", fmt.Sprintf("/api/v1/lineage/edges/%v", e1.Data()["id"]), user.Access, nil)
	env.Must(404, "DELETE", fmt.Sprintf("/api/v1/lineage/edges/%v", e1.Data()["id"]), user.Access, nil)
	if r := edge(writeKey, file, orders); r.Status != 201 {
		t.Fatalf("the edge that closed a cycle, once the cycle is gone = %d %s", r.Status, r.Raw)
	}

	// A deleted source takes its nodes and every edge touching them.
	env.Must(200, "DELETE", base, user.Access, nil)
	g = env.Must(200, "GET", "/api/v1/lineage", user.Access, nil).Data()
	if len(g["nodes"].([]any)) != 1 || len(g["edges"].([]any)) != 0 {
		t.Fatalf("graph after the source's deletion = %v, want the file alone", g)
	}
}
