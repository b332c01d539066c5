// Package worker registers the workflows and activities with Temporal
// workers, one per task queue, and ensures the Temporal Schedules the
// service needs exist.
package worker

import (
	"context"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"time"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/retention"
	"github.com/dqs/dqs/workflows"
	"go.temporal.io/sdk/activity"
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

// shortActivityGrace is how long stopping a default-queue worker waits for
// its activities under way to finish.
const shortActivityGrace = 15 * time.Second

// Start starts a worker on each task queue that queues selects: on the
// default queue every workflow and the short activities, on the analysis
// queue the activities that read a whole file. A process polling both runs
// one worker per queue, so each queue has its own pollers and slots (and
// takes analyses still on the default queue, see below).
func Start(c client.Client, n workflows.Names, acts *activities.Activities, queues config.WorkerQueues) (*Workers, error) {
	if !queues.PollsDefault() && !queues.PollsAnalysis() {
		return nil, fmt.Errorf("worker queues %q: want all, default or analysis", queues)
	}
	ws := &Workers{}
	if queues.PollsDefault() {
		// Stopping waits for the short activities under way (an e-mail
		// being written, a webhook being sent) rather than abandoning them
		// to a retry after the activity timeout.
		w := sdkworker.New(c, n.Default, sdkworker.Options{WorkerStopTimeout: shortActivityGrace})
		w.RegisterWorkflow(workflows.SendVerificationEmail)
		w.RegisterWorkflow(workflows.PurgeExpiredCredentials)
		w.RegisterWorkflow(workflows.AnalyzeJob)
		w.RegisterWorkflow(workflows.KeepJobFiles)
		w.RegisterWorkflow(workflows.ReanalyzeFile)
		w.RegisterWorkflow(workflows.ApplyCorrections)
		w.RegisterWorkflow(workflows.SweepExpiredFiles)
		w.RegisterWorkflow(workflows.DeliverWebhook)
		w.RegisterWorkflow(workflows.ScanSource)
		w.RegisterWorkflow(workflows.ScheduledScan)
		w.RegisterWorkflow(workflows.GenerateReport)
		w.RegisterWorkflow(workflows.ScheduledReport)
		registerActivities(w, queueActivities(acts, false))
		if queues == config.AllQueues {
			// Releases before the analysis queue scheduled file analyses
			// here, and retries of one in progress at the upgrade stay
			// here; a process that runs analysis anyway still takes them.
			registerActivities(w, queueActivities(acts, true))
		}
		if err := ws.start(w, n.Default); err != nil {
			return nil, err
		}
	}
	if queues.PollsAnalysis() {
		w := sdkworker.New(c, n.Analysis, sdkworker.Options{})
		registerActivities(w, queueActivities(acts, true))
		if err := ws.start(w, n.Analysis); err != nil {
			return nil, err
		}
	}
	return ws, nil
}

// start starts w and keeps it; when it fails, the workers already started
// are stopped, so a failed Start leaves nothing polling.
func (ws *Workers) start(w sdkworker.Worker, queue string) error {
	if err := w.Start(); err != nil {
		ws.Stop()
		return fmt.Errorf("start worker on %s: %w", queue, err)
	}
	ws.list = append(ws.list, w)
	return nil
}

// analysisActivities are the activities that read a whole file and run on
// the analysis queue; the workflows schedule them there (onAnalysisQueue).
// Method expressions rather than names, so a rename is a compile error.
var analysisActivities = []any{
	(*activities.Activities).AnalyzeFile,
	(*activities.Activities).BeginScan,
	(*activities.Activities).ScanItem,
	(*activities.Activities).CreateScheduledScan,
	(*activities.Activities).DetectAnomalies,
	(*activities.Activities).BuildReport,
	(*activities.Activities).WriteCorrectedCopy,
	(*activities.Activities).SuggestCorrections,
}

// queueActivities returns the activities of one queue by name: the
// analysis activities, or every other exported method of Activities. The
// default queue takes "everything else" so that a new short activity needs
// no list of its own to be registered.
func queueActivities(acts *activities.Activities, analysis bool) map[string]any {
	long := map[string]bool{}
	for _, fn := range analysisActivities {
		long[methodName(fn)] = true
	}
	out := map[string]any{}
	v := reflect.ValueOf(acts)
	for i := range v.NumMethod() {
		name := v.Type().Method(i).Name
		if long[name] == analysis {
			out[name] = v.Method(i).Interface()
		}
	}
	return out
}

// methodName is the name of a method expression such as
// (*activities.Activities).AnalyzeFile: the last part of its symbol, which
// is also the activity type name the SDK gives it.
func methodName(fn any) string {
	full := runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return full[strings.LastIndex(full, ".")+1:]
}

func registerActivities(w sdkworker.Worker, acts map[string]any) {
	for name, fn := range acts {
		w.RegisterActivityWithOptions(fn, activity.RegisterOptions{Name: name})
	}
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
