package membudget

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// However many reservations race, the bytes held at once never pass the
// pool, and every one gets its turn.
func TestPoolNeverHandsOutMoreThanItHas(t *testing.T) {
	p := NewPool(100)
	var held, peak atomic.Int64
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			n := int64(10 + i%40)
			release, err := p.Reserve(context.Background(), n)
			if err != nil {
				t.Error(err)
				return
			}
			now := held.Add(n)
			for {
				old := peak.Load()
				if now <= old || peak.CompareAndSwap(old, now) {
					break
				}
			}
			time.Sleep(time.Millisecond)
			held.Add(-n)
			release()
			release() // a second call gives nothing back twice
		})
	}
	wg.Wait()
	if peak.Load() > 100 {
		t.Fatalf("%d bytes held at once from a pool of 100", peak.Load())
	}
	if peak.Load() < 50 {
		t.Fatalf("at most %d bytes held at once: reservations did not overlap", peak.Load())
	}
	// Everything came back.
	release, err := p.Reserve(context.Background(), 100)
	if err != nil {
		t.Fatal(err)
	}
	release()
}

func TestPoolWaitEndsWithItsContext(t *testing.T) {
	p := NewPool(10)
	release, _ := p.Reserve(context.Background(), 8)
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Reserve(ctx, 5); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the context's deadline", err)
	}
	if _, err := p.Reserve(context.Background(), 11); err == nil {
		t.Fatal("a reservation larger than the pool was accepted")
	}
	var none *Pool
	if release, err := none.Reserve(context.Background(), 1<<40); err != nil {
		t.Fatal(err)
	} else {
		release()
	}
}
