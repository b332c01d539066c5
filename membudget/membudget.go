// Package membudget shares a process's memory among the files it reads at
// once. Each file has a budget of its own, which the readers and the
// profiler hold to (readers.Options.MemoryBudget, profile.Options
// .MemoryBudget); before it reads, a file reserves that budget from the
// process's pool, waiting while other files hold it. So N files at once
// cannot add up to more than the pool, however many arrive.
package membudget

import (
	"context"
	"fmt"

	"golang.org/x/sync/semaphore"
)

// Pool is the memory the files read at once share.
type Pool struct {
	total int64
	sem   *semaphore.Weighted
}

// NewPool returns a pool of total bytes.
func NewPool(total int64) *Pool {
	return &Pool{total: total, sem: semaphore.NewWeighted(total)}
}

// Total is the pool's size in bytes.
func (p *Pool) Total() int64 { return p.total }

// Reserve takes n bytes from the pool, waiting until they are free or ctx
// ends, and returns the function that gives them back. A reservation larger
// than the pool is an error: it would wait forever.
func (p *Pool) Reserve(ctx context.Context, n int64) (release func(), err error) {
	if p == nil || n <= 0 {
		return func() {}, nil
	}
	if n > p.total {
		return nil, fmt.Errorf("membudget: %d bytes asked of a pool of %d", n, p.total)
	}
	if err := p.sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	released := false
	return func() {
		if !released {
			released = true
			p.sem.Release(n)
		}
	}, nil
}
