package workflows

import (
	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/correctionsvc"
)

// ApplyCorrections writes a corrected copy of a file with a pipeline's
// version (on the analysis queue: it reads the whole file), records the
// steps applied and the lineage edges original → pipeline → copy, and
// analyses the copy like an upload, so the user sees its score beside the
// original's. A copy that cannot be written is marked failed with the
// reason, and the workflow ends without error: retrying would not change
// it.
func ApplyCorrections(ctx workflow.Context, in correctionsvc.ApplyRef) error {
	long := wholeFileActivities(ctx)
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
		// The copy is written but its steps and lineage are not recorded:
		// failed with the reason rather than left processing.
		msg := "the corrected copy was written but could not be recorded: " + temporalMessage(err)
		return workflow.ExecuteActivity(shortActivities(ctx), a.MarkFileFailed, copyRef, msg).Get(ctx, nil)
	}
	copyRef.JobID = out.JobID
	return analyzeFile(ctx, copyRef)
}
