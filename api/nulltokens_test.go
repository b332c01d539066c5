package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/profile"
)

// codesCSV has a code column of 2 "NULL", 2 "missing" and 6 values.
const codesCSV = "id,code\n1,NULL\n2,missing\n3,ab\n4,cd\n5,NULL\n6,missing\n7,ef\n8,gh\n9,ij\n10,kl\n"

// codeNulls analyses codesCSV in the job at path (already holding the
// upload) and returns the code column's null count.
func codeNulls(t *testing.T, env *servicetest.Env, token, jobPath string) float64 {
	t.Helper()
	done := waitJob(t, env, token, jobPath)
	files := done["files"].([]any)
	if done["status"] != "completed" || len(files) != 1 {
		t.Fatalf("job = %v", done)
	}
	fid := int64(files[0].(map[string]any)["file_id"].(float64))
	prof := env.Must(200, "GET", fmt.Sprintf("/api/v1/files/%d", fid), token, nil).Data()["profile"].(map[string]any)
	for _, c := range prof["columns"].([]any) {
		if col := c.(map[string]any); col["name"] == "code" {
			return col["nulls"].(float64)
		}
	}
	t.Fatalf("no code column: %v", prof)
	return 0
}

func anyList(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// TestNullTokens: the organisation's null tokens, a job's and an upload's
// decide what the analysis counts as nulls.
func TestNullTokens(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("nt"))
	settings := func() map[string]any { return env.Must(200, "GET", "/api/v1/org/settings", admin.Access, nil).Data() }
	if got := fmt.Sprint(settings()["null_tokens"]); got != fmt.Sprint(anyList(profile.DefaultNullTokens)) {
		t.Fatalf("default null_tokens = %s", got)
	}
	for body, field := range map[string]string{
		`{"null_tokens":"NULL"}`:    "null_tokens",
		`{"null_tokens":["", "x"]}`: "blank",
		`{"null_tokens":[1]}`:       "null_tokens",
		`{"null_tokens":{"a":"b"}}`: "null_tokens",
	} {
		r := env.Do("PATCH", "/api/v1/org/settings", admin.Access, body)
		if r.Status != 400 || !strings.Contains(r.ErrorMessage(), field) {
			t.Errorf("PATCH %s = %d %s", body, r.Status, r.Raw)
		}
	}

	// The organisation's list: new jobs take it.
	env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"null_tokens": []string{"missing"}})
	if got := fmt.Sprint(settings()["null_tokens"]); got != "[missing]" {
		t.Fatalf("null_tokens after PATCH = %s", got)
	}
	job := env.Must(201, "POST", "/api/v1/jobs", admin.Access, map[string]any{"filenames": []string{"codes.csv"}}).Data()
	if fmt.Sprint(job["null_tokens"]) != "[missing]" {
		t.Errorf("job null_tokens = %v", job["null_tokens"])
	}
	path := "/api/v1/jobs/" + job["job_id"].(string)
	upload(t, env, path+"/files", admin.Access, map[string]string{"codes.csv": codesCSV})
	// Settings changed after creation do not change the job.
	env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"null_tokens": []string{"ab"}})
	env.Must(202, "POST", path+"/start", admin.Access, nil)
	if n := codeNulls(t, env, admin.Access, path); n != 2 {
		t.Errorf("with the organisation's [missing]: %v nulls, want 2", n)
	}

	// A job's own list; null asks for the defaults.
	for _, tc := range []struct {
		tokens any
		want   float64
	}{{[]string{"NULL", "missing"}, 4}, {nil, 2}, {[]string{}, 0}} {
		job := env.Must(201, "POST", "/api/v1/jobs", admin.Access, map[string]any{"filenames": []string{"codes.csv"}, "null_tokens": tc.tokens}).Data()
		path := "/api/v1/jobs/" + job["job_id"].(string)
		upload(t, env, path+"/files", admin.Access, map[string]string{"codes.csv": codesCSV})
		env.Must(202, "POST", path+"/start", admin.Access, nil)
		if n := codeNulls(t, env, admin.Access, path); n != tc.want {
			t.Errorf("job null_tokens %v: %v nulls, want %v", tc.tokens, n, tc.want)
		}
	}
	r := env.Do("POST", "/api/v1/jobs", admin.Access, map[string]any{"filenames": []string{"a.csv"}, "null_tokens": []string{strings.Repeat("x", 65)}})
	if r.Status != 400 || !strings.Contains(r.ErrorMessage(), "null_tokens") {
		t.Errorf("a token too long = %d %s", r.Status, r.Raw)
	}

	// An upload's query: a comma-separated list replaces the organisation's.
	scan, _ := env.APIKey(admin, "scan")
	pub := upload(t, env, "/api/v1/public/upload?null_tokens=missing,ab", scan, map[string]string{"codes.csv": codesCSV})
	if pub.Status != 202 {
		t.Fatalf("public upload = %d %s", pub.Status, pub.Raw)
	}
	if n := codeNulls(t, env, admin.Access, "/api/v1/jobs/"+pub.Data()["job_id"].(string)); n != 3 {
		t.Errorf("public upload with missing,ab: %v nulls, want 3", n)
	}
	if r := upload(t, env, "/api/v1/public/upload?null_tokens=a,,b", scan, map[string]string{"codes.csv": codesCSV}); r.Status != 400 || !strings.Contains(r.ErrorMessage(), "null_tokens") {
		t.Errorf("a blank token in the query = %d %s", r.Status, r.Raw)
	}

	// Back to the defaults.
	env.Must(200, "PATCH", "/api/v1/org/settings", admin.Access, map[string]any{"null_tokens": nil})
	if got := fmt.Sprint(settings()["null_tokens"]); got != fmt.Sprint(anyList(profile.DefaultNullTokens)) {
		t.Errorf("null_tokens after reset = %s", got)
	}
	env.FlushAudit()
	logs := env.Must(200, "GET", "/api/v1/audit?event=settings_updated&limit=1", admin.Access, nil).Data()["logs"].([]any)
	if md := logs[0].(map[string]any)["metadata"].(map[string]any); md["null_tokens"] == nil {
		t.Errorf("settings_updated metadata = %v", md)
	}
}
