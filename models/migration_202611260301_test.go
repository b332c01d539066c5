package models_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestMigratingToNullTokens: jobs and organisations of a database built
// before null tokens read the defaults afterwards, and a list, empty
// included, round-trips.
func TestMigratingToNullTokens(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			db := openMigratedTo(t, d, migrationBefore(t, "202611260301_null_tokens"))
			org := insertOldOrg(t, db, "org-before")
			s := models.NewStores(db)
			// The jobs table has no null_tokens yet: a row as the old
			// release wrote it.
			err := db.Gorm.Table("jobs").Create(map[string]any{"id": "job_aaaaaaaaaaaa", "org_id": org.ID, "status": "created",
				"filenames": `["a.csv"]`, "retention_mode": "short_term", "retention_days": 30, "created_at": time.Now().UTC()}).Error
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			if org, err = s.Orgs.Get(ctx, org.ID); err != nil || org.NullTokenList() != nil {
				t.Fatalf("old organisation: %+v, %v", org, err)
			}
			j, err := s.Jobs.Get(ctx, org.ID, "job_aaaaaaaaaaaa")
			if err != nil || j.NullTokenList() != nil {
				t.Fatalf("old job: %+v, %v", j, err)
			}
			for _, tokens := range [][]string{{"NULL", "—"}, {}, nil} {
				got, err := s.Orgs.UpdateSettings(ctx, org.ID, models.SettingsUpdate{SetNullTokens: true, NullTokens: tokens})
				if err != nil {
					t.Fatal(err)
				}
				again, err := s.Orgs.Get(ctx, org.ID)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.NullTokenList(), tokens) || !reflect.DeepEqual(again.NullTokenList(), tokens) {
					t.Errorf("stored %#v, read back %#v and %#v", tokens, got.NullTokenList(), again.NullTokenList())
				}
				job := &models.Job{Filenames: `["b.csv"]`, RetentionMode: "short_term", RetentionDays: 30,
					NullTokens: models.EncodeNullTokens(tokens), CreatedAt: time.Now().UTC()}
				if err := s.Jobs.Create(ctx, org.ID, job); err != nil {
					t.Fatal(err)
				}
				if back, err := s.Jobs.Get(ctx, org.ID, job.ID); err != nil || !reflect.DeepEqual(back.NullTokenList(), tokens) {
					t.Errorf("job stored %#v, read back %#v (%v)", tokens, back.NullTokenList(), err)
				}
			}
			// A settings change that leaves the tokens keeps them.
			s.Orgs.UpdateSettings(ctx, org.ID, models.SettingsUpdate{SetNullTokens: true, NullTokens: []string{"x"}})
			days := 7
			got, err := s.Orgs.UpdateSettings(ctx, org.ID, models.SettingsUpdate{RetentionDays: &days})
			if err != nil || !reflect.DeepEqual(got.NullTokenList(), []string{"x"}) {
				t.Errorf("after another change: %#v, %v", got.NullTokenList(), err)
			}
		})
	}
}
