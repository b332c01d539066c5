package connectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/dqs/dqs/internal/fixtures"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/readers"
)

// memSource is a fake ObjectSource over objects held in memory, with
// Open's semantics (ranges clipped to the end, empty at and past it,
// ErrNotFound for a missing key, ErrInvalid for a negative offset). It
// records the ranges opened and the context each Open got, counts the
// streams left open, hands out its bytes a few at a time (as a network
// stream does) and can be made to fail Open, or a stream part-way.
type memSource struct {
	objects map[string][]byte

	mu      sync.Mutex
	ranges  [][2]int64
	ctxs    []context.Context
	open    int   // streams opened and not yet closed
	openErr error // Open's error, when set
	// A stream reaching object byte failAt fails with failErr, once.
	failAt  int64
	failErr error
}

func (m *memSource) List(context.Context) ([]Table, error) { return nil, nil }
func (m *memSource) Close() error                          { return nil }

func (m *memSource) Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.ranges = append(m.ranges, [2]int64{offset, length})
	m.ctxs = append(m.ctxs, ctx)
	if m.openErr != nil {
		return nil, m.openErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	data, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("%w: object %q", ErrNotFound, key)
	}
	if offset < 0 {
		return nil, fmt.Errorf("%w: negative offset", ErrInvalid)
	}
	size := int64(len(data))
	start, end := min(offset, size), size
	if length >= 0 && length < size-start {
		end = start + length
	}
	m.open++
	return &memStream{m: m, data: data, at: start, end: end}, nil
}

// ranges returns the ranges opened so far and forgets them.
func (m *memSource) takeRanges() [][2]int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.ranges
	m.ranges = nil
	return r
}

func (m *memSource) streams() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.open
}

// memStream is a stream memSource opens: at most 7 bytes a Read.
type memStream struct {
	m       *memSource
	data    []byte
	at, end int64
	closed  bool
}

func (s *memStream) Read(p []byte) (int, error) {
	if s.closed {
		return 0, errors.New("memStream: read after close")
	}
	s.m.mu.Lock()
	if s.m.failErr != nil && s.at <= s.m.failAt && s.m.failAt < s.end {
		if s.at == s.m.failAt {
			err := s.m.failErr
			s.m.failErr = nil
			s.m.mu.Unlock()
			return 0, err
		}
		p = p[:min(int64(len(p)), s.m.failAt-s.at)]
	}
	s.m.mu.Unlock()
	if s.at >= s.end {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], s.data[s.at:s.end])
	s.at += int64(n)
	return n, nil
}

func (s *memStream) Close() error {
	if !s.closed {
		s.closed = true
		s.m.mu.Lock()
		s.m.open--
		s.m.mu.Unlock()
	}
	return nil
}

func newMem(key string, data []byte) *memSource {
	return &memSource{objects: map[string][]byte{key: data}}
}

func testBytes(n int) []byte {
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestRemoteFileReadWhole(t *testing.T) {
	for _, size := range []int{0, 1, 7, 1000, 100_003} {
		data := testBytes(size)
		src := newMem("k.csv", data)
		f := NewRemoteFile(t.Context(), src, "k.csv", int64(size))
		if f.Size() != int64(size) {
			t.Errorf("Size = %d, want %d", f.Size(), size)
		}
		// A small buffer: many Reads from the one stream.
		got, err := io.ReadAll(io.LimitReader(f, 1<<40))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: ReadAll = %d bytes, %v; want the %d bytes", size, len(got), err, size)
		}
		if n, err := f.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Errorf("size %d: Read at the end = %d, %v; want 0, io.EOF", size, n, err)
		}
		want := [][2]int64{{0, int64(size)}}
		if size == 0 {
			want = nil // nothing to read, nothing opened
		}
		if r := src.takeRanges(); !slices.Equal(r, want) {
			t.Errorf("size %d: opened %v, want %v", size, r, want)
		}
		if f.BytesRead() != int64(size) {
			t.Errorf("size %d: BytesRead = %d", size, f.BytesRead())
		}
		if src.streams() != 0 {
			t.Errorf("size %d: %d streams left open after reading to the end", size, src.streams())
		}
		if err := f.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	}
}

// TestRemoteFileReadAtOracle compares ReadAt with bytes.Reader's at
// random offsets and lengths, past the end included, and checks the
// ranges it opens: exactly the bytes within the file, or for a small read
// a block around them, and none for a read within the last block.
func TestRemoteFileReadAtOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, size := range []int{0, 1, 13, 4096, 65_537, 300_001} {
		data := testBytes(size)
		src := newMem("k.parquet", data)
		f := NewRemoteFile(t.Context(), src, "k.parquet", int64(size))
		oracle := bytes.NewReader(data)
		var moved, blockAt, blockEnd int64
		for i := range 400 {
			off := r.Int64N(int64(size) + 20)
			if i%10 == 0 {
				off = max(0, int64(size)-r.Int64N(10)) // around the end
			}
			n := r.IntN(min(size+40, 3*smallRead) + 1)
			if i%7 == 0 {
				n = r.IntN(9) // footer-sized, and empty
			}
			got, want := make([]byte, n), make([]byte, n)
			gn, gerr := f.ReadAt(got, off)
			wn, werr := oracle.ReadAt(want, off)
			if gn != wn || gerr != werr || !bytes.Equal(got[:gn], want[:wn]) {
				t.Fatalf("size %d: ReadAt(%d bytes, %d) = %d, %v; bytes.Reader: %d, %v (bytes equal: %v)",
					size, n, off, gn, gerr, wn, werr, bytes.Equal(got[:gn], want[:wn]))
			}
			var wantRanges [][2]int64
			within := min(int64(n), max(0, int64(size)-off))
			switch {
			case within == 0, off >= blockAt && off+within <= blockEnd:
			case within < smallRead:
				blockEnd = min(int64(size), off+readBlock)
				blockAt = max(0, blockEnd-readBlock)
				wantRanges = [][2]int64{{blockAt, blockEnd - blockAt}}
			default:
				wantRanges = [][2]int64{{off, within}}
			}
			if ranges := src.takeRanges(); !slices.Equal(ranges, wantRanges) {
				t.Fatalf("ReadAt(%d bytes, %d) of %d opened %v, want %v", n, off, size, ranges, wantRanges)
			}
			for _, r := range wantRanges {
				moved += r[1]
			}
		}
		if _, err := f.ReadAt(make([]byte, 4), -1); err == nil {
			t.Error("ReadAt at offset -1 succeeded")
		}
		if f.BytesRead() != moved {
			t.Errorf("BytesRead = %d, want %d", f.BytesRead(), moved)
		}
		if src.streams() != 0 {
			t.Errorf("%d streams left open by ReadAt", src.streams())
		}
	}
}

// TestRemoteFileSmallReads: what Parquet reads first (a header, its
// magic, the footer's length and magic, the footer) takes two requests.
func TestRemoteFileSmallReads(t *testing.T) {
	const size = 1 << 20
	data := testBytes(size)
	src := newMem("k.parquet", data)
	f := NewRemoteFile(t.Context(), src, "k.parquet", size)
	for _, r := range [][2]int64{{0, 512}, {0, 4}, {size - 4, 4}, {size - 8, 8}, {size - 8 - 30_000, 30_000}, {100, 300}} {
		b := make([]byte, r[1])
		if n, err := f.ReadAt(b, r[0]); n != len(b) || err != nil || !bytes.Equal(b, data[r[0]:r[0]+r[1]]) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v", r[1], r[0], n, err)
		}
	}
	want := [][2]int64{{0, readBlock}, {size - readBlock, readBlock}, {100, readBlock}}
	if r := src.takeRanges(); !slices.Equal(r, want) {
		t.Errorf("opened %v, want %v", r, want)
	}
	// A large read is exact.
	if n, err := f.ReadAt(make([]byte, 3*readBlock), 1000); n != 3*readBlock || err != nil {
		t.Fatalf("ReadAt = %d, %v", n, err)
	}
	if r := src.takeRanges(); !slices.Equal(r, [][2]int64{{1000, 3 * readBlock}}) {
		t.Errorf("a large ReadAt opened %v", r)
	}
}

// TestRemoteFileOps runs random sequences of Read (whole buffers, with
// io.ReadFull), Seek and ReadAt on a RemoteFile and on a bytes.Reader
// (the oracle) and compares every result, and the position.
func TestRemoteFileOps(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, size := range []int{0, 5, 1000, 70_001} {
		data := testBytes(size)
		src := newMem("k.json", data)
		f := NewRemoteFile(t.Context(), src, "k.json", int64(size))
		oracle := bytes.NewReader(data)
		for i := range 2000 {
			var got, want string
			switch op := r.IntN(10); {
			case op < 5:
				n := r.IntN(min(size, 5000) + 10)
				gb, wb := make([]byte, n), make([]byte, n)
				gn, gerr := io.ReadFull(f, gb)
				wn, werr := io.ReadFull(oracle, wb)
				got = fmt.Sprintf("Read(%d) = %d, %v, %x", n, gn, gerr, gb[:gn])
				want = fmt.Sprintf("Read(%d) = %d, %v, %x", n, wn, werr, wb[:wn])
			case op < 8:
				whence := r.IntN(3)
				off := r.Int64N(int64(size)+20) - 10
				if whence == io.SeekStart {
					off = max(off, -1)
				}
				gp, gerr := f.Seek(off, whence)
				wp, werr := oracle.Seek(off, whence)
				if (gerr == nil) != (werr == nil) {
					t.Fatalf("op %d: Seek(%d, %d) = %d, %v; bytes.Reader: %d, %v", i, off, whence, gp, gerr, wp, werr)
				}
				if gerr == nil {
					got, want = fmt.Sprint("Seek = ", gp), fmt.Sprint("Seek = ", wp)
				}
			default:
				n, off := r.IntN(100), r.Int64N(int64(size)+10)
				gb, wb := make([]byte, n), make([]byte, n)
				gn, gerr := f.ReadAt(gb, off)
				wn, werr := oracle.ReadAt(wb, off)
				got = fmt.Sprintf("ReadAt(%d, %d) = %d, %v, %x", n, off, gn, gerr, gb[:gn])
				want = fmt.Sprintf("ReadAt(%d, %d) = %d, %v, %x", n, off, wn, werr, wb[:wn])
			}
			if got != want {
				t.Fatalf("size %d op %d: %s\nbytes.Reader:      %s", size, i, got, want)
			}
			gp, _ := f.Seek(0, io.SeekCurrent)
			wp, _ := oracle.Seek(0, io.SeekCurrent)
			if gp != wp {
				t.Fatalf("size %d op %d: position %d, bytes.Reader %d", size, i, gp, wp)
			}
		}
		f.Close()
		if src.streams() != 0 {
			t.Errorf("%d streams left open after Close", src.streams())
		}
	}
}

func TestRemoteFileSeekThenRead(t *testing.T) {
	data := testBytes(10_000)
	src := newMem("k.csv", data)
	f := NewRemoteFile(t.Context(), src, "k.csv", 10_000)
	buf := make([]byte, 100)
	read := func(want []byte) {
		t.Helper()
		b := buf[:len(want)]
		if n, err := io.ReadFull(f, b); err != nil || !bytes.Equal(b[:n], want) {
			t.Fatalf("read %d bytes: %d, %v, equal %v", len(want), n, err, bytes.Equal(b[:n], want))
		}
	}
	read(data[:100])
	if p, err := f.Seek(5000, io.SeekStart); p != 5000 || err != nil {
		t.Fatalf("Seek = %d, %v", p, err)
	}
	read(data[5000:5100])
	if p, err := f.Seek(-50, io.SeekCurrent); p != 5050 || err != nil {
		t.Fatalf("Seek = %d, %v", p, err)
	}
	read(data[5050:5150])
	if p, err := f.Seek(-30, io.SeekEnd); p != 9970 || err != nil {
		t.Fatalf("Seek = %d, %v", p, err)
	}
	read(data[9970:])
	// Seeking to where the stream already is keeps it.
	if _, err := f.Seek(2000, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	read(data[2000:2050])
	if p, err := f.Seek(0, io.SeekCurrent); p != 2050 || err != nil {
		t.Fatalf("Seek = %d, %v", p, err)
	}
	read(data[2050:2100])
	// Past the end: allowed, and Read says io.EOF.
	if p, err := f.Seek(20_000, io.SeekStart); p != 20_000 || err != nil {
		t.Fatalf("Seek past the end = %d, %v", p, err)
	}
	if n, err := f.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("Read past the end = %d, %v", n, err)
	}
	// Negative: refused, the position unchanged.
	if _, err := f.Seek(-1, io.SeekStart); err == nil {
		t.Error("Seek to -1 succeeded")
	}
	if _, err := f.Seek(-20_001, io.SeekCurrent); err == nil {
		t.Error("Seek to -1 succeeded")
	}
	if _, err := f.Seek(0, 7); err == nil {
		t.Error("Seek with whence 7 succeeded")
	}
	if p, _ := f.Seek(0, io.SeekCurrent); p != 20_000 {
		t.Errorf("position after refused seeks = %d, want 20000", p)
	}
	want := [][2]int64{{0, 10_000}, {5000, 5000}, {5050, 4950}, {9970, 30}, {2000, 8000}}
	if r := src.takeRanges(); !slices.Equal(r, want) {
		t.Errorf("opened %v, want %v", r, want)
	}
}

// TestRemoteFileReadAtBesideRead: ReadAt leaves Read's stream and
// position alone.
func TestRemoteFileReadAtBesideRead(t *testing.T) {
	const size = 200_000
	data := testBytes(size)
	src := newMem("k.csv", data)
	f := NewRemoteFile(t.Context(), src, "k.csv", size)
	var got []byte
	buf := make([]byte, 100)
	for i := 0; ; i++ {
		n, err := f.Read(buf)
		got = append(got, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		at := make([]byte, 33)
		if i%2 == 1 {
			at = make([]byte, smallRead)
		}
		off := int64(i*997) % size
		an, aerr := f.ReadAt(at, off)
		if wn := min(len(at), size-int(off)); an != wn || !bytes.Equal(at[:an], data[off:off+int64(an)]) || (aerr != nil) != (wn < len(at)) {
			t.Fatalf("ReadAt(%d, %d) = %d, %v", len(at), off, an, aerr)
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatal("Read between ReadAt calls: content differs")
	}
	streams := 0
	for _, r := range src.takeRanges() {
		if r == [2]int64{0, size} {
			streams++
		}
	}
	if streams != 1 {
		t.Errorf("Read opened %d streams, want 1", streams)
	}
}

// TestRemoteFileConcurrentReadAt: ReadAt calls side by side, and beside
// Read (run with -race).
func TestRemoteFileConcurrentReadAt(t *testing.T) {
	data := testBytes(50_000)
	src := newMem("k.parquet", data)
	f := NewRemoteFile(t.Context(), src, "k.parquet", 50_000)
	var wg sync.WaitGroup
	errs := make(chan error, 9)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 9))
			for range 200 {
				off, n := r.Int64N(50_000), r.IntN(500)+1
				b := make([]byte, n)
				got, err := f.ReadAt(b, off)
				if (err != nil && err != io.EOF) || !bytes.Equal(b[:got], data[off:off+int64(got)]) {
					errs <- fmt.Errorf("ReadAt(%d, %d) = %d, %v", n, off, got, err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, data) {
			errs <- fmt.Errorf("ReadAll beside ReadAt: %d bytes, %v", len(got), err)
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRemoteFileBytesRead: every byte transferred counts, once per
// transfer, a small ReadAt's whole block included.
func TestRemoteFileBytesRead(t *testing.T) {
	const size = 100_000
	data := testBytes(size)
	src := newMem("k.csv", data)
	f := NewRemoteFile(t.Context(), src, "k.csv", size)
	steps := []struct {
		do   func()
		want int64
	}{
		{func() { f.Read(make([]byte, 10)) }, 7}, // one Read, one chunk of the stream
		{func() { io.ReadFull(f, make([]byte, 93)) }, 100},
		{func() { f.ReadAt(make([]byte, 50), 10) }, 100 + readBlock},  // a block; bytes read again count again
		{func() { f.ReadAt(make([]byte, 50), 980) }, 100 + readBlock}, // within it
		{func() { f.ReadAt(make([]byte, 10_000), 70_000) }, 10_100 + readBlock},
		{func() { f.ReadAt(make([]byte, 50), size) }, 10_100 + readBlock},
		{func() { f.ReadAt(make([]byte, 50), size-10) }, 10_100 + 2*readBlock}, // the last block
		{func() { f.Seek(size-100, io.SeekStart); io.ReadAll(f) }, 10_200 + 2*readBlock},
		{func() { f.Read(make([]byte, 10)) }, 10_200 + 2*readBlock},
	}
	for i, s := range steps {
		s.do()
		if got := f.BytesRead(); got != s.want {
			t.Errorf("step %d: BytesRead = %d, want %d", i, got, s.want)
		}
	}
}

// TestRemoteFileErrors: errors of the source come back unchanged, and a
// failed stream is reopened at the position by the next Read.
func TestRemoteFileErrors(t *testing.T) {
	data := testBytes(1000)
	ctxKey := struct{ name string }{"remote file test"}
	ctx := context.WithValue(t.Context(), ctxKey, "mine")

	t.Run("Open", func(t *testing.T) {
		src := newMem("k.csv", data)
		src.openErr = fmt.Errorf("%w: s3 bucket \"b\" is unreachable", ErrConnect)
		f := NewRemoteFile(ctx, src, "k.csv", 1000)
		if _, err := f.Read(make([]byte, 10)); err != src.openErr {
			t.Errorf("Read = %v, want the source's error unchanged", err)
		}
		if _, err := f.ReadAt(make([]byte, 10), 5); err != src.openErr {
			t.Errorf("ReadAt = %v, want the source's error unchanged", err)
		}
		if f.BytesRead() != 0 {
			t.Errorf("BytesRead = %d", f.BytesRead())
		}
		for _, c := range src.ctxs {
			if c.Value(ctxKey) != "mine" {
				t.Error("Open got another context than NewRemoteFile's")
			}
		}
		if len(src.ctxs) != 2 {
			t.Errorf("%d Opens, want 2", len(src.ctxs))
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		f := NewRemoteFile(ctx, newMem("k.csv", data), "gone.csv", 1000)
		if _, err := f.Read(make([]byte, 10)); !errors.Is(err, ErrNotFound) {
			t.Errorf("Read of a missing object = %v, want ErrNotFound", err)
		}
	})

	t.Run("MidStream", func(t *testing.T) {
		src := newMem("k.csv", data)
		src.failAt, src.failErr = 500, errors.New("connection reset")
		failErr := src.failErr
		f := NewRemoteFile(ctx, src, "k.csv", 1000)
		got, err := io.ReadAll(f)
		if err != failErr || !bytes.Equal(got, data[:500]) {
			t.Fatalf("ReadAll = %d bytes, %v; want 500 and the stream's error unchanged", len(got), err)
		}
		rest, err := io.ReadAll(f)
		if err != nil || !bytes.Equal(rest, data[500:]) {
			t.Fatalf("ReadAll after the failure = %d bytes, %v; want the other 500", len(rest), err)
		}
		if r := src.takeRanges(); !slices.Equal(r, [][2]int64{{0, 1000}, {500, 500}}) {
			t.Errorf("opened %v", r)
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		f := NewRemoteFile(c, newMem("k.csv", data), "k.csv", 1000)
		if _, err := f.Read(make([]byte, 10)); !errors.Is(err, context.Canceled) {
			t.Errorf("Read with a cancelled context = %v", err)
		}
		if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, context.Canceled) {
			t.Errorf("ReadAt with a cancelled context = %v", err)
		}
	})

	t.Run("Closed", func(t *testing.T) {
		src := newMem("k.csv", data)
		f := NewRemoteFile(ctx, src, "k.csv", 1000)
		f.Read(make([]byte, 10))
		if src.streams() != 1 {
			t.Fatalf("%d streams open after a Read, want 1", src.streams())
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if src.streams() != 0 {
			t.Errorf("%d streams open after Close", src.streams())
		}
		if _, err := f.Read(make([]byte, 10)); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("Read after Close = %v", err)
		}
		if _, err := f.ReadAt(make([]byte, 10), 0); !errors.Is(err, fs.ErrClosed) {
			t.Errorf("ReadAt after Close = %v", err)
		}
	})
}

// TestRemoteFileSizeDiffers: the listed size bounds the file; an object
// shorter than listed fails the read with io.ErrUnexpectedEOF.
func TestRemoteFileSizeDiffers(t *testing.T) {
	data := testBytes(1000)
	grown := NewRemoteFile(t.Context(), newMem("k.csv", data), "k.csv", 600)
	if got, err := io.ReadAll(grown); err != nil || !bytes.Equal(got, data[:600]) {
		t.Errorf("ReadAll of an object grown since listed = %d bytes, %v; want the 600 listed", len(got), err)
	}
	if n, err := grown.ReadAt(make([]byte, 100), 550); n != 50 || err != io.EOF {
		t.Errorf("ReadAt across the listed end = %d, %v; want 50, io.EOF", n, err)
	}

	shrunk := NewRemoteFile(t.Context(), newMem("k.csv", data), "k.csv", 1500)
	got, err := io.ReadAll(shrunk)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !bytes.Equal(got, data) {
		t.Errorf("ReadAll of an object shrunk since listed = %d bytes, %v; want 1000 and io.ErrUnexpectedEOF", len(got), err)
	}
	for _, off := range []int64{950, 1000, 1200} {
		if n, err := shrunk.ReadAt(make([]byte, 100), off); !errors.Is(err, io.ErrUnexpectedEOF) || n != int(max(0, 1000-off)) {
			t.Errorf("ReadAt(100, %d) of an object shrunk since listed = %d, %v; want io.ErrUnexpectedEOF", off, n, err)
		}
	}
}

func fixturesDir(t *testing.T, sub string) string { return fixtures.Dir(t, sub) }

// TestRemoteFileReaders opens real files with the readers over a
// RemoteFile and over the os.File, and gets the same columns and rows.
func TestRemoteFileReaders(t *testing.T) {
	for _, file := range []string{
		"vega-datasets/data/airports.csv",
		"vega-datasets/data/seattle-weather-hourly-normals.csv",
		"parquet-testing/data/alltypes_plain.parquet",
		"parquet-testing/data/alltypes_tiny_pages_plain.parquet",
		"parquet-testing/data/lz4_raw_compressed_larger.parquet",
		"parquet-testing/data/nested_structs.rust.parquet",
		"vega-datasets/data/flights-5k.json",
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			path := filepath.Join(fixturesDir(t, filepath.Dir(file)), filepath.Base(file))
			name := filepath.Base(path)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			local, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer local.Close()
			wantCols, wantRows := readRows(t, local, name)

			src := newMem("data/"+name, data)
			f := NewRemoteFile(t.Context(), src, "data/"+name, int64(len(data)))
			defer f.Close()
			gotCols, gotRows := readRows(t, f, name)
			if !slices.Equal(gotCols, wantCols) {
				t.Fatalf("columns over a RemoteFile %q, over the file %q", gotCols, wantCols)
			}
			if len(gotRows) != len(wantRows) || len(wantRows) == 0 {
				t.Fatalf("%d rows over a RemoteFile, %d over the file", len(gotRows), len(wantRows))
			}
			for i := range wantRows {
				if gotRows[i] != wantRows[i] {
					t.Fatalf("row %d over a RemoteFile %q, over the file %q", i, gotRows[i], wantRows[i])
				}
			}
			ranges := src.takeRanges()
			if f.BytesRead() == 0 || len(ranges) == 0 {
				t.Errorf("BytesRead %d after %d ranges", f.BytesRead(), len(ranges))
			}
			if f.Close() != nil || src.streams() != 0 {
				t.Errorf("%d streams open after Close", src.streams())
			}
			t.Logf("%s: %d bytes, %d rows; %d ranges opened, %d bytes read", name, len(data), len(wantRows), len(ranges), f.BytesRead())
		})
	}
}

// readRows reads every row of f with the readers; rows are rendered with
// their nulls as text.
func readRows(t *testing.T, f readers.File, name string) ([]string, []string) {
	t.Helper()
	r, err := readers.Open(f, name, readers.Options{})
	if err != nil {
		t.Fatalf("readers.Open: %v", err)
	}
	defer r.Close()
	var rows []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("row %d: %v", len(rows), err)
		}
		rows = append(rows, fmt.Sprintf("%q %v", rec.Values, rec.Null))
	}
	return slices.Clone(r.Columns()), rows
}

// stallSource sends the first sent bytes of each stream, then nothing,
// until the stream's context ends (as a store's client does when its
// request is cancelled).
type stallSource struct {
	sent int
	mu   sync.Mutex
	ctxs []context.Context
}

func (s *stallSource) List(context.Context) ([]Table, error) { return nil, nil }
func (s *stallSource) Close() error                          { return nil }
func (s *stallSource) Open(ctx context.Context, _ string, _, _ int64) (io.ReadCloser, error) {
	s.mu.Lock()
	s.ctxs = append(s.ctxs, ctx)
	s.mu.Unlock()
	return &stallStream{ctx: ctx, left: s.sent}, nil
}

type stallStream struct {
	ctx  context.Context
	left int
}

func (s *stallStream) Read(p []byte) (int, error) {
	if s.left > 0 {
		n := min(len(p), s.left)
		s.left -= n
		return n, nil
	}
	<-s.ctx.Done()
	return 0, s.ctx.Err()
}

func (s *stallStream) Close() error { return nil }

// TestRemoteFileStall: a store that stops sending mid-object fails the read
// after the idle timeout, saying so, and its request is cancelled; a store
// that sends keeps the read going however long the object takes.
func TestRemoteFileStall(t *testing.T) {
	src := &stallSource{sent: 100}
	f := NewRemoteFile(context.Background(), src, "big.csv", 1<<20)
	f.IdleTimeout = 20 * time.Millisecond
	defer f.Close()
	got, err := io.ReadAll(f)
	if len(got) != 100 || err == nil || !strings.Contains(err.Error(), `object "big.csv": no bytes arrived for 20ms`) {
		t.Fatalf("ReadAll = %d bytes, %v; want the 100 sent, then the stall named", len(got), err)
	}
	if _, err := f.ReadAt(make([]byte, 200), 0); err == nil || !strings.Contains(err.Error(), "no bytes arrived") {
		t.Fatalf("ReadAt of a stalled store = %v", err)
	}
	for i, ctx := range src.ctxs {
		if ctx.Err() == nil {
			t.Errorf("stream %d: its request was not cancelled", i)
		}
	}

	// Slow but steady: each read waits less than the timeout, the whole
	// object (10 reads of 7 bytes) longer; the timeout is per read.
	slow := &memSource{objects: map[string][]byte{"k": testBytes(64)}}
	f = NewRemoteFile(context.Background(), slowSource{slow, 15 * time.Millisecond}, "k", 64)
	f.IdleTimeout = 100 * time.Millisecond
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, testBytes(64)) {
		t.Fatalf("slow store: %d bytes, %v", len(got), err)
	}
}

// slowSource delays each read of its streams.
type slowSource struct {
	*memSource
	delay time.Duration
}

func (s slowSource) Open(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	r, err := s.memSource.Open(ctx, key, off, n)
	if err != nil {
		return nil, err
	}
	return slowStream{r, s.delay}, nil
}

type slowStream struct {
	io.ReadCloser
	delay time.Duration
}

func (s slowStream) Read(p []byte) (int, error) { time.Sleep(s.delay); return s.ReadCloser.Read(p) }
