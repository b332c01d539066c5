// Package retention decides when a job's raw files expire and deletes them
// in the one order SPEC.md allows: audit entry, storage objects, then the
// records, so a failure part-way never looks like a deletion.
//
// Three callers share it: the AnalyzeJob workflow's durable timer, the
// daily sweep schedule, and DELETE /api/v1/jobs/{job_id}/files.
package retention

import "time"

// Retention modes of a job (SPEC.md "Job").
const (
	// AnalysisOnly keeps raw files exactly one day after completion.
	AnalysisOnly = "analysis_only"
	// ShortTerm keeps them retention_days (1–365) after completion.
	ShortTerm = "short_term"
	// FullRetention keeps them until a user deletes them.
	FullRetention = "full_retention"
)

// Modes lists the modes in the order the documentation names them.
var Modes = []string{AnalysisOnly, ShortTerm, FullRetention}

// Day limits of short_term.
const (
	MinDays = 1
	MaxDays = 365
)

// SweepHourUTC is the hour of the daily sweep; a timer waits for the same
// hour, so a file is deleted at most about a day after it expired and
// deletions happen in one quiet window.
const SweepHourUTC = 2

// Policy turns a job's retention settings into times.
type Policy struct {
	// Day is the length of one retention day: 24 hours, except in tests
	// that shorten it (DQS_TEST_RETENTION_DAY).
	Day time.Duration
	// Unaligned deletes right at expiry instead of waiting for the next
	// 02:00 UTC; only a shortened test day sets it, since nobody can wait
	// for 02:00 in a test.
	Unaligned bool
}

// Production is the policy of SPEC.md: 24-hour days, deletion at 02:00 UTC.
func Production() Policy { return Policy{Day: 24 * time.Hour} }

// ForTests is a policy with a shortened day and no 02:00 alignment.
func ForTests(day time.Duration) Policy { return Policy{Day: day, Unaligned: true} }

// Days is the number of days a job keeps its raw files, or 0 for never
// expiring: analysis_only is always 1, full_retention never expires.
func Days(mode string, days int) int {
	switch mode {
	case AnalysisOnly:
		return 1
	case FullRetention:
		return 0
	}
	return days
}

// ExpiresAt is when a job completed at completed stops needing its raw
// files; ok is false when they never expire.
func (p Policy) ExpiresAt(completed time.Time, mode string, days int) (at time.Time, ok bool) {
	n := Days(mode, days)
	if n <= 0 {
		return time.Time{}, false
	}
	return completed.UTC().Add(time.Duration(n) * p.Day), true
}

// DeleteAt is when files that expire at expires are deleted: the first
// 02:00 UTC at or after the expiry (SPEC.md: a file may outlive its expiry
// by some hours, never less than its configured retention).
func (p Policy) DeleteAt(expires time.Time) time.Time {
	expires = expires.UTC()
	if p.Unaligned {
		return expires
	}
	at := time.Date(expires.Year(), expires.Month(), expires.Day(), SweepHourUTC, 0, 0, 0, time.UTC)
	if at.Before(expires) {
		at = at.AddDate(0, 0, 1)
	}
	return at
}
