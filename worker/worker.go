// Package worker registers the workflows and activities with Temporal
// workers, one per task queue, and ensures the Temporal Schedules the
// service needs exist.
package worker

import (
	"context"
	"fmt"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/retention"
	"github.com/dqs/dqs/workflows"
	"go.temporal.io/sdk/client"
	sdkworker "go.temporal.io/sdk/worker"
)

// Schedules are the recurring workflows of the service.
func Schedules(n workflows.Names) []Schedule {
	return []Schedule{
		{
			ID:        n.PurgeSchedule,
			Cron:      "30 3 * * *",
			Workflow:  workflows.PurgeExpiredCredentials,
			TaskQueue: n.Default,
			Note:      "Deletes expired refresh and e-mail verification tokens daily at 03:30 UTC.",
		},
		{
			ID:        n.RetentionSchedule,
			Cron:      fmt.Sprintf("0 %d * * *", retention.SweepHourUTC),
			Workflow:  workflows.SweepExpiredFiles,
			TaskQueue: n.Default,
			Note:      "Deletes the raw files of jobs whose retention expired, daily at 02:00 UTC; catches any a job's own timer missed.",
		},
	}
}

// Workers are the running Temporal workers of one process.
type Workers struct{ list []sdkworker.Worker }

// Start registers everything on a worker per task queue and starts them.
func Start(c client.Client, n workflows.Names, acts *activities.Activities) (*Workers, error) {
	w := sdkworker.New(c, n.Default, sdkworker.Options{})
	w.RegisterWorkflow(workflows.SendVerificationEmail)
	w.RegisterWorkflow(workflows.PurgeExpiredCredentials)
	w.RegisterWorkflow(workflows.AnalyzeJob)
	w.RegisterWorkflow(workflows.ReanalyzeFile)
	w.RegisterWorkflow(workflows.SweepExpiredFiles)
	w.RegisterWorkflow(workflows.DeliverWebhook)
	w.RegisterActivity(acts)
	if err := w.Start(); err != nil {
		return nil, fmt.Errorf("start worker on %s: %w", n.Default, err)
	}
	return &Workers{list: []sdkworker.Worker{w}}, nil
}

// Stop stops every worker, letting running activities finish first.
func (ws *Workers) Stop() {
	for _, w := range ws.list {
		w.Stop()
	}
}

// Setup ensures the schedules; a worker runs it at start.
func Setup(ctx context.Context, c client.Client, n workflows.Names) error {
	return EnsureSchedules(ctx, c, Schedules(n))
}
