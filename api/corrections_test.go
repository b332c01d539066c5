package api_test

// Correction pipelines over the running service: authored on an analysed
// upload, every edit a new version, engine steps approved or rejected one
// by one, in bulk and above the trust threshold, reverts that keep every
// version, archiving, concurrent edits, bad steps and another
// organisation.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
)

// analysedUpload uploads people.csv and returns its file id once analysed.
func analysedUpload(t *testing.T, env *servicetest.Env, token string) float64 {
	t.Helper()
	job := upload(t, env, "/api/v1/public/upload", token, map[string]string{"people.csv": peopleCSV(40)}).Data()
	j := waitJob(t, env, token, fmt.Sprintf("/api/v1/jobs/%v", job["job_id"]))
	if j["status"] != "completed" {
		t.Fatalf("job = %v", j)
	}
	return j["file_id"].(float64)
}

// seedEngineSteps adds proposed engine steps to a pipeline through the
// store, as a suggester writes them, and returns their ids.
func seedEngineSteps(t *testing.T, env *servicetest.Env, orgID, pipelineID string, confidences ...float64) []string {
	t.Helper()
	var ids []string
	_, err := env.App.Stores.Corrections.Edit(context.Background(), orgID, pipelineID, "", func(ctx context.Context, p *models.Pipeline) (string, error) {
		for _, c := range confidences {
			c := c
			id := uuid.NewString()
			ids = append(ids, id)
			p.Steps = append(p.Steps, models.CorrectionStep{ID: id, CorrectionType: "format_fix", ColumnName: "full_name", Strategy: "title",
				Params: "{}", Status: models.StepProposed, Source: models.StepSourceAuto, Confidence: &c, Explanation: "names in mixed case",
				Preview: `{"before":["ANNA SVENSSON"],"after":["Anna Svensson"]}`})
		}
		return "suggested", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestCorrectionPipelines(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("fixes"))
	fileID := analysedUpload(t, env, user.Access)
	trim := map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "full_name", "strategy": "trim"}}

	// Bad pipelines and steps are 400 naming what is wrong.
	for _, c := range []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"name": "x", "steps": []any{trim}}, "file_id"},
		{map[string]any{"name": "", "file_id": fileID}, "name"},
		{map[string]any{"name": "x", "file_id": fileID, "steps": []any{map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "nope", "strategy": "trim"}}}}, "steps[0]"},
		{map[string]any{"name": "x", "file_id": fileID, "steps": []any{map[string]any{"correction_type": "shuffle", "config": map[string]any{"column": "email"}}}}, "steps[0]"},
		{map[string]any{"name": "x", "file_id": fileID, "steps": []any{map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "email", "strategy": "sparkle"}}}}, "strategy"},
		{map[string]any{"name": "x", "file_id": fileID, "steps": []any{map[string]any{"correction_type": "regex_replace", "config": map[string]any{"column": "email", "params": map[string]any{"pattern": "(", "replacement": ""}}}}}, "pattern"},
		{map[string]any{"name": "x", "file_id": fileID, "steps": []any{map[string]any{"correction_type": "custom", "config": map[string]any{"column": "email", "params": map[string]any{"expression": "row.email +"}}}}}, "expression"},
		{map[string]any{"name": "x", "file_id": fileID, "steps": []any{map[string]any{"correction_type": "custom", "config": map[string]any{"column": "email", "params": map[string]any{"expression": `env("HOME")`}}}}}, "expression"},
	} {
		r := env.Do("POST", "/api/v1/corrections", user.Access, c.body)
		if r.Status != 400 || !strings.Contains(r.ErrorMessage(), c.want) {
			t.Errorf("%v: %d %s, want 400 naming %q", c.body, r.Status, r.Raw, c.want)
		}
	}
	env.Must(404, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "x", "file_id": 999999})

	p := env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "clean people", "file_id": fileID, "steps": []any{trim}}).Data()
	id := p["id"].(string)
	base := "/api/v1/corrections/" + id
	steps := p["steps"].([]any)
	first := steps[0].(map[string]any)
	if p["version"] != float64(1) || p["status"] != "active" || len(steps) != 1 || first["status"] != "active" || first["source"] != "user" ||
		first["confidence"] != nil || first["config"].(map[string]any)["strategy"] != "trim" {
		t.Fatalf("created = %v", p)
	}
	userStep := first["id"].(string)
	version := func() float64 { return env.Must(200, "GET", base, user.Access, nil).Data()["version"].(float64) }

	// A user step is added (active), a bad one refused without a version.
	added := env.Must(201, "POST", base+"/steps", user.Access, map[string]any{"correction_type": "regex_replace",
		"config": map[string]any{"column": "email", "params": map[string]any{"pattern": `@example\.com$`, "replacement": "@example.org"}}}).Data()
	if added["version"] != float64(2) || len(added["steps"].([]any)) != 2 {
		t.Fatalf("added = %v", added)
	}
	env.Must(400, "POST", base+"/steps", user.Access, map[string]any{"correction_type": "dedupe", "config": map[string]any{"strategy": "keys", "params": map[string]any{"columns": []string{"ghost"}}}})
	if version() != 2 {
		t.Fatal("a refused step made a version")
	}

	// Engine steps: approve-all-high-confidence takes those at or above
	// the trust threshold (0.8) and skips the rest with the reason.
	orgID := env.Must(200, "GET", "/api/v1/auth/me", user.Access, nil).Data()["organization"].(map[string]any)["id"].(string)
	engine := seedEngineSteps(t, env, orgID, id, 0.95, 0.5)
	high, low := engine[0], engine[1]
	if n := env.Must(200, "GET", "/api/v1/corrections/pending-count", user.Access, nil).Data()["pending_count"]; n != float64(2) {
		t.Fatalf("pending = %v", n)
	}
	all := env.Must(200, "POST", base+"/approve-all-high-confidence", user.Access, nil).Data()
	if fmt.Sprint(all["processed"]) != fmt.Sprint([]any{high}) || len(all["skipped"].([]any)) != 1 ||
		!strings.Contains(fmt.Sprint(all["skipped"]), "below the trust threshold 0.80") || all["pipeline"].(map[string]any)["version"] != float64(4) {
		t.Fatalf("approve all = %v", all)
	}
	env.Must(400, "POST", base+"/approve-all-high-confidence", user.Access, map[string]any{"min_confidence": 1.5})

	// Bulk: the low step is skipped by the threshold, an unknown id named;
	// nothing processed makes no version. Rejecting takes it.
	b := env.Must(200, "POST", base+"/bulk", user.Access, map[string]any{"step_ids": []string{low, "nope"}, "action": "approve"}).Data()
	if len(b["processed"].([]any)) != 0 || len(b["skipped"].([]any)) != 2 || version() != 4 {
		t.Fatalf("bulk approve = %v (version %v)", b, version())
	}
	b = env.Must(200, "POST", base+"/bulk", user.Access, map[string]any{"step_ids": []string{low}, "action": "reject"}).Data()
	if fmt.Sprint(b["processed"]) != fmt.Sprint([]any{low}) || version() != 5 {
		t.Fatalf("bulk reject = %v", b)
	}
	for _, bad := range []map[string]any{{"step_ids": []string{low}, "action": "shred"}, {"step_ids": []string{}, "action": "approve"}} {
		env.Must(400, "POST", base+"/bulk", user.Access, bad)
	}
	if n := env.Must(200, "GET", "/api/v1/corrections/pending-count", user.Access, nil).Data()["pending_count"]; n != float64(0) {
		t.Fatalf("pending after = %v", n)
	}

	// One step at a time: approve only what is proposed, edit the config.
	env.Must(409, "POST", base+"/steps/"+userStep+"/approve", user.Access, nil)
	env.Must(404, "POST", base+"/steps/"+uuid.NewString()+"/approve", user.Access, nil)
	e := env.Must(200, "POST", base+"/steps/"+userStep+"/edit", user.Access, map[string]any{"config": map[string]any{"column": "full_name", "strategy": "title"}}).Data()
	if e["version"] != float64(6) || e["steps"].([]any)[0].(map[string]any)["config"].(map[string]any)["strategy"] != "title" {
		t.Fatalf("edited = %v", e)
	}
	env.Must(400, "POST", base+"/steps/"+userStep+"/edit", user.Access, map[string]any{"config": map[string]any{"column": "full_name", "strategy": "sparkle"}})
	env.Must(409, "POST", base+"/steps/"+low+"/edit", user.Access, map[string]any{"config": map[string]any{"column": "full_name", "strategy": "lower"}})
	// An engine step the user rewrites becomes the user's: no confidence
	// or preview left to carry it past the threshold.
	rewritten := env.Must(200, "POST", base+"/steps/"+high+"/edit", user.Access, map[string]any{"config": map[string]any{"column": "email", "strategy": "lower"}}).Data()
	for _, st := range rewritten["steps"].([]any) {
		if st := st.(map[string]any); st["id"] == high && (st["source"] != "user" || st["confidence"] != nil || st["preview"] != nil) {
			t.Fatalf("rewritten engine step = %v", st)
		}
	}
	env.Must(200, "POST", base+"/steps/"+userStep+"/reject", user.Access, nil)

	// Versions, newest first; a revert makes a new version equal to the
	// target's steps and keeps every version in between.
	vs := env.Must(200, "GET", base+"/versions", user.Access, nil)
	if list := vs.List(); len(list) != 8 || list[0]["version"] != float64(8) || list[7]["change"] != "created" {
		t.Fatalf("versions = %s", vs.Raw)
	}
	rv := env.Must(200, "POST", base+"/revert", user.Access, map[string]any{"to_version": 2}).Data()
	v2 := env.Must(200, "GET", base+"/versions?offset=7&limit=1", user.Access, nil).List()[0] // 9, 8, …: version 2 is the eighth
	if rv["version"] != float64(9) || fmt.Sprint(rv["steps"]) != fmt.Sprint(v2["steps"]) {
		t.Fatalf("reverted = %v\nversion 2 = %v", rv, v2)
	}
	env.Must(404, "POST", base+"/revert", user.Access, map[string]any{"to_version": 99})
	env.Must(400, "POST", base+"/revert", user.Access, map[string]any{"to_version": 0})
	env.Must(400, "POST", base+"/revert", user.Access, map[string]any{})

	// Archived pipelines leave the active list and keep their history.
	env.Must(400, "PATCH", base, user.Access, map[string]any{"status": "deleted"})
	env.Must(200, "PATCH", base, user.Access, map[string]any{"status": "archived", "name": "old people fix"})
	if l := env.Must(200, "GET", "/api/v1/corrections", user.Access, nil).List(); len(l) != 0 {
		t.Fatalf("active list shows an archived pipeline: %v", l)
	}
	if l := env.Must(200, "GET", "/api/v1/corrections?status=archived", user.Access, nil).List(); len(l) != 1 || l[0]["name"] != "old people fix" {
		t.Fatalf("archived list = %v", l)
	}
	env.Must(400, "GET", "/api/v1/corrections?status=gone", user.Access, nil)
	if n := len(env.Must(200, "GET", base+"/versions?limit=200", user.Access, nil).List()); n != 10 {
		t.Fatalf("%d versions after archiving, want 10", n)
	}
	// An archived pipeline is read-only until it is active again.
	env.Must(409, "POST", base+"/steps", user.Access, trim)
	env.Must(409, "POST", base+"/revert", user.Access, map[string]any{"to_version": 1})
	env.Must(200, "PATCH", base, user.Access, map[string]any{"status": "active"})
	env.Must(201, "POST", base+"/steps", user.Access, trim)

	// Another organisation sees none of it.
	other := env.Register(servicetest.Unique("fixes-other"))
	env.Must(404, "GET", base, other.Access, nil)
	env.Must(404, "POST", "/api/v1/corrections", other.Access, map[string]any{"name": "x", "file_id": fileID})
	if n := env.Must(200, "GET", "/api/v1/corrections/pending-count", other.Access, nil).Data()["pending_count"]; n != float64(0) {
		t.Fatalf("other pending = %v", n)
	}
}

// TestConcurrentPipelineEdits: edits racing on one pipeline all land,
// each at its own version.
func TestConcurrentPipelineEdits(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("race"))
	fileID := analysedUpload(t, env, user.Access)
	// Params keep what was written: a long numeric fill value, HTML
	// characters.
	exact := env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "exact", "file_id": fileID, "steps": []any{
		json.RawMessage(`{"correction_type":"null_fill","config":{"column":"score","strategy":"constant","params":{"value":12345678901234567890}}}`),
		map[string]any{"correction_type": "regex_replace", "config": map[string]any{"column": "email", "params": map[string]any{"pattern": "<[^>]*>", "replacement": "&"}}}}})
	second := exact.Data()["steps"].([]any)[1].(map[string]any)["config"].(map[string]any)["params"].(map[string]any)
	if !strings.Contains(string(exact.Raw), `"value":12345678901234567890`) || second["pattern"] != "<[^>]*>" || second["replacement"] != "&" {
		t.Fatalf("params changed: %s", exact.Raw)
	}

	id := env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "race", "file_id": fileID}).Data()["id"].(string)
	const n = 8
	var wg sync.WaitGroup
	status := make(chan int, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := env.Do("POST", "/api/v1/corrections/"+id+"/steps", user.Access, map[string]any{"correction_type": "format_fix",
				"config": map[string]any{"column": "full_name", "strategy": []string{"upper", "lower"}[i%2]}})
			if r.Status != 201 {
				t.Errorf("a concurrent edit: %d %s", r.Status, r.Raw)
			}
			status <- r.Status
		}()
	}
	wg.Wait()
	close(status)
	for s := range status {
		if s != 201 {
			t.Errorf("a concurrent edit answered %d", s)
		}
	}
	p := env.Must(200, "GET", "/api/v1/corrections/"+id, user.Access, nil).Data()
	vs := env.Must(200, "GET", "/api/v1/corrections/"+id+"/versions?limit=200", user.Access, nil).List()
	if p["version"] != float64(n+1) || len(p["steps"].([]any)) != n || len(vs) != n+1 {
		t.Fatalf("after %d concurrent edits: version %v, %d steps, %d versions", n, p["version"], len(p["steps"].([]any)), len(vs))
	}
}
