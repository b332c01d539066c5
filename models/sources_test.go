package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// --- helpers ---------------------------------------------------------------

// allRows is a page that holds every row the tests create.
var allRows = models.Page{Limit: 1000}

func srcCreate(t *testing.T, s *models.Stores, orgID, name string) *models.Source {
	t.Helper()
	src := &models.Source{Name: name, Type: "postgresql", Config: `{"schema":"public"}`,
		CredentialsSealed: "v1b:sealed-" + name, CreatedBy: "user-1"}
	if err := s.Sources.Create(context.Background(), orgID, src); err != nil {
		t.Fatalf("create source %s: %v", name, err)
	}
	return src
}

func srcNames(srcs []models.Source) []string {
	out := []string{}
	for _, src := range srcs {
		out = append(out, src.Name)
	}
	return out
}

func schedCreate(t *testing.T, s *models.Stores, orgID string, sourceID int64, cron string) *models.SourceSchedule {
	t.Helper()
	sc := &models.SourceSchedule{SourceID: sourceID, CronExpression: cron, Enabled: true}
	if err := s.SourceSchedules.Create(context.Background(), orgID, sc); err != nil {
		t.Fatalf("create schedule: %v", err)
	}
	return sc
}

func scanCreate(t *testing.T, s *models.Stores, orgID string, sourceID int64) *models.Scan {
	t.Helper()
	sc := &models.Scan{SourceID: sourceID, EstimatedTokens: 3}
	if err := s.Scans.Create(context.Background(), orgID, sc); err != nil {
		t.Fatalf("create scan: %v", err)
	}
	return sc
}

// countRows counts the rows of model's table matching where, bypassing
// the stores.
func countRows(t *testing.T, db *models.DB, model any, where string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.Gorm.Model(model).Where(where, args...).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

func sameInstant(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// --- Sources -----------------------------------------------------------------

func TestSourcesCRUD(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		before := time.Now().UTC().Add(-time.Second)

		src := &models.Source{ID: 999, OrgID: other.ID, Name: "warehouse", Type: "postgresql",
			CredentialsSealed: "v1b:x", CreatedBy: "user-1", LastScanStatus: "completed"}
		if err := s.Sources.Create(ctx, org.ID, src); err != nil {
			t.Fatal(err)
		}
		if src.ID == 0 || src.ID == 999 || src.OrgID != org.ID || src.Status != models.SourceActive || src.Config != "{}" ||
			src.LastScanStatus != "" || src.CreatedAt.Before(before) || !src.UpdatedAt.Equal(src.CreatedAt) {
			t.Fatalf("created source = %+v", src)
		}
		got, err := s.Sources.Get(ctx, org.ID, src.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != "warehouse" || got.Type != "postgresql" || got.Config != "{}" || got.CredentialsSealed != "v1b:x" ||
			got.Status != models.SourceActive || got.CreatedBy != "user-1" || got.LastScanAt != nil || got.LastScanStatus != "" ||
			!got.CreatedAt.Equal(src.CreatedAt) {
			t.Fatalf("stored source = %+v", got)
		}

		// Another organisation's id looks missing everywhere.
		if _, err := s.Sources.Get(ctx, other.ID, src.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("Get from other org: %v", err)
		}
		wantErr(t, mustErr(s.Sources.Update(ctx, other.ID, src.ID, models.SourceUpdate{Name: ptr("stolen")})), errs.ErrNotFound)
		wantErr(t, s.Sources.Delete(ctx, other.ID, src.ID), errs.ErrNotFound)
		wantErr(t, s.Sources.RecordScan(ctx, other.ID, src.ID, models.ScanCompleted, time.Now()), errs.ErrNotFound)
		if got, _ := s.Sources.Get(ctx, org.ID, src.ID); got.Name != "warehouse" || got.LastScanAt != nil {
			t.Fatalf("another org's calls changed the source: %+v", got)
		}

		// List: newest first, paged, the organisation's only.
		b := srcCreate(t, s, org.ID, "b")
		c := srcCreate(t, s, org.ID, "c")
		srcCreate(t, s, other.ID, "theirs")
		list, total, err := s.Sources.List(ctx, org.ID, allRows)
		if err != nil {
			t.Fatal(err)
		}
		if total != 3 || !slices.Equal(srcNames(list), []string{"c", "b", "warehouse"}) {
			t.Fatalf("List = %v (total %d)", srcNames(list), total)
		}
		page, total, _ := s.Sources.List(ctx, org.ID, models.Page{Limit: 1, Offset: 1})
		if total != 3 || !slices.Equal(srcNames(page), []string{"b"}) {
			t.Fatalf("page 2 of 1 = %v (total %d)", srcNames(page), total)
		}
		if list, total, _ := s.Sources.List(ctx, other.ID, allRows); total != 1 || !slices.Equal(srcNames(list), []string{"theirs"}) {
			t.Fatalf("other org's List = %v (total %d)", srcNames(list), total)
		}

		// Update is partial.
		time.Sleep(2 * time.Millisecond)
		up, err := s.Sources.Update(ctx, org.ID, b.ID, models.SourceUpdate{Config: ptr(`{"schema":"sales"}`)})
		if err != nil {
			t.Fatal(err)
		}
		if up.Name != "b" || up.Config != `{"schema":"sales"}` || up.CredentialsSealed != "v1b:sealed-b" || up.Status != models.SourceActive ||
			!up.UpdatedAt.After(b.UpdatedAt) || !up.CreatedAt.Equal(b.CreatedAt) {
			t.Fatalf("after config update = %+v", up)
		}
		up, err = s.Sources.Update(ctx, org.ID, b.ID, models.SourceUpdate{Name: ptr("b2"), CredentialsSealed: ptr("v1b:new"), Status: ptr("paused")})
		if err != nil {
			t.Fatal(err)
		}
		if up.Name != "b2" || up.Config != `{"schema":"sales"}` || up.CredentialsSealed != "v1b:new" || up.Status != "paused" {
			t.Fatalf("after update = %+v", up)
		}
		if up, err := s.Sources.Update(ctx, org.ID, b.ID, models.SourceUpdate{}); err != nil || up.Name != "b2" {
			t.Fatalf("empty update = %+v, %v", up, err)
		}
		// Keeping its own name is no conflict; taking another's is.
		if _, err := s.Sources.Update(ctx, org.ID, b.ID, models.SourceUpdate{Name: ptr("b2")}); err != nil {
			t.Fatal(err)
		}
		_, err = s.Sources.Update(ctx, org.ID, b.ID, models.SourceUpdate{Name: ptr("c")})
		wantErr(t, err, errs.ErrConflict)
		if !strings.Contains(err.Error(), `"c" already exists`) {
			t.Fatalf("conflict message = %v", err)
		}
		// A name of another organisation is free.
		if _, err := s.Sources.Update(ctx, org.ID, c.ID, models.SourceUpdate{Name: ptr("theirs")}); err != nil {
			t.Fatal(err)
		}
		wantErr(t, mustErr(s.Sources.Update(ctx, org.ID, 123456, models.SourceUpdate{Name: ptr("x")})), errs.ErrNotFound)

		// Delete.
		if err := s.Sources.Delete(ctx, org.ID, c.ID); err != nil {
			t.Fatal(err)
		}
		wantErr(t, mustErr(s.Sources.Get(ctx, org.ID, c.ID)), errs.ErrNotFound)
		wantErr(t, s.Sources.Delete(ctx, org.ID, c.ID), errs.ErrNotFound)
		if _, total, _ := s.Sources.List(ctx, org.ID, allRows); total != 2 {
			t.Fatalf("after delete total = %d", total)
		}
	})
}

// mustErr drops the value of a (value, error) pair.
func mustErr[T any](_ T, err error) error { return err }

func TestSourcesNameIsUniquePerOrganisation(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		srcCreate(t, s, org.ID, "prod")
		dup := &models.Source{Name: "prod", Type: "s3"}
		err := s.Sources.Create(ctx, org.ID, dup)
		wantErr(t, err, errs.ErrConflict)
		if !strings.Contains(err.Error(), `a source named "prod" already exists`) {
			t.Fatalf("conflict message = %v", err)
		}
		srcCreate(t, s, other.ID, "prod")
		// Names are compared exactly.
		srcCreate(t, s, org.ID, "Prod")
	})
}

func TestSourcesConcurrentCreateOfOneName(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		for round := range 5 {
			name := fmt.Sprintf("race-%d", round)
			const n = 4
			errsOut := make([]error, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					errsOut[i] = s.Sources.Create(ctx, org.ID, &models.Source{Name: name, Type: "postgresql"})
				}()
			}
			close(start)
			wg.Wait()
			ok := 0
			for _, err := range errsOut {
				switch {
				case err == nil:
					ok++
				case errors.Is(err, errs.ErrConflict) && errs.Public(err).Status == 409:
				default:
					t.Fatalf("round %d: concurrent create err = %v, want nil or a conflict", round, err)
				}
			}
			if ok != 1 {
				t.Fatalf("round %d: %d creations of one name succeeded, want 1 (%v)", round, ok, errsOut)
			}
			if n := countRows(t, db, &models.Source{}, "org_id = ? AND name = ?", org.ID, name); n != 1 {
				t.Fatalf("round %d: %d rows named %s", round, n, name)
			}
		}
	})
}

func TestSourcesLimit(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		if models.MaxSources != 100 {
			t.Fatalf("MaxSources = %d, want 100", models.MaxSources)
		}
		var first *models.Source
		for i := range models.MaxSources {
			src := srcCreate(t, s, org.ID, fmt.Sprintf("s%03d", i))
			if first == nil {
				first = src
			}
		}
		err := s.Sources.Create(ctx, org.ID, &models.Source{Name: "one-too-many", Type: "s3"})
		wantErr(t, err, errs.ErrLimitExceeded)
		if !strings.Contains(err.Error(), "at most 100 data sources") {
			t.Fatalf("limit message = %v", err)
		}
		// Another organisation is not affected; a deletion frees a place.
		srcCreate(t, s, other.ID, "theirs")
		if err := s.Sources.Delete(ctx, org.ID, first.ID); err != nil {
			t.Fatal(err)
		}
		srcCreate(t, s, org.ID, "one-too-many")
	})
}

// sourceWorld is a source with a row of every kind hanging off it.
type sourceWorld struct {
	src   *models.Source
	sched *models.SourceSchedule
	scan  *models.Scan
}

func buildSourceWorld(t *testing.T, s *models.Stores, orgID, name string) sourceWorld {
	t.Helper()
	ctx := context.Background()
	src := srcCreate(t, s, orgID, name)
	sched := schedCreate(t, s, orgID, src.ID, "0 * * * *")
	scan := &models.Scan{SourceID: src.ID, ScheduleID: &sched.ID}
	if err := s.Scans.Create(ctx, orgID, scan); err != nil {
		t.Fatal(err)
	}
	if err := s.Scans.AddTable(ctx, orgID, &models.ScanTable{ScanID: scan.ID, TableName: "orders", Rows: 10}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DiscoveredFiles.Sync(ctx, orgID, src.ID, []models.ListedObject{{Key: "a.csv", ETag: "e1", LastModified: testNow()}}, testNow()); err != nil {
		t.Fatal(err)
	}
	err := s.MetricPoints.Record(ctx, orgID, []models.MetricPoint{{SourceID: src.ID, ScanID: scan.ID, TableName: "orders", Metric: "row_count", Value: 10}})
	if err != nil {
		t.Fatal(err)
	}
	return sourceWorld{src, sched, scan}
}

func TestSourcesDeleteCascades(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		gone := buildSourceWorld(t, s, org.ID, "gone")
		kept := buildSourceWorld(t, s, org.ID, "kept")
		theirs := buildSourceWorld(t, s, other.ID, "gone")
		if err := s.Sources.Delete(ctx, org.ID, gone.src.ID); err != nil {
			t.Fatal(err)
		}
		for _, w := range []struct {
			world sourceWorld
			orgID string
			want  int64
		}{{gone, org.ID, 0}, {kept, org.ID, 1}, {theirs, other.ID, 1}} {
			id := w.world.src.ID
			counts := map[string]int64{
				"sources":          countRows(t, db, &models.Source{}, "id = ?", id),
				"source_schedules": countRows(t, db, &models.SourceSchedule{}, "source_id = ?", id),
				"scans":            countRows(t, db, &models.Scan{}, "source_id = ?", id),
				"scan_tables":      countRows(t, db, &models.ScanTable{}, "scan_id = ?", w.world.scan.ID),
				"discovered_files": countRows(t, db, &models.DiscoveredFile{}, "source_id = ?", id),
				"metric_points":    countRows(t, db, &models.MetricPoint{}, "source_id = ?", id),
			}
			for table, n := range counts {
				if n != w.want {
					t.Errorf("source %s of org %s: %d rows in %s, want %d", w.world.src.Name, w.orgID, n, table, w.want)
				}
			}
		}
		wantErr(t, mustErr(s.Scans.Get(ctx, org.ID, gone.scan.ID)), errs.ErrNotFound)
		wantErr(t, mustErr(s.SourceSchedules.Get(ctx, org.ID, gone.src.ID, gone.sched.ID)), errs.ErrNotFound)
	})
}

func TestSourcesRecordScanKeepsTheLatest(t *testing.T) {
	east := time.FixedZone("UTC+2", 2*60*60)
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		src := srcCreate(t, s, org.ID, "db")
		now := testNow()
		if err := s.Sources.RecordScan(ctx, org.ID, src.ID, models.ScanCompleted, now.In(east)); err != nil {
			t.Fatal(err)
		}
		// An older end arriving late changes nothing.
		if err := s.Sources.RecordScan(ctx, org.ID, src.ID, models.ScanFailed, now.Add(-time.Minute)); err != nil {
			t.Fatal(err)
		}
		got, _ := s.Sources.Get(ctx, org.ID, src.ID)
		if !sameInstant(got.LastScanAt, &now) || got.LastScanStatus != models.ScanCompleted || !got.UpdatedAt.Equal(src.UpdatedAt) {
			t.Fatalf("after a late older end: last scan %v %s, updated %v", got.LastScanAt, got.LastScanStatus, got.UpdatedAt)
		}
		later := now.Add(time.Minute)
		if err := s.Sources.RecordScan(ctx, org.ID, src.ID, models.ScanFailed, later); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Sources.Get(ctx, org.ID, src.ID)
		if !sameInstant(got.LastScanAt, &later) || got.LastScanStatus != models.ScanFailed {
			t.Fatalf("after a later end: last scan %v %s", got.LastScanAt, got.LastScanStatus)
		}
		wantErr(t, s.Sources.RecordScan(ctx, org.ID, 424242, models.ScanFailed, later), errs.ErrNotFound)
	})
}

// --- Scan schedules ---------------------------------------------------------------

func TestSourceSchedules(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		src := srcCreate(t, s, org.ID, "db")
		theirSrc := srcCreate(t, s, other.ID, "db")

		sc := schedCreate(t, s, org.ID, src.ID, "0 3 * * *")
		if sc.ID == 0 || sc.OrgID != org.ID || sc.Tables != "[]" || sc.Sensitivity != models.DefaultAnomalySensitivity ||
			sc.LastRunAt != nil || sc.LastRunStatus != "" || sc.CreatedAt.IsZero() {
			t.Fatalf("created schedule = %+v", sc)
		}
		next := testNow().Add(time.Hour)
		sc2 := &models.SourceSchedule{SourceID: src.ID, CronExpression: "*/5 * * * *", Tables: `["orders"]`, Enabled: false,
			Sensitivity: "high", NextRunAt: &next}
		if err := s.SourceSchedules.Create(ctx, org.ID, sc2); err != nil {
			t.Fatal(err)
		}
		got, err := s.SourceSchedules.Get(ctx, org.ID, src.ID, sc2.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.CronExpression != "*/5 * * * *" || got.Tables != `["orders"]` || got.Enabled || got.Sensitivity != "high" ||
			!sameInstant(got.NextRunAt, &next) || got.SourceID != src.ID {
			t.Fatalf("stored schedule = %+v", got)
		}
		list, err := s.SourceSchedules.List(ctx, org.ID, src.ID)
		if err != nil || len(list) != 2 || list[0].ID != sc.ID || list[1].ID != sc2.ID {
			t.Fatalf("List = %+v, %v", list, err)
		}

		// Another source's or organisation's ids look missing.
		wantErr(t, s.SourceSchedules.Create(ctx, other.ID, &models.SourceSchedule{SourceID: src.ID, CronExpression: "* * * * *"}), errs.ErrNotFound)
		wantErr(t, s.SourceSchedules.Create(ctx, org.ID, &models.SourceSchedule{SourceID: theirSrc.ID, CronExpression: "* * * * *"}), errs.ErrNotFound)
		wantErr(t, mustErr(s.SourceSchedules.Get(ctx, other.ID, src.ID, sc.ID)), errs.ErrNotFound)
		wantErr(t, mustErr(s.SourceSchedules.Get(ctx, org.ID, theirSrc.ID, sc.ID)), errs.ErrNotFound)
		if list, err := s.SourceSchedules.List(ctx, other.ID, src.ID); err != nil || len(list) != 0 {
			t.Fatalf("other org's List = %+v, %v", list, err)
		}
		stolen := *sc
		stolen.CronExpression = "1 1 1 1 1"
		wantErr(t, s.SourceSchedules.Update(ctx, other.ID, &stolen), errs.ErrNotFound)
		stolen.SourceID = theirSrc.ID
		wantErr(t, s.SourceSchedules.Update(ctx, org.ID, &stolen), errs.ErrNotFound)
		wantErr(t, s.SourceSchedules.Delete(ctx, other.ID, src.ID, sc.ID), errs.ErrNotFound)
		wantErr(t, s.SourceSchedules.SetSensitivity(ctx, other.ID, src.ID, "low"), errs.ErrNotFound)
		wantErr(t, s.SourceSchedules.RecordRun(ctx, other.ID, sc.ID, "completed", "", time.Now()), errs.ErrNotFound)
		if got, _ := s.SourceSchedules.Get(ctx, org.ID, src.ID, sc.ID); got.CronExpression != "0 3 * * *" ||
			got.Sensitivity != models.DefaultAnomalySensitivity || got.LastRunAt != nil {
			t.Fatalf("another org's calls changed the schedule: %+v", got)
		}

		// Update saves the mutable fields and leaves the run record.
		at := testNow()
		if err := s.SourceSchedules.RecordRun(ctx, org.ID, sc.ID, models.ScanFailed, "boom", at); err != nil {
			t.Fatal(err)
		}
		upd := &models.SourceSchedule{ID: sc.ID, SourceID: src.ID, CronExpression: "15 4 * * 1", Tables: `["a","b"]`,
			Enabled: false, Sensitivity: "low", NextRunAt: &next}
		if err := s.SourceSchedules.Update(ctx, org.ID, upd); err != nil {
			t.Fatal(err)
		}
		if upd.CronExpression != "15 4 * * 1" || upd.Tables != `["a","b"]` || upd.Enabled || upd.Sensitivity != "low" ||
			!sameInstant(upd.NextRunAt, &next) || !sameInstant(upd.LastRunAt, &at) || upd.LastRunStatus != models.ScanFailed ||
			upd.LastRunError != "boom" || !upd.CreatedAt.Equal(sc.CreatedAt) || upd.OrgID != org.ID {
			t.Fatalf("after Update = %+v", upd)
		}
		upd.Enabled, upd.NextRunAt, upd.Tables = true, nil, ""
		if err := s.SourceSchedules.Update(ctx, org.ID, upd); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.SourceSchedules.Get(ctx, org.ID, src.ID, sc.ID); !got.Enabled || got.NextRunAt != nil || got.Tables != "[]" {
			t.Fatalf("after second Update = %+v", got)
		}
		wantErr(t, s.SourceSchedules.Update(ctx, org.ID, &models.SourceSchedule{ID: 987654, SourceID: src.ID}), errs.ErrNotFound)

		// SetSensitivity sets every schedule and the default of later ones.
		if err := s.SourceSchedules.SetSensitivity(ctx, org.ID, src.ID, "high"); err != nil {
			t.Fatal(err)
		}
		list, _ = s.SourceSchedules.List(ctx, org.ID, src.ID)
		for _, l := range list {
			if l.Sensitivity != "high" {
				t.Fatalf("after SetSensitivity schedule %d is %s", l.ID, l.Sensitivity)
			}
		}
		if sc3 := schedCreate(t, s, org.ID, src.ID, "0 0 * * *"); sc3.Sensitivity != "high" {
			t.Fatalf("schedule created after SetSensitivity has %s", sc3.Sensitivity)
		}
		if sc4 := schedCreate(t, s, other.ID, theirSrc.ID, "0 0 * * *"); sc4.Sensitivity != models.DefaultAnomalySensitivity {
			t.Fatalf("another org's schedule has %s", sc4.Sensitivity)
		}
		wantErr(t, s.SourceSchedules.SetSensitivity(ctx, org.ID, 987654, "low"), errs.ErrNotFound)

		// Delete.
		if err := s.SourceSchedules.Delete(ctx, org.ID, src.ID, sc2.ID); err != nil {
			t.Fatal(err)
		}
		wantErr(t, s.SourceSchedules.Delete(ctx, org.ID, src.ID, sc2.ID), errs.ErrNotFound)
		if list, _ := s.SourceSchedules.List(ctx, org.ID, src.ID); len(list) != 2 {
			t.Fatalf("after delete %d schedules", len(list))
		}
	})
}

func TestSourceSchedulesLimit(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		src, src2 := srcCreate(t, s, org.ID, "a"), srcCreate(t, s, org.ID, "b")
		if models.MaxSchedulesPerSource != 20 {
			t.Fatalf("MaxSchedulesPerSource = %d, want 20", models.MaxSchedulesPerSource)
		}
		var first *models.SourceSchedule
		for i := range models.MaxSchedulesPerSource {
			sc := schedCreate(t, s, org.ID, src.ID, fmt.Sprintf("%d * * * *", i))
			if first == nil {
				first = sc
			}
		}
		err := s.SourceSchedules.Create(ctx, org.ID, &models.SourceSchedule{SourceID: src.ID, CronExpression: "* * * * *"})
		wantErr(t, err, errs.ErrLimitExceeded)
		schedCreate(t, s, org.ID, src2.ID, "* * * * *")
		if err := s.SourceSchedules.Delete(ctx, org.ID, src.ID, first.ID); err != nil {
			t.Fatal(err)
		}
		schedCreate(t, s, org.ID, src.ID, "* * * * *")
	})
}

// --- Scans --------------------------------------------------------------------------

func TestScansLifecycle(t *testing.T) {
	west := time.FixedZone("UTC-5", -5*60*60)
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		src := srcCreate(t, s, org.ID, "db")
		src2 := srcCreate(t, s, org.ID, "db2")
		theirSrc := srcCreate(t, s, other.ID, "db")
		sched2 := schedCreate(t, s, org.ID, src2.ID, "* * * * *")

		sc := &models.Scan{SourceID: src.ID, Tables: `["orders","users"]`, EstimatedTokens: 7, Status: models.ScanCompleted, Progress: 50}
		if err := s.Scans.Create(ctx, org.ID, sc); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(sc.ID, "scn_") || len(sc.ID) != len("scn_")+12 || sc.Status != models.ScanQueued || sc.Progress != 0 ||
			sc.OrgID != org.ID || sc.EstimatedTokens != 7 {
			t.Fatalf("created scan = %+v", sc)
		}
		got, err := s.Scans.Get(ctx, org.ID, sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Tables != `["orders","users"]` || got.Status != models.ScanQueued || got.EstimatedTokens != 7 || got.StartedAt != nil ||
			got.ScheduleID != nil || !got.CreatedAt.Equal(sc.CreatedAt) {
			t.Fatalf("stored scan = %+v", got)
		}
		// A source is read by one scan at a time.
		err = s.Scans.Create(ctx, org.ID, &models.Scan{SourceID: src.ID})
		wantErr(t, err, errs.ErrConflict)
		if !strings.Contains(err.Error(), sc.ID) {
			t.Fatalf("conflict = %v, want it to name %s", err, sc.ID)
		}
		// The source and schedule must be the organisation's, and the
		// schedule the source's.
		wantErr(t, s.Scans.Create(ctx, org.ID, &models.Scan{SourceID: theirSrc.ID}), errs.ErrNotFound)
		wantErr(t, s.Scans.Create(ctx, other.ID, &models.Scan{SourceID: src.ID}), errs.ErrNotFound)
		wantErr(t, s.Scans.Create(ctx, org.ID, &models.Scan{SourceID: src.ID, ScheduleID: &sched2.ID}), errs.ErrNotFound)
		withSched := &models.Scan{SourceID: src2.ID, ScheduleID: &sched2.ID}
		if err := s.Scans.Create(ctx, org.ID, withSched); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Scans.Get(ctx, org.ID, withSched.ID); got.ScheduleID == nil || *got.ScheduleID != sched2.ID {
			t.Fatalf("schedule id = %v", got.ScheduleID)
		}

		// Progress before the start is a conflict.
		wantErr(t, s.Scans.Progress(ctx, org.ID, sc.ID, 1, 0, 10), errs.ErrConflict)

		// Another organisation's calls look missing and change nothing.
		wantErr(t, mustErr(s.Scans.Get(ctx, other.ID, sc.ID)), errs.ErrNotFound)
		wantErr(t, s.Scans.Start(ctx, other.ID, sc.ID, 2, time.Now()), errs.ErrNotFound)
		wantErr(t, s.Scans.Progress(ctx, other.ID, sc.ID, 1, 0, 1), errs.ErrNotFound)
		wantErr(t, s.Scans.AddTable(ctx, other.ID, &models.ScanTable{ScanID: sc.ID, TableName: "orders"}), errs.ErrNotFound)
		wantErr(t, mustErr(s.Scans.Tables(ctx, other.ID, sc.ID)), errs.ErrNotFound)
		wantErr(t, s.Scans.Finish(ctx, other.ID, sc.ID, models.ScanFailed, "x", 1, time.Now()), errs.ErrNotFound)
		wantErr(t, s.Scans.Delete(ctx, other.ID, sc.ID), errs.ErrNotFound)
		if list, total, err := s.Scans.ListBySource(ctx, other.ID, src.ID, allRows); err != nil || total != 0 || len(list) != 0 {
			t.Fatalf("other org's ListBySource = %d rows, total %d, %v", len(list), total, err)
		}
		if got, _ := s.Scans.Get(ctx, org.ID, sc.ID); got.Status != models.ScanQueued {
			t.Fatalf("another org's calls changed the scan: %+v", got)
		}

		// Start: once.
		startedAt := testNow()
		if err := s.Scans.Start(ctx, org.ID, sc.ID, 2, startedAt.In(west)); err != nil {
			t.Fatal(err)
		}
		err = s.Scans.Start(ctx, org.ID, sc.ID, 2, time.Now())
		wantErr(t, err, errs.ErrConflict)
		if !strings.Contains(err.Error(), "running") {
			t.Fatalf("start conflict message = %v", err)
		}
		wantErr(t, s.Scans.Start(ctx, org.ID, "scan_missing", 2, time.Now()), errs.ErrNotFound)
		got, _ = s.Scans.Get(ctx, org.ID, sc.ID)
		if got.Status != models.ScanRunning || got.TablesTotal != 2 || !sameInstant(got.StartedAt, &startedAt) {
			t.Fatalf("started scan = %+v", got)
		}

		// Progress and tables.
		if err := s.Scans.Progress(ctx, org.ID, sc.ID, 1, 0, 1500); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Scans.Get(ctx, org.ID, sc.ID)
		if got.TablesScanned != 1 || got.TablesFailed != 0 || got.RowsRead != 1500 || got.Progress != 50 {
			t.Fatalf("after progress = %+v", got)
		}
		if err := s.Scans.Progress(ctx, org.ID, sc.ID, 1, 1, 1500); err != nil {
			t.Fatal(err)
		}
		if got, _ = s.Scans.Get(ctx, org.ID, sc.ID); got.Progress != 99 || got.TablesFailed != 1 {
			t.Fatalf("progress before finish = %+v", got)
		}
		first := &models.ScanTable{ScanID: sc.ID, TableName: "orders", Rows: 1000, Profile: `{"v":1}`}
		if err := s.Scans.AddTable(ctx, org.ID, first); err != nil {
			t.Fatal(err)
		}
		if first.ID == 0 || first.OrgID != org.ID || first.Status != models.ScanCompleted {
			t.Fatalf("added table = %+v", first)
		}
		if err := s.Scans.AddTable(ctx, org.ID, &models.ScanTable{ScanID: sc.ID, TableName: "users", Error: "permission denied"}); err != nil {
			t.Fatal(err)
		}
		// A retried table replaces its earlier result.
		if err := s.Scans.AddTable(ctx, org.ID, &models.ScanTable{ScanID: sc.ID, TableName: "orders", Rows: 1500, Profile: `{"v":2}`}); err != nil {
			t.Fatal(err)
		}
		tables, err := s.Scans.Tables(ctx, org.ID, sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(tables) != 2 || tables[0].TableName != "users" || tables[0].Status != models.ScanFailed || tables[0].Error != "permission denied" ||
			tables[1].TableName != "orders" || tables[1].Rows != 1500 || tables[1].Profile != "" {
			t.Fatalf("tables = %+v, want both without their profiles", tables)
		}
		// Results pages them with their profiles, and finds one by name.
		results, total, err := s.Scans.Results(ctx, org.ID, sc.ID, "", models.Page{Limit: 1, Offset: 1})
		if err != nil || total != 2 || len(results) != 1 || results[0].TableName != "orders" || results[0].Profile != `{"v":2}` {
			t.Fatalf("results page = %+v, %d, %v", results, total, err)
		}
		results, total, err = s.Scans.Results(ctx, org.ID, sc.ID, "users", models.Page{Limit: 20})
		if err != nil || total != 1 || len(results) != 1 || results[0].Error != "permission denied" {
			t.Fatalf("results of users = %+v, %d, %v", results, total, err)
		}
		_, _, err = s.Scans.Results(ctx, other.ID, sc.ID, "", models.Page{Limit: 20})
		wantErr(t, err, errs.ErrNotFound)
		wantErr(t, s.Scans.AddTable(ctx, org.ID, &models.ScanTable{ScanID: "scan_missing", TableName: "x"}), errs.ErrNotFound)

		// Finish stamps the source in the same transaction.
		finishedAt := testNow().Add(time.Second)
		if err := s.Scans.Finish(ctx, org.ID, sc.ID, models.ScanCompleted, "", 3, finishedAt.In(west)); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Scans.Get(ctx, org.ID, sc.ID)
		if got.Status != models.ScanCompleted || got.Progress != 100 || got.ChargedTokens != 3 || !sameInstant(got.CompletedAt, &finishedAt) {
			t.Fatalf("finished scan = %+v", got)
		}
		stamped, _ := s.Sources.Get(ctx, org.ID, src.ID)
		if !sameInstant(stamped.LastScanAt, &finishedAt) || stamped.LastScanStatus != models.ScanCompleted {
			t.Fatalf("source after finish: last scan %v %q", stamped.LastScanAt, stamped.LastScanStatus)
		}
		// Finishing again the same way changes nothing; otherwise it is a conflict.
		if err := s.Scans.Finish(ctx, org.ID, sc.ID, models.ScanCompleted, "", 99, finishedAt.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		wantErr(t, s.Scans.Finish(ctx, org.ID, sc.ID, models.ScanFailed, "late", 0, time.Now()), errs.ErrConflict)
		if got, _ := s.Scans.Get(ctx, org.ID, sc.ID); got.ChargedTokens != 3 || !sameInstant(got.CompletedAt, &finishedAt) {
			t.Fatalf("finish again changed the scan: %+v", got)
		}
		if err := s.Scans.Finish(ctx, org.ID, sc.ID, "weird", "", 0, time.Now()); err == nil {
			t.Fatal("Finish with an unknown status succeeded")
		}
		wantErr(t, s.Scans.Progress(ctx, org.ID, sc.ID, 2, 0, 1), errs.ErrConflict)

		// A queued scan may fail directly.
		if err := s.Scans.Finish(ctx, org.ID, withSched.ID, models.ScanCompleted, "", 0, finishedAt); err != nil {
			t.Fatal(err)
		}
		failing := scanCreate(t, s, org.ID, src2.ID)
		if err := s.Scans.Finish(ctx, org.ID, failing.ID, models.ScanFailed, "could not connect", 0, finishedAt); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.Scans.Get(ctx, org.ID, failing.ID); got.Status != models.ScanFailed || got.Error != "could not connect" || got.Progress != 0 {
			t.Fatalf("failed scan = %+v", got)
		}
		if got, _ := s.Sources.Get(ctx, org.ID, src2.ID); got.LastScanStatus != models.ScanFailed {
			t.Fatalf("source 2 last scan status %q", got.LastScanStatus)
		}
		if got, _ := s.Sources.Get(ctx, other.ID, theirSrc.ID); got.LastScanAt != nil {
			t.Fatal("another org's source was stamped")
		}

		// Once it ended, the source can be scanned again.
		if all := scanCreate(t, s, org.ID, src.ID); all.Tables != "[]" {
			t.Fatalf("default tables = %q", all.Tables)
		}
		// ListBySource: newest first, paged.
		list, total, err := s.Scans.ListBySource(ctx, org.ID, src.ID, allRows)
		if err != nil {
			t.Fatal(err)
		}
		if total != 2 || len(list) != 2 || list[1].ID != sc.ID {
			t.Fatalf("ListBySource = %+v (total %d)", list, total)
		}
		page, total, _ := s.Scans.ListBySource(ctx, org.ID, src.ID, models.Page{Limit: 1, Offset: 1})
		if total != 2 || len(page) != 1 || page[0].ID != sc.ID {
			t.Fatalf("page 2 = %+v (total %d)", page, total)
		}

		// Delete removes the scan and its tables.
		if err := s.Scans.Delete(ctx, org.ID, sc.ID); err != nil {
			t.Fatal(err)
		}
		wantErr(t, mustErr(s.Scans.Get(ctx, org.ID, sc.ID)), errs.ErrNotFound)
		wantErr(t, s.Scans.Delete(ctx, org.ID, sc.ID), errs.ErrNotFound)
		if n := countRows(t, db, &models.ScanTable{}, "scan_id = ?", sc.ID); n != 0 {
			t.Fatalf("%d tables left of a deleted scan", n)
		}
	})
}

// --- Discovered files ------------------------------------------------------------------

func dfStates(files []models.DiscoveredFile) string {
	var parts []string
	for _, f := range files {
		parts = append(parts, f.Key+"="+f.SyncState)
	}
	return strings.Join(parts, " ")
}

func dfByKey(files []models.DiscoveredFile, key string) models.DiscoveredFile {
	for _, f := range files {
		if f.Key == key {
			return f
		}
	}
	return models.DiscoveredFile{}
}

func TestDiscoveredFilesSync(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		src := srcCreate(t, s, org.ID, "bucket")
		src2 := srcCreate(t, s, org.ID, "bucket2")
		theirSrc := srcCreate(t, s, other.ID, "bucket")
		// Modification times with nanoseconds: PostgreSQL keeps
		// microseconds, and an unchanged object must still compare equal.
		t0 := time.Date(2026, 11, 1, 10, 0, 0, 123456789, time.UTC)
		at1 := testNow()

		// Sync 1: everything is new.
		listing := []models.ListedObject{
			{Key: "data/a.csv", SizeBytes: 10, ETag: "ea", LastModified: t0},
			{Key: "data/b.csv", SizeBytes: 20, ETag: "eb", LastModified: t0},
			{Key: "data/c.csv", SizeBytes: 30, ETag: "ec", LastModified: t0},
			{Key: "data/a.csv", SizeBytes: 10, ETag: "ea", LastModified: t0}, // listed twice
		}
		files, err := s.DiscoveredFiles.Sync(ctx, org.ID, src.ID, listing, at1)
		if err != nil {
			t.Fatal(err)
		}
		if got := dfStates(files); got != "data/a.csv=new data/b.csv=new data/c.csv=new" {
			t.Fatalf("sync 1: %s", got)
		}
		a := dfByKey(files, "data/a.csv")
		if a.ID == 0 || a.OrgID != org.ID || a.SourceID != src.ID || a.SizeBytes != 10 || a.ETag != "ea" ||
			!a.LastModified.Equal(t0.Truncate(time.Microsecond)) || !a.CreatedAt.Equal(at1) || !a.NeedsScan() || a.FileID != nil {
			t.Fatalf("sync 1 row = %+v", a)
		}
		// Scan a and c.
		job := &models.Job{RetentionMode: "short_term", RetentionDays: 30}
		if err := s.Jobs.Create(ctx, org.ID, job); err != nil {
			t.Fatal(err)
		}
		f := &models.File{JobID: job.ID, FileName: "a.csv"}
		if err := s.Files.Create(ctx, org.ID, f); err != nil {
			t.Fatal(err)
		}
		scannedAt := at1.Add(time.Second)
		if err := s.DiscoveredFiles.MarkScanned(ctx, org.ID, a.ID, &f.ID, scannedAt); err != nil {
			t.Fatal(err)
		}
		c := dfByKey(files, "data/c.csv")
		if err := s.DiscoveredFiles.MarkScanned(ctx, org.ID, c.ID, nil, scannedAt); err != nil {
			t.Fatal(err)
		}

		// Sync 2: a unchanged, b modified (ETag), c gone, d new; another
		// object changed only its modification time.
		at2 := at1.Add(time.Minute)
		listing = []models.ListedObject{
			{Key: "data/a.csv", SizeBytes: 10, ETag: "ea", LastModified: t0},
			{Key: "data/b.csv", SizeBytes: 20, ETag: "eb2", LastModified: t0},
			{Key: "data/d.csv", SizeBytes: 40, ETag: "ed", LastModified: t0},
		}
		files, err = s.DiscoveredFiles.Sync(ctx, org.ID, src.ID, listing, at2)
		if err != nil {
			t.Fatal(err)
		}
		if got := dfStates(files); got != "data/a.csv=unchanged data/b.csv=modified data/c.csv=deleted data/d.csv=new" {
			t.Fatalf("sync 2: %s", got)
		}
		a2, b2 := dfByKey(files, "data/a.csv"), dfByKey(files, "data/b.csv")
		if a2.ID != a.ID || a2.NeedsScan() || a2.FileID == nil || *a2.FileID != f.ID || !sameInstant(a2.LastScannedAt, &scannedAt) {
			t.Fatalf("sync 2 a = %+v", a2)
		}
		if b2.ETag != "eb2" || !b2.ChangedAt.Equal(at2) || !b2.NeedsScan() || !b2.UpdatedAt.Equal(at2) {
			t.Fatalf("sync 2 b = %+v", b2)
		}
		if c2 := dfByKey(files, "data/c.csv"); c2.NeedsScan() || !c2.UpdatedAt.Equal(at2) {
			t.Fatalf("sync 2 c = %+v", c2)
		}

		// Sync 3: a and b unchanged, c reappears (new, its scan forgotten),
		// d gone, e's modification time alone changed is tested below.
		at3 := at2.Add(time.Minute)
		listing = []models.ListedObject{
			{Key: "data/a.csv", SizeBytes: 10, ETag: "ea", LastModified: t0},
			{Key: "data/b.csv", SizeBytes: 20, ETag: "eb2", LastModified: t0},
			{Key: "data/c.csv", SizeBytes: 31, ETag: "ec2", LastModified: t0.Add(time.Hour)},
		}
		files, err = s.DiscoveredFiles.Sync(ctx, org.ID, src.ID, listing, at3)
		if err != nil {
			t.Fatal(err)
		}
		if got := dfStates(files); got != "data/a.csv=unchanged data/b.csv=unchanged data/c.csv=new data/d.csv=deleted" {
			t.Fatalf("sync 3: %s", got)
		}
		c3 := dfByKey(files, "data/c.csv")
		if c3.ID != c.ID || c3.LastScannedAt != nil || c3.FileID != nil || c3.ETag != "ec2" || c3.SizeBytes != 31 || !c3.NeedsScan() {
			t.Fatalf("reappeared c = %+v", c3)
		}
		// b became unchanged without being scanned: it still needs a scan.
		if b3 := dfByKey(files, "data/b.csv"); !b3.NeedsScan() {
			t.Fatalf("b unchanged but never scanned since its change: %+v", b3)
		}
		// A deleted object that stays missing keeps its row untouched.
		d3 := dfByKey(files, "data/d.csv")

		// Sync 4: only the modification time of a changes; d stays deleted.
		at4 := at3.Add(time.Minute)
		files, err = s.DiscoveredFiles.Sync(ctx, org.ID, src.ID, []models.ListedObject{
			{Key: "data/a.csv", SizeBytes: 10, ETag: "ea", LastModified: t0.Add(time.Microsecond)},
			{Key: "data/b.csv", SizeBytes: 20, ETag: "eb2", LastModified: t0},
		}, at4)
		if err != nil {
			t.Fatal(err)
		}
		if got := dfStates(files); got != "data/a.csv=modified data/b.csv=unchanged data/c.csv=deleted data/d.csv=deleted" {
			t.Fatalf("sync 4: %s", got)
		}
		if d4 := dfByKey(files, "data/d.csv"); !d4.UpdatedAt.Equal(d3.UpdatedAt) {
			t.Fatalf("deleted d was touched: %v → %v", d3.UpdatedAt, d4.UpdatedAt)
		}

		// Sources and organisations are apart.
		if files, err := s.DiscoveredFiles.Sync(ctx, org.ID, src2.ID, nil, at4); err != nil || len(files) != 0 {
			t.Fatalf("empty source sync = %v, %v", files, err)
		}
		wantErr(t, mustErr(s.DiscoveredFiles.Sync(ctx, other.ID, src.ID, nil, at4)), errs.ErrNotFound)
		wantErr(t, mustErr(s.DiscoveredFiles.Sync(ctx, org.ID, theirSrc.ID, nil, at4)), errs.ErrNotFound)
		if list, total, err := s.DiscoveredFiles.List(ctx, other.ID, src.ID, allRows); err != nil || total != 0 || len(list) != 0 {
			t.Fatalf("other org's List = %d, %d, %v", len(list), total, err)
		}
		wantErr(t, s.DiscoveredFiles.MarkScanned(ctx, other.ID, a.ID, nil, time.Now()), errs.ErrNotFound)
		theirJob := &models.Job{RetentionMode: "short_term", RetentionDays: 30}
		if err := s.Jobs.Create(ctx, other.ID, theirJob); err != nil {
			t.Fatal(err)
		}
		theirFile := &models.File{JobID: theirJob.ID, FileName: "x.csv"}
		if err := s.Files.Create(ctx, other.ID, theirFile); err != nil {
			t.Fatal(err)
		}
		wantErr(t, s.DiscoveredFiles.MarkScanned(ctx, org.ID, a.ID, &theirFile.ID, time.Now()), errs.ErrNotFound)
		wantErr(t, s.DiscoveredFiles.MarkScanned(ctx, org.ID, 987654, nil, time.Now()), errs.ErrNotFound)
		if n := countRows(t, db, &models.DiscoveredFile{}, "source_id = ? AND file_id = ?", src.ID, theirFile.ID); n != 0 {
			t.Fatal("another org's file was linked")
		}
	})
}

func TestDiscoveredFilesListIsInByteOrder(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		src := srcCreate(t, s, org.ID, "bucket")
		long := strings.Repeat("é", 1000) + ".csv" // 1004 characters, 2004 bytes
		keys := []string{"b", "a_b", "a-b", "A", "a/b", "ab", "é.csv", long, "Z/x.parquet"}
		var listing []models.ListedObject
		for _, k := range keys {
			listing = append(listing, models.ListedObject{Key: k, ETag: "e", LastModified: testNow()})
		}
		synced, err := s.DiscoveredFiles.Sync(ctx, org.ID, src.ID, listing, testNow())
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(keys)
		slices.Sort(want)
		var gotKeys []string
		for _, f := range synced {
			gotKeys = append(gotKeys, f.Key)
		}
		if !slices.Equal(gotKeys, want) {
			t.Fatalf("Sync order = %q, want %q", gotKeys, want)
		}
		list, total, err := s.DiscoveredFiles.List(ctx, org.ID, src.ID, allRows)
		if err != nil {
			t.Fatal(err)
		}
		gotKeys = nil
		for _, f := range list {
			gotKeys = append(gotKeys, f.Key)
		}
		if total != int64(len(keys)) || !slices.Equal(gotKeys, want) {
			t.Fatalf("List = %q (total %d), want %q", gotKeys, total, want)
		}
		page, total, _ := s.DiscoveredFiles.List(ctx, org.ID, src.ID, models.Page{Limit: 2, Offset: 3})
		if total != int64(len(keys)) || len(page) != 2 || page[0].Key != want[3] || page[1].Key != want[4] {
			t.Fatalf("page = %v", dfStates(page))
		}
		// The long key is unchanged on a second sync.
		again, err := s.DiscoveredFiles.Sync(ctx, org.ID, src.ID, listing[7:8], testNow())
		if err != nil {
			t.Fatal(err)
		}
		if got := dfByKey(again, long); got.SyncState != models.SyncUnchanged {
			t.Fatalf("long key state = %q", got.SyncState)
		}
	})
}

// --- Metric points ------------------------------------------------------------------

func TestMetricPoints(t *testing.T) {
	east := time.FixedZone("UTC+2", 2*60*60)
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		src := srcCreate(t, s, org.ID, "db")
		src2 := srcCreate(t, s, org.ID, "db2")
		theirSrc := srcCreate(t, s, other.ID, "db")
		base := testNow().Add(-time.Hour)
		longTable := strings.Repeat("t", 1024)
		var points []models.MetricPoint
		for i := range 5 {
			at := base.Add(time.Duration(i) * time.Minute).In(east)
			scanID := fmt.Sprintf("scan_%d", i)
			points = append(points,
				models.MetricPoint{SourceID: src.ID, ScanID: scanID, TableName: "orders", Metric: "row_count", Value: float64(100 + i), RecordedAt: at},
				models.MetricPoint{SourceID: src.ID, ScanID: scanID, TableName: "orders", ColumnName: "email", Metric: "null_rate", Value: float64(i) / 10, RecordedAt: at},
				models.MetricPoint{SourceID: src.ID, ScanID: scanID, TableName: "orders", ColumnName: "total", Metric: "null_rate", Value: 0.5, RecordedAt: at},
				models.MetricPoint{SourceID: src.ID, ScanID: scanID, TableName: "users", Metric: "row_count", Value: float64(10 + i), RecordedAt: at},
				models.MetricPoint{SourceID: src.ID, ScanID: scanID, TableName: longTable, ColumnName: longTable, Metric: "null_rate", Value: 0.1, RecordedAt: at},
				models.MetricPoint{SourceID: src2.ID, ScanID: scanID, TableName: "orders", Metric: "row_count", Value: 1, RecordedAt: at},
			)
		}
		// Two points at one instant: id breaks the tie.
		tie := base.Add(4 * time.Minute)
		points = append(points, models.MetricPoint{SourceID: src.ID, ScanID: "scan_4b", TableName: "orders", Metric: "row_count", Value: 999, RecordedAt: tie})
		if err := s.MetricPoints.Record(ctx, org.ID, points); err != nil {
			t.Fatal(err)
		}
		if points[0].ID == 0 || points[0].OrgID != org.ID || points[0].TableHash == "" || points[0].RecordedAt.Location() != time.UTC {
			t.Fatalf("recorded point = %+v", points[0])
		}
		theirs := []models.MetricPoint{{SourceID: theirSrc.ID, TableName: "orders", Metric: "row_count", Value: 5}}
		if err := s.MetricPoints.Record(ctx, other.ID, theirs); err != nil {
			t.Fatal(err)
		}
		if theirs[0].RecordedAt.IsZero() {
			t.Fatal("a point without a time was not stamped")
		}
		// A point of another organisation's source is refused whole.
		mixed := []models.MetricPoint{
			{SourceID: src.ID, TableName: "orders", Metric: "row_count", Value: 1},
			{SourceID: theirSrc.ID, TableName: "orders", Metric: "row_count", Value: 1},
		}
		wantErr(t, s.MetricPoints.Record(ctx, org.ID, mixed), errs.ErrNotFound)
		if n := countRows(t, db, &models.MetricPoint{}, "org_id = ?", org.ID); n != int64(len(points)) {
			t.Fatalf("%d points stored, want %d", n, len(points))
		}
		if err := s.MetricPoints.Record(ctx, org.ID, nil); err != nil {
			t.Fatal(err)
		}

		values := func(ps []models.MetricPoint) []float64 {
			out := []float64{}
			for _, p := range ps {
				out = append(out, p.Value)
			}
			return out
		}
		history := func(f models.MetricFilter, p models.Page) ([]float64, int64) {
			t.Helper()
			ps, total, err := s.MetricPoints.History(ctx, org.ID, f, p)
			if err != nil {
				t.Fatal(err)
			}
			return values(ps), total
		}
		all := models.Page{Limit: 100}
		if got, total := history(models.MetricFilter{SourceID: src.ID, Metric: "row_count", Table: "orders", Column: ptr("")}, all); total != 6 ||
			fmt.Sprint(got) != "[100 101 102 103 104 999]" {
			t.Fatalf("orders row_count = %v (total %d)", got, total)
		}
		if got, total := history(models.MetricFilter{SourceID: src.ID, Metric: "null_rate", Table: "orders", Column: ptr("email")}, all); total != 5 ||
			fmt.Sprint(got) != "[0 0.1 0.2 0.3 0.4]" {
			t.Fatalf("orders.email null_rate = %v (total %d)", got, total)
		}
		if _, total := history(models.MetricFilter{SourceID: src.ID, Metric: "null_rate", Table: "orders"}, all); total != 10 {
			t.Fatalf("orders null_rate, any column: total %d", total)
		}
		if _, total := history(models.MetricFilter{SourceID: src.ID, Metric: "row_count"}, all); total != 11 {
			t.Fatalf("row_count, any table: total %d", total)
		}
		if _, total := history(models.MetricFilter{SourceID: src.ID}, all); total != 26 {
			t.Fatalf("every metric: total %d", total)
		}
		if got, total := history(models.MetricFilter{SourceID: src.ID, Metric: "null_rate", Table: longTable, Column: ptr(longTable)}, all); total != 5 ||
			fmt.Sprint(got) != "[0.1 0.1 0.1 0.1 0.1]" {
			t.Fatalf("long names = %v (total %d)", got, total)
		}
		since := base.Add(3 * time.Minute).In(east)
		if got, total := history(models.MetricFilter{SourceID: src.ID, Metric: "row_count", Table: "orders", Column: ptr(""), Since: &since}, all); total != 3 ||
			fmt.Sprint(got) != "[103 104 999]" {
			t.Fatalf("since = %v (total %d)", got, total)
		}
		if got, total := history(models.MetricFilter{SourceID: src.ID, Metric: "row_count", Table: "orders", Column: ptr("")}, models.Page{Limit: 2, Offset: 3}); total != 6 ||
			fmt.Sprint(got) != "[103 104]" {
			t.Fatalf("page = %v (total %d)", got, total)
		}
		if got, total := history(models.MetricFilter{SourceID: src.ID, Metric: "row_count", Table: "nope"}, all); total != 0 || len(got) != 0 {
			t.Fatalf("unknown table = %v (total %d)", got, total)
		}
		// Another organisation sees none of it.
		if ps, total, err := s.MetricPoints.History(ctx, other.ID, models.MetricFilter{SourceID: src.ID}, all); err != nil || total != 0 || len(ps) != 0 {
			t.Fatalf("other org's History = %v (total %d), %v", ps, total, err)
		}
		if ps, err := s.MetricPoints.Last(ctx, other.ID, src.ID, "orders", "", "row_count", 3); err != nil || len(ps) != 0 {
			t.Fatalf("other org's Last = %v, %v", ps, err)
		}
		if ps, err := s.MetricPoints.ByScan(ctx, other.ID, "scan_1"); err != nil || len(ps) != 0 {
			t.Fatalf("other org's ByScan = %v, %v", ps, err)
		}

		// Last: the latest n, oldest first.
		last, err := s.MetricPoints.Last(ctx, org.ID, src.ID, "orders", "", "row_count", 3)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(values(last)) != "[103 104 999]" {
			t.Fatalf("Last 3 = %v", values(last))
		}
		if last[0].RecordedAt.After(last[1].RecordedAt) || last[0].ScanID != "scan_3" || last[2].ScanID != "scan_4b" {
			t.Fatalf("Last order = %+v", last)
		}
		if last, _ := s.MetricPoints.Last(ctx, org.ID, src.ID, "orders", "email", "null_rate", 100); fmt.Sprint(values(last)) != "[0 0.1 0.2 0.3 0.4]" {
			t.Fatalf("Last of a column series = %v", values(last))
		}
		if last, _ := s.MetricPoints.Last(ctx, org.ID, src2.ID, "orders", "", "row_count", 2); fmt.Sprint(values(last)) != "[1 1]" {
			t.Fatalf("Last of source 2 = %v", values(last))
		}
		if last, err := s.MetricPoints.Last(ctx, org.ID, src.ID, "orders", "", "row_count", 0); err != nil || len(last) != 0 {
			t.Fatalf("Last 0 = %v, %v", last, err)
		}
		byScan, err := s.MetricPoints.ByScan(ctx, org.ID, "scan_1")
		if err != nil || len(byScan) != 6 {
			t.Fatalf("ByScan = %d points, %v", len(byScan), err)
		}
	})
}

func TestScansSaveTableReplacesOnRetry(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		src := srcCreate(t, s, org.ID, "db")
		sc := &models.Scan{SourceID: src.ID}
		if err := s.Scans.Create(ctx, org.ID, sc); err != nil {
			t.Fatal(err)
		}
		points := func(v float64) []models.MetricPoint {
			return []models.MetricPoint{{SourceID: src.ID, Metric: "row_count", Value: v}, {SourceID: src.ID, ColumnName: "email", Metric: "null_rate", Value: v / 100}}
		}
		for _, v := range []float64{10, 12} { // the second is a retried activity
			if err := s.Scans.SaveTable(ctx, org.ID, &models.ScanTable{ScanID: sc.ID, TableName: "customers", Rows: int64(v)}, points(v)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Scans.SaveTable(ctx, org.ID, &models.ScanTable{ScanID: sc.ID, TableName: "orders", Rows: 3}, points(3)); err != nil {
			t.Fatal(err)
		}
		got, err := s.MetricPoints.ByScan(ctx, org.ID, sc.ID)
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		for _, p := range got {
			seen = append(seen, fmt.Sprintf("%s/%s/%s=%v", p.TableName, p.ColumnName, p.Metric, p.Value))
		}
		want := []string{"customers//row_count=12", "customers/email/null_rate=0.12", "orders//row_count=3", "orders/email/null_rate=0.03"}
		if strings.Join(seen, " ") != strings.Join(want, " ") {
			t.Fatalf("points = %v, want %v", seen, want)
		}
		tables, err := s.Scans.Tables(ctx, org.ID, sc.ID)
		if err != nil || len(tables) != 2 || tables[0].Rows != 12 {
			t.Fatalf("tables = %+v, %v", tables, err)
		}
		// Another organisation cannot write into the scan.
		err = s.Scans.SaveTable(ctx, other.ID, &models.ScanTable{ScanID: sc.ID, TableName: "x"}, nil)
		wantErr(t, err, errs.ErrNotFound)
	})
}

func TestDiscoveredFilesPending(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		src := srcCreate(t, s, org.ID, "lake")
		at := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
		obj := func(key, etag string) models.ListedObject {
			return models.ListedObject{Key: key, SizeBytes: 10, ETag: etag, LastModified: at}
		}
		keys := func(l []models.ListedObject) string {
			var out []string
			for _, o := range l {
				out = append(out, o.Key)
			}
			return strings.Join(out, " ")
		}
		first := []models.ListedObject{obj("a.csv", "1"), obj("b.csv", "1"), obj("c.csv", "1")}
		pending, err := s.DiscoveredFiles.Pending(ctx, org.ID, src.ID, first)
		if err != nil || keys(pending) != "a.csv b.csv c.csv" {
			t.Fatalf("before any sync: %v, %v", keys(pending), err)
		}
		stored, err := s.DiscoveredFiles.Sync(ctx, org.ID, src.ID, first, at)
		if err != nil {
			t.Fatal(err)
		}
		// a.csv and b.csv are read; c.csv is not yet.
		for _, f := range stored[:2] {
			if err := s.DiscoveredFiles.MarkScanned(ctx, org.ID, f.ID, nil, at.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		next := []models.ListedObject{obj("a.csv", "1"), obj("b.csv", "2"), obj("c.csv", "1"), obj("d.csv", "1"), obj("d.csv", "1")}
		pending, err = s.DiscoveredFiles.Pending(ctx, org.ID, src.ID, next)
		if err != nil || keys(pending) != "b.csv c.csv d.csv" {
			t.Fatalf("pending = %q, %v; want the changed, the unread and the new, once each", keys(pending), err)
		}
		// Pending records nothing.
		list, _, err := s.DiscoveredFiles.List(ctx, org.ID, src.ID, models.Page{Limit: 10})
		if err != nil || len(list) != 3 || list[1].ETag != "1" {
			t.Fatalf("after Pending: %+v, %v", list, err)
		}
	})
}

// TestScansHoldTokens: the estimates of an organisation's unfinished scans
// are held against its balance, also when two scans are created at once.
func TestScansHoldTokens(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		a, b, c := srcCreate(t, s, org.ID, "a"), srcCreate(t, s, org.ID, "b"), srcCreate(t, s, org.ID, "c")
		theirs := srcCreate(t, s, other.ID, "a")
		balance := org.TokenBalance
		first := &models.Scan{SourceID: a.ID, EstimatedTokens: balance - 10}
		if err := s.Scans.Create(ctx, org.ID, first); err != nil {
			t.Fatal(err)
		}
		err := s.Scans.Create(ctx, org.ID, &models.Scan{SourceID: b.ID, EstimatedTokens: 11})
		wantErr(t, err, errs.ErrInsufficientTokens)
		if want := fmt.Sprintf("the balance is %d, of which %d are held by unfinished scans (1)", balance, balance-10); !strings.Contains(err.Error(), want) {
			t.Fatalf("refusal = %v, want it to say %q", err, want)
		}
		// Another organisation's scans hold nothing of this one's.
		if err := s.Scans.Create(ctx, other.ID, &models.Scan{SourceID: theirs.ID, EstimatedTokens: balance}); err != nil {
			t.Fatal(err)
		}
		exact := &models.Scan{SourceID: b.ID, EstimatedTokens: 10}
		if err := s.Scans.Create(ctx, org.ID, exact); err != nil {
			t.Fatalf("a scan of exactly what is left: %v", err)
		}
		// An ended scan holds nothing (its charge is taken from the balance).
		for _, sc := range []*models.Scan{first, exact} {
			if err := s.Scans.Finish(ctx, org.ID, sc.ID, models.ScanFailed, "ended", 0, time.Now()); err != nil {
				t.Fatal(err)
			}
		}

		// Two scans of other sources created at once, each of 60% of the
		// balance: one is refused.
		est := balance * 6 / 10
		errsOf := make(chan error, 2)
		for _, src := range []*models.Source{a, c} {
			go func() { errsOf <- s.Scans.Create(ctx, org.ID, &models.Scan{SourceID: src.ID, EstimatedTokens: est}) }()
		}
		var ok, refused int
		for range 2 {
			switch err := <-errsOf; {
			case err == nil:
				ok++
			case errors.Is(err, errs.ErrInsufficientTokens):
				refused++
			default:
				t.Fatalf("concurrent create: %v", err)
			}
		}
		if ok != 1 || refused != 1 {
			t.Fatalf("concurrent scans of %d tokens each on a balance of %d: %d created, %d refused; want 1 and 1", est, balance, ok, refused)
		}
	})
}

// TestScanResultRacingSourceDelete: a scan result written while its source
// is deleted is either refused or deleted with it, never left behind.
func TestScanResultRacingSourceDelete(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		for i := range 20 {
			src := srcCreate(t, s, org.ID, fmt.Sprint("db", i))
			sc := scanCreate(t, s, org.ID, src.ID)
			var wg sync.WaitGroup
			wg.Add(2)
			var saveErr, deleteErr error
			go func() {
				defer wg.Done()
				point := models.MetricPoint{SourceID: src.ID, Metric: "row_count", Value: 1, RecordedAt: time.Now()}
				saveErr = s.Scans.SaveTable(ctx, org.ID, &models.ScanTable{ScanID: sc.ID, TableName: "t", Rows: 1}, []models.MetricPoint{point})
			}()
			go func() { defer wg.Done(); deleteErr = s.Sources.Delete(ctx, org.ID, src.ID) }()
			wg.Wait()
			if deleteErr != nil || (saveErr != nil && !errors.Is(saveErr, errs.ErrNotFound)) {
				t.Fatalf("delete: %v; save: %v", deleteErr, saveErr)
			}
			var tables, points int64
			db.Gorm.Model(&models.ScanTable{}).Where("scan_id = ?", sc.ID).Count(&tables)
			db.Gorm.Model(&models.MetricPoint{}).Where("source_id = ?", src.ID).Count(&points)
			if tables != 0 || points != 0 {
				t.Fatalf("round %d: %d results and %d points of a deleted source left", i, tables, points)
			}
		}
	})
}
