package workflows

import (
	"time"

	"github.com/dqs/dqs/activities"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// AnalyzeJobInput names the job; the workflow id is the job id.
type AnalyzeJobInput = activities.JobRef

// analysisRetry retries transient faults (storage, database) with backoff;
// bad input is marked failed inside the activity and never retried.
var analysisRetry = &temporal.RetryPolicy{
	InitialInterval:    2 * time.Second,
	BackoffCoefficient: 2,
	MaximumInterval:    time.Minute,
	MaximumAttempts:    8,
}

// AnalyzeJob analyses every file of a job, one activity per file, so a
// crash loses at most the file in progress and a worker restarted later
// finishes the job. A file whose analysis fails for good is marked failed
// and the others go on.
func AnalyzeJob(ctx workflow.Context, in AnalyzeJobInput) error {
	short := shortActivities(ctx)
	var a *activitiesRef
	var files []int64
	if err := workflow.ExecuteActivity(short, a.BeginJob, in).Get(ctx, &files); err != nil {
		return err
	}
	for i, id := range files {
		file := activities.FileRef{OrgID: in.OrgID, JobID: in.JobID, FileID: id, Index: i, Total: len(files)}
		if err := analyzeFile(ctx, file); err != nil {
			return err
		}
	}
	var plan activities.RetentionPlan
	done := activities.CompleteJobInput{OrgID: in.OrgID, JobID: in.JobID, At: workflow.Now(ctx)}
	if err := workflow.ExecuteActivity(short, a.CompleteJob, done).Get(ctx, &plan); err != nil {
		return err
	}
	if workflow.GetVersion(ctx, "job-events", workflow.DefaultVersion, 1) == 1 {
		events := activities.PublishJobEventsInput{OrgID: in.OrgID, JobID: in.JobID, At: workflow.Now(ctx)}
		if err := workflow.ExecuteActivity(short, a.PublishJobEvents, events).Get(ctx, nil); err != nil {
			// Notifications are not worth failing the job for.
			workflow.GetLogger(ctx).Warn("job events not published", "job_id", in.JobID, "error", err)
		}
	}
	// Jobs that completed before the timer existed are left to the sweep.
	if workflow.GetVersion(ctx, "retention-timer", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return nil
	}
	// Jobs that completed while the timer lived in this workflow keep it
	// here until it fires; later ones hand it to a workflow of its own.
	if workflow.GetVersion(ctx, "retention-workflow", workflow.DefaultVersion, 1) == workflow.DefaultVersion {
		return keepUntilExpiry(ctx, KeepJobFilesInput{OrgID: in.OrgID, JobID: in.JobID}, plan)
	}
	if err := startKeepJobFiles(ctx, in, plan); err != nil {
		return err
	}
	// Last: the job's events and its retention timer do not wait for them.
	if workflow.GetVersion(ctx, "suggestions", workflow.DefaultVersion, 1) == 1 {
		for i, id := range files {
			suggestCorrections(ctx, activities.FileRef{OrgID: in.OrgID, JobID: in.JobID, FileID: id, Index: i, Total: len(files)})
		}
	}
	return nil
}

// KeepJobFilesInput names the job whose raw files a KeepJobFiles workflow
// deletes, and when.
type KeepJobFilesInput struct {
	OrgID    string    `json:"org_id"`
	JobID    string    `json:"job_id"`
	DeleteAt time.Time `json:"delete_at"`
}

// KeepJobFilesWorkflowID is the id of the retention timer of a job.
func KeepJobFilesWorkflowID(jobID string) string { return "job-files-" + jobID }

// startKeepJobFiles starts the job's retention timer as a workflow of its
// own type (KeepJobFiles, id job-files-<job id>) that outlives this one,
// and returns once it has started: the job's workflow then completes with
// its analysis, so "Running" in the Temporal UI means a job still being
// analysed, while the timers stay listed, durable and cancellable under
// their own type. full_retention jobs have no timer.
func startKeepJobFiles(ctx workflow.Context, in AnalyzeJobInput, plan activities.RetentionPlan) error {
	if plan.DeleteAt == nil {
		return nil
	}
	child := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{
		WorkflowID:        KeepJobFilesWorkflowID(in.JobID),
		ParentClosePolicy: enums.PARENT_CLOSE_POLICY_ABANDON,
		// A timer already running for the job (a retried start) is it.
		WorkflowIDReusePolicy: enums.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY,
	})
	keep := KeepJobFilesInput{OrgID: in.OrgID, JobID: in.JobID, DeleteAt: *plan.DeleteAt}
	return workflow.ExecuteChildWorkflow(child, KeepJobFiles, keep).GetChildWorkflowExecution().Get(ctx, nil)
}

// KeepJobFiles holds a job's retention timer and deletes its raw files
// when it fires (see keepUntilExpiry).
func KeepJobFiles(ctx workflow.Context, in KeepJobFilesInput) error {
	return keepUntilExpiry(ctx, in, activities.RetentionPlan{DeleteAt: &in.DeleteAt})
}

// expiryRetry retries a failing storage for about half an hour; after that
// the daily sweep takes over, so the workflow does not stay open for it.
var expiryRetry = &temporal.RetryPolicy{
	InitialInterval:    10 * time.Second,
	BackoffCoefficient: 2,
	MaximumInterval:    10 * time.Minute,
	MaximumAttempts:    6,
}

// keepUntilExpiry holds a durable timer until the job's raw files are due
// for deletion (the first 02:00 UTC at or after completion plus the
// retention), then deletes them. Files a user deleted meanwhile make the
// deletion a no-op. A deletion that keeps failing ends the workflow
// without error: the daily sweep retries the job.
func keepUntilExpiry(ctx workflow.Context, in KeepJobFilesInput, plan activities.RetentionPlan) error {
	if plan.DeleteAt == nil {
		return nil // full_retention: kept until a user deletes them
	}
	if err := workflow.Sleep(ctx, plan.DeleteAt.Sub(workflow.Now(ctx))); err != nil {
		return err
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy:         expiryRetry,
	})
	var a *activitiesRef
	expire := activities.ExpireJobFilesInput{OrgID: in.OrgID, JobID: in.JobID, AsOf: workflow.Now(ctx)}
	if err := workflow.ExecuteActivity(ctx, a.ExpireJobFiles, expire).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("raw files not deleted; the daily sweep will retry", "job_id", in.JobID, "error", err)
	}
	return nil
}

// onAnalysisQueue schedules activities on the analysis queue beside the
// workflow's own (default) queue. Every activity that reads a whole file
// (file analysis, and scans as they come) goes through it, so hours of
// reading never queue ahead of e-mail and webhooks, and the two scale as
// separate worker pools. Replay does not compare an activity's task queue,
// so workflows already running move their next analyses here unversioned.
func onAnalysisQueue(ctx workflow.Context, opts workflow.ActivityOptions) workflow.Context {
	opts.TaskQueue = analysisQueueOf(workflow.GetInfo(ctx).TaskQueueName)
	return workflow.WithActivityOptions(ctx, opts)
}

func shortActivities(ctx workflow.Context) workflow.Context {
	return workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         analysisRetry,
	})
}

// wholeFileActivities schedules activities that read a whole file (an
// analysis, a corrected copy) on the analysis queue, for up to 4 hours.
func wholeFileActivities(ctx workflow.Context) workflow.Context {
	return onAnalysisQueue(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 4 * time.Hour,
		// A worker that dies mid-file is noticed within this and the file
		// is read again on another worker.
		HeartbeatTimeout: 20 * time.Second,
		RetryPolicy:      analysisRetry,
	})
}

// analyzeFile runs one file's analysis; when its retries are exhausted the
// file is marked failed and nil returned, so the caller goes on.
func analyzeFile(ctx workflow.Context, file activities.FileRef) error {
	long := wholeFileActivities(ctx)
	var a *activitiesRef
	err := workflow.ExecuteActivity(long, a.AnalyzeFile, file).Get(ctx, nil)
	if err == nil {
		return nil
	}
	msg := "analysis failed after retries: " + temporalMessage(err)
	return workflow.ExecuteActivity(shortActivities(ctx), a.MarkFileFailed, file, msg).Get(ctx, nil)
}

// suggestCorrections runs the suggesters on an analysed file (on the
// analysis queue: they read the whole file); their failing is logged and
// not worth failing the job for.
func suggestCorrections(ctx workflow.Context, file activities.FileRef) {
	long := onAnalysisQueue(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Hour,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 2 * time.Second, BackoffCoefficient: 2, MaximumInterval: time.Minute, MaximumAttempts: 3},
	})
	var a *activitiesRef
	if err := workflow.ExecuteActivity(long, a.SuggestCorrections, file).Get(ctx, nil); err != nil {
		workflow.GetLogger(ctx).Warn("no suggestions for the file", "file_id", file.FileID, "error", err)
	}
}

// ReanalyzeFile analyses one file of a finished job again (after the
// engine improved, say), replacing its result; the job's own status is
// left alone.
func ReanalyzeFile(ctx workflow.Context, file activities.FileRef) error {
	file.Rerun = true
	if err := analyzeFile(ctx, file); err != nil {
		return err
	}
	if workflow.GetVersion(ctx, "suggestions", workflow.DefaultVersion, 1) == 1 {
		suggestCorrections(ctx, file)
	}
	return nil
}

// temporalMessage is the innermost message of an activity error, which is
// what the activity said (the wrappers name only the activity).
func temporalMessage(err error) string {
	if appErr := innermostApplicationError(err); appErr != nil {
		return appErr.Message()
	}
	return err.Error()
}

// innermostApplicationError is the application error deepest in err's
// chain (the activity's own), nil when there is none.
func innermostApplicationError(err error) *temporal.ApplicationError {
	var appErr *temporal.ApplicationError
	for e := err; e != nil; {
		if ae, ok := e.(*temporal.ApplicationError); ok {
			appErr = ae
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			break
		}
		e = u.Unwrap()
	}
	return appErr
}
