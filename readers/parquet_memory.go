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
// Buffers come in classes of capacities from 64 bytes to 64 MiB (poolClass),
// 64-byte aligned like the library's own allocator's, and are zeroed when handed
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

// Classes: powers of two from 64 bytes to 64 KiB, then four a doubling
// up to 64 MiB, so that a large buffer has at most a quarter of slack. With
// powers of two throughout, a page or dictionary a little over 1 MiB took
// 2 MiB: 400 MB for the first record of a 100-column file, against 260.
const (
	minPooledShift = 6  // 64 bytes
	stepShift      = 16 // from 64 KiB on, four classes a doubling
	maxPooledShift = 26 // 64 MiB
	pow2Classes    = stepShift - minPooledShift + 1
	poolClasses    = pow2Classes + 4*(maxPooledShift-stepShift)
	poolKeep       = 16 << 20
	poolAlign      = 64
)

var _ memory.Allocator = (*bufferPool)(nil)

// poolClass is the class of a buffer of size bytes: the smallest whose
// capacity (classSize) holds it; poolClasses and up for larger ones.
func poolClass(size int) int {
	if size <= 1<<minPooledShift {
		return 0
	}
	k := bits.Len(uint(size - 1)) // 2^(k-1) < size <= 2^k
	if k <= stepShift {
		return k - minPooledShift
	}
	base := 1 << (k - 1)
	quarter := (size - base + base/4 - 1) / (base / 4) // 1 to 4
	return pow2Classes + (k-stepShift-1)*4 + quarter - 1
}

// classSize is the capacity of class c's buffers.
func classSize(c int) int {
	if c < pow2Classes {
		return 1 << (c + minPooledShift)
	}
	j := c - pow2Classes
	base := 1 << (stepShift + j/4)
	return base + (j%4+1)*base/4
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
	p.charge(classSize(c))
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
	return alignedBuffer(size, classSize(c))
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
	if c > 1<<maxPooledShift {
		p.mu.Lock()
		size, ok := p.huge[at]
		delete(p.huge, at)
		p.mu.Unlock()
		if ok {
			p.live.Add(-int64(size))
			return
		}
	}
	class := poolClass(c)
	if class >= poolClasses || classSize(class) != c || uintptr(at)%poolAlign != 0 {
		return // not one of ours
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
