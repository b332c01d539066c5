package worker

import (
	"context"
	"errors"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/workflows"
)

// Scans starts ScanSource workflows (scans.Workflows): the workflow id is
// the scan id, so starting a scan twice joins the first.
type Scans struct {
	Client client.Client
	Names  workflows.Names
}

// ScanSource implements scans.Workflows.
func (s Scans) ScanSource(ctx context.Context, orgID, scanID string) error {
	_, err := s.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       scanID,
		TaskQueue:                s.Names.Default,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, workflows.ScanSource, activities.ScanRef{OrgID: orgID, ScanID: scanID})
	return err
}

// ScanRunning implements scans.Workflows: a workflow that is not found
// (never started, or deleted after its retention) is not running.
func (s Scans) ScanRunning(ctx context.Context, scanID string) (bool, error) {
	d, err := s.Client.DescribeWorkflowExecution(ctx, scanID, "")
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return d.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING, nil
}
