package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/internal/temporaltest"
)

// TestWorkerKilledMidJobFinishesAfterRestart runs the worker as a real
// `dqs worker` process, kills it with SIGKILL while a file is being
// analysed, starts another, and expects the job to finish: the durability
// the AnalyzeJob workflow exists for.
func TestWorkerKilledMidJobFinishesAfterRestart(t *testing.T) {
	tsrv := temporaltest.Start(t)
	env := servicetest.Start(t, servicetest.Options{NoWorker: true, Temporal: tsrv})
	bin := buildDQS(t)
	cfg := env.Config
	workerEnv := append(os.Environ(),
		"DQS_DATA_DIR="+cfg.DataDir,
		"DQS_DATABASE_URL="+cfg.DatabaseURL,
		"DQS_TEMPORAL_ADDRESS="+cfg.TemporalAddress,
		"DQS_TEMPORAL_PREFIX="+cfg.TemporalPrefix,
		"DQS_ENCRYPTION_KEY="+cfg.EncryptionKey,
		"DQS_BLOB_DIR="+cfg.Blob.Dir,
		"DQS_OUTBOX_DIR="+cfg.OutboxDir,
		"DQS_LOG_LEVEL=warn",
	)
	startWorker := func() *exec.Cmd {
		cmd := exec.Command(bin, "worker")
		cmd.Env = workerEnv
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || !strings.Contains(line, "worker polling") {
			t.Fatalf("worker did not start: %q %v", line, err)
		}
		go io.Copy(io.Discard, out)
		return cmd
	}

	s := env.Register(servicetest.Unique("restart"))
	id := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"big.csv"}}).Data()["job_id"].(string)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", "big.csv")
	// Large enough that analysing it takes a second or more: the engine
	// profiles a 1.5M-row file of this shape in well under the one-second
	// interval at which progress is written.
	const rows = 4_000_000
	bw := bufio.NewWriter(part)
	bw.WriteString("id,email,city,amount,created\n")
	for i := 0; i < rows; i++ {
		fmt.Fprintf(bw, "%d,user%d@example.com,City %d,%d.%02d,2024-%02d-%02d\n", i, i, i%500, i%10000, i%100, i%12+1, i%28+1)
	}
	bw.Flush()
	mw.Close()
	if r := env.DoHeaders("POST", "/api/v1/jobs/"+id+"/files", s.Access, body.Bytes(), map[string]string{"Content-Type": mw.FormDataContentType()}); r.Status != 201 {
		t.Fatalf("upload = %d %.300s", r.Status, r.Raw)
	}

	first := startWorker()
	env.Must(202, "POST", "/api/v1/jobs/"+id+"/start", s.Access, nil)
	// Kill the worker once the file is being analysed.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		j := env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()
		f := j["files"].([]any)[0].(map[string]any)
		if f["status"] == "processing" {
			break
		}
		if j["status"] == "completed" {
			t.Fatal("the job finished before the worker could be killed; make the file larger")
		}
		if time.Now().After(deadline) {
			t.Fatalf("file never started processing: %v", j)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := first.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	killedAt := env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()
	if killedAt["status"] == "completed" {
		t.Fatal("job completed although its worker was killed mid-file")
	}

	startWorker()
	deadline = time.Now().Add(4 * time.Minute)
	for {
		j := env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()
		if j["status"] == "completed" {
			f := j["files"].([]any)[0].(map[string]any)
			if f["status"] != "completed" || f["row_count"] != float64(rows) {
				t.Fatalf("file after restart = %v", f)
			}
			return
		}
		if j["status"] == "failed" || time.Now().After(deadline) {
			t.Fatalf("job after restart = %v", j)
		}
		time.Sleep(250 * time.Millisecond)
	}
}
