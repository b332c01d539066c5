package worker

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/workflows"
)

// SourceSchedules keeps one Temporal Schedule per source schedule
// (scans.Schedules): cron in UTC, paused while the schedule is disabled,
// each run a ScheduledScan workflow on the default queue.
type SourceSchedules struct {
	Client client.Client
	Names  workflows.Names
}

// Put creates or updates the Temporal Schedule of sc.
func (s SourceSchedules) Put(ctx context.Context, sc *models.SourceSchedule) error {
	paused := !sc.Enabled
	return EnsureSchedules(ctx, s.Client, []Schedule{{
		ID:         s.Names.SourceScheduleID(sc.ID),
		Cron:       sc.CronExpression,
		Workflow:   workflows.ScheduledScan,
		Args:       []any{workflows.ScheduledScanInput{OrgID: sc.OrgID, SourceID: sc.SourceID, ScheduleID: sc.ID}},
		TaskQueue:  s.Names.Default,
		WorkflowID: s.Names.SourceScheduleID(sc.ID) + "-run",
		Paused:     &paused,
	}})
}

// Delete removes the Temporal Schedule of schedule id; one already gone is
// no error.
func (s SourceSchedules) Delete(ctx context.Context, _ string, id int64) error {
	return DeleteSchedule(ctx, s.Client, s.Names.SourceScheduleID(id))
}
