package readers

import (
	"sync"
	"testing"
	"unsafe"
)

func addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b[:1]))) }

func TestBufferPoolAllocate(t *testing.T) {
	p := new(bufferPool)
	for _, size := range []int{0, 1, 63, 64, 65, 1000, 4096, 1 << 20, 1<<20 + 1} {
		b := p.Allocate(size)
		if len(b) != size {
			t.Fatalf("Allocate(%d): len %d", size, len(b))
		}
		if c := cap(b); c < 64 || c != classSize(poolClass(size)) || c < size {
			t.Fatalf("Allocate(%d): capacity %d is not its class's", size, c)
		}
		if addr(b)%64 != 0 {
			t.Fatalf("Allocate(%d): not 64-byte aligned", size)
		}
		for _, x := range b[:cap(b)] {
			if x != 0 {
				t.Fatalf("Allocate(%d): not zeroed", size)
			}
		}
	}
}

// Every size has the smallest class that holds it; above 64 KiB a class
// wastes at most a quarter of its buffer; classes grow strictly.
func TestPoolClasses(t *testing.T) {
	for c := range poolClasses {
		if poolClass(classSize(c)) != c || (c > 0 && classSize(c) <= classSize(c-1)) {
			t.Fatalf("class %d: size %d, which is class %d", c, classSize(c), poolClass(classSize(c)))
		}
	}
	if classSize(poolClasses-1) != 64<<20 {
		t.Fatalf("the largest class holds %d bytes", classSize(poolClasses-1))
	}
	for size := 1; size <= 64<<20; size += 1 + size/1000 {
		c := poolClass(size)
		got := classSize(c)
		if got < size || (c > 0 && classSize(c-1) >= size) {
			t.Fatalf("size %d: class %d of %d bytes is not the smallest that holds it", size, c, got)
		}
		if size > 64<<10 && float64(got) > 1.25*float64(size) {
			t.Fatalf("size %d: class of %d bytes, more than a quarter of slack", size, got)
		}
	}
	if poolClass(64<<20+1) < poolClasses {
		t.Fatal("a buffer over 64 MiB has a class")
	}
}

func TestBufferPoolReusesZeroed(t *testing.T) {
	p := new(bufferPool)
	b := p.Allocate(1000)
	full := b[:cap(b)]
	for i := range full {
		full[i] = 0xAA
	}
	p.Free(b)
	c := p.Allocate(600) // same class: 1024 bytes
	if addr(c) != addr(b) {
		t.Fatal("a freed buffer of the class was not reused")
	}
	for i, x := range c[:cap(c)] {
		if x != 0 {
			t.Fatalf("reused buffer not zeroed at %d", i)
		}
	}
	if p.kept != 0 {
		t.Fatalf("kept = %d after reuse, want 0", p.kept)
	}
}

func TestBufferPoolReallocate(t *testing.T) {
	p := new(bufferPool)
	b := p.Allocate(100)
	copy(b, "hello")
	same := p.Reallocate(120, b) // capacity 128: in place
	if addr(same) != addr(b) || len(same) != 120 || string(same[:5]) != "hello" {
		t.Fatal("Reallocate within capacity did not grow in place")
	}
	grown := p.Reallocate(5000, same)
	if len(grown) != 5000 || string(grown[:5]) != "hello" || addr(grown) == addr(b) {
		t.Fatal("Reallocate beyond capacity lost the contents")
	}
	for _, x := range grown[5:] {
		if x != 0 {
			t.Fatal("grown buffer not zeroed past the copied bytes")
		}
	}
	if p.kept != 128 {
		t.Fatalf("the outgrown buffer was not kept for reuse: kept = %d", p.kept)
	}
}

func TestBufferPoolIgnoresForeignAndHuge(t *testing.T) {
	p := new(bufferPool)
	p.Free(make([]byte, 100))     // not a power-of-two capacity
	p.Free(nil)                   // nothing
	p.Free(make([]byte, 0, 32))   // below the smallest class
	huge := p.Allocate(128 << 20) // beyond the largest class: not pooled
	p.Free(huge)
	if p.kept != 0 {
		t.Fatalf("kept = %d, want 0", p.kept)
	}
}

func TestBufferPoolBoundsWhatItKeeps(t *testing.T) {
	p := new(bufferPool)
	var bufs [][]byte
	for range 2 * poolKeep / (1 << 20) {
		bufs = append(bufs, p.Allocate(1<<20))
	}
	for _, b := range bufs {
		p.Free(b)
	}
	if p.kept > poolKeep || p.kept < poolKeep-(1<<20) {
		t.Fatalf("kept = %d, want at most %d and close to it", p.kept, poolKeep)
	}
}

// The library may free from another goroutine than the one allocating.
func TestBufferPoolConcurrent(t *testing.T) {
	p := new(bufferPool)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				b := p.Allocate(64 << (i % 8))
				b[0] = byte(g)
				p.Free(b)
			}
		}()
	}
	wg.Wait()
}
