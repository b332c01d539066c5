package main

import (
	"fmt"
	"io"
	"os/exec"
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
	workerEnv := processEnv(env.Config)
	startWorker := func() *exec.Cmd {
		cmd, _ := startProcess(t, bin, workerEnv, "worker polling", "worker")
		return cmd
	}

	s := env.Register(servicetest.Unique("restart"))
	// Large enough that analysing it takes a second or more: the engine
	// profiles a 1.5M-row file of this shape in well under the one-second
	// interval at which progress is written.
	const rows = 4_000_000
	id := uploadJob(t, env, s.Access, "big.csv", func(w io.Writer) {
		io.WriteString(w, "id,email,city,amount,created\n")
		for i := 0; i < rows; i++ {
			fmt.Fprintf(w, "%d,user%d@example.com,City %d,%d.%02d,2024-%02d-%02d\n", i, i, i%500, i%10000, i%100, i%12+1, i%28+1)
		}
	})

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
	j := waitJobCompleted(t, env, s.Access, id, 4*time.Minute)
	if f := j["files"].([]any)[0].(map[string]any); f["status"] != "completed" || f["row_count"] != float64(rows) {
		t.Fatalf("file after restart = %v", f)
	}
}
