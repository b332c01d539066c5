package retention_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/local"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"github.com/dqs/dqs/retention"
)

// --- fixture ---------------------------------------------------------------

// fixture is one database with real stores, a real local blob store and a
// real audit writer, and two organisations.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	db    *models.DB
	s     *models.Stores
	blobs *local.Store
	audit *audit.Writer
	org   *models.Organization
	other *models.Organization
}

func newFixture(t *testing.T, db *models.DB) *fixture {
	t.Helper()
	ctx := context.Background()
	s := models.NewStores(db)
	blobs, err := local.New(t.TempDir(), []byte(strings.Repeat("k", local.MinSigningKeyLen)), "http://localhost:8080")
	if err != nil {
		t.Fatal(err)
	}
	w := audit.NewWriter(s.Audit, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = w.Close(ctx)
		_ = blobs.Close()
	})
	f := &fixture{t: t, ctx: ctx, db: db, s: s, blobs: blobs, audit: w}
	f.org = f.newOrg("Acme")
	f.other = f.newOrg("Other")
	return f
}

func (f *fixture) newOrg(name string) *models.Organization {
	f.t.Helper()
	org := &models.Organization{Name: name}
	if err := f.s.Orgs.Create(f.ctx, org); err != nil {
		f.t.Fatal(err)
	}
	return org
}

// deleter returns a Deleter over the fixture's stores and the given blob
// store (nil: the local store).
func (f *fixture) deleter(b blob.Store) retention.Deleter {
	if b == nil {
		b = f.blobs
	}
	return retention.Deleter{Jobs: f.s.Jobs, Files: f.s.Files, Blobs: b, Audit: f.audit}
}

type testJob struct {
	job   *models.Job
	files []*models.File
	keys  []string
}

// newJob creates a completed job of orgID with three analysed files whose
// raw objects are stored, expiring at expires (nil: never).
func (f *fixture) newJob(orgID, mode string, days int, expires *time.Time) testJob {
	f.t.Helper()
	j := &models.Job{RetentionMode: mode, RetentionDays: days, CreatedAt: time.Now().UTC()}
	if err := f.s.Jobs.Create(f.ctx, orgID, j); err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.s.Jobs.Start(f.ctx, orgID, j.ID, mode, days, time.Now()); err != nil {
		f.t.Fatal(err)
	}
	tj := testJob{job: j}
	for i, name := range []string{"a.csv", "b.csv", "c.csv"} {
		key := f.putObject(orgID, j.ID, name)
		file := &models.File{JobID: j.ID, FileName: name, StorageKey: key, SizeBytes: 32, CreatedAt: time.Now().UTC()}
		if err := f.s.Files.Create(f.ctx, orgID, file); err != nil {
			f.t.Fatal(err)
		}
		res := models.FileResult{Format: "csv", RowCount: 2, ColumnCount: 1, QualityScore: 70 + float64(i),
			Profile: fmt.Sprintf(`{"file":%q}`, name),
			Columns: []models.FileColumn{{Name: "email", InferredType: "string", Classification: "email", GDPRCategory: "personal", Confidence: 0.9}}}
		if err := f.s.Files.SaveResult(f.ctx, orgID, file.ID, res, time.Now()); err != nil {
			f.t.Fatal(err)
		}
		tj.files = append(tj.files, file)
		tj.keys = append(tj.keys, key)
	}
	if err := f.s.Jobs.Finish(f.ctx, orgID, j.ID, models.JobCompleted, "", time.Now(), expires); err != nil {
		f.t.Fatal(err)
	}
	return tj
}

func (f *fixture) putObject(orgID, jobID, name string) string {
	f.t.Helper()
	key, err := blob.OrgKey(orgID, "jobs", jobID, name)
	if err != nil {
		f.t.Fatal(err)
	}
	if _, err := f.blobs.Put(f.ctx, key, strings.NewReader("email\nalice@example.com\n"+name), "text/csv"); err != nil {
		f.t.Fatal(err)
	}
	return key
}

func (f *fixture) exists(key string) bool {
	f.t.Helper()
	_, err := f.blobs.Stat(f.ctx, key)
	switch {
	case err == nil:
		return true
	case errors.Is(err, blob.ErrNotFound):
		return false
	}
	f.t.Fatalf("Stat %s: %v", key, err)
	return false
}

func (f *fixture) job(orgID, jobID string) *models.Job {
	f.t.Helper()
	j, err := f.s.Jobs.Get(f.ctx, orgID, jobID)
	if err != nil {
		f.t.Fatal(err)
	}
	return j
}

func (f *fixture) files(orgID, jobID string) []models.File {
	f.t.Helper()
	fs, err := f.s.Files.ListByJob(f.ctx, orgID, jobID)
	if err != nil {
		f.t.Fatal(err)
	}
	return fs
}

// auditEntries flushes the writer and returns the organisation's entries of
// event.
func (f *fixture) auditEntries(orgID, event string) []models.AuditEntry {
	f.t.Helper()
	ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
	defer cancel()
	if err := f.audit.Flush(ctx); err != nil {
		f.t.Fatal(err)
	}
	out, _, err := f.s.Audit.List(f.ctx, orgID, event, models.Page{Limit: 1000})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func metadata(t *testing.T, e models.AuditEntry) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.Metadata), &m); err != nil {
		t.Fatalf("audit metadata %q: %v", e.Metadata, err)
	}
	return m
}

// untouched fails unless the job still has all its objects, storage keys
// and no file_deleted_at.
func (f *fixture) untouched(orgID string, tj testJob) {
	f.t.Helper()
	for _, k := range tj.keys {
		if !f.exists(k) {
			f.t.Errorf("object %s was deleted", k)
		}
	}
	fs := f.files(orgID, tj.job.ID)
	if len(fs) != len(tj.keys) {
		f.t.Fatalf("job has %d files, want %d", len(fs), len(tj.keys))
	}
	for i, file := range fs {
		if file.StorageKey != tj.keys[i] {
			f.t.Errorf("file %d storage key = %q, want %q", file.ID, file.StorageKey, tj.keys[i])
		}
	}
	if j := f.job(orgID, tj.job.ID); j.FileDeletedAt != nil {
		f.t.Errorf("job stamped file_deleted_at %v", j.FileDeletedAt)
	}
}

// gone fails unless every object and storage key of the job is gone and the
// job is stamped at one of at.
func (f *fixture) gone(orgID string, tj testJob, at ...time.Time) {
	f.t.Helper()
	for _, k := range tj.keys {
		if f.exists(k) {
			f.t.Errorf("object %s still stored", k)
		}
	}
	for _, file := range f.files(orgID, tj.job.ID) {
		if file.StorageKey != "" {
			f.t.Errorf("file %d still has storage key %q", file.ID, file.StorageKey)
		}
	}
	j := f.job(orgID, tj.job.ID)
	if j.FileDeletedAt == nil {
		f.t.Fatal("job not stamped file_deleted_at")
	}
	for _, a := range at {
		if j.FileDeletedAt.Equal(a) {
			return
		}
	}
	f.t.Errorf("file_deleted_at = %v, want one of %v", j.FileDeletedAt, at)
}

func ptr(t time.Time) *time.Time { return &t }

// day0 is a fixed instant at microsecond precision (what PostgreSQL keeps).
var day0 = time.Date(2026, time.November, 20, 14, 30, 15, 250000000, time.UTC)

// --- requested deletion ----------------------------------------------------

func TestDeleteRequestedRemovesObjectsAndKeepsResults(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		tj := f.newJob(f.org.ID, retention.ShortTerm, 30, ptr(day0.Add(30*24*time.Hour)))
		bystander := f.newJob(f.org.ID, retention.ShortTerm, 30, ptr(day0.Add(30*24*time.Hour)))
		for _, k := range tj.keys {
			if !f.exists(k) {
				t.Fatalf("fixture object %s missing", k)
			}
		}
		at := day0.In(time.FixedZone("UTC+1", 60*60))

		out, err := f.deleter(nil).Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: tj.job.ID,
			Reason: retention.Requested, At: at, UserID: "user-42", IP: "203.0.113.7"})
		if err != nil || out != retention.Deleted {
			t.Fatalf("Delete = %q, %v; want deleted", out, err)
		}
		f.gone(f.org.ID, tj, at)

		// The job and its results stay.
		j := f.job(f.org.ID, tj.job.ID)
		if j.Status != models.JobCompleted || j.RetentionMode != retention.ShortTerm || j.RetentionDays != 30 || j.RetentionExpiresAt == nil {
			t.Fatalf("job after deletion = %+v", j)
		}
		fs := f.files(f.org.ID, tj.job.ID)
		if len(fs) != 3 {
			t.Fatalf("%d file rows left, want 3", len(fs))
		}
		var ids []int64
		for i, file := range fs {
			ids = append(ids, file.ID)
			if file.ID != tj.files[i].ID || file.FileName != tj.files[i].FileName || file.Status != models.FileCompleted ||
				file.QualityScore == nil || *file.QualityScore != 70+float64(i) ||
				file.Profile != fmt.Sprintf(`{"file":%q}`, file.FileName) || file.RowCount != 2 {
				t.Fatalf("file row after deletion = %+v", file)
			}
		}
		cols, err := f.s.Files.ColumnsOfFiles(f.ctx, f.org.ID, ids)
		if err != nil || len(cols) != 3 {
			t.Fatalf("columns after deletion = %d, %v", len(cols), err)
		}

		// One files_deleted entry naming the user and the job.
		entries := f.auditEntries(f.org.ID, audit.FilesDeleted)
		if len(entries) != 1 {
			t.Fatalf("%d files_deleted entries, want 1", len(entries))
		}
		e := entries[0]
		if e.UserID == nil || *e.UserID != "user-42" || e.IPAddress != "203.0.113.7" || !e.CreatedAt.Equal(at) {
			t.Fatalf("audit entry = %+v", e.AuditLog)
		}
		m := metadata(t, e)
		if m["job_id"] != tj.job.ID || m["objects"] != float64(3) || m["retention_mode"] != retention.ShortTerm {
			t.Fatalf("audit metadata = %v", m)
		}
		if n := len(f.auditEntries(f.org.ID, audit.FilesExpiring)); n != 0 {
			t.Fatalf("%d files_expiring entries for a requested deletion", n)
		}

		// Another job of the organisation is not touched.
		f.untouched(f.org.ID, bystander)
	})
}

func TestDeleteRequestedIgnoresRetention(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		forever := f.newJob(f.org.ID, retention.FullRetention, 0, nil)
		out, err := f.deleter(nil).Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: forever.job.ID,
			Reason: retention.Requested, At: day0, UserID: "u1"})
		if err != nil || out != retention.Deleted {
			t.Fatalf("Delete of a full_retention job = %q, %v; want deleted", out, err)
		}
		f.gone(f.org.ID, forever, day0)
		if n := len(f.auditEntries(f.org.ID, audit.FilesDeleted)); n != 1 {
			t.Fatalf("%d files_deleted entries, want 1", n)
		}
	})
}

// --- expiry ----------------------------------------------------------------

func TestDeleteExpiredOnlyWhenDue(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		d := f.deleter(nil)
		exp := day0
		due := f.newJob(f.org.ID, retention.ShortTerm, 7, ptr(exp))
		late := f.newJob(f.org.ID, retention.AnalysisOnly, 1, ptr(exp))
		forever := f.newJob(f.org.ID, retention.FullRetention, 0, nil)
		expire := func(tj testJob, at time.Time) (retention.Outcome, error) {
			return d.Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: retention.Expired, At: at})
		}
		noAudit := func() {
			t.Helper()
			for _, ev := range []string{audit.FilesExpiring, audit.FilesDeleted} {
				if n := len(f.auditEntries(f.org.ID, ev)); n != 0 {
					t.Fatalf("%d %s entries, want none", n, ev)
				}
			}
		}

		// Before expiry: not due, nothing touched, nothing logged.
		for _, at := range []time.Time{exp.Add(-time.Microsecond), exp.Add(-time.Hour), exp.Add(-6 * 24 * time.Hour)} {
			out, err := expire(due, at)
			if err != nil || out != retention.NotDue {
				t.Fatalf("Delete at %v (expiry %v) = %q, %v; want not_due", at, exp, out, err)
			}
		}
		// full_retention (null expiry) is never due.
		for _, at := range []time.Time{exp, exp.Add(100 * 365 * 24 * time.Hour)} {
			out, err := expire(forever, at)
			if err != nil || out != retention.NotDue {
				t.Fatalf("Delete of a full_retention job at %v = %q, %v; want not_due", at, out, err)
			}
		}
		// A job still running has no expiry yet.
		running := &models.Job{RetentionMode: retention.AnalysisOnly, RetentionDays: 1, CreatedAt: time.Now().UTC()}
		if err := f.s.Jobs.Create(f.ctx, f.org.ID, running); err != nil {
			t.Fatal(err)
		}
		if out, err := d.Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: running.ID, Reason: retention.Expired, At: exp}); err != nil || out != retention.NotDue {
			t.Fatalf("Delete of a running job = %q, %v; want not_due", out, err)
		}
		f.untouched(f.org.ID, due)
		f.untouched(f.org.ID, late)
		f.untouched(f.org.ID, forever)
		noAudit()

		// Exactly at expiry: deleted.
		out, err := expire(due, exp)
		if err != nil || out != retention.Deleted {
			t.Fatalf("Delete at expiry = %q, %v; want deleted", out, err)
		}
		f.gone(f.org.ID, due, exp)
		// After expiry: deleted.
		after := exp.Add(11*time.Hour + 30*time.Minute)
		out, err = expire(late, after)
		if err != nil || out != retention.Deleted {
			t.Fatalf("Delete after expiry = %q, %v; want deleted", out, err)
		}
		f.gone(f.org.ID, late, after)
		f.untouched(f.org.ID, forever)

		entries := f.auditEntries(f.org.ID, audit.FilesExpiring)
		if len(entries) != 2 {
			t.Fatalf("%d files_expiring entries, want 2", len(entries))
		}
		byJob := map[string]map[string]any{}
		for _, e := range entries {
			if e.UserID != nil {
				t.Fatalf("expiry entry has user %q", *e.UserID)
			}
			m := metadata(t, e)
			byJob[fmt.Sprint(m["job_id"])] = m
		}
		m := byJob[due.job.ID]
		if m == nil || m["objects"] != float64(3) || m["retention_mode"] != retention.ShortTerm || m["retention_days"] != float64(7) {
			t.Fatalf("files_expiring metadata of the due job = %v", m)
		}
		if got, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["expired_at"])); err != nil || !got.Equal(exp) {
			t.Fatalf("expired_at = %v (%v), want %v", m["expired_at"], err, exp)
		}
		if byJob[late.job.ID] == nil {
			t.Fatalf("no files_expiring entry for the late job: %v", byJob)
		}
		if n := len(f.auditEntries(f.org.ID, audit.FilesDeleted)); n != 0 {
			t.Fatalf("%d files_deleted entries for expiry deletions", n)
		}
		// The sweep no longer finds them.
		left, err := f.s.Jobs.Expired(f.ctx, after, models.ExpiredCursor{}, 10)
		if err != nil || len(left) != 0 {
			t.Fatalf("Expired after the deletions = %+v, %v", left, err)
		}
	})
}

// --- order: audit entry first ------------------------------------------------

// auditFirstStore is a blob store whose Delete checks, through the stores,
// that the deletion's audit entry is already written.
type auditFirstStore struct {
	blob.Store
	s     *models.Stores
	orgID string
	jobID string
	event string

	mu       sync.Mutex
	calls    int
	problems []string
}

func (a *auditFirstStore) Delete(ctx context.Context, key string) error {
	entries, _, err := a.s.Audit.List(ctx, a.orgID, a.event, models.Page{Limit: 100})
	found := false
	for _, e := range entries {
		var m map[string]any
		if json.Unmarshal([]byte(e.Metadata), &m) == nil && m["job_id"] == a.jobID {
			found = true
		}
	}
	a.mu.Lock()
	a.calls++
	switch {
	case err != nil:
		a.problems = append(a.problems, fmt.Sprintf("listing the audit log before deleting %s: %v", key, err))
	case !found:
		a.problems = append(a.problems, fmt.Sprintf("object %s deleted before the %s audit entry was written", key, a.event))
	}
	a.mu.Unlock()
	return a.Store.Delete(ctx, key)
}

func TestDeleteWritesTheAuditEntryFirst(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		for _, c := range []struct {
			reason retention.Reason
			event  string
		}{{retention.Requested, audit.FilesDeleted}, {retention.Expired, audit.FilesExpiring}} {
			t.Run(c.event, func(t *testing.T) {
				f := newFixture(t, db)
				tj := f.newJob(f.org.ID, retention.AnalysisOnly, 1, ptr(day0))
				store := &auditFirstStore{Store: f.blobs, s: f.s, orgID: f.org.ID, jobID: tj.job.ID, event: c.event}
				out, err := f.deleter(store).Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: tj.job.ID,
					Reason: c.reason, At: day0.Add(time.Hour), UserID: "u1"})
				if err != nil || out != retention.Deleted {
					t.Fatalf("Delete = %q, %v", out, err)
				}
				store.mu.Lock()
				defer store.mu.Unlock()
				if store.calls != len(tj.keys) {
					t.Fatalf("%d object deletions, want %d", store.calls, len(tj.keys))
				}
				for _, p := range store.problems {
					t.Error(p)
				}
				f.gone(f.org.ID, tj, day0.Add(time.Hour))
			})
		}
	})
}

// --- storage failure ---------------------------------------------------------

// failingStore fails Delete of one key while armed.
type failingStore struct {
	blob.Store
	key string

	mu    sync.Mutex
	armed bool
	tried int
}

var errInjected = errors.New("injected storage failure")

func (s *failingStore) Delete(ctx context.Context, key string) error {
	s.mu.Lock()
	fail := s.armed && key == s.key
	if fail {
		s.tried++
	}
	s.mu.Unlock()
	if fail {
		return errInjected
	}
	return s.Store.Delete(ctx, key)
}

func (s *failingStore) setArmed(v bool) {
	s.mu.Lock()
	s.armed = v
	s.mu.Unlock()
}

func TestDeleteStorageFailureRecordsNothing(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		for name, reason := range map[string]retention.Reason{"requested": retention.Requested, "expired": retention.Expired} {
			t.Run(name, func(t *testing.T) {
				f := newFixture(t, db)
				tj := f.newJob(f.org.ID, retention.ShortTerm, 3, ptr(day0))
				store := &failingStore{Store: f.blobs, key: tj.keys[1], armed: true}
				d := f.deleter(store)
				at := day0.Add(2 * time.Hour)
				req := retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: reason, At: at, UserID: "u1"}

				out, err := d.Delete(f.ctx, req)
				if !errors.Is(err, retention.ErrStorage) {
					t.Fatalf("Delete with a failing object = %q, %v; want ErrStorage", out, err)
				}
				if !errors.Is(err, errInjected) {
					t.Errorf("the storage error does not wrap the cause: %v", err)
				}
				if out == retention.Deleted || out == retention.AlreadyDeleted {
					t.Fatalf("outcome %q on failure", out)
				}
				if store.tried != 1 {
					t.Fatalf("failing key tried %d times", store.tried)
				}
				if !f.exists(tj.keys[1]) {
					t.Fatal("the object whose deletion failed is gone")
				}
				// Nothing recorded: every storage key kept, no stamp.
				for i, file := range f.files(f.org.ID, tj.job.ID) {
					if file.StorageKey != tj.keys[i] {
						t.Fatalf("file %d storage key = %q after a failed deletion, want %q", file.ID, file.StorageKey, tj.keys[i])
					}
				}
				if j := f.job(f.org.ID, tj.job.ID); j.FileDeletedAt != nil {
					t.Fatalf("job stamped %v after a failed deletion", j.FileDeletedAt)
				}
				if reason == retention.Expired {
					due, err := f.s.Jobs.Expired(f.ctx, at, models.ExpiredCursor{}, 10)
					if err != nil || len(due) != 1 || due[0].ID != tj.job.ID {
						t.Fatalf("the sweep no longer finds the job after a failure: %+v, %v", due, err)
					}
				}

				// Retried once storage works: the objects already gone
				// count as deleted.
				store.setArmed(false)
				at2 := at.Add(time.Hour)
				req.At = at2
				out, err = d.Delete(f.ctx, req)
				if err != nil || out != retention.Deleted {
					t.Fatalf("retry = %q, %v; want deleted", out, err)
				}
				f.gone(f.org.ID, tj, at2)
				if reason == retention.Expired {
					due, err := f.s.Jobs.Expired(f.ctx, at2, models.ExpiredCursor{}, 10)
					if err != nil || len(due) != 0 {
						t.Fatalf("the sweep still finds the job: %+v, %v", due, err)
					}
				}
			})
		}
	})
}

// --- idempotence and concurrency ---------------------------------------------

func TestDeleteTwiceIsAlreadyDeleted(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		d := f.deleter(nil)
		tj := f.newJob(f.org.ID, retention.AnalysisOnly, 1, ptr(day0))
		req := retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: retention.Requested, At: day0, UserID: "u1"}
		if out, err := d.Delete(f.ctx, req); err != nil || out != retention.Deleted {
			t.Fatalf("first Delete = %q, %v", out, err)
		}
		req.At = day0.Add(time.Hour)
		if out, err := d.Delete(f.ctx, req); err != nil || out != retention.AlreadyDeleted {
			t.Fatalf("second Delete = %q, %v; want already_deleted", out, err)
		}
		// Nor does the sweep delete it again.
		if out, err := d.Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: retention.Expired, At: day0.Add(48 * time.Hour)}); err != nil || out != retention.AlreadyDeleted {
			t.Fatalf("expiry after a requested deletion = %q, %v; want already_deleted", out, err)
		}
		f.gone(f.org.ID, tj, day0)
		if n := len(f.auditEntries(f.org.ID, audit.FilesDeleted)); n != 1 {
			t.Fatalf("%d files_deleted entries, want 1", n)
		}
		if n := len(f.auditEntries(f.org.ID, audit.FilesExpiring)); n != 0 {
			t.Fatalf("%d files_expiring entries, want 0", n)
		}
	})
}

type callerKey struct{}

// barrierStore holds the first object deletion of each of two callers
// (told apart by a context value) until both have reached it, so both
// deletions are past their "already deleted?" check at the same time.
type barrierStore struct {
	blob.Store
	mu      sync.Mutex
	arrived map[any]bool
	wg      sync.WaitGroup
}

func newBarrierStore(s blob.Store, callers int) *barrierStore {
	b := &barrierStore{Store: s, arrived: map[any]bool{}}
	b.wg.Add(callers)
	return b
}

func (b *barrierStore) Delete(ctx context.Context, key string) error {
	id := ctx.Value(callerKey{})
	b.mu.Lock()
	first := !b.arrived[id]
	b.arrived[id] = true
	b.mu.Unlock()
	if first {
		b.wg.Done()
		all := make(chan struct{})
		go func() { b.wg.Wait(); close(all) }()
		select {
		case <-all:
		case <-time.After(20 * time.Second):
			return errors.New("barrier: the other deletion never reached storage")
		}
	}
	return b.Store.Delete(ctx, key)
}

func TestDeleteConcurrently(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		for _, overlap := range []bool{false, true} {
			t.Run(fmt.Sprintf("overlapping=%v", overlap), func(t *testing.T) {
				f := newFixture(t, db)
				tj := f.newJob(f.org.ID, retention.ShortTerm, 2, ptr(day0))
				var store blob.Store = f.blobs
				if overlap {
					store = newBarrierStore(f.blobs, 2)
				}
				d := f.deleter(store)
				ats := []time.Time{day0.Add(time.Hour), day0.Add(2 * time.Hour)}
				reasons := []retention.Reason{retention.Requested, retention.Expired}
				outs := make([]retention.Outcome, 2)
				errsOut := make([]error, 2)
				var wg sync.WaitGroup
				for i := range 2 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						ctx := context.WithValue(f.ctx, callerKey{}, i)
						outs[i], errsOut[i] = d.Delete(ctx, retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: reasons[i], At: ats[i], UserID: "u1"})
					}()
				}
				wg.Wait()
				deleted := 0
				for i := range 2 {
					if errsOut[i] != nil {
						t.Fatalf("concurrent Delete %d: %v", i, errsOut[i])
					}
					switch outs[i] {
					case retention.Deleted:
						deleted++
					case retention.AlreadyDeleted:
					default:
						t.Fatalf("concurrent Delete %d = %q", i, outs[i])
					}
				}
				if deleted != 1 {
					t.Fatalf("outcomes %v: exactly one concurrent Delete must report deleting", outs)
				}
				f.gone(f.org.ID, tj, ats...)
				// Stamped once: a later call keeps the stamp.
				stamp := *f.job(f.org.ID, tj.job.ID).FileDeletedAt
				if out, err := d.Delete(context.WithValue(f.ctx, callerKey{}, 0), retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: retention.Requested, At: day0.Add(5 * time.Hour)}); err != nil || out != retention.AlreadyDeleted {
					t.Fatalf("Delete after the concurrent ones = %q, %v", out, err)
				}
				if got := f.job(f.org.ID, tj.job.ID).FileDeletedAt; got == nil || !got.Equal(stamp) {
					t.Fatalf("file_deleted_at changed from %v to %v", stamp, got)
				}
				n := len(f.auditEntries(f.org.ID, audit.FilesDeleted)) + len(f.auditEntries(f.org.ID, audit.FilesExpiring))
				if n < 1 || n > 2 {
					t.Fatalf("%d audit entries for two concurrent deletions", n)
				}
			})
		}
	})
}

// --- objects already gone, other organisations, changed files ------------------

func TestDeleteObjectAlreadyMissing(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		tj := f.newJob(f.org.ID, retention.ShortTerm, 3, ptr(day0))
		if err := f.blobs.Delete(f.ctx, tj.keys[0]); err != nil {
			t.Fatal(err)
		}
		if f.exists(tj.keys[0]) {
			t.Fatal("the object was not removed beforehand")
		}
		out, err := f.deleter(nil).Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: retention.Expired, At: day0})
		if err != nil || out != retention.Deleted {
			t.Fatalf("Delete with a missing object = %q, %v; want deleted", out, err)
		}
		f.gone(f.org.ID, tj, day0)
		if n := len(f.auditEntries(f.org.ID, audit.FilesExpiring)); n != 1 {
			t.Fatalf("%d files_expiring entries, want 1", n)
		}
	})
}

func TestDeleteJobWithoutStoredFiles(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		j := &models.Job{RetentionMode: retention.AnalysisOnly, RetentionDays: 1, CreatedAt: time.Now().UTC()}
		if err := f.s.Jobs.Create(f.ctx, f.org.ID, j); err != nil {
			t.Fatal(err)
		}
		out, err := f.deleter(nil).Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: j.ID, Reason: retention.Requested, At: day0, UserID: "u1"})
		if err != nil || out != retention.Deleted {
			t.Fatalf("Delete of a job without files = %q, %v", out, err)
		}
		if got := f.job(f.org.ID, j.ID); got.FileDeletedAt == nil || !got.FileDeletedAt.Equal(day0) {
			t.Fatalf("file_deleted_at = %v", got.FileDeletedAt)
		}
		entries := f.auditEntries(f.org.ID, audit.FilesDeleted)
		if len(entries) != 1 || metadata(t, entries[0])["objects"] != float64(0) {
			t.Fatalf("audit entries = %+v", entries)
		}
	})
}

func TestDeleteOtherOrganisationsJobIsNotFound(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		tj := f.newJob(f.org.ID, retention.AnalysisOnly, 1, ptr(day0))
		for _, reason := range []retention.Reason{retention.Requested, retention.Expired} {
			out, err := f.deleter(nil).Delete(f.ctx, retention.Request{OrgID: f.other.ID, JobID: tj.job.ID, Reason: reason, At: day0.Add(24 * time.Hour), UserID: "intruder"})
			if !errors.Is(err, errs.ErrNotFound) || out != "" {
				t.Fatalf("Delete from another organisation = %q, %v; want not found", out, err)
			}
		}
		out, err := f.deleter(nil).Delete(f.ctx, retention.Request{OrgID: f.org.ID, JobID: "job_doesnotexist", Reason: retention.Requested, At: day0})
		if !errors.Is(err, errs.ErrNotFound) || out != "" {
			t.Fatalf("Delete of an unknown job = %q, %v; want not found", out, err)
		}
		f.untouched(f.org.ID, tj)
		for _, org := range []string{f.org.ID, f.other.ID} {
			for _, ev := range []string{audit.FilesDeleted, audit.FilesExpiring} {
				if n := len(f.auditEntries(org, ev)); n != 0 {
					t.Fatalf("%d %s entries in org %s", n, ev, org)
				}
			}
		}
	})
}

func TestMarkFilesDeletedRefusesWhenAFileWasMissed(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		tj := f.newJob(f.org.ID, retention.ShortTerm, 3, ptr(day0))
		// The key list misses one file, as when an upload lands between
		// listing the files and marking them.
		stamped, err := f.s.Jobs.MarkFilesDeleted(f.ctx, f.org.ID, tj.job.ID, tj.keys[:2], day0)
		if !errors.Is(err, models.ErrFilesChanged) || stamped {
			t.Fatalf("MarkFilesDeleted = %v, %v; want ErrFilesChanged", stamped, err)
		}
		f.untouched(f.org.ID, tj)
	})
}

// uploadDuringDelete is a blob store that, on the first Delete, adds a new
// stored file to the job, as an upload landing mid-deletion would.
type uploadDuringDelete struct {
	blob.Store
	f     *fixture
	jobID string

	once  sync.Once
	added *models.File
}

func (u *uploadDuringDelete) Delete(ctx context.Context, key string) error {
	u.once.Do(func() {
		k := u.f.putObject(u.f.org.ID, u.jobID, "late.csv")
		file := &models.File{JobID: u.jobID, FileName: "late.csv", StorageKey: k, CreatedAt: time.Now().UTC()}
		if err := u.f.s.Files.Create(ctx, u.f.org.ID, file); err != nil {
			u.f.t.Error(err)
			return
		}
		u.added = file
	})
	return u.Store.Delete(ctx, key)
}

func TestDeleteWhenFilesChangeMeanwhile(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		f := newFixture(t, db)
		tj := f.newJob(f.org.ID, retention.ShortTerm, 3, ptr(day0))
		store := &uploadDuringDelete{Store: f.blobs, f: f, jobID: tj.job.ID}
		req := retention.Request{OrgID: f.org.ID, JobID: tj.job.ID, Reason: retention.Requested, At: day0, UserID: "u1"}
		out, err := f.deleter(store).Delete(f.ctx, req)
		if !errors.Is(err, models.ErrFilesChanged) || out == retention.Deleted {
			t.Fatalf("Delete while a file was added = %q, %v; want ErrFilesChanged", out, err)
		}
		if store.added == nil {
			t.Fatal("no file was added")
		}
		if j := f.job(f.org.ID, tj.job.ID); j.FileDeletedAt != nil {
			t.Fatalf("job stamped %v although a file still holds a raw object", j.FileDeletedAt)
		}
		late, err := f.s.Files.Get(f.ctx, f.org.ID, store.added.ID)
		if err != nil || late.StorageKey == "" || !f.exists(late.StorageKey) {
			t.Fatalf("the new file lost its object: %+v, %v", late, err)
		}

		// Run again: now every file, the new one included, is deleted.
		req.At = day0.Add(time.Minute)
		out, err = f.deleter(nil).Delete(f.ctx, req)
		if err != nil || out != retention.Deleted {
			t.Fatalf("second Delete = %q, %v", out, err)
		}
		tj.keys = append(tj.keys, late.StorageKey)
		f.gone(f.org.ID, tj, req.At)
	})
}
