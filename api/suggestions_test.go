package api_test

// The fix inbox over the running service: the suggesters run after a job
// completes, their steps are listed per file with previews, approved in
// bulk above the trust threshold and applied; feedback and every approval
// or rejection feed the trust history that calibrates later suggestions.

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/suggest"
)

// waitSuggestions polls the fix inbox until it holds a group for file id.
func waitSuggestions(t *testing.T, env *servicetest.Env, token string, fileID any) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		for _, g := range env.Must(200, "GET", "/api/v1/suggestions?limit=200", token, nil).List() {
			if g["file_id"] == fileID {
				return g
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no suggestions for file %v after 60s", fileID)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSuggestionsInboxApproveApplyAndLearn(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	user := env.Register(servicetest.Unique("inbox"))
	fileID := uploadAnalysed(t, env, user.Access, "crm.csv", messyCSV(60))
	original := env.Must(200, "GET", fmt.Sprintf("/api/v1/files/%v", fileID), user.Access, nil).Data()

	g := waitSuggestions(t, env, user.Access, fileID)
	if g["file_name"] != "crm.csv" || g["pipeline_id"] == nil {
		t.Fatalf("group = %v", g)
	}
	var email map[string]any
	for _, s := range g["suggestions"].([]any) {
		s := s.(map[string]any)
		conf, _ := s["confidence"].(float64)
		if s["source"] != "auto" || s["status"] != "proposed" || s["engine"] == nil || s["explanation"] == nil || conf <= 0 || conf > 1 {
			t.Errorf("suggestion = %v", s)
		}
		cfg := s["config"].(map[string]any)
		if cfg["column"] == "email" && cfg["strategy"] == "email_normalize" {
			email = s
		}
	}
	if email == nil {
		t.Fatalf("no email_normalize suggestion among %v", g["suggestions"])
	}
	pv := email["preview"].(map[string]any)
	before, after := pv["before"].([]any), pv["after"].([]any)
	if len(before) == 0 || len(before) != len(after) || before[0].(map[string]any)["email"] == after[0].(map[string]any)["email"] {
		t.Fatalf("preview = %v", pv)
	}

	// Another organisation's inbox does not show them.
	other := env.Register(servicetest.Unique("inboxother"))
	if got := env.Must(200, "GET", "/api/v1/suggestions?status=all", other.Access, nil).List(); len(got) != 0 {
		t.Errorf("another organisation's inbox = %v", got)
	}

	// Filters: confidence out of range is 400; above every confidence
	// leaves the file out.
	if r := env.Do("GET", "/api/v1/suggestions?min_confidence=1.5", user.Access, nil); r.Status != 400 {
		t.Errorf("min_confidence 1.5 = %d", r.Status)
	}
	if r := env.Do("GET", "/api/v1/suggestions?status=sideways", user.Access, nil); r.Status != 400 {
		t.Errorf("status sideways = %d", r.Status)
	}
	for _, g := range env.Must(200, "GET", "/api/v1/suggestions?min_confidence=1", user.Access, nil).List() {
		for _, s := range g["suggestions"].([]any) {
			if s.(map[string]any)["confidence"].(float64) < 1 {
				t.Errorf("min_confidence=1 listed %v", s)
			}
		}
	}

	// Approve the e-mail fix and apply the inbox's pipeline: the copy is
	// analysed (here normalising the e-mails reveals the rows exported
	// twice, which the copy's score counts).
	pid := g["pipeline_id"]
	env.Must(200, "POST", fmt.Sprintf("/api/v1/corrections/%v/steps/%v/approve", pid, email["id"]), user.Access, nil)
	cp := env.Must(202, "POST", fmt.Sprintf("/api/v1/corrections/%v/apply", pid), user.Access, map[string]any{"file_id": fileID}).Data()["file"].(map[string]any)
	done := waitFile(t, env, user.Access, cp["id"])
	if done["status"] != "completed" || done["quality_score"] == nil || original["quality_score"] == nil {
		t.Fatalf("copy = %v (original %v)", done, original["quality_score"])
	}
	issues := done["profile"].(map[string]any)["quality"].(map[string]any)["issues"].([]any)
	if len(issues) == 0 || issues[0].(map[string]any)["kind"] != "duplicate_rows" {
		t.Errorf("copy's issues = %v, want the duplicates the fix revealed", issues)
	}

	// Feedback: 201 with what was said; a user's step or a missing helpful
	// is refused.
	fb := env.Must(201, "POST", fmt.Sprintf("/api/v1/suggestions/%v/feedback", email["id"]), user.Access, map[string]any{"helpful": true, "comment": "spot on"}).Data()
	if fb["suggestion_id"] != email["id"] || fb["helpful"] != true || fb["comment"] != "spot on" {
		t.Errorf("feedback = %v", fb)
	}
	if r := env.Do("POST", fmt.Sprintf("/api/v1/suggestions/%v/feedback", email["id"]), user.Access, map[string]any{"comment": "?"}); r.Status != 400 {
		t.Errorf("feedback without helpful = %d", r.Status)
	}
	mine := env.Must(201, "POST", "/api/v1/corrections", user.Access, map[string]any{"name": "mine", "file_id": fileID, "steps": []any{
		map[string]any{"correction_type": "format_fix", "config": map[string]any{"column": "city", "strategy": "trim"}}}}).Data()
	if r := env.Do("POST", fmt.Sprintf("/api/v1/suggestions/%v/feedback", stepsOf(mine)[0]["id"]), user.Access, map[string]any{"helpful": true}); r.Status != 404 {
		t.Errorf("feedback on a user's step = %d", r.Status)
	}
	ctx := context.Background()
	h, err := env.App.Stores.Suggestions.History(ctx, user.OrgID)
	key := models.TrustKey{Engine: fmt.Sprint(email["engine"]), CorrectionType: "format_fix"}
	if err != nil || h[key].Approved != 1 || h[key].Helpful != 1 {
		t.Fatalf("history = %v %v", h, err)
	}

	// A kind of suggestion users keep rejecting sinks: after twenty
	// rejections the next file's steps of that kind are calibrated down,
	// below the default trust threshold.
	st, err := env.App.Stores.Suggestions.EngineStep(ctx, user.OrgID, email["id"].(string))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := env.App.Stores.Suggestions.Record(ctx, user.OrgID, user.UserID, *st, models.TrustRejected, ""); err != nil {
			t.Fatal(err)
		}
	}
	next := uploadAnalysed(t, env, user.Access, "crm-march.csv", messyCSV(60))
	g2 := waitSuggestions(t, env, user.Access, next)
	found := false
	for _, s := range g2["suggestions"].([]any) {
		s := s.(map[string]any)
		if s["engine"] != key.Engine || s["correction_type"] != "format_fix" {
			continue
		}
		stored, err := env.App.Stores.Suggestions.EngineStep(ctx, user.OrgID, s["id"].(string))
		if err != nil {
			t.Fatal(err)
		}
		want := suggest.Calibrate(*stored.RawConfidence, suggest.Feedback{Approved: 1, Helpful: 1, Rejected: 20})
		if math.Abs(*stored.Confidence-want) > 1e-9 || *stored.Confidence >= 0.8 {
			t.Errorf("calibrated confidence = %v (raw %v), want %v under 0.8", *stored.Confidence, *stored.RawConfidence, want)
		}
		found = true
	}
	if !found {
		t.Fatalf("no %v format_fix suggestion on the second file: %v", key.Engine, g2["suggestions"])
	}
}
