package models_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// --- helpers ---------------------------------------------------------------

// testNow is a fixed instant at microsecond precision (what PostgreSQL keeps),
// in UTC, so values read back compare equal on both dialects.
func testNow() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func newOrg(t *testing.T, s *models.Stores, name string) *models.Organization {
	t.Helper()
	org := &models.Organization{Name: name}
	if err := s.Orgs.Create(context.Background(), org); err != nil {
		t.Fatalf("create org %s: %v", name, err)
	}
	return org
}

func newUser(t *testing.T, s *models.Stores, orgID, email string, role models.Role) *models.User {
	t.Helper()
	u := &models.User{Email: email, PasswordHash: "x", Role: role}
	if err := s.Users.Create(context.Background(), orgID, u); err != nil {
		t.Fatalf("create user %s: %v", email, err)
	}
	return u
}

// wantErr fails unless err matches target by errors.Is and carries the
// status of target.
func wantErr(t *testing.T, err error, target *errs.Error) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want %s", target.Code)
	}
	if !errors.Is(err, target) {
		t.Fatalf("err = %v, want %s", err, target.Code)
	}
	if got := errs.Public(err).Status; got != target.Status {
		t.Fatalf("status = %d, want %d", got, target.Status)
	}
}

func ptr[T any](v T) *T { return &v }

// --- Orgs ------------------------------------------------------------------

func TestOrgsCreateFillsDefaults(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		// Values set by the caller are overwritten by the defaults.
		org := &models.Organization{Name: "Acme", TokenBalance: 9999, RetentionMode: "forever", RetentionDays: 1,
			AnomalySensitivity: "high", TrustThreshold: 0.1, GDPRCheckEnabled: false}
		if err := s.Orgs.Create(ctx, org); err != nil {
			t.Fatal(err)
		}
		if org.ID == "" {
			t.Fatal("Create did not assign an id")
		}
		got, err := s.Orgs.Get(ctx, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []*models.Organization{org, got} {
			if o.Name != "Acme" || o.TokenBalance != 100 || o.RetentionMode != "short_term" || o.RetentionDays != 30 ||
				o.AnomalySensitivity != "medium" || o.TrustThreshold != 0.8 || !o.GDPRCheckEnabled {
				t.Fatalf("org = %+v, want the defaults", o)
			}
		}
		if got.CreatedAt.IsZero() || got.UpdatedAt.IsZero() {
			t.Fatalf("timestamps not set: %+v", got)
		}
		_, err = s.Orgs.Get(ctx, models.NewID())
		wantErr(t, err, errs.ErrNotFound)
	})
}

func TestOrgsUpdateSettingsIsPartial(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		type settings struct {
			mode      string
			days      int
			sens      string
			threshold float64
			gdpr      bool
		}
		defaults := settings{"short_term", 30, "medium", 0.8, true}
		cases := []struct {
			name string
			u    models.SettingsUpdate
			want settings
		}{
			{"nothing", models.SettingsUpdate{}, defaults},
			{"retention mode", models.SettingsUpdate{RetentionMode: ptr("long_term")}, settings{"long_term", 30, "medium", 0.8, true}},
			{"retention days", models.SettingsUpdate{RetentionDays: ptr(7)}, settings{"short_term", 7, "medium", 0.8, true}},
			{"sensitivity", models.SettingsUpdate{AnomalySensitivity: ptr("high")}, settings{"short_term", 30, "high", 0.8, true}},
			{"threshold", models.SettingsUpdate{TrustThreshold: ptr(0.55)}, settings{"short_term", 30, "medium", 0.55, true}},
			{"gdpr off", models.SettingsUpdate{GDPRCheckEnabled: ptr(false)}, settings{"short_term", 30, "medium", 0.8, false}},
			{"two fields", models.SettingsUpdate{RetentionDays: ptr(90), GDPRCheckEnabled: ptr(false)}, settings{"short_term", 90, "medium", 0.8, false}},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				org := newOrg(t, s, "Acme "+tc.name)
				other := newOrg(t, s, "Other "+tc.name)
				out, err := s.Orgs.UpdateSettings(ctx, org.ID, tc.u)
				if err != nil {
					t.Fatal(err)
				}
				got, err := s.Orgs.Get(ctx, org.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range []*models.Organization{out, got} {
					have := settings{o.RetentionMode, o.RetentionDays, o.AnomalySensitivity, o.TrustThreshold, o.GDPRCheckEnabled}
					if have != tc.want {
						t.Fatalf("settings = %+v, want %+v", have, tc.want)
					}
					if o.TokenBalance != 100 || o.Name != org.Name {
						t.Fatalf("UpdateSettings touched other columns: %+v", o)
					}
				}
				o, err := s.Orgs.Get(ctx, other.ID)
				if err != nil {
					t.Fatal(err)
				}
				if have := (settings{o.RetentionMode, o.RetentionDays, o.AnomalySensitivity, o.TrustThreshold, o.GDPRCheckEnabled}); have != defaults {
					t.Fatalf("another organisation changed: %+v", have)
				}
			})
		}
		_, err := s.Orgs.UpdateSettings(ctx, models.NewID(), models.SettingsUpdate{RetentionDays: ptr(1)})
		wantErr(t, err, errs.ErrNotFound)
	})
}

func TestOrgsAddAndSpendTokens(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		other := newOrg(t, s, "Other")

		steps := []struct {
			name    string
			add     bool
			n       int64
			want    int64 // balance afterwards
			wantErr bool  // insufficient_tokens
		}{
			{"add", true, 50, 150, false},
			{"spend", false, 30, 120, false},
			{"spend one too many", false, 121, 120, true},
			{"spend all", false, 120, 0, false},
			{"spend from zero", false, 1, 0, true},
			{"add again", true, 5, 5, false},
		}
		for _, st := range steps {
			var (
				bal int64
				err error
			)
			if st.add {
				bal, err = s.Orgs.AddTokens(ctx, org.ID, st.n)
			} else {
				bal, err = s.Orgs.SpendTokens(ctx, org.ID, st.n)
			}
			if st.wantErr {
				if err == nil {
					t.Fatalf("%s: err = nil, want insufficient_tokens", st.name)
				}
				pe := errs.Public(err)
				if pe.Status != http.StatusPaymentRequired || pe.Code != "insufficient_tokens" {
					t.Fatalf("%s: err = %v (status %d), want 402 insufficient_tokens", st.name, err, pe.Status)
				}
			} else {
				if err != nil {
					t.Fatalf("%s: %v", st.name, err)
				}
				if bal != st.want {
					t.Fatalf("%s: returned balance %d, want %d", st.name, bal, st.want)
				}
			}
			got, err := s.Orgs.Get(ctx, org.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.TokenBalance != st.want {
				t.Fatalf("%s: stored balance %d, want %d", st.name, got.TokenBalance, st.want)
			}
		}
		if o, err := s.Orgs.Get(ctx, other.ID); err != nil || o.TokenBalance != 100 {
			t.Fatalf("other org balance = %+v, %v; want 100 untouched", o, err)
		}
		_, err := s.Orgs.AddTokens(ctx, models.NewID(), 1)
		wantErr(t, err, errs.ErrNotFound)
		_, err = s.Orgs.SpendTokens(ctx, models.NewID(), 1)
		wantErr(t, err, errs.ErrNotFound)
	})
}

func TestOrgsConcurrentSpendNeverOverdraws(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		if bal, err := s.Orgs.SpendTokens(ctx, org.ID, 95); err != nil || bal != 5 {
			t.Fatalf("set up balance: %d, %v", bal, err)
		}
		const workers = 10
		var (
			wg       sync.WaitGroup
			start    = make(chan struct{})
			errsSeen = make(chan error, workers)
		)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := s.Orgs.SpendTokens(ctx, org.ID, 1)
				errsSeen <- err
			}()
		}
		close(start)
		wg.Wait()
		close(errsSeen)
		ok, refused := 0, 0
		for err := range errsSeen {
			switch {
			case err == nil:
				ok++
			case errs.Public(err).Code == "insufficient_tokens":
				refused++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		if ok != 5 || refused != 5 {
			t.Fatalf("succeeded %d, refused %d; want 5 and 5", ok, refused)
		}
		got, err := s.Orgs.Get(ctx, org.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.TokenBalance != 0 {
			t.Fatalf("balance = %d, want 0", got.TokenBalance)
		}
	})
}

// --- Users -----------------------------------------------------------------

func TestUsersEmailIsNormalisedAndUniquePerOrganisation(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		c := newOrg(t, s, "C")
		u := newUser(t, s, a.ID, "  Alice@Example.COM ", models.RoleAdmin)
		if u.Email != "alice@example.com" || u.OrgID != a.ID || u.ID == "" {
			t.Fatalf("created user = %+v", u)
		}
		got, err := s.Users.Get(ctx, a.ID, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Email != "alice@example.com" {
			t.Fatalf("stored e-mail = %q", got.Email)
		}
		// Within one organisation an address is taken once, whatever its case.
		for _, email := range []string{"alice@example.com", "ALICE@example.com", "\tAlice@EXAMPLE.com  "} {
			err := s.Users.Create(ctx, a.ID, &models.User{Email: email, PasswordHash: "x", Role: models.RoleMember})
			wantErr(t, err, errs.ErrConflict)
			if strings.Contains(errs.Public(err).Message, b.ID) || !strings.Contains(errs.Public(err).Message, "this organization") {
				t.Fatalf("conflict message = %q", errs.Public(err).Message)
			}
		}
		// Other organisations may hold the same address, each once.
		inB := newUser(t, s, b.ID, "ALICE@example.com", models.RoleAdmin)
		inC := newUser(t, s, c.ID, "\tAlice@EXAMPLE.com  ", models.RoleMember)
		wantErr(t, s.Users.Create(ctx, b.ID, &models.User{Email: "alice@example.com", PasswordHash: "x", Role: models.RoleMember}), errs.ErrConflict)

		found, err := s.Users.ListByEmailForLogin(ctx, " ALICE@example.com")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, f := range found {
			ids = append(ids, f.OrgID+"/"+f.ID)
		}
		want := []string{a.ID + "/" + u.ID, b.ID + "/" + inB.ID, c.ID + "/" + inC.ID}
		if strings.Join(ids, ",") != strings.Join(want, ",") {
			t.Fatalf("ListByEmailForLogin = %v, want the three accounts oldest first %v", ids, want)
		}
		none, err := s.Users.ListByEmailForLogin(ctx, "nobody@example.com")
		if err != nil || len(none) != 0 {
			t.Fatalf("ListByEmailForLogin(unknown) = %v, %v; want none", none, err)
		}
		var n int64
		if err := db.Gorm.Model(&models.User{}).Count(&n).Error; err != nil || n != 3 {
			t.Fatalf("users = %d, %v; want 3", n, err)
		}
	})
}

// TestUsersConcurrentCreateOfOneAddressInOneOrganisation: the unique index
// decides, so of concurrent creations exactly one wins.
func TestUsersConcurrentCreateOfOneAddressInOneOrganisation(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "A")
		const n = 8
		errsCh := make(chan error, n)
		var wg sync.WaitGroup
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errsCh <- s.Users.Create(ctx, org.ID, &models.User{Email: "race@example.com", PasswordHash: "x", Role: models.RoleMember})
			}()
		}
		wg.Wait()
		close(errsCh)
		ok := 0
		for err := range errsCh {
			if err == nil {
				ok++
			} else {
				wantErr(t, err, errs.ErrConflict)
			}
		}
		if ok != 1 {
			t.Fatalf("%d of %d concurrent creations succeeded, want 1", ok, n)
		}
	})
}

func TestUsersGetOfAnotherOrgLooksMissing(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		u := newUser(t, s, a.ID, "alice@example.com", models.RoleAdmin)

		_, foreign := s.Users.Get(ctx, b.ID, u.ID)
		_, missing := s.Users.Get(ctx, b.ID, models.NewID())
		wantErr(t, foreign, errs.ErrNotFound)
		wantErr(t, missing, errs.ErrNotFound)
		if foreign.Error() != missing.Error() || errs.Public(foreign).Message != errs.Public(missing).Message {
			t.Fatalf("foreign %q and missing %q can be told apart", foreign, missing)
		}
		// Every tenant method hides the foreign user the same way.
		_, err := s.Users.SetRole(ctx, b.ID, u.ID, models.RoleMember)
		wantErr(t, err, errs.ErrNotFound)
		wantErr(t, s.Users.Delete(ctx, b.ID, u.ID), errs.ErrNotFound)
		wantErr(t, s.Users.MarkEmailVerified(ctx, b.ID, u.ID, testNow()), errs.ErrNotFound)
		wantErr(t, s.Users.EnableTOTP(ctx, b.ID, u.ID, "sealed", 1), errs.ErrNotFound)
		wantErr(t, s.Users.ClaimTOTPStep(ctx, b.ID, u.ID, 1), errs.ErrUnauthorized)
		got, err := s.Users.Get(ctx, a.ID, u.ID)
		if err != nil || got.Role != models.RoleAdmin || got.TOTPEnabled || got.EmailVerifiedAt != nil || got.TOTPLastStep != 0 {
			t.Fatalf("user changed through another org: %+v, %v", got, err)
		}
	})
}

func TestUsersListPages(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		base := testNow().Add(-time.Hour)
		var want []string
		for i := range 5 {
			email := fmt.Sprintf("user%d@a.example", i)
			u := &models.User{Email: email, PasswordHash: "x", Role: models.RoleMember, CreatedAt: base.Add(time.Duration(i) * time.Minute)}
			if err := s.Users.Create(ctx, a.ID, u); err != nil {
				t.Fatal(err)
			}
			want = append(want, email)
		}
		for i, email := range []string{"x@b.example", "y@b.example"} {
			u := &models.User{Email: email, PasswordHash: "x", Role: models.RoleMember, CreatedAt: base.Add(time.Duration(i) * time.Second)}
			if err := s.Users.Create(ctx, b.ID, u); err != nil {
				t.Fatal(err)
			}
		}

		for _, tc := range []struct {
			org    string
			page   models.Page
			emails []string
			total  int64
		}{
			{a.ID, models.Page{Limit: 100}, want, 5},
			{a.ID, models.Page{Limit: 2}, want[0:2], 5},
			{a.ID, models.Page{Limit: 2, Offset: 2}, want[2:4], 5},
			{a.ID, models.Page{Limit: 2, Offset: 4}, want[4:5], 5},
			{a.ID, models.Page{Limit: 2, Offset: 10}, nil, 5},
			{b.ID, models.Page{Limit: 100}, []string{"x@b.example", "y@b.example"}, 2},
			{models.NewID(), models.Page{Limit: 100}, nil, 0},
		} {
			t.Run(fmt.Sprintf("%.8s/%d+%d", tc.org, tc.page.Offset, tc.page.Limit), func(t *testing.T) {
				users, total, err := s.Users.List(ctx, tc.org, tc.page)
				if err != nil {
					t.Fatal(err)
				}
				if total != tc.total {
					t.Fatalf("total = %d, want %d", total, tc.total)
				}
				var got []string
				for _, u := range users {
					if u.OrgID != tc.org {
						t.Fatalf("List(%s) returned a user of org %s", tc.org, u.OrgID)
					}
					got = append(got, u.Email)
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.emails) {
					t.Fatalf("emails = %v, want %v", got, tc.emails)
				}
			})
		}
	})
}

func TestUsersLastAdminIsProtected(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		admin1 := newUser(t, s, org.ID, "admin1@example.com", models.RoleAdmin)
		member := newUser(t, s, org.ID, "member@example.com", models.RoleMember)
		// Another org's admins do not count.
		other := newOrg(t, s, "Other")
		newUser(t, s, other.ID, "admin@other.example", models.RoleAdmin)

		role := func(id string) models.Role {
			t.Helper()
			u, err := s.Users.Get(ctx, org.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return u.Role
		}

		// Alone, the admin can be neither demoted nor deleted.
		_, err := s.Users.SetRole(ctx, org.ID, admin1.ID, models.RoleMember)
		wantErr(t, err, errs.ErrConflict)
		wantErr(t, s.Users.Delete(ctx, org.ID, admin1.ID), errs.ErrConflict)
		if role(admin1.ID) != models.RoleAdmin {
			t.Fatal("refused demotion changed the role")
		}
		// Setting the role it already has is fine.
		if u, err := s.Users.SetRole(ctx, org.ID, admin1.ID, models.RoleAdmin); err != nil || u.Role != models.RoleAdmin {
			t.Fatalf("SetRole(admin→admin) = %+v, %v", u, err)
		}

		// With a second admin, the first can be demoted…
		if u, err := s.Users.SetRole(ctx, org.ID, member.ID, models.RoleAdmin); err != nil || u.Role != models.RoleAdmin {
			t.Fatalf("promote = %+v, %v", u, err)
		}
		if u, err := s.Users.SetRole(ctx, org.ID, admin1.ID, models.RoleMember); err != nil || u.Role != models.RoleMember {
			t.Fatalf("demote with two admins = %+v, %v", u, err)
		}
		if role(admin1.ID) != models.RoleMember {
			t.Fatal("demotion not stored")
		}
		// …and now the promoted member is the last admin.
		_, err = s.Users.SetRole(ctx, org.ID, member.ID, models.RoleMember)
		wantErr(t, err, errs.ErrConflict)
		wantErr(t, s.Users.Delete(ctx, org.ID, member.ID), errs.ErrConflict)

		// A member can always be deleted; an admin when another admin exists.
		if err := s.Users.Delete(ctx, org.ID, admin1.ID); err != nil {
			t.Fatalf("delete member: %v", err)
		}
		admin3 := newUser(t, s, org.ID, "admin3@example.com", models.RoleAdmin)
		if err := s.Users.Delete(ctx, org.ID, member.ID); err != nil {
			t.Fatalf("delete admin with another admin: %v", err)
		}
		_, err = s.Users.Get(ctx, org.ID, member.ID)
		wantErr(t, err, errs.ErrNotFound)
		wantErr(t, s.Users.Delete(ctx, org.ID, admin3.ID), errs.ErrConflict)
		wantErr(t, s.Users.Delete(ctx, org.ID, member.ID), errs.ErrNotFound)
	})
}

// TestUsersConcurrentDemotionKeepsAnAdmin interleaves two requests that
// each remove one of two admins (demote or delete), the way two concurrent
// requests can: the second counts the admins while the first is still open.
// Afterwards the organisation must still have an admin. SQLite serialises
// write transactions (BEGIN IMMEDIATE on one connection), so the
// interleaving cannot happen there; this runs on PostgreSQL only.
func TestUsersConcurrentDemotionKeepsAnAdmin(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		if db.Dialect != models.Postgres {
			t.Skip("SQLite serialises write transactions")
		}
		s := models.NewStores(db)
		demote := func(ctx context.Context, orgID, id string) error {
			_, err := s.Users.SetRole(ctx, orgID, id, models.RoleMember)
			return err
		}
		for _, tc := range []struct {
			name          string
			first, second func(ctx context.Context, orgID, id string) error
		}{
			{"demote/demote", demote, demote},
			{"delete/delete", s.Users.Delete, s.Users.Delete},
			{"demote/delete", demote, s.Users.Delete},
		} {
			t.Run(tc.name, func(t *testing.T) {
				ctx := context.Background()
				org := newOrg(t, s, "Acme")
				a1 := newUser(t, s, org.ID, "a1-"+org.ID+"@example.com", models.RoleAdmin)
				a2 := newUser(t, s, org.ID, "a2-"+org.ID+"@example.com", models.RoleAdmin)

				done := make(chan error, 1)
				outer := db.WithTx(ctx, func(txCtx context.Context) error {
					if err := tc.first(txCtx, org.ID, a1.ID); err != nil {
						return err
					}
					// The second request, on its own connection, while the
					// first is still open. If it blocks behind the first,
					// that is a correct serialisation: let the first commit
					// and collect the second afterwards.
					go func() { done <- tc.second(context.Background(), org.ID, a2.ID) }()
					select {
					case err := <-done:
						done <- err
					case <-time.After(2 * time.Second):
					}
					return nil
				})
				if outer != nil {
					t.Fatalf("first request: %v", outer)
				}
				var second error
				select {
				case second = <-done:
				case <-time.After(30 * time.Second):
					t.Fatal("second request never finished")
				}
				var admins int64
				if err := db.Gorm.Model(&models.User{}).Where("org_id = ? AND role = ?", org.ID, models.RoleAdmin).Count(&admins).Error; err != nil {
					t.Fatal(err)
				}
				if admins == 0 {
					t.Fatalf("both requests succeeded (second err = %v): the organization has no admin left", second)
				}
				wantErr(t, second, errs.ErrConflict)
			})
		}
	})
}

func TestUsersDeleteRemovesSessions(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		newUser(t, s, org.ID, "admin@example.com", models.RoleAdmin)
		gone := newUser(t, s, org.ID, "gone@example.com", models.RoleMember)
		stays := newUser(t, s, org.ID, "stays@example.com", models.RoleMember)
		now := testNow()
		mk := func(userID, hash string) {
			t.Helper()
			err := s.RefreshTokens.Create(ctx, org.ID, &models.RefreshToken{UserID: userID, FamilyID: models.NewID(), TokenHash: hash, ExpiresAt: now.Add(time.Hour)})
			if err != nil {
				t.Fatal(err)
			}
		}
		mk(gone.ID, "gone-1")
		mk(gone.ID, "gone-2")
		mk(stays.ID, "stays-1")
		if err := s.EmailVerifications.Create(ctx, org.ID, &models.EmailVerification{UserID: gone.ID, TokenHash: "verify-gone", ExpiresAt: now.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}

		if err := s.Users.Delete(ctx, org.ID, gone.ID); err != nil {
			t.Fatal(err)
		}
		count := func(model any, userID string) int64 {
			t.Helper()
			var n int64
			if err := db.Gorm.Model(model).Where("user_id = ?", userID).Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			return n
		}
		if n := count(&models.RefreshToken{}, gone.ID); n != 0 {
			t.Fatalf("%d refresh tokens of the deleted user remain", n)
		}
		if n := count(&models.EmailVerification{}, gone.ID); n != 0 {
			t.Fatalf("%d e-mail verifications of the deleted user remain", n)
		}
		if n := count(&models.RefreshToken{}, stays.ID); n != 1 {
			t.Fatalf("other user's refresh tokens = %d, want 1", n)
		}
		_, err := s.RefreshTokens.Rotate(ctx, "gone-1", &models.RefreshToken{TokenHash: "gone-3", ExpiresAt: now.Add(time.Hour)}, now)
		wantErr(t, err, errs.ErrUnauthorized)
	})
}

func TestUsersTOTP(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		u := newUser(t, s, org.ID, "alice@example.com", models.RoleAdmin)
		get := func() *models.User {
			t.Helper()
			got, err := s.Users.Get(ctx, org.ID, u.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}

		if err := s.Users.SetPendingTOTP(ctx, org.ID, u.ID, "sealed-pending"); err != nil {
			t.Fatal(err)
		}
		if g := get(); g.TOTPPendingSecret != "sealed-pending" || g.TOTPEnabled || g.TOTPSecret != "" {
			t.Fatalf("after SetPendingTOTP: %+v", g)
		}
		if err := s.Users.EnableTOTP(ctx, org.ID, u.ID, "sealed-pending", 1000); err != nil {
			t.Fatal(err)
		}
		if g := get(); g.TOTPSecret != "sealed-pending" || g.TOTPPendingSecret != "" || !g.TOTPEnabled || g.TOTPLastStep != 1000 {
			t.Fatalf("after EnableTOTP: %+v", g)
		}

		for _, tc := range []struct {
			step int64
			ok   bool
		}{
			{1000, false}, // the step of the enabling code
			{999, false},
			{1001, true},
			{1001, false}, // replay
			{1000, false},
			{1005, true},
			{1003, false},
		} {
			err := s.Users.ClaimTOTPStep(ctx, org.ID, u.ID, tc.step)
			if tc.ok && err != nil {
				t.Fatalf("claim %d: %v", tc.step, err)
			}
			if !tc.ok {
				wantErr(t, err, errs.ErrUnauthorized)
			}
		}
		if g := get(); g.TOTPLastStep != 1005 {
			t.Fatalf("last step = %d, want 1005", g.TOTPLastStep)
		}

		if err := s.Users.DisableTOTP(ctx, org.ID, u.ID); err != nil {
			t.Fatal(err)
		}
		if g := get(); g.TOTPSecret != "" || g.TOTPPendingSecret != "" || g.TOTPEnabled || g.TOTPLastStep != 0 {
			t.Fatalf("after DisableTOTP: %+v", g)
		}
		wantErr(t, s.Users.DisableTOTP(ctx, org.ID, models.NewID()), errs.ErrNotFound)

		at := testNow()
		if err := s.Users.MarkEmailVerified(ctx, org.ID, u.ID, at); err != nil {
			t.Fatal(err)
		}
		if g := get(); g.EmailVerifiedAt == nil || !g.EmailVerifiedAt.Equal(at) {
			t.Fatalf("email_verified_at = %v, want %v", g.EmailVerifiedAt, at)
		}
	})
}

// --- RefreshTokens ---------------------------------------------------------

func TestRefreshTokensRotateAndReuse(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		u := newUser(t, s, org.ID, "alice@example.com", models.RoleAdmin)
		now := testNow()
		family := models.NewID()
		first := &models.RefreshToken{UserID: u.ID, FamilyID: family, TokenHash: "h1", ExpiresAt: now.Add(time.Hour)}
		if err := s.RefreshTokens.Create(ctx, org.ID, first); err != nil {
			t.Fatal(err)
		}
		// Another session of the same user must survive the reuse below.
		otherSession := &models.RefreshToken{UserID: u.ID, FamilyID: models.NewID(), TokenHash: "other-1", ExpiresAt: now.Add(time.Hour)}
		if err := s.RefreshTokens.Create(ctx, org.ID, otherSession); err != nil {
			t.Fatal(err)
		}

		// The caller leaves org, user and family to Rotate.
		next := &models.RefreshToken{TokenHash: "h2", ExpiresAt: now.Add(2 * time.Hour)}
		old, err := s.RefreshTokens.Rotate(ctx, "h1", next, now)
		if err != nil {
			t.Fatal(err)
		}
		if old.ID != first.ID || old.OrgID != org.ID || old.UserID != u.ID || old.FamilyID != family {
			t.Fatalf("Rotate returned %+v, want the old token", old)
		}
		if next.ID == "" || next.OrgID != org.ID || next.UserID != u.ID || next.FamilyID != family {
			t.Fatalf("next = %+v, want org, user and family of the old token", next)
		}
		var stored models.RefreshToken
		if err := db.Gorm.Where("token_hash = ?", "h2").Take(&stored).Error; err != nil {
			t.Fatalf("next token not stored: %v", err)
		}
		if stored.FamilyID != family || stored.OrgID != org.ID || stored.UserID != u.ID || stored.RotatedAt != nil || stored.RevokedAt != nil {
			t.Fatalf("stored next = %+v", stored)
		}
		var rotated models.RefreshToken
		if err := db.Gorm.Where("token_hash = ?", "h1").Take(&rotated).Error; err != nil || rotated.RotatedAt == nil || !rotated.RotatedAt.Equal(now) {
			t.Fatalf("old token not marked rotated at %v: %+v, %v", now, rotated, err)
		}

		// Presenting h1 again is reuse: the family is revoked.
		later := now.Add(time.Minute)
		_, err = s.RefreshTokens.Rotate(ctx, "h1", &models.RefreshToken{TokenHash: "h-stolen", ExpiresAt: now.Add(time.Hour)}, later)
		if err != models.ErrRefreshReused { //nolint:errorlint // the exact sentinel, not only its code
			t.Fatalf("reuse: err = %v, want ErrRefreshReused", err)
		}
		wantErr(t, err, errs.ErrUnauthorized)
		var n int64
		db.Gorm.Model(&models.RefreshToken{}).Where("token_hash = ?", "h-stolen").Count(&n)
		if n != 0 {
			t.Fatal("a token was issued on reuse")
		}
		var fam []models.RefreshToken
		if err := db.Gorm.Where("family_id = ?", family).Find(&fam).Error; err != nil || len(fam) != 2 {
			t.Fatalf("family = %d tokens, %v", len(fam), err)
		}
		for _, tok := range fam {
			if tok.RevokedAt == nil {
				t.Fatalf("token %s of the reused family is not revoked", tok.TokenHash)
			}
		}
		// The newer token of the family can no longer rotate.
		_, err = s.RefreshTokens.Rotate(ctx, "h2", &models.RefreshToken{TokenHash: "h3", ExpiresAt: now.Add(time.Hour)}, later)
		wantErr(t, err, errs.ErrUnauthorized)
		if err == models.ErrRefreshReused { //nolint:errorlint
			t.Fatal("a revoked (never rotated) token reported as reused")
		}
		// The other session is untouched.
		if _, err := s.RefreshTokens.Rotate(ctx, "other-1", &models.RefreshToken{TokenHash: "other-2", ExpiresAt: now.Add(time.Hour)}, later); err != nil {
			t.Fatalf("other session: %v", err)
		}
	})
}

func TestRefreshTokensRotateRefusesInvalid(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		u := newUser(t, s, org.ID, "alice@example.com", models.RoleAdmin)
		now := testNow()
		for _, tc := range []struct {
			hash    string
			expires time.Time
		}{
			{"expired", now.Add(-time.Second)},
			{"expires-now", now},
		} {
			if err := s.RefreshTokens.Create(ctx, org.ID, &models.RefreshToken{UserID: u.ID, FamilyID: models.NewID(), TokenHash: tc.hash, ExpiresAt: tc.expires}); err != nil {
				t.Fatal(err)
			}
		}
		for _, h := range []string{"expired", "expires-now", "unknown"} {
			t.Run(h, func(t *testing.T) {
				next := &models.RefreshToken{TokenHash: "next-" + h, ExpiresAt: now.Add(time.Hour)}
				_, err := s.RefreshTokens.Rotate(ctx, h, next, now)
				wantErr(t, err, errs.ErrUnauthorized)
				if err == models.ErrRefreshReused { //nolint:errorlint
					t.Fatal("reported as reuse")
				}
				var n int64
				db.Gorm.Model(&models.RefreshToken{}).Where("token_hash = ?", next.TokenHash).Count(&n)
				if n != 0 {
					t.Fatal("a token was issued")
				}
			})
		}
	})
}

func TestRefreshTokensRevokeFamilyByHash(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		u := newUser(t, s, org.ID, "alice@example.com", models.RoleAdmin)
		now := testNow()
		fam1, fam2 := models.NewID(), models.NewID()
		for _, tok := range []*models.RefreshToken{
			{UserID: u.ID, FamilyID: fam1, TokenHash: "f1-a", ExpiresAt: now.Add(time.Hour)},
			{UserID: u.ID, FamilyID: fam1, TokenHash: "f1-b", ExpiresAt: now.Add(time.Hour)},
			{UserID: u.ID, FamilyID: fam2, TokenHash: "f2-a", ExpiresAt: now.Add(time.Hour)},
		} {
			if err := s.RefreshTokens.Create(ctx, org.ID, tok); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.RefreshTokens.RevokeFamilyByHash(ctx, "f1-b", now)
		if err != nil {
			t.Fatal(err)
		}
		if got.TokenHash != "f1-b" || got.OrgID != org.ID || got.UserID != u.ID || got.FamilyID != fam1 {
			t.Fatalf("RevokeFamilyByHash returned %+v", got)
		}
		var toks []models.RefreshToken
		if err := db.Gorm.Order("token_hash").Find(&toks).Error; err != nil {
			t.Fatal(err)
		}
		for _, tok := range toks {
			revoked := tok.RevokedAt != nil
			if revoked != (tok.FamilyID == fam1) {
				t.Fatalf("token %s revoked = %v", tok.TokenHash, revoked)
			}
		}
		_, err = s.RefreshTokens.Rotate(ctx, "f1-a", &models.RefreshToken{TokenHash: "f1-c", ExpiresAt: now.Add(time.Hour)}, now)
		wantErr(t, err, errs.ErrUnauthorized)
		if _, err := s.RefreshTokens.Rotate(ctx, "f2-a", &models.RefreshToken{TokenHash: "f2-b", ExpiresAt: now.Add(time.Hour)}, now); err != nil {
			t.Fatalf("other family: %v", err)
		}
		_, err = s.RefreshTokens.RevokeFamilyByHash(ctx, "unknown", now)
		wantErr(t, err, errs.ErrNotFound)
	})
}

func TestRefreshTokensPurgeExpired(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		ua := newUser(t, s, a.ID, "a@example.com", models.RoleAdmin)
		ub := newUser(t, s, b.ID, "b@example.com", models.RoleAdmin)
		now := testNow()
		for _, tc := range []struct {
			org, user, hash string
			expires         time.Time
		}{
			{a.ID, ua.ID, "rt-old", now.Add(-2 * time.Hour)},
			{b.ID, ub.ID, "rt-recent", now.Add(-time.Second)},
			{a.ID, ua.ID, "rt-live", now.Add(time.Hour)},
			{b.ID, ub.ID, "rt-live-b", now.Add(time.Second)},
		} {
			if err := s.RefreshTokens.Create(ctx, tc.org, &models.RefreshToken{UserID: tc.user, FamilyID: models.NewID(), TokenHash: tc.hash, ExpiresAt: tc.expires}); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			hash    string
			expires time.Time
		}{
			{"ev-old", now.Add(-time.Hour)},
			{"ev-live", now.Add(time.Hour)},
		} {
			if err := s.EmailVerifications.Create(ctx, a.ID, &models.EmailVerification{UserID: ua.ID, TokenHash: tc.hash, ExpiresAt: tc.expires}); err != nil {
				t.Fatal(err)
			}
		}

		n, err := s.RefreshTokens.PurgeExpired(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Fatalf("purged %d rows, want 3", n)
		}
		var rts, evs []string
		db.Gorm.Model(&models.RefreshToken{}).Order("token_hash").Pluck("token_hash", &rts)
		db.Gorm.Model(&models.EmailVerification{}).Order("token_hash").Pluck("token_hash", &evs)
		if fmt.Sprint(rts) != "[rt-live rt-live-b]" || fmt.Sprint(evs) != "[ev-live]" {
			t.Fatalf("left refresh tokens %v and verifications %v", rts, evs)
		}
		if n, err := s.RefreshTokens.PurgeExpired(ctx, now); err != nil || n != 0 {
			t.Fatalf("second purge = %d, %v; want 0", n, err)
		}
	})
}

// --- EmailVerifications ----------------------------------------------------

func TestEmailVerificationsConsume(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		u := newUser(t, s, org.ID, "alice@example.com", models.RoleAdmin)
		now := testNow()
		live := &models.EmailVerification{UserID: u.ID, TokenHash: "live", ExpiresAt: now.Add(time.Hour)}
		expired := &models.EmailVerification{UserID: u.ID, TokenHash: "expired", ExpiresAt: now.Add(-time.Second)}
		for _, v := range []*models.EmailVerification{live, expired} {
			if err := s.EmailVerifications.Create(ctx, org.ID, v); err != nil {
				t.Fatal(err)
			}
		}

		v, err := s.EmailVerifications.Consume(ctx, "live", now)
		if err != nil {
			t.Fatal(err)
		}
		if v.ID != live.ID || v.OrgID != org.ID || v.UserID != u.ID {
			t.Fatalf("Consume = %+v", v)
		}
		var stored models.EmailVerification
		if err := db.Gorm.Where("id = ?", live.ID).Take(&stored).Error; err != nil || stored.UsedAt == nil || !stored.UsedAt.Equal(now) {
			t.Fatalf("used_at = %v, %v; want %v", stored.UsedAt, err, now)
		}

		for _, tc := range []struct{ name, hash string }{
			{"second use", "live"},
			{"expired", "expired"},
			{"unknown", "unknown"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := s.EmailVerifications.Consume(ctx, tc.hash, now.Add(time.Second))
				wantErr(t, err, errs.ErrBadRequest)
			})
		}
		var again models.EmailVerification
		if err := db.Gorm.Where("id = ?", expired.ID).Take(&again).Error; err != nil || again.UsedAt != nil {
			t.Fatalf("expired token marked used: %+v, %v", again, err)
		}
	})
}

// --- APIKeys ---------------------------------------------------------------

func newKey(s *models.Stores, orgID, createdBy, name string, createdAt time.Time) (*models.APIKey, error) {
	k := &models.APIKey{Name: name, Scope: models.ScopeRead, KeyPrefix: "dqs_live_" + name, KeyHash: "hash-" + models.NewID(),
		CreatedBy: createdBy, CreatedAt: createdAt}
	return k, s.APIKeys.Create(context.Background(), orgID, k)
}

func TestAPIKeysLimit(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		u := newUser(t, s, a.ID, "alice@example.com", models.RoleAdmin)
		now := testNow()
		var keys []*models.APIKey
		for i := range models.MaxAPIKeys {
			k, err := newKey(s, a.ID, u.ID, fmt.Sprintf("k%02d", i), now)
			if err != nil {
				t.Fatalf("key %d: %v", i, err)
			}
			if k.ID == "" || k.OrgID != a.ID {
				t.Fatalf("created key = %+v", k)
			}
			keys = append(keys, k)
		}
		_, err := newKey(s, a.ID, u.ID, "one-too-many", now)
		wantErr(t, err, errs.ErrLimitExceeded)
		if errs.Public(err).Code != "limit_exceeded" {
			t.Fatalf("code = %s", errs.Public(err).Code)
		}
		// The limit is per organisation.
		if _, err := newKey(s, b.ID, u.ID, "b-key", now); err != nil {
			t.Fatalf("other org: %v", err)
		}
		// Revoking one frees exactly one slot.
		if _, err := s.APIKeys.Revoke(ctx, a.ID, keys[3].ID, now); err != nil {
			t.Fatal(err)
		}
		if _, err := newKey(s, a.ID, u.ID, "replacement", now); err != nil {
			t.Fatalf("after revoke: %v", err)
		}
		_, err = newKey(s, a.ID, u.ID, "again-too-many", now)
		wantErr(t, err, errs.ErrLimitExceeded)
	})
}

func TestAPIKeysConcurrentCreateRespectsLimit(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		now := testNow()
		const workers = models.MaxAPIKeys + 5
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make(chan error, workers)
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := newKey(s, org.ID, "creator", fmt.Sprintf("k%02d", i), now)
				results <- err
			}()
		}
		close(start)
		wg.Wait()
		close(results)
		ok := 0
		for err := range results {
			if err == nil {
				ok++
			} else if !errors.Is(err, errs.ErrLimitExceeded) {
				t.Errorf("unexpected error: %v", err)
			}
		}
		_, total, err := s.APIKeys.List(context.Background(), org.ID, models.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if ok != models.MaxAPIKeys || total != models.MaxAPIKeys {
			t.Fatalf("created %d (listed %d), want %d", ok, total, models.MaxAPIKeys)
		}
	})
}

func TestAPIKeysRevokeAuthenticateList(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		now := testNow()
		var keys []*models.APIKey
		for i := range 4 {
			k, err := newKey(s, a.ID, "creator", fmt.Sprintf("k%d", i), now.Add(time.Duration(i)*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		bKey, err := newKey(s, b.ID, "creator", "b", now)
		if err != nil {
			t.Fatal(err)
		}

		// Another org's key is not found, and stays active.
		_, err = s.APIKeys.Revoke(ctx, b.ID, keys[1].ID, now)
		wantErr(t, err, errs.ErrNotFound)
		_, missing := s.APIKeys.Revoke(ctx, b.ID, models.NewID(), now)
		if err.Error() != missing.Error() {
			t.Fatalf("foreign %q and missing %q differ", err, missing)
		}
		if k, err := s.APIKeys.AuthenticateByHash(ctx, keys[1].KeyHash); err != nil || k.ID != keys[1].ID || k.OrgID != a.ID {
			t.Fatalf("AuthenticateByHash = %+v, %v", k, err)
		}

		revoked, err := s.APIKeys.Revoke(ctx, a.ID, keys[1].ID, now)
		if err != nil {
			t.Fatal(err)
		}
		if revoked.ID != keys[1].ID || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(now) {
			t.Fatalf("Revoke = %+v", revoked)
		}
		_, err = s.APIKeys.Revoke(ctx, a.ID, keys[1].ID, now)
		wantErr(t, err, errs.ErrNotFound)

		for _, tc := range []struct {
			name, hash string
			wantID     string
		}{
			{"active", keys[0].KeyHash, keys[0].ID},
			{"other org", bKey.KeyHash, bKey.ID},
			{"revoked", keys[1].KeyHash, ""},
			{"unknown", "nope", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				k, err := s.APIKeys.AuthenticateByHash(ctx, tc.hash)
				if tc.wantID == "" {
					wantErr(t, err, errs.ErrUnauthorized)
					return
				}
				if err != nil || k.ID != tc.wantID {
					t.Fatalf("AuthenticateByHash = %+v, %v", k, err)
				}
			})
		}

		for _, tc := range []struct {
			org   string
			page  models.Page
			want  []string
			total int64
		}{
			{a.ID, models.Page{Limit: 10}, []string{"k3", "k2", "k0"}, 3},
			{a.ID, models.Page{Limit: 2}, []string{"k3", "k2"}, 3},
			{a.ID, models.Page{Limit: 2, Offset: 2}, []string{"k0"}, 3},
			{b.ID, models.Page{Limit: 10}, []string{"b"}, 1},
		} {
			list, total, err := s.APIKeys.List(ctx, tc.org, tc.page)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, k := range list {
				if k.RevokedAt != nil || k.OrgID != tc.org {
					t.Fatalf("List returned %+v", k)
				}
				names = append(names, k.Name)
			}
			if total != tc.total || fmt.Sprint(names) != fmt.Sprint(tc.want) {
				t.Fatalf("List(%+v) = %v (total %d), want %v (total %d)", tc.page, names, total, tc.want, tc.total)
			}
		}
	})
}

func TestAPIKeysTouchLastUsed(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		now := testNow()
		k, err := newKey(s, a.ID, "creator", "k", now)
		if err != nil {
			t.Fatal(err)
		}
		lastUsed := func() *time.Time {
			t.Helper()
			var got models.APIKey
			if err := db.Gorm.Where("id = ?", k.ID).Take(&got).Error; err != nil {
				t.Fatal(err)
			}
			return got.LastUsedAt
		}
		if lastUsed() != nil {
			t.Fatal("a new key has last_used_at")
		}
		for _, tc := range []struct {
			name string
			org  string
			at   time.Time
			want time.Time // zero: still unset
		}{
			{"other org does nothing", b.ID, now, time.Time{}},
			{"first use", a.ID, now, now},
			{"30s later is not written", a.ID, now.Add(30 * time.Second), now},
			{"exactly a minute later is not written", a.ID, now.Add(time.Minute), now},
			{"61s later is written", a.ID, now.Add(61 * time.Second), now.Add(61 * time.Second)},
			{"an earlier time never moves it back", a.ID, now.Add(10 * time.Second), now.Add(61 * time.Second)},
		} {
			if err := s.APIKeys.TouchLastUsed(ctx, tc.org, k.ID, tc.at); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got := lastUsed()
			switch {
			case tc.want.IsZero() && got != nil:
				t.Fatalf("%s: last_used_at = %v, want unset", tc.name, got)
			case !tc.want.IsZero() && (got == nil || !got.Equal(tc.want)):
				t.Fatalf("%s: last_used_at = %v, want %v", tc.name, got, tc.want)
			}
		}
	})
}

// --- AuditLogs -------------------------------------------------------------

func TestAuditLogsList(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a := newOrg(t, s, "A")
		b := newOrg(t, s, "B")
		ua := newUser(t, s, a.ID, "alice@a.example", models.RoleAdmin)
		ub := newUser(t, s, b.ID, "bob@b.example", models.RoleAdmin)
		base := testNow().Add(-time.Hour)
		at := func(m int) time.Time { return base.Add(time.Duration(m) * time.Minute) }
		entries := []models.AuditLog{
			{OrgID: a.ID, UserID: &ua.ID, Event: "login", CreatedAt: at(0)},
			{OrgID: a.ID, UserID: &ua.ID, Event: "api_key.created", CreatedAt: at(1), Metadata: `{"prefix":"dqs_live_abc"}`},
			{OrgID: a.ID, UserID: nil, Event: "login_failed", CreatedAt: at(2), IPAddress: "192.0.2.1"},
			{OrgID: a.ID, UserID: &ua.ID, Event: "login", CreatedAt: at(3)},
			{OrgID: b.ID, UserID: &ub.ID, Event: "login", CreatedAt: at(4)},
			// An entry of B naming A's user must not reveal A's user's e-mail.
			{OrgID: b.ID, UserID: &ua.ID, Event: "login_failed", CreatedAt: at(5)},
		}
		if err := s.Audit.AppendBatch(ctx, entries); err != nil {
			t.Fatal(err)
		}
		if err := s.Audit.AppendBatch(ctx, nil); err != nil {
			t.Fatalf("empty batch: %v", err)
		}

		type row struct {
			event string
			email string // "-" for nil
		}
		for _, tc := range []struct {
			name  string
			org   string
			event string
			page  models.Page
			want  []row
			total int64
		}{
			{"all of A", a.ID, "", models.Page{Limit: 10},
				[]row{{"login", "alice@a.example"}, {"login_failed", "-"}, {"api_key.created", "alice@a.example"}, {"login", "alice@a.example"}}, 4},
			{"page of A", a.ID, "", models.Page{Limit: 2, Offset: 1},
				[]row{{"login_failed", "-"}, {"api_key.created", "alice@a.example"}}, 4},
			{"A logins", a.ID, "login", models.Page{Limit: 10},
				[]row{{"login", "alice@a.example"}, {"login", "alice@a.example"}}, 2},
			{"A logins, second page", a.ID, "login", models.Page{Limit: 1, Offset: 1},
				[]row{{"login", "alice@a.example"}}, 2},
			{"A unknown event", a.ID, "nope", models.Page{Limit: 10}, nil, 0},
			{"all of B", b.ID, "", models.Page{Limit: 10},
				[]row{{"login_failed", "-"}, {"login", "bob@b.example"}}, 2},
			{"B api keys", b.ID, "api_key.created", models.Page{Limit: 10}, nil, 0},
			{"unknown org", models.NewID(), "", models.Page{Limit: 10}, nil, 0},
		} {
			t.Run(tc.name, func(t *testing.T) {
				list, total, err := s.Audit.List(ctx, tc.org, tc.event, tc.page)
				if err != nil {
					t.Fatal(err)
				}
				if total != tc.total {
					t.Fatalf("total = %d, want %d", total, tc.total)
				}
				var got []row
				for i, e := range list {
					if e.OrgID != tc.org {
						t.Fatalf("entry of org %s listed for %s", e.OrgID, tc.org)
					}
					if i > 0 && e.CreatedAt.After(list[i-1].CreatedAt) {
						t.Fatalf("not newest first: %v after %v", e.CreatedAt, list[i-1].CreatedAt)
					}
					email := "-"
					if e.UserEmail != nil {
						email = *e.UserEmail
					}
					got = append(got, row{e.Event, email})
				}
				if fmt.Sprint(got) != fmt.Sprint(tc.want) {
					t.Fatalf("entries = %v, want %v", got, tc.want)
				}
			})
		}

		list, _, err := s.Audit.List(ctx, a.ID, "api_key.created", models.Page{Limit: 1})
		if err != nil || len(list) != 1 {
			t.Fatalf("List = %v, %v", list, err)
		}
		e := list[0]
		if e.ID == "" || e.Metadata != `{"prefix":"dqs_live_abc"}` || e.UserID == nil || *e.UserID != ua.ID || !e.CreatedAt.Equal(at(1)) {
			t.Fatalf("entry = %+v", e)
		}
		list, _, err = s.Audit.List(ctx, a.ID, "login_failed", models.Page{Limit: 1})
		if err != nil || len(list) != 1 || list[0].Metadata != "{}" || list[0].IPAddress != "192.0.2.1" || list[0].UserID != nil {
			t.Fatalf("login_failed entry = %+v, %v", list, err)
		}
	})
}

// TestStoresTimeArgumentsAreZoneIndependent: a time.Time is an instant, so
// the stores must behave the same whatever its Location. Rows written by
// gorm use UTC (NowFunc) and the tests above use UTC, but a caller passing
// time.Now() on a host whose local zone is not UTC must get the same result.
func TestStoresTimeArgumentsAreZoneIndependent(t *testing.T) {
	east := time.FixedZone("UTC+2", 2*60*60)
	west := time.FixedZone("UTC-5", -5*60*60)
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		u := newUser(t, s, org.ID, "alice@example.com", models.RoleAdmin)
		now := testNow()

		t.Run("PurgeExpired", func(t *testing.T) {
			for _, tok := range []*models.RefreshToken{
				{UserID: u.ID, FamilyID: models.NewID(), TokenHash: "zone-live", ExpiresAt: now.Add(time.Hour)},
				{UserID: u.ID, FamilyID: models.NewID(), TokenHash: "zone-dead", ExpiresAt: now.Add(-time.Hour)},
			} {
				if err := s.RefreshTokens.Create(ctx, org.ID, tok); err != nil {
					t.Fatal(err)
				}
			}
			for _, cutoff := range []time.Time{now.In(east), now.In(west)} {
				if _, err := s.RefreshTokens.PurgeExpired(ctx, cutoff); err != nil {
					t.Fatal(err)
				}
			}
			var left []string
			db.Gorm.Model(&models.RefreshToken{}).Where("token_hash LIKE 'zone-%'").Pluck("token_hash", &left)
			if fmt.Sprint(left) != "[zone-live]" {
				t.Fatalf("after purging at %v in other zones, refresh tokens left = %v, want [zone-live]", now, left)
			}
		})

		t.Run("TouchLastUsed", func(t *testing.T) {
			k, err := newKey(s, org.ID, u.ID, "zone", now)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.APIKeys.TouchLastUsed(ctx, org.ID, k.ID, now); err != nil {
				t.Fatal(err)
			}
			if err := s.APIKeys.TouchLastUsed(ctx, org.ID, k.ID, now.Add(10*time.Second).In(east)); err != nil {
				t.Fatal(err)
			}
			var got models.APIKey
			if err := db.Gorm.Where("id = ?", k.ID).Take(&got).Error; err != nil {
				t.Fatal(err)
			}
			if got.LastUsedAt == nil || !got.LastUsedAt.Equal(now) {
				t.Fatalf("last_used_at = %v, want %v (a use 10s later must not be written)", got.LastUsedAt, now)
			}
		})
	})
}
