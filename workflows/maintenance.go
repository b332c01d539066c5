package workflows

import (
	"time"

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
