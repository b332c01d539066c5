// Package blobtest is the conformance suite every blob.Store driver must
// pass. Sharing one suite is what makes the drivers interchangeable: code
// developed against the local driver behaves the same on S3 or GCS.
//
// Large payloads come from Pattern, an io.Reader that computes its bytes
// from the offset and never materialises the object, so the suite itself
// does not hide a driver that buffers whole objects (see CheckPutAlloc).
package blobtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/blob"
)

// LargeSize is the size of the streamed round-trip object: 20 MiB plus an
// odd tail so multipart/chunk boundaries do not line up with the end.
const LargeSize = 20<<20 + 12345

// Pattern returns a reader of size deterministic pseudo-random bytes derived
// from seed. Every byte depends on its offset, so reordered, duplicated or
// dropped chunks are detected by VerifyPattern.
func Pattern(seed uint64, size int64) io.Reader {
	return &patternReader{seed: seed, size: size}
}

type patternReader struct {
	seed      uint64
	off, size int64
}

func patternByte(seed uint64, off int64) byte {
	// splitmix64 of the 8-byte word index, then pick the byte.
	z := seed + uint64(off>>3)*0x9E3779B97F4A7C15
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	z ^= z >> 31
	return byte(z >> (8 * uint(off&7)))
}

func (p *patternReader) Read(b []byte) (int, error) {
	if p.off >= p.size {
		return 0, io.EOF
	}
	if rem := p.size - p.off; int64(len(b)) > rem {
		b = b[:rem]
	}
	for i := range b {
		b[i] = patternByte(p.seed, p.off+int64(i))
	}
	p.off += int64(len(b))
	return len(b), nil
}

// VerifyPattern reads r to EOF and checks it equals Pattern(seed, size),
// reporting the first differing offset. Memory use is one buffer.
func VerifyPattern(r io.Reader, seed uint64, size int64) error {
	return verifyPatternAt(r, seed, 0, size)
}

// verifyPatternAt reads r to EOF and checks it equals bytes [off, off+n) of
// a Pattern of seed.
func verifyPatternAt(r io.Reader, seed uint64, off, n int64) error {
	buf := make([]byte, 64<<10)
	var got int64
	for {
		k, err := r.Read(buf)
		for i := 0; i < k; i++ {
			if got+int64(i) >= n {
				return fmt.Errorf("object longer than %d bytes", n)
			}
			if buf[i] != patternByte(seed, off+got+int64(i)) {
				return fmt.Errorf("content differs at offset %d", off+got+int64(i))
			}
		}
		got += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("read at offset %d: %w", off+got, err)
		}
	}
	if got != n {
		return fmt.Errorf("object is %d bytes, want %d", got, n)
	}
	return nil
}

// Run runs the conformance suite. newStore is called once per subtest and
// must return an empty (or at least key-isolated) store; cleanup belongs in
// t.Cleanup. Subtests run sequentially so memory measurements and emulator
// load stay predictable.
func Run(t *testing.T, newStore func(t *testing.T) blob.Store) {
	t.Helper()
	ctx := t.Context()

	t.Run("LargeRoundTrip", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "uploads", "large.csv")
		n, err := s.Put(ctx, key, Pattern(1, LargeSize), "text/csv")
		if err != nil {
			t.Fatalf("Put: %v", err)
		}
		if n != LargeSize {
			t.Fatalf("Put returned %d bytes, want %d", n, LargeSize)
		}
		info, err := s.Stat(ctx, key)
		if err != nil {
			t.Fatalf("Stat: %v", err)
		}
		if info.Size != LargeSize || info.Key != key {
			t.Fatalf("Stat = %+v, want key %q size %d", info, key, LargeSize)
		}
		if info.Modified.IsZero() {
			t.Errorf("Stat: zero Modified time")
		}
		rc, err := s.Open(ctx, key)
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		defer rc.Close()
		if err := VerifyPattern(rc, 1, LargeSize); err != nil {
			t.Fatalf("Open content: %v", err)
		}
	})

	t.Run("OpenRange", func(t *testing.T) {
		if err := checkOpenRange(ctx, newStore(t)); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("EmptyObject", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "empty.json")
		n, err := s.Put(ctx, key, strings.NewReader(""), "application/json")
		if err != nil || n != 0 {
			t.Fatalf("Put = %d, %v; want 0, nil", n, err)
		}
		if got := readAll(t, s, key); len(got) != 0 {
			t.Fatalf("content = %q, want empty", got)
		}
		if info, err := s.Stat(ctx, key); err != nil || info.Size != 0 {
			t.Fatalf("Stat = %+v, %v; want size 0", info, err)
		}
	})

	t.Run("Overwrite", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "data.csv")
		put(t, s, key, "first version, rather long content\n")
		info1, err := s.Stat(ctx, key)
		if err != nil {
			t.Fatalf("Stat: %v", err)
		}
		// Some backends have coarse mtimes; make sure the second write is
		// distinguishable for ETag purposes without slowing the suite much.
		time.Sleep(10 * time.Millisecond)
		put(t, s, key, "second\n")
		if got := readAll(t, s, key); string(got) != "second\n" {
			t.Fatalf("content after overwrite = %q", got)
		}
		info2, err := s.Stat(ctx, key)
		if err != nil {
			t.Fatalf("Stat: %v", err)
		}
		if info2.Size != int64(len("second\n")) {
			t.Fatalf("Stat size after overwrite = %d", info2.Size)
		}
		if info1.ETag != "" && info1.ETag == info2.ETag {
			t.Errorf("ETag unchanged after overwrite: %q", info2.ETag)
		}
	})

	t.Run("Missing", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "nope.csv")
		if rc, err := s.Open(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			if rc != nil {
				rc.Close()
			}
			t.Fatalf("Open missing: err = %v, want ErrNotFound", err)
		}
		if _, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Stat missing: err = %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("Delete missing: %v, want nil", err)
		}
	})

	t.Run("Delete", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "2024", "old.parquet")
		sibling := mustKey(t, "acme", "2024", "keep.parquet")
		put(t, s, key, "old data")
		put(t, s, sibling, "keep me")
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := s.Open(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Open after Delete: err = %v, want ErrNotFound", err)
		}
		if _, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrNotFound) {
			t.Fatalf("Stat after Delete: err = %v, want ErrNotFound", err)
		}
		if err := s.Delete(ctx, key); err != nil {
			t.Fatalf("second Delete: %v, want nil", err)
		}
		if got := readAll(t, s, sibling); string(got) != "keep me" {
			t.Fatalf("sibling content = %q", got)
		}
		// Deleting the last object under a prefix, then writing there
		// again, must work (the local driver prunes empty directories).
		if err := s.Delete(ctx, sibling); err != nil {
			t.Fatalf("Delete sibling: %v", err)
		}
		put(t, s, key, "again")
		if got := readAll(t, s, key); string(got) != "again" {
			t.Fatalf("content = %q", got)
		}
	})

	t.Run("CancelledPut", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "cancelled.csv")
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		// Cancel after 6 MiB: past the first multipart part / GCS chunk.
		r := &hookReader{r: Pattern(2, LargeSize), at: 6 << 20, hook: cancel}
		n, err := s.Put(cctx, key, r, "text/csv")
		if err == nil {
			t.Fatalf("Put with cancelled ctx succeeded (%d bytes)", n)
		}
		assertAbsent(t, s, key)
	})

	t.Run("FailedPut", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "failed.csv")
		// A client disconnecting mid-upload surfaces as a read error.
		boom := errors.New("client went away")
		r := io.MultiReader(Pattern(3, 1<<20), &errReader{err: boom})
		if _, err := s.Put(ctx, key, r, "text/csv"); err == nil {
			t.Fatalf("Put with failing reader succeeded")
		}
		assertAbsent(t, s, key)

		// A failed overwrite must leave the previous version intact.
		put(t, s, key, "previous")
		r = io.MultiReader(Pattern(3, 1<<20), &errReader{err: boom})
		if _, err := s.Put(ctx, key, r, "text/csv"); err == nil {
			t.Fatalf("overwriting Put with failing reader succeeded")
		}
		if got := readAll(t, s, key); string(got) != "previous" {
			t.Fatalf("content after failed overwrite = %q, want previous", got)
		}
	})

	t.Run("ConcurrentOverwrite", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "race.bin")
		const writers, size = 4, 256 << 10
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i := range writers {
			wg.Go(func() {
				_, errs[i] = s.Put(ctx, key, Pattern(uint64(100+i), size), "")
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("writer %d: %v", i, err)
			}
		}
		got := readAll(t, s, key)
		for i := range writers {
			if VerifyPattern(bytes.NewReader(got), uint64(100+i), size) == nil {
				return // exactly one writer's complete content
			}
		}
		t.Fatalf("content (%d bytes) is not any single writer's object", len(got))
	})

	t.Run("UnicodeKeys", func(t *testing.T) {
		s := newStore(t)
		names := []string{
			"naïve file ü (1).csv",
			"数据 报告.json",
			"emoji 🚀 + spaces & 'quotes' #hash %25 ?.parquet",
		}
		for i, name := range names {
			key := mustKey(t, "org ñ", "uploads", name)
			content := fmt.Sprintf("content %d for %s", i, name)
			put(t, s, key, content)
			if got := readAll(t, s, key); string(got) != content {
				t.Fatalf("%q: content = %q", key, got)
			}
			info, err := s.Stat(ctx, key)
			if err != nil || info.Size != int64(len(content)) {
				t.Fatalf("%q: Stat = %+v, %v", key, info, err)
			}
			u, err := s.SignedURL(ctx, key, time.Minute, name)
			if err != nil || u == "" {
				t.Fatalf("%q: SignedURL = %q, %v", key, u, err)
			}
			if err := s.Delete(ctx, key); err != nil {
				t.Fatalf("%q: Delete: %v", key, err)
			}
			assertAbsent(t, s, key)
		}
	})

	t.Run("InvalidKeys", func(t *testing.T) {
		s := newStore(t)
		for _, key := range []string{"", "/abs/path", "../escape", "orgs/a/../../b", "a//b", "a/./b", "a/", "bad\x00nul", "back\\slash"} {
			if _, err := s.Put(ctx, key, strings.NewReader("x"), ""); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Put(%q): err = %v, want ErrInvalidKey", key, err)
			}
			if _, err := s.Open(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Open(%q): err = %v, want ErrInvalidKey", key, err)
			}
			if _, err := s.OpenRange(ctx, key, 0, 1); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("OpenRange(%q): err = %v, want ErrInvalidKey", key, err)
			}
			if _, err := s.Stat(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Stat(%q): err = %v, want ErrInvalidKey", key, err)
			}
			if err := s.Delete(ctx, key); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("Delete(%q): err = %v, want ErrInvalidKey", key, err)
			}
			if _, err := s.SignedURL(ctx, key, time.Minute, "f"); !errors.Is(err, blob.ErrInvalidKey) {
				t.Errorf("SignedURL(%q): err = %v, want ErrInvalidKey", key, err)
			}
		}
	})

	t.Run("SignedURL", func(t *testing.T) {
		s := newStore(t)
		key := mustKey(t, "acme", "report.csv")
		put(t, s, key, "a,b\n1,2\n")
		u1, err := s.SignedURL(ctx, key, time.Minute, "report.csv")
		if err != nil {
			t.Fatalf("SignedURL: %v", err)
		}
		pu, err := url.Parse(u1)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			t.Fatalf("SignedURL %q is not an absolute http(s) URL (%v)", u1, err)
		}
		// The expiry is part of what is signed: a different ttl must give
		// a different URL.
		u2, err := s.SignedURL(ctx, key, 2*time.Hour, "report.csv")
		if err != nil {
			t.Fatalf("SignedURL: %v", err)
		}
		if u1 == u2 {
			t.Errorf("SignedURL ignores ttl: %q", u1)
		}
		if u, err := s.SignedURL(ctx, key, blob.MaxSignedURLTTL, "report.csv"); err != nil || u == "" {
			t.Errorf("SignedURL(ttl=MaxSignedURLTTL) = %q, %v", u, err)
		}
		for _, ttl := range []time.Duration{0, -time.Second, blob.MaxSignedURLTTL + time.Second} {
			if _, err := s.SignedURL(ctx, key, ttl, "x"); err == nil {
				t.Errorf("SignedURL(ttl=%v) succeeded, want error", ttl)
			}
		}
	})
}

// checkOpenRange is the OpenRange part of the suite, written as a function
// returning the failures (joined) so the suite's own tests can show that it
// catches drivers getting ranges wrong.
func checkOpenRange(ctx context.Context, s blob.Store) error {
	const seed, size = 11, LargeSize
	large, err := blob.OrgKey("acme", "ranges", "large.parquet")
	if err != nil {
		return err
	}
	empty, _ := blob.OrgKey("acme", "ranges", "empty.csv")
	missing, _ := blob.OrgKey("acme", "ranges", "missing.csv")
	if n, err := s.Put(ctx, large, Pattern(seed, size), "application/octet-stream"); err != nil || n != size {
		return fmt.Errorf("Put large = %d, %v", n, err)
	}
	if n, err := s.Put(ctx, empty, strings.NewReader(""), "text/csv"); err != nil || n != 0 {
		return fmt.Errorf("Put empty = %d, %v", n, err)
	}

	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	// Ranges with content: {offset, length, bytes expected}. Offsets and
	// lengths are odd so they do not line up with pattern words or chunks.
	for _, c := range []struct{ off, length, want int64 }{
		{0, 4099, 4099},                    // head: first rows of a CSV
		{10<<20 + 3, 1<<20 + 7, 1<<20 + 7}, // middle
		{size - 100003, -1, 100003},        // to the end
		{size - 8, 12345, 8},               // runs past the end
		{size - 1, 1, 1},                   // last byte
		{7, math.MaxInt64, size - 7},       // offset+length overflows int64
		{size - 3, math.MaxInt64 - 1, 3},   // likewise
		{0, -1, size},                      // whole object
		{1, size - 2, size - 2},            // all but the first and last byte
	} {
		rc, err := s.OpenRange(ctx, large, c.off, c.length)
		if err != nil {
			fail("OpenRange(%s, %d, %d): %v", large, c.off, c.length, err)
			continue
		}
		if err := verifyPatternAt(rc, seed, c.off, c.want); err != nil {
			fail("OpenRange(%s, %d, %d): %v", large, c.off, c.length, err)
		}
		rc.Close()
	}

	// Empty ranges of existing objects: no error, first Read is io.EOF.
	for _, c := range []struct {
		key         string
		off, length int64
	}{
		{large, size, -1}, {large, size, 10}, // offset exactly at the end
		{large, size + 1000, -1}, {large, size + 1, 5}, // beyond the end
		{large, 0, 0}, {large, 12345, 0}, {large, size, 0}, // length 0
		{empty, 0, -1}, {empty, 0, 5}, {empty, 0, 0}, {empty, 3, -1}, {empty, 3, 2},
	} {
		rc, err := s.OpenRange(ctx, c.key, c.off, c.length)
		if err != nil {
			fail("OpenRange(%s, %d, %d): %v, want an empty stream", c.key, c.off, c.length, err)
			continue
		}
		buf := make([]byte, 16)
		if n, err := rc.Read(buf); n != 0 || err != io.EOF {
			fail("OpenRange(%s, %d, %d): first Read = %d, %v; want 0, io.EOF", c.key, c.off, c.length, n, err)
		}
		rc.Close()
	}

	// A missing object is ErrNotFound whatever the range.
	for _, r := range [][2]int64{{0, -1}, {0, 10}, {5, -1}, {5, 10}, {0, 0}, {size, -1}} {
		if rc, err := s.OpenRange(ctx, missing, r[0], r[1]); !errors.Is(err, blob.ErrNotFound) {
			if rc != nil {
				rc.Close()
			}
			fail("OpenRange(%s, %d, %d): err = %v, want ErrNotFound", missing, r[0], r[1], err)
		}
	}

	// A negative offset is an error (not "the last bytes").
	for _, r := range [][2]int64{{-1, -1}, {-1, 10}, {-10, 0}} {
		if rc, err := s.OpenRange(ctx, large, r[0], r[1]); err == nil {
			rc.Close()
			fail("OpenRange(%s, %d, %d) succeeded, want an error", large, r[0], r[1])
		}
	}
	return errors.Join(errs...)
}

// CheckPutAlloc streams a LargeSize object into s and returns the bytes
// allocated on the Go heap meanwhile (runtime.MemStats.TotalAlloc delta,
// all goroutines). A streaming driver allocates a small constant amount; one
// that buffers the object allocates at least LargeSize. If maxAlloc > 0 the
// test fails when the delta reaches it.
//
// Only meaningful when nothing else allocates concurrently (no t.Parallel)
// and the backend lives out of process: in-process emulators (gofakes3,
// fake-gcs-server) store the object on the same heap, so for them the
// figure is informational only.
func CheckPutAlloc(t *testing.T, s blob.Store, maxAlloc uint64) uint64 {
	t.Helper()
	ctx := t.Context()
	key := mustKey(t, "acme", "memcheck.bin")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	n, err := s.Put(ctx, key, Pattern(9, LargeSize), "application/octet-stream")
	runtime.ReadMemStats(&after)
	if err != nil || n != LargeSize {
		t.Fatalf("Put = %d, %v", n, err)
	}
	delta := after.TotalAlloc - before.TotalAlloc
	t.Logf("Put of %d bytes allocated %d bytes (%.1f%%)", int64(LargeSize), delta, 100*float64(delta)/LargeSize)
	if maxAlloc > 0 && delta >= maxAlloc {
		t.Errorf("Put of %d bytes allocated %d bytes, want < %d: driver is buffering", int64(LargeSize), delta, maxAlloc)
	}
	return delta
}

func mustKey(t *testing.T, org string, parts ...string) string {
	t.Helper()
	k, err := blob.OrgKey(org, parts...)
	if err != nil {
		t.Fatalf("OrgKey: %v", err)
	}
	return k
}

func put(t *testing.T, s blob.Store, key, content string) {
	t.Helper()
	n, err := s.Put(t.Context(), key, strings.NewReader(content), "text/plain")
	if err != nil || n != int64(len(content)) {
		t.Fatalf("Put(%q) = %d, %v", key, n, err)
	}
}

func readAll(t *testing.T, s blob.Store, key string) []byte {
	t.Helper()
	rc, err := s.Open(t.Context(), key)
	if err != nil {
		t.Fatalf("Open(%q): %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	return b
}

func assertAbsent(t *testing.T, s blob.Store, key string) {
	t.Helper()
	if rc, err := s.Open(t.Context(), key); !errors.Is(err, blob.ErrNotFound) {
		if rc != nil {
			rc.Close()
		}
		t.Fatalf("Open(%q): err = %v, want ErrNotFound", key, err)
	}
	if _, err := s.Stat(t.Context(), key); !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Stat(%q): err = %v, want ErrNotFound", key, err)
	}
}

// hookReader calls hook once after at bytes have been read, then keeps
// reading: the driver, not the source, must notice the cancellation.
type hookReader struct {
	r    io.Reader
	n    int64
	at   int64
	hook func()
	done bool
}

func (h *hookReader) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.n += int64(n)
	if !h.done && h.n >= h.at {
		h.done = true
		h.hook()
	}
	return n, err
}

type errReader struct{ err error }

func (e *errReader) Read([]byte) (int, error) { return 0, e.err }

// RangeRead is an OpenRange call and the bytes it must give.
type RangeRead struct {
	Offset, Length int64
	Want           string
}

// CheckRangeReads checks each OpenRange of key on s against its bytes,
// for a driver's own cases (a server that ignores ranges, an object GCS
// serves decompressed).
func CheckRangeReads(t *testing.T, s blob.Store, key string, reads []RangeRead) {
	t.Helper()
	for _, c := range reads {
		rc, err := s.OpenRange(t.Context(), key, c.Offset, c.Length)
		if err != nil {
			t.Errorf("OpenRange(%d, %d): %v", c.Offset, c.Length, err)
			continue
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || string(got) != c.Want {
			t.Errorf("OpenRange(%d, %d) = %q, %v; want %q", c.Offset, c.Length, got, err, c.Want)
		}
	}
}
