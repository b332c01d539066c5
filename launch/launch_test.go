package launch

import (
	"context"
	"errors"
	"testing"

	"github.com/dqs/dqs/errs"
)

// record is a row the steps write and undo, to see what Run left behind.
type record struct {
	written, started, undone bool
	undoCtxErr               error
}

func steps(r *record, writeErr, startErr, undoErr error) Steps {
	return Steps{
		Write: func(context.Context) error {
			if writeErr != nil {
				return writeErr
			}
			r.written = true
			return nil
		},
		Start: func(context.Context) error {
			if startErr != nil {
				return startErr
			}
			r.started = true
			return nil
		},
		Undo: func(ctx context.Context) error {
			r.undoCtxErr = ctx.Err()
			if undoErr != nil {
				return undoErr
			}
			r.undone, r.written = true, false
			return nil
		},
	}
}

func TestRunStartsAfterWriting(t *testing.T) {
	var r record
	if err := Run(context.Background(), steps(&r, nil, nil, nil)); err != nil {
		t.Fatal(err)
	}
	if !r.written || !r.started || r.undone {
		t.Fatalf("after a successful launch: %+v", r)
	}
}

func TestRunReturnsTheWriteErrorAndStartsNothing(t *testing.T) {
	var r record
	conflict := errs.Conflict("already started")
	if err := Run(context.Background(), steps(&r, conflict, nil, nil)); err != conflict {
		t.Fatalf("Run = %v, want the write's own error", err)
	}
	if r.started || r.undone {
		t.Fatalf("a failed write went on: %+v", r)
	}
}

func TestRunUndoesWhenTheStartFailsEvenAfterTheClientLeft(t *testing.T) {
	var r record
	unavailable := errors.New("temporal unavailable")
	ctx, cancel := context.WithCancel(context.Background())
	s := steps(&r, nil, unavailable, nil)
	start := s.Start
	s.Start = func(ctx context.Context) error { cancel(); return start(ctx) } // the client hangs up meanwhile
	err := Run(ctx, s)
	if !errors.Is(err, errs.ErrInternal) || !errors.Is(err, unavailable) || errors.Is(err, ErrNotUndone) {
		t.Fatalf("Run = %v, want an internal error carrying the start's", err)
	}
	if !r.undone || r.written || r.undoCtxErr != nil {
		t.Fatalf("after a failed start: %+v; want the row undone on a live context", r)
	}
}

func TestRunSaysWhenTheUndoFailedToo(t *testing.T) {
	var r record
	dbDown := errors.New("database gone")
	err := Run(context.Background(), steps(&r, nil, errors.New("temporal unavailable"), dbDown))
	if !errors.Is(err, errs.ErrInternal) || !errors.Is(err, ErrNotUndone) || !errors.Is(err, dbDown) {
		t.Fatalf("Run = %v, want internal, ErrNotUndone and the undo's error", err)
	}
}
