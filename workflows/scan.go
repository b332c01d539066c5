package workflows

import (
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
)

// ScanSourceInput names the scan; the workflow id is the scan id.
type ScanSourceInput = activities.ScanRef

// scanRetry retries a source's transient faults (a dropped connection, a
// busy warehouse) a few times; what a retry cannot mend fails at once.
var scanRetry = &temporal.RetryPolicy{
	InitialInterval:        5 * time.Second,
	BackoffCoefficient:     2,
	MaximumInterval:        time.Minute,
	MaximumAttempts:        4,
	NonRetryableErrorTypes: []string{activities.ErrTypeBadInput, activities.ErrTypeSourceDeleted},
}

// ScanSource reads a source: it plans the scan (lists the source, syncs
// an object source's discovered files), reads each table or object in an
// activity of its own on the analysis queue, and ends the scan, charging
// the tokens of what was read. A table or object that fails is recorded
// failed and the others go on; a scan that cannot be planned fails with
// the reason. A source deleted meanwhile ends the workflow quietly: the
// scan went with it.
func ScanSource(ctx workflow.Context, in ScanSourceInput) error {
	var a *activitiesRef
	short := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: scanRetry})
	long := onAnalysisQueue(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 6 * time.Hour,
		// The activities heartbeat every few seconds, also while a
		// database computes: a dead worker is noticed within this.
		HeartbeatTimeout: time.Minute,
		RetryPolicy:      scanRetry,
	})
	finish := activities.FinishScanInput{Scan: in}
	var plan activities.ScanPlan
	if err := workflow.ExecuteActivity(long, a.BeginScan, in).Get(ctx, &plan); err != nil {
		if sourceDeleted(err) {
			return nil
		}
		finish.Error = "the source could not be listed: " + temporalMessage(err)
	}
	tally := plan.Tally
	for _, item := range plan.Items {
		step := activities.ScanItemInput{Scan: in, Objects: plan.Objects, Item: item, Tally: tally}
		err := workflow.ExecuteActivity(long, a.ScanItem, step).Get(ctx, &tally)
		if err != nil {
			if sourceDeleted(err) {
				return nil
			}
			step.Error = temporalMessage(err)
			if err := workflow.ExecuteActivity(short, a.RecordScanItemFailure, step).Get(ctx, &tally); err != nil {
				if sourceDeleted(err) {
					return nil
				}
				return err
			}
		}
	}
	finish.At = workflow.Now(ctx)
	err := workflow.ExecuteActivity(short, a.FinishScan, finish).Get(ctx, nil)
	if sourceDeleted(err) {
		return nil
	}
	return err
}

// sourceDeleted reports whether an activity found the scan or its source
// deleted.
func sourceDeleted(err error) bool {
	appErr := innermostApplicationError(err)
	return appErr != nil && appErr.Type() == activities.ErrTypeSourceDeleted
}
