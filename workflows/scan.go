package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/models"
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

// bookkeepingRetry retries the activities that record an item's failure
// and end the scan until the database answers (for hours, not four
// times): a scan must not be left running for an outage of minutes.
var bookkeepingRetry = &temporal.RetryPolicy{
	InitialInterval:        5 * time.Second,
	BackoffCoefficient:     2,
	MaximumInterval:        5 * time.Minute,
	NonRetryableErrorTypes: []string{activities.ErrTypeSourceDeleted},
}

// ScanSource reads a source: it plans the scan (lists the source, syncs
// an object source's discovered files), reads each table or object in an
// activity of its own on the analysis queue, judges the values it
// recorded against their history (anomaly detection), and ends the scan,
// charging the tokens of what was read. A table or object that fails is recorded
// failed and the others go on; a scan that cannot be planned fails with
// the reason. A source deleted meanwhile ends the workflow quietly: the
// scan went with it.
func ScanSource(ctx workflow.Context, in ScanSourceInput) error {
	var a *activitiesRef
	short := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		ScheduleToCloseTimeout: 12 * time.Hour, RetryPolicy: bookkeepingRetry})
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
		finish.Error = "the source could not be listed: " + userMessage(err)
	}
	tally := plan.Tally
	for _, item := range plan.Items {
		step := activities.ScanItemInput{Scan: in, Item: item, Tally: tally}
		err := workflow.ExecuteActivity(long, a.ScanItem, step).Get(ctx, &tally)
		if err != nil {
			if sourceDeleted(err) {
				return nil
			}
			step.Error = userMessage(err)
			// A fault that outlived the retries leaves an object pending:
			// the next scan reads it again.
			step.Item.DiscoveredID = 0
			if err := workflow.ExecuteActivity(short, a.RecordScanItemFailure, step).Get(ctx, &tally); err != nil {
				if sourceDeleted(err) {
					return nil
				}
				return err
			}
		}
	}
	// Anomaly detection judges the values the scan recorded against their
	// history, before the scan ends, so that a completed scan's anomalies
	// and alerts are there when a caller sees it completed. It reads
	// every scanned table's history: on the analysis queue, heartbeating.
	// A detection that keeps failing does not keep the scan from ending.
	if finish.Error == "" && workflow.GetVersion(ctx, "scan-anomalies", workflow.DefaultVersion, 1) == 1 {
		detect := onAnalysisQueue(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Hour, HeartbeatTimeout: time.Minute,
			RetryPolicy: scanRetry})
		err := workflow.ExecuteActivity(detect, a.DetectAnomalies, in).Get(ctx, nil)
		if sourceDeleted(err) {
			return nil
		}
		if err != nil {
			workflow.GetLogger(ctx).Error("anomaly detection failed; the scan ends without it", "error", err)
		}
	}
	// A scheduled scan's data contracts are evaluated on its results, also
	// before it ends, for the same reason; a failing evaluation is logged
	// and the scan still ends (the contracts can be evaluated on demand).
	if finish.Error == "" && workflow.GetVersion(ctx, "scan-contracts", workflow.DefaultVersion, 1) == 1 {
		evaluate := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 5 * time.Minute,
			RetryPolicy: scanRetry})
		err := workflow.ExecuteActivity(evaluate, a.EvaluateContracts, in).Get(ctx, nil)
		if sourceDeleted(err) {
			return nil
		}
		if err != nil {
			workflow.GetLogger(ctx).Error("contract evaluation failed; the scan ends without it", "error", err)
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

// ScheduledScanInput names the schedule a Temporal Schedule runs; the
// schedule's row says what to scan when it runs.
type ScheduledScanInput = activities.ScheduleRef

// ScheduledScan is one run of a source schedule: it creates the scan
// (checked, estimated and paid for as a manual one) and runs it as a
// ScanSource child, whose id is the scan id. A run that cannot start (too
// few tokens, the source unreachable) is recorded on the schedule as
// failed and publishes scan_failure; the schedule goes on to its next run.
func ScheduledScan(ctx workflow.Context, in ScheduledScanInput) error {
	var a *activitiesRef
	// Recording a run that could not start is bookkeeping: retried until
	// the database answers, like ending a scan.
	short := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		ScheduleToCloseTimeout: 12 * time.Hour, RetryPolicy: bookkeepingRetry})
	plan := onAnalysisQueue(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, RetryPolicy: scanRetry})
	create := in
	if workflow.GetVersion(ctx, "scheduled-scan-id", workflow.DefaultVersion, 1) == 1 {
		// The scan's id is chosen once, here, so that a CreateScheduledScan
		// retried after its answer was lost finds the scan it created
		// rather than meeting it as another scan of the source.
		err := workflow.SideEffect(ctx, func(workflow.Context) any { return models.NewShortID("scn") }).Get(&create.ScanID)
		if err != nil {
			return err
		}
	}
	var scanID string
	if err := workflow.ExecuteActivity(plan, a.CreateScheduledScan, create).Get(ctx, &scanID); err != nil {
		if sourceDeleted(err) {
			return nil
		}
		failed := activities.ScheduledRunFailure{Schedule: in, Error: userMessage(err), At: workflow.Now(ctx)}
		err := workflow.ExecuteActivity(short, a.RecordScheduledRunFailure, failed).Get(ctx, nil)
		if sourceDeleted(err) {
			return nil
		}
		return err
	}
	child := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: scanID})
	return workflow.ExecuteChildWorkflow(child, ScanSource, ScanSourceInput{OrgID: in.OrgID, ScanID: scanID}).Get(ctx, nil)
}

// userMessage is what a user reads of an activity that failed for
// good: the activity's own message, or plain words for a timeout, whose
// Temporal text names workers and event ids.
func userMessage(err error) string {
	var timeout *temporal.TimeoutError
	if innermostApplicationError(err) == nil && errors.As(err, &timeout) {
		return "the source did not answer in time"
	}
	return temporalMessage(err)
}
