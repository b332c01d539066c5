package api

import (
	"context"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/workflows"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// TemporalWorkflows starts the accounts' workflows on Temporal; jobs'
// are started by the jobs service (jobs.Temporal).
type TemporalWorkflows struct {
	Client client.Client
	Names  workflows.Names
}

// SendVerificationEmail starts (or joins, if one is running) the e-mail
// workflow of the user.
func (t TemporalWorkflows) SendVerificationEmail(ctx context.Context, orgID, userID string) error {
	_, err := t.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.VerificationEmailWorkflowID(userID),
		TaskQueue:                t.Names.Default,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.SendVerificationEmail, activities.VerificationEmailInput{OrgID: orgID, UserID: userID})
	return err
}
