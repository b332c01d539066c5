package api_test

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	enums "go.temporal.io/api/enums/v1"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/servicetest"
)

// storedObjects counts the raw objects the local blob store holds for a job.
func storedObjects(t *testing.T, env *servicetest.Env, jobID string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(env.Config.Blob.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.Contains(filepath.ToSlash(path), "/"+jobID+"/") {
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// startedJob creates, uploads and starts a job with one CSV and waits for
// its analysis.
func startedJob(t *testing.T, env *servicetest.Env, token string, retention map[string]any) map[string]any {
	t.Helper()
	body := map[string]any{"filenames": []string{"people.csv"}}
	for k, v := range retention {
		body[k] = v
	}
	id := env.Must(201, "POST", "/api/v1/jobs", token, body).Data()["job_id"].(string)
	if r := upload(t, env, "/api/v1/jobs/"+id+"/files", token, map[string]string{"people.csv": peopleCSV(200)}); r.Status != 201 {
		t.Fatalf("upload = %d %s", r.Status, r.Raw)
	}
	env.Must(202, "POST", "/api/v1/jobs/"+id+"/start", token, nil)
	return waitJob(t, env, token, "/api/v1/jobs/"+id)
}

func parseTime(t *testing.T, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("time = %v, want a string", v)
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return at
}

func auditCount(t *testing.T, env *servicetest.Env, token, event, jobID string) int {
	t.Helper()
	env.FlushAudit()
	n := 0
	for _, e := range env.Must(200, "GET", "/api/v1/audit?limit=100&event="+event, token, nil).Data()["logs"].([]any) {
		if e.(map[string]any)["metadata"].(map[string]any)["job_id"] == jobID {
			n++
		}
	}
	return n
}

// checkRawFileGone: the download and re-analysis of a deleted raw file
// answer 404 saying so, while the job and the file's analysis stay.
func checkRawFileGone(t *testing.T, env *servicetest.Env, token string, job map[string]any) {
	t.Helper()
	fid := fmt.Sprint(int64(job["file_id"].(float64)))
	for _, req := range [][2]string{{"GET", "/api/v1/files/" + fid + "/download"}, {"POST", "/api/v1/files/" + fid + "/reanalyze"}} {
		r := env.Do(req[0], req[1], token, nil)
		if r.Status != 404 || r.ErrorCode() != "not_found" || !strings.Contains(r.ErrorMessage(), "raw file was deleted") {
			t.Errorf("%s %s after deletion = %d %s, want 404 saying the raw file was deleted", req[0], req[1], r.Status, r.Raw)
		}
	}
	file := env.Must(200, "GET", "/api/v1/files/"+fid, token, nil).Data()
	if file["raw_file_deleted"] != true || file["status"] != "completed" || file["profile"] == nil || file["quality_score"] == nil {
		t.Errorf("file after deletion = %v, want its analysis kept", file)
	}
	again := env.Must(200, "GET", "/api/v1/jobs/"+job["job_id"].(string), token, nil).Data()
	if again["status"] != "completed" || len(again["columns"].([]any)) == 0 || again["file_deleted_at"] == nil {
		t.Errorf("job after deletion = %v, want it readable with its columns", again)
	}
	if n := storedObjects(t, env, job["job_id"].(string)); n != 0 {
		t.Errorf("%d raw objects left in storage", n)
	}
}

// TestRetentionTimerOnTheDevServer: with a retention day shortened to a
// few seconds (the test-only DQS_TEST_RETENTION_DAY), the job's own
// workflow deletes its raw files when they expire, never before; a
// full_retention job keeps them.
func TestRetentionTimerOnTheDevServer(t *testing.T) {
	const day = 3 * time.Second
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) { c.TestRetentionDay = day }})
	s := env.Register(servicetest.Unique("retention"))

	kept := startedJob(t, env, s.Access, map[string]any{"retention_mode": "full_retention"})
	job := startedJob(t, env, s.Access, map[string]any{"retention_mode": "short_term", "retention_days": 2})
	id := job["job_id"].(string)
	completed := parseTime(t, job["completed_at"])
	if expires := parseTime(t, job["retention_expires_at"]); !expires.Equal(completed.Add(2 * day)) {
		t.Fatalf("retention_expires_at = %s, want completed_at %s + 2 days of %s", expires, completed, day)
	}
	if job["file_deleted_at"] != nil || storedObjects(t, env, id) != 1 {
		t.Fatalf("files deleted at completion: %v", job)
	}

	deadline := time.Now().Add(60 * time.Second)
	for job["file_deleted_at"] == nil {
		if time.Now().After(deadline) {
			t.Fatalf("raw files still stored 60s after completion: %v", job)
		}
		time.Sleep(200 * time.Millisecond)
		job = env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()
	}
	if deleted := parseTime(t, job["file_deleted_at"]); deleted.Sub(completed) < 2*day {
		t.Fatalf("deleted %s after completion, before the retention of %s", deleted.Sub(completed), 2*day)
	}
	checkRawFileGone(t, env, s.Access, job)
	if n := auditCount(t, env, s.Access, "files_expiring", id); n != 1 {
		t.Fatalf("files_expiring entries = %d, want 1", n)
	}
	// The job's workflow held the timer and is now complete: the deletion
	// was the timer's, visible to operators in the Temporal UI.
	desc, err := env.App.Temporal.DescribeWorkflowExecution(context.Background(), id, "")
	if err != nil {
		t.Fatal(err)
	}
	if st := desc.WorkflowExecutionInfo.Status; st != enums.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Fatalf("workflow %s is %s, want completed", id, st)
	}

	k := env.Must(200, "GET", "/api/v1/jobs/"+kept["job_id"].(string), s.Access, nil).Data()
	if k["file_deleted_at"] != nil || k["retention_expires_at"] != nil || storedObjects(t, env, kept["job_id"].(string)) != 1 {
		t.Fatalf("full_retention job lost its files: %v", k)
	}
}

// TestDeleteJobFilesNow: DELETE /jobs/{job_id}/files removes the raw files
// of any mode at once, audited as files_deleted; a second call changes
// nothing; a job whose files were deleted takes no more uploads or start.
func TestDeleteJobFilesNow(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s := env.Register(servicetest.Unique("delete"))
	job := startedJob(t, env, s.Access, map[string]any{"retention_mode": "full_retention"})
	id := job["job_id"].(string)
	if storedObjects(t, env, id) != 1 {
		t.Fatal("uploaded file not stored")
	}

	first := env.Must(200, "DELETE", "/api/v1/jobs/"+id+"/files", s.Access, nil).Data()
	if first["file_deleted_at"] == nil || first["job_id"] != id || first["retention_mode"] != "full_retention" {
		t.Fatalf("delete = %v", first)
	}
	checkRawFileGone(t, env, s.Access, first)
	second := env.Must(200, "DELETE", "/api/v1/jobs/"+id+"/files", s.Access, nil).Data()
	if second["file_deleted_at"] != first["file_deleted_at"] {
		t.Fatalf("second delete moved file_deleted_at from %v to %v", first["file_deleted_at"], second["file_deleted_at"])
	}
	if n := auditCount(t, env, s.Access, "files_deleted", id); n != 1 {
		t.Fatalf("files_deleted entries = %d, want 1", n)
	}
	entry := env.Must(200, "GET", "/api/v1/audit?event=files_deleted&limit=1", s.Access, nil).Data()["logs"].([]any)[0].(map[string]any)
	if entry["user_email"] != s.Email {
		t.Fatalf("files_deleted entry = %v, want the user who asked", entry)
	}

	// A job not yet started: its uploads go, and it can take no more.
	created := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"a.csv", "b.csv"}}).Data()["job_id"].(string)
	if r := upload(t, env, "/api/v1/jobs/"+created+"/files", s.Access, map[string]string{"a.csv": peopleCSV(5)}); r.Status != 201 {
		t.Fatalf("upload = %d %s", r.Status, r.Raw)
	}
	env.Must(200, "DELETE", "/api/v1/jobs/"+created+"/files", s.Access, nil)
	if storedObjects(t, env, created) != 0 {
		t.Fatal("upload of a created job still stored")
	}
	if r := upload(t, env, "/api/v1/jobs/"+created+"/files", s.Access, map[string]string{"b.csv": peopleCSV(5)}); r.Status != 409 || !strings.Contains(r.ErrorMessage(), "deleted") {
		t.Fatalf("upload after deletion = %d %s, want 409", r.Status, r.Raw)
	}
	if r := env.Do("POST", "/api/v1/jobs/"+created+"/start", s.Access, nil); r.Status != 409 || !strings.Contains(r.ErrorMessage(), "deleted") {
		t.Fatalf("start after deletion = %d %s, want 409", r.Status, r.Raw)
	}
	env.Must(404, "DELETE", "/api/v1/jobs/job_aaaaaaaaaaaa/files", s.Access, nil)
}

// TestReanalyzeFile: a finished job's file is analysed again in place;
// a job that has not finished refuses.
func TestReanalyzeFile(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s := env.Register(servicetest.Unique("rerun"))
	job := startedJob(t, env, s.Access, nil)
	fid := fmt.Sprint(int64(job["file_id"].(float64)))
	before := env.Must(200, "GET", "/api/v1/files/"+fid, s.Access, nil).Data()

	r := env.Must(202, "POST", "/api/v1/files/"+fid+"/reanalyze", s.Access, nil).Data()
	if r["status"] != "processing" || r["file_id"] != before["file_id"] {
		t.Fatalf("reanalyze = %v", r)
	}
	deadline := time.Now().Add(60 * time.Second)
	var after map[string]any
	for {
		after = env.Must(200, "GET", "/api/v1/files/"+fid, s.Access, nil).Data()
		if after["status"] == "completed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("file still %v after 60s", after["status"])
		}
		time.Sleep(100 * time.Millisecond)
	}
	if after["row_count"] != before["row_count"] || after["quality_score"] != before["quality_score"] || after["completed_at"] == before["completed_at"] {
		t.Fatalf("re-analysis = %v, want the same result, newly completed (before %v)", after, before)
	}
	if j := env.Must(200, "GET", "/api/v1/jobs/"+job["job_id"].(string), s.Access, nil).Data(); j["status"] != "completed" || j["progress"] != float64(100) {
		t.Fatalf("job after re-analysis = %v, want it untouched", j)
	}

	created := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"a.csv"}}).Data()["job_id"].(string)
	up := upload(t, env, "/api/v1/jobs/"+created+"/files", s.Access, map[string]string{"a.csv": peopleCSV(5)})
	cfid := fmt.Sprint(int64(up.Data()["files"].([]any)[0].(map[string]any)["file_id"].(float64)))
	if r := env.Do("POST", "/api/v1/files/"+cfid+"/reanalyze", s.Access, nil); r.Status != 409 || r.ErrorCode() != "conflict" {
		t.Fatalf("reanalyze of a file of a created job = %d %s, want 409", r.Status, r.Raw)
	}
	env.Must(404, "POST", "/api/v1/files/999999999/reanalyze", s.Access, nil)
}
