package workflows

import (
	"time"

	"github.com/google/uuid"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/models"
)

// reportRetry retries a report's build on transient faults (the database,
// blob storage); a report that cannot be laid out, or whose report is
// gone, is not retried.
var reportRetry = &temporal.RetryPolicy{
	InitialInterval:        5 * time.Second,
	BackoffCoefficient:     2,
	MaximumInterval:        time.Minute,
	MaximumAttempts:        4,
	NonRetryableErrorTypes: []string{activities.ErrTypeBadInput, activities.ErrTypeReportGone},
}

// GenerateReport builds report in.ReportID (workflow id = the report id)
// on the analysis queue: pending becomes complete, or failed with a
// readable error and its tokens given back. It returns how the report
// ended; a report deleted meanwhile ends it quietly.
func GenerateReport(ctx workflow.Context, in activities.ReportRef) (activities.ReportOutcome, error) {
	var a *activitiesRef
	build := onAnalysisQueue(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Minute, RetryPolicy: reportRetry})
	short := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		ScheduleToCloseTimeout: 12 * time.Hour, RetryPolicy: bookkeepingRetry})
	err := workflow.ExecuteActivity(build, a.BuildReport, in).Get(ctx, nil)
	if reportDeleted(err) {
		return activities.ReportOutcome{Status: models.ReportFailed, Error: "the report was deleted"}, nil
	}
	if err != nil {
		failure := activities.ReportFailure{Report: in, Error: "the report could not be generated: " + temporalMessage(err)}
		if err := workflow.ExecuteActivity(short, a.FailReport, failure).Get(ctx, nil); err != nil {
			return activities.ReportOutcome{}, err
		}
		return activities.ReportOutcome{Status: models.ReportFailed, Error: failure.Error}, nil
	}
	return activities.ReportOutcome{Status: models.ReportComplete}, nil
}

func reportDeleted(err error) bool {
	appErr := innermostApplicationError(err)
	return appErr != nil && appErr.Type() == activities.ErrTypeReportGone
}

// ScheduledReport is one run of a report schedule: it creates the report
// (checked and charged as a requested one), generates it as a
// GenerateReport child (id = the report id), e-mails the PDF to the
// schedule's recipients, and records the outcome on the schedule. A run
// that fails (too few tokens, a file in its config deleted, the e-mail
// refused) is recorded with its error; the schedule goes on to its next
// run.
func ScheduledReport(ctx workflow.Context, in activities.ReportScheduleRef) error {
	var a *activitiesRef
	short := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute,
		ScheduleToCloseTimeout: 12 * time.Hour, RetryPolicy: bookkeepingRetry})
	create := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute, RetryPolicy: reportRetry})
	email := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 2 * time.Minute,
		RetryPolicy: &temporal.RetryPolicy{InitialInterval: 10 * time.Second, BackoffCoefficient: 2, MaximumInterval: 10 * time.Minute,
			MaximumAttempts: 8, NonRetryableErrorTypes: []string{activities.ErrTypeReportGone}}})
	// The report's id is chosen once, here, so that a CreateScheduledReport
	// retried after its answer was lost finds the report it created.
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return uuid.NewString() }).Get(&in.ReportID); err != nil {
		return err
	}
	record := func(status, msg string) error {
		res := activities.ScheduleRunResult{Schedule: in, Status: status, Error: msg, At: workflow.Now(ctx)}
		return workflow.ExecuteActivity(short, a.RecordReportScheduleRun, res).Get(ctx, nil)
	}
	if err := workflow.ExecuteActivity(create, a.CreateScheduledReport, in).Get(ctx, nil); err != nil {
		if reportDeleted(err) {
			return nil // the schedule was deleted
		}
		return record(models.ReportFailed, temporalMessage(err))
	}
	child := workflow.WithChildOptions(ctx, workflow.ChildWorkflowOptions{WorkflowID: in.ReportID})
	var outcome activities.ReportOutcome
	if err := workflow.ExecuteChildWorkflow(child, GenerateReport, activities.ReportRef{OrgID: in.OrgID, ReportID: in.ReportID}).Get(ctx, &outcome); err != nil {
		return record(models.ReportFailed, temporalMessage(err))
	}
	if outcome.Status != models.ReportComplete {
		return record(models.ReportFailed, outcome.Error)
	}
	if err := workflow.ExecuteActivity(email, a.EmailReport, in).Get(ctx, nil); err != nil {
		if reportDeleted(err) {
			return nil
		}
		return record(models.ReportFailed, "the report was generated but the e-mail could not be sent: "+temporalMessage(err))
	}
	return record(models.ReportComplete, "")
}
