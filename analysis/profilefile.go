package analysis

import (
	"context"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
)

// ProfileFile reads f (its format known by name) and profiles it exactly
// as Run does, with the batch pipeline over workers goroutines and a JSON
// file read once, but neither classifies nor scores it, and takes no
// memory budget beyond what opt says. It is what the evaluation compares
// with its oracle (evaluation/figures).
func ProfileFile(ctx context.Context, f readers.File, name string, opt profile.Options, workers int) (*profile.Profile, error) {
	r, err := readers.Open(f, name, readers.Options{OnePass: true})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return profileRecords(ctx, r, opt, workers, func() int64 { return 0 }, nil)
}
