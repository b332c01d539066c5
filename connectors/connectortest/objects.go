package connectortest

// The conformance checks of object sources (s3, gcs).

import (
	"bytes"
	"context"
	"errors"
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
// bytes; that Open refuses keys outside the prefix, keys with "." or ".."
// segments and missing keys with ErrNotFound; and that a cancelled
// context stops List and Open with an error wrapping context.Canceled.
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
			rc, err := src.Open(t.Context(), k)
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
			rc, err := src.Open(t.Context(), k)
			if err == nil {
				rc.Close()
				t.Errorf("Open(%q) succeeded, want ErrNotFound", k)
				continue
			}
			if !errors.Is(err, connectors.ErrNotFound) {
				t.Errorf("Open(%q) = %v, want ErrNotFound", k, err)
			}
		}
	})

	t.Run("Cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := src.List(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("List(cancelled) = %v, want context.Canceled", err)
		}
		rc, err := src.Open(ctx, keys[0])
		if err == nil {
			rc.Close()
			t.Fatal("Open(cancelled) succeeded")
		}
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Open(cancelled) = %v, want context.Canceled", err)
		}
	})
}
