package worker

import (
	"context"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/workflows"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// WebhookDeliveries starts one DeliverWebhook workflow per event and
// webhook; its id derives from both, so publishing an event again (an
// activity retried) joins the delivery already started, and one that
// already ended is not repeated.
type WebhookDeliveries struct {
	Client client.Client
	Names  workflows.Names
}

// Deliver implements events.Deliverer.
func (d WebhookDeliveries) Deliver(ctx context.Context, orgID, webhookID string, e events.Event) error {
	_, err := d.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.DeliveryWorkflowID(webhookID, e.ID),
		TaskQueue:                d.Names.Default,
		WorkflowIDReusePolicy:    enums.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.DeliverWebhook, activities.DeliveryInput{OrgID: orgID, WebhookID: webhookID, Event: e})
	if isAlreadyExists(err) {
		return nil
	}
	return err
}
