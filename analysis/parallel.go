package analysis

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/dqs/dqs/columnar"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// A file is profiled in batches of consecutive rows held column by column
// (columnar.Batch), through a pipeline with no barrier between batches:
//
//   - one goroutine reads rows into free batches;
//   - every column has a goroutine of its own that profiles that column of
//     each batch, batch after batch, so each column sees its values in file
//     order, in one stream: the profile is exactly the one a single pass
//     row by row gives, for any number of workers. At most `workers` of them
//     run at a time; a slow column (long free text) may lag the others by up
//     to inFlight batches instead of holding everyone up at the end of each;
//   - once every column is done with a batch, the calling goroutine chains
//     the cells' hashes into row hashes, reports progress and hands the
//     batch back to the reader;
//   - one more goroutine counts duplicate rows from the row hashes, batch
//     after batch: its set of row hashes grows (and, past a million rows,
//     turns into a sample) in steps of up to a tenth of a second, which
//     held the batches back from the reader, and the cores idle, while it
//     ran on the calling goroutine.
const inFlight = 4

// batch is a columnar batch with what the pipeline needs around it.
type batch struct {
	columnar.Batch
	seq     int
	hashes  [][]uint64   // per column, per row: the cell's hash
	pending atomic.Int32 // columns still to profile this batch
	read    int64        // how much of the source was read when the batch was cut (progress)
}

func newBatch(width int) *batch {
	b := &batch{Batch: *columnar.NewBatch(width)}
	b.growHashes()
	return b
}

// growHashes makes room for the hashes of every cell of the batch: a reader
// may pass the row bound by a row, and a growing reader add columns.
func (b *batch) growHashes() {
	for len(b.hashes) < len(b.Cols) {
		b.hashes = append(b.hashes, nil)
	}
	for i := range b.hashes {
		if len(b.hashes[i]) < b.Rows {
			b.hashes[i] = make([]uint64, max(b.Rows, b.MaxRows()))
		}
	}
}

// profileParallel profiles every row of r with at most workers columns
// profiled at a time and returns the profiler, made with opt. read reports
// how much of the source has been read (bytes of a file), sampled when a
// batch is cut; progress, when given, is called after each batch with that
// and the rows profiled so far, and stops the run with its error.
//
// A reader whose columns grow (records.GrowingReader) hands over a batch
// wider than the ones before it when a new column shows up. The pipeline
// then waits until every earlier batch is done, appends the new columns to
// the profiler (null in every earlier row) and starts their goroutines:
// rare, and the profile stays the one of a single pass.
func profileParallel(ctx context.Context, r records.Reader, opt profile.Options, workers int, read func() int64, progress func(read, rows int64) error) (*profile.Profiler, error) {
	if err := checkColumns(len(r.Columns()), opt.MemoryBudget); err != nil {
		return nil, err
	}
	p := profile.New(r.Columns(), opt)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	free := make(chan *batch, inFlight)
	for range inFlight {
		free <- newBatch(len(r.Columns()))
	}
	done := make(chan *batch, inFlight)
	slots := make(chan struct{}, max(1, workers))

	var wg sync.WaitGroup
	// Columns: each profiles its column of every batch, in order. Only the
	// reader goroutine starts them (and appends to columns).
	var columns []chan *batch
	startColumns := func(n int) {
		for i := len(columns); i < n; i++ {
			c := make(chan *batch, inFlight)
			columns = append(columns, c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				for b := range c {
					slots <- struct{}{}
					p.AddColumn(i, &b.Cols[i], b.hashes[i])
					<-slots
					if b.pending.Add(-1) == 0 {
						done <- b
					}
				}
			}()
		}
	}
	startColumns(len(r.Columns()))
	// grow waits until every batch but the reader's own is back in free, so
	// that nothing else touches the profiler, then adds the columns from
	// the profiler's width to n. It returns false, and sets readErr, when
	// the run must stop.
	var readErr error
	grow := func(n int) bool {
		if readErr = checkColumns(n, opt.MemoryBudget); readErr != nil {
			return false
		}
		var idle []*batch
		for len(idle) < inFlight-1 {
			select {
			case b := <-free:
				idle = append(idle, b)
			case <-ctx.Done():
				return false
			}
		}
		p.AppendColumns(r.Columns()[p.Columns():n])
		startColumns(n)
		for _, b := range idle {
			free <- b
		}
		return true
	}
	// The reader. It closes the column channels when it stops, so the
	// column goroutines end once they have drained them.
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer func() {
			for _, c := range columns {
				close(c)
			}
		}()
		for seq := 0; ; seq++ {
			var b *batch
			select {
			case b = <-free:
			case <-ctx.Done():
				return
			}
			b.Reset()
			err := readers.FillBatch(r, &b.Batch)
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				readErr = readError(r, err)
				return
			}
			if len(b.Cols) > p.Columns() && !grow(len(b.Cols)) {
				return
			}
			b.seq, b.read = seq, read()
			b.growHashes()
			b.pending.Store(int32(len(b.Cols)))
			if len(b.Cols) == 0 {
				done <- b
				continue
			}
			for _, c := range columns {
				c <- b
			}
		}
	}()
	// When both are done, nothing more reaches done.
	go func() {
		wg.Wait()
		close(done)
	}()

	// Duplicate rows: row hashes are counted in order on a goroutine of
	// their own; the buffers go round between it and the loop below.
	rowHashes := make(chan []uint64, inFlight)
	spareRows := make(chan []uint64, inFlight+2)
	dupsDone := make(chan struct{})
	go func() {
		defer close(dupsDone)
		for rows := range rowHashes {
			p.AddRowHashes(rows)
			select {
			case spareRows <- rows:
			default:
			}
		}
	}()
	defer func() {
		close(rowHashes)
		<-dupsDone
	}()

	// Batches finish in order (a column finishes batch k before k+1), but
	// their last columns may report out of order: rows are taken in order.
	var err error
	var rows int64 // profiled so far (progress)
	waiting := map[int]*batch{}
	next := 0
	for b := range done {
		waiting[b.seq] = b
		for b := waiting[next]; b != nil && err == nil; b = waiting[next] {
			delete(waiting, next)
			next++
			var spare []uint64
			select {
			case spare = <-spareRows:
			default:
			}
			hashes := p.RowHashes(b.Rows, b.hashes, spare)
			read := b.read
			rows += int64(b.Rows)
			free <- b
			rowHashes <- hashes
			if progress != nil {
				err = progress(read, rows)
			}
			if err == nil {
				err = ctx.Err()
			}
		}
		if err != nil {
			// Stop the reader; the batches in flight drain into done.
			cancel()
		}
	}
	if err != nil {
		return nil, err
	}
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// defaultWorkers is how many columns are profiled at a time: one per CPU
// the process may use.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
