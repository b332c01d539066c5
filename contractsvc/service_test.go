package contractsvc

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/contracts"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// published records the events the service publishes: the service's own
// seam to the webhook bus, whose delivery the API tests check end to end
// with a real receiver.
type published struct {
	mu  sync.Mutex
	got []events.Event
}

func (p *published) Publish(_ context.Context, e events.Event) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, e)
	return nil
}

type fixture struct {
	svc    *Service
	events *published
	org    string
	src    *models.Source
}

func newFixture(t *testing.T, db *models.DB) *fixture {
	t.Helper()
	ctx := context.Background()
	stores := models.NewStores(db)
	org := &models.Organization{Name: "Acme"}
	if err := stores.Orgs.Create(ctx, org); err != nil {
		t.Fatal(err)
	}
	src := &models.Source{Name: "shop", Type: "postgresql", Config: "{}", CredentialsSealed: "sealed"}
	if err := stores.Sources.Create(ctx, org.ID, src); err != nil {
		t.Fatal(err)
	}
	p := &published{}
	at := time.Date(2026, 11, 27, 2, 0, 0, 0, time.UTC)
	return &fixture{svc: &Service{Stores: stores, Events: p, Now: func() time.Time { return at }}, events: p, org: org.ID, src: src}
}

// schedule stores a schedule of the fixture's source.
func (f *fixture) schedule(t *testing.T) int64 {
	t.Helper()
	sc := &models.SourceSchedule{SourceID: f.src.ID, CronExpression: "0 2 * * *", Tables: "[]", Enabled: true}
	if err := f.svc.Stores.SourceSchedules.Create(context.Background(), f.org, sc); err != nil {
		t.Fatal(err)
	}
	return sc.ID
}

// scan stores a scan of the fixture's source (scheduled when schedule is
// not 0) that measured table orders: rows and the e-mail column's null
// rate.
func (f *fixture) scan(t *testing.T, schedule int64, rows, nullRate float64) string {
	t.Helper()
	ctx := context.Background()
	sc := &models.Scan{SourceID: f.src.ID}
	if schedule != 0 {
		sc.ScheduleID = &schedule
	}
	if err := f.svc.Stores.Scans.Create(ctx, f.org, sc); err != nil {
		t.Fatal(err)
	}
	at := time.Now()
	points := []models.MetricPoint{
		{SourceID: f.src.ID, Metric: "row_count", Value: rows, RecordedAt: at},
		{SourceID: f.src.ID, ColumnName: "email", Metric: "null_rate", Value: nullRate, RecordedAt: at},
		{SourceID: f.src.ID, ColumnName: "email", Metric: "distinct_count", Value: rows, RecordedAt: at},
	}
	if err := f.svc.Stores.Scans.SaveTable(ctx, f.org, &models.ScanTable{ScanID: sc.ID, TableName: "orders", Rows: int64(rows)}, points); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Stores.Scans.Finish(ctx, f.org, sc.ID, models.ScanCompleted, "", 1, at); err != nil {
		t.Fatal(err)
	}
	return sc.ID
}

// stored reads scan id back as the scan activities hand it over.
func (f *fixture) stored(t *testing.T, id string) *models.Scan {
	t.Helper()
	sc, err := f.svc.Stores.Scans.Get(context.Background(), f.org, id)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func (f *fixture) contract(t *testing.T, name, table string, enabled bool) *Contract {
	t.Helper()
	rules := []contracts.Rule{
		{Metric: "row_count", Operator: ">=", Threshold: 900, Severity: "critical"},
		{Metric: "null_rate", Column: "email", Operator: "<=", Threshold: 0.05},
	}
	c, err := f.svc.Create(context.Background(), f.org, "user-1", Input{Name: &name, SourceID: &f.src.ID, TableName: &table,
		Enabled: &enabled, Rules: &rules})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (f *fixture) violations(t *testing.T) []models.Alert {
	t.Helper()
	list, _, err := f.svc.Stores.Alerts.List(context.Background(), f.org, models.AlertFilter{Type: models.AlertContractViolation}, models.Page{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// TestEvaluateScan: after a scheduled scan, the enabled contracts of the
// tables it measured are evaluated, one alert and event per contract and
// scan however often it runs; a manual scan evaluates nothing.
func TestEvaluateScan(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		orders := f.contract(t, "orders promise", "orders", true)
		f.contract(t, "paused", "orders", false)
		f.contract(t, "elsewhere", "customers", true)

		manual := f.scan(t, 0, 500, 0.8)
		if evs, err := f.svc.EvaluateScan(ctx, f.stored(t, manual)); err != nil || len(evs) != 0 {
			t.Fatalf("evaluations after a manual scan = %v, %v; want none", evs, err)
		}

		sched := f.schedule(t)
		broken := f.scan(t, sched, 500, 0.8)
		for range 2 {
			evs, err := f.svc.EvaluateScan(ctx, f.stored(t, broken))
			if err != nil || len(evs) != 1 {
				t.Fatalf("evaluations = %v, %v; want the one enabled contract of orders", evs, err)
			}
			ev := evs[0]
			if ev.ContractID != orders.ID || ev.Passed || ev.Failed != 2 || *ev.ScanID != broken || ev.AlertID == nil ||
				*ev.Results[0].Actual != 500 || *ev.Results[1].Actual != 0.8 {
				t.Fatalf("evaluation = %+v", ev)
			}
		}
		alerts := f.violations(t)
		want := `Contract "orders promise" on table orders (source shop) failed 2 of 2 rules: row_count >= 900 was 500; email.null_rate <= 0.05 was 0.8.`
		if len(alerts) != 1 || alerts[0].Severity != "critical" || alerts[0].Message != want || alerts[0].DedupKey != AlertKey(orders.ID, broken) ||
			*alerts[0].SourceID != f.src.ID {
			t.Fatalf("alerts = %+v, want one critical alert saying %q", alerts, want)
		}
		if len(f.events.got) != 2 || f.events.got[0].ID != f.events.got[1].ID || f.events.got[0].Type != events.ContractViolation {
			t.Fatalf("events = %+v, want the same event twice (delivered once by its id)", f.events.got)
		}

		// A healthy scheduled scan passes and raises nothing; the stored
		// last evaluation is the latest.
		healthy := f.scan(t, sched, 1000, 0.01)
		evs, err := f.svc.EvaluateScan(ctx, f.stored(t, healthy))
		if err != nil || len(evs) != 1 || !evs[0].Passed || evs[0].AlertID != nil {
			t.Fatalf("evaluation of a healthy scan = %+v, %v", evs, err)
		}
		got, err := f.svc.Get(ctx, f.org, orders.ID)
		if err != nil || got.Last == nil || *got.Last.ScanID != healthy || !got.Last.Passed {
			t.Fatalf("last evaluation = %+v, %v", got.Last, err)
		}
		if n := len(f.violations(t)); n != 1 {
			t.Fatalf("%d alerts after a healthy scan, want still 1", n)
		}
		// The contracts of tables the scans did not measure were left
		// alone: no evaluation recorded.
		list, _, err := f.svc.List(ctx, f.org, models.ContractFilter{Table: "customers"}, models.Page{Limit: 10})
		if err != nil || len(list) != 1 || list[0].Last != nil {
			t.Fatalf("contract of an unmeasured table = %+v, %v; want no evaluation", list, err)
		}
	})
}

// TestEvaluateOnDemand: read on demand, a violation raises its alert and
// publishes its event once however often it is read; a disabled contract
// answers and raises nothing.
func TestEvaluateOnDemand(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		orders := f.contract(t, "orders promise", "orders", true)
		paused := f.contract(t, "paused", "orders", false)
		f.scan(t, 0, 500, 0.8)
		for range 3 {
			ev, err := f.svc.Evaluate(ctx, f.org, orders.ID)
			if err != nil || ev.Failed != 2 || ev.AlertID == nil {
				t.Fatalf("evaluation = %+v, %v", ev, err)
			}
		}
		if len(f.events.got) != 1 {
			t.Fatalf("%d events after three reads, want 1", len(f.events.got))
		}
		ev, err := f.svc.Evaluate(ctx, f.org, paused.ID)
		if err != nil || ev.Failed != 2 || ev.AlertID != nil || len(f.violations(t)) != 1 {
			t.Fatalf("disabled contract's evaluation = %+v, %v; want failed rules and no alert", ev, err)
		}
	})
}

// TestContractChecks: what Create and Update refuse, and with which
// error.
func TestContractChecks(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		name, table := "c", "orders"
		rules := []contracts.Rule{{Metric: "null_rate", Column: "ghost", Operator: "<=", Threshold: 0.1}}
		in := Input{Name: &name, SourceID: &f.src.ID, TableName: &table, Rules: &rules}
		// Not scanned yet: any column is taken (it is checked once scanned).
		c, err := f.svc.Create(ctx, f.org, "u", in)
		if err != nil || c.RuleList[0].Severity != contracts.DefaultSeverity || !c.Enabled {
			t.Fatalf("create before a scan = %+v, %v", c, err)
		}
		f.scan(t, 0, 10, 0)
		if _, err := f.svc.Create(ctx, f.org, "u", in); !errors.Is(err, errs.ErrBadRequest) {
			t.Fatalf("a rule on a column the scan did not see = %v, want 400", err)
		}
		other := int64(999_999)
		if _, err := f.svc.Create(ctx, f.org, "u", Input{Name: &name, SourceID: &other, TableName: &table, Rules: &rules}); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("a contract of an unknown source = %v, want 404", err)
		}
		if _, err := f.svc.Update(ctx, f.org, c.ID, Input{SourceID: &other}); !errors.Is(err, errs.ErrBadRequest) {
			t.Fatalf("moving a contract = %v, want 400", err)
		}
		if _, err := f.svc.Get(ctx, "another-org", c.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("another organisation's contract = %v, want 404", err)
		}
		if ev, err := f.svc.Evaluate(ctx, f.org, c.ID); err != nil || ev.Passed || ev.Skipped != 1 || ev.AlertID != nil {
			t.Fatalf("evaluation with the rule's column gone = %+v, %v; want skipped, not passed", ev, err)
		}
		// Its column gone, the contract can still be renamed and disabled.
		off, renamed := false, "c2"
		if got, err := f.svc.Update(ctx, f.org, c.ID, Input{Name: &renamed, Enabled: &off}); err != nil || got.Enabled || got.Name != "c2" {
			t.Fatalf("disabling a contract whose column is gone = %+v, %v", got, err)
		}
	})
}

// TestConcurrentEdits: two edits of one contract at once, one renaming it
// and one disabling it, both land.
func TestConcurrentEdits(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		ctx := context.Background()
		for round := range 10 {
			c := f.contract(t, fmt.Sprint("c", round), "orders", true)
			name, off := fmt.Sprint("renamed", round), false
			var wg sync.WaitGroup
			errs := make([]error, 2)
			wg.Add(2)
			go func() { defer wg.Done(); _, errs[0] = f.svc.Update(ctx, f.org, c.ID, Input{Name: &name}) }()
			go func() { defer wg.Done(); _, errs[1] = f.svc.Update(ctx, f.org, c.ID, Input{Enabled: &off}) }()
			wg.Wait()
			got, err := f.svc.Get(ctx, f.org, c.ID)
			if errs[0] != nil || errs[1] != nil || err != nil || got.Name != name || got.Enabled {
				t.Fatalf("round %d: after a rename and a disable at once: %+v (%v, %v, %v)", round, got, errs[0], errs[1], err)
			}
		}
	})
}
