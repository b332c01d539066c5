package correctionsvc_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// engineStep is a suggestion of a trim on column col whose explanation
// makes it size bytes of configuration.
func engineStep(col string, size int) models.CorrectionStep {
	conf := 0.9
	return models.CorrectionStep{CorrectionType: "format_fix", ColumnName: col, Strategy: "trim", Params: "{}",
		Engine: "rule", Confidence: &conf, RawConfidence: &conf, Explanation: strings.Repeat("x", size-2)}
}

func stepBytes(p *models.Pipeline) int {
	n := 0
	for _, st := range p.Steps {
		n += len(st.Params) + len(st.Preview) + len(st.Explanation)
	}
	return n
}

// An inbox keeps every proposal that fits the bounds of a pipeline and
// leaves out the rest, instead of refusing them all: a step over the bound
// of one step, and the steps past the bound of the pipeline.
func TestProposeKeepsWhatFits(t *testing.T) {
	ctx := context.Background()
	stores := models.NewStores(modelstest.Open(t, models.SQLite))
	org := &models.Organization{Name: "Acme"}
	if err := stores.Orgs.Create(ctx, org); err != nil {
		t.Fatal(err)
	}
	svc := correctionsvc.Service{Stores: stores}
	file := &models.File{ID: 7, FileName: "cities.csv"}

	steps := []models.CorrectionStep{engineStep("huge", models.MaxStepBytes+1)}
	for i := range 20 {
		steps = append(steps, engineStep(fmt.Sprint("c", i), 60<<10))
	}
	p, err := svc.Propose(ctx, org.ID, file, steps)
	if err != nil {
		t.Fatal(err)
	}
	if want := models.MaxPipelineBytes / (60 << 10); len(p.Steps) != want || stepBytes(p) > models.MaxPipelineBytes {
		t.Fatalf("inbox holds %d steps of %d bytes, want %d within %d", len(p.Steps), stepBytes(p), want, models.MaxPipelineBytes)
	}
	for _, st := range p.Steps {
		if st.ColumnName == "huge" || st.Status != models.StepProposed || st.Source != models.StepSourceAuto {
			t.Errorf("inbox step = %+v", st.ColumnName)
		}
	}

	// A later analysis proposing the same steps and one small new one
	// adds only the new one, where it still fits.
	again := append(steps[1:3:3], engineStep("small", 100))
	p2, err := svc.Propose(ctx, org.ID, file, again)
	if err != nil {
		t.Fatal(err)
	}
	if p2.ID != p.ID || len(p2.Steps) != len(p.Steps)+1 || p2.Steps[len(p2.Steps)-1].ColumnName != "small" {
		t.Fatalf("second proposal: %d steps (was %d)", len(p2.Steps), len(p.Steps))
	}
	// Nothing new: the pipeline stays at its version.
	p3, err := svc.Propose(ctx, org.ID, file, []models.CorrectionStep{engineStep("small", 100)})
	if err != nil || p3.Version != p2.Version {
		t.Fatalf("third proposal = version %d (was %d), %v", p3.Version, p2.Version, err)
	}
}

// Analyses of one file finishing together propose into one inbox: each
// finds or creates the pipeline under the organisation's lock, so there is
// one suggestions pipeline holding every proposal.
func TestConcurrentProposalsShareOneInbox(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		stores := models.NewStores(db)
		org := &models.Organization{Name: "Acme"}
		if err := stores.Orgs.Create(ctx, org); err != nil {
			t.Fatal(err)
		}
		svc := correctionsvc.Service{Stores: stores}
		file := &models.File{ID: 9, FileName: "orders.csv"}
		const analyses = 4
		if db.Dialect == models.Postgres {
			// Open a connection for each analysis first, so that none
			// finishes while the next is still connecting.
			var warm sync.WaitGroup
			for range analyses {
				warm.Add(1)
				go func() { defer warm.Done(); db.Gorm.Exec("SELECT pg_sleep(0.05)") }()
			}
			warm.Wait()
		}
		errc := make(chan error, analyses)
		start := make(chan struct{})
		for i := range analyses {
			go func() {
				<-start
				_, err := svc.Propose(ctx, org.ID, file, []models.CorrectionStep{engineStep(fmt.Sprint("c", i), 100)})
				errc <- err
			}()
		}
		close(start)
		for range analyses {
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
		}
		var pipes []models.CorrectionPipeline
		if err := db.Gorm.Where("org_id = ? AND file_id = ? AND origin = ?", org.ID, file.ID, models.OriginSuggestions).Find(&pipes).Error; err != nil {
			t.Fatal(err)
		}
		if len(pipes) != 1 {
			t.Fatalf("%d suggestions pipelines for one file, want 1", len(pipes))
		}
		p, err := stores.Suggestions.InboxPipeline(ctx, org.ID, file.ID)
		if err != nil || len(p.Steps) != analyses {
			t.Fatalf("inbox = %v steps, %v; want the %d proposals", p, err, analyses)
		}
	})
}
