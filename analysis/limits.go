package analysis

import (
	"context"
	"errors"
	"time"

	"github.com/dqs/dqs/membudget"
)

// Limits bound the memory of an analysis.
//
// One file's budget (FileMemory) is split between the parts that hold
// memory while it is read:
//
//   - the reader, a quarter: Parquet pages and metadata, record batches,
//     a CSV record or JSON row (readers.Options.MemoryBudget), which also
//     bounds the text of one batch (a sixteenth of the file's budget);
//   - the batches in flight, up to inFlight+1 of them: five sixteenths;
//   - the profiler's column state, three eighths (profile.Options
//     .MemoryBudget): a file with more columns than fit is refused before
//     it is read (profile.CheckBudget);
//   - the rest, a sixteenth, for the duplicate-row set, classification and
//     scoring at the end.
//
// A prescan reads the head of a file only (at most PrescanRows rows,
// prescanCells cells and a sixteenth of its budget of text), so its
// profiler's state is bounded by what it reads: PrescanMemory is a quarter
// of a file's budget.
type Limits struct {
	// FileMemory is the memory reading and profiling one file may take
	// (0: DefaultFileMemory).
	FileMemory int64
	// Pool, when set, is the memory of the process the files read at once
	// share: an analysis reserves FileMemory from it before it reads, a
	// prescan PrescanMemory, waiting while other files hold it.
	Pool *membudget.Pool
}

// DefaultFileMemory is the budget of one file unless configured.
const DefaultFileMemory = 2 << 30

// MinFileMemory is the smallest budget a file takes.
const MinFileMemory = 128 << 20

func (l Limits) fileMemory() int64 {
	if l.FileMemory <= 0 {
		return DefaultFileMemory
	}
	return max(l.FileMemory, MinFileMemory)
}

// PrescanMemory is what a prescan reserves.
func (l Limits) PrescanMemory() int64 { return l.fileMemory() / 4 }

func (l Limits) readerBudget() int64  { return l.fileMemory() / 4 }
func (l Limits) profileBudget() int64 { return l.fileMemory() * 3 / 8 }

// reserveWait is how long a reservation waits before it reports, through
// waiting, that it is still waiting (an activity heartbeats then).
var reserveWait = 5 * time.Second

// reserve takes n bytes from the pool, calling waiting every reserveWait
// while they are not free, and returns the function that gives them back.
func (l Limits) reserve(ctx context.Context, n int64, waiting func()) (release func(), err error) {
	for {
		wctx, cancel := context.WithTimeout(ctx, reserveWait)
		release, err = l.Pool.Reserve(wctx, n)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return release, err
		}
		waiting()
	}
}
