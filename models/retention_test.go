package models_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// --- helpers of the retention tests ----------------------------------------

// retJob creates a started job of the organisation.
func retJob(t *testing.T, s *models.Stores, orgID, mode string, days int) *models.Job {
	t.Helper()
	ctx := context.Background()
	j := &models.Job{RetentionMode: mode, RetentionDays: days, CreatedAt: time.Now().UTC()}
	if err := s.Jobs.Create(ctx, orgID, j); err != nil {
		t.Fatalf("create job: %v", err)
	}
	if _, err := s.Jobs.Start(ctx, orgID, j.ID, mode, days, time.Now()); err != nil {
		t.Fatalf("start job: %v", err)
	}
	return j
}

// retFinished creates a completed job whose files expire at expires (nil:
// never).
func retFinished(t *testing.T, s *models.Stores, orgID string, expires *time.Time) *models.Job {
	t.Helper()
	mode := "short_term"
	if expires == nil {
		mode = "full_retention"
	}
	j := retJob(t, s, orgID, mode, 7)
	if err := s.Jobs.Finish(context.Background(), orgID, j.ID, models.JobCompleted, "", time.Now(), expires); err != nil {
		t.Fatalf("finish job: %v", err)
	}
	return j
}

func retFile(t *testing.T, s *models.Stores, orgID, jobID, name, key string) *models.File {
	t.Helper()
	f := &models.File{JobID: jobID, FileName: name, StorageKey: key, SizeBytes: 10, CreatedAt: time.Now().UTC()}
	if err := s.Files.Create(context.Background(), orgID, f); err != nil {
		t.Fatalf("create file: %v", err)
	}
	return f
}

// --- Jobs.Finish -----------------------------------------------------------

func TestJobsFinishStoresRetentionExpiryInUTC(t *testing.T) {
	east := time.FixedZone("UTC+2", 2*60*60)
	west := time.FixedZone("UTC-7", -7*60*60)
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		completed := time.Date(2026, time.May, 4, 9, 30, 15, 123456000, west)
		expires := completed.Add(30 * 24 * time.Hour).In(east)

		j := retJob(t, s, org.ID, "short_term", 30)
		if err := s.Jobs.Finish(ctx, org.ID, j.ID, models.JobCompleted, "", completed, &expires); err != nil {
			t.Fatal(err)
		}
		got, err := s.Jobs.Get(ctx, org.ID, j.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != models.JobCompleted || got.Stage != "done" || got.Progress != 100 || got.FileDeletedAt != nil {
			t.Fatalf("finished job = %+v", got)
		}
		if got.CompletedAt == nil || !got.CompletedAt.Equal(completed) {
			t.Fatalf("completed_at = %v, want %v", got.CompletedAt, completed)
		}
		if got.RetentionExpiresAt == nil || !got.RetentionExpiresAt.Equal(expires) {
			t.Fatalf("retention_expires_at = %v, want %v", got.RetentionExpiresAt, expires)
		}
		// Stored as UTC: an equality test against the UTC instant finds
		// the row (on SQLite times are text, so a value stored with
		// another offset would not compare equal, nor order right).
		var n int64
		if err := db.Gorm.Model(&models.Job{}).Where("id = ? AND retention_expires_at = ?", j.ID, expires.UTC()).Count(&n).Error; err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("retention_expires_at is not stored as the UTC instant %v", expires.UTC())
		}
		var m int64
		if err := db.Gorm.Model(&models.Job{}).Where("id = ? AND completed_at = ?", j.ID, completed.UTC()).Count(&m).Error; err != nil {
			t.Fatal(err)
		}
		if m != 1 {
			t.Fatalf("completed_at is not stored as the UTC instant %v", completed.UTC())
		}
		// Due one microsecond after expiry, not one before, whatever the
		// zone of the question.
		for _, asOf := range []time.Time{expires.Add(time.Microsecond).In(west), expires.Add(time.Microsecond).In(east)} {
			due, err := s.Jobs.Expired(ctx, asOf, models.ExpiredCursor{}, 10)
			if err != nil || len(due) != 1 || due[0].ID != j.ID {
				t.Fatalf("Expired(%v) = %+v, %v; want the job", asOf, due, err)
			}
		}
		for _, asOf := range []time.Time{expires.Add(-time.Microsecond).In(west), expires.Add(-time.Microsecond).In(east)} {
			due, err := s.Jobs.Expired(ctx, asOf, models.ExpiredCursor{}, 10)
			if err != nil || len(due) != 0 {
				t.Fatalf("Expired(%v) = %+v, %v; want nothing", asOf, due, err)
			}
		}

		// A failed or full_retention job never expires.
		k := retJob(t, s, org.ID, "full_retention", 0)
		if err := s.Jobs.Finish(ctx, org.ID, k.ID, models.JobFailed, "boom", completed, nil); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Jobs.Get(ctx, org.ID, k.ID)
		if got.Status != models.JobFailed || got.Error != "boom" || got.RetentionExpiresAt != nil {
			t.Fatalf("failed job = %+v", got)
		}

		// Another organisation cannot finish the job.
		other := newOrg(t, s, "Other")
		later := expires.Add(time.Hour)
		if err := s.Jobs.Finish(ctx, other.ID, j.ID, models.JobFailed, "x", completed, &later); err != nil {
			t.Fatal(err)
		}
		got, _ = s.Jobs.Get(ctx, org.ID, j.ID)
		if got.Status != models.JobCompleted || !got.RetentionExpiresAt.Equal(expires) {
			t.Fatalf("another organisation changed the job: %+v", got)
		}
	})
}

// --- Jobs.Expired ----------------------------------------------------------

func TestJobsExpiredPagesDueJobsAcrossOrganisations(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		orgA, orgB := newOrg(t, s, "A"), newOrg(t, s, "B")
		asOf := time.Date(2026, time.July, 1, 2, 0, 0, 0, time.UTC)
		e1 := asOf.Add(-72 * time.Hour)
		e2 := asOf.Add(-48*time.Hour + 123*time.Microsecond)
		e3 := asOf.Add(-time.Second)
		e4 := asOf // exactly due
		at := func(t time.Time) *time.Time { return &t }

		// Seven due jobs; three share e2 and two e3, so ties straddle the
		// page boundaries of limit 3.
		type due struct {
			id, org string
			at      time.Time
		}
		var want []due
		for _, c := range []struct {
			org string
			at  time.Time
		}{{orgA.ID, e2}, {orgB.ID, e1}, {orgA.ID, e4}, {orgB.ID, e2}, {orgA.ID, e3}, {orgA.ID, e2}, {orgB.ID, e3}} {
			j := retFinished(t, s, c.org, at(c.at))
			want = append(want, due{j.ID, c.org, c.at})
		}
		sort.Slice(want, func(i, k int) bool {
			if !want[i].at.Equal(want[k].at) {
				return want[i].at.Before(want[k].at)
			}
			return want[i].id < want[k].id
		})

		// Jobs that must never be listed.
		notDue := retFinished(t, s, orgA.ID, at(asOf.Add(time.Second)))
		forever := retFinished(t, s, orgB.ID, nil)
		running := retJob(t, s, orgA.ID, "analysis_only", 1)
		deleted := retFinished(t, s, orgB.ID, at(e1))
		if stamped, err := s.Jobs.MarkFilesDeleted(ctx, orgB.ID, deleted.ID, nil, asOf); err != nil || !stamped {
			t.Fatalf("MarkFilesDeleted = %v, %v", stamped, err)
		}
		never := map[string]string{notDue.ID: "not due", forever.ID: "full_retention", running.ID: "running", deleted.ID: "deleted"}

		var got []models.Job
		var cur models.ExpiredCursor
		pages := 0
		for {
			page, err := s.Jobs.Expired(ctx, asOf, cur, 3)
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > 3 {
				t.Fatalf("page of %d jobs with limit 3", len(page))
			}
			if len(page) == 0 {
				break
			}
			pages++
			if pages > 10 {
				t.Fatal("paging does not end")
			}
			got = append(got, page...)
			cur = models.CursorAfter(page[len(page)-1])
		}
		if pages != 3 {
			t.Fatalf("%d pages, want 3 (3+3+1)", pages)
		}
		seen := map[string]int{}
		for _, j := range got {
			seen[j.ID]++
			if why, ok := never[j.ID]; ok {
				t.Errorf("listed a %s job %s", why, j.ID)
			}
		}
		for id, n := range seen {
			if n != 1 {
				t.Errorf("job %s seen %d times", id, n)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("listed %d jobs, want %d", len(got), len(want))
		}
		for i, w := range want {
			g := got[i]
			if g.ID != w.id || g.OrgID != w.org || g.RetentionExpiresAt == nil || !g.RetentionExpiresAt.Equal(w.at) || g.FileDeletedAt != nil {
				t.Fatalf("job %d = %s/%s expiring %v, want %s/%s expiring %v", i, g.OrgID, g.ID, g.RetentionExpiresAt, w.org, w.id, w.at)
			}
		}

		// The cursor after a job starts right after it, ties included.
		next := models.CursorAfter(got[1])
		if !next.ExpiresAt.Equal(*got[1].RetentionExpiresAt) || next.ID != got[1].ID || next.ExpiresAt.Location() != time.UTC {
			t.Fatalf("CursorAfter = %+v", next)
		}
		rest, err := s.Jobs.Expired(ctx, asOf, next, 100)
		if err != nil || len(rest) != len(want)-2 || rest[0].ID != want[2].id {
			t.Fatalf("after job 2: %d jobs (%v), first %+v; want %d starting at %s", len(rest), err, rest, len(want)-2, want[2].id)
		}
		// A cursor in another zone means the same instant.
		west := time.FixedZone("UTC-5", -5*60*60)
		zoned := models.ExpiredCursor{ExpiresAt: next.ExpiresAt.In(west), ID: next.ID}
		rest2, err := s.Jobs.Expired(ctx, asOf.In(west), zoned, 100)
		if err != nil || len(rest2) != len(rest) || rest2[0].ID != rest[0].ID {
			t.Fatalf("zoned cursor: %d jobs (%v), want %d", len(rest2), err, len(rest))
		}

		// An earlier asOf sees only what was due then.
		early, err := s.Jobs.Expired(ctx, e2, models.ExpiredCursor{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(early) != 4 || early[0].ID != want[0].id || !early[3].RetentionExpiresAt.Equal(e2) {
			t.Fatalf("Expired(e2) = %d jobs, want the 4 expiring at e1 and e2", len(early))
		}

		// Once deleted, a job leaves the list.
		if _, err := s.Jobs.MarkFilesDeleted(ctx, want[0].org, want[0].id, nil, asOf); err != nil {
			t.Fatal(err)
		}
		after, err := s.Jobs.Expired(ctx, asOf, models.ExpiredCursor{}, 100)
		if err != nil || len(after) != len(want)-1 || after[0].ID != want[1].id {
			t.Fatalf("after deleting the first: %d jobs (%v), want %d starting at %s", len(after), err, len(want)-1, want[1].id)
		}
	})
}

// --- Jobs.MarkFilesDeleted -------------------------------------------------

func TestJobsMarkFilesDeleted(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "A"), newOrg(t, s, "B")
		exp := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
		j := retFinished(t, s, org.ID, &exp)
		prefix := "orgs/" + org.ID + "/jobs/" + j.ID + "/"
		f1 := retFile(t, s, org.ID, j.ID, "a.csv", prefix+"a.csv")
		f2 := retFile(t, s, org.ID, j.ID, "b.csv", prefix+"b.csv")
		f3 := retFile(t, s, org.ID, j.ID, "c.csv", prefix+"c.csv")
		at := time.Date(2026, time.August, 2, 2, 0, 0, 0, time.FixedZone("UTC+3", 3*60*60))

		keysOf := func() []string {
			t.Helper()
			fs, err := s.Files.ListByJob(ctx, org.ID, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range fs {
				out = append(out, f.StorageKey)
			}
			return out
		}
		deletedAt := func() *time.Time {
			t.Helper()
			got, err := s.Jobs.Get(ctx, org.ID, j.ID)
			if err != nil {
				t.Fatal(err)
			}
			return got.FileDeletedAt
		}

		// A key list missing a file: nothing is recorded, not even the keys
		// that were listed.
		stamped, err := s.Jobs.MarkFilesDeleted(ctx, org.ID, j.ID, []string{f1.StorageKey, f2.StorageKey}, at)
		if !errors.Is(err, models.ErrFilesChanged) || stamped {
			t.Fatalf("MarkFilesDeleted with a key missing = %v, %v; want ErrFilesChanged", stamped, err)
		}
		if got := fmt.Sprint(keysOf()); got != fmt.Sprint([]string{f1.StorageKey, f2.StorageKey, f3.StorageKey}) {
			t.Fatalf("keys after ErrFilesChanged = %v", got)
		}
		if d := deletedAt(); d != nil {
			t.Fatalf("job stamped %v despite ErrFilesChanged", d)
		}

		// Another organisation's call changes nothing.
		if _, err := s.Jobs.MarkFilesDeleted(ctx, other.ID, j.ID, []string{f1.StorageKey, f2.StorageKey, f3.StorageKey}, at); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(keysOf()); got != fmt.Sprint([]string{f1.StorageKey, f2.StorageKey, f3.StorageKey}) {
			t.Fatalf("keys after another org's call = %v", got)
		}
		if d := deletedAt(); d != nil {
			t.Fatalf("job stamped %v by another organisation", d)
		}

		all := []string{f1.StorageKey, f2.StorageKey, f3.StorageKey}
		stamped, err = s.Jobs.MarkFilesDeleted(ctx, org.ID, j.ID, all, at)
		if err != nil || !stamped {
			t.Fatalf("MarkFilesDeleted = %v, %v", stamped, err)
		}
		if got := fmt.Sprint(keysOf()); got != "[  ]" {
			t.Fatalf("keys after deletion = %q", got)
		}
		if d := deletedAt(); d == nil || !d.Equal(at) {
			t.Fatalf("file_deleted_at = %v, want %v", d, at)
		}
		// Again: kept as first stamped, reported as not stamped.
		stamped, err = s.Jobs.MarkFilesDeleted(ctx, org.ID, j.ID, all, at.Add(time.Hour))
		if err != nil || stamped {
			t.Fatalf("second MarkFilesDeleted = %v, %v; want false, nil", stamped, err)
		}
		if d := deletedAt(); d == nil || !d.Equal(at) {
			t.Fatalf("file_deleted_at = %v after a second call, want %v", d, at)
		}
		// The file rows and their results stay.
		for _, f := range []*models.File{f1, f2, f3} {
			if _, err := s.Files.Get(ctx, org.ID, f.ID); err != nil {
				t.Fatalf("file %d gone: %v", f.ID, err)
			}
		}
	})
}

// --- Files.BeginRerun ------------------------------------------------------

func TestFilesBeginRerun(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "A"), newOrg(t, s, "B")
		j := retJob(t, s, org.ID, "short_term", 30)
		res := models.FileResult{Format: "csv", RowCount: 3, ColumnCount: 1, QualityScore: 80, Profile: `{"x":1}`}

		done := retFile(t, s, org.ID, j.ID, "a.csv", "orgs/"+org.ID+"/a.csv")
		if err := s.Files.SaveResult(ctx, org.ID, done.ID, res, time.Now()); err != nil {
			t.Fatal(err)
		}
		failed := retFile(t, s, org.ID, j.ID, "b.csv", "orgs/"+org.ID+"/b.csv")
		if err := s.Files.SetStatus(ctx, org.ID, failed.ID, models.FileFailed, 40, "parse error"); err != nil {
			t.Fatal(err)
		}
		gone := retFile(t, s, org.ID, j.ID, "c.csv", "")
		if err := s.Files.SaveResult(ctx, org.ID, gone.ID, res, time.Now()); err != nil {
			t.Fatal(err)
		}

		status := func(id int64) *models.File {
			t.Helper()
			f, err := s.Files.Get(ctx, org.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}

		// Another organisation's file looks missing and is not touched.
		_, err := s.Files.BeginRerun(ctx, other.ID, done.ID)
		wantErr(t, err, errs.ErrNotFound)
		if f := status(done.ID); f.Status != models.FileCompleted {
			t.Fatalf("another organisation moved the file to %s", f.Status)
		}
		_, err = s.Files.BeginRerun(ctx, org.ID, 987654321)
		wantErr(t, err, errs.ErrNotFound)

		// A completed file goes to processing.
		f, err := s.Files.BeginRerun(ctx, org.ID, done.ID)
		if err != nil {
			t.Fatal(err)
		}
		if f.ID != done.ID || f.Status != models.FileProcessing || f.Progress != 0 || f.Error != "" {
			t.Fatalf("BeginRerun = %+v", f)
		}
		if got := status(done.ID); got.Status != models.FileProcessing {
			t.Fatalf("stored status = %s", got.Status)
		}
		// It is being analysed now: a second rerun is a conflict.
		_, err = s.Files.BeginRerun(ctx, org.ID, done.ID)
		wantErr(t, err, errs.ErrConflict)
		if got := status(done.ID); got.Status != models.FileProcessing {
			t.Fatalf("status after the conflict = %s", got.Status)
		}

		// A failed file can be analysed again; its error is cleared.
		f, err = s.Files.BeginRerun(ctx, org.ID, failed.ID)
		if err != nil || f.Status != models.FileProcessing || f.Progress != 0 || f.Error != "" {
			t.Fatalf("rerun of a failed file = %+v, %v", f, err)
		}

		// A file whose raw file was deleted cannot be analysed again.
		_, err = s.Files.BeginRerun(ctx, org.ID, gone.ID)
		wantErr(t, err, errs.ErrNotFound)
		if got := status(gone.ID); got.Status != models.FileCompleted {
			t.Fatalf("a file without raw file moved to %s", got.Status)
		}
	})
}
