package models_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestFilesOfOneNameAreStoredOncePerJob: concurrent inserts of one upload
// name into one job store exactly one row; the others are a 409 conflict.
// The same name in another job, and a corrected copy, are not uploads of
// that job's name and are stored.
func TestFilesOfOneNameAreStoredOncePerJob(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		job := &models.Job{Filenames: `["people.csv"]`, RetentionMode: "short_term", RetentionDays: 30, CreatedAt: testNow()}
		other := &models.Job{Filenames: `["people.csv"]`, RetentionMode: "short_term", RetentionDays: 30, CreatedAt: testNow()}
		for _, j := range []*models.Job{job, other} {
			if err := s.Jobs.Create(ctx, org.ID, j); err != nil {
				t.Fatal(err)
			}
		}
		const racers = 8
		var wg sync.WaitGroup
		results := make([]error, racers)
		start := make(chan struct{})
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				f := models.File{JobID: job.ID, FileName: "people.csv", StorageKey: "k", CreatedAt: time.Now().UTC()}
				results[i] = s.Files.Create(ctx, org.ID, &f)
			}()
		}
		close(start)
		wg.Wait()
		stored := 0
		for _, err := range results {
			var pub *errs.Error
			switch {
			case err == nil:
				stored++
			case errors.As(err, &pub) && pub.Status == http.StatusConflict && pub.Code == "conflict":
			default:
				t.Errorf("racing insert: %v, want nil or a conflict", err)
			}
		}
		files, err := s.Files.ListByJob(ctx, org.ID, job.ID)
		if err != nil {
			t.Fatal(err)
		}
		if stored != 1 || len(files) != 1 {
			t.Fatalf("%d of %d racing inserts stored, %d rows; want exactly 1", stored, racers, len(files))
		}

		parent := files[0].ID
		for _, f := range []models.File{
			{JobID: other.ID, FileName: "people.csv"},
			{JobID: job.ID, FileName: "people.csv", ParentFileID: &parent},
			{JobID: job.ID, FileName: "people.csv", ParentFileID: &parent},
			{JobID: job.ID, FileName: "People.csv"},
		} {
			f.CreatedAt = testNow()
			if err := s.Files.Create(ctx, org.ID, &f); err != nil {
				t.Errorf("create %s in %s (parent %v): %v", f.FileName, f.JobID, f.ParentFileID, err)
			}
		}
	})
}

// TestMigratingRenamesDuplicateUploads: a database where concurrent
// uploads stored one name twice or more in a job migrates: the oldest
// keeps the name, each later one is renamed with its id (clear of names
// already taken, the extension kept), nothing is deleted, and the index
// then refuses a new duplicate.
func TestMigratingRenamesDuplicateUploads(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			db := openMigratedTo(t, d, "202611210005_webhooks")
			for _, j := range []string{"job_a", "job_b"} {
				err := db.Gorm.Exec(`INSERT INTO jobs (id, org_id, created_by, status, stage, progress, filenames, retention_mode, retention_days, error, created_at)
					VALUES (?, 'org', '', 'completed', 'done', 100, '["people.csv"]', 'short_term', 30, '', ?)`, j, testNow()).Error
				if err != nil {
					t.Fatal(err)
				}
			}
			type row struct {
				id     int64
				job    string
				name   string
				parent *int64
				want   string
			}
			rows := []row{
				{101, "job_a", "people.csv", nil, "people.csv"},
				{102, "job_a", "people.csv", nil, "people (duplicate 102).csv"},
				// A user declared the name the renaming would pick first.
				{103, "job_a", "people.csv", nil, "people (duplicate 103-2).csv"},
				{104, "job_a", "people (duplicate 103).csv", nil, "people (duplicate 103).csv"},
				{105, "job_a", "people.csv", ptr(int64(101)), "people.csv"}, // a corrected copy
				{106, "job_a", "events.2024.jsonl", nil, "events.2024.jsonl"},
				{107, "job_a", "events.2024.jsonl", nil, "events.2024 (duplicate 107).jsonl"},
				{108, "job_a", "README", nil, "README"},
				{109, "job_a", "README", nil, "README (duplicate 109)"},
				{110, "job_b", "people.csv", nil, "people.csv"},
			}
			for _, r := range rows {
				err := db.Gorm.Exec(`INSERT INTO files (id, org_id, job_id, file_name, storage_key, content_type, size_bytes, status, progress, format, row_count, column_count, profile, error, parent_file_id, created_at)
					VALUES (?, 'org', ?, ?, 'key', '', 1, 'completed', 100, 'csv', 1, 1, '', '', ?, ?)`, r.id, r.job, r.name, r.parent, testNow()).Error
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatalf("migrate over duplicates: %v", err)
			}
			for _, r := range rows {
				var f models.File
				if err := db.Gorm.Where("id = ?", r.id).Take(&f).Error; err != nil {
					t.Fatalf("file %d after migrating: %v", r.id, err)
				}
				if f.FileName != r.want || f.StorageKey != "key" || f.Status != "completed" {
					t.Errorf("file %d = %q (%s, %s), want %q with its data kept", r.id, f.FileName, f.StorageKey, f.Status, r.want)
				}
			}
			s := models.NewStores(db)
			dup := models.File{ID: 200, JobID: "job_b", FileName: "people.csv", CreatedAt: testNow()}
			var pub *errs.Error
			if err := s.Files.Create(ctx, "org", &dup); !errors.As(err, &pub) || pub.Status != http.StatusConflict {
				t.Fatalf("a new duplicate after migrating = %v, want a conflict", err)
			}
		})
	}
}
