package readers

import (
	"math/bits"
	"sync"
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
type bufferPool struct {
	mu   sync.Mutex
	free [poolClasses][][]byte
	kept int
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
		return alignedBuffer(size, size)
	}
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
	if c < 1<<minPooledShift || c&(c-1) != 0 || uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))%poolAlign != 0 {
		return // not one of ours
	}
	class := poolClass(c)
	if class >= poolClasses {
		return
	}
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
