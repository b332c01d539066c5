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
//   - the reader, a half: Parquet metadata, the pages a row group holds at
//     once (three quarters of the reader's share: a wide file of large
//     dictionary-encoded pages needs them), record batches, a CSV record or
//     JSON row (readers.Options.MemoryBudget), which also bounds the text of
//     one batch past its usual bounds (a sixteenth of the reader's share);
//   - the batches in flight, up to inFlight+1 of them, each at most that
//     much text and MaxCells cells: three sixteenths;
//   - the profiler's column state, five sixteenths (profile.Options
//     .MemoryBudget): a file with more columns than fit is refused before
//     it is read (profile.CheckBudget);
//   - the duplicate-row set, classification and scoring at the end take
//     what the profiler's worst case leaves: its columns are seldom all at
//     their worst.
//
// A prescan reads the head of a file only (at most PrescanRows rows,
// prescanCells cells and 32 MiB of text by default), so its profiler's
// state is bounded by what it reads; but the first record of a wide
// Parquet file holds a page of every column as a whole analysis does.
// PrescanMemory is half a file's budget, three quarters of it the reader's.
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
func (l Limits) PrescanMemory() int64 { return l.fileMemory() / 2 }

func (l Limits) readerBudget() int64  { return l.fileMemory() / 2 }
func (l Limits) profileBudget() int64 { return l.fileMemory() / 16 * 5 }

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
