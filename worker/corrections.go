package worker

import (
	"context"

	"go.temporal.io/sdk/client"

	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/workflows"
)

// Corrections starts the workflows of correction pipelines.
type Corrections struct {
	Client client.Client
	Names  workflows.Names
}

// ApplyCorrections starts writing a corrected copy; the workflow id is the
// copy's, so a copy is written once.
func (c Corrections) ApplyCorrections(ctx context.Context, ref correctionsvc.ApplyRef) error {
	return startOnce(ctx, c.Client, c.Names, c.Names.ApplyCorrectionsID(ref.CopyID), workflows.ApplyCorrections, ref)
}
