package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/dqs/dqs/api"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
	"github.com/google/uuid"
)

// ownedResource makes a resource of org A that route can address by id,
// the body a valid request would send, and a check that the resource is
// untouched after another organisation tried.
type ownedResource func(env *servicetest.Env, a *servicetest.Session) (id string, body any, intact func() bool)

func userOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	u := env.AddUser(a, servicetest.Unique("victim"), "member")
	return u.UserID, map[string]any{"role": "admin"}, func() bool {
		for _, x := range env.Must(200, "GET", "/api/v1/users?limit=200", a.Access, nil).List() {
			if x["id"] == u.UserID {
				return x["role"] == "member"
			}
		}
		return false
	}
}

func apiKeyOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	key, id := env.APIKey(a, "read")
	return id, nil, func() bool { return env.Do("GET", "/api/v1/org/settings", key, nil).Status == 200 }
}

// jobOfA makes a started, analysed job of org A with one file.
func jobOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	id, _ := analysedJob(env, a)
	return id, nil, func() bool { return env.Do("GET", "/api/v1/jobs/"+id, a.Access, nil).Status == 200 }
}

// createdJobOfA makes a job of org A that has not started.
func createdJobOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	id := env.Must(201, "POST", "/api/v1/jobs", a.Access, map[string]any{"filenames": []string{"p.csv"}}).Data()["job_id"].(string)
	return id, nil, func() bool {
		j := env.Must(200, "GET", "/api/v1/jobs/"+id, a.Access, nil).Data()
		return j["status"] == "created" && len(j["files"].([]any)) == 0
	}
}

func fileOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	_, fid := analysedJob(env, a)
	return fid, nil, func() bool { return env.Do("GET", "/api/v1/files/"+fid, a.Access, nil).Status == 200 }
}

// storedJobOfA makes an analysed job of org A whose raw file must stay
// stored and downloadable.
func storedJobOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	id, fid := analysedJob(env, a)
	return id, nil, func() bool {
		j := env.Must(200, "GET", "/api/v1/jobs/"+id, a.Access, nil).Data()
		return j["file_deleted_at"] == nil && env.Do("GET", "/api/v1/files/"+fid+"/download", a.Access, nil).Status == 307
	}
}

// analysedFileOfA makes an analysed file of org A that must stay as it is.
func analysedFileOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	_, fid := analysedJob(env, a)
	return fid, nil, func() bool {
		f := env.Must(200, "GET", "/api/v1/files/"+fid, a.Access, nil).Data()
		return f["status"] == "completed" && f["raw_file_deleted"] == false
	}
}

// publicWebhookURL passes the target check without DNS (an IP literal of
// a public address); nothing is ever sent to it in these tests.
const publicWebhookURL = "https://93.184.216.34/services/T000/B000/secret-token-abcdefgh"

// sourceOfA makes a data source of org A that must keep its name.
func sourceOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	src := env.Must(201, "POST", "/api/v1/sources", a.Access, map[string]any{"name": "lake-" + servicetest.Unique("s"), "type": "s3",
		"credentials": map[string]any{"bucket": "acme-data"}}).Data()
	id := fmt.Sprint(src["id"])
	return id, map[string]any{"name": "taken over"}, func() bool {
		got := env.Do("GET", "/api/v1/sources/"+id, a.Access, nil)
		return got.Status == 200 && got.Data()["name"] == src["name"]
	}
}

// webhookOfA makes a webhook of org A that must keep its name.
func webhookOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	w := env.Must(201, "POST", "/api/v1/webhooks", a.Access, map[string]any{"name": "alerts", "platform": "slack", "webhook_url": publicWebhookURL}).Data()
	id := w["id"].(string)
	return id, map[string]any{"name": "taken over"}, func() bool {
		for _, x := range env.Must(200, "GET", "/api/v1/webhooks", a.Access, nil).List() {
			if x["id"] == id {
				return x["name"] == "alerts"
			}
		}
		return false
	}
}

// analysedJob uploads and analyses a small CSV for org A.
func analysedJob(env *servicetest.Env, a *servicetest.Session) (jobID, fileID string) {
	env.T.Helper()
	r := upload(env.T, env, "/api/v1/public/upload", a.Access, map[string]string{"p.csv": peopleCSV(10)})
	jobID = r.Data()["job_id"].(string)
	done := waitJob(env.T, env, a.Access, "/api/v1/jobs/"+jobID)
	return jobID, fmt.Sprint(int64(done["file_id"].(float64)))
}

// resources names, for every route that takes an id, how to make one.
var resources = map[string]ownedResource{
	"GET /api/v1/jobs/:job_id":                                 jobOfA,
	"GET /api/v1/public/jobs/:job_id":                          jobOfA,
	"GET /ws/jobs/:job_id/progress":                            jobOfA,
	"POST /api/v1/jobs/:job_id/files":                          createdJobOfA,
	"POST /api/v1/jobs/:job_id/start":                          createdJobOfA,
	"DELETE /api/v1/jobs/:job_id/files":                        storedJobOfA,
	"POST /api/v1/files/:id/reanalyze":                         analysedFileOfA,
	"GET /api/v1/files/:id":                                    fileOfA,
	"GET /api/v1/files/:id/download":                           fileOfA,
	"PATCH /api/v1/users/:id":                                  userOfA,
	"DELETE /api/v1/users/:id":                                 userOfA,
	"DELETE /api/v1/api-keys/:id":                              apiKeyOfA,
	"PATCH /api/v1/webhooks/:webhook_id":                       webhookOfA,
	"DELETE /api/v1/webhooks/:webhook_id":                      webhookOfA,
	"POST /api/v1/webhooks/:webhook_id/test":                   webhookOfA,
	"GET /api/v1/sources/:id":                                  sourceOfA,
	"PATCH /api/v1/sources/:id":                                sourceOfA,
	"DELETE /api/v1/sources/:id":                               sourceOfA,
	"GET /api/v1/sources/:id/files":                            sourceOfA,
	"POST /api/v1/sources/:id/scan":                            sourceToScanOfA,
	"GET /api/v1/sources/:id/scans":                            sourceOfA,
	"GET /api/v1/sources/:id/scans/:scan_id":                   sourceOfA,
	"GET /api/v1/sources/:id/scans/:scan_id/results":           sourceOfA,
	"GET /api/v1/sources/:id/anomalies":                        sourceOfA,
	"PATCH /api/v1/sources/:id/anomalies/:anomaly_id":          sourceOfA,
	"POST /api/v1/alerts/:id/acknowledge":                      alertOfA,
	"GET /api/v1/sources/:id/metrics/:metric/history":          sourceOfA,
	"GET /api/v1/public/scan/:scan_id/status":                  scanOfA,
	"POST /api/v1/sources/:id/schedules":                       sourceToScanOfA,
	"GET /api/v1/sources/:id/schedules":                        sourceOfA,
	"PATCH /api/v1/sources/:id/schedules/:sid":                 sourceOfA,
	"DELETE /api/v1/sources/:id/schedules/:sid":                sourceOfA,
	"PATCH /api/v1/sources/:id/schedule":                       sourceToScanOfA,
	"GET /api/v1/contracts/:id":                                contractOfA,
	"PATCH /api/v1/contracts/:id":                              contractOfA,
	"DELETE /api/v1/contracts/:id":                             contractOfA,
	"GET /api/v1/contracts/:id/odcs":                           contractOfA,
	"DELETE /api/v1/lineage/edges/:id":                         edgeOfA,
	"GET /api/v1/corrections/:id":                              pipelineOfA,
	"PATCH /api/v1/corrections/:id":                            pipelineOfA,
	"POST /api/v1/corrections/:id/steps":                       pipelineOfA,
	"POST /api/v1/corrections/:id/steps/:step_id/edit":         pipelineOfA,
	"POST /api/v1/corrections/:id/steps/:step_id/approve":      pipelineOfA,
	"POST /api/v1/corrections/:id/steps/:step_id/reject":       pipelineOfA,
	"POST /api/v1/corrections/:id/bulk":                        pipelineOfA,
	"POST /api/v1/corrections/:id/approve-all-high-confidence": pipelineOfA,
	"GET /api/v1/corrections/:id/versions":                     pipelineOfA,
	"POST /api/v1/corrections/:id/revert":                      pipelineOfA,
	"POST /api/v1/corrections/:id/preview":                     pipelineOfA,
	"POST /api/v1/corrections/:id/apply":                       pipelineOfA,
	"POST /api/v1/suggestions/:suggestion_id/feedback":         suggestionOfA,
	"GET /api/v1/reports/:id":                                  reportOfA,
	"GET /api/v1/reports/:id/download":                         reportOfA,
	"POST /api/v1/reports/:id/share":                           reportOfA,
	"DELETE /api/v1/reports/:id/share":                         reportOfA,
	"GET /api/v1/reports/schedules/:id":                        reportScheduleOfA,
	"PATCH /api/v1/reports/schedules/:id":                      reportScheduleOfA,
	"DELETE /api/v1/reports/schedules/:id":                     reportScheduleOfA,
	"POST /api/v1/reports/schedules/:id/run":                   reportScheduleOfA,
}

// pipelineOfA makes a correction pipeline of org A (through the store,
// on a file id the store does not check) that must stay at version 1.
func pipelineOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	ctx := context.Background()
	p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: 1, Name: "fix"}}
	p.Steps = []models.CorrectionStep{{ID: uuid.NewString(), CorrectionType: "format_fix", ColumnName: "email", Strategy: "trim",
		Params: "{}", Status: models.StepProposed, Source: models.StepSourceUser}}
	if err := env.App.Stores.Corrections.Create(ctx, a.OrgID, a.UserID, p); err != nil {
		env.T.Fatal(err)
	}
	body := map[string]any{"name": "taken", "status": "archived", "to_version": 1, "step_ids": []string{p.Steps[0].ID}, "action": "reject",
		"correction_type": "format_fix", "config": map[string]any{"column": "email", "strategy": "lower"}}
	return p.ID, body, func() bool {
		got, err := env.App.Stores.Corrections.Get(ctx, a.OrgID, p.ID)
		return err == nil && got.Version == 1 && got.Steps[0].Status == models.StepProposed
	}
}

// suggestionOfA makes an engine step of org A (a suggestion, stored as a
// suggester stores it) that must gather no feedback.
func suggestionOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	ctx := context.Background()
	conf := 0.9
	st := models.CorrectionStep{ID: uuid.NewString(), CorrectionType: "format_fix", ColumnName: "email", Strategy: "trim",
		Params: "{}", Status: models.StepProposed, Source: models.StepSourceAuto, Engine: "rule", Confidence: &conf}
	p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: 1, Name: "inbox",
		Origin: models.OriginSuggestions}, Steps: []models.CorrectionStep{st}}
	if err := env.App.Stores.Corrections.Create(ctx, a.OrgID, "", p); err != nil {
		env.T.Fatal(err)
	}
	return st.ID, map[string]any{"helpful": false, "comment": "wrong"}, func() bool {
		h, err := env.App.Stores.Suggestions.History(ctx, a.OrgID)
		return err == nil && len(h) == 0
	}
}

// reportOfA makes a complete AI readiness report of org A (stored as its
// workflow leaves it) that must stay unshared.
func reportOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	ctx := context.Background()
	r := &models.Report{ID: uuid.NewString(), ReportType: "ai_readiness", Level: "basic", Config: "{}"}
	if err := env.App.Stores.Reports.Create(ctx, a.OrgID, r); err != nil {
		env.T.Fatal(err)
	}
	if err := env.App.Stores.Reports.Complete(ctx, a.OrgID, r.ID, "orgs/"+a.OrgID+"/reports/"+r.ID+".pdf", 10, "", "report", nil, time.Now()); err != nil {
		env.T.Fatal(err)
	}
	return r.ID, nil, func() bool {
		got, err := env.App.Stores.Reports.Get(ctx, a.OrgID, r.ID)
		return err == nil && got.ShareTokenHash == nil
	}
}

// reportScheduleOfA makes a report schedule of org A (through the store)
// that must stay enabled and weekly.
func reportScheduleOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	ctx := context.Background()
	sc := &models.ReportSchedule{ID: uuid.NewString(), ReportType: "ai_readiness", Frequency: "weekly",
		Recipients: `["board@example.com"]`, Config: "{}", Enabled: true}
	if err := env.App.Stores.ReportSchedules.Create(ctx, a.OrgID, sc); err != nil {
		env.T.Fatal(err)
	}
	return sc.ID, map[string]any{"enabled": false, "frequency": "quarterly"}, func() bool {
		got, err := env.App.Stores.ReportSchedules.Get(ctx, a.OrgID, sc.ID)
		return err == nil && got.Enabled && got.Frequency == "weekly"
	}
}

// edgeOfA makes an edge of org A, between two of its sources' nodes, that
// must stay.
func edgeOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	sourceOfA(env, a)
	sourceOfA(env, a)
	nodes := env.Must(200, "GET", "/api/v1/lineage", a.Access, nil).Data()["nodes"].([]any)
	from, to := nodes[len(nodes)-2].(map[string]any)["id"], nodes[len(nodes)-1].(map[string]any)["id"]
	e := env.Must(201, "POST", "/api/v1/lineage/edges", a.Access, map[string]any{"source_node_id": from, "target_node_id": to}).Data()
	id := e["id"].(string)
	return id, nil, func() bool {
		for _, x := range env.Must(200, "GET", "/api/v1/lineage", a.Access, nil).Data()["edges"].([]any) {
			if x.(map[string]any)["id"] == id {
				return true
			}
		}
		return false
	}
}

// contractOfA makes a contract of org A that must stay enabled.
func contractOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	src, _, _ := sourceOfA(env, a)
	c := env.Must(201, "POST", "/api/v1/contracts", a.Access, map[string]any{"name": "promise", "source_id": json.Number(src),
		"table_name": "orders", "rules": []map[string]any{{"metric": "row_count", "operator": ">=", "threshold": 1}}}).Data()
	id := fmt.Sprint(c["id"])
	return id, map[string]any{"enabled": false}, func() bool {
		got := env.Do("GET", "/api/v1/contracts/"+id, a.Access, nil)
		return got.Status == 200 && got.Data()["enabled"] == true
	}
}

// sourceToScanOfA makes a source of org A that must stay unscanned.
func sourceToScanOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	id, _, _ := sourceOfA(env, a)
	return id, nil, func() bool {
		got := env.Do("GET", "/api/v1/sources/"+id+"/scans", a.Access, nil)
		return got.Status == 200 && len(got.List()) == 0
	}
}

// scanOfA makes a scan of org A (written through the store, as a scan
// request writes it) that must stay queued.
func scanOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	id, _, _ := sourceOfA(env, a)
	src, _ := strconv.ParseInt(id, 10, 64)
	sc := &models.Scan{SourceID: src}
	if err := env.App.Stores.Scans.Create(context.Background(), a.OrgID, sc); err != nil {
		env.T.Fatal(err)
	}
	return sc.ID, nil, func() bool {
		got, err := env.App.Stores.Scans.Get(context.Background(), a.OrgID, sc.ID)
		return err == nil && got.Status == models.ScanQueued
	}
}

// alertOfA makes an alert of org A (raised through the store, as anomaly
// detection raises it) that must stay unacknowledged.
func alertOfA(env *servicetest.Env, a *servicetest.Session) (string, any, func() bool) {
	al := &models.Alert{DedupKey: servicetest.Unique("alert"), Severity: models.SeverityWarning, Type: models.AlertAnomaly, Message: "m"}
	if _, err := env.App.Stores.Alerts.Raise(context.Background(), a.OrgID, al); err != nil {
		env.T.Fatal(err)
	}
	return strconv.FormatInt(al.ID, 10), nil, func() bool {
		got, err := env.App.Stores.Alerts.Get(context.Background(), a.OrgID, al.ID)
		return err == nil && got.AcknowledgedAt == nil
	}
}

// TestOtherOrganisationsIDsLookMissing walks every route with an id and
// proves another organisation's id answers exactly like a missing one
// (404, byte-identical body) and changes nothing.
func TestOtherOrganisationsIDsLookMissing(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	a := env.Register(servicetest.Unique("orga"))
	b := env.Register(servicetest.Unique("orgb"))
	tested := 0
	for _, r := range env.App.API.Routes() {
		if !strings.Contains(r.Path, ":") || r.Access == api.Public {
			continue // public routes carry tokens, not ids
		}
		route := r.Method + " " + r.Path
		create, ok := resources[route]
		if !ok {
			t.Errorf("route %s takes an id but this test has no resource maker for it: add one", route)
			continue
		}
		t.Run(route, func(t *testing.T) {
			id, body, intact := create(env, a)
			missingID := uuid.NewString()
			if strings.Contains(r.Path, ":job_id") {
				missingID = "job_aaaaaaaaaaaa"
			} else if strings.HasPrefix(r.Path, "/api/v1/files/") || strings.HasPrefix(r.Path, "/api/v1/sources/") {
				missingID = "999999999"
			}
			param := r.Path[strings.Index(r.Path, ":"):]
			param = strings.SplitN(param, "/", 2)[0]
			foreign := env.Do(r.Method, strings.ReplaceAll(r.Path, param, id), b.Access, body)
			missing := env.Do(r.Method, strings.ReplaceAll(r.Path, param, missingID), b.Access, body)
			if foreign.Status != 404 || foreign.ErrorCode() != "not_found" {
				t.Errorf("foreign id = %d %s, want 404 not_found", foreign.Status, foreign.Raw)
			}
			if string(foreign.Raw) != string(missing.Raw) || foreign.Status != missing.Status {
				t.Errorf("foreign id answers %d %s but a missing id %d %s", foreign.Status, foreign.Raw, missing.Status, missing.Raw)
			}
			if !intact() {
				t.Errorf("org A's resource was changed by org B's request")
			}
		})
		tested++
	}
	if tested == 0 {
		t.Fatal("no route with an id was tested")
	}
	// Lists never show another organisation's rows (every list route:
	// TestListPagination keeps listRoutes complete).
	for _, lr := range listRoutes {
		path := lr.path
		if lr.at != nil { // a list under one of B's own resources
			lr.seed(env, b)
			path = lr.at(env, b)
		}
		raw := string(env.Must(200, "GET", path, b.Access, nil).Raw)
		if strings.Contains(raw, a.Email) || strings.Contains(raw, a.UserID) || strings.Contains(raw, a.OrgID) {
			t.Errorf("%s of org B shows org A's data: %s", path, raw)
		}
	}
}
