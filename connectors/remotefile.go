package connectors

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultIdleTimeout is how long a read waits for an object's next bytes.
const DefaultIdleTimeout = time.Minute

// RemoteFile is an object of an ObjectSource as a file the readers take
// (readers.File: io.Reader, io.ReaderAt, io.Seeker), read from the store
// by ranges and never written to disk.
//
// Read is sequential: it keeps one stream of the object open at the
// current position and reads on from it, and opens a new one, from the
// position, when a Seek moved it. ReadAt opens one range of exactly the
// bytes it is asked for (clipped to the size) and closes it, but for a
// small read, which fetches and keeps a block around it for the next
// small reads (Parquet reads its footer's length, then the footer). It
// leaves the position and Read's stream alone, and ReadAt calls may run
// side by side and beside Read, as io.ReaderAt allows. Read, Seek and
// Close are safe for concurrent use too, though a position shared by
// goroutines means little.
//
// The size is the listing's (Table.SizeBytes), and the file ends there:
// bytes an object gained since it was listed are not read, and an object
// that ends before it (it shrank or was replaced) fails the read with an
// error wrapping io.ErrUnexpectedEOF. Errors of the source's Open and of
// its streams are returned unchanged (they are safe to show).
//
// A stream that sends nothing for IdleTimeout is abandoned (its request's
// context is cancelled) and the read fails: a store that stops sending
// mid-object must fail the scan's item, to be retried, rather than hold it
// while its heartbeats go on.
type RemoteFile struct {
	// IdleTimeout bounds the wait for a stream's next bytes; 0 is
	// DefaultIdleTimeout. Set it before the first read.
	IdleTimeout time.Duration

	ctx  context.Context
	src  ObjectSource
	key  string
	size int64

	moved  atomic.Int64 // bytes transferred from the store
	closed atomic.Bool

	bmu     sync.Mutex // guards ReadAt's kept block
	block   []byte
	blockAt int64

	mu     sync.Mutex // guards what follows
	pos    int64      // Read's and Seek's position
	body   io.ReadCloser
	bodyAt int64 // the position of body's next byte
}

// NewRemoteFile returns the object key of src as a file of size bytes
// (the object's size from the listing; a negative one is 0). Every Open
// it sends to src uses ctx, whose end stops the reads. It opens nothing
// until read.
func NewRemoteFile(ctx context.Context, src ObjectSource, key string, size int64) *RemoteFile {
	return &RemoteFile{ctx: ctx, src: src, key: key, size: max(0, size)}
}

// Size is the file's size, the listing's.
func (f *RemoteFile) Size() int64 { return f.size }

// BytesRead is the number of bytes transferred from the store so far, by
// Read and ReadAt alike (a byte read twice counts twice), for progress and
// the bytes a scan moved.
func (f *RemoteFile) BytesRead() int64 { return f.moved.Load() }

// Read reads from the position on, through the stream it keeps open (a
// new one from the position when the stream is not there). It returns
// io.EOF at and past the end.
func (f *RemoteFile) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return 0, fs.ErrClosed
	}
	if f.pos >= f.size {
		f.drop()
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if f.body == nil || f.bodyAt != f.pos {
		f.drop()
		body, err := f.open(f.pos, f.size-f.pos)
		if err != nil {
			return 0, err
		}
		f.body, f.bodyAt = body, f.pos
	}
	if rest := f.size - f.pos; int64(len(p)) > rest {
		p = p[:rest]
	}
	n, err := f.body.Read(p)
	f.pos += int64(n)
	f.bodyAt = f.pos
	f.moved.Add(int64(n))
	switch {
	case err == io.EOF && f.pos < f.size:
		f.drop()
		return n, f.short(f.pos)
	case err == io.EOF && n > 0:
		f.drop()
		return n, nil
	case err != nil:
		// The next Read opens a new stream from the position.
		f.drop()
		return n, err
	case f.pos == f.size:
		// Nothing more is read from it: let its connection go.
		f.drop()
	}
	return n, nil
}

// ReadAt reads len(p) bytes from off, as io.ReaderAt says: fewer only at
// the end of the file, with io.EOF. It opens one range of exactly those
// bytes, but for a small read (under 8 KiB: a Parquet footer's length, a
// header), which fetches the 64 KiB around it (from
// off, or up to the end of the file when off is that close to it) and
// keeps them: a later ReadAt within the kept block is served from it
// without a request. Only the last such block is kept.
func (f *RemoteFile) ReadAt(p []byte, off int64) (int, error) {
	if f.closed.Load() {
		return 0, fs.ErrClosed
	}
	if off < 0 {
		return 0, fmt.Errorf("object %q: read at negative offset %d", Clip(f.key, 200), off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	want := min(int64(len(p)), f.size-off)
	if want == 0 {
		return 0, nil
	}
	var got int
	var err error
	if at, b := f.kept(); off >= at && off+want <= at+int64(len(b)) {
		got = copy(p[:want], b[off-at:])
	} else {
		got, err = f.fetch(p[:want], off)
	}
	if err == nil && want < int64(len(p)) {
		err = io.EOF
	}
	return got, err
}

// A ReadAt of fewer than smallRead bytes fetches readBlock bytes.
const (
	smallRead = 8 << 10
	readBlock = 64 << 10
)

// fetch reads p (within the file) from off with one range: exactly p's,
// or for a small p a block's, kept when it was read whole.
func (f *RemoteFile) fetch(p []byte, off int64) (int, error) {
	start, buf, block := off, p, len(p) < smallRead
	if block {
		end := off + min(readBlock, f.size-off)
		start = max(0, end-readBlock)
		buf = make([]byte, end-start)
	}
	body, err := f.open(start, int64(len(buf)))
	if err != nil {
		return 0, err
	}
	n, err := io.ReadFull(body, buf)
	body.Close()
	f.moved.Add(int64(n))
	got := n
	if block {
		if err == nil {
			f.keep(start, buf)
		}
		got = copy(p, buf[min(n, int(off-start)):n])
	}
	switch {
	case got == len(p):
		return got, nil
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return got, f.short(off + int64(got))
	}
	return got, err
}

// open opens length bytes of the object from off, as a stream abandoned
// when a read of it waits longer than the idle timeout.
func (f *RemoteFile) open(off, length int64) (io.ReadCloser, error) {
	ctx, cancel := context.WithCancel(f.ctx)
	body, err := f.src.Open(ctx, f.key, off, length)
	if err != nil {
		cancel()
		return nil, err
	}
	idle := f.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	return &idleStream{body: body, cancel: cancel, idle: idle, key: f.key}, nil
}

// idleStream is a stream of an object whose context is cancelled, which
// ends a blocked read in the store's client, when a read waits longer
// than idle.
type idleStream struct {
	body    io.ReadCloser
	cancel  context.CancelFunc
	idle    time.Duration
	key     string
	timer   *time.Timer
	stalled atomic.Bool
}

func (s *idleStream) Read(p []byte) (int, error) {
	if s.timer == nil {
		s.timer = time.AfterFunc(s.idle, func() { s.stalled.Store(true); s.cancel() })
	} else {
		s.timer.Reset(s.idle)
	}
	n, err := s.body.Read(p)
	s.timer.Stop()
	if err != nil && s.stalled.Load() {
		return n, fmt.Errorf("object %q: no bytes arrived for %s; the store stopped sending", Clip(s.key, 200), s.idle)
	}
	return n, err
}

func (s *idleStream) Close() error {
	if s.timer != nil {
		s.timer.Stop()
	}
	err := s.body.Close()
	s.cancel()
	return err
}

// kept returns the block kept and its offset.
func (f *RemoteFile) kept() (int64, []byte) {
	f.bmu.Lock()
	defer f.bmu.Unlock()
	return f.blockAt, f.block
}

// keep keeps b, the bytes of the object from at; it is never changed.
func (f *RemoteFile) keep(at int64, b []byte) {
	f.bmu.Lock()
	defer f.bmu.Unlock()
	f.blockAt, f.block = at, b
}

// Seek sets the position for the next Read: io.SeekStart, io.SeekCurrent
// or io.SeekEnd (from Size). A position past the end is allowed (Read
// then returns io.EOF); a negative one is an error. Seeking opens nothing.
func (f *RemoteFile) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed.Load() {
		return 0, fs.ErrClosed
	}
	var base int64
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		base = f.pos
	case io.SeekEnd:
		base = f.size
	default:
		return 0, fmt.Errorf("object %q: seek with unknown whence %d", Clip(f.key, 200), whence)
	}
	if (offset > 0 && base > math.MaxInt64-offset) || base+offset < 0 {
		return 0, fmt.Errorf("object %q: seek to offset %d from %d is out of range", Clip(f.key, 200), offset, base)
	}
	f.pos = base + offset
	return f.pos, nil
}

// Close closes the stream Read keeps open; reads after it fail with
// fs.ErrClosed.
func (f *RemoteFile) Close() error {
	f.closed.Store(true)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.drop()
}

// drop closes Read's stream, if one is open. f.mu is held.
func (f *RemoteFile) drop() error {
	if f.body == nil {
		return nil
	}
	err := f.body.Close()
	f.body = nil
	return err
}

// short is the error of an object that ended at byte at, before the
// listed size.
func (f *RemoteFile) short(at int64) error {
	return fmt.Errorf("object %q ended at byte %d of the %d listed; it changed since it was listed: %w",
		Clip(f.key, 200), at, f.size, io.ErrUnexpectedEOF)
}

var _ interface {
	io.Reader
	io.ReaderAt
	io.Seeker
	io.Closer
} = (*RemoteFile)(nil)
