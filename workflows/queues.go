// Package workflows holds the Temporal workflow functions and their inputs.
// Workflow code is deterministic only: no I/O, no time.Now, no goroutines,
// no map iteration for order; workflow.GetVersion guards changes to a
// workflow that may be running.
package workflows

import (
	"strconv"
	"strings"
)

// Names are the task queue names and schedule ids of one deployment, in
// one place: the API starts work on these queues and the workers poll them.
// They derive from a prefix (DQS_TEMPORAL_PREFIX) so several deployments,
// or parallel tests, can share one Temporal namespace without picking up
// each other's tasks.
type Names struct {
	// Default carries every workflow and the short activities: e-mail,
	// database updates, webhooks, maintenance sweeps.
	Default string
	// Analysis carries the long activities, those that read a whole file,
	// so a long analysis never delays a verification e-mail.
	Analysis string
	// PurgeSchedule is the id of the daily credential purge schedule.
	PurgeSchedule string
	// RetentionSchedule is the id of the daily raw-file retention sweep.
	RetentionSchedule string
	// SourceSchedulePrefix starts the ids of the Temporal Schedules of
	// source schedules (SourceScheduleID).
	SourceSchedulePrefix string
	// ReportSchedulePrefix starts the ids of the Temporal Schedules of
	// report schedules (ReportScheduleID).
	ReportSchedulePrefix string
	// FilePrefix starts the ids of the workflows keyed by a file's id
	// (ReanalyzeFileID, ApplyCorrectionsID): ids from a deployment's own
	// database, which another deployment sharing the namespace also has.
	FilePrefix string
}

// ReanalyzeFileID is the id of the re-analysis of file id; one at a time
// per file.
func (n Names) ReanalyzeFileID(fileID int64) string {
	return n.FilePrefix + "reanalyze-" + strconv.FormatInt(fileID, 10)
}

// ApplyCorrectionsID is the id of the application that writes corrected
// copy copyID: one per copy, so a retried start joins it.
func (n Names) ApplyCorrectionsID(copyID int64) string {
	return n.FilePrefix + "apply-corrections-" + strconv.FormatInt(copyID, 10)
}

// ReportScheduleID is the id of the Temporal Schedule of report schedule
// id.
func (n Names) ReportScheduleID(id string) string { return n.ReportSchedulePrefix + id }

// SourceScheduleID is the id of the Temporal Schedule of source schedule
// id; the scans it starts are the workflows ScheduledScanWorkflowID names.
func (n Names) SourceScheduleID(id int64) string {
	return n.SourceSchedulePrefix + strconv.FormatInt(id, 10)
}

// DefaultPrefix is the prefix of a deployment that sets none.
const DefaultPrefix = "dqs"

const (
	defaultSuffix  = "-default"
	analysisSuffix = "-analysis"
)

// NamesFor returns the names under prefix.
func NamesFor(prefix string) Names {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return Names{
		Default:              prefix + defaultSuffix,
		Analysis:             analysisQueueOf(prefix + defaultSuffix),
		PurgeSchedule:        prefix + "-purge-expired-credentials",
		RetentionSchedule:    prefix + "-retention-sweep",
		SourceSchedulePrefix: prefix + "-source-schedule-",
		ReportSchedulePrefix: prefix + "-report-schedule-",
		FilePrefix:           prefix + "-file-",
	}
}

// TaskQueues lists every queue a full worker polls.
func (n Names) TaskQueues() []string { return []string{n.Default, n.Analysis} }

// analysisQueueOf is the analysis queue beside a default queue. Workflows
// run on the default queue and find their analysis queue from it, so the
// prefix need not travel in every workflow input, and a workflow already
// running when the analysis queue came in finds it too.
func analysisQueueOf(defaultQueue string) string {
	return strings.TrimSuffix(defaultQueue, defaultSuffix) + analysisSuffix
}
