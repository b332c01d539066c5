package activities

import (
	"context"
	"errors"
	"time"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/retention"
	"go.temporal.io/sdk/activity"
)

// retentionPolicy is the configured policy, production's when unset.
func (a *Activities) retentionPolicy() retention.Policy {
	if a.Retention.Day <= 0 {
		return retention.Production()
	}
	return a.Retention
}

func (a *Activities) deleter() retention.Deleter {
	return retention.Deleter{Jobs: a.Stores.Jobs, Files: a.Stores.Files, Blobs: a.Blobs, Audit: a.Audit}
}

// ExpireJobFilesInput names a job whose retention timer fired.
type ExpireJobFilesInput struct {
	OrgID string
	JobID string
	// AsOf is the workflow's time when the timer fired; the job is only
	// touched if its expiry is at or before it.
	AsOf time.Time
}

// ExpireJobFiles deletes the raw files of one job whose retention has
// passed (audited as files_expiring). A job deleted before, by a user or
// the sweep, is left alone, as is one not yet due.
func (a *Activities) ExpireJobFiles(ctx context.Context, in ExpireJobFilesInput) (retention.Outcome, error) {
	out, err := a.deleter().Delete(ctx, retention.Request{OrgID: in.OrgID, JobID: in.JobID, Reason: retention.Expired, At: in.AsOf})
	if err == nil {
		a.Logger.Info("retention timer fired", "org_id", in.OrgID, "job_id", in.JobID, "outcome", string(out))
	}
	return out, err
}

// SweepInput is the time the sweep deletes up to.
type SweepInput struct {
	AsOf time.Time
}

// SweepResult counts what a sweep did.
type SweepResult struct {
	Deleted int
	Failed  int
}

// sweepPage is how many expired jobs the sweep reads at a time.
const sweepPage = 200

// SweepExpiredFiles deletes the raw files of every job, across
// organisations, whose retention expired at or before in.AsOf and whose
// files are not yet deleted. A job whose objects cannot all be removed is
// skipped (nothing recorded) and found again by the next run; the others
// go on. It heartbeats, so a worker dying mid-sweep is noticed, and a
// retry starts over safely: finished jobs are stamped and skipped.
func (a *Activities) SweepExpiredFiles(ctx context.Context, in SweepInput) (SweepResult, error) {
	asOf := in.AsOf
	if asOf.IsZero() {
		asOf = time.Now()
	}
	var res SweepResult
	var cursor models.ExpiredCursor
	for {
		jobs, err := a.Stores.Jobs.Expired(ctx, asOf, cursor, sweepPage)
		if err != nil {
			return res, err
		}
		for _, j := range jobs {
			cursor = models.CursorAfter(j)
			activity.RecordHeartbeat(ctx, res)
			out, err := a.deleter().Delete(ctx, retention.Request{OrgID: j.OrgID, JobID: j.ID, Reason: retention.Expired, At: asOf})
			switch {
			case ctx.Err() != nil:
				return res, ctx.Err()
			case err != nil:
				res.Failed++
				a.Logger.Warn("raw files not deleted; retried on the next sweep", "org_id", j.OrgID, "job_id", j.ID,
					"error", err, "storage", errors.Is(err, retention.ErrStorage))
			case out == retention.Deleted:
				res.Deleted++
			}
		}
		if len(jobs) < sweepPage {
			a.Logger.Info("retention sweep done", "deleted", res.Deleted, "failed", res.Failed, "as_of", asOf.UTC())
			return res, nil
		}
	}
}
