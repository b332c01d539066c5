package connectortest

// Fixtures and checks the object stores' own tests (s3, gcs) share, beside
// RunObjectSource.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dqs/dqs/connectors"
)

// RunObjectStore runs RunObjectSource on a store holding a fixture: it
// stores the fixture's objects with put (those the source must list
// under prefix "data", and others it must leave out: unsupported
// extensions, a folder marker, keys outside the prefix), opens the source
// with open, which must give it prefix "data" and dial through the Dialer
// it is given, and checks that the source's connections did.
func RunObjectStore(t *testing.T, put func(key string, data []byte), open func(connectors.Dialer) (connectors.ObjectSource, error)) {
	t.Helper()
	want, hidden, outside := objectFixture()
	for k, v := range want {
		put(k, v)
	}
	for k, v := range hidden {
		put(k, v)
	}
	dialer := &CountingDialer{}
	s, err := open(dialer)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	RunObjectSource(t, s, want, outside...)
	if dialer.Dials() == 0 {
		t.Error("no connection went through Options.Dialer")
	}
}

// objectFixture returns the objects RunObjectStore stores: want, those
// List must return (every supported extension, nested folders, an empty
// object, a large one, a non-ASCII name); hidden, those it must leave out;
// and outside, the keys of hidden outside the prefix, which Open must
// refuse.
func objectFixture() (want, hidden map[string][]byte, outside []string) {
	want = map[string][]byte{
		"data/a.csv":            []byte("id,name\n1,x\n"),
		"data/sub/b.parquet":    []byte("PAR1....PAR1"),
		"data/sub/deep/c.JSONL": []byte(`{"a":1}` + "\n"),
		"data/d.tsv":            []byte("a\tb\n"),
		"data/e.json":           []byte(`[{"a":1}]`),
		"data/f.ndjson":         []byte(`{"b":2}`),
		"data/g.txt":            []byte("x\n"),
		"data/empty.csv":        {},
		"data/big.csv":          RandomBytes(3<<20 + 17),
		"data/ünïcode name.csv": []byte("u\n1\n"),
	}
	hidden = map[string][]byte{
		"data/notes.pdf":      []byte("%PDF"),
		"data/archive.csv.gz": []byte("\x1f\x8b"),
		"data/README":         []byte("readme"),
		"data/dir/":           {},
		"data/../escape.csv":  []byte("no"),
		"database/y.csv":      []byte("outside"),
		"other/x.csv":         []byte("outside"),
		"root.csv":            []byte("outside"),
	}
	return want, hidden, []string{"database/y.csv", "other/x.csv", "root.csv", "data/../escape.csv"}
}

// Open opens a source of an object store with open (the kind's Open), c,
// a plain net.Dialer and timeout, and closes it when t ends.
func Open[S interface{ Close() error }](t testing.TB, open func(context.Context, connectors.Options) (S, error), c connectors.Credentials, timeout time.Duration) (S, error) {
	t.Helper()
	s, err := open(t.Context(), connectors.Options{Credentials: c, Dialer: &net.Dialer{}, Timeout: timeout})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// MustOpen is Open with the default timeout, failing t on an error.
func MustOpen[S interface{ Close() error }](t testing.TB, open func(context.Context, connectors.Options) (S, error), c connectors.Credentials) S {
	t.Helper()
	s, err := Open(t, open, c, 0)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

// CheckStreamOutlivesTimeout checks that the per-call timeout of src
// bounds obtaining an object, not reading it: key holds data (a few MiB,
// more than the connection buffers), and reading it is paused for twice
// timeout.
func CheckStreamOutlivesTimeout(t *testing.T, src connectors.ObjectSource, timeout time.Duration, key string, data []byte) {
	t.Helper()
	rc, err := src.Open(t.Context(), key, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	head := make([]byte, 1024)
	if _, err := io.ReadFull(rc, head); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * timeout)
	rest, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading after the timeout: %v", err)
	}
	if !bytes.Equal(append(head, rest...), data) {
		t.Error("content differs")
	}
}

// CheckCancelMidStream checks that cancelling Open's context stops the
// stream of key (several MiB) part-way.
func CheckCancelMidStream(t *testing.T, src connectors.ObjectSource, key string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rc, err := src.Open(ctx, key, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if n, err := io.Copy(io.Discard, rc); err == nil {
		t.Errorf("read %d more bytes after cancel without error", n)
	}
}

// CheckETagChanges checks that List tells a changed object from an
// unchanged one: src lists one object, change rewrites it with other
// content, and src lists it again with another ETag. It returns the first
// listing of the object for the caller's checks of its ETag and
// modification time.
func CheckETagChanges(t *testing.T, src connectors.ObjectSource, change func()) connectors.Table {
	t.Helper()
	l1, err := src.List(t.Context())
	if err != nil || len(l1) != 1 {
		t.Fatalf("List = %v, %v", l1, err)
	}
	change()
	l2, err := src.List(t.Context())
	if err != nil || len(l2) != 1 {
		t.Fatalf("List = %v, %v", l2, err)
	}
	if l2[0].ETag == l1[0].ETag {
		t.Errorf("ETag unchanged after the object changed: %q", l2[0].ETag)
	}
	return l1[0]
}

// CheckInvalidSettings opens a source with each of cases (settings the
// kind must refuse, by name) and checks that Open fails with
// connectors.ErrInvalid; check runs on each error (no secret in it, ...).
func CheckInvalidSettings[S interface{ Close() error }](t *testing.T, open func(context.Context, connectors.Options) (S, error), cases map[string]connectors.Credentials, check func(*testing.T, error)) {
	t.Helper()
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Open(t, open, c, 0)
			if !errors.Is(err, connectors.ErrInvalid) {
				t.Fatalf("Open = %v, want ErrInvalid", err)
			}
			check(t, err)
			t.Log(err)
		})
	}
}
