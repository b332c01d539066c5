package connectortest

// The conformance checks of object sources (s3, gcs).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"

	"github.com/dqs/dqs/connectors"
)

// RunObjectSource checks an object source against the store behind it.
// want holds every object List must return (key → content), and nothing
// else: objects with unsupported extensions or outside the prefix that
// the store also holds must be absent. outside names objects the store
// holds outside the source's prefix: Open must refuse them with
// connectors.ErrNotFound (and List must not return them).
//
// It checks that List returns exactly want, sorted by key, with sizes,
// ETags and modification times; that Open streams each object's exact
// bytes, whole and by ranges (Ranges), byte for byte against the stored
// object, and so does a connectors.RemoteFile over it (CheckRemoteFile);
// that Open refuses keys outside the prefix, keys with "." or ".."
// segments and missing keys with ErrNotFound, whatever the range, and a
// negative offset with ErrInvalid; and that a cancelled context stops List
// and Open with an error wrapping context.Canceled.
func RunObjectSource(t *testing.T, src connectors.ObjectSource, want map[string][]byte, outside ...string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("RunObjectSource: want is empty")
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)

	t.Run("List", func(t *testing.T) {
		got, err := src.List(t.Context())
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		var names []string
		for _, o := range got {
			names = append(names, o.Name)
		}
		if !sort.StringsAreSorted(names) {
			t.Errorf("List not sorted by key: %q", names)
		}
		if strings.Join(names, "\n") != strings.Join(keys, "\n") {
			t.Fatalf("List keys = %q, want %q", names, keys)
		}
		for _, o := range got {
			if o.Schema != "" || o.RowEstimate != 0 {
				t.Errorf("%s: Schema %q RowEstimate %d, want empty", o.Name, o.Schema, o.RowEstimate)
			}
			if o.SizeBytes != int64(len(want[o.Name])) {
				t.Errorf("%s: SizeBytes = %d, want %d", o.Name, o.SizeBytes, len(want[o.Name]))
			}
			if o.ETag == "" {
				t.Errorf("%s: empty ETag", o.Name)
			}
			if o.LastModified.IsZero() {
				t.Errorf("%s: zero LastModified", o.Name)
			}
		}
	})

	t.Run("Open", func(t *testing.T) {
		for _, k := range keys {
			rc, err := src.Open(t.Context(), k, 0, -1)
			if err != nil {
				t.Fatalf("Open(%q): %v", k, err)
			}
			got, err := io.ReadAll(rc)
			if cerr := rc.Close(); cerr != nil {
				t.Errorf("Close(%q): %v", k, cerr)
			}
			if err != nil {
				t.Fatalf("reading %q: %v", k, err)
			}
			if !bytes.Equal(got, want[k]) {
				t.Errorf("Open(%q) = %d bytes, want the %d stored", k, len(got), len(want[k]))
			}
		}
	})

	t.Run("OpenRange", func(t *testing.T) {
		for _, k := range keys {
			data := want[k]
			for _, r := range Ranges(int64(len(data))) {
				CheckRange(t, src, k, data, r[0], r[1])
			}
		}
	})

	t.Run("RemoteFile", func(t *testing.T) {
		for _, k := range keys {
			CheckRemoteFile(t, src, k, want[k])
		}
	})

	t.Run("OpenNegativeOffset", func(t *testing.T) {
		rc, err := src.Open(t.Context(), keys[0], -1, 10)
		if err == nil {
			rc.Close()
			t.Fatal("Open from offset -1 succeeded")
		}
		if !errors.Is(err, connectors.ErrInvalid) {
			t.Errorf("Open from offset -1 = %v, want ErrInvalid", err)
		}
	})

	t.Run("OpenRefused", func(t *testing.T) {
		first := keys[0]
		refused := append([]string{
			"",
			"../" + first,
			"./" + first,
			first + "/..",
			first + ".missing.csv",
		}, outside...)
		if i := strings.LastIndexByte(first, '/'); i >= 0 {
			refused = append(refused,
				first[:i]+"/../"+first,
				first[:i]+"/./"+first[i+1:],
				first[:i+1], // the folder itself
			)
		}
		for _, k := range refused {
			// The whole object, a range, an empty range and one past
			// any end: a missing object is missing whatever is asked.
			for _, r := range [][2]int64{{0, -1}, {1, 3}, {0, 0}, {1 << 40, -1}} {
				rc, err := src.Open(t.Context(), k, r[0], r[1])
				if err == nil {
					rc.Close()
					t.Errorf("Open(%q, %d, %d) succeeded, want ErrNotFound", k, r[0], r[1])
					continue
				}
				if !errors.Is(err, connectors.ErrNotFound) {
					t.Errorf("Open(%q, %d, %d) = %v, want ErrNotFound", k, r[0], r[1], err)
				}
			}
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := src.List(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("List(cancelled) = %v, want context.Canceled", err)
		}
		for _, r := range [][2]int64{{0, -1}, {1, 2}, {0, 0}} {
			rc, err := src.Open(ctx, keys[0], r[0], r[1])
			if err == nil {
				rc.Close()
				t.Fatalf("Open(cancelled, %d, %d) succeeded", r[0], r[1])
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Open(cancelled, %d, %d) = %v, want context.Canceled", r[0], r[1], err)
			}
		}
	})
}

// Ranges returns the ranges (offset, length) RunObjectSource reads of an
// object of size bytes: the whole object (length -1, and length size), its
// first byte, a middle range, the second half (to the end, and by a range
// running past the end), the last byte and beyond, empty ranges (length
// 0) at the start, in the middle and at the end, and ranges starting at
// and beyond the end (which give no bytes, not an error).
func Ranges(size int64) [][2]int64 {
	return [][2]int64{
		{0, -1}, {0, size}, {0, 1},
		{size / 3, size/3 + 1},
		{size / 2, -1}, {size / 2, size},
		{max(0, size-1), 5},
		{0, 0}, {size / 2, 0}, {size, 0},
		{size, -1}, {size, 7}, {size + 10, -1}, {size + 10, 3},
	}
}

// CheckRange opens length bytes of key from offset and checks they are
// exactly those of data (the stored object) in that range, clipped to its
// end: none when offset is at or beyond it.
func CheckRange(t testing.TB, src connectors.ObjectSource, key string, data []byte, offset, length int64) {
	t.Helper()
	rc, err := src.Open(t.Context(), key, offset, length)
	if err != nil {
		t.Errorf("Open(%q, %d, %d) of a %d-byte object: %v", key, offset, length, len(data), err)
		return
	}
	got, err := io.ReadAll(rc)
	if cerr := rc.Close(); cerr != nil {
		t.Errorf("Close(%q, %d, %d): %v", key, offset, length, cerr)
	}
	if err != nil {
		t.Errorf("reading %q from %d for %d: %v", key, offset, length, err)
		return
	}
	if want := Slice(data, offset, length); !bytes.Equal(got, want) {
		t.Errorf("Open(%q, %d, %d) of a %d-byte object = %d bytes, want the %d stored there%s",
			key, offset, length, len(data), len(got), len(want), firstDiff(got, want))
	}
}

// CheckRemoteFile reads key (holding data) through a
// connectors.RemoteFile: whole with Read, then with ReadAt at the offsets
// and lengths of Ranges, each compared with bytes.Reader's ReadAt (bytes,
// count and io.EOF), then from the middle after a Seek.
func CheckRemoteFile(t testing.TB, src connectors.ObjectSource, key string, data []byte) {
	t.Helper()
	size := int64(len(data))
	f := connectors.NewRemoteFile(t.Context(), src, key, size)
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Errorf("RemoteFile(%q): Read = %d bytes, %v; want the %d stored", key, len(got), err, size)
		return
	}
	oracle := bytes.NewReader(data)
	for _, r := range Ranges(size) {
		n := max(r[1], size+3)
		if r[1] >= 0 {
			n = r[1]
		}
		g, w := make([]byte, n), make([]byte, n)
		gn, gerr := f.ReadAt(g, r[0])
		wn, werr := oracle.ReadAt(w, r[0])
		if gn != wn || gerr != werr || !bytes.Equal(g[:gn], w[:wn]) {
			t.Errorf("RemoteFile(%q).ReadAt(%d bytes, %d) = %d, %v; want %d, %v (bytes equal: %v)",
				key, n, r[0], gn, gerr, wn, werr, bytes.Equal(g[:gn], w[:wn]))
		}
	}
	if _, err := f.Seek(size/2, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(f); err != nil || !bytes.Equal(got, data[size/2:]) {
		t.Errorf("RemoteFile(%q): Read from %d after Seek = %d bytes, %v", key, size/2, len(got), err)
	}
	if f.BytesRead() < size+(size-size/2) {
		t.Errorf("RemoteFile(%q): BytesRead = %d after reading %d bytes", key, f.BytesRead(), size+(size-size/2))
	}
}

// Slice is the range (offset, length) of data as Open returns it: length
// < 0 runs to the end, and the range is clipped to the end.
func Slice(data []byte, offset, length int64) []byte {
	n := int64(len(data))
	if offset >= n {
		return []byte{}
	}
	end := n
	if length >= 0 && length < n-offset {
		end = offset + length
	}
	return data[offset:end]
}

// firstDiff names the first byte where got and want differ, for messages.
func firstDiff(got, want []byte) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf(" (first difference at byte %d)", i)
		}
	}
	return ""
}
