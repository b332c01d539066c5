package models_test

import (
	"context"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

func TestJobsAndFiles(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		orgA, orgB := &models.Organization{Name: "A"}, &models.Organization{Name: "B"}
		for _, o := range []*models.Organization{orgA, orgB} {
			if err := s.Orgs.Create(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		j := &models.Job{RetentionMode: "short_term", RetentionDays: 30, Filenames: `["a.csv"]`, CreatedAt: time.Now().UTC()}
		if err := s.Jobs.Create(ctx, orgA.ID, j); err != nil {
			t.Fatal(err)
		}
		if !regexp.MustCompile(`^job_[a-z2-7]{12}$`).MatchString(j.ID) || j.Status != models.JobCreated {
			t.Fatalf("job = %+v", j)
		}
		if _, err := s.Jobs.Get(ctx, orgB.ID, j.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("other org Get = %v", err)
		}
		if _, err := s.Jobs.Start(ctx, orgB.ID, j.ID, "full_retention", 0, time.Now()); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("other org Start = %v", err)
		}
		started, err := s.Jobs.Start(ctx, orgA.ID, j.ID, "analysis_only", 1, time.Now())
		if err != nil || started.Status != models.JobQueued || started.RetentionMode != "analysis_only" || started.StartedAt == nil {
			t.Fatalf("Start = %+v, %v", started, err)
		}
		// A job whose workflow could not start goes back to created and can start again.
		if err := s.Jobs.Unstart(ctx, orgA.ID, j.ID); err != nil {
			t.Fatal(err)
		}
		if back, _ := s.Jobs.Get(ctx, orgA.ID, j.ID); back.Status != models.JobCreated || back.StartedAt != nil {
			t.Fatalf("after Unstart = %+v", back)
		}
		if _, err := s.Jobs.Start(ctx, orgA.ID, j.ID, "analysis_only", 1, time.Now()); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Jobs.Start(ctx, orgA.ID, j.ID, "full_retention", 0, time.Now()); !errors.Is(err, errs.ErrConflict) {
			t.Fatalf("second Start = %v, want conflict", err)
		}
		again, _ := s.Jobs.Get(ctx, orgA.ID, j.ID)
		if again.RetentionMode != "analysis_only" {
			t.Fatalf("retention changed by a refused start: %s", again.RetentionMode)
		}

		f1 := &models.File{JobID: j.ID, FileName: "a.csv", SizeBytes: 10, CreatedAt: time.Now().UTC()}
		f2 := &models.File{JobID: j.ID, FileName: "b.csv", SizeBytes: 20, CreatedAt: time.Now().UTC()}
		for _, f := range []*models.File{f1, f2} {
			if err := s.Files.Create(ctx, orgA.ID, f); err != nil {
				t.Fatal(err)
			}
		}
		if f2.ID <= f1.ID || f1.ID == 0 {
			t.Fatalf("file ids %d, %d", f1.ID, f2.ID)
		}
		if _, err := s.Files.Get(ctx, orgB.ID, f1.ID); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("other org file Get = %v", err)
		}
		res := models.FileResult{Format: "csv", RowCount: 3, ColumnCount: 2, QualityScore: 91.5, Profile: `{}`,
			Columns: []models.FileColumn{{Name: "email", InferredType: "string", Classification: "email", GDPRCategory: "personal", Confidence: 0.97},
				{Name: "n", InferredType: "integer", Classification: "number", GDPRCategory: "none", Confidence: 0.9}}}
		// Saving twice (a retried activity) replaces, never duplicates.
		for i := 0; i < 2; i++ {
			if err := s.Files.SaveResult(ctx, orgA.ID, f1.ID, res, time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Files.SaveResult(ctx, orgB.ID, f1.ID, res, time.Now()); !errors.Is(err, errs.ErrNotFound) {
			t.Fatalf("other org SaveResult = %v", err)
		}
		cols, err := s.Files.ColumnsOfFiles(ctx, orgA.ID, []int64{f1.ID, f2.ID})
		if err != nil || len(cols) != 2 || cols[0].Name != "email" || cols[1].Position != 1 {
			t.Fatalf("columns = %+v, %v", cols, err)
		}
		if other, _ := s.Files.ColumnsOfFiles(ctx, orgB.ID, []int64{f1.ID}); len(other) != 0 {
			t.Fatalf("other org sees columns: %+v", other)
		}
		got, _ := s.Files.Get(ctx, orgA.ID, f1.ID)
		if got.Status != models.FileCompleted || got.QualityScore == nil || *got.QualityScore != 91.5 || got.RowCount != 3 {
			t.Fatalf("file after result = %+v", got)
		}
		files, total, err := s.Files.List(ctx, orgA.ID, models.Page{Limit: 1})
		if err != nil || total != 2 || len(files) != 1 || files[0].ID != f2.ID {
			t.Fatalf("List = %+v %d %v", files, total, err)
		}
		jobs, total, err := s.Jobs.List(ctx, orgB.ID, models.Page{Limit: 10})
		if err != nil || total != 0 || len(jobs) != 0 {
			t.Fatalf("org B jobs = %+v %d %v", jobs, total, err)
		}
	})
}
