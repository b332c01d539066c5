package main

import (
	"bufio"
	"bytes"
	"io"
	"mime/multipart"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/internal/temporaltest"
)

// processEnv is the environment of a dqs process joining env's service:
// the same database, blob directory, Temporal server and queue prefix.
func processEnv(cfg *config.Config, extra ...string) []string {
	return append(append(os.Environ(),
		"DQS_DATA_DIR="+cfg.DataDir,
		"DQS_DATABASE_URL="+cfg.DatabaseURL,
		"DQS_TEMPORAL_ADDRESS="+cfg.TemporalAddress,
		"DQS_TEMPORAL_PREFIX="+cfg.TemporalPrefix,
		"DQS_ENCRYPTION_KEY="+cfg.EncryptionKey,
		"DQS_BLOB_DIR="+cfg.Blob.Dir,
		"DQS_OUTBOX_DIR="+cfg.OutboxDir,
		"DQS_LOG_LEVEL=warn",
	), extra...)
}

// startProcess runs bin with args until the test ends and waits for the
// first line it prints, which a serving command prints once it is ready;
// the line must contain ready. It returns the command and that line.
func startProcess(t *testing.T, bin string, env []string, ready string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = env
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
	if err != nil || !strings.Contains(line, ready) {
		t.Fatalf("dqs %s did not start: %q %v", strings.Join(args, " "), line, err)
	}
	go io.Copy(io.Discard, out)
	return cmd, line
}

// uploadJob creates a job with one file, whose content write writes, through
// the API and returns its id; the job is not started. The content is
// written straight into the request body, so a large file is held once.
func uploadJob(t *testing.T, env *servicetest.Env, access, name string, write func(io.Writer)) string {
	t.Helper()
	id := env.Must(201, "POST", "/api/v1/jobs", access, map[string]any{"filenames": []string{name}}).Data()["job_id"].(string)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, _ := mw.CreateFormFile("file", name)
	bw := bufio.NewWriter(part)
	write(bw)
	bw.Flush()
	mw.Close()
	if r := env.DoHeaders("POST", "/api/v1/jobs/"+id+"/files", access, body.Bytes(), map[string]string{"Content-Type": mw.FormDataContentType()}); r.Status != 201 {
		t.Fatalf("upload = %d %.300s", r.Status, r.Raw)
	}
	return id
}

// waitJobCompleted polls the job until it completes, failing on a failed
// job or after timeout.
func waitJobCompleted(t *testing.T, env *servicetest.Env, access, id string, timeout time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		j := env.Must(200, "GET", "/api/v1/jobs/"+id, access, nil).Data()
		if j["status"] == "completed" {
			return j
		}
		if j["status"] == "failed" || time.Now().After(deadline) {
			t.Fatalf("job = %v, want completed", j)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func peopleCSV(w io.Writer) {
	io.WriteString(w, "name,email\nAda,ada@example.com\nAlan,alan@example.org\n")
}

// TestWorkersSplitByQueue runs `dqs worker` processes as a cluster would:
// one for the default queue (chosen by flag, over an environment saying
// analysis), which runs the job's workflow but leaves its file waiting,
// then one for the analysis queue (chosen by the environment), which
// analyses the file so the job completes.
func TestWorkersSplitByQueue(t *testing.T) {
	tsrv := temporaltest.Start(t)
	env := servicetest.Start(t, servicetest.Options{NoWorker: true, Temporal: tsrv})
	bin := buildDQS(t)
	workerEnv := processEnv(env.Config, "DQS_WORKER_QUEUES=analysis")
	s := env.Register(servicetest.Unique("queues"))
	id := uploadJob(t, env, s.Access, "people.csv", peopleCSV)

	_, banner := startProcess(t, bin, workerEnv, "worker polling", "worker", "--queues", "default")
	if !strings.Contains(banner, "queues: default") {
		t.Errorf("banner = %q, want it to name the queues polled", banner)
	}
	env.Must(202, "POST", "/api/v1/jobs/"+id+"/start", s.Access, nil)
	// The workflow runs on the default worker (BeginJob moves the job to
	// processing); the file's analysis has no worker and never starts.
	deadline := time.Now().Add(30 * time.Second)
	for env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()["status"] != "processing" {
		if time.Now().After(deadline) {
			t.Fatal("the default-queue worker never began the job")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(3 * time.Second)
	j := env.Must(200, "GET", "/api/v1/jobs/"+id, s.Access, nil).Data()
	if f := j["files"].([]any)[0].(map[string]any); j["status"] != "processing" || f["status"] != "uploaded" {
		t.Fatalf("job without an analysis worker = %v, want processing with its file still uploaded", j)
	}

	_, banner = startProcess(t, bin, workerEnv, "worker polling", "worker")
	if !strings.Contains(banner, "queues: analysis") {
		t.Errorf("banner = %q, want it to name the queues polled", banner)
	}
	j = waitJobCompleted(t, env, s.Access, id, time.Minute)
	if f := j["files"].([]any)[0].(map[string]any); f["status"] != "completed" || f["row_count"] != float64(2) {
		t.Fatalf("file = %v, want completed with 2 rows", f)
	}
}

// TestDevPollsBothQueues: `dqs dev` is the whole service in one process,
// so it analyses files even when DQS_WORKER_QUEUES names one queue.
func TestDevPollsBothQueues(t *testing.T) {
	tsrv := temporaltest.Start(t)
	env := servicetest.Start(t, servicetest.Options{NoWorker: true, Temporal: tsrv})
	bin := buildDQS(t)
	startProcess(t, bin, processEnv(env.Config, "DQS_WORKER_QUEUES=default", "DQS_HTTP_ADDR="+freeAddr(t)), "DQS", "dev")
	s := env.Register(servicetest.Unique("devqueues"))
	id := uploadJob(t, env, s.Access, "people.csv", peopleCSV)
	env.Must(202, "POST", "/api/v1/jobs/"+id+"/start", s.Access, nil)
	waitJobCompleted(t, env, s.Access, id, time.Minute)
}

func TestWorkerFlags(t *testing.T) {
	cases := []struct {
		env  config.WorkerQueues
		args []string
		want config.WorkerQueues
	}{
		{config.AllQueues, nil, config.AllQueues},
		{config.AnalysisQueue, nil, config.AnalysisQueue},
		{config.AllQueues, []string{"--queues", "analysis"}, config.AnalysisQueue},
		{config.AnalysisQueue, []string{"--queues=default"}, config.DefaultQueue},
		{config.DefaultQueue, []string{"-queues", "all"}, config.AllQueues},
	}
	for _, tc := range cases {
		cfg := &config.Config{WorkerQueues: tc.env}
		if err := workerFlags(cfg, tc.args, io.Discard); err != nil {
			t.Fatalf("env %s, args %v: %v", tc.env, tc.args, err)
		}
		if cfg.WorkerQueues != tc.want {
			t.Errorf("env %s, args %v: queues = %s, want %s", tc.env, tc.args, cfg.WorkerQueues, tc.want)
		}
	}
}

// TestWorkerQueuesInvalid: an unknown queue selection, by flag or by
// environment, stops the worker at start with exit 2 and names the
// setting and the accepted values.
func TestWorkerQueuesInvalid(t *testing.T) {
	cases := []struct {
		env  string
		args []string
		want string
	}{
		{"", []string{"worker", "--queues", "both"}, `--queues="both"`},
		{"", []string{"worker", "--queues=Analysis"}, `--queues="Analysis"`},
		{"", []string{"worker", "--queue", "default"}, "-queue"},
		{"", []string{"worker", "default"}, `unexpected argument "default"`},
		{"short", []string{"worker"}, "DQS_WORKER_QUEUES"},
		{"short", []string{"dev"}, "DQS_WORKER_QUEUES"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args, " ")+" "+tc.env, func(t *testing.T) {
			cleanEnv(t)
			t.Setenv("DQS_WORKER_QUEUES", tc.env)
			code, out, errOut := runCmd(t, tc.args...)
			if code != 2 {
				t.Fatalf("exit = %d (stdout %q, stderr %q), want 2", code, out, errOut)
			}
			if !strings.Contains(errOut, tc.want) {
				t.Fatalf("stderr = %q, want it to contain %q", errOut, tc.want)
			}
			if strings.HasPrefix(tc.want, "--queues") && !strings.Contains(errOut, "all, default or analysis") {
				t.Errorf("stderr = %q, want the accepted values", errOut)
			}
		})
	}
}
