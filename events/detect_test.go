package events

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/quality"
)

// detectAt is a fixed instant in a non-UTC zone, so tests see that events
// carry it in UTC.
var detectAt = time.Date(2026, 11, 21, 15, 4, 5, 6000, time.FixedZone("CET", 3600))

func mkAnalysis(fileID int64, jobID string, score float64) Analysis {
	return Analysis{FileID: fileID, JobID: jobID, FileName: "sales.csv", Score: score}
}

func eventTypes(evs []Event) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

func eventOf(t *testing.T, evs []Event, typ string) Event {
	t.Helper()
	var found []Event
	for _, e := range evs {
		if e.Type == typ {
			found = append(found, e)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s events in %v, want 1", len(found), typ, eventTypes(evs))
	}
	return found[0]
}

func hasType(evs []Event, typ string) bool {
	return slices.Contains(eventTypes(evs), typ)
}

func TestDetectScoreThresholds(t *testing.T) {
	cases := []struct {
		name      string
		prev, cur float64
		want      string // "" for no score event
	}{
		{"fell exactly 5", 80, 75, QualityDrop},
		{"fell exactly 5 (one decimal)", 64.1, 59.1, QualityDrop},
		{"rose exactly 5 (one decimal)", 59.1, 64.1, QualityImproved},
		{"fell more than 5", 90, 40.5, QualityDrop},
		{"fell to zero", 100, 0, QualityDrop},
		{"fell 4.99", 80, 75.01, ""},
		{"fell 4.99 from fraction", 80.5, 75.51, ""},
		{"fell a little", 80, 79, ""},
		{"unchanged", 80, 80, ""},
		{"rose a little", 80, 81, ""},
		{"rose 4.99", 75, 79.99, ""},
		{"rose exactly 5", 75, 80, QualityImproved},
		{"rose more than 5", 10, 99.9, QualityImproved},
		{"rose from zero", 0, 100, QualityImproved},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			prev := mkAnalysis(1, "job_prev", tc.prev)
			cur := mkAnalysis(2, "job_cur", tc.cur)
			evs := Detect("org1", cur, &prev, detectAt)
			drop, up := hasType(evs, QualityDrop), hasType(evs, QualityImproved)
			switch tc.want {
			case QualityDrop:
				if !drop || up {
					t.Fatalf("%v -> %v: events %v, want quality_drop only", tc.prev, tc.cur, eventTypes(evs))
				}
			case QualityImproved:
				if drop || !up {
					t.Fatalf("%v -> %v: events %v, want quality_improved only", tc.prev, tc.cur, eventTypes(evs))
				}
			default:
				if drop || up {
					t.Fatalf("%v -> %v: events %v, want no score event", tc.prev, tc.cur, eventTypes(evs))
				}
			}
			if (tc.want == "" && len(evs) != 0) || (tc.want != "" && len(evs) != 1) {
				t.Fatalf("events %v: nothing but the score event expected (no issues, no personal data)", eventTypes(evs))
			}
		})
	}
}

func TestDetectScoreEventText(t *testing.T) {
	prev := mkAnalysis(7, "job_prev", 82.5)
	cur := mkAnalysis(9, "job_cur", 61.0)
	e := eventOf(t, Detect("org1", cur, &prev, detectAt), QualityDrop)
	for _, want := range []string{"sales.csv", "21.5"} {
		if !strings.Contains(e.Title, want) {
			t.Errorf("title %q does not contain %q", e.Title, want)
		}
	}
	for _, want := range []string{"82.5", "61.0", "job_cur"} {
		if !strings.Contains(e.Text, want) {
			t.Errorf("text %q does not contain %q", e.Text, want)
		}
	}

	prev, cur = mkAnalysis(7, "job_prev", 50), mkAnalysis(9, "job_cur", 70.2)
	e = eventOf(t, Detect("org1", cur, &prev, detectAt), QualityImproved)
	if !strings.Contains(e.Title, "sales.csv") || !strings.Contains(e.Title, "20.2") {
		t.Errorf("title %q should name the file and the points gained", e.Title)
	}
	if !strings.Contains(e.Text, "50.0") || !strings.Contains(e.Text, "70.2") {
		t.Errorf("text %q should give both scores", e.Text)
	}
}

func TestDetectNoScoreEventWithoutPrevious(t *testing.T) {
	for _, score := range []float64{0, 42, 100} {
		evs := Detect("org1", mkAnalysis(1, "job_a", score), nil, detectAt)
		if len(evs) != 0 {
			t.Fatalf("first analysis with score %v: events %v, want none", score, eventTypes(evs))
		}
	}
}

func TestDetectGDPR(t *testing.T) {
	cur := mkAnalysis(3, "job_a", 90)
	if evs := Detect("org1", cur, nil, detectAt); hasType(evs, GDPRDetected) {
		t.Fatalf("no personal columns (nil): events %v", eventTypes(evs))
	}
	cur.PersonalColumns = []string{}
	if evs := Detect("org1", cur, nil, detectAt); hasType(evs, GDPRDetected) {
		t.Fatalf("no personal columns (empty): events %v", eventTypes(evs))
	}

	cur.PersonalColumns = []string{"email", "phone_number"}
	evs := Detect("org1", cur, nil, detectAt)
	e := eventOf(t, evs, GDPRDetected)
	if len(evs) != 1 {
		t.Fatalf("events %v, want gdpr_detected only", eventTypes(evs))
	}
	if !strings.Contains(e.Title, "sales.csv") {
		t.Errorf("title %q should name the file", e.Title)
	}
	for _, col := range cur.PersonalColumns {
		if !strings.Contains(e.Text, col) {
			t.Errorf("text %q does not name column %q", e.Text, col)
		}
	}
	if !strings.Contains(e.Text, "2 column") {
		t.Errorf("text %q should count the columns", e.Text)
	}

	// Personal data is reported on every run, not only when it is new.
	prev := mkAnalysis(2, "job_prev", 90)
	prev.PersonalColumns = []string{"email", "phone_number"}
	if evs := Detect("org1", cur, &prev, detectAt); !hasType(evs, GDPRDetected) {
		t.Fatalf("with a previous analysis holding the same columns: events %v, want gdpr_detected", eventTypes(evs))
	}
}

func mkIssue(kind, column string, count int64) quality.Issue {
	return quality.Issue{Kind: kind, Column: column, Severity: "warning", Count: count}
}

func TestDetectNewIssues(t *testing.T) {
	prev := mkAnalysis(1, "job_prev", 80)
	prev.Issues = []quality.Issue{mkIssue("missing_values", "email", 3), mkIssue("duplicates", "id", 2)}

	cur := mkAnalysis(2, "job_cur", 80)
	cur.Issues = []quality.Issue{
		mkIssue("missing_values", "email", 99), // same pair, other count: not new
		mkIssue("missing_values", "phone", 4),  // same kind, other column: new
		{Kind: "invalid_format", Column: "email", Severity: "warning", Count: 5, // other kind, same column: new
			Message: "5 of 50 values of \"email\" (10.0%) do not have the column's usual format."},
		mkIssue("duplicates", "id", 2), // unchanged: not new
	}
	evs := Detect("org1", cur, &prev, detectAt)
	if len(evs) != 1 {
		t.Fatalf("events %v, want new_issue only", eventTypes(evs))
	}
	e := eventOf(t, evs, NewIssue)
	if !strings.Contains(e.Title, "2 new") || !strings.Contains(e.Title, "sales.csv") {
		t.Errorf("title %q should count 2 new issues and name the file", e.Title)
	}
	for _, want := range []string{"missing_values in column phone (warning, 4 values)\n",
		"invalid_format in column email (warning, 5 values): 5 of 50 values of \"email\" (10.0%) do not have the column's usual format."} {
		if !strings.Contains(e.Text, want) {
			t.Errorf("text %q does not list %q", e.Text, want)
		}
	}
	for _, unwanted := range []string{"missing_values in column email", "duplicates in column id"} {
		if strings.Contains(e.Text, unwanted) {
			t.Errorf("text %q lists %q, which the previous run already had", e.Text, unwanted)
		}
	}
	if n := strings.Count(e.Text, "\n- ") + boolInt(strings.HasPrefix(e.Text, "- ")); n != 2 {
		t.Errorf("text %q lists %d issues, want 2", e.Text, n)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestDetectNewIssuesFirstRun(t *testing.T) {
	cur := mkAnalysis(2, "job_cur", 80)
	cur.Issues = []quality.Issue{mkIssue("missing_values", "email", 3), mkIssue("missing_values", "phone", 4), mkIssue("duplicates", "id", 2)}
	evs := Detect("org1", cur, nil, detectAt)
	e := eventOf(t, evs, NewIssue)
	if !strings.Contains(e.Title, "3 new") {
		t.Errorf("title %q should count all 3 issues as new on a first run", e.Title)
	}
	for _, want := range []string{"missing_values in column email", "missing_values in column phone", "duplicates in column id"} {
		if !strings.Contains(e.Text, want) {
			t.Errorf("text %q does not list %q", e.Text, want)
		}
	}
}

func TestDetectNoNewIssueEvent(t *testing.T) {
	prev := mkAnalysis(1, "job_prev", 80)
	prev.Issues = []quality.Issue{mkIssue("missing_values", "email", 3), mkIssue("duplicates", "id", 2)}

	cur := mkAnalysis(2, "job_cur", 80)
	cur.Issues = []quality.Issue{mkIssue("missing_values", "email", 7)}
	if evs := Detect("org1", cur, &prev, detectAt); len(evs) != 0 {
		t.Fatalf("only known issues: events %v, want none", eventTypes(evs))
	}
	cur.Issues = nil
	if evs := Detect("org1", cur, &prev, detectAt); len(evs) != 0 {
		t.Fatalf("no issues: events %v, want none", eventTypes(evs))
	}
	if evs := Detect("org1", cur, nil, detectAt); len(evs) != 0 {
		t.Fatalf("first run without issues: events %v, want none", eventTypes(evs))
	}
}

// everything is an analysis raising gdpr_detected, quality_drop and new_issue.
func everything(fileID int64, jobID string) (Analysis, *Analysis) {
	prev := mkAnalysis(fileID-1, "job_prev", 90)
	cur := mkAnalysis(fileID, jobID, 50)
	cur.PersonalColumns = []string{"email"}
	cur.Issues = []quality.Issue{mkIssue("missing_values", "email", 1)}
	return cur, &prev
}

func TestDetectEventFields(t *testing.T) {
	cur, prev := everything(12, "job_abc")
	evs := Detect("org-42", cur, prev, detectAt)
	if got, want := eventTypes(evs), []string{GDPRDetected, QualityDrop, NewIssue}; !sameSet(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	ids := map[string]bool{}
	for _, e := range evs {
		if e.OrgID != "org-42" {
			t.Errorf("%s: OrgID %q", e.Type, e.OrgID)
		}
		if !Known(e.Type) {
			t.Errorf("unknown type %q", e.Type)
		}
		if !e.OccurredAt.Equal(detectAt) || e.OccurredAt.Location() != time.UTC {
			t.Errorf("%s: OccurredAt %v, want %v in UTC", e.Type, e.OccurredAt, detectAt.UTC())
		}
		if e.ID == "" || ids[e.ID] {
			t.Errorf("%s: ID %q empty or shared", e.Type, e.ID)
		}
		ids[e.ID] = true
		if e.Title == "" || strings.ContainsAny(e.Title, "\r\n") {
			t.Errorf("%s: title %q is not one line", e.Type, e.Title)
		}
		if e.Text == "" {
			t.Errorf("%s: empty text", e.Type)
		}
	}
	// The same for quality_improved.
	prev.Score = 10
	for _, e := range Detect("org-42", cur, prev, detectAt) {
		if e.Title == "" || strings.ContainsAny(e.Title, "\r\n") {
			t.Errorf("%s: title %q is not one line", e.Type, e.Title)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestDetectIDsStable(t *testing.T) {
	cur, prev := everything(12, "job_abc")
	first := Detect("org-42", cur, prev, detectAt)
	// A retried activity detects again, later: same ids.
	again := Detect("org-42", cur, prev, detectAt.Add(time.Hour))
	if len(first) != 3 || len(again) != 3 {
		t.Fatalf("events %v and %v, want 3 each", eventTypes(first), eventTypes(again))
	}
	for i := range first {
		if first[i].ID != again[i].ID || first[i].Type != again[i].Type {
			t.Fatalf("event %d: %s/%s then %s/%s", i, first[i].Type, first[i].ID, again[i].Type, again[i].ID)
		}
	}
	if !reflect.DeepEqual(first, Detect("org-42", cur, prev, detectAt)) {
		t.Fatal("Detect is not deterministic for the same input")
	}

	// Another file of the same job, or the same file id in another job,
	// gets other ids.
	ids := map[string]string{}
	for _, e := range first {
		ids[e.ID] = "file 12 " + e.Type
	}
	otherFile, otherPrev := everything(13, "job_abc")
	otherJob, otherJobPrev := everything(12, "job_def")
	for _, evs := range [][]Event{Detect("org-42", otherFile, otherPrev, detectAt), Detect("org-42", otherJob, otherJobPrev, detectAt)} {
		for _, e := range evs {
			if prevUse, dup := ids[e.ID]; dup {
				t.Fatalf("id %q of %s already used by %s", e.ID, e.Type, prevUse)
			}
			ids[e.ID] = e.Type
		}
	}

	// quality_improved has its own id, not quality_drop's.
	prev.Score = 10
	up := eventOf(t, Detect("org-42", cur, prev, detectAt), QualityImproved)
	if _, dup := ids[up.ID]; dup {
		t.Fatalf("quality_improved id %q shared with %s", up.ID, ids[up.ID])
	}
}

func TestTypesAndKnown(t *testing.T) {
	want := []string{"quality_drop", "quality_improved", "gdpr_detected", "new_issue", "scan_failure", "contract_violation"}
	if !reflect.DeepEqual(Types, want) {
		t.Fatalf("Types = %v, want %v", Types, want)
	}
	for _, typ := range want {
		if !Known(typ) {
			t.Errorf("Known(%q) = false", typ)
		}
	}
	for _, typ := range []string{"", "QUALITY_DROP", "quality", "quality_drop ", "unknown"} {
		if Known(typ) {
			t.Errorf("Known(%q) = true", typ)
		}
	}
	consts := []string{QualityDrop, QualityImproved, GDPRDetected, NewIssue, ScanFailure, ContractViolation}
	if !reflect.DeepEqual(consts, want) {
		t.Fatalf("constants = %v, want %v", consts, want)
	}
}

func TestDefaultSubscription(t *testing.T) {
	want := []string{"quality_drop", "gdpr_detected", "new_issue", "scan_failure"}
	if !sameSet(DefaultSubscription, want) || len(DefaultSubscription) != len(want) {
		t.Fatalf("DefaultSubscription = %v, want exactly %v", DefaultSubscription, want)
	}
	for _, typ := range DefaultSubscription {
		if !Known(typ) {
			t.Errorf("default type %q is not known", typ)
		}
	}
}
