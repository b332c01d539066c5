package workflows

import (
	"time"

	"github.com/dqs/dqs/activities"
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
	short := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         analysisRetry,
	})
	long := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 4 * time.Hour,
		// A worker that dies mid-file is noticed within this and the file
		// is analysed again on another worker.
		HeartbeatTimeout: 20 * time.Second,
		RetryPolicy:      analysisRetry,
	})
	var a *activitiesRef
	var files []int64
	if err := workflow.ExecuteActivity(short, a.BeginJob, in).Get(ctx, &files); err != nil {
		return err
	}
	for i, id := range files {
		file := activities.FileRef{OrgID: in.OrgID, JobID: in.JobID, FileID: id, Index: i, Total: len(files)}
		if err := workflow.ExecuteActivity(long, a.AnalyzeFile, file).Get(ctx, nil); err != nil {
			// Retries are exhausted: record the failure and go on.
			msg := "analysis failed after retries: " + temporalMessage(err)
			if err := workflow.ExecuteActivity(short, a.MarkFileFailed, file, msg).Get(ctx, nil); err != nil {
				return err
			}
		}
	}
	return workflow.ExecuteActivity(short, a.CompleteJob, in).Get(ctx, nil)
}

// temporalMessage is the innermost message of an activity error, which is
// what the activity said (the wrappers name only the activity).
func temporalMessage(err error) string {
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
	if appErr != nil {
		return appErr.Message()
	}
	return err.Error()
}
