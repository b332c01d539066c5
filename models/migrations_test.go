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
