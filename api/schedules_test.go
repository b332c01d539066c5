package api_test

// Scan schedules over the running service: each is a real Temporal
// Schedule on the dev server, triggered here instead of waiting a minute.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/workflows"
)

func TestScanSchedules(t *testing.T) {
	body, _ := pgScanSource(t)
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("sched"))
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, body).Data()
	base := fmt.Sprintf("/api/v1/sources/%v", src["id"])
	ctx := context.Background()
	names := workflows.NamesFor(env.Config.TemporalPrefix)
	describe := func(id float64) (*client.ScheduleDescription, error) {
		return env.App.Temporal.ScheduleClient().GetHandle(ctx, names.SourceScheduleID(int64(id))).Describe(ctx)
	}

	for _, bad := range []map[string]any{
		{},
		{"cron_expression": "every day"},
		{"cron_expression": "61 * * * *"},
		{"cron_expression": "0 2 * * * *"},
		{"cron_expression": "@daily"},
		{"cron_expression": "0 2 * * *", "sensitivity": "extreme"},
		{"cron_expression": "0 2 * * *", "tables": []string{""}},
	} {
		if r := env.Do("POST", base+"/schedules", user.Access, bad); r.Status != 400 || r.ErrorCode() != "bad_request" {
			t.Errorf("schedule %v = %d %s, want 400", bad, r.Status, r.Raw)
		}
	}

	sc := env.Must(201, "POST", base+"/schedules", user.Access, map[string]any{"cron_expression": "0 2 * * *", "tables": []string{"customers"}}).Data()
	next, _ := time.Parse(time.RFC3339, fmt.Sprint(sc["next_run_at"]))
	if sc["enabled"] != true || sc["sensitivity"] != "medium" || sc["last_run_at"] != nil || next.Hour() != 2 || next.Minute() != 0 || !next.After(time.Now()) {
		t.Fatalf("schedule = %v", sc)
	}
	desc, err := describe(sc["id"].(float64))
	if err != nil {
		t.Fatal(err)
	}
	// Temporal keeps a cron as a calendar: 02:00 every day, in UTC.
	if cal := desc.Schedule.Spec.Calendars; desc.Schedule.State.Paused || len(cal) != 1 || cal[0].Hour[0].Start != 2 || cal[0].Hour[0].End != 2 ||
		cal[0].Minute[0].Start != 0 || cal[0].Minute[0].End != 0 || desc.Schedule.Spec.TimeZoneName != "UTC" {
		t.Fatalf("Temporal schedule = %+v %+v", desc.Schedule.State, desc.Schedule.Spec)
	}

	// A run: the schedule triggered now scans the table it names.
	if err := env.App.Temporal.ScheduleClient().GetHandle(ctx, names.SourceScheduleID(int64(sc["id"].(float64)))).Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	var scan map[string]any
	deadline := time.Now().Add(60 * time.Second)
	for scan == nil || (scan["status"] != "completed" && scan["status"] != "failed") {
		if time.Now().After(deadline) {
			t.Fatalf("no scheduled scan completed: %v", scan)
		}
		time.Sleep(200 * time.Millisecond)
		if l := env.Must(200, "GET", base+"/scans", user.Access, nil).List(); len(l) > 0 {
			scan = l[0]
		}
	}
	if scan["status"] != "completed" || scan["schedule_id"] != sc["id"] || fmt.Sprint(scan["tables"]) != "[customers]" || scan["tables_scanned"] != float64(1) {
		t.Fatalf("scheduled scan = %v", scan)
	}
	list := env.Must(200, "GET", base+"/schedules", user.Access, nil).List()
	if len(list) != 1 || list[0]["last_run_at"] == nil || list[0]["last_run_status"] != "completed" {
		t.Fatalf("schedules after a run = %v", list)
	}

	// Disabled is paused; sensitivity for every schedule of the source.
	upd := env.Must(200, "PATCH", fmt.Sprintf("%s/schedules/%v", base, sc["id"]), user.Access, map[string]any{"enabled": false, "cron_expression": "*/15 * * * *"}).Data()
	if upd["enabled"] != false || upd["next_run_at"] != nil || upd["cron_expression"] != "*/15 * * * *" {
		t.Fatalf("disabled schedule = %v", upd)
	}
	if desc, err = describe(sc["id"].(float64)); err != nil || !desc.Schedule.State.Paused || desc.Schedule.Spec.Calendars[0].Minute[0].Step != 15 {
		t.Fatalf("Temporal schedule after disable = %+v, %v", desc, err)
	}
	if r := env.Do("PATCH", fmt.Sprintf("%s/schedules/%v", base, sc["id"]), user.Access, map[string]any{"cron_expression": "nope"}); r.Status != 400 {
		t.Fatalf("bad cron update = %d %s", r.Status, r.Raw)
	}
	sens := env.Must(200, "PATCH", base+"/schedule", user.Access, map[string]any{"sensitivity": "high"})
	if !strings.Contains(string(sens.Raw), `"sensitivity":"high"`) {
		t.Fatalf("sensitivity = %s", sens.Raw)
	}
	if r := env.Do("PATCH", base+"/schedule", user.Access, map[string]any{"sensitivity": "loud"}); r.Status != 400 {
		t.Fatalf("bad sensitivity = %d %s", r.Status, r.Raw)
	}
	later := env.Must(201, "POST", base+"/schedules", user.Access, map[string]any{"cron_expression": "0 3 * * 1"}).Data()
	if later["sensitivity"] != "high" {
		t.Fatalf("a schedule created later = %v, want the source's sensitivity", later)
	}

	// Another organisation sees none of it.
	other := env.Register(servicetest.Unique("schedother"))
	if r := env.Do("GET", base+"/schedules", other.Access, nil); r.Status != 404 {
		t.Fatalf("another organisation's schedules = %d", r.Status)
	}
	if r := env.Do("DELETE", fmt.Sprintf("%s/schedules/%v", base, later["id"]), other.Access, nil); r.Status != 404 {
		t.Fatalf("another organisation's delete = %d", r.Status)
	}

	// Deleting a schedule, then the source, deletes their Temporal Schedules.
	env.Must(200, "DELETE", fmt.Sprintf("%s/schedules/%v", base, later["id"]), user.Access, nil)
	var notFound *serviceerror.NotFound
	if _, err := describe(later["id"].(float64)); !errors.As(err, &notFound) {
		t.Fatalf("deleted schedule's Temporal Schedule: %v, want not found", err)
	}
	env.Must(200, "DELETE", base, user.Access, nil)
	if _, err := describe(sc["id"].(float64)); !errors.As(err, &notFound) {
		t.Fatalf("deleted source's Temporal Schedule: %v, want not found", err)
	}
}

// TestScheduledRunWithoutTokens: a run the balance cannot pay for fails on
// the schedule, and the schedule stays.
func TestScheduledRunWithoutTokens(t *testing.T) {
	body, _ := pgScanSource(t)
	env := servicetest.Start(t, servicetest.Options{Configure: allowLoopback})
	user := env.Register(servicetest.Unique("schedpoor"))
	src := env.Must(201, "POST", "/api/v1/sources", user.Access, body).Data()
	base := fmt.Sprintf("/api/v1/sources/%v", src["id"])
	sc := env.Must(201, "POST", base+"/schedules", user.Access, map[string]any{"cron_expression": "0 2 * * *"}).Data()
	ctx := context.Background()
	if _, err := env.App.Stores.Orgs.SpendTokens(ctx, user.OrgID, 99); err != nil {
		t.Fatal(err)
	}
	names := workflows.NamesFor(env.Config.TemporalPrefix)
	if err := env.App.Temporal.ScheduleClient().GetHandle(ctx, names.SourceScheduleID(int64(sc["id"].(float64)))).Trigger(ctx, client.ScheduleTriggerOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		l := env.Must(200, "GET", base+"/schedules", user.Access, nil).List()
		if l[0]["last_run_status"] == "failed" {
			if !strings.Contains(fmt.Sprint(l[0]["last_run_error"]), "tokens") || l[0]["enabled"] != true {
				t.Fatalf("schedule after a refused run = %v", l[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the refused run was not recorded: %v", l[0])
		}
		time.Sleep(200 * time.Millisecond)
	}
	if l := env.Must(200, "GET", base+"/scans", user.Access, nil).List(); len(l) != 0 {
		t.Fatalf("a refused run stored a scan: %v", l)
	}
	// The refusal is an alert of the source.
	alerts := env.Must(200, "GET", "/api/v1/alerts?type=scan_failure", user.Access, nil).List()
	if len(alerts) != 1 || alerts[0]["source_id"] != src["id"] || alerts[0]["severity"] != "warning" ||
		!strings.Contains(alerts[0]["message"].(string), "could not start") || !strings.Contains(alerts[0]["message"].(string), "tokens") {
		t.Fatalf("scan_failure alerts = %v, want one naming the refusal", alerts)
	}
}
