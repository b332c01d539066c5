package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

func balanceOf(t *testing.T, s *models.Stores, orgID string) int64 {
	t.Helper()
	o, err := s.Orgs.Get(context.Background(), orgID)
	if err != nil {
		t.Fatal(err)
	}
	return o.TokenBalance
}

// TestReportCharges: a report is charged when stored, refunded once when
// it fails (however often it is failed), refunded when its undo removes
// it while pending, and never when the undo comes after it completed; a
// short balance stores nothing; at most MaxPendingReports are pending.
func TestReportCharges(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		start := balanceOf(t, s, org.ID)
		create := func(tokens int64) (*models.Report, error) {
			r := &models.Report{ID: uuid.NewString(), ReportType: "gdpr_compliance", Level: "advanced", Config: "{}", Tokens: tokens}
			return r, s.Reports.Create(ctx, org.ID, r)
		}
		failed, err := create(10)
		if err != nil || balanceOf(t, s, org.ID) != start-10 {
			t.Fatalf("create: %v, balance %d", err, balanceOf(t, s, org.ID))
		}
		for range 3 {
			if err := s.Reports.Fail(ctx, org.ID, failed.ID, "broken", time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if got, _ := s.Reports.Get(ctx, org.ID, failed.ID); got.Status != models.ReportFailed || !got.Refunded || balanceOf(t, s, org.ID) != start {
			t.Fatalf("after three fails: %+v, balance %d, want %d", got, balanceOf(t, s, org.ID), start)
		}

		undone, _ := create(10)
		if err := s.Reports.Delete(ctx, org.ID, undone.ID); err != nil || balanceOf(t, s, org.ID) != start {
			t.Fatalf("undo: %v, balance %d", err, balanceOf(t, s, org.ID))
		}
		done, _ := create(5)
		if err := s.Reports.Complete(ctx, org.ID, done.ID, "k", 1, "", "report", nil, time.Now()); err != nil {
			t.Fatal(err)
		}
		if err := s.Reports.Delete(ctx, org.ID, done.ID); err != nil || balanceOf(t, s, org.ID) != start-5 {
			t.Fatalf("undo after completion: %v, balance %d, want %d", err, balanceOf(t, s, org.ID), start-5)
		}
		if _, err := s.Reports.Get(ctx, org.ID, done.ID); err != nil {
			t.Fatalf("a complete report was removed by an undo: %v", err)
		}

		if _, err := create(start + 1); !errors.Is(err, errs.ErrInsufficientTokens) {
			t.Fatalf("short balance: %v", err)
		}
		for range models.MaxPendingReports {
			if _, err := create(0); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := create(0); !errors.Is(err, errs.ErrLimitExceeded) {
			t.Fatalf("one pending too many: %v", err)
		}
		list, total, err := s.Reports.List(ctx, org.ID, "", models.Page{Limit: 100})
		if err != nil || total != int64(len(list)) || total != 2+models.MaxPendingReports {
			t.Fatalf("list: %d of %d, %v", len(list), total, err)
		}
	})
}

// TestCertificatesOfCompleteReportsOnly: a certificate verifies, and
// counts in the grade history, only while its report is complete; the
// history leaves the asking report out.
func TestCertificatesOfCompleteReportsOnly(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		base := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
		issue := func(complete bool, at time.Time, hash string) *models.Report {
			r := &models.Report{ID: uuid.NewString(), ReportType: "ai_readiness", Level: "basic", Config: "{}"}
			if err := s.Reports.Create(ctx, org.ID, r); err != nil {
				t.Fatal(err)
			}
			c := &models.Certificate{ID: uuid.NewString(), ReportID: r.ID, VerificationHash: hash, Grade: "B", Score: 85, Body: "{}", IssuedAt: at}
			if _, err := s.Certificates.Issue(ctx, org.ID, c); err != nil {
				t.Fatal(err)
			}
			if complete {
				if err := s.Reports.Complete(ctx, org.ID, r.ID, "k", 1, "", "report", nil, at); err != nil {
					t.Fatal(err)
				}
			} else if err := s.Reports.Fail(ctx, org.ID, r.ID, "broken", at); err != nil {
				t.Fatal(err)
			}
			return r
		}
		good := issue(true, base, "aa")
		issue(false, base.Add(time.Hour), "bb")
		later := issue(true, base.Add(2*time.Hour), "cc")
		if c, err := s.Certificates.ByHash(ctx, "aa"); err != nil || c.ReportID != good.ID {
			t.Fatalf("ByHash of a complete report: %v %v", c, err)
		}
		if _, err := s.Certificates.ByHash(ctx, "bb"); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("ByHash of a failed report: %v", err)
		}
		h, err := s.Certificates.History(ctx, org.ID, later.ID, base.Add(3*time.Hour), 10)
		if err != nil || len(h) != 1 || h[0].ReportID != good.ID {
			t.Fatalf("history = %+v, %v; want the first report's only", h, err)
		}
		again, err := s.Certificates.Issue(ctx, org.ID, &models.Certificate{ID: uuid.NewString(), ReportID: good.ID, VerificationHash: "dd", Body: "{}", IssuedAt: base})
		if err != nil || again.VerificationHash != "aa" {
			t.Fatalf("issuing twice: %+v, %v; want the first certificate", again, err)
		}
	})
}

// TestLatestPerNameKeepsEveryDataset: a dataset analysed long ago is in a
// report's scope beside one analysed many times since, each at its
// latest upload, most recent first; the date range applies.
func TestLatestPerNameKeepsEveryDataset(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
		add := func(orgID, name string, at time.Time) int64 {
			score := 90.0
			f := &models.File{OrgID: orgID, JobID: "job_" + uuid.NewString()[:12], FileName: name, Status: models.FileCompleted,
				QualityScore: &score, CreatedAt: at, CompletedAt: &at}
			if err := db.Gorm.Create(f).Error; err != nil {
				t.Fatal(err)
			}
			return f.ID
		}
		old := add(org.ID, "customers.csv", base)
		var newest int64
		for i := range 30 {
			newest = add(org.ID, "events.csv", base.Add(time.Duration(i+1)*time.Hour))
		}
		add(other.ID, "secret.csv", base.Add(time.Minute))
		ids, names, err := s.Files.LatestPerName(ctx, org.ID, models.ReportScope{}, 200)
		if err != nil || names != 2 || len(ids) != 2 || ids[0] != newest || ids[1] != old {
			t.Fatalf("latest = %v of %d names, %v; want [%d %d]", ids, names, err, newest, old)
		}
		ids, names, _ = s.Files.LatestPerName(ctx, org.ID, models.ReportScope{}, 1)
		if len(ids) != 1 || names != 2 {
			t.Fatalf("limited to 1: %v of %d", ids, names)
		}
		to := base.Add(time.Hour)
		ids, names, _ = s.Files.LatestPerName(ctx, org.ID, models.ReportScope{To: &to}, 200)
		if len(ids) != 1 || ids[0] != old || names != 1 {
			t.Fatalf("before the first event: %v of %d", ids, names)
		}
	})
}
