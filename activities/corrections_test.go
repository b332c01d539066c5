package activities

import (
	"context"
	"testing"

	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/models"
)

// A step the user edits while an application runs keeps its id but is
// another step: finishing the application marks applied only the steps
// that ran unchanged, and the edited one stays active.
func TestFinishCorrectionsMarksOnlyTheStepsThatRan(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	var files []*models.File
	for _, name := range []string{"cities.csv", "cities.csv"} {
		fl := &models.File{JobID: "job_finish00000", FileName: name, Status: models.FileCompleted}
		if len(files) == 1 {
			fl.ParentFileID = &files[0].ID
		}
		if err := f.stores.Files.Create(ctx, f.org.ID, fl); err != nil {
			t.Fatal(err)
		}
		files = append(files, fl)
	}
	step := func(id, strategy string) models.CorrectionStep {
		return models.CorrectionStep{ID: id, CorrectionType: "format_fix", ColumnName: "city", Strategy: strategy, Params: "{}",
			Status: models.StepActive, Source: models.StepSourceUser}
	}
	p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: "5a1f7a52-8b0e-4c35-9a55-2d1f3c4b5a60", FileID: files[0].ID, Name: "clean"},
		Steps: []models.CorrectionStep{step("11111111-1111-1111-1111-111111111111", "trim"), step("22222222-2222-2222-2222-222222222222", "lower")}}
	if err := f.stores.Corrections.Create(ctx, f.org.ID, "", p); err != nil {
		t.Fatal(err)
	}
	ref := correctionsvc.ApplyRef{OrgID: f.org.ID, PipelineID: p.ID, Version: 1, FileID: files[0].ID, CopyID: files[1].ID}
	// Meanwhile the second step is rewritten.
	if _, err := f.stores.Corrections.Edit(ctx, f.org.ID, p.ID, "", func(_ context.Context, p *models.Pipeline) (string, error) {
		p.Steps[1].Strategy = "upper"
		return "step edited", nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.acts.FinishCorrections(ctx, ref); err != nil {
		t.Fatal(err)
	}
	got, err := f.stores.Corrections.Get(ctx, f.org.ID, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Steps[0].Status != models.StepApplied || got.Steps[1].Status != models.StepActive || got.Version != 3 {
		t.Fatalf("steps = %s, %s at version %d; want applied, active at 3", got.Steps[0].Status, got.Steps[1].Status, got.Version)
	}
	// Finishing again (a retried activity) changes nothing.
	if err := f.acts.FinishCorrections(ctx, ref); err != nil {
		t.Fatal(err)
	}
	if again, _ := f.stores.Corrections.Get(ctx, f.org.ID, p.ID); again.Version != 3 {
		t.Fatalf("a retried finish made version %d", again.Version)
	}
	// The lineage holds original → pipeline → copy.
	pipe, err := f.stores.Lineage.NodeByRef(ctx, f.org.ID, "pipeline", models.PipelineRef(p.ID, files[0].ID))
	if err != nil || pipe.Name != "clean" {
		t.Fatalf("pipeline node = %+v, %v", pipe, err)
	}
}
