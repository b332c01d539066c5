package activities

import (
	"testing"
	"time"

	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
)

// TestUploadAlert: which upload events are incidents, and how severe.
func TestUploadAlert(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	cur := events.Analysis{FileID: 9, JobID: "job_b", FileName: "people.csv", Score: 70}
	for _, c := range []struct {
		name      string
		prevScore float64
		first     bool
		typ       string
		want      string // severity, "" for no alert
	}{
		{"a drop of 25 points", 95, false, events.QualityDrop, models.SeverityCritical},
		{"a drop of exactly 20 points", 90, false, events.QualityDrop, models.SeverityCritical},
		{"a drop of 6 points", 76, false, events.QualityDrop, models.SeverityWarning},
		{"new issues since the last analysis", 70, false, events.NewIssue, models.SeverityWarning},
		{"issues of a first analysis", 0, true, events.NewIssue, ""},
		{"personal data", 70, false, events.GDPRDetected, ""},
		{"an improvement", 60, false, events.QualityImproved, ""},
	} {
		var prev *events.Analysis
		if !c.first {
			prev = &events.Analysis{FileID: 3, JobID: "job_a", FileName: "people.csv", Score: c.prevScore}
		}
		var found []events.Event
		for _, e := range events.Detect("org", cur, prev, at) {
			if e.Type == c.typ {
				found = append(found, e)
			}
		}
		if len(found) == 0 {
			// Detect makes a new_issue event only with issues: make one.
			found = append(found, events.Event{ID: "job_b/file/9/" + c.typ, Type: c.typ, Title: "t", Text: "line 1\nline 2", OccurredAt: at})
		}
		got := uploadAlert(found[0], &cur, prev)
		switch {
		case c.want == "" && got != nil:
			t.Errorf("%s: alert %+v, want none", c.name, got)
		case c.want != "" && (got == nil || got.Severity != c.want || got.Type != c.typ || *got.FileID != 9 || got.DedupKey != found[0].ID):
			t.Errorf("%s: alert %+v, want a %s %s alert of file 9 keyed by the event", c.name, got, c.want, c.typ)
		}
	}
}
