package models_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// whNew returns an unsaved webhook subscribed to types.

// allWebhooks is a page that holds every webhook an organisation may have.
var allWebhooks = models.Page{Limit: models.MaxWebhooks}

func whNew(name string, enabled bool, types ...string) *models.Webhook {
	w := &models.Webhook{Name: name, Platform: "slack", URLSealed: "sealed-" + name, URLTail: "…" + name,
		URLLength: 60, Enabled: enabled, CreatedBy: "user-1"}
	w.SetEvents(types)
	return w
}

func whCreate(t *testing.T, s *models.Stores, orgID, name string, enabled bool, types ...string) *models.Webhook {
	t.Helper()
	w := whNew(name, enabled, types...)
	if err := s.Webhooks.Create(context.Background(), orgID, w); err != nil {
		t.Fatalf("create webhook %s: %v", name, err)
	}
	return w
}

func whGet(t *testing.T, s *models.Stores, orgID, id string) *models.Webhook {
	t.Helper()
	w, err := s.Webhooks.Get(context.Background(), orgID, id)
	if err != nil {
		t.Fatalf("get webhook %s: %v", id, err)
	}
	return w
}

func whNames(ws []models.Webhook) []string {
	out := []string{}
	for _, w := range ws {
		out = append(out, w.Name)
	}
	return out
}

func TestWebhooksCreate(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		before := time.Now().UTC().Add(-time.Second)
		w := whNew("alerts", true, "quality_drop", "gdpr_detected")
		w.OrgID = other.ID // overwritten: the org is the argument's
		if err := s.Webhooks.Create(ctx, org.ID, w); err != nil {
			t.Fatal(err)
		}
		after := time.Now().UTC().Add(time.Second)
		if w.ID == "" || w.OrgID != org.ID {
			t.Fatalf("created webhook id %q org %q, want an id in org %s", w.ID, w.OrgID, org.ID)
		}
		if w.CreatedAt.Before(before) || w.CreatedAt.After(after) || !w.UpdatedAt.Equal(w.CreatedAt) || w.CreatedAt.Location() != time.UTC {
			t.Fatalf("timestamps created %v updated %v, want now in UTC", w.CreatedAt, w.UpdatedAt)
		}
		got := whGet(t, s, org.ID, w.ID)
		if got.Name != "alerts" || got.Platform != "slack" || got.URLSealed != "sealed-alerts" || got.URLTail != "…alerts" ||
			got.URLLength != 60 || !got.Enabled || got.CreatedBy != "user-1" || got.OrgID != org.ID {
			t.Fatalf("stored webhook = %+v", got)
		}
		if !slices.Equal(got.Events(), []string{"quality_drop", "gdpr_detected"}) {
			t.Fatalf("events = %v", got.Events())
		}
		if got.ConsecutiveFailures != 0 || got.LastDeliveryAt != nil || got.LastDeliveryStatus != "" {
			t.Fatalf("new webhook has delivery state: %+v", got)
		}
		if d := got.CreatedAt.Sub(w.CreatedAt); d < -time.Microsecond || d > time.Microsecond {
			t.Fatalf("stored created_at %v, want %v", got.CreatedAt, w.CreatedAt)
		}
		if _, err := s.Webhooks.Get(ctx, other.ID, w.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("created in the org given by the webhook? Get in other org = %v", err)
		}
		// A caller-given id is kept.
		w2 := whNew("given", true, "new_issue")
		w2.ID = models.NewID()
		id := w2.ID
		if err := s.Webhooks.Create(ctx, org.ID, w2); err != nil {
			t.Fatal(err)
		}
		if w2.ID != id || whGet(t, s, org.ID, id).Name != "given" {
			t.Fatalf("given id %s not kept: %s", id, w2.ID)
		}
	})
}

func TestWebhooksLimit(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		if models.MaxWebhooks != 10 {
			t.Fatalf("MaxWebhooks = %d, want 10", models.MaxWebhooks)
		}
		var first *models.Webhook
		for i := range models.MaxWebhooks {
			w := whCreate(t, s, org.ID, fmt.Sprintf("w%02d", i), i%2 == 0, "quality_drop")
			if first == nil {
				first = w
			}
		}
		// Disabled webhooks count as well.
		eleventh := whNew("w10", true, "quality_drop")
		err := s.Webhooks.Create(ctx, org.ID, eleventh)
		wantErr(t, err, errs.ErrLimitExceeded)
		if got := errs.Public(err); got.Code != "limit_exceeded" || got.Status != 409 {
			t.Fatalf("public error = %+v, want limit_exceeded 409", got)
		}
		list, _, err := s.Webhooks.List(ctx, org.ID, allWebhooks)
		if err != nil || len(list) != models.MaxWebhooks {
			t.Fatalf("after a refused create: %d webhooks, %v", len(list), err)
		}
		if slices.Contains(whNames(list), "w10") {
			t.Fatal("the refused webhook was stored")
		}

		// Another organisation is unaffected.
		for i := range models.MaxWebhooks {
			whCreate(t, s, other.ID, fmt.Sprintf("o%02d", i), true, "new_issue")
		}
		wantErr(t, s.Webhooks.Create(ctx, other.ID, whNew("o10", true)), errs.ErrLimitExceeded)

		// Deleting one frees a place.
		if err := s.Webhooks.Delete(ctx, org.ID, first.ID); err != nil {
			t.Fatal(err)
		}
		whCreate(t, s, org.ID, "w10", true, "quality_drop")
		wantErr(t, s.Webhooks.Create(ctx, org.ID, whNew("w11", true)), errs.ErrLimitExceeded)
	})
}

func TestWebhooksLimitAllowsAFreshOrg(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		s := models.NewStores(db)
		full, fresh := newOrg(t, s, "Full"), newOrg(t, s, "Fresh")
		for i := range models.MaxWebhooks {
			whCreate(t, s, full.ID, fmt.Sprintf("f%02d", i), true)
		}
		whCreate(t, s, fresh.ID, "first", true)
		list, _, err := s.Webhooks.List(context.Background(), fresh.ID, allWebhooks)
		if err != nil || len(list) != 1 {
			t.Fatalf("fresh org: %v, %v", whNames(list), err)
		}
	})
}

func TestWebhooksConcurrentCreateRespectsLimit(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		whCreate(t, s, other.ID, "theirs", true)
		const workers = models.MaxWebhooks + 5
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make(chan error, workers)
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results <- s.Webhooks.Create(ctx, org.ID, whNew(fmt.Sprintf("c%02d", i), true, "quality_drop"))
			}()
		}
		close(start)
		wg.Wait()
		close(results)
		ok, refused := 0, 0
		for err := range results {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, errs.ErrLimitExceeded):
				refused++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		list, _, err := s.Webhooks.List(ctx, org.ID, allWebhooks)
		if err != nil {
			t.Fatal(err)
		}
		if ok != models.MaxWebhooks || refused != workers-models.MaxWebhooks || len(list) != models.MaxWebhooks {
			t.Fatalf("created %d, refused %d, listed %d; want %d, %d, %d", ok, refused, len(list),
				models.MaxWebhooks, workers-models.MaxWebhooks, models.MaxWebhooks)
		}
		if theirs, _, _ := s.Webhooks.List(ctx, other.ID, allWebhooks); len(theirs) != 1 {
			t.Fatalf("other org has %d webhooks, want 1", len(theirs))
		}
	})
}

func TestWebhooksListIsTheOrgsOldestFirst(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other, empty := newOrg(t, s, "Acme"), newOrg(t, s, "Other"), newOrg(t, s, "Empty")
		var want []string
		for i := range 6 {
			name := fmt.Sprintf("mine-%d", i)
			whCreate(t, s, org.ID, name, i != 3, "quality_drop")
			want = append(want, name)
			whCreate(t, s, other.ID, fmt.Sprintf("theirs-%d", i), true, "quality_drop")
			time.Sleep(2 * time.Millisecond) // distinct created_at at microsecond precision
		}
		list, _, err := s.Webhooks.List(ctx, org.ID, allWebhooks)
		if err != nil {
			t.Fatal(err)
		}
		if got := whNames(list); !slices.Equal(got, want) {
			t.Fatalf("List = %v, want %v", got, want)
		}
		for _, w := range list {
			if w.OrgID != org.ID {
				t.Fatalf("List returned %s of org %s", w.Name, w.OrgID)
			}
		}
		none, total, err := s.Webhooks.List(ctx, empty.ID, allWebhooks)
		if err != nil || len(none) != 0 || total != 0 {
			t.Fatalf("List of an org without webhooks = %v, total %d, %v", whNames(none), total, err)
		}
		// A page is a slice of the same order; the total counts the whole list.
		page, total, err := s.Webhooks.List(ctx, org.ID, models.Page{Limit: 2, Offset: 3})
		if err != nil || total != 6 || !slices.Equal(whNames(page), want[3:5]) {
			t.Fatalf("List(limit 2, offset 3) = %v, total %d, %v; want %v, 6", whNames(page), total, err, want[3:5])
		}
		if past, total, err := s.Webhooks.List(ctx, org.ID, models.Page{Limit: 2, Offset: 6}); err != nil || len(past) != 0 || total != 6 {
			t.Fatalf("List past the end = %v, total %d, %v", whNames(past), total, err)
		}
	})
}

func TestWebhooksGetOfAnotherOrgLooksMissing(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		w := whCreate(t, s, org.ID, "alerts", true, "quality_drop")
		_, errOther := s.Webhooks.Get(ctx, other.ID, w.ID)
		wantErr(t, errOther, errs.ErrNotFound)
		_, errMissing := s.Webhooks.Get(ctx, org.ID, models.NewID())
		wantErr(t, errMissing, errs.ErrNotFound)
		if errOther.Error() != errMissing.Error() {
			t.Fatalf("another org's webhook (%v) can be told from a missing one (%v)", errOther, errMissing)
		}
		if got := whGet(t, s, org.ID, w.ID); got.ID != w.ID {
			t.Fatalf("Get = %+v", got)
		}
	})
}

func TestWebhooksSave(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		w := whCreate(t, s, org.ID, "alerts", true, "quality_drop")
		at := testNow().Add(-time.Hour)
		for range 3 {
			if err := s.Webhooks.RecordDelivery(ctx, org.ID, w.ID, false, at); err != nil {
				t.Fatal(err)
			}
		}
		stored := whGet(t, s, org.ID, w.ID)
		time.Sleep(2 * time.Millisecond)

		// The caller's copy carries stale or forged delivery state; Save
		// must not write it.
		edit := *stored
		edit.Name = "renamed"
		edit.Platform = "teams"
		edit.URLSealed = "sealed-new"
		edit.URLTail = "…new"
		edit.URLLength = 77
		edit.SetEvents([]string{"scan_failure"})
		edit.Enabled = false
		edit.ConsecutiveFailures = 0
		edit.LastDeliveryAt = nil
		edit.LastDeliveryStatus = models.DeliveryOK
		edit.CreatedBy = "someone-else"
		edit.CreatedAt = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := s.Webhooks.Save(ctx, org.ID, &edit); err != nil {
			t.Fatal(err)
		}
		got := whGet(t, s, org.ID, w.ID)
		if got.Name != "renamed" || got.Platform != "teams" || got.URLSealed != "sealed-new" || got.URLTail != "…new" ||
			got.URLLength != 77 || got.Enabled || !slices.Equal(got.Events(), []string{"scan_failure"}) {
			t.Fatalf("editable fields not saved: %+v", got)
		}
		if got.ConsecutiveFailures != 3 || got.LastDeliveryStatus != models.DeliveryFailed ||
			got.LastDeliveryAt == nil || !got.LastDeliveryAt.Equal(at) {
			t.Fatalf("Save changed the delivery state: failures %d, status %q, at %v; want 3, failed, %v",
				got.ConsecutiveFailures, got.LastDeliveryStatus, got.LastDeliveryAt, at)
		}
		if got.CreatedBy != "user-1" || !got.CreatedAt.Equal(stored.CreatedAt) || got.OrgID != org.ID {
			t.Fatalf("Save changed creation fields: %+v", got)
		}
		if !got.UpdatedAt.After(stored.UpdatedAt) {
			t.Fatalf("updated_at %v not after %v", got.UpdatedAt, stored.UpdatedAt)
		}

		// Enabling again is saved too (false -> true).
		got.Enabled = true
		if err := s.Webhooks.Save(ctx, org.ID, got); err != nil {
			t.Fatal(err)
		}
		if !whGet(t, s, org.ID, w.ID).Enabled {
			t.Fatal("enabled not saved")
		}

		// A missing id is not found.
		ghost := *got
		ghost.ID = models.NewID()
		wantErr(t, s.Webhooks.Save(ctx, org.ID, &ghost), errs.ErrNotFound)
	})
}

func TestWebhooksSaveAndDeleteOfAnotherOrg(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		w := whCreate(t, s, org.ID, "alerts", true, "quality_drop")
		before := whGet(t, s, org.ID, w.ID)

		edit := *before
		edit.Name = "hijacked"
		edit.URLSealed = "attacker"
		edit.Enabled = false
		edit.SetEvents([]string{"gdpr_detected"})
		wantErr(t, s.Webhooks.Save(ctx, other.ID, &edit), errs.ErrNotFound)
		wantErr(t, s.Webhooks.Delete(ctx, other.ID, w.ID), errs.ErrNotFound)

		after := whGet(t, s, org.ID, w.ID)
		if after.Name != "alerts" || after.URLSealed != "sealed-alerts" || !after.Enabled || after.OrgID != org.ID ||
			!slices.Equal(after.Events(), []string{"quality_drop"}) || !after.UpdatedAt.Equal(before.UpdatedAt) {
			t.Fatalf("another org's Save or Delete changed the webhook: %+v", after)
		}
		if theirs, _, _ := s.Webhooks.List(ctx, other.ID, allWebhooks); len(theirs) != 0 {
			t.Fatalf("another org's Save created %v", whNames(theirs))
		}

		// The owner deletes it; twice is not found.
		if err := s.Webhooks.Delete(ctx, org.ID, w.ID); err != nil {
			t.Fatal(err)
		}
		_, err := s.Webhooks.Get(ctx, org.ID, w.ID)
		wantErr(t, err, errs.ErrNotFound)
		wantErr(t, s.Webhooks.Delete(ctx, org.ID, w.ID), errs.ErrNotFound)
	})
}

func TestWebhooksSubscribed(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		drop := whCreate(t, s, org.ID, "drop", true, "quality_drop")
		both := whCreate(t, s, org.ID, "both", true, "gdpr_detected", "quality_drop")
		whCreate(t, s, org.ID, "disabled", false, "quality_drop")
		whCreate(t, s, org.ID, "gdpr", true, "gdpr_detected")
		whCreate(t, s, org.ID, "lookalike", true, "quality_drop_extra", "xquality_drop")
		whCreate(t, s, org.ID, "none", true)
		theirs := whCreate(t, s, other.ID, "theirs", true, "quality_drop")

		ids, err := s.Webhooks.Subscribed(ctx, org.ID, "quality_drop")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{drop.ID, both.ID}
		slices.Sort(ids)
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Fatalf("Subscribed(quality_drop) = %v, want %v (drop, both)", ids, want)
		}
		if ids, err := s.Webhooks.Subscribed(ctx, org.ID, "scan_failure"); err != nil || len(ids) != 0 {
			t.Fatalf("Subscribed(scan_failure) = %v, %v; want none", ids, err)
		}
		if ids, err := s.Webhooks.Subscribed(ctx, other.ID, "quality_drop"); err != nil || !slices.Equal(ids, []string{theirs.ID}) {
			t.Fatalf("other org Subscribed = %v, %v; want only its own", ids, err)
		}
		if ids, err := s.Webhooks.Subscribed(ctx, other.ID, "gdpr_detected"); err != nil || len(ids) != 0 {
			t.Fatalf("other org Subscribed(gdpr_detected) = %v, %v; want none", ids, err)
		}
	})
}

func TestWebhooksRecordDelivery(t *testing.T) {
	east := time.FixedZone("UTC+2", 2*60*60)
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		w := whCreate(t, s, org.ID, "alerts", true, "quality_drop")
		sibling := whCreate(t, s, org.ID, "sibling", true, "quality_drop")

		check := func(failures int, status string, at time.Time) {
			t.Helper()
			got := whGet(t, s, org.ID, w.ID)
			if got.ConsecutiveFailures != failures || got.LastDeliveryStatus != status ||
				got.LastDeliveryAt == nil || !got.LastDeliveryAt.Equal(at) {
				t.Fatalf("after delivery: failures %d, status %q, at %v; want %d, %q, %v",
					got.ConsecutiveFailures, got.LastDeliveryStatus, got.LastDeliveryAt, failures, status, at)
			}
			// Stored as the UTC instant (on SQLite times are text).
			var n int64
			if err := db.Gorm.Model(&models.Webhook{}).Where("id = ? AND last_delivery_at = ?", w.ID, at.UTC()).Count(&n).Error; err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Fatalf("last_delivery_at is not stored as the UTC instant %v", at.UTC())
			}
		}

		t1 := testNow().In(east)
		if err := s.Webhooks.RecordDelivery(ctx, org.ID, w.ID, false, t1); err != nil {
			t.Fatal(err)
		}
		check(1, models.DeliveryFailed, t1)
		t2 := t1.Add(time.Minute)
		if err := s.Webhooks.RecordDelivery(ctx, org.ID, w.ID, false, t2); err != nil {
			t.Fatal(err)
		}
		check(2, models.DeliveryFailed, t2)
		t3 := t2.Add(time.Minute)
		if err := s.Webhooks.RecordDelivery(ctx, org.ID, w.ID, true, t3); err != nil {
			t.Fatal(err)
		}
		check(0, models.DeliveryOK, t3)
		t4 := t3.Add(time.Minute)
		if err := s.Webhooks.RecordDelivery(ctx, org.ID, w.ID, false, t4); err != nil {
			t.Fatal(err)
		}
		check(1, models.DeliveryFailed, t4)
		if models.DeliveryOK != "success" || models.DeliveryFailed != "failed" {
			t.Fatalf("statuses %q, %q; want success, failed", models.DeliveryOK, models.DeliveryFailed)
		}

		// Another organisation cannot record on it.
		_ = s.Webhooks.RecordDelivery(ctx, other.ID, w.ID, true, t4.Add(time.Hour))
		_ = s.Webhooks.RecordDelivery(ctx, other.ID, w.ID, false, t4.Add(time.Hour))
		check(1, models.DeliveryFailed, t4)

		// The sibling is untouched.
		if sib := whGet(t, s, org.ID, sibling.ID); sib.ConsecutiveFailures != 0 || sib.LastDeliveryAt != nil || sib.LastDeliveryStatus != "" {
			t.Fatalf("sibling changed: %+v", sib)
		}
	})
}

func TestWebhooksConcurrentFailuresAreAllCounted(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		w := whCreate(t, s, org.ID, "alerts", true, "quality_drop")
		const workers = 20
		now := testNow()
		var wg sync.WaitGroup
		start := make(chan struct{})
		results := make(chan error, workers)
		for i := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results <- s.Webhooks.RecordDelivery(ctx, org.ID, w.ID, false, now.Add(time.Duration(i)*time.Second))
			}()
		}
		close(start)
		wg.Wait()
		close(results)
		for err := range results {
			if err != nil {
				t.Errorf("RecordDelivery: %v", err)
			}
		}
		got := whGet(t, s, org.ID, w.ID)
		if got.ConsecutiveFailures != workers || got.LastDeliveryStatus != models.DeliveryFailed {
			t.Fatalf("after %d concurrent failures: failures %d, status %q", workers, got.ConsecutiveFailures, got.LastDeliveryStatus)
		}
	})
}

// --- Files.PreviousAnalysis --------------------------------------------------

func TestFilesPreviousAnalysis(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		job := func(orgID string) string {
			t.Helper()
			j := &models.Job{RetentionMode: "short_term", RetentionDays: 30, CreatedAt: time.Now().UTC()}
			if err := s.Jobs.Create(ctx, orgID, j); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}
		// file creates a file; score < 0 leaves it unanalysed, "failed"
		// marks it failed.
		file := func(orgID, name, state string, score float64) *models.File {
			t.Helper()
			f := &models.File{JobID: job(orgID), FileName: name, StorageKey: "k", SizeBytes: 1, CreatedAt: time.Now().UTC()}
			if err := s.Files.Create(ctx, orgID, f); err != nil {
				t.Fatal(err)
			}
			switch state {
			case models.FileCompleted:
				if err := s.Files.SaveResult(ctx, orgID, f.ID, models.FileResult{Format: "csv", QualityScore: score, Profile: "{}"}, time.Now()); err != nil {
					t.Fatal(err)
				}
			case models.FileFailed:
				if err := s.Files.SetStatus(ctx, orgID, f.ID, models.FileFailed, 100, "boom"); err != nil {
					t.Fatal(err)
				}
			case models.FileProcessing:
				if err := s.Files.SetStatus(ctx, orgID, f.ID, models.FileProcessing, 50, ""); err != nil {
					t.Fatal(err)
				}
			}
			return f
		}
		first := file(org.ID, "sales.csv", models.FileCompleted, 60)
		latest := file(org.ID, "sales.csv", models.FileCompleted, 70)
		file(org.ID, "sales.csv", models.FileFailed, 0)                     // newer, but failed
		file(org.ID, "sales.csv", models.FileProcessing, 0)                 // newer, but not analysed
		file(org.ID, "SALES.csv", models.FileCompleted, 1)                  // another name
		file(org.ID, "sales.csv.bak", models.FileCompleted, 2)              // another name
		theirs := file(other.ID, "sales.csv", models.FileCompleted, 80)     // newer, another org
		cur := file(org.ID, "sales.csv", models.FileProcessing, 0)          // the file being analysed
		file(org.ID, "sales.csv", models.FileCompleted, 90)                 // later than cur
		theirsLater := file(other.ID, "sales.csv", models.FileCompleted, 5) // later, another org

		prev, err := s.Files.PreviousAnalysis(ctx, org.ID, "sales.csv", cur.ID)
		if err != nil {
			t.Fatal(err)
		}
		if prev == nil || prev.ID != latest.ID {
			t.Fatalf("PreviousAnalysis = %+v, want file %d", prev, latest.ID)
		}
		if prev.OrgID != org.ID || prev.Status != models.FileCompleted || prev.QualityScore == nil || *prev.QualityScore != 70 {
			t.Fatalf("PreviousAnalysis = %+v, want the completed file scored 70", prev)
		}

		// Before the latest: the first one.
		if prev, err := s.Files.PreviousAnalysis(ctx, org.ID, "sales.csv", latest.ID); err != nil || prev == nil || prev.ID != first.ID {
			t.Fatalf("before file %d: %+v, %v; want file %d", latest.ID, prev, err, first.ID)
		}
		// Before the first: none.
		if prev, err := s.Files.PreviousAnalysis(ctx, org.ID, "sales.csv", first.ID); err != nil || prev != nil {
			t.Fatalf("before the first file: %+v, %v; want nil", prev, err)
		}
		// A name never analysed: none.
		if prev, err := s.Files.PreviousAnalysis(ctx, org.ID, "other.csv", cur.ID+100); err != nil || prev != nil {
			t.Fatalf("unknown name: %+v, %v; want nil", prev, err)
		}
		// The other org sees its own only.
		if prev, err := s.Files.PreviousAnalysis(ctx, other.ID, "sales.csv", theirsLater.ID); err != nil || prev == nil || prev.ID != theirs.ID {
			t.Fatalf("other org: %+v, %v; want file %d", prev, err, theirs.ID)
		}
		if prev, err := s.Files.PreviousAnalysis(ctx, other.ID, "sales.csv", theirs.ID); err != nil || prev != nil {
			t.Fatalf("other org before its first: %+v, %v; want nil (not org A's files)", prev, err)
		}
		// An org without files: none.
		empty := newOrg(t, s, "Empty")
		if prev, err := s.Files.PreviousAnalysis(ctx, empty.ID, "sales.csv", cur.ID+100); err != nil || prev != nil {
			t.Fatalf("empty org: %+v, %v; want nil", prev, err)
		}
	})
}
