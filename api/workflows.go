package api

import (
	"context"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/workflows"
	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"
)

// TemporalWorkflows starts workflows on Temporal.
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

// AnalyzeJob starts the job's analysis; the workflow id is the job id, so a
// job is analysed once however often start is called.
func (t TemporalWorkflows) AnalyzeJob(ctx context.Context, orgID, jobID string) error {
	_, err := t.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       jobID,
		TaskQueue:                t.Names.Default,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.AnalyzeJob, activities.JobRef{OrgID: orgID, JobID: jobID})
	return err
}

// ReanalyzeFile starts the re-analysis of a file; one runs at a time per
// file (the caller has moved the file to processing, so a second request
// is refused before it gets here).
func (t TemporalWorkflows) ReanalyzeFile(ctx context.Context, orgID, jobID string, fileID int64) error {
	_, err := t.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       workflows.ReanalyzeFileWorkflowID(fileID),
		TaskQueue:                t.Names.Default,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.ReanalyzeFile, activities.FileRef{OrgID: orgID, JobID: jobID, FileID: fileID, Total: 1})
	return err
}
