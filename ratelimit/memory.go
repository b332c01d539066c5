package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// minSweepEvery is the smallest number of Take calls between two sweeps of
// expired entries.
const minSweepEvery = 1024

// Memory is an in-process Store for a single machine. It is safe for
// concurrent use. The zero value is not usable; call NewMemory.
//
// Memory stays bounded without a background goroutine: Take removes expired
// entries in a sweep once max(1024, L) calls have passed since the last
// sweep, where L is the number of entries the last sweep left. At most one
// entry is added per call, so a sweep costs O(L + calls since the previous
// one) = O(calls), an amortized O(1) per call, and the map never holds more
// than the entries still live at the last sweep plus max(1024, L) others.
// Entries whose windows have not ended cannot be dropped without forgetting
// their counts, so memory grows with the number of distinct keys seen within
// one window.
type Memory struct {
	now func() time.Time

	mu         sync.Mutex
	entries    map[entryKey]*entry
	calls      int // Take calls since the last sweep
	lastLen    int // len(entries) right after the last sweep
	sweepEvery int // minimum calls between sweeps; tests may lower it
}

type entryKey struct {
	key    string
	window time.Duration
}

type entry struct {
	count int       // requests allowed in the current window
	reset time.Time // end of the current window
}

var _ Store = (*Memory)(nil)

// MemoryOption configures a Memory.
type MemoryOption func(*Memory)

// WithClock makes Memory read the time from now instead of time.Now. Meant for
// tests.
func WithClock(now func() time.Time) MemoryOption {
	return func(m *Memory) {
		if now != nil {
			m.now = now
		}
	}
}

// NewMemory returns an empty Memory.
func NewMemory(opts ...MemoryOption) *Memory {
	m := &Memory{
		now:        time.Now,
		entries:    make(map[entryKey]*entry),
		sweepEvery: minSweepEvery,
	}
	for _, opt := range opts {
		opt(m)
	}
	return m
}

// Take implements Store. It never blocks on I/O, so ctx is not used; the only
// error is ErrInvalidRule.
func (m *Memory) Take(_ context.Context, key string, rule Rule) (Result, error) {
	if !rule.valid() {
		return Result{}, fmt.Errorf("%w (got Limit=%d Window=%s)", ErrInvalidRule, rule.Limit, rule.Window)
	}

	m.mu.Lock()
	defer m.mu.Unlock()

	now := m.now()
	m.maybeSweep(now)

	k := entryKey{key: key, window: rule.Window}
	e, ok := m.entries[k]
	if !ok {
		e = &entry{}
		m.entries[k] = e
	}
	if !now.Before(e.reset) {
		// First request, or the previous window has ended: open a new one.
		e.count = 0
		e.reset = now.Add(rule.Window)
	}

	res := Result{Limit: rule.Limit, Reset: e.reset}
	if e.count < rule.Limit {
		e.count++
		res.Allowed = true
		res.Remaining = rule.Limit - e.count
		return res, nil
	}
	// Denied: the count stays where it is, so denials do not use up quota.
	// (If the limit for a key was lowered mid-window, count may exceed it.)
	res.RetryAfter = e.reset.Sub(now)
	return res, nil
}

// maybeSweep removes expired entries once max(sweepEvery, lastLen) calls
// have passed since the last sweep. The threshold uses the size the last sweep
// left, not the current size: with churn (a new key on every call) the current
// size grows as fast as the call count, and a sweep would never come. m.mu
// must be held.
func (m *Memory) maybeSweep(now time.Time) {
	m.calls++
	if m.calls < max(m.sweepEvery, m.lastLen) {
		return
	}
	m.calls = 0
	m.purge(now)
	m.lastLen = len(m.entries)
}

// purge deletes every entry whose window has ended at now. m.mu must be held.
func (m *Memory) purge(now time.Time) {
	for k, e := range m.entries {
		if !now.Before(e.reset) {
			delete(m.entries, k)
		}
	}
}

// len reports how many entries Memory holds, expired or not. For tests.
func (m *Memory) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.entries)
}
