package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestAlerts: an alert is raised once per key, listed newest first with
// every filter, acknowledged once; another organisation sees none of it.
func TestAlerts(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		src := srcCreate(t, s, org.ID, "db")
		base := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
		raise := func(orgID, key, severity, typ string, sourceID *int64, at time.Time) (*models.Alert, bool) {
			a := &models.Alert{DedupKey: key, Severity: severity, Type: typ, Message: "m " + key, SourceID: sourceID, CreatedAt: at}
			created, err := s.Alerts.Raise(ctx, orgID, a)
			if err != nil {
				t.Fatal(err)
			}
			return a, created
		}
		first, created := raise(org.ID, "a/1", models.SeverityWarning, models.AlertAnomaly, &src.ID, base)
		if !created || first.ID == 0 || first.OrgID != org.ID {
			t.Fatalf("raised = %+v, created %v", first, created)
		}
		again, created := raise(org.ID, "a/1", models.SeverityCritical, models.AlertScanFailure, nil, base.Add(time.Hour))
		if created || again.ID != first.ID || again.Severity != models.SeverityWarning || !again.CreatedAt.Equal(base) {
			t.Fatalf("raised again = %+v, created %v; want the first one back", again, created)
		}
		raise(org.ID, "a/2", models.SeverityCritical, models.AlertAnomaly, &src.ID, base.Add(2*time.Hour))
		raise(org.ID, "f/3", models.SeverityInfo, models.AlertScanFailure, nil, base.Add(3*time.Hour))
		theirs, _ := raise(other.ID, "a/1", models.SeverityCritical, models.AlertAnomaly, nil, base)
		if theirs.ID == first.ID {
			t.Fatal("the same key in another organisation is another alert")
		}
		if _, err := s.Alerts.Raise(ctx, org.ID, &models.Alert{Severity: "info", Type: "anomaly"}); err == nil {
			t.Fatal("an alert without a key was raised")
		}

		keys := func(f models.AlertFilter) string {
			list, total, err := s.Alerts.List(ctx, org.ID, f, models.Page{Limit: 20})
			if err != nil {
				t.Fatal(err)
			}
			out := fmt.Sprint(total)
			for _, a := range list {
				out += " " + a.DedupKey
			}
			return out
		}
		yes, no := true, false
		since := base.Add(90 * time.Minute)
		for _, c := range []struct {
			f    models.AlertFilter
			want string
		}{
			{models.AlertFilter{}, "3 f/3 a/2 a/1"},
			{models.AlertFilter{Severity: models.SeverityCritical}, "1 a/2"},
			{models.AlertFilter{Type: models.AlertAnomaly}, "2 a/2 a/1"},
			{models.AlertFilter{SourceID: &src.ID}, "2 a/2 a/1"},
			{models.AlertFilter{Since: &since}, "2 f/3 a/2"},
			{models.AlertFilter{Acknowledged: &yes}, "0"},
			{models.AlertFilter{Acknowledged: &no}, "3 f/3 a/2 a/1"},
		} {
			if got := keys(c.f); got != c.want {
				t.Errorf("List(%+v) = %q, want %q", c.f, got, c.want)
			}
		}

		at := base.Add(5 * time.Hour)
		acked, err := s.Alerts.Acknowledge(ctx, org.ID, first.ID, "user-1", at)
		if err != nil || acked.AcknowledgedAt == nil || !acked.AcknowledgedAt.Equal(at) || acked.AcknowledgedBy != "user-1" {
			t.Fatalf("acknowledged = %+v, %v", acked, err)
		}
		if again, _ := s.Alerts.Acknowledge(ctx, org.ID, first.ID, "user-2", at.Add(time.Hour)); !again.AcknowledgedAt.Equal(at) || again.AcknowledgedBy != "user-1" {
			t.Fatalf("acknowledged again = %+v, want the first acknowledgement kept", again)
		}
		if got := keys(models.AlertFilter{Acknowledged: &yes}); got != "1 a/1" {
			t.Errorf("acknowledged list = %q", got)
		}
		_, err = s.Alerts.Acknowledge(ctx, other.ID, first.ID, "user-3", at)
		wantErr(t, err, errs.ErrNotFound)
		if _, total, _ := s.Alerts.List(ctx, other.ID, models.AlertFilter{}, models.Page{Limit: 20}); total != 1 {
			t.Fatalf("other org sees %d alerts, want its own 1", total)
		}
	})
}

// TestAnomaliesRecord: a detection's anomalies replace an earlier run's
// for the same scan and table, link to their alert, are listed with every
// filter, and give later detections their statuses; a deleted source
// takes them and its alerts with it, and takes no new ones.
func TestAnomaliesRecord(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		src := srcCreate(t, s, org.ID, "db")
		sc := scanCreate(t, s, org.ID, src.ID)
		at := time.Date(2026, 11, 2, 2, 0, 0, 0, time.UTC)
		found := func(cols ...string) []models.Anomaly {
			out := make([]models.Anomaly, len(cols))
			for i, c := range cols {
				out[i] = models.Anomaly{ColumnName: c, Metric: "null_rate", CurrentValue: 0.5, Baseline: "{}", Sensitivity: "medium",
					Explanation: "e " + c, DetectedAt: at.Add(time.Duration(i) * time.Second)}
			}
			return out
		}
		alert := &models.Alert{DedupKey: "anomaly/" + sc.ID + "/customers", Severity: models.SeverityWarning, Type: models.AlertAnomaly, Message: "m", SourceID: &src.ID}
		created, err := s.Anomalies.Record(ctx, org.ID, src.ID, sc.ID, "customers", found("email", "phone"), alert)
		if err != nil || !created {
			t.Fatalf("record: created %v, %v", created, err)
		}
		// A retried detection replaces them and raises no second alert.
		alert2 := &models.Alert{DedupKey: alert.DedupKey, Severity: models.SeverityCritical, Type: models.AlertAnomaly, Message: "m2"}
		created, err = s.Anomalies.Record(ctx, org.ID, src.ID, sc.ID, "customers", found("email"), alert2)
		if err != nil || created || alert2.ID != alert.ID {
			t.Fatalf("record again: created %v, alert %d (want %d), %v", created, alert2.ID, alert.ID, err)
		}
		if _, err := s.Anomalies.Record(ctx, org.ID, src.ID, sc.ID, "orders", found("", "total"), nil); err != nil {
			t.Fatal(err)
		}
		list, total, err := s.Anomalies.List(ctx, org.ID, models.AnomalyFilter{SourceID: src.ID}, models.Page{Limit: 20})
		if err != nil || total != 3 {
			t.Fatalf("list = %d anomalies, %v; want email of customers and two of orders", total, err)
		}
		for _, a := range list {
			if a.TableName == "customers" && (a.ColumnName != "email" || a.AlertID == nil || *a.AlertID != alert.ID || a.Status != models.AnomalyOpen) {
				t.Errorf("customers anomaly = %+v", a)
			}
			if a.TableName == "orders" && a.AlertID != nil {
				t.Errorf("orders anomaly has alert %d, none was raised", *a.AlertID)
			}
		}
		empty, email := "", "email"
		for _, c := range []struct {
			f    models.AnomalyFilter
			want int64
		}{
			{models.AnomalyFilter{SourceID: src.ID, Table: "orders"}, 2},
			{models.AnomalyFilter{SourceID: src.ID, Column: &empty}, 1},
			{models.AnomalyFilter{SourceID: src.ID, Column: &email}, 1},
			{models.AnomalyFilter{SourceID: src.ID, Metric: "mean"}, 0},
			{models.AnomalyFilter{SourceID: src.ID, Since: ptrTime(at.Add(time.Second))}, 1},
		} {
			if _, n, err := s.Anomalies.List(ctx, org.ID, c.f, models.Page{Limit: 20}); err != nil || n != c.want {
				t.Errorf("List(%+v) = %d, %v; want %d", c.f, n, err, c.want)
			}
		}

		// Statuses, as a later detection reads them.
		var emailID int64
		for _, a := range list {
			if a.ColumnName == "email" {
				emailID = a.ID
			}
		}
		if _, err := s.Anomalies.SetStatus(ctx, org.ID, src.ID, emailID, models.AnomalyExpected); err != nil {
			t.Fatal(err)
		}
		_, err = s.Anomalies.SetStatus(ctx, org.ID, src.ID, emailID, "ignored")
		wantErr(t, err, errs.ErrBadRequest)
		_, err = s.Anomalies.SetStatus(ctx, other.ID, src.ID, emailID, models.AnomalyConfirmed)
		wantErr(t, err, errs.ErrNotFound)
		st, err := s.Anomalies.Statuses(ctx, org.ID, src.ID, "customers", []string{sc.ID, "scn_other"})
		if err != nil || st[sc.ID][models.SeriesKey{Column: "email", Metric: "null_rate"}] != models.AnomalyExpected || len(st[sc.ID]) != 1 {
			t.Fatalf("statuses = %v, %v", st, err)
		}

		// Deleting the source deletes its anomalies and alerts; a detection
		// finishing after it stores nothing.
		if err := s.Sources.Delete(ctx, org.ID, src.ID); err != nil {
			t.Fatal(err)
		}
		_, err = s.Anomalies.Record(ctx, org.ID, src.ID, sc.ID, "customers", found("email"), &models.Alert{DedupKey: "late", Severity: "info", Type: "anomaly", Message: "m"})
		if !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("record after the source's delete = %v, want not found", err)
		}
		var left int64
		db.Gorm.Model(&models.Anomaly{}).Where("source_id = ?", src.ID).Count(&left)
		if _, alerts, _ := s.Alerts.List(ctx, org.ID, models.AlertFilter{}, models.Page{Limit: 20}); left != 0 || alerts != 0 {
			t.Fatalf("%d anomalies and %d alerts left of a deleted source", left, alerts)
		}
	})
}

func ptrTime(t time.Time) *time.Time { return &t }

// TestTableHistory: a table's history is the points of the source's
// completed scans created before the scan judged, newest scans first up to
// the limit, its own table only, oldest point first.
func TestTableHistory(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		src := srcCreate(t, s, org.ID, "db")
		var ids []string
		for i := range 5 {
			sc := scanCreate(t, s, org.ID, src.ID)
			ids = append(ids, sc.ID)
			at := time.Date(2026, 11, 1+i, 2, 0, 0, 0, time.UTC)
			for _, table := range []string{"customers", "orders"} {
				p := []models.MetricPoint{{SourceID: src.ID, Metric: "row_count", Value: float64(10 * i), RecordedAt: at}}
				if err := s.Scans.SaveTable(ctx, org.ID, &models.ScanTable{ScanID: sc.ID, TableName: table, Rows: 1}, p); err != nil {
					t.Fatal(err)
				}
			}
			status := models.ScanCompleted
			if i == 2 {
				status = models.ScanFailed // not history
			}
			if err := s.Scans.Finish(ctx, org.ID, sc.ID, status, "", 0, at); err != nil {
				t.Fatal(err)
			}
		}
		points, scans, err := s.MetricPoints.TableHistory(ctx, org.ID, src.ID, "customers", ids[4], 2)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(scans) != fmt.Sprint([]string{ids[3], ids[1]}) || len(points) != 2 || points[0].Value != 10 || points[1].Value != 30 {
			t.Fatalf("history = %+v of scans %v; want the values 10 and 30 of scans %s and %s", points, scans, ids[1], ids[3])
		}
		_, _, err = s.MetricPoints.TableHistory(ctx, "other-org", src.ID, "customers", ids[4], 2)
		wantErr(t, err, errs.ErrNotFound)
	})
}
