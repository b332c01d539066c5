package worker

// Task queues against the real Temporal dev server: file analysis runs on
// <prefix>-analysis, everything else on <prefix>-default, and a worker
// polls only the queues it is started for.

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"reflect"
	"sort"
	"testing"
	"time"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	sdkworker "go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/local"
	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/temporaltest"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"github.com/dqs/dqs/workflows"
)

// queueFixture is a dev server, a SQLite database with one organisation,
// a local blob store and the real activities over them.
type queueFixture struct {
	srv    *temporaltest.Server
	names  workflows.Names
	stores *models.Stores
	blobs  blob.Store
	acts   *activities.Activities
	orgID  string
}

func newQueueFixture(t *testing.T) *queueFixture {
	t.Helper()
	stores := models.NewStores(modelstest.Open(t, models.SQLite))
	org := &models.Organization{Name: "Acme"}
	if err := stores.Orgs.Create(context.Background(), org); err != nil {
		t.Fatal(err)
	}
	blobs, err := local.New(t.TempDir(), bytes.Repeat([]byte("k"), 32), "http://localhost:8080")
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := audit.NewWriter(stores.Audit, logger)
	t.Cleanup(func() { w.Close(context.Background()) })
	return &queueFixture{
		srv:    temporaltest.Start(t),
		names:  workflows.NamesFor("queues-test"),
		stores: stores,
		blobs:  blobs,
		acts:   &activities.Activities{Stores: stores, Blobs: blobs, Audit: w, Logger: logger},
		orgID:  org.ID,
	}
}

// startedJob records a started job with one stored CSV file.
func (f *queueFixture) startedJob(t *testing.T) (jobID string, fileID int64) {
	t.Helper()
	ctx := context.Background()
	j := &models.Job{RetentionMode: "full_retention", Filenames: "[]", CreatedAt: time.Now().UTC()}
	if err := f.stores.Jobs.Create(ctx, f.orgID, j); err != nil {
		t.Fatal(err)
	}
	key, err := blob.OrgKey(f.orgID, "uploads", j.ID, "f0")
	if err != nil {
		t.Fatal(err)
	}
	csv := "name,email\nAda,ada@example.com\nAlan,alan@example.org\n"
	if _, err := f.blobs.Put(ctx, key, bytes.NewBufferString(csv), "text/csv"); err != nil {
		t.Fatal(err)
	}
	file := &models.File{JobID: j.ID, FileName: "people.csv", StorageKey: key, SizeBytes: int64(len(csv)), CreatedAt: time.Now().UTC()}
	if err := f.stores.Files.Create(ctx, f.orgID, file); err != nil {
		t.Fatal(err)
	}
	if _, err := f.stores.Jobs.Start(ctx, f.orgID, j.ID, j.RetentionMode, 0, time.Now()); err != nil {
		t.Fatal(err)
	}
	return j.ID, file.ID
}

// startWorkers starts this process's workers for queues until the test ends.
func (f *queueFixture) startWorkers(t *testing.T, queues config.WorkerQueues) {
	t.Helper()
	ws, err := Start(f.srv.Client, f.names, f.acts, queues)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ws.Stop)
}

// analyze starts the job's AnalyzeJob workflow as the API does: on the
// default queue.
func (f *queueFixture) analyze(ctx context.Context, t *testing.T, jobID string) client.WorkflowRun {
	t.Helper()
	run, err := f.srv.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: jobID, TaskQueue: f.names.Default},
		workflows.AnalyzeJob, workflows.AnalyzeJobInput{OrgID: f.orgID, JobID: jobID})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func (f *queueFixture) fileStatus(t *testing.T, fileID int64) string {
	t.Helper()
	file, err := f.stores.Files.Get(context.Background(), f.orgID, fileID)
	if err != nil {
		t.Fatal(err)
	}
	return file.Status
}

// scheduledQueues maps each activity type the workflow scheduled to the
// task queues it was scheduled on, from the workflow's history.
func scheduledQueues(ctx context.Context, t *testing.T, c client.Client, workflowID string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	it := c.GetWorkflowHistory(ctx, workflowID, "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil {
			out[a.GetActivityType().GetName()] = append(out[a.GetActivityType().GetName()], a.GetTaskQueue().GetName())
		}
	}
	return out
}

func TestAnalysisRunsOnTheAnalysisQueue(t *testing.T) {
	f := newQueueFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f.startWorkers(t, config.AllQueues)
	jobID, fileID := f.startedJob(t)

	if err := f.analyze(ctx, t, jobID).Get(ctx, nil); err != nil {
		t.Fatalf("AnalyzeJob: %v", err)
	}

	if got := f.fileStatus(t, fileID); got != models.FileCompleted {
		t.Fatalf("file status = %s, want completed", got)
	}
	queues := scheduledQueues(ctx, t, f.srv.Client, jobID)
	if got := queues["AnalyzeFile"]; !reflect.DeepEqual(got, []string{f.names.Analysis}) {
		t.Errorf("AnalyzeFile scheduled on %v, want [%s]", got, f.names.Analysis)
	}
	for _, short := range []string{"BeginJob", "CompleteJob", "PublishJobEvents"} {
		if got := queues[short]; !reflect.DeepEqual(got, []string{f.names.Default}) {
			t.Errorf("%s scheduled on %v, want [%s]", short, got, f.names.Default)
		}
	}
}

// TestDefaultOnlyWorkerLeavesAnalysisWaiting: a worker started for the
// default queue runs the workflow and its short activities but never picks
// up (nor fails) a file analysis; the analysis waits on its queue until an
// analysis worker starts, then the job finishes.
func TestDefaultOnlyWorkerLeavesAnalysisWaiting(t *testing.T) {
	f := newQueueFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	f.startWorkers(t, config.DefaultQueue)
	jobID, fileID := f.startedJob(t)
	run := f.analyze(ctx, t, jobID)

	pending := func() []string {
		desc, err := f.srv.Client.DescribeWorkflowExecution(ctx, jobID, "")
		if err != nil {
			t.Fatal(err)
		}
		if s := desc.GetWorkflowExecutionInfo().GetStatus(); s != enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
			t.Fatalf("workflow status = %v while its analysis had no worker", s)
		}
		var out []string
		for _, a := range desc.GetPendingActivities() {
			name := a.GetActivityType().GetName()
			// Attempt 1 and still scheduled: no worker took it, and none
			// failed it for lack of a registered AnalyzeFile. A short
			// activity (BeginJob) may be pending too, started by the default
			// worker on a slow machine: the loop below waits for it to end.
			if name == "AnalyzeFile" && (a.GetState() != enums.PENDING_ACTIVITY_STATE_SCHEDULED || a.GetAttempt() != 1) {
				t.Fatalf("pending %s is %v at attempt %d, want scheduled at attempt 1", name, a.GetState(), a.GetAttempt())
			}
			out = append(out, name)
		}
		sort.Strings(out)
		return out
	}
	deadline := time.Now().Add(30 * time.Second)
	for !reflect.DeepEqual(pending(), []string{"AnalyzeFile"}) {
		if time.Now().After(deadline) {
			t.Fatalf("AnalyzeFile never scheduled; pending = %v", pending())
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Give a default-queue worker that wrongly took analysis time to do so.
	time.Sleep(3 * time.Second)
	if got := pending(); !reflect.DeepEqual(got, []string{"AnalyzeFile"}) {
		t.Fatalf("pending = %v, want AnalyzeFile still waiting", got)
	}
	if got := f.fileStatus(t, fileID); got != models.FileUploaded {
		t.Fatalf("file status = %s before an analysis worker started, want %s", got, models.FileUploaded)
	}

	f.startWorkers(t, config.AnalysisQueue)
	if err := run.Get(ctx, nil); err != nil {
		t.Fatalf("AnalyzeJob: %v", err)
	}
	if got := f.fileStatus(t, fileID); got != models.FileCompleted {
		t.Fatalf("file status = %s, want completed", got)
	}
}

// legacyAnalysis stands for a workflow of a release before the analysis
// queue: it schedules AnalyzeFile on the queue it is given, once.
func legacyAnalysis(ctx workflow.Context, queue string, file activities.FileRef) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		TaskQueue:           queue,
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 1},
	})
	return workflow.ExecuteActivity(ctx, "AnalyzeFile", file).Get(ctx, nil)
}

// TestAnalysisLeftOnTheDefaultQueue: an analysis scheduled on the default
// queue (before the upgrade that brought the analysis queue) runs on a
// worker polling all queues, and only there: a default-only worker does
// not take on long work.
func TestAnalysisLeftOnTheDefaultQueue(t *testing.T) {
	f := newQueueFixture(t)
	legacyQueue := "queues-test-legacy"
	lw := sdkworker.New(f.srv.Client, legacyQueue, sdkworker.Options{})
	lw.RegisterWorkflow(legacyAnalysis)
	if err := lw.Start(); err != nil {
		t.Fatal(err)
	}
	defer lw.Stop()
	for _, tc := range []struct {
		queues config.WorkerQueues
		runs   bool
	}{{config.DefaultQueue, false}, {config.AllQueues, true}} {
		t.Run(string(tc.queues), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			f.startWorkers(t, tc.queues)
			jobID, fileID := f.startedJob(t)
			run, err := f.srv.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: legacyQueue}, legacyAnalysis,
				f.names.Default, activities.FileRef{OrgID: f.orgID, JobID: jobID, FileID: fileID, Total: 1})
			if err != nil {
				t.Fatal(err)
			}
			err = run.Get(ctx, nil)
			if ran := f.fileStatus(t, fileID) == models.FileCompleted; err == nil != tc.runs || ran != tc.runs {
				t.Fatalf("worker for %s: analysis error %v, file analysed %v; want it run: %v", tc.queues, err, ran, tc.runs)
			}
		})
	}
}

// TestQueueActivitiesSplit: the analysis queue takes exactly the
// activities that read a whole file or a source's tables, the default
// queue every other one, so
// no activity is left unregistered and none runs on both.
func TestQueueActivitiesSplit(t *testing.T) {
	acts := &activities.Activities{}
	long, short := queueActivities(acts, true), queueActivities(acts, false)
	want := []string{"AnalyzeFile", "BeginScan", "BuildReport", "CreateScheduledScan", "DetectAnomalies", "ScanItem", "SuggestCorrections", "WriteCorrectedCopy"}
	if got := keys(long); !reflect.DeepEqual(got, want) {
		t.Fatalf("analysis queue activities = %v, want %v", got, want)
	}
	for name := range long {
		if _, ok := short[name]; ok {
			t.Errorf("%s registered on both queues", name)
		}
	}
	if n := reflect.TypeOf(acts).NumMethod(); len(long)+len(short) != n {
		t.Errorf("%d + %d activities registered, Activities has %d exported methods", len(long), len(short), n)
	}
	for _, name := range []string{"BeginJob", "CompleteJob", "MarkFileFailed", "SendVerificationEmail", "SendWebhook", "SweepExpiredFiles"} {
		if _, ok := short[name]; !ok {
			t.Errorf("default queue lacks %s", name)
		}
	}
}

func TestStartRefusesNoQueue(t *testing.T) {
	if _, err := Start(nil, workflows.NamesFor("x"), &activities.Activities{}, ""); err == nil {
		t.Fatal("Start polled no queue without an error")
	}
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
