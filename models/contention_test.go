package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestSourceDeleteRacesScanCreate: deleting a source while a scan of it
// starts ends one way or the other, never in a deadlock (both take the
// organisation's lock before the source's).
func TestSourceDeleteRacesScanCreate(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		for round := range 20 {
			src := &models.Source{Name: fmt.Sprint("lake-", round), Type: "s3", Config: "{}", CredentialsSealed: "sealed"}
			if err := s.Sources.Create(ctx, org.ID, src); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			var errDelete, errScan error
			wg.Add(2)
			go func() { defer wg.Done(); errDelete = s.Sources.Delete(ctx, org.ID, src.ID) }()
			go func() { defer wg.Done(); errScan = s.Scans.Create(ctx, org.ID, &models.Scan{SourceID: src.ID}) }()
			wg.Wait()
			if errDelete != nil {
				t.Fatalf("round %d: delete = %v", round, errDelete)
			}
			if errScan != nil && !errors.Is(errScan, errs.ErrNotFound) {
				t.Fatalf("round %d: scan = %v, want created or not found", round, errScan)
			}
		}
	})
}

// TestAlertRaiseRace: raisers of one alert at once all succeed, and
// exactly one of them creates it.
func TestAlertRaiseRace(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		for round := range 10 {
			var wg sync.WaitGroup
			var mu sync.Mutex
			created, ids := 0, map[int64]bool{}
			for range 6 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a := &models.Alert{DedupKey: fmt.Sprint("contract/1/scan-", round), Severity: models.SeverityWarning,
						Type: models.AlertContractViolation, Message: "m"}
					ok, err := s.Alerts.Raise(ctx, org.ID, a)
					mu.Lock()
					defer mu.Unlock()
					if err != nil {
						t.Errorf("round %d: raise = %v", round, err)
						return
					}
					if ok {
						created++
					}
					ids[a.ID] = true
				}()
			}
			wg.Wait()
			if created != 1 || len(ids) != 1 {
				t.Fatalf("round %d: %d raisers created it, %d alert ids; want 1 and 1", round, created, len(ids))
			}
		}
	})
}
