package reportsvc

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/reports"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig(json.RawMessage(`{"level":"advanced","file_ids":[3,1],"date_from":"2026-10-01","date_to":"2026-10-31"}`))
	if err != nil {
		t.Fatal(err)
	}
	from, to, _ := c.Range()
	if c.Level != reports.Advanced || !from.Equal(time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)) || !to.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("config %+v, range %v – %v (date_to counts its whole day)", c, from, to)
	}
	if !c.Files() || c.Tables() {
		t.Errorf("file_ids alone: files %v tables %v, want files only", c.Files(), c.Tables())
	}
	if d, err := ParseConfig(nil); err != nil || d.Level != reports.Basic || !d.Files() || !d.Tables() {
		t.Errorf("no config: %+v %v", d, err)
	}
	for raw, want := range map[string]string{
		`{"levl":"basic"}`:           "unknown field",
		`{"level":"gold"}`:           "level",
		`{"file_ids":[0]}`:           "file_ids",
		`{"file_ids":"1"}`:           "wrong type",
		`{"date_from":"2026-13-01"}`: "date_from",
		`{"date_from":"2026-10-02","date_to":"2026-10-01"}`:       "before",
		`{"level":"basic"} {"level":"basic"}`:                     "one JSON object",
		`{"source_ids":[` + strings.Repeat("1,", 200) + `1]}`:     "at most 200",
		`{"date_from":"2026-10-01T00:00:00+02:00","date_to":"x"}`: "date_to",
	} {
		if _, err := ParseConfig(json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", raw, err, want)
		}
	}
}

func TestCosts(t *testing.T) {
	for _, c := range []struct {
		k    reports.Kind
		l    reports.Level
		want int64
	}{{reports.GDPRCompliance, reports.Basic, 5}, {reports.GDPRCompliance, reports.Advanced, 10},
		{reports.ExecutiveSummary, reports.Basic, 5}, {reports.ExecutiveSummary, reports.Advanced, 10},
		{reports.AIReadiness, reports.Basic, 0}, {reports.AIReadiness, reports.Advanced, 0}} {
		if got := Cost(c.k, c.l); got != c.want {
			t.Errorf("Cost(%s, %s) = %d, want %d", c.k, c.l, got, c.want)
		}
	}
}

// TestTrimColumns keeps personal columns first within the budget, each
// dataset's columns in their order.
func TestTrimColumns(t *testing.T) {
	col := func(name, cat string) reports.Column { return reports.Column{Name: name, Category: cat} }
	ds := []reports.Dataset{
		{Columns: []reports.Column{col("a", "none"), col("email", "personal"), col("b", "none")}},
		{Columns: []reports.Column{col("c", "none"), col("health", "special_category")}},
	}
	trimColumns(ds, 3)
	var got []string
	for _, d := range ds {
		for _, c := range d.Columns {
			got = append(got, c.Name)
		}
		got = append(got, "|")
	}
	if want := []string{"a", "email", "|", "health", "|"}; !reflect.DeepEqual(got, want) {
		t.Errorf("kept %v, want %v", got, want)
	}
}

func TestWorstIssues(t *testing.T) {
	in := []reports.Issue{{Kind: "i", Severity: "info", Count: 100}, {Kind: "w", Severity: "warning", Count: 1},
		{Kind: "c1", Severity: "critical", Count: 2}, {Kind: "c2", Severity: "critical", Count: 9}, {Kind: "x", Severity: "odd", Count: 50}}
	got := worstIssues(in, 3)
	if len(got) != 3 || got[0].Kind != "c2" || got[1].Kind != "c1" || got[2].Kind != "w" {
		t.Errorf("worst 3 = %+v", got)
	}
}

// TestNextRun: a schedule runs a whole number of periods after its
// creation; a disabled one has no next run.
func TestNextRun(t *testing.T) {
	created := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	sc := &models.ReportSchedule{Frequency: "monthly", Enabled: true, CreatedAt: created}
	for now, want := range map[time.Time]time.Time{
		created:                          created.AddDate(0, 0, 30),
		created.Add(29 * 24 * time.Hour): created.AddDate(0, 0, 30),
		created.AddDate(0, 0, 30):        created.AddDate(0, 0, 60),
		created.AddDate(0, 0, 95):        created.AddDate(0, 0, 120),
	} {
		if got := NextRun(sc, now); got == nil || !got.Equal(want) {
			t.Errorf("NextRun at %v = %v, want %v", now, got, want)
		}
	}
	sc.Enabled = false
	if NextRun(sc, created) != nil {
		t.Error("a disabled schedule has a next run")
	}
}

func TestRecipients(t *testing.T) {
	got, err := checkRecipients([]string{"a@example.com", "A@example.com", "b@example.com"})
	if err != nil || !reflect.DeepEqual(got, []string{"a@example.com", "b@example.com"}) {
		t.Errorf("recipients = %v, %v", got, err)
	}
	for _, bad := range [][]string{nil, {"not an address"}, {"Ann <a@example.com>"}, {"a@example.com\r\nBcc: x@example.com"},
		make([]string, MaxRecipients+1)} {
		if _, err := checkRecipients(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseConfig: any request body's config is accepted or refused with
// a 400, never a panic, and an accepted one round-trips through what is
// stored.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{`{}`, `null`, `{"level":"advanced","file_ids":[1,2],"date_from":"2026-01-01"}`,
		`{"source_ids":[1],"include_tables":false,"date_to":"2026-01-01T10:00:00Z"}`, `[`, `{"file_ids":[1e99]}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := ParseConfig(raw)
		if err != nil {
			if !strings.Contains(err.Error(), "config") {
				t.Fatalf("error %q does not say it is about config", err)
			}
			return
		}
		again, err := ParseConfig(json.RawMessage(c.JSON()))
		if err != nil || again.JSON() != c.JSON() {
			t.Fatalf("stored config %s reads back as %s, %v", c.JSON(), again.JSON(), err)
		}
	})
}
