package workflows

import (
	"time"

	"github.com/dqs/dqs/activities"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// PurgeExpiredCredentials deletes expired refresh tokens and e-mail
// verification tokens; it runs daily from a Temporal Schedule.
func PurgeExpiredCredentials(ctx workflow.Context) (int64, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{InitialInterval: 10 * time.Second, MaximumAttempts: 10},
	})
	var a *activitiesRef
	var n int64
	err := workflow.ExecuteActivity(ctx, a.PurgeExpiredCredentials).Get(ctx, &n)
	return n, err
}

// sweepRetry retries a sweep that failed as a whole (database down, worker
// lost); the next day's run catches anything left after that.
var sweepRetry = &temporal.RetryPolicy{
	InitialInterval:    time.Minute,
	BackoffCoefficient: 2,
	MaximumInterval:    30 * time.Minute,
	MaximumAttempts:    5,
}

// SweepExpiredFiles deletes the raw files of every job whose retention
// expired and which no timer deleted (a worker was down, a deletion
// failed, the job ended before timers existed). A Temporal Schedule runs
// it daily at 02:00 UTC.
func SweepExpiredFiles(ctx workflow.Context) (activities.SweepResult, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 6 * time.Hour,
		HeartbeatTimeout:    2 * time.Minute,
		RetryPolicy:         sweepRetry,
	})
	var a *activitiesRef
	var res activities.SweepResult
	err := workflow.ExecuteActivity(ctx, a.SweepExpiredFiles, activities.SweepInput{AsOf: workflow.Now(ctx)}).Get(ctx, &res)
	return res, err
}
