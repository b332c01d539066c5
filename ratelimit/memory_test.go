package ratelimit

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeClock is a manually advanced clock, safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func take(t *testing.T, m *Memory, key string, rule Rule) Result {
	t.Helper()
	res, err := m.Take(context.Background(), key, rule)
	if err != nil {
		t.Fatalf("Take(%q, %+v): %v", key, rule, err)
	}
	return res
}

func TestLimitReachedThenDenied(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(WithClock(clk.Now))
	rule := Rule{Limit: 3, Window: time.Minute}
	start := clk.Now()
	wantReset := start.Add(time.Minute)

	for i := 1; i <= rule.Limit; i++ {
		res := take(t, m, "auth:ip:1.2.3.4", rule)
		if !res.Allowed {
			t.Fatalf("request %d denied, want allowed", i)
		}
		if res.Limit != 3 {
			t.Errorf("request %d: Limit = %d, want 3", i, res.Limit)
		}
		if want := rule.Limit - i; res.Remaining != want {
			t.Errorf("request %d: Remaining = %d, want %d", i, res.Remaining, want)
		}
		if !res.Reset.Equal(wantReset) {
			t.Errorf("request %d: Reset = %v, want %v", i, res.Reset, wantReset)
		}
		if res.RetryAfter != 0 {
			t.Errorf("request %d: RetryAfter = %v, want 0", i, res.RetryAfter)
		}
		clk.Advance(time.Second)
	}

	// 3s into the window, 57s left.
	res := take(t, m, "auth:ip:1.2.3.4", rule)
	if res.Allowed {
		t.Fatal("request over the limit allowed")
	}
	if res.Remaining != 0 {
		t.Errorf("Remaining = %d, want 0", res.Remaining)
	}
	if res.Limit != 3 {
		t.Errorf("Limit = %d, want 3", res.Limit)
	}
	if !res.Reset.Equal(wantReset) {
		t.Errorf("Reset = %v, want %v", res.Reset, wantReset)
	}
	if res.RetryAfter != 57*time.Second {
		t.Errorf("RetryAfter = %v, want 57s", res.RetryAfter)
	}

	// Just before the end of the window: still denied, RetryAfter positive.
	clk.Advance(57*time.Second - time.Millisecond)
	res = take(t, m, "auth:ip:1.2.3.4", rule)
	if res.Allowed || res.RetryAfter != time.Millisecond {
		t.Errorf("at Reset-1ms: Allowed=%v RetryAfter=%v, want false, 1ms", res.Allowed, res.RetryAfter)
	}
}

func TestWindowRolloverRestoresQuota(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(WithClock(clk.Now))
	rule := Rule{Limit: 2, Window: time.Minute}

	take(t, m, "k", rule)
	clk.Advance(10 * time.Second)
	take(t, m, "k", rule)
	if take(t, m, "k", rule).Allowed {
		t.Fatal("third request allowed")
	}

	// Exactly at Reset the old window is over.
	clk.Advance(50 * time.Second)
	now := clk.Now()
	res := take(t, m, "k", rule)
	if !res.Allowed || res.Remaining != 1 {
		t.Fatalf("after rollover: Allowed=%v Remaining=%d, want true, 1", res.Allowed, res.Remaining)
	}
	// The new window starts at this request, not at the old Reset.
	if want := now.Add(time.Minute); !res.Reset.Equal(want) {
		t.Errorf("Reset = %v, want %v", res.Reset, want)
	}

	// A key idle for several windows starts a window at its next request.
	clk.Advance(5*time.Minute + 7*time.Second)
	now = clk.Now()
	res = take(t, m, "k", rule)
	if !res.Allowed || res.Remaining != 1 || !res.Reset.Equal(now.Add(time.Minute)) {
		t.Errorf("after idle: %+v, want allowed, Remaining 1, Reset %v", res, now.Add(time.Minute))
	}
}

func TestKeysAreIndependent(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(WithClock(clk.Now))
	rule := Rule{Limit: 1, Window: time.Hour}

	if !take(t, m, "general:user:a", rule).Allowed {
		t.Fatal("a: first request denied")
	}
	if take(t, m, "general:user:a", rule).Allowed {
		t.Fatal("a: second request allowed")
	}
	res := take(t, m, "general:user:b", rule)
	if !res.Allowed || res.Remaining != 0 {
		t.Fatalf("b: %+v, want allowed with Remaining 0", res)
	}

	// The same key under a rule with another window is counted on its own.
	minute := Rule{Limit: 5, Window: time.Minute}
	if res := take(t, m, "general:user:a", minute); !res.Allowed || res.Remaining != 4 {
		t.Fatalf("a per minute: %+v, want allowed with Remaining 4", res)
	}
}

func TestDeniedRequestsDoNotConsume(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(WithClock(clk.Now))
	rule := Rule{Limit: 2, Window: time.Minute}

	take(t, m, "k", rule)
	take(t, m, "k", rule)
	for i := 0; i < 100; i++ {
		if take(t, m, "k", rule).Allowed {
			t.Fatalf("denied request %d allowed", i)
		}
	}
	if got := m.entries[entryKey{"k", time.Minute}].count; got != 2 {
		t.Errorf("count after denials = %d, want 2", got)
	}

	clk.Advance(time.Minute)
	for i := 1; i <= 2; i++ {
		res := take(t, m, "k", rule)
		if !res.Allowed || res.Remaining != 2-i {
			t.Fatalf("next window request %d: %+v, want allowed with Remaining %d", i, res, 2-i)
		}
	}
	if take(t, m, "k", rule).Allowed {
		t.Fatal("next window: third request allowed")
	}
}

func TestConcurrentTakeAllowsExactlyLimit(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(WithClock(clk.Now))
	rule := Rule{Limit: 100, Window: time.Minute}
	const goroutines, perGoroutine = 50, 20 // 1000 attempts

	var allowed, denied atomic.Int64
	var minRemaining atomic.Int64
	minRemaining.Store(int64(rule.Limit))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := 0; g < goroutines; g++ {
		wg.Go(func() {
			<-start
			for i := 0; i < perGoroutine; i++ {
				res, err := m.Take(context.Background(), "hot", rule)
				if err != nil {
					t.Error(err)
					return
				}
				if res.Remaining < 0 {
					t.Errorf("Remaining = %d < 0", res.Remaining)
				}
				if res.Allowed {
					allowed.Add(1)
				} else {
					denied.Add(1)
					if res.RetryAfter <= 0 {
						t.Errorf("denied with RetryAfter %v", res.RetryAfter)
					}
				}
			}
		})
	}
	close(start)
	wg.Wait()

	if got := allowed.Load(); got != int64(rule.Limit) {
		t.Errorf("allowed = %d, want exactly %d", got, rule.Limit)
	}
	if got := denied.Load(); got != goroutines*perGoroutine-int64(rule.Limit) {
		t.Errorf("denied = %d, want %d", got, goroutines*perGoroutine-rule.Limit)
	}
}

func TestExpiredKeysArePurged(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(WithClock(clk.Now))
	m.sweepEvery = 10
	rule := Rule{Limit: 5, Window: time.Minute}

	const n = 1000
	for i := 0; i < n; i++ {
		take(t, m, "old:"+strconv.Itoa(i), rule)
	}
	// Sweeps ran along the way, but nothing had expired yet.
	if got := m.len(); got != n {
		t.Fatalf("len = %d, want %d live entries", got, n)
	}

	// All old windows end; a few keys stay live in a longer window.
	long := Rule{Limit: 5, Window: time.Hour}
	for i := 0; i < 3; i++ {
		take(t, m, "long:"+strconv.Itoa(i), long)
	}
	clk.Advance(time.Minute)

	// A sweep happens within max(sweepEvery, len left by the last sweep) calls.
	for i := 0; i < n+3; i++ {
		take(t, m, "new", rule)
	}
	if got := m.len(); got != 4 { // 3 long-window keys + "new"
		t.Errorf("len after sweep = %d, want 4", got)
	}
	// Live entries survived the sweep with their counts.
	if res := take(t, m, "long:0", long); res.Remaining != 3 {
		t.Errorf("long:0 Remaining = %d, want 3 (count kept)", res.Remaining)
	}
}

func TestMemoryStaysBoundedUnderChurn(t *testing.T) {
	clk := newFakeClock()
	m := NewMemory(WithClock(clk.Now))
	rule := Rule{Limit: 1, Window: time.Second}

	// A new key every 10ms with a 1s window: ~100 live keys at any time.
	peak := 0
	for i := 0; i < 50000; i++ {
		take(t, m, "ip:"+strconv.Itoa(i), rule)
		clk.Advance(10 * time.Millisecond)
		peak = max(peak, m.len())
	}
	// Live entries at the last sweep (~100) plus at most minSweepEvery more.
	if limit := minSweepEvery + 2*100; peak > limit {
		t.Errorf("peak entries = %d, want <= %d", peak, limit)
	}
}

func TestInvalidRule(t *testing.T) {
	m := NewMemory()
	for _, r := range []Rule{{0, time.Minute}, {-1, time.Minute}, {1, 0}, {1, -time.Second}} {
		if _, err := m.Take(context.Background(), "k", r); !errors.Is(err, ErrInvalidRule) {
			t.Errorf("Take with %+v: err = %v, want ErrInvalidRule", r, err)
		}
	}
	if got := m.len(); got != 0 {
		t.Errorf("invalid rules created %d entries", got)
	}
}

func TestDefaultClock(t *testing.T) {
	m := NewMemory(WithClock(nil)) // nil keeps time.Now
	before := time.Now()
	res := take(t, m, "k", Rule{Limit: 1, Window: time.Minute})
	if !res.Allowed || res.Reset.Before(before.Add(time.Minute)) || res.Reset.After(time.Now().Add(time.Minute)) {
		t.Errorf("unexpected result with real clock: %+v", res)
	}
}

func BenchmarkMemoryTake(b *testing.B) {
	rule := Rule{Limit: 1 << 30, Window: time.Minute}
	ctx := context.Background()

	b.Run("one-key", func(b *testing.B) {
		m := NewMemory()
		for b.Loop() {
			m.Take(ctx, "general:user:bench", rule)
		}
	})
	b.Run("10k-keys", func(b *testing.B) {
		m := NewMemory()
		keys := make([]string, 10000)
		for i := range keys {
			keys[i] = fmt.Sprintf("general:user:%d", i)
		}
		i := 0
		for b.Loop() {
			m.Take(ctx, keys[i%len(keys)], rule)
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		m := NewMemory()
		var id atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			key := "general:user:" + strconv.FormatInt(id.Add(1), 10)
			for pb.Next() {
				m.Take(ctx, key, rule)
			}
		})
	})
}
