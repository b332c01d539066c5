package api_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/hostile"
	"github.com/dqs/dqs/internal/servicetest"
)

// multipartBody builds a multipart body with one "file" part per file.
func multipartBody(t testing.TB, files map[string]string) (string, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for name, content := range files {
		part, err := w.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(part, content)
	}
	w.Close()
	return w.FormDataContentType(), &buf
}

func upload(t testing.TB, env *servicetest.Env, path, token string, files map[string]string) *servicetest.Response {
	t.Helper()
	ct, body := multipartBody(t, files)
	return env.DoHeaders("POST", path, token, body.Bytes(), map[string]string{"Content-Type": ct})
}

func peopleCSV(rows int) string {
	var b strings.Builder
	b.WriteString("id,email,full_name,signup_date,score\n")
	names := []string{"Anna Svensson", "Mikko Virtanen", "Ola Nordmann", "John Smith", "Marie Dubois", "Lars Jensen"}
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "%d,user%d@example.com,%s,2024-%02d-%02d,%d.%d\n", i+1, i, names[i%len(names)], i%12+1, i%28+1, i%100, i%10)
	}
	return b.String()
}

// waitJob polls the job until it leaves queued/processing.
func waitJob(t testing.TB, env *servicetest.Env, token, path string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		d := env.Must(200, "GET", path, token, nil).Data()
		if s := d["status"]; s == "completed" || s == "failed" {
			return d
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still %v after 60s: %v", d["status"], d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestJobLifecycle: create, upload, start, watch, read the analysis.
func TestJobLifecycle(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s := env.Register(servicetest.Unique("jobs"))
	job := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"people.csv", "broken.json"}}).Data()
	id := job["job_id"].(string)
	if job["status"] != "created" || job["retention_mode"] != "short_term" || job["retention_days"] != float64(30) {
		t.Fatalf("created job = %v", job)
	}
	// Start before any upload is a conflict; an undeclared name is refused.
	env.Must(409, "POST", "/api/v1/jobs/"+id+"/start", s.Access, nil)
	if r := upload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, map[string]string{"other.csv": "a\n1\n"}); r.Status != 400 {
		t.Fatalf("undeclared file = %d %s", r.Status, r.Raw)
	}
	r := upload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, map[string]string{"people.csv": peopleCSV(500), "broken.json": `[{"a": 1}, {"a": `})
	if r.Status != 201 || len(r.Data()["files"].([]any)) != 2 {
		t.Fatalf("upload = %d %s", r.Status, r.Raw)
	}
	started := env.Must(202, "POST", "/api/v1/jobs/"+id+"/start", s.Access, map[string]any{"retention_mode": "analysis_only"}).Data()
	if started["status"] != "queued" || started["retention_days"] != float64(1) {
		t.Fatalf("started = %v", started)
	}
	env.Must(409, "POST", "/api/v1/jobs/"+id+"/start", s.Access, map[string]any{"retention_mode": "full_retention"})

	done := waitJob(t, env, s.Access, "/api/v1/jobs/"+id)
	if done["status"] != "completed" || done["progress"] != float64(100) {
		t.Fatalf("job = %v", done)
	}
	byName := map[string]map[string]any{}
	for _, f := range done["files"].([]any) {
		byName[f.(map[string]any)["file_name"].(string)] = f.(map[string]any)
	}
	people, broken := byName["people.csv"], byName["broken.json"]
	if people["status"] != "completed" || people["row_count"] != float64(500) || people["column_count"] != float64(5) || people["quality_score"] == nil {
		t.Fatalf("people.csv = %v", people)
	}
	if broken["status"] != "failed" || broken["error"] == nil || strings.Contains(broken["error"].(string), "\n") {
		t.Fatalf("broken.json = %v", broken)
	}
	labels := map[string]string{}
	for _, c := range done["columns"].([]any) {
		col := c.(map[string]any)
		labels[col["name"].(string)] = col["classification"].(string)
		if conf := col["confidence"].(float64); conf < 0 || conf > 1 {
			t.Errorf("confidence %v out of range", conf)
		}
	}
	if labels["email"] != "email" || labels["full_name"] != "person_name" {
		t.Errorf("classifications = %v", labels)
	}
	// The file with its profile, and its download through a signed URL.
	fid := int64(people["file_id"].(float64))
	file := env.Must(200, "GET", fmt.Sprintf("/api/v1/files/%d", fid), s.Access, nil).Data()
	prof := file["profile"].(map[string]any)
	if prof["row_count"] != float64(500) || prof["quality"].(map[string]any)["score"] == nil {
		t.Fatalf("profile = %v", prof)
	}
	dl := env.Do("GET", fmt.Sprintf("/api/v1/files/%d/download", fid), s.Access, nil)
	if dl.Status != http.StatusTemporaryRedirect {
		t.Fatalf("download = %d %s", dl.Status, dl.Raw)
	}
	resp, err := http.Get(dl.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(got) != peopleCSV(500) || !strings.Contains(resp.Header.Get("Content-Disposition"), "people.csv") {
		t.Fatalf("signed download = %d %q", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	// A tampered link is refused.
	if r := env.Do("GET", strings.TrimPrefix(dl.Header.Get("Location"), env.BaseURL)+"x", "", nil); r.Status != 404 {
		t.Fatalf("tampered link = %d", r.Status)
	}
	list := env.Must(200, "GET", "/api/v1/files", s.Access, nil)
	if list.Body["meta"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("files = %s", list.Raw)
	}
	env.FlushAudit()
	for _, ev := range []string{"job_created", "file_uploaded", "job_started", "job_completed"} {
		if n := env.Must(200, "GET", "/api/v1/audit?event="+ev, s.Access, nil).Data()["total"]; n == float64(0) {
			t.Errorf("no %s audit entry", ev)
		}
	}
	up := env.Must(200, "GET", "/api/v1/audit?event=file_uploaded&limit=1", s.Access, nil).Data()["logs"].([]any)[0].(map[string]any)["metadata"].(map[string]any)
	if up["file_id"] == nil || up["filename"] == nil || up["size_bytes"] == nil {
		t.Errorf("file_uploaded metadata = %v", up)
	}

	// Another organisation sees none of it.
	other := env.Register(servicetest.Unique("other"))
	for _, path := range []string{"/api/v1/jobs/" + id, fmt.Sprintf("/api/v1/files/%d", fid), fmt.Sprintf("/api/v1/files/%d/download", fid), "/api/v1/public/jobs/" + id} {
		if r := env.Do("GET", path, other.Access, nil); r.Status != 404 {
			t.Errorf("other org %s = %d", path, r.Status)
		}
	}
}

// TestPublicUploadWithAPIKey: the integration flow with a scan key.
func TestPublicUploadWithAPIKey(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s := env.Register(servicetest.Unique("pub"))
	scan, _ := env.APIKey(s, "scan")
	read, _ := env.APIKey(s, "read")
	if r := upload(t, env, "/api/v1/public/upload", read, map[string]string{"p.csv": peopleCSV(20)}); r.Status != 403 || r.ErrorCode() != "insufficient_scope" {
		t.Fatalf("read key upload = %d %s", r.Status, r.Raw)
	}
	r := upload(t, env, "/api/v1/public/upload", scan, map[string]string{"p.csv": peopleCSV(20)})
	if r.Status != 202 || r.Data()["status"] != "queued" || r.Data()["file_name"] != "p.csv" {
		t.Fatalf("public upload = %d %s", r.Status, r.Raw)
	}
	done := waitJob(t, env, read, "/api/v1/public/jobs/"+r.Data()["job_id"].(string))
	if done["status"] != "completed" || len(done["columns"].([]any)) != 5 || done["file_id"] == nil {
		t.Fatalf("public job = %v", done)
	}
}

// TestUploadRefusals: passwords, size, format and type problems are clear
// errors, and nothing is kept.
func TestUploadRefusals(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) { c.MaxUploadBytes = 64 << 10 }})
	s := env.Register(servicetest.Unique("ref"))
	var pw strings.Builder
	pw.WriteString("username,password\n")
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&pw, "user%d,Summer%d!pass\n", i, 2000+i)
	}
	r := upload(t, env, "/api/v1/files/prescan", s.Access, map[string]string{"creds.csv": pw.String()})
	if r.Status != 400 || r.ErrorCode() != "raw_password_detected" || !strings.Contains(r.ErrorMessage(), `"creds.csv" has a column of plaintext passwords ("password")`) {
		t.Fatalf("prescan of passwords = %d %s", r.Status, r.Raw)
	}
	job := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"creds.csv", "big.csv"}}).Data()
	id := job["job_id"].(string)
	if r := upload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, map[string]string{"creds.csv": pw.String()}); r.Status != 400 || r.ErrorCode() != "raw_password_detected" {
		t.Fatalf("upload of passwords = %d %s", r.Status, r.Raw)
	}
	// The one-request flow refuses before creating a job.
	if r := upload(t, env, "/api/v1/public/upload", s.Access, map[string]string{"creds.csv": pw.String()}); r.Status != 400 || r.ErrorCode() != "raw_password_detected" {
		t.Fatalf("public upload of passwords = %d %s", r.Status, r.Raw)
	}
	if n := env.Must(200, "GET", "/api/v1/jobs", s.Access, nil).Body["meta"].(map[string]any)["total"]; n != float64(1) {
		t.Fatalf("jobs after refused public upload = %v, want only the one created above", n)
	}
	if r := upload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, map[string]string{"big.csv": peopleCSV(3000)}); r.Status != 413 || r.ErrorCode() != "payload_too_large" {
		t.Fatalf("oversize upload = %d %.200s", r.Status, r.Raw)
	}
	if files := env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()["files"].([]any); len(files) != 0 {
		t.Fatalf("refused uploads left files: %v", files)
	}
	if r := env.Do("POST", "/api/v1/jobs/"+id+"/files", s.Access, map[string]any{"file": "x"}); r.Status != 400 {
		t.Fatalf("JSON instead of multipart = %d", r.Status)
	}
	// A compressed file is refused at upload, not stored and failed later.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(peopleCSV(50)))
	zw.Close()
	for _, path := range []string{"/api/v1/files/prescan", "/api/v1/jobs/" + id + "/files", "/api/v1/public/upload"} {
		if r := upload(t, env, path, s.Access, map[string]string{"creds.csv": gz.String()}); r.Status != 400 || !strings.Contains(r.ErrorMessage(), "is compressed (gzip)") {
			t.Fatalf("%s of a gzip file = %d %s", path, r.Status, r.Raw)
		}
	}
	ok := upload(t, env, "/api/v1/files/prescan", s.Access, map[string]string{"p.csv": peopleCSV(50)})
	if ok.Status != 200 || ok.Data()["contains_personal_data"] != true || len(ok.Data()["columns"].([]any)) != 5 {
		t.Fatalf("prescan = %d %s", ok.Status, ok.Raw)
	}
	for _, body := range []map[string]any{{"filenames": []string{}}, {"filenames": []string{"../x.csv"}}, {"filenames": []string{"a", "a"}},
		{"filenames": []string{"a"}, "retention_days": 366}, {"filenames": []string{"a"}, "retention_mode": "forever"}} {
		if r := env.Do("POST", "/api/v1/jobs", s.Access, body); r.Status != 400 {
			t.Errorf("create job %v = %d %s", body, r.Status, r.Raw)
		}
	}
	env.FlushAudit()
	if n := env.Must(200, "GET", "/api/v1/audit?event=file_rejected_raw_password", s.Access, nil).Data()["total"]; n != float64(3) {
		t.Fatalf("file_rejected_raw_password entries = %v", n)
	}
}

// TestHostileUploads: the attack files of the security review, sent as an
// attacker would (prescan, the one-request upload), get a clear answer
// and leave the service up: the prescan refuses them with the reader's
// message, and an uploaded one fails its analysis with it.
func TestHostileUploads(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) {
		c.FileMemoryBudget, c.MemoryBudget = 256<<20, 1<<30
	}})
	s := env.Register(servicetest.Unique("hostile"))
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"children.parquet":   {hostile.LyingNumChildren(1<<31 - 1), "declares 2147483647 children"},
		"bomb.parquet":       {hostile.CompressionBomb(40, 400, 64<<10), "uncompressed, more than the 24 MiB limit"},
		"dictionary.parquet": {hostile.DictionaryBomb(2, 200_000, 1<<20-100), "needs more memory at once than its 96 MiB budget"},
		"zstd.parquet":       {hostile.LyingCodec(hostile.CodecZstd, hostile.ZstdLyingFrame(32<<30)), "holds more than its page declares"},
	} {
		r := upload(t, env, "/api/v1/files/prescan", s.Access, map[string]string{name: string(c.data)})
		if r.Status != 400 || r.ErrorCode() != "bad_request" || !strings.Contains(r.ErrorMessage(), c.want) {
			t.Errorf("prescan of %s = %d %s, want 400 containing %q", name, r.Status, r.Raw, c.want)
		}
	}
	// Uploaded, the file is stored (the prescan only refuses passwords) and
	// its analysis fails with the reader's message; the job says so.
	r := upload(t, env, "/api/v1/public/upload", s.Access, map[string]string{"bomb.parquet": string(hostile.CompressionBomb(40, 400, 64<<10))})
	if r.Status != 202 {
		t.Fatalf("public upload = %d %s", r.Status, r.Raw)
	}
	done := waitJob(t, env, s.Access, "/api/v1/jobs/"+r.Data()["job_id"].(string))
	files := done["files"].([]any)
	if done["status"] != "failed" || len(files) != 1 || !strings.Contains(fmt.Sprint(files[0].(map[string]any)["error"]), "holds pages that need more than") {
		t.Fatalf("job of a compression bomb = %v", done)
	}
	env.Must(200, "GET", "/api/v1/public/health", "", nil)
}
