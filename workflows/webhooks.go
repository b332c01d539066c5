package workflows

import (
	"time"

	"github.com/dqs/dqs/activities"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

// DeliveryInput is one event for one webhook.
type DeliveryInput = activities.DeliveryInput

// DeliveryWorkflowID is the id of the delivery of an event to a webhook:
// publishing the same event twice starts one delivery.
func DeliveryWorkflowID(webhookID, eventID string) string {
	return "webhook-" + webhookID + "-" + eventID
}

// deliveryRetry backs off exponentially over about 20 minutes; a target
// that refuses the message for good (4xx other than 408 and 429, a
// redirect, a refused address) is not retried.
var deliveryRetry = &temporal.RetryPolicy{
	InitialInterval:        10 * time.Second,
	BackoffCoefficient:     2,
	MaximumInterval:        10 * time.Minute,
	MaximumAttempts:        6,
	NonRetryableErrorTypes: []string{activities.ErrWebhookRejected},
}

// DeliverWebhook sends one event to one webhook with retries, then records
// the delivery's outcome once: consecutive_failures counts failed
// deliveries, not attempts. A failed delivery fails the workflow, so it
// shows in the Temporal UI.
func DeliverWebhook(ctx workflow.Context, in DeliveryInput) error {
	send := workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 30 * time.Second,
		RetryPolicy:         deliveryRetry,
	})
	var a *activitiesRef
	var out activities.DeliveryOutcome
	sendErr := workflow.ExecuteActivity(send, a.SendWebhook, in).Get(ctx, &out)
	if sendErr == nil && out.Skipped {
		return nil
	}
	record := activities.RecordDeliveryInput{OrgID: in.OrgID, WebhookID: in.WebhookID, OK: sendErr == nil, At: workflow.Now(ctx)}
	if err := workflow.ExecuteActivity(shortActivities(ctx), a.RecordWebhookDelivery, record).Get(ctx, nil); err != nil {
		return err
	}
	return sendErr
}
