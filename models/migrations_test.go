package models_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

func TestMigrateIsIdempotent(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatalf("second migrate: %v", err)
		}
		var ids []string
		if err := db.Gorm.Table("schema_migrations").Order("id").Pluck("id", &ids).Error; err != nil {
			t.Fatal(err)
		}
		if strings.Join(ids, ",") != strings.Join(models.MigrationIDs(), ",") {
			t.Fatalf("applied %v, want %v", ids, models.MigrationIDs())
		}
	})
}

func TestAuditLogIsAppendOnlyInTheDatabase(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := &models.Organization{Name: "Acme"}
		if err := s.Orgs.Create(ctx, org); err != nil {
			t.Fatal(err)
		}
		if err := s.Audit.AppendBatch(ctx, []models.AuditLog{{OrgID: org.ID, Event: "login", CreatedAt: time.Now().UTC()}}); err != nil {
			t.Fatal(err)
		}
		if err := db.Gorm.Exec("UPDATE audit_logs SET event = 'logout'").Error; err == nil {
			t.Fatal("UPDATE on audit_logs succeeded; the table must be append-only")
		}
		if err := db.Gorm.Exec("DELETE FROM audit_logs").Error; err == nil {
			t.Fatal("DELETE on audit_logs succeeded; the table must be append-only")
		}
		var n int64
		db.Gorm.Table("audit_logs").Count(&n)
		if n != 1 {
			t.Fatalf("audit rows = %d after refused writes, want 1", n)
		}
		entries, total, err := s.Audit.List(ctx, org.ID, "", models.Page{Limit: 10})
		if err != nil || total != 1 || entries[0].Event != "login" {
			t.Fatalf("List = %+v, %d, %v", entries, total, err)
		}
	})
}

// TestMigratingFromJobsAndFilesBackfillsRetentionExpiry: jobs that ended before expiry times were
// stored get theirs from the migration, so the sweep finds them; jobs kept
// for good, still running or already deleted get none.
func TestMigratingFromJobsAndFilesBackfillsRetentionExpiry(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			db := openMigratedTo(t, d, "202611210003_jobs_and_files")
			completed := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
			deleted := completed.Add(time.Hour)
			rows := []struct {
				id, mode string
				days     int
				done     *time.Time
				deleted  *time.Time
				want     *time.Time
			}{
				{"job_short", "short_term", 7, &completed, nil, ptr(completed.AddDate(0, 0, 7))},
				{"job_once", "analysis_only", 30, &completed, nil, ptr(completed.AddDate(0, 0, 1))},
				{"job_full", "full_retention", 0, &completed, nil, nil},
				{"job_running", "short_term", 7, nil, nil, nil},
				{"job_gone", "short_term", 7, &completed, &deleted, nil},
			}
			for _, r := range rows {
				err := db.Gorm.Exec(`INSERT INTO jobs (id, org_id, created_by, status, stage, progress, filenames, retention_mode, retention_days, error, created_at, completed_at, file_deleted_at)
					VALUES (?, 'org', '', 'completed', 'done', 100, '[]', ?, ?, '', ?, ?, ?)`, r.id, r.mode, r.days, completed, r.done, r.deleted).Error
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			for _, r := range rows {
				var j models.Job
				if err := db.Gorm.Where("id = ?", r.id).Take(&j).Error; err != nil {
					t.Fatal(err)
				}
				switch {
				case r.want == nil && j.RetentionExpiresAt != nil:
					t.Errorf("%s: retention_expires_at = %s, want null", r.id, j.RetentionExpiresAt)
				case r.want != nil && (j.RetentionExpiresAt == nil || !j.RetentionExpiresAt.Equal(*r.want)):
					t.Errorf("%s: retention_expires_at = %v, want %s", r.id, j.RetentionExpiresAt, r.want)
				}
			}
		})
	}
}
