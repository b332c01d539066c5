package workflows

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/correctionsvc"
)

// ApplyCorrectionsWorkflowID is the id of the application that writes
// corrected copy copyID: one per copy, so a retried start joins it.
func ApplyCorrectionsWorkflowID(copyID int64) string {
	return fmt.Sprintf("apply-corrections-%d", copyID)
}

// ApplyCorrections writes a corrected copy of a file with a pipeline's
// version (on the analysis queue: it reads the whole file), records the
// steps applied and the lineage edges original → pipeline → copy, and
// analyses the copy like an upload, so the user sees its score beside the
// original's. A copy that cannot be written is marked failed with the
// reason, and the workflow ends without error: retrying would not change
// it.
func ApplyCorrections(ctx workflow.Context, in correctionsvc.ApplyRef) error {
	long := onAnalysisQueue(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 4 * time.Hour,
		HeartbeatTimeout:    20 * time.Second,
		RetryPolicy:         analysisRetry,
	})
	var a *activitiesRef
	var out activities.CopyOutcome
	copyRef := activities.FileRef{OrgID: in.OrgID, FileID: in.CopyID, Rerun: true, Total: 1}
	if err := workflow.ExecuteActivity(long, a.WriteCorrectedCopy, in).Get(ctx, &out); err != nil {
		msg := "the corrected copy could not be written: " + temporalMessage(err)
		return workflow.ExecuteActivity(shortActivities(ctx), a.MarkFileFailed, copyRef, msg).Get(ctx, nil)
	}
	if out.Failed {
		return nil
	}
	if err := workflow.ExecuteActivity(shortActivities(ctx), a.FinishCorrections, in).Get(ctx, nil); err != nil {
		return err
	}
	copyRef.JobID = out.JobID
	return analyzeFile(ctx, copyRef)
}
