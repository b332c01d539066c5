package workflows

import (
	"github.com/dqs/dqs/activities"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// VerificationEmailInput names the user to verify (ids only: the token is
// made inside the activity so it never enters workflow history).
type VerificationEmailInput = activities.VerificationEmailInput

// VerificationEmailWorkflowID is the id of the workflow that e-mails user
// userID; one per user at a time, so a double click sends one e-mail.
func VerificationEmailWorkflowID(userID string) string { return "verify-email-" + userID }

// emailRetry retries a failing mail server for about a day, backing off.
var emailRetry = &temporal.RetryPolicy{
	InitialInterval:    5 * time.Second,
	BackoffCoefficient: 2,
	MaximumInterval:    time.Hour,
	MaximumAttempts:    30,
}

// SendVerificationEmail delivers a verification e-mail, retrying a failing
// mail server durably.
func SendVerificationEmail(ctx workflow.Context, in VerificationEmailInput) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: time.Minute,
		RetryPolicy:         emailRetry,
	})
	var a *activitiesRef
	return workflow.ExecuteActivity(ctx, a.SendVerificationEmail, in).Get(ctx, nil)
}
