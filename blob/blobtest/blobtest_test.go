package blobtest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/local"
)

func newLocal(t *testing.T) blob.Store {
	t.Helper()
	s, err := local.New(filepath.Join(t.TempDir(), "blobs"), bytes.Repeat([]byte("k"), 32), "https://x.example")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// brokenRange is a store whose OpenRange is replaced by a faulty one.
type brokenRange struct {
	blob.Store
	openRange func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error)
}

func (b brokenRange) OpenRange(ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
	return b.openRange(b.Store, ctx, key, off, n)
}

// TestCheckOpenRangeCatchesBrokenDrivers shows the OpenRange checks pass
// for a correct driver and fail for each typical way of getting it wrong.
func TestCheckOpenRangeCatchesBrokenDrivers(t *testing.T) {
	if err := checkOpenRange(t.Context(), newLocal(t)); err != nil {
		t.Fatalf("correct driver failed: %v", err)
	}
	broken := map[string]func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error){
		"ignores the range": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			return s.Open(ctx, key)
		},
		"ignores the length": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			return s.OpenRange(ctx, key, off, -1)
		},
		"ignores the offset": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			return s.OpenRange(ctx, key, 0, n)
		},
		"length off by one": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			if n > 0 && n < 1<<40 {
				n++
			}
			return s.OpenRange(ctx, key, off, n)
		},
		"errors at the end": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			if info, err := s.Stat(ctx, key); err == nil && off >= info.Size && off > 0 {
				return nil, errors.New("416")
			}
			return s.OpenRange(ctx, key, off, n)
		},
		"errors on an empty object": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			if info, err := s.Stat(ctx, key); err == nil && info.Size == 0 && n != 0 {
				return nil, errors.New("416")
			}
			return s.OpenRange(ctx, key, off, n)
		},
		"errors on length 0": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			if n == 0 {
				return nil, errors.New("empty range")
			}
			return s.OpenRange(ctx, key, off, n)
		},
		"empty for a missing object": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			if n == 0 || off > 0 {
				return http.NoBody, nil
			}
			return s.OpenRange(ctx, key, off, n)
		},
		"accepts a negative offset": func(s blob.Store, ctx context.Context, key string, off, n int64) (io.ReadCloser, error) {
			return s.OpenRange(ctx, key, max(off, 0), n)
		},
	}
	for name, f := range broken {
		t.Run(name, func(t *testing.T) {
			err := checkOpenRange(t.Context(), brokenRange{Store: newLocal(t), openRange: f})
			if err == nil {
				t.Fatal("checks passed a broken driver")
			}
			t.Logf("caught: %.300v", err)
		})
	}
}
