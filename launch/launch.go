// Package launch holds the one shape every asynchronous request of the
// service has: write the row that tracks the work, start the durable
// workflow that does it, and undo the row if the workflow cannot be
// started, so that nothing is left claiming work that will never run
// (a job queued forever, a scan running forever). Each domain's service
// (jobs, sources, and the reports and corrections to come) calls Run
// instead of spelling the three steps and their failure handling out.
package launch

import (
	"context"
	"errors"
	"fmt"

	"github.com/dqs/dqs/errs"
)

// Steps are the three steps of a launch.
type Steps struct {
	// Write records the work (a row in its starting state). Its error is
	// returned as is: it is the caller's conflict, limit or not-found.
	Write func(ctx context.Context) error
	// Start starts the workflow. It runs only after Write succeeded.
	Start func(ctx context.Context) error
	// Undo reverses Write when Start failed. It runs on a context that
	// keeps the request's values but not its cancellation: a client that
	// hung up must not leave the row half undone.
	Undo func(ctx context.Context) error
}

// ErrNotUndone wraps the error of an Undo that failed: the row was left
// in its starting state without a workflow, and the caller should log it
// for an operator.
var ErrNotUndone = errors.New("the work's record could not be undone after its workflow failed to start")

// Run performs the steps. When Start fails, the answer is an internal
// error (the user can retry: the row was undone) carrying Start's error
// for the logs, and ErrNotUndone too when Undo failed as well.
func Run(ctx context.Context, s Steps) error {
	if err := s.Write(ctx); err != nil {
		return err
	}
	startErr := s.Start(ctx)
	if startErr == nil {
		return nil
	}
	if err := s.Undo(context.WithoutCancel(ctx)); err != nil {
		return errors.Join(errs.ErrInternal, startErr, fmt.Errorf("%w: %w", ErrNotUndone, err))
	}
	return errors.Join(errs.ErrInternal, startErr)
}
