package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/models/modelstest"
)

// spoolFiles lists the upload files in the service's spool directory.
func spoolFiles(t *testing.T, env *servicetest.Env) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(env.App.Spool.Path(), "*"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// waitSpoolEmpty waits until the requests that were answered have removed
// their spool files (a handler removes them after it answered).
func waitSpoolEmpty(t *testing.T, env *servicetest.Env) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(spoolFiles(t, env)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("spool files left behind: %v", spoolFiles(t, env))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// storedBlobs lists the objects stored for a job, whole or half-written.
func storedBlobs(t *testing.T, env *servicetest.Env, orgID, jobID string) []string {
	t.Helper()
	var out []string
	dir := filepath.Join(env.Config.Blob.Dir, "orgs", orgID, "uploads", jobID)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// streamedUpload is an upload whose body is sent while the test decides:
// it has sent its part header and the first rows, and sends the rest
// when released. Its body has no length, so it goes chunked.
type streamedUpload struct {
	status chan *servicetest.Response
}

func startStreamedUpload(t *testing.T, env *servicetest.Env, path, token, name, content string, release <-chan struct{}) *streamedUpload {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	req, err := http.NewRequest("POST", env.BaseURL+path, pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	go func() {
		part, err := mw.CreateFormFile("file", name)
		if err == nil {
			_, err = io.WriteString(part, content[:len(content)/2])
		}
		if err == nil {
			<-release
			_, err = io.WriteString(part, content[len(content)/2:])
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	u := &streamedUpload{status: make(chan *servicetest.Response, 1)}
	go func() {
		resp, err := env.HTTP.Do(req)
		if err != nil {
			pr.CloseWithError(err)
			u.status <- &servicetest.Response{Status: -1, Raw: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		r := &servicetest.Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
		json.Unmarshal(raw, &r.Body)
		u.status <- r
	}()
	return u
}

// TestConcurrentUploadsOfOneNameStoreOne: several uploads of one declared
// name to one job, all past the early check and being received at the
// same time, then finished together: the database lets exactly one be
// stored (201) and answers the others 409 conflict, and nothing of the
// losers is left: one file row, one stored object, no spool file.
func TestConcurrentUploadsOfOneNameStoreOne(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			env := servicetest.Start(t, servicetest.Options{Dialect: d})
			s := env.Register(servicetest.Unique("race"))
			id := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"people.csv"}}).Data()["job_id"].(string)
			const racers = 6
			release := make(chan struct{})
			uploads := make([]*streamedUpload, racers)
			for i := range uploads {
				uploads[i] = startStreamedUpload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, "people.csv", peopleCSV(400), release)
			}
			// Every request is being spooled, so each passed the early
			// check of names already stored.
			deadline := time.Now().Add(30 * time.Second)
			for len(spoolFiles(t, env)) < racers {
				if time.Now().After(deadline) {
					t.Fatalf("%d of %d uploads being received", len(spoolFiles(t, env)), racers)
				}
				time.Sleep(10 * time.Millisecond)
			}
			close(release)
			created, conflicts := 0, 0
			for _, u := range uploads {
				r := <-u.status
				switch {
				case r.Status == 201:
					created++
				case r.Status == 409 && r.ErrorCode() == "conflict" && strings.Contains(r.ErrorMessage(), "people.csv"):
					conflicts++
				default:
					t.Errorf("racing upload = %d %s", r.Status, r.Raw)
				}
			}
			if created != 1 || conflicts != racers-1 {
				t.Fatalf("%d created and %d conflicts of %d racing uploads; want 1 and %d", created, conflicts, racers, racers-1)
			}
			files := env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()["files"].([]any)
			if len(files) != 1 {
				t.Fatalf("job files = %v, want one people.csv", files)
			}
			if blobs := storedBlobs(t, env, s.OrgID, id); len(blobs) != 1 {
				t.Fatalf("stored objects of the job = %v, want one", blobs)
			}
			waitSpoolEmpty(t, env)
			// A later upload of the name gets the same answer.
			if r := upload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, map[string]string{"people.csv": peopleCSV(10)}); r.Status != 409 || r.ErrorCode() != "conflict" {
				t.Fatalf("repeat upload = %d %s", r.Status, r.Raw)
			}
			env.FlushAudit()
			if n := env.Must(200, "GET", "/api/v1/audit?event=file_uploaded", s.Access, nil).Data()["total"]; n != float64(1) {
				t.Fatalf("file_uploaded entries = %v, want 1", n)
			}
		})
	}
}

// rawUpload sends the head of an upload that declares length bytes over
// a plain connection, and reads the answer without sending the rest.
func rawUpload(t *testing.T, env *servicetest.Env, path, token string, length int64) (*http.Response, net.Conn) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(env.BaseURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	body := "--b0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"people.csv\"\r\nContent-Type: text/csv\r\n\r\n" + peopleCSV(20)
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: multipart/form-data; boundary=b0undary\r\nContent-Length: %d\r\n\r\n%s",
		path, strings.TrimPrefix(env.BaseURL, "http://"), token, length, body)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s declaring %d bytes: no answer before the body was sent (%v); the body is being read", path, length, err)
	}
	return resp, conn
}

// TestUploadDeclaringTooMuchIsRefusedUnread: a request whose declared
// Content-Length exceeds DQS_MAX_UPLOAD_BYTES plus the framing allowance
// is refused with 413 at once, before its body is read: it is answered
// although most of the body never comes, and nothing is spooled.
func TestUploadDeclaringTooMuchIsRefusedUnread(t *testing.T) {
	const limit = 64 << 10
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) { c.MaxUploadBytes = limit }})
	s := env.Register(servicetest.Unique("declared"))
	scan, _ := env.APIKey(s, "scan")
	id := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"people.csv"}}).Data()["job_id"].(string)
	const allowance = 1 << 20
	for _, c := range []struct {
		path, token string
		length      int64
	}{
		{"/api/v1/jobs/" + id + "/files", s.Access, 5_000_000_000},
		{"/api/v1/jobs/" + id + "/files", s.Access, limit + allowance + 1},
		{"/api/v1/files/prescan", s.Access, 5_000_000_000},
		{"/api/v1/public/upload", scan, 5_000_000_000},
	} {
		resp, _ := rawUpload(t, env, c.path, c.token, c.length)
		var body struct {
			Error struct{ Code, Message string }
		}
		json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != 413 || body.Error.Code != "payload_too_large" || !strings.Contains(body.Error.Message, fmt.Sprint(limit)) {
			t.Errorf("%s declaring %d bytes = %d %+v, want 413 payload_too_large naming the limit", c.path, c.length, resp.StatusCode, body.Error)
		}
		if files := spoolFiles(t, env); len(files) != 0 {
			t.Errorf("%s declaring %d bytes: spooled %v", c.path, c.length, files)
		}
	}
	if files := env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()["files"].([]any); len(files) != 0 {
		t.Fatalf("refused uploads stored %v", files)
	}
	if n := env.Must(200, "GET", "/api/v1/jobs", s.Access, nil).Body["meta"].(map[string]any)["total"]; n != float64(1) {
		t.Fatalf("jobs = %v; the refused public upload created one", n)
	}
	// Within the allowance the declared length is no reason to refuse: the
	// body is read (here it is complete and small).
	ct, body := multipartBody(t, map[string]string{"people.csv": peopleCSV(20)})
	if r := env.DoHeaders("POST", "/api/v1/jobs/"+id+"/files", s.Access, body.Bytes(), map[string]string{"Content-Type": ct}); r.Status != 201 {
		t.Fatalf("small upload = %d %s", r.Status, r.Raw)
	}
}

// TestChunkedUploadOverTheLimitIsCutOff: a body sent without a length
// (chunked) is held to the limit while it is read: 413, nothing stored,
// nothing left in the spool.
func TestChunkedUploadOverTheLimitIsCutOff(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) { c.MaxUploadBytes = 64 << 10 }})
	s := env.Register(servicetest.Unique("chunked"))
	id := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"big.csv", "small.csv"}}).Data()["job_id"].(string)
	release := make(chan struct{})
	close(release)
	r := <-startStreamedUpload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, "big.csv", peopleCSV(3000), release).status
	if r.Status != 413 || r.ErrorCode() != "payload_too_large" {
		t.Fatalf("chunked oversize upload = %d %.300s", r.Status, r.Raw)
	}
	waitSpoolEmpty(t, env)
	if blobs := storedBlobs(t, env, s.OrgID, id); len(blobs) != 0 {
		t.Fatalf("refused upload stored %v", blobs)
	}
	r = <-startStreamedUpload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, "small.csv", peopleCSV(50), release).status
	if r.Status != 201 {
		t.Fatalf("chunked upload within the limit = %d %.300s", r.Status, r.Raw)
	}
}
