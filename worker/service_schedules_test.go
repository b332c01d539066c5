package worker

import (
	"context"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/internal/temporaltest"
	"github.com/dqs/dqs/workflows"
)

// TestSetupCreatesTheServiceSchedules: a worker's Setup leaves the
// service's own schedules on the server: the credential purge at 03:30 UTC
// and the raw-file retention sweep at 02:00 UTC (SPEC.md "Limits").
func TestSetupCreatesTheServiceSchedules(t *testing.T) {
	srv := temporaltest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	names := workflows.NamesFor("setup-test")
	for range 2 { // a restarted worker ensures them again without error
		if err := Setup(ctx, srv.Client, names); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		id           string
		workflow     string
		hour, minute int
	}{
		{names.RetentionSchedule, "SweepExpiredFiles", 2, 0},
		{names.PurgeSchedule, "PurgeExpiredCredentials", 3, 30},
	}
	for _, tc := range cases {
		desc, err := srv.Client.ScheduleClient().GetHandle(ctx, tc.id).Describe(ctx)
		if err != nil {
			t.Fatalf("schedule %s: %v", tc.id, err)
		}
		if desc.Schedule.Spec.TimeZoneName != "UTC" || len(desc.Info.NextActionTimes) == 0 {
			t.Fatalf("schedule %s spec = %+v", tc.id, desc.Schedule.Spec)
		}
		for _, next := range desc.Info.NextActionTimes {
			if u := next.UTC(); u.Hour() != tc.hour || u.Minute() != tc.minute || u.Second() != 0 {
				t.Errorf("schedule %s next runs at %v, want daily %02d:%02d UTC", tc.id, u, tc.hour, tc.minute)
			}
		}
		if len(desc.Info.NextActionTimes) > 1 {
			if gap := desc.Info.NextActionTimes[1].Sub(desc.Info.NextActionTimes[0]); gap != 24*time.Hour {
				t.Errorf("schedule %s runs every %s, want daily", tc.id, gap)
			}
		}
		action := desc.Schedule.Action.(*client.ScheduleWorkflowAction)
		if action.Workflow != tc.workflow || action.TaskQueue != names.Default {
			t.Errorf("schedule %s starts %v on %s, want %s on %s", tc.id, action.Workflow, action.TaskQueue, tc.workflow, names.Default)
		}
	}
}
