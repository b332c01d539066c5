package models_test

import (
	"context"
	"testing"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// openMigratedTo opens a new database of dialect d with the migrations up
// to and including id applied, as an older release left it.
func openMigratedTo(t *testing.T, d models.Dialect, id string) *models.DB {
	t.Helper()
	db, err := models.Open(modelstest.URL(t, d))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.MigrateTo(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	return db
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
			a := newOrg(t, s, "A")
			b := newOrg(t, s, "B")
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
