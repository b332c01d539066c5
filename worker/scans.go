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
	return startOnce(ctx, s.Client, s.Names, scanID, workflows.ScanSource, activities.ScanRef{OrgID: orgID, ScanID: scanID})
}

// startOnce starts workflow wf with id on the default queue; starting it
// again while it runs joins the first (the id is the work's, so a retried
// request never starts the work twice).
func startOnce(ctx context.Context, c client.Client, n workflows.Names, id string, wf, arg any) error {
	_, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:                       id,
		TaskQueue:                n.Default,
		WorkflowIDConflictPolicy: enums.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING,
	}, wf, arg)
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
