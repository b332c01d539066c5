package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/internal/temporaltest"
)

// buildDQS builds the dqs binary for tests that run it as a process.
func buildDQS(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dqs")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// freeAddr returns a loopback address with a port free right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startAPI runs `dqs api` on addr and waits for its banner, which it
// prints once the service is built (and the spool swept).
func startAPI(t *testing.T, bin string, env []string, addr string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "api")
	cmd.Env = append(env, "DQS_HTTP_ADDR="+addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := bufio.NewReader(out)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			cmd.Wait()
			t.Fatalf("dqs api did not start: %v\n%s", err, stderr.String())
		}
		if strings.Contains(line, "API ") {
			if want := "http://" + addr + "/api/v1 "; !strings.Contains(line, want) {
				t.Errorf("banner %q does not show %s", line, want)
			}
			break
		}
	}
	go io.Copy(io.Discard, r)
	return cmd
}

func postJSON(t *testing.T, url, token string, body any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct{ Data map[string]any }
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil || resp.StatusCode != 201 {
		t.Fatalf("POST %s = %d %v", url, resp.StatusCode, err)
	}
	return env.Data
}

// TestAPIStartRemovesSpoolLeftByCrash kills a real `dqs api` process in
// the middle of receiving an upload, which leaves its spool file behind,
// and starts another: it removes the leftover at start and nothing else,
// and removes its own spool when it stops.
func TestAPIStartRemovesSpoolLeftByCrash(t *testing.T) {
	tsrv := temporaltest.Start(t)
	bin := buildDQS(t)
	data := t.TempDir()
	env := append(os.Environ(),
		"DQS_DATA_DIR="+data,
		"DQS_DATABASE_URL=",
		"DQS_TEMPORAL_ADDRESS="+tsrv.HostPort,
		"DQS_TEMPORAL_PREFIX=t"+strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(auth.RandomToken(8))),
		"DQS_BLOB_DIR=",
		"DQS_OUTBOX_DIR=",
		"DQS_LOG_LEVEL=warn",
	)
	spoolRoot := filepath.Join(data, "spool")
	leftovers := func() []string {
		files, _ := filepath.Glob(filepath.Join(spoolRoot, "proc-*", "*"))
		return files
	}

	addr := freeAddr(t)
	first := startAPI(t, bin, env, addr)
	base := "http://" + addr
	session := postJSON(t, base+"/api/v1/auth/register", "", map[string]any{
		"email": servicetest.Unique("crash"), "password": auth.RandomToken(20), "organization_name": "Crash Test"})
	token := session["access_token"].(string)
	job := postJSON(t, base+"/api/v1/jobs", token, map[string]any{"filenames": []string{"people.csv"}})

	// An upload whose body stops half-way: the API spools what came.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		part, _ := mw.CreateFormFile("file", "people.csv")
		io.WriteString(part, "id,email\n")
		for i := range 1000 {
			fmt.Fprintf(part, "%d,user%d@example.com\n", i, i)
		}
		// The rest never comes.
	}()
	req, _ := http.NewRequest("POST", base+"/api/v1/jobs/"+job["job_id"].(string)+"/files", pr)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for len(leftovers()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the upload was never spooled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	pw.Close()
	left := leftovers()
	if len(left) != 1 {
		t.Fatalf("after the crash the spool holds %v, want the one upload", left)
	}
	keep := filepath.Join(spoolRoot, "keep.txt")
	if err := os.WriteFile(keep, []byte("not the service's"), 0o600); err != nil {
		t.Fatal(err)
	}

	second := startAPI(t, bin, env, freeAddr(t))
	if _, err := os.Stat(filepath.Dir(left[0])); !os.IsNotExist(err) {
		t.Fatalf("the crashed process's spool %s is still there after a start (%v)", filepath.Dir(left[0]), err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Fatalf("a file the spool did not make was removed: %v", err)
	}
	if dirs, _ := filepath.Glob(filepath.Join(spoolRoot, "proc-*")); len(dirs) != 1 {
		t.Fatalf("spool directories while one process runs: %v", dirs)
	}
	if err := second.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("dqs api after SIGTERM: %v", err)
	}
	if dirs, _ := filepath.Glob(filepath.Join(spoolRoot, "proc-*")); len(dirs) != 0 {
		t.Fatalf("spool directories after a clean stop: %v", dirs)
	}
}
