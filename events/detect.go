package events

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/dqs/dqs/quality"
)

// ScoreChange is how many points a dataset's quality score must move from
// its previous analysis to raise quality_drop or quality_improved
// (DECISIONS.md).
const ScoreChange = 5.0

// scoreTolerance absorbs float rounding in score differences.
const scoreTolerance = 1e-9

// Analysis is what event detection needs of one analysed file. A dataset
// is identified by its file name within the organisation: the previous
// analysis is the latest earlier file of the same name.
type Analysis struct {
	FileID   int64
	JobID    string
	FileName string
	Score    float64
	Issues   []quality.Issue
	// PersonalColumns are the columns classified as personal data with
	// confidence at least 0.8.
	PersonalColumns []string
}

// Detect returns the events of cur's analysis, compared with prev (nil for
// a dataset seen for the first time): gdpr_detected when it holds personal
// data; quality_drop or quality_improved when the score moved ScoreChange
// points or more; new_issue for issues absent from the previous run (on a
// first run, every issue is new).
func Detect(orgID string, cur Analysis, prev *Analysis, at time.Time) []Event {
	var out []Event
	add := func(typ, title, text string) {
		out = append(out, Event{ID: fmt.Sprintf("%s/file/%d/%s", cur.JobID, cur.FileID, typ), Type: typ, OrgID: orgID,
			Title: title, Text: text, OccurredAt: at.UTC()})
	}
	if n := len(cur.PersonalColumns); n > 0 {
		add(GDPRDetected, fmt.Sprintf("Personal data found in %s", cur.FileName),
			fmt.Sprintf("%d column(s) of %s hold personal data: %s.\nJob %s, file %d.", n, cur.FileName, strings.Join(cur.PersonalColumns, ", "), cur.JobID, cur.FileID))
	}
	if prev != nil {
		// A tolerance keeps 64.1 → 59.1 exactly 5 points rather than the
		// 4.999999999999999 that float subtraction gives.
		delta := cur.Score - prev.Score
		switch {
		case delta <= -ScoreChange+scoreTolerance:
			add(QualityDrop, fmt.Sprintf("Quality of %s dropped %.1f points", cur.FileName, -delta),
				fmt.Sprintf("Quality score of %s fell from %.1f to %.1f since its previous analysis (file %d).\nJob %s, file %d.", cur.FileName, prev.Score, cur.Score, prev.FileID, cur.JobID, cur.FileID))
		case delta >= ScoreChange-scoreTolerance:
			add(QualityImproved, fmt.Sprintf("Quality of %s improved %.1f points", cur.FileName, delta),
				fmt.Sprintf("Quality score of %s rose from %.1f to %.1f since its previous analysis (file %d).\nJob %s, file %d.", cur.FileName, prev.Score, cur.Score, prev.FileID, cur.JobID, cur.FileID))
		}
	}
	if fresh := newIssues(cur, prev); len(fresh) > 0 {
		lines := make([]string, len(fresh))
		for i, is := range fresh {
			lines[i] = fmt.Sprintf("- %s in column %s (%s, %d values)", is.Kind, is.Column, is.Severity, is.Count)
			if is.Message != "" { // profiles stored before messages have none
				lines[i] += ": " + is.Message
			}
		}
		add(NewIssue, fmt.Sprintf("%d new quality issue(s) in %s", len(fresh), cur.FileName),
			strings.Join(lines, "\n")+fmt.Sprintf("\nJob %s, file %d.", cur.JobID, cur.FileID))
	}
	return out
}

// newIssues are cur's issues whose kind and column were not among prev's.
func newIssues(cur Analysis, prev *Analysis) []quality.Issue {
	seen := map[string]bool{}
	if prev != nil {
		for _, is := range prev.Issues {
			seen[is.Kind+"\x00"+is.Column] = true
		}
	}
	var out []quality.Issue
	for _, is := range cur.Issues {
		if !seen[is.Kind+"\x00"+is.Column] {
			out = append(out, is)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Column < out[j].Column })
	return out
}
