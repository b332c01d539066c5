// Package workflows holds the Temporal workflow functions and their inputs.
// Workflow code is deterministic only: no I/O, no time.Now, no goroutines,
// no map iteration for order; workflow.GetVersion guards changes to a
// workflow that may be running.
package workflows

// Names are the task queue names and schedule ids of one deployment, in
// one place: the API starts work on these queues and the workers poll them.
// They derive from a prefix (DQS_TEMPORAL_PREFIX) so several deployments,
// or parallel tests, can share one Temporal namespace without picking up
// each other's tasks.
type Names struct {
	// Default carries short tasks: e-mail, maintenance sweeps.
	Default string
	// PurgeSchedule is the id of the daily credential purge schedule.
	PurgeSchedule string
	// RetentionSchedule is the id of the daily raw-file retention sweep.
	RetentionSchedule string
}

// DefaultPrefix is the prefix of a deployment that sets none.
const DefaultPrefix = "dqs"

// NamesFor returns the names under prefix.
func NamesFor(prefix string) Names {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return Names{
		Default:           prefix + "-default",
		PurgeSchedule:     prefix + "-purge-expired-credentials",
		RetentionSchedule: prefix + "-retention-sweep",
	}
}

// TaskQueues lists every queue a full worker polls.
func (n Names) TaskQueues() []string { return []string{n.Default} }
