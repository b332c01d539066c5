package jobs

// The service on a real SQLite database and a real Temporal dev server; a
// start that fails is a real Temporal client whose server is gone.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/internal/temporaltest"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"github.com/dqs/dqs/retention"
	"github.com/dqs/dqs/workflows"
)

func TestMain(m *testing.M) { temporaltest.Main(m) }

type fixture struct {
	svc   *Service
	audit *audit.Writer
	org   string
}

func newFixture(t *testing.T, c client.Client) *fixture {
	t.Helper()
	stores := models.NewStores(modelstest.Open(t, models.SQLite))
	org := &models.Organization{Name: "Acme"}
	if err := stores.Orgs.Create(context.Background(), org); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := audit.NewWriter(stores.Audit, logger)
	t.Cleanup(func() { w.Close(context.Background()) })
	names := workflows.NamesFor("jobs" + models.NewShortID("t"))
	svc := &Service{Stores: stores, Workflows: Temporal{Client: c, Names: names}, Audit: w, Logger: logger}
	return &fixture{svc: svc, audit: w, org: org.ID}
}

// unreachableClient is a real Temporal client whose server has gone away.
func unreachableClient(t *testing.T) client.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	c, err := client.NewLazyClient(client.Options{HostPort: addr, Logger: nil})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// createdJob is a job with one stored file, not started.
func (f *fixture) createdJob(t *testing.T) *models.Job {
	t.Helper()
	ctx := context.Background()
	j := &models.Job{RetentionMode: retention.ShortTerm, RetentionDays: 7, Filenames: `["a.csv"]`, CreatedAt: time.Now().UTC()}
	if err := f.svc.Stores.Jobs.Create(ctx, f.org, j); err != nil {
		t.Fatal(err)
	}
	file := &models.File{JobID: j.ID, FileName: "a.csv", StorageKey: "orgs/" + f.org + "/uploads/" + j.ID + "/a", SizeBytes: 10, CreatedAt: time.Now().UTC()}
	if err := f.svc.Stores.Files.Create(ctx, f.org, file); err != nil {
		t.Fatal(err)
	}
	return j
}

func (f *fixture) events(t *testing.T) map[string]int {
	t.Helper()
	if err := f.audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	entries, _, err := f.svc.Stores.Audit.List(context.Background(), f.org, "", models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		out[e.Event]++
	}
	return out
}

func TestStartQueuesTheJobAndStartsItsWorkflowOnce(t *testing.T) {
	srv := temporaltest.Shared(t)
	f := newFixture(t, srv.Client)
	j := f.createdJob(t)
	ctx := context.Background()
	t.Cleanup(func() { _ = srv.Client.TerminateWorkflow(context.Background(), j.ID, "", "test over") })

	got, err := f.svc.Start(ctx, audit.Actor{OrgID: f.org, UserID: "u1", IP: "203.0.113.9"}, j.ID, 1, retention.ShortTerm, 7)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != models.JobQueued {
		t.Fatalf("job status %q, want queued", got.Status)
	}
	desc, err := srv.Client.DescribeWorkflowExecution(ctx, j.ID, "")
	if err != nil {
		t.Fatalf("the job's workflow was not started: %v", err)
	}
	info := desc.GetWorkflowExecutionInfo()
	if info.GetType().GetName() != "AnalyzeJob" || info.GetTaskQueue() != f.svc.Workflows.(Temporal).Names.Default ||
		info.GetStatus() != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
		t.Fatalf("workflow %s on %s, %s; want a running AnalyzeJob on the default queue", info.GetType().GetName(), info.GetTaskQueue(), info.GetStatus())
	}

	// A second start is the row's conflict; no second workflow, no second entry.
	_, err = f.svc.Start(ctx, audit.Actor{OrgID: f.org}, j.ID, 1, retention.ShortTerm, 7)
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != "conflict" {
		t.Fatalf("second start = %v, want a conflict", err)
	}
	if ev := f.events(t); ev[audit.JobStarted] != 1 {
		t.Fatalf("audit = %v, want one job_started", ev)
	}
}

func TestStartPutsTheJobBackWhenTheWorkflowCannotStart(t *testing.T) {
	f := newFixture(t, unreachableClient(t))
	j := f.createdJob(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()

	_, err := f.svc.Start(ctx, audit.Actor{OrgID: f.org}, j.ID, 1, retention.AnalysisOnly, 0)
	if !errors.Is(err, errs.ErrInternal) {
		t.Fatalf("Start = %v, want an internal error", err)
	}
	back, err := f.svc.Stores.Jobs.Get(context.Background(), f.org, j.ID)
	if err != nil {
		t.Fatal(err)
	}
	if back.Status != models.JobCreated {
		t.Fatalf("job left %q, want created so it can be started again", back.Status)
	}
	if ev := f.events(t); ev[audit.JobStarted] != 0 {
		t.Fatalf("audit = %v, want no job_started for a job that did not start", ev)
	}
}

func TestStartOfAnotherOrganisationsJobIsNotFound(t *testing.T) {
	f := newFixture(t, unreachableClient(t))
	j := f.createdJob(t)
	other := &models.Organization{Name: "Other"}
	if err := f.svc.Stores.Orgs.Create(context.Background(), other); err != nil {
		t.Fatal(err)
	}
	_, err := f.svc.Start(context.Background(), audit.Actor{OrgID: other.ID}, j.ID, 1, retention.AnalysisOnly, 0)
	var e *errs.Error
	if !errors.As(err, &e) || e.Status != 404 {
		t.Fatalf("Start from another organisation = %v, want 404", err)
	}
	if back, _ := f.svc.Stores.Jobs.Get(context.Background(), f.org, j.ID); back.Status != models.JobCreated {
		t.Fatalf("the owner's job moved to %q", back.Status)
	}
}

func TestReanalyzeRestoresTheFileWhenTheWorkflowCannotStart(t *testing.T) {
	f := newFixture(t, unreachableClient(t))
	j := f.createdJob(t)
	ctx := context.Background()
	files, err := f.svc.Stores.Files.ListByJob(ctx, f.org, j.ID)
	if err != nil || len(files) != 1 {
		t.Fatalf("files = %v, %v", files, err)
	}
	if err := f.svc.Stores.Files.SetStatus(ctx, f.org, files[0].ID, models.FileFailed, 100, "row 2: bad quote"); err != nil {
		t.Fatal(err)
	}
	before, _ := f.svc.Stores.Files.Get(ctx, f.org, files[0].ID)

	tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := f.svc.Reanalyze(tctx, f.org, before); !errors.Is(err, errs.ErrInternal) {
		t.Fatalf("Reanalyze = %v, want an internal error", err)
	}
	after, _ := f.svc.Stores.Files.Get(ctx, f.org, files[0].ID)
	if after.Status != before.Status || after.Progress != before.Progress || after.Error != before.Error {
		t.Fatalf("file after a failed start = %s %d %q, want it as before (%s %d %q)",
			after.Status, after.Progress, after.Error, before.Status, before.Progress, before.Error)
	}
}

func TestReanalyzeStartsTheFilesWorkflow(t *testing.T) {
	srv := temporaltest.Shared(t)
	f := newFixture(t, srv.Client)
	j := f.createdJob(t)
	ctx := context.Background()
	files, _ := f.svc.Stores.Files.ListByJob(ctx, f.org, j.ID)
	if err := f.svc.Stores.Files.SetStatus(ctx, f.org, files[0].ID, models.FileCompleted, 100, ""); err != nil {
		t.Fatal(err)
	}
	before, _ := f.svc.Stores.Files.Get(ctx, f.org, files[0].ID)
	id := f.svc.Workflows.(Temporal).Names.ReanalyzeFileID(before.ID)
	t.Cleanup(func() { _ = srv.Client.TerminateWorkflow(context.Background(), id, "", "test over") })

	got, err := f.svc.Reanalyze(ctx, f.org, before)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != models.FileProcessing {
		t.Fatalf("file status %q, want processing", got.Status)
	}
	if _, err := srv.Client.DescribeWorkflowExecution(ctx, id, ""); err != nil {
		t.Fatalf("re-analysis workflow not started: %v", err)
	}
}
