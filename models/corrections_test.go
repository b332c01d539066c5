package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestCorrectionEditsAllLand: edits racing on one pipeline each land at
// their own version, with a snapshot per version that holds the steps as
// that edit left them; another organisation cannot read or edit it.
func TestCorrectionEditsAllLand(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: 7, Name: "fix"}}
		if err := s.Corrections.Create(ctx, org.ID, "u", p); err != nil {
			t.Fatal(err)
		}
		const n = 6
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.Corrections.Edit(ctx, org.ID, p.ID, "u", func(_ context.Context, p *models.Pipeline) (string, error) {
					p.Steps = append(p.Steps, models.CorrectionStep{ID: uuid.NewString(), CorrectionType: "format_fix",
						ColumnName: fmt.Sprint("c", i), Strategy: "trim", Params: "{}", Status: models.StepActive, Source: models.StepSourceUser})
					return "step added", nil
				})
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("a concurrent edit: %v", err)
			}
		}
		got, err := s.Corrections.Get(ctx, org.ID, p.ID)
		if err != nil || got.Version != n+1 || len(got.Steps) != n {
			t.Fatalf("after %d edits: version %d, %d steps, %v", n, got.Version, len(got.Steps), err)
		}
		for i, st := range got.Steps {
			if st.Position != i+1 {
				t.Errorf("step %d at position %d", i, st.Position)
			}
		}
		versions, total, err := s.Corrections.Versions(ctx, org.ID, p.ID, models.Page{Limit: 100})
		if err != nil || total != n+1 {
			t.Fatalf("versions: %d, %v", total, err)
		}
		for _, v := range versions {
			var steps []models.CorrectionStep
			if err := json.Unmarshal([]byte(v.Steps), &steps); err != nil || len(steps) != v.Version-1 {
				t.Errorf("version %d holds %d steps, want %d (%v)", v.Version, len(steps), v.Version-1, err)
			}
		}
		if _, err := s.Corrections.Get(ctx, other.ID, p.ID); err == nil {
			t.Error("another organisation reads the pipeline")
		}
		if _, err := s.Corrections.Edit(ctx, other.ID, p.ID, "u", func(context.Context, *models.Pipeline) (string, error) { return "x", nil }); err == nil {
			t.Error("another organisation edits the pipeline")
		}
		if n, err := s.Corrections.PendingCount(ctx, org.ID); err != nil || n != 0 {
			t.Errorf("pending = %d, %v", n, err)
		}
	})
}

// TestCorrectionStepBounds: a step's configuration is bounded, a
// pipeline's too, an engine step's confidence and preview must be what
// the API can show, and versions keep HTML characters as they are.
func TestCorrectionStepBounds(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		step := func(params string) models.CorrectionStep {
			return models.CorrectionStep{ID: uuid.NewString(), CorrectionType: "regex_replace", ColumnName: "c", Params: params,
				Status: models.StepActive, Source: models.StepSourceUser}
		}
		big := `{"pattern":"` + strings.Repeat("x", models.MaxStepBytes) + `","replacement":""}`
		p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: 1, Name: "p"}, Steps: []models.CorrectionStep{step(big)}}
		if err := s.Corrections.Create(ctx, org.ID, "u", p); !errors.Is(err, errs.ErrBadRequest) {
			t.Fatalf("a step of %d bytes: %v", len(big), err)
		}
		medium := `{"pattern":"` + strings.Repeat("<", 60<<10) + `","replacement":""}`
		p.Steps = nil
		for range 18 { // 18 × 60 KiB > 1 MiB
			p.Steps = append(p.Steps, step(medium))
		}
		if err := s.Corrections.Create(ctx, org.ID, "u", p); !errors.Is(err, errs.ErrBadRequest) {
			t.Fatalf("a pipeline over the bound: %v", err)
		}
		p.Steps = p.Steps[:1]
		if err := s.Corrections.Create(ctx, org.ID, "u", p); err != nil {
			t.Fatal(err)
		}
		v, err := s.Corrections.Version(ctx, org.ID, p.ID, 1)
		if err != nil || strings.Contains(v.Steps, `\u003c`) || len(v.Steps) > 62<<10+1000 {
			t.Fatalf("the version's steps are %d bytes (%v); HTML escaping would triple them", len(v.Steps), err)
		}
		_, err = s.Corrections.Edit(ctx, org.ID, p.ID, "u", func(_ context.Context, p *models.Pipeline) (string, error) {
			nan := math.NaN()
			p.Steps = append(p.Steps, models.CorrectionStep{ID: uuid.NewString(), CorrectionType: "format_fix", ColumnName: "c",
				Strategy: "trim", Params: "{}", Status: models.StepProposed, Source: models.StepSourceAuto, Confidence: &nan})
			return "suggested", nil
		})
		if err == nil {
			t.Fatal("a NaN confidence was stored")
		}
		if got, _ := s.Corrections.Get(ctx, org.ID, p.ID); got.Version != 1 || len(got.Steps) != 1 {
			t.Fatalf("a refused edit left %+v", got)
		}
	})
}
