package workflows

// Retention on the SDK's test environment with time skipping: a year-long
// timer passes in milliseconds. The activities are the real ones, on a
// real SQLite database and a real local blob store.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/local"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"github.com/dqs/dqs/retention"
)

type retentionFixture struct {
	env    *testsuite.TestWorkflowEnvironment
	stores *models.Stores
	blobs  *faultyBlobs
	audit  *audit.Writer
	acts   *activities.Activities
	orgID  string
}

// faultyBlobs is the real local store with one injected fault: Delete of
// the keys in failDelete fails, as a storage outage would.
type faultyBlobs struct {
	blob.Store
	mu         sync.Mutex
	failDelete map[string]bool
}

func (f *faultyBlobs) Delete(ctx context.Context, key string) error {
	f.mu.Lock()
	fail := f.failDelete[key]
	f.mu.Unlock()
	if fail {
		return fmt.Errorf("storage unavailable deleting %s", key)
	}
	return f.Store.Delete(ctx, key)
}

func (f *faultyBlobs) setFailing(keys ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failDelete = map[string]bool{}
	for _, k := range keys {
		f.failDelete[k] = true
	}
}

// storesWithOrg is a fresh SQLite database with one organisation.
func storesWithOrg(t *testing.T) (*models.Stores, *models.Organization) {
	t.Helper()
	stores := models.NewStores(modelstest.Open(t, models.SQLite))
	org := &models.Organization{Name: "Acme"}
	if err := stores.Orgs.Create(context.Background(), org); err != nil {
		t.Fatal(err)
	}
	return stores, org
}

func newRetentionFixture(t *testing.T, start time.Time) *retentionFixture {
	t.Helper()
	stores, org := storesWithOrg(t)
	store, err := local.New(t.TempDir(), bytes.Repeat([]byte("k"), 32), "http://localhost:8080")
	if err != nil {
		t.Fatal(err)
	}
	blobs := &faultyBlobs{Store: store}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := audit.NewWriter(stores.Audit, logger)
	t.Cleanup(func() { w.Close(context.Background()) })
	acts := &activities.Activities{Stores: stores, Blobs: blobs, Audit: w, Logger: logger}

	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(start)
	env.RegisterActivity(acts)
	env.RegisterWorkflow(KeepJobFiles)
	return &retentionFixture{env: env, stores: stores, blobs: blobs, audit: w, acts: acts, orgID: org.ID}
}

// queuedJob records a started job with n stored CSV files.
func (f *retentionFixture) queuedJob(t *testing.T, mode string, days, n int) (*models.Job, []string) {
	t.Helper()
	ctx := context.Background()
	j := &models.Job{RetentionMode: mode, RetentionDays: days, Filenames: "[]", CreatedAt: time.Now().UTC()}
	if err := f.stores.Jobs.Create(ctx, f.orgID, j); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range n {
		key, err := blob.OrgKey(f.orgID, "uploads", j.ID, fmt.Sprintf("f%d", i))
		if err != nil {
			t.Fatal(err)
		}
		csv := "name,email\nAda,ada@example.com\nAlan,alan@example.org\n"
		if _, err := f.blobs.Put(ctx, key, bytes.NewBufferString(csv), "text/csv"); err != nil {
			t.Fatal(err)
		}
		file := &models.File{JobID: j.ID, FileName: fmt.Sprintf("people-%d.csv", i), StorageKey: key, SizeBytes: int64(len(csv)), CreatedAt: time.Now().UTC()}
		if err := f.stores.Files.Create(ctx, f.orgID, file); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	if _, err := f.stores.Jobs.Start(ctx, f.orgID, j.ID, mode, days, time.Now()); err != nil {
		t.Fatal(err)
	}
	return j, keys
}

func (f *retentionFixture) job(t *testing.T, id string) *models.Job {
	t.Helper()
	j, err := f.stores.Jobs.Get(context.Background(), f.orgID, id)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// auditEvents counts the organisation's audit entries by event.
func (f *retentionFixture) auditEvents(t *testing.T) map[string]int {
	t.Helper()
	if err := f.audit.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	entries, _, err := f.stores.Audit.List(context.Background(), f.orgID, "", models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, e := range entries {
		out[e.Event]++
	}
	return out
}

func (f *retentionFixture) objectsLeft(t *testing.T, keys []string) int {
	t.Helper()
	n := 0
	for _, k := range keys {
		_, err := f.blobs.Stat(context.Background(), k)
		switch {
		case err == nil:
			n++
		case !errors.Is(err, blob.ErrNotFound):
			t.Fatal(err)
		}
	}
	return n
}

func (f *retentionFixture) runAnalyzeJob(t *testing.T, j *models.Job) {
	t.Helper()
	f.env.ExecuteWorkflow(AnalyzeJob, AnalyzeJobInput{OrgID: f.orgID, JobID: j.ID})
	if !f.env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := f.env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestRetentionTimerDeletesAtFirst0200AfterExpiry runs AnalyzeJob end to
// end and checks when the timer deleted the files: the first 02:00 UTC at
// or after completion plus the retention, never earlier.
func TestRetentionTimerDeletesAtFirst0200AfterExpiry(t *testing.T) {
	cases := []struct {
		name       string
		completed  time.Time
		mode       string
		days       int
		wantDelete time.Time
	}{
		{"analysis_only expiring just before 02:00", utc("2026-11-20T01:59:50Z"), retention.AnalysisOnly, 30, utc("2026-11-21T02:00:00Z")},
		{"analysis_only expiring just after 02:00", utc("2026-11-20T02:00:01Z"), retention.AnalysisOnly, 30, utc("2026-11-22T02:00:00Z")},
		{"short_term 7 days, afternoon", utc("2026-11-20T15:30:00Z"), retention.ShortTerm, 7, utc("2026-11-28T02:00:00Z")},
		{"short_term 365 days across a leap day", utc("2027-06-01T10:00:00Z"), retention.ShortTerm, 365, utc("2028-06-01T02:00:00Z")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newRetentionFixture(t, tc.completed)
			j, keys := f.queuedJob(t, tc.mode, tc.days, 2)

			f.runAnalyzeJob(t, j)

			got := f.job(t, j.ID)
			if got.Status != models.JobCompleted || got.CompletedAt == nil || got.FileDeletedAt == nil {
				t.Fatalf("job = %+v, want completed with its files deleted", got)
			}
			if !got.CompletedAt.Equal(tc.completed) {
				t.Fatalf("completed_at = %s, want the workflow's clock %s", got.CompletedAt, tc.completed)
			}
			if !got.FileDeletedAt.Equal(tc.wantDelete) {
				t.Fatalf("file_deleted_at = %s, want %s", got.FileDeletedAt.UTC(), tc.wantDelete)
			}
			keep := time.Duration(retention.Days(tc.mode, tc.days)) * 24 * time.Hour
			if got.FileDeletedAt.Sub(*got.CompletedAt) < keep {
				t.Fatalf("deleted %s after completion, before the retention of %s", got.FileDeletedAt.Sub(*got.CompletedAt), keep)
			}
			if want := got.CompletedAt.Add(keep); got.RetentionExpiresAt == nil || !got.RetentionExpiresAt.Equal(want) {
				t.Fatalf("retention_expires_at = %v, want %s", got.RetentionExpiresAt, want)
			}
			if n := f.objectsLeft(t, keys); n != 0 {
				t.Fatalf("%d objects left in storage", n)
			}
			files, _ := f.stores.Files.ListByJob(context.Background(), f.orgID, j.ID)
			for _, file := range files {
				if file.StorageKey != "" || file.Status != models.FileCompleted || file.Profile == "" {
					t.Fatalf("file after deletion = %+v, want no storage key and its analysis kept", file)
				}
			}
			if ev := f.auditEvents(t); ev[audit.FilesExpiring] != 1 || ev[audit.FilesDeleted] != 0 || ev[audit.JobCompleted] != 1 {
				t.Fatalf("audit events = %v, want one files_expiring", ev)
			}
		})
	}
}

func TestFullRetentionSetsNoTimer(t *testing.T) {
	start := utc("2026-11-20T12:00:00Z")
	f := newRetentionFixture(t, start)
	j, keys := f.queuedJob(t, retention.FullRetention, 0, 1)

	f.runAnalyzeJob(t, j)

	got := f.job(t, j.ID)
	if got.FileDeletedAt != nil || got.RetentionExpiresAt != nil {
		t.Fatalf("job = %+v, want files kept with no expiry", got)
	}
	if f.env.Now().Sub(start) > time.Hour {
		t.Fatalf("workflow waited until %s: a full_retention job must end without a timer", f.env.Now())
	}
	if n := f.objectsLeft(t, keys); n != 1 {
		t.Fatalf("%d objects left, want 1", n)
	}
}

// TestTimerAfterUserDeletionIsANoOp: a user deletes the files while the
// timer waits; when it fires nothing more happens.
func TestTimerAfterUserDeletionIsANoOp(t *testing.T) {
	f := newRetentionFixture(t, utc("2026-11-20T12:00:00Z"))
	j, keys := f.queuedJob(t, retention.ShortTerm, 3, 2)
	userDeleted := utc("2026-11-21T09:00:00Z")
	f.env.RegisterDelayedCallback(func() {
		d := retention.Deleter{Jobs: f.stores.Jobs, Files: f.stores.Files, Blobs: f.blobs, Audit: f.audit}
		out, err := d.Delete(context.Background(), retention.Request{OrgID: f.orgID, JobID: j.ID, Reason: retention.Requested, At: userDeleted})
		if err != nil || out != retention.Deleted {
			t.Errorf("user deletion = %s, %v", out, err)
		}
	}, 21*time.Hour)

	f.runAnalyzeJob(t, j)

	got := f.job(t, j.ID)
	if got.FileDeletedAt == nil || !got.FileDeletedAt.Equal(userDeleted) {
		t.Fatalf("file_deleted_at = %v, want the user's deletion at %s", got.FileDeletedAt, userDeleted)
	}
	if !f.env.Now().Before(utc("2026-11-24T02:00:01Z")) || f.env.Now().Before(utc("2026-11-24T02:00:00Z")) {
		t.Fatalf("workflow ended at %s, want the timer at 2026-11-24T02:00", f.env.Now())
	}
	if n := f.objectsLeft(t, keys); n != 0 {
		t.Fatalf("%d objects left", n)
	}
	if ev := f.auditEvents(t); ev[audit.FilesDeleted] != 1 || ev[audit.FilesExpiring] != 0 {
		t.Fatalf("audit events = %v, want one files_deleted and no files_expiring", ev)
	}
}

// TestTimerAndSweepBothFiring: the sweep deletes an expired job first (at
// 02:00 on a day the timer is not yet due to look), then the timer fires
// and finds nothing to do; and a sweep after the timer does nothing either.
func TestTimerAndSweepBothFiring(t *testing.T) {
	start := utc("2026-11-20T01:00:00Z")
	f := newRetentionFixture(t, start)
	j, keys := f.queuedJob(t, retention.AnalysisOnly, 1, 1)
	sweepAt := utc("2026-11-21T01:30:00Z") // after expiry (01:00), before the timer (02:00)
	f.env.RegisterDelayedCallback(func() {
		d := retention.Deleter{Jobs: f.stores.Jobs, Files: f.stores.Files, Blobs: f.blobs, Audit: f.audit}
		out, err := d.Delete(context.Background(), retention.Request{OrgID: f.orgID, JobID: j.ID, Reason: retention.Expired, At: sweepAt})
		if err != nil || out != retention.Deleted {
			t.Errorf("sweep deletion = %s, %v", out, err)
		}
	}, sweepAt.Sub(start))

	f.runAnalyzeJob(t, j)

	got := f.job(t, j.ID)
	if got.FileDeletedAt == nil || !got.FileDeletedAt.Equal(sweepAt) {
		t.Fatalf("file_deleted_at = %v, want the sweep's %s", got.FileDeletedAt, sweepAt)
	}
	if f.objectsLeft(t, keys) != 0 {
		t.Fatal("object left")
	}

	// A sweep after both finds nothing due.
	sweep := newSweepEnv(t, f)
	sweep.ExecuteWorkflow(SweepExpiredFiles)
	var res activities.SweepResult
	if err := sweep.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res != (activities.SweepResult{}) {
		t.Fatalf("second sweep = %+v, want nothing to do", res)
	}
	if ev := f.auditEvents(t); ev[audit.FilesExpiring] != 1 {
		t.Fatalf("audit events = %v, want exactly one files_expiring", ev)
	}
}

// newSweepEnv is a fresh test environment on the fixture's activities,
// its clock at the given fixture's current time.
func newSweepEnv(t *testing.T, f *retentionFixture) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(f.env.Now())
	env.RegisterActivity(f.acts)
	return env
}

// finishedJob is a job that ended long ago with its expiry in the past.
func (f *retentionFixture) finishedJob(t *testing.T, mode string, days int, expires *time.Time, files int) (*models.Job, []string) {
	t.Helper()
	j, keys := f.queuedJob(t, mode, days, files)
	if err := f.stores.Jobs.Finish(context.Background(), f.orgID, j.ID, models.JobCompleted, "", utc("2026-01-01T00:00:00Z"), expires); err != nil {
		t.Fatal(err)
	}
	return j, keys
}

func TestSweepSkipsAJobWhoseObjectCannotBeDeletedAndRetriesItNextRun(t *testing.T) {
	now := utc("2026-11-21T02:00:00Z")
	f := newRetentionFixture(t, now)
	past, future := utc("2026-11-20T00:00:00Z"), utc("2026-11-22T00:00:00Z")
	ok1, ok1Keys := f.finishedJob(t, retention.ShortTerm, 30, &past, 2)
	broken, brokenKeys := f.finishedJob(t, retention.ShortTerm, 30, &past, 3)
	ok2, ok2Keys := f.finishedJob(t, retention.AnalysisOnly, 1, &past, 1)
	notDue, notDueKeys := f.finishedJob(t, retention.ShortTerm, 30, &future, 1)
	kept, keptKeys := f.finishedJob(t, retention.FullRetention, 0, nil, 1)
	f.blobs.setFailing(brokenKeys[1])

	sweep := newSweepEnv(t, f)
	sweep.ExecuteWorkflow(SweepExpiredFiles)
	var res activities.SweepResult
	if err := sweep.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res != (activities.SweepResult{Deleted: 2, Failed: 1}) {
		t.Fatalf("sweep = %+v, want 2 deleted, 1 failed", res)
	}
	for _, j := range []*models.Job{ok1, ok2} {
		if f.job(t, j.ID).FileDeletedAt == nil {
			t.Fatalf("job %s not recorded as deleted", j.ID)
		}
	}
	if f.objectsLeft(t, ok1Keys)+f.objectsLeft(t, ok2Keys) != 0 {
		t.Fatal("objects of deleted jobs left")
	}
	if got := f.job(t, broken.ID); got.FileDeletedAt != nil {
		t.Fatalf("job with a failed object deletion recorded as deleted at %s", got.FileDeletedAt)
	}
	files, _ := f.stores.Files.ListByJob(context.Background(), f.orgID, broken.ID)
	for _, file := range files {
		if file.StorageKey == "" {
			t.Fatalf("file %d lost its storage key though the job's deletion failed", file.ID)
		}
	}
	if f.objectsLeft(t, brokenKeys[1:2]) != 1 {
		t.Fatal("the failing object is gone")
	}
	for _, j := range []*models.Job{notDue, kept} {
		if f.job(t, j.ID).FileDeletedAt != nil {
			t.Fatalf("job %s deleted before its expiry", j.ID)
		}
	}
	if f.objectsLeft(t, notDueKeys)+f.objectsLeft(t, keptKeys) != 2 {
		t.Fatal("objects of jobs not due were deleted")
	}

	// Storage recovers; the next run deletes the job it skipped, the objects
	// already gone counting as deleted.
	f.blobs.setFailing()
	next := newSweepEnv(t, f)
	next.ExecuteWorkflow(SweepExpiredFiles)
	if err := next.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res != (activities.SweepResult{Deleted: 1}) {
		t.Fatalf("next sweep = %+v, want the skipped job deleted", res)
	}
	if f.job(t, broken.ID).FileDeletedAt == nil || f.objectsLeft(t, brokenKeys) != 0 {
		t.Fatal("the skipped job was not deleted on the next run")
	}
}

// TestTimerWithFailingStorageLeavesTheJobToTheSweep: the timer's deletion
// retries, then the workflow ends without recording anything; the sweep
// deletes the job once storage works.
func TestTimerWithFailingStorageLeavesTheJobToTheSweep(t *testing.T) {
	f := newRetentionFixture(t, utc("2026-11-20T10:00:00Z"))
	j, keys := f.queuedJob(t, retention.AnalysisOnly, 1, 2)
	f.blobs.setFailing(keys[0])

	f.runAnalyzeJob(t, j)

	if got := f.job(t, j.ID); got.FileDeletedAt != nil || got.Status != models.JobCompleted {
		t.Fatalf("job = %+v, want completed and not recorded as deleted", got)
	}
	f.blobs.setFailing()
	sweep := newSweepEnv(t, f)
	sweep.ExecuteWorkflow(SweepExpiredFiles)
	var res activities.SweepResult
	if err := sweep.GetWorkflowResult(&res); err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 1 || f.objectsLeft(t, keys) != 0 || f.job(t, j.ID).FileDeletedAt == nil {
		t.Fatalf("sweep = %+v; the job was not deleted", res)
	}
}

// TestAnalyzeJobCompletesAndHandsTheTimerToItsOwnWorkflow: the job's
// workflow ends when its analysis does (so "Running" in the Temporal UI
// means running); the retention timer is a KeepJobFiles workflow with the
// job's id and deletion time, left running when the job's workflow closes.
func TestAnalyzeJobCompletesAndHandsTheTimerToItsOwnWorkflow(t *testing.T) {
	completed := utc("2026-11-20T15:30:00Z")
	stores, org := storesWithOrg(t)
	store, err := local.New(t.TempDir(), bytes.Repeat([]byte("k"), 32), "http://localhost:8080")
	if err != nil {
		t.Fatal(err)
	}
	f := &retentionFixture{stores: stores, blobs: &faultyBlobs{Store: store}, orgID: org.ID}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	f.audit = audit.NewWriter(stores.Audit, logger)
	t.Cleanup(func() { f.audit.Close(context.Background()) })
	f.acts = &activities.Activities{Stores: stores, Blobs: f.blobs, Audit: f.audit, Logger: logger}
	j, keys := f.queuedJob(t, retention.ShortTerm, 7, 1)

	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(completed)
	env.RegisterActivity(f.acts)
	var timers []KeepJobFilesInput
	var timerIDs []string
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, ctx workflow.Context, args converter.EncodedValues) {
		var in KeepJobFilesInput
		if err := args.Get(&in); err != nil {
			t.Errorf("child input: %v", err)
		}
		timers = append(timers, in)
		timerIDs = append(timerIDs, info.WorkflowExecution.ID)
	})
	// The timer's own run is covered above; here it only has to start.
	env.OnWorkflow(KeepJobFiles, mock.Anything, mock.Anything).Return(nil)

	env.ExecuteWorkflow(AnalyzeJob, AnalyzeJobInput{OrgID: f.orgID, JobID: j.ID})
	if !env.IsWorkflowCompleted() || env.GetWorkflowError() != nil {
		t.Fatalf("workflow completed=%v err=%v", env.IsWorkflowCompleted(), env.GetWorkflowError())
	}
	if waited := env.Now().Sub(completed); waited > time.Minute {
		t.Fatalf("AnalyzeJob ran %s past its analysis; it must not hold the retention timer", waited)
	}
	want := KeepJobFilesInput{OrgID: f.orgID, JobID: j.ID, DeleteAt: utc("2026-11-28T02:00:00Z")}
	if len(timers) != 1 || timers[0].OrgID != want.OrgID || timers[0].JobID != want.JobID || !timers[0].DeleteAt.Equal(want.DeleteAt) {
		t.Fatalf("timers started = %+v, want one %+v", timers, want)
	}
	if timerIDs[0] != "job-files-"+j.ID {
		t.Fatalf("timer id %q, want job-files-<job id>", timerIDs[0])
	}
	if got := f.job(t, j.ID); got.Status != models.JobCompleted || got.FileDeletedAt != nil {
		t.Fatalf("job = %+v, want completed with files kept until the timer fires", got)
	}
	if f.objectsLeft(t, keys) != 1 {
		t.Fatal("files deleted before the retention period")
	}
}
