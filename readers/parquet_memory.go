package readers

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// bufferPool is the Arrow allocator of one Parquet reader. It keeps the
// buffers the library frees (pages, decoded values, record columns: the
// same few sizes over and over) and hands them out again, so that reading a
// file does not churn through garbage: with the Go allocator every 16K-row
// record was fresh memory, and a large file made the collector run about a
// hundred times.
//
// Buffers come in power-of-two capacities from 64 bytes to maxPooled, 64-byte
// aligned like the library's own allocator's, and are zeroed when handed
// out, as fresh Go memory is. At most poolKeep bytes wait for reuse; beyond
// that, and for larger buffers, freed memory is left to the collector. A
// buffer the library never frees (on an error, say) is simply collected.
//
// The pool also holds the reader to its memory budget: it counts the bytes
// the library holds (allocated and not yet freed), and an allocation that
// would take them past limit panics with errOverBudget, which guard turns
// into the reader's error. The library sizes its buffers by what the file
// says (pages, dictionaries, record batches, which a dictionary-encoded
// column expands without bound), and this is the one place all of them pass.
type bufferPool struct {
	mu    sync.Mutex
	free  [poolClasses][][]byte
	kept  int
	limit int64                  // 0: no limit
	live  atomic.Int64           // bytes handed out and not freed (capacities)
	huge  map[unsafe.Pointer]int // capacity of each live buffer over maxPooled
}

// newBufferPool returns a pool that lets the library hold at most limit
// bytes at once (0: no limit).
func newBufferPool(limit int64) *bufferPool {
	return &bufferPool{limit: limit}
}

// overBudget is the error of an allocation past the pool's limit.
type overBudget struct{ limit int64 }

func (e overBudget) Error() string {
	return "parquet: reading this file needs more memory at once than its " + humanBytes(int(e.limit)) +
		" budget (very large pages, or values repeated from a dictionary many times over)"
}

func (e overBudget) Is(target error) bool { return target == ErrUnsupported }

// charge counts n more bytes held, panicking past the limit.
func (p *bufferPool) charge(n int) {
	if live := p.live.Add(int64(n)); p.limit > 0 && live > p.limit {
		p.live.Add(-int64(n))
		panic(overBudget{p.limit})
	}
}

const (
	minPooledShift = 6
	maxPooledShift = 26 // 64 MiB
	poolClasses    = maxPooledShift - minPooledShift + 1
	poolKeep       = 16 << 20
	poolAlign      = 64
)

var _ memory.Allocator = (*bufferPool)(nil)

// poolClass is the class of a buffer of size bytes: capacity 64<<class.
func poolClass(size int) int {
	if size <= 1<<minPooledShift {
		return 0
	}
	return bits.Len(uint(size-1)) - minPooledShift
}

func (p *bufferPool) Allocate(size int) []byte {
	c := poolClass(size)
	if c >= poolClasses {
		p.charge(size)
		b := alignedBuffer(size, size)
		p.mu.Lock()
		if p.huge == nil {
			p.huge = map[unsafe.Pointer]int{}
		}
		p.huge[unsafe.Pointer(unsafe.SliceData(b[:1]))] = size
		p.mu.Unlock()
		return b
	}
	p.charge(1 << (c + minPooledShift))
	p.mu.Lock()
	if n := len(p.free[c]); n > 0 {
		b := p.free[c][n-1]
		p.free[c][n-1] = nil
		p.free[c] = p.free[c][:n-1]
		p.kept -= cap(b)
		p.mu.Unlock()
		clear(b[:cap(b)])
		return b[:size]
	}
	p.mu.Unlock()
	return alignedBuffer(size, 1<<(c+minPooledShift))
}

// Reallocate grows b as the library's own allocator does: in place when
// its capacity allows (the bytes past len(b) are zero, as Allocate cleared
// the whole capacity and the library only writes below its lengths).
func (p *bufferPool) Reallocate(size int, b []byte) []byte {
	if cap(b) >= size {
		return b[:size]
	}
	nb := p.Allocate(size)
	copy(nb, b)
	p.Free(b)
	return nb
}

func (p *bufferPool) Free(b []byte) {
	c := cap(b)
	if c == 0 {
		return
	}
	at := unsafe.Pointer(unsafe.SliceData(b[:1]))
	if c >= 1<<maxPooledShift {
		p.mu.Lock()
		size, ok := p.huge[at]
		delete(p.huge, at)
		p.mu.Unlock()
		if ok {
			p.live.Add(-int64(size))
			return
		}
	}
	if c < 1<<minPooledShift || c&(c-1) != 0 || uintptr(at)%poolAlign != 0 {
		return // not one of ours
	}
	class := poolClass(c)
	if class >= poolClasses {
		return
	}
	p.live.Add(-int64(c))
	p.mu.Lock()
	if p.kept+c <= poolKeep {
		p.free[class] = append(p.free[class], b[:0])
		p.kept += c
	}
	p.mu.Unlock()
}

// alignedBuffer returns a zeroed buffer of length size and capacity
// capacity whose first byte is 64-byte aligned.
func alignedBuffer(size, capacity int) []byte {
	buf := make([]byte, capacity+poolAlign)
	shift := 0
	if r := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % poolAlign); r != 0 {
		shift = poolAlign - r
	}
	return buf[shift : shift+size : shift+capacity]
}
