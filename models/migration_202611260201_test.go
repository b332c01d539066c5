package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// openEmpty opens a new database of dialect d without any migration.
func openEmpty(t *testing.T, d models.Dialect) *models.DB {
	t.Helper()
	db, err := models.Open(modelstest.URL(t, d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openMigratedTo opens a new database of dialect d with the migrations up
// to and including id applied, as an older release left it.
func openMigratedTo(t *testing.T, d models.Dialect, id string) *models.DB {
	t.Helper()
	db := openEmpty(t, d)
	if err := db.MigrateTo(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	return db
}

// insertOldOrg stores an organisation as a release before null tokens
// wrote it: the live Orgs.Create writes columns such a database lacks.
func insertOldOrg(t *testing.T, db *models.DB, id string) *models.Organization {
	t.Helper()
	now := time.Now().UTC()
	err := db.Gorm.Table("organizations").Create(map[string]any{"id": id, "name": id, "token_balance": 100,
		"retention_mode": "short_term", "retention_days": 30, "anomaly_sensitivity": "medium", "trust_threshold": 0.8,
		"gdpr_check_enabled": true, "created_at": now, "updated_at": now}).Error
	if err != nil {
		t.Fatal(err)
	}
	return &models.Organization{ID: id}
}

// migrationBefore returns the id of the migration applied just before id.
func migrationBefore(t *testing.T, id string) string {
	t.Helper()
	ids := models.MigrationIDs()
	for i, m := range ids {
		if m == id && i > 0 {
			return ids[i-1]
		}
	}
	t.Fatalf("no migration before %s in %v", id, ids)
	return ""
}

// TestMigratingToEmailPerOrganisation: users of a database built before the
// change keep their accounts and can sign in; afterwards an address may be
// taken again in another organisation, never twice in one.
func TestMigratingToEmailPerOrganisation(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			db := openMigratedTo(t, d, migrationBefore(t, "202611260201_users_email_per_org"))
			s := models.NewStores(db)
			a := insertOldOrg(t, db, "org-a")
			b := insertOldOrg(t, db, "org-b")
			old := newUser(t, s, a.ID, "old@example.com", models.RoleAdmin)
			// Before: the address is taken across the service.
			wantErr(t, s.Users.Create(ctx, b.ID, &models.User{Email: "old@example.com", PasswordHash: "x", Role: models.RoleAdmin}), errs.ErrConflict)

			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			found, err := s.Users.ListByEmailForLogin(ctx, "old@example.com")
			if err != nil || len(found) != 1 || found[0].ID != old.ID {
				t.Fatalf("after the migration ListByEmailForLogin = %+v, %v", found, err)
			}
			newUser(t, s, b.ID, "old@example.com", models.RoleAdmin)
			wantErr(t, s.Users.Create(ctx, a.ID, &models.User{Email: "OLD@example.com", PasswordHash: "x", Role: models.RoleMember}), errs.ErrConflict)
			wantErr(t, s.Users.Create(ctx, b.ID, &models.User{Email: "old@example.com", PasswordHash: "x", Role: models.RoleMember}), errs.ErrConflict)
			if found, _ := s.Users.ListByEmailForLogin(ctx, "old@example.com"); len(found) != 2 {
				t.Fatalf("accounts of old@example.com = %d, want 2", len(found))
			}
		})
	}
}
