package worker

import (
	"context"
	"time"

	enums "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reportsvc"
	"github.com/dqs/dqs/workflows"
)

// ReportSchedules keeps one Temporal Schedule per report schedule
// (reportsvc.Schedules): every 7, 30 or 90 days from the row's creation,
// paused while the schedule is disabled, each run a ScheduledReport
// workflow on the default queue.
type ReportSchedules struct {
	Client client.Client
	Names  workflows.Names
}

// Put creates or updates the Temporal Schedule of sc.
func (s ReportSchedules) Put(ctx context.Context, sc *models.ReportSchedule) error {
	paused := !sc.Enabled
	every := reportsvc.Period(sc.Frequency)
	offset := time.Duration(sc.CreatedAt.UnixNano()) % every
	return EnsureSchedules(ctx, s.Client, []Schedule{{
		ID:         s.Names.ReportScheduleID(sc.ID),
		Every:      every,
		Offset:     offset,
		Workflow:   workflows.ScheduledReport,
		Args:       []any{activities.ReportScheduleRef{OrgID: sc.OrgID, ScheduleID: sc.ID}},
		TaskQueue:  s.Names.Default,
		WorkflowID: s.Names.ReportScheduleID(sc.ID) + "-run",
		Paused:     &paused,
	}})
}

// Delete removes the Temporal Schedule of schedule id; one already gone is
// no error.
func (s ReportSchedules) Delete(ctx context.Context, _ string, id string) error {
	return DeleteSchedule(ctx, s.Client, s.Names.ReportScheduleID(id))
}

// Trigger starts a run now (a paused schedule runs too: the user asked),
// even while a run is under way: the schedule's own overlap policy (skip)
// would drop it silently.
func (s ReportSchedules) Trigger(ctx context.Context, _ string, id string) error {
	return s.Client.ScheduleClient().GetHandle(ctx, s.Names.ReportScheduleID(id)).Trigger(ctx, client.ScheduleTriggerOptions{Overlap: enums.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL})
}

// Reports starts report generations on Temporal (reportsvc.Workflows).
type Reports struct {
	Client client.Client
	Names  workflows.Names
}

// GenerateReport starts the report's generation; the workflow id is the
// report id, so a report is generated once.
func (r Reports) GenerateReport(ctx context.Context, orgID, reportID string) error {
	return startOnce(ctx, r.Client, r.Names, reportID, workflows.GenerateReport, activities.ReportRef{OrgID: orgID, ReportID: reportID})
}
