// Package workflows holds the Temporal workflow functions and their inputs.
// Workflow code is deterministic only: no I/O, no time.Now, no goroutines,
// no map iteration for order; workflow.GetVersion guards changes to a
// workflow that may be running.
package workflows

// Task queues, in one place: the API starts work on them and workers poll
// them. Later capabilities add queues (e.g. heavy analysis) so they can be
// scaled apart.
const (
	// TaskQueueDefault carries short tasks: e-mail, maintenance sweeps.
	TaskQueueDefault = "dqs-default"
)

// TaskQueues lists every queue a full worker polls.
var TaskQueues = []string{TaskQueueDefault}
