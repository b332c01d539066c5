package jobs

import (
	"context"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/workflows"
)

// Temporal starts jobs' workflows on Temporal.
type Temporal struct {
	Client client.Client
	Names  workflows.Names
}

// AnalyzeJob starts the job's analysis; the workflow id is the job id, so a
// job is analysed once however often start is called.
func (t Temporal) AnalyzeJob(ctx context.Context, orgID, jobID string) error {
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
func (t Temporal) ReanalyzeFile(ctx context.Context, orgID, jobID string, fileID int64) error {
	_, err := t.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       t.Names.ReanalyzeFileID(fileID),
		TaskQueue:                t.Names.Default,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.ReanalyzeFile, activities.FileRef{OrgID: orgID, JobID: jobID, FileID: fileID, Total: 1})
	return err
}
