package api_test

import (
	"context"
	"fmt"
	"github.com/google/uuid"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
)

// Every list endpoint pages the one way DECISIONS.md "Wire conventions"
// and SPEC.md "Pagination" describe: limit (default 20, maximum 200,
// larger values clamped), offset (default 0), 400 bad_request for a
// negative or non-numeric value, and meta {total, limit, offset, page}
// with total counting every item the query matches in the caller's
// organisation and page = offset/limit + 1.

// seededItems is how many items each list's seed makes: enough for a full
// second page and a partial third one at limit 2.
const seededItems = 5

// listRoute is one list endpoint the pagination test walks.
type listRoute struct {
	// path is the route as the router registers it.
	path string
	// filter is a query the list is narrowed by ("" for none); total must
	// count the matching items only.
	filter string
	// defaultLimit is the page size without a limit parameter.
	defaultLimit int
	// seed makes exactly seededItems items the list (with filter) shows to
	// admin, whose organisation is new and holds nothing else it would show.
	seed func(env *servicetest.Env, admin *servicetest.Session)
	// items extracts the page's items; nil means data is the array.
	items func(t *testing.T, r *servicetest.Response) []any
	// at fills the ids of a path that has them (a source's files) for
	// admin after seed; nil means path is called as it is.
	at func(env *servicetest.Env, admin *servicetest.Session) string
}

// listRoutes is every list endpoint of the router. TestListPagination fails
// when the router serves a list this table does not name, and the OpenAPI
// test checks that exactly these operations document limit, offset and
// the list meta.
var listRoutes = []listRoute{
	{path: "/api/v1/users", defaultLimit: 20, seed: func(env *servicetest.Env, admin *servicetest.Session) {
		// The registering admin is the first of the organisation's users.
		for i := 1; i < seededItems; i++ {
			env.AddUser(admin, servicetest.Unique(fmt.Sprintf("pageuser%d", i)), "member")
		}
	}},
	{path: "/api/v1/api-keys", defaultLimit: 20, seed: seedAPIKeys},
	{path: "/api/v1/webhooks", defaultLimit: 20, seed: func(env *servicetest.Env, admin *servicetest.Session) {
		for i := range seededItems {
			env.Must(201, "POST", "/api/v1/webhooks", admin.Access, map[string]any{"name": fmt.Sprintf("w%d", i), "platform": "slack", "webhook_url": publicWebhookURL})
		}
	}},
	{path: "/api/v1/jobs", defaultLimit: 20, seed: func(env *servicetest.Env, admin *servicetest.Session) {
		for range seededItems {
			env.Must(201, "POST", "/api/v1/jobs", admin.Access, map[string]any{"filenames": []string{"p.csv"}})
		}
	}},
	{path: "/api/v1/files", defaultLimit: 20, seed: func(env *servicetest.Env, admin *servicetest.Session) {
		// One job holding all the files: files, not jobs, are listed.
		names := make([]string, seededItems)
		files := map[string]string{}
		for i := range names {
			names[i] = fmt.Sprintf("f%d.csv", i)
			files[names[i]] = peopleCSV(3)
		}
		job := env.Must(201, "POST", "/api/v1/jobs", admin.Access, map[string]any{"filenames": names}).Data()
		if r := upload(env.T, env, "/api/v1/jobs/"+job["job_id"].(string)+"/files", admin.Access, files); r.Status != 201 {
			env.T.Fatalf("upload = %d %s", r.Status, r.Raw)
		}
	}},
	{path: "/api/v1/sources", defaultLimit: 20, seed: func(env *servicetest.Env, admin *servicetest.Session) {
		for i := range seededItems {
			env.Must(201, "POST", "/api/v1/sources", admin.Access, map[string]any{"name": fmt.Sprintf("s%d", i), "type": "s3",
				"credentials": map[string]any{"bucket": "acme-data"}})
		}
	}},
	{
		// The objects a scan found; seeded through the store, as a scan
		// records them, under the organisation's only source.
		path: "/api/v1/sources/:id/files", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			src := env.Must(201, "POST", "/api/v1/sources", admin.Access, map[string]any{"name": "lake", "type": "s3",
				"credentials": map[string]any{"bucket": "acme-data"}}).Data()
			var objects []models.ListedObject
			for i := range seededItems {
				objects = append(objects, models.ListedObject{Key: fmt.Sprintf("exports/part-%d.csv", i), SizeBytes: 100, ETag: fmt.Sprint("e", i), LastModified: time.Now().UTC()})
			}
			if _, err := env.App.Stores.DiscoveredFiles.Sync(context.Background(), admin.OrgID, int64(src["id"].(float64)), objects, time.Now().UTC()); err != nil {
				env.T.Fatal(err)
			}
		},
		at: func(env *servicetest.Env, admin *servicetest.Session) string {
			src := env.Must(200, "GET", "/api/v1/sources", admin.Access, nil).List()[0]
			return fmt.Sprintf("/api/v1/sources/%v/files", src["id"])
		},
	},
	{
		// A source's scans, seeded through the store as scans are
		// written, under the organisation's only source.
		path: "/api/v1/sources/:id/scans", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			id := seedSource(env, admin)
			for range seededItems {
				seedScan(env, admin, id) // a source is read by one scan at a time: each ends before the next
			}
		},
		at: func(env *servicetest.Env, admin *servicetest.Session) string {
			src := env.Must(200, "GET", "/api/v1/sources", admin.Access, nil).List()[0]
			return fmt.Sprintf("/api/v1/sources/%v/scans", src["id"])
		},
	},
	{
		// A scan's results with their profiles, seeded through the store
		// as the scan activities write them.
		path: "/api/v1/sources/:id/scans/:scan_id/results", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			sc := seedScan(env, admin, seedSource(env, admin))
			for i := range seededItems {
				t := &models.ScanTable{ScanID: sc.ID, TableName: fmt.Sprint("t", i), Rows: int64(i), Profile: `{"table_name":"t"}`}
				if err := env.App.Stores.Scans.AddTable(context.Background(), admin.OrgID, t); err != nil {
					env.T.Fatal(err)
				}
			}
		},
		at: func(env *servicetest.Env, admin *servicetest.Session) string {
			src := env.Must(200, "GET", "/api/v1/sources", admin.Access, nil).List()[0]
			sc := env.Must(200, "GET", fmt.Sprintf("/api/v1/sources/%v/scans", src["id"]), admin.Access, nil).List()[0]
			return fmt.Sprintf("/api/v1/sources/%v/scans/%v/results", src["id"], sc["scan_id"])
		},
	},
	{
		// A source's schedules, seeded through the store (their Temporal
		// Schedules play no part in the list).
		path: "/api/v1/sources/:id/schedules", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			id := seedSource(env, admin)
			for range seededItems {
				if err := env.App.Stores.SourceSchedules.Create(context.Background(), admin.OrgID, &models.SourceSchedule{SourceID: id, CronExpression: "0 2 * * *", Enabled: true}); err != nil {
					env.T.Fatal(err)
				}
			}
		},
		at: func(env *servicetest.Env, admin *servicetest.Session) string {
			src := env.Must(200, "GET", "/api/v1/sources", admin.Access, nil).List()[0]
			return fmt.Sprintf("/api/v1/sources/%v/schedules", src["id"])
		},
	},
	{
		// The organisation's contracts, created through the API.
		path: "/api/v1/contracts", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			id := seedSource(env, admin)
			for i := range seededItems {
				env.Must(201, "POST", "/api/v1/contracts", admin.Access, map[string]any{"name": fmt.Sprint("c", i), "source_id": id,
					"table_name": "t", "rules": []map[string]any{{"metric": "row_count", "operator": ">=", "threshold": i}}})
			}
		},
	},
	{
		// The organisation's active correction pipelines, stored as a
		// create stores them.
		path: "/api/v1/corrections", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			for i := range seededItems {
				p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: 1, Name: fmt.Sprint("p", i)}}
				if err := env.App.Stores.Corrections.Create(context.Background(), admin.OrgID, admin.UserID, p); err != nil {
					env.T.Fatal(err)
				}
			}
		},
	},
	{
		// The fix inbox: one suggestions pipeline per file, each with an
		// engine step, stored as a suggester stores them; pages are groups.
		path: "/api/v1/suggestions", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			for i := range seededItems {
				conf := 0.9
				p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: int64(i + 1), Name: fmt.Sprint("inbox ", i),
					Origin: models.OriginSuggestions}, Steps: []models.CorrectionStep{{ID: uuid.NewString(), CorrectionType: "format_fix",
					ColumnName: "email", Strategy: "trim", Params: "{}", Status: models.StepProposed, Source: models.StepSourceAuto, Engine: "rule", Confidence: &conf}}}
				if err := env.App.Stores.Corrections.Create(context.Background(), admin.OrgID, "", p); err != nil {
					env.T.Fatal(err)
				}
			}
		},
	},
	{
		// A pipeline's versions: one pipeline edited until it has enough.
		path: "/api/v1/corrections/:id/versions", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			ctx := context.Background()
			p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: 1, Name: "versions"}}
			if err := env.App.Stores.Corrections.Create(ctx, admin.OrgID, admin.UserID, p); err != nil {
				env.T.Fatal(err)
			}
			for i := 1; i < seededItems; i++ {
				_, err := env.App.Stores.Corrections.Edit(ctx, admin.OrgID, p.ID, admin.UserID, func(_ context.Context, p *models.Pipeline) (string, error) {
					p.Name = fmt.Sprint("versions ", i)
					return "renamed", nil
				})
				if err != nil {
					env.T.Fatal(err)
				}
			}
		},
		at: func(env *servicetest.Env, admin *servicetest.Session) string {
			p := env.Must(200, "GET", "/api/v1/corrections", admin.Access, nil).List()[0]
			return fmt.Sprintf("/api/v1/corrections/%v/versions", p["id"])
		},
	},
	{
		// The organisation's reports, stored as a generation request
		// stores them (AI readiness, free; no workflow needed to list).
		path: "/api/v1/reports", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			for range seededItems {
				r := &models.Report{ID: uuid.NewString(), ReportType: "ai_readiness", Level: "basic", Config: "{}"}
				if err := env.App.Stores.Reports.Create(context.Background(), admin.OrgID, r); err != nil {
					env.T.Fatal(err)
				}
			}
		},
	},
	{
		// The organisation's report schedules, seeded through the store
		// (their Temporal Schedules play no part in the list).
		path: "/api/v1/reports/schedules", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			for range seededItems {
				sc := &models.ReportSchedule{ID: uuid.NewString(), ReportType: "ai_readiness", Frequency: "weekly",
					Recipients: `["board@example.com"]`, Config: "{}", Enabled: true}
				if err := env.App.Stores.ReportSchedules.Create(context.Background(), admin.OrgID, sc); err != nil {
					env.T.Fatal(err)
				}
			}
		},
	},
	{
		// The organisation's alerts, raised through the store.
		path: "/api/v1/alerts", defaultLimit: 20, seed: seedAlerts,
	},
	{
		// The same alerts through the public API.
		path: "/api/v1/public/alerts", defaultLimit: 20, seed: seedAlerts,
	},
	{
		// A source's anomalies, recorded through the store as anomaly
		// detection records them (one scan's table).
		path: "/api/v1/sources/:id/anomalies", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			id := seedSource(env, admin)
			sc := seedScan(env, admin, id)
			found := make([]models.Anomaly, seededItems)
			for i := range found {
				found[i] = models.Anomaly{ColumnName: fmt.Sprint("c", i), Metric: "null_rate", Baseline: "{}", Sensitivity: "medium",
					Explanation: "e", DetectedAt: time.Now().Add(time.Duration(i) * time.Second)}
			}
			if _, err := env.App.Stores.Anomalies.Record(context.Background(), admin.OrgID, id, sc.ID, "t", found, nil); err != nil {
				env.T.Fatal(err)
			}
		},
		at: func(env *servicetest.Env, admin *servicetest.Session) string {
			src := env.Must(200, "GET", "/api/v1/sources", admin.Access, nil).List()[0]
			return fmt.Sprintf("/api/v1/sources/%v/anomalies", src["id"])
		},
	},
	{
		// A metric's history, seeded through the store as scans record it.
		path: "/api/v1/sources/:id/metrics/:metric/history", defaultLimit: 20,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			id := seedSource(env, admin)
			var points []models.MetricPoint
			for i := range seededItems {
				points = append(points, models.MetricPoint{SourceID: id, ScanID: fmt.Sprint("scn_", i), TableName: "t", Metric: "row_count",
					Value: float64(i), RecordedAt: time.Now().UTC().Add(time.Duration(i) * time.Second)})
			}
			if err := env.App.Stores.MetricPoints.Record(context.Background(), admin.OrgID, points); err != nil {
				env.T.Fatal(err)
			}
		},
		at: func(env *servicetest.Env, admin *servicetest.Session) string {
			src := env.Must(200, "GET", "/api/v1/sources", admin.Access, nil).List()[0]
			return fmt.Sprintf("/api/v1/sources/%v/metrics/row_count/history", src["id"])
		},
	},
	{
		// SPEC.md gives the audit log its own default page size (50) and
		// shapes its data as {logs, total}. The event filter proves total
		// counts the query's matches, not the organisation's whole log
		// (which also holds register and the like).
		path: "/api/v1/audit", filter: "event=api_key_created", defaultLimit: 50,
		seed: func(env *servicetest.Env, admin *servicetest.Session) {
			seedAPIKeys(env, admin)
			env.FlushAudit() // entries are written asynchronously
		},
		items: func(t *testing.T, r *servicetest.Response) []any {
			d := r.Data()
			if d["total"] != r.Body["meta"].(map[string]any)["total"] {
				t.Errorf("data.total = %v, meta.total = %v; want them equal", d["total"], r.Body["meta"].(map[string]any)["total"])
			}
			logs, ok := d["logs"].([]any)
			if !ok {
				t.Errorf("data.logs = %v, want an array", d["logs"])
			}
			return logs
		},
	},
}

// seedScan writes a scan of source id through the store and ends it.
func seedScan(env *servicetest.Env, admin *servicetest.Session, id int64) *models.Scan {
	ctx := context.Background()
	sc := &models.Scan{SourceID: id}
	if err := env.App.Stores.Scans.Create(ctx, admin.OrgID, sc); err != nil {
		env.T.Fatal(err)
	}
	if err := env.App.Stores.Scans.Finish(ctx, admin.OrgID, sc.ID, models.ScanCompleted, "", 0, time.Now()); err != nil {
		env.T.Fatal(err)
	}
	return sc
}

func seedAlerts(env *servicetest.Env, admin *servicetest.Session) {
	for i := range seededItems {
		a := &models.Alert{DedupKey: fmt.Sprint("seed/", i), Severity: models.SeverityWarning, Type: models.AlertAnomaly, Message: "m",
			CreatedAt: time.Now().Add(time.Duration(i) * time.Second)}
		if _, err := env.App.Stores.Alerts.Raise(context.Background(), admin.OrgID, a); err != nil {
			env.T.Fatal(err)
		}
	}
}

func seedAPIKeys(env *servicetest.Env, admin *servicetest.Session) {
	for range seededItems {
		env.APIKey(admin, "read")
	}
}

// unprobed names the GET routes the list detector cannot call with a
// real resource, and why each is not a list.
var unprobed = map[string]string{
	"GET /api/v1/blobs/:token":                        "serves the bytes of a signed blob token, never JSON",
	"GET /ws/jobs/:job_id/progress":                   "a WebSocket upgrade; a plain GET is refused before any body",
	"GET /api/v1/sources/:id/scans/:scan_id":          "one scan with its results",
	"GET /api/v1/public/scan/:scan_id/status":         "one scan's status",
	"GET /api/v1/sources/:id/metrics/:metric/history": "a list named by a metric, not by an id: walked in listRoutes",
	"GET /api/v1/sources/:id/scans/:scan_id/results":  "a list under one scan of a source: walked in listRoutes",
	"GET /api/v1/sources/:id/anomalies":               "a list under a source: walked in listRoutes",
	"GET /api/v1/public/contracts/evaluate":           "one contract's evaluation, named by the contract_id query parameter",
	"GET /api/v1/reports/:id/download":                "a redirect to the report's PDF, never JSON",
	"GET /api/v1/public/reports/:share_token":         "one shared report, named by its share token",
	"GET /report/:share_token":                        "the HTML page of a share link",
}

// pageCase is one valid query and the page it must answer, in items of
// the list's full order: want is [from, to) of that order.
type pageCase struct {
	query               string
	limit, offset, page int
	from, to            int
}

// pageCases are the valid queries every list is walked with; def stands
// for the list's default limit.
func pageCases(def int) []pageCase {
	n := seededItems
	return []pageCase{
		{"", def, 0, 1, 0, n},
		{"limit=500", 200, 0, 1, 0, n},
		{"limit=200", 200, 0, 1, 0, n},
		{"limit=201", 200, 0, 1, 0, n},
		{"limit=99999999999999999999", 200, 0, 1, 0, n}, // beyond int64: still clamped
		{"limit=2", 2, 0, 1, 0, 2},
		{"limit=2&offset=2", 2, 2, 2, 2, 4}, // the second page
		{"limit=2&offset=4", 2, 4, 3, 4, 5}, // a short last page
		{"offset=2&limit=2", 2, 2, 2, 2, 4}, // order of parameters is irrelevant
		{"limit=2&offset=3", 2, 3, 2, 3, 5}, // an offset between pages is on the page of its first item
		{"limit=1&offset=4", 1, 4, 5, 4, 5},
		{"offset=1", def, 1, 1, 1, n},
		{fmt.Sprintf("offset=%d", n), def, n, 1, n, n},
		{"offset=1000", def, 1000, 1000/def + 1, n, n},
	}
}

// badPageQueries must each be 400 bad_request naming the parameter.
var badPageQueries = []struct{ query, names string }{
	{"limit=-1", "limit"}, {"offset=-1", "offset"}, {"limit=abc", "limit"}, {"offset=abc", "offset"},
	{"limit=0", "limit"}, {"limit=1.5", "limit"}, {"limit=", "limit"}, {"offset=", "offset"},
	{"limit=-99999999999999999999", "limit"}, {"offset=99999999999999999999", "offset"},
	{"limit=10&offset=-5", "offset"}, {"limit=abc&offset=2", "limit"},
}

// itemID is an item's id as a path segment (UUIDs, job ids and integer
// file ids alike).
func itemID(v any) string {
	id := v.(map[string]any)["id"]
	if f, ok := id.(float64); ok {
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprint(id)
}

// TestListPagination walks every list route with defaults, clamping,
// invalid values and further pages, checking meta exactly, then proves
// the table is complete: it calls every GET route the router serves and
// fails for any that answers a list (an array as data, or meta with
// total) and is not in listRoutes.
func TestListPagination(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	// seen holds, per list, an admin of its organisation and the ids of
	// its items, which the completeness probe uses to fill in path ids.
	type seenList struct {
		admin *servicetest.Session
		ids   []string
	}
	seen := map[string]seenList{}
	for _, lr := range listRoutes {
		t.Run(strings.TrimPrefix(lr.path, "/api/v1/"), func(t *testing.T) {
			// Another organisation gets the same items first: a total or a
			// page that is not scoped to the caller's organisation shows
			// up as twice the items.
			lr.seed(env, env.Register(servicetest.Unique("pageother")))
			admin := env.Register(servicetest.Unique("page"))
			lr.seed(env, admin)
			path := lr.path
			if lr.at != nil {
				path = lr.at(env, admin)
			}
			get := func(query string) *servicetest.Response {
				q := strings.Trim(lr.filter+"&"+query, "&")
				return env.Do("GET", path+"?"+q, admin.Access, nil)
			}
			items := func(r *servicetest.Response) []any {
				if lr.items != nil {
					return lr.items(t, r)
				}
				arr, ok := r.Body["data"].([]any)
				if !ok {
					t.Errorf("data = %v, want an array", r.Body["data"])
				}
				return arr
			}
			// The full order, in one page: every other page is a slice of it.
			var order []string
			for _, it := range items(env.Must(200, "GET", path+"?"+strings.Trim(lr.filter+"&limit=200", "&"), admin.Access, nil)) {
				order = append(order, itemID(it))
			}
			if len(order) != seededItems {
				t.Fatalf("the list shows %d items, want the %d seeded", len(order), seededItems)
			}
			for _, c := range pageCases(lr.defaultLimit) {
				r := get(c.query)
				if r.Status != 200 {
					t.Errorf("?%s = %d %s, want 200", c.query, r.Status, r.Raw)
					continue
				}
				checkSuccessEnvelope(t, "?"+c.query, r)
				meta, _ := r.Body["meta"].(map[string]any)
				want := map[string]any{"total": float64(seededItems), "limit": float64(c.limit), "offset": float64(c.offset), "page": float64(c.page)}
				if fmt.Sprint(meta) != fmt.Sprint(want) {
					t.Errorf("?%s: meta = %v, want %v", c.query, meta, want)
				}
				var got []string
				for _, it := range items(r) {
					got = append(got, itemID(it))
				}
				if fmt.Sprint(got) != fmt.Sprint(order[c.from:c.to]) {
					t.Errorf("?%s: items %v, want %v (items %d to %d of %v)", c.query, got, order[c.from:c.to], c.from, c.to, order)
				}
			}
			for _, b := range badPageQueries {
				r := get(b.query)
				checkErrorEnvelope(t, "?"+b.query, r, 400, "bad_request")
				if !strings.Contains(r.ErrorMessage(), b.names) {
					t.Errorf("?%s: message %q does not name %s", b.query, r.ErrorMessage(), b.names)
				}
			}
			seen[lr.path] = seenList{admin: admin, ids: order}
		})
	}
	if len(seen) != len(listRoutes) {
		t.Fatalf("only %d of %d lists were walked; the completeness probe needs them all", len(seen), len(listRoutes))
	}

	// Completeness: a list route the table misses would escape every check
	// above, so every GET route is called, its path ids filled with a real
	// item of the list named by the segment before the id (/files/:id takes
	// a file of /api/v1/files), as an admin of that item's organisation.
	// Whatever answers a list must be in listRoutes. A route that cannot be
	// called this way must be in unprobed with its reason, so a new one
	// fails here until someone has looked at it.
	inTable := map[string]bool{}
	for _, lr := range listRoutes {
		inTable[lr.path] = true
	}
	param := regexp.MustCompile(`/([^/:]+)/:[A-Za-z0-9_]+`)
	anyAdmin := seen[listRoutes[0].path].admin
	probed := 0
	served := map[string]bool{}
	for _, r := range env.App.API.Routes() {
		key := r.Method + " " + r.Path
		served[key] = true
		if r.Method != "GET" {
			continue
		}
		if why, skip := unprobed[key]; skip {
			t.Logf("%s not probed: %s", key, why)
			continue
		}
		as, filled := anyAdmin, true
		path := param.ReplaceAllStringFunc(r.Path, func(m string) string {
			collection := param.FindStringSubmatch(m)[1]
			for p, s := range seen {
				if strings.HasSuffix(p, "/"+collection) && !strings.Contains(p, ":") {
					as = s.admin
					return "/" + collection + "/" + url.PathEscape(s.ids[0])
				}
			}
			filled = false
			return m
		})
		if !filled {
			t.Errorf("%s: no list item can fill its path id; add it to unprobed with the reason it is not a list", key)
			continue
		}
		res := env.Do("GET", path, as.Access, nil)
		if res.Status >= 400 {
			t.Errorf("probe GET %s = %d %s; the probe must reach the handler to see whether it answers a list", path, res.Status, res.Raw)
			continue
		}
		probed++
		_, arrayData := res.Body["data"].([]any)
		meta, _ := res.Body["meta"].(map[string]any)
		_, paged := meta["total"]
		if (arrayData || paged) && !inTable[r.Path] {
			t.Errorf("%s answers a list but is not in listRoutes: add it so its paging is tested", key)
		}
		if inTable[r.Path] && !paged {
			t.Errorf("%s is in listRoutes but answers no list meta: %s", key, res.Raw)
		}
	}
	if probed < len(listRoutes) {
		t.Errorf("probed %d GET routes, fewer than the %d lists", probed, len(listRoutes))
	}
	for k := range unprobed {
		if !served[k] {
			t.Errorf("unprobed names %s, which the router does not serve: remove it", k)
		}
	}
}

// seedSource makes the organisation's only source and returns its id.
func seedSource(env *servicetest.Env, admin *servicetest.Session) int64 {
	src := env.Must(201, "POST", "/api/v1/sources", admin.Access, map[string]any{"name": servicetest.Unique("lake"), "type": "s3",
		"credentials": map[string]any{"bucket": "acme-data"}}).Data()
	return int64(src["id"].(float64))
}
