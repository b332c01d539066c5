package analysis

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
)

// A file is profiled in batches of consecutive rows: one goroutine reads
// rows into a batch while the previous batch is profiled column by column,
// the columns shared out among the workers. Each column still sees its values
// in file order, in one stream, so the profile is exactly the one a single
// pass row by row gives, for any number of workers.
const (
	batchRows  = 32 << 10 // rows per batch, at most
	batchBytes = 4 << 20  // text bytes per batch, at most (one longer row may pass it)
)

// rowBatch is a run of rows copied out of the reader: the text of every cell
// back to back in text, ends[k] the end of cell k (row-major), nulls alike.
type rowBatch struct {
	rows  int
	width int
	text  []byte
	ends  []int
	nulls []bool
	read  int64 // bytes of the file read when the batch was cut (progress)
}

func (b *rowBatch) reset() {
	b.rows = 0
	b.text, b.ends, b.nulls = b.text[:0], b.ends[:0], b.nulls[:0]
}

func (b *rowBatch) full() bool { return b.rows >= batchRows || len(b.text) >= batchBytes }

func (b *rowBatch) add(rec *readers.Record) {
	for i, v := range rec.Values {
		b.text = append(b.text, v...)
		b.ends = append(b.ends, len(b.text))
		b.nulls = append(b.nulls, rec.Null[i])
	}
	b.rows++
}

// cell returns the value of column i in row r: a view of the batch's text,
// not a copy (the profiler keeps no reference to it).
func (b *rowBatch) cell(r, i int) (string, bool) {
	k := r*b.width + i
	start := 0
	if k > 0 {
		start = b.ends[k-1]
	}
	end := b.ends[k]
	return unsafe.String(unsafe.SliceData(b.text[start:end]), end-start), b.nulls[k]
}

// profileParallel profiles every row of r with the given number of workers
// and returns the profiler. read reports the bytes of the file read so far;
// progress, when given, is called after each batch and stops the run with
// its error.
func profileParallel(ctx context.Context, r readers.Reader, workers int, read func() int64, progress func(read int64) error) (*profile.Profiler, error) {
	workers = max(1, workers)
	width := len(r.Columns())
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Two batches: one being read while the other is profiled.
	free := make(chan *rowBatch, 2)
	for range 2 {
		free <- &rowBatch{width: width}
	}
	full := make(chan *rowBatch)
	// On any return, the reader is stopped and waited for: the caller may
	// close r as soon as this function returns.
	defer func() {
		cancel()
		for range full {
		}
	}()
	var readErr error
	go func() { // the reader
		defer close(full)
		for {
			var b *rowBatch
			select {
			case b = <-free:
			case <-ctx.Done():
				return
			}
			b.reset()
			for !b.full() {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					readErr = badInput(err)
					return
				}
				b.add(rec)
			}
			if b.rows == 0 {
				return
			}
			b.read = read()
			select {
			case full <- b:
			case <-ctx.Done():
				return
			}
		}
	}()

	p := profile.New(r.Columns(), profile.Options{})
	hashes := make([][]uint64, width)
	for i := range hashes {
		hashes[i] = make([]uint64, batchRows)
	}
	for b := range full {
		profileBatch(p, b, hashes, workers)
		p.AddRows(b.rows, hashes)
		read := b.read
		free <- b
		if progress != nil {
			if err := progress(read); err != nil {
				return nil, err
			}
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	if readErr != nil {
		return nil, readErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return p, nil
}

// profileBatch adds every column of b to p, the columns taken in turn by
// up to workers goroutines.
func profileBatch(p *profile.Profiler, b *rowBatch, hashes [][]uint64, workers int) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, b.width) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= b.width {
					return
				}
				p.AddColumn(i, b.rows, func(r int) (string, bool) { return b.cell(r, i) }, hashes[i])
			}
		}()
	}
	wg.Wait()
}

// defaultWorkers is how many goroutines profile columns: one per CPU the
// process may use.
func defaultWorkers() int { return runtime.GOMAXPROCS(0) }
