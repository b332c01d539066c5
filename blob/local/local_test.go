package local_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/blobtest"
	"github.com/dqs/dqs/blob/local"
)

var testKey = bytes.Repeat([]byte("k"), 32)

func newStore(t *testing.T) *local.Store {
	t.Helper()
	s, err := local.New(filepath.Join(t.TempDir(), "blobs"), testKey, "https://dqs.example.com/")
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		s := newStore(t)
		t.Cleanup(func() { assertNoTempFiles(t, s.Dir()) })
		return s
	})
}

// TestPutDoesNotBuffer is the memory check: a 20 MiB streamed Put must stay
// far below the object size (it uses one io.Copy buffer).
func TestPutDoesNotBuffer(t *testing.T) {
	s := newStore(t)
	blobtest.CheckPutAlloc(t, s, 8<<20)
}

func TestNewValidation(t *testing.T) {
	dir := t.TempDir()
	if _, err := local.New(dir, []byte("short"), "https://x"); err == nil {
		t.Error("New accepted a short signing key")
	}
	if _, err := local.New("", testKey, "https://x"); err == nil {
		t.Error("New accepted an empty dir")
	}
	if _, err := local.New(dir, testKey, ""); err == nil {
		t.Error("New accepted an empty base URL")
	}
}

func TestPermissions(t *testing.T) {
	s := newStore(t)
	key, _ := blob.OrgKey("acme", "uploads", "f.csv")
	if _, err := s.Put(t.Context(), key, strings.NewReader("x"), "text/csv"); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Dir(), filepath.FromSlash(key))
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != 0o600 {
		t.Errorf("file mode = %o, want 600", got)
	}
	for d := filepath.Dir(p); d != s.Dir(); d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&0o077 != 0 {
			t.Errorf("dir %s mode = %o, want no group/other access", d, got)
		}
	}
}

func TestDeletePrunesEmptyDirs(t *testing.T) {
	s := newStore(t)
	key, _ := blob.OrgKey("acme", "a", "b", "c.csv")
	if _, err := s.Put(t.Context(), key, strings.NewReader("x"), ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(t.Context(), key); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Dir(), "orgs")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty directories left behind: %v", err)
	}
	if _, err := os.Stat(s.Dir()); err != nil {
		t.Errorf("storage root removed: %v", err)
	}
}

func TestPrefixIsNotAnObject(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	key, _ := blob.OrgKey("acme", "dir", "f.csv")
	if _, err := s.Put(ctx, key, strings.NewReader("x"), ""); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"orgs/acme/dir", "orgs/acme/dir/f.csv/child"} {
		if _, err := s.Open(ctx, k); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Open(%q) = %v, want ErrNotFound", k, err)
		}
		if _, err := s.Stat(ctx, k); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Stat(%q) = %v, want ErrNotFound", k, err)
		}
		if err := s.Delete(ctx, k); err != nil {
			t.Errorf("Delete(%q) = %v, want nil", k, err)
		}
	}
	if _, err := s.Stat(ctx, key); err != nil {
		t.Errorf("object lost: %v", err)
	}
}

func TestPathTraversalRejected(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("top secret"), 0o600); err != nil {
		t.Fatal(err)
	}

	rel, err := filepath.Rel(s.Dir(), secret)
	if err != nil {
		t.Fatal(err)
	}
	keys := []string{
		filepath.ToSlash(rel), // ../../xxx/secret.txt
		secret,                // absolute
		"orgs/acme/../../" + filepath.ToSlash(rel),
		"orgs/acme/..\\..\\x",
		"orgs/acme/.blobtmp-0123", // reserved temp-file prefix
	}
	for _, k := range keys {
		if _, err := s.Put(ctx, k, strings.NewReader("pwned"), ""); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Put(%q) = %v, want ErrInvalidKey", k, err)
		}
		if _, err := s.Open(ctx, k); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Open(%q) = %v, want ErrInvalidKey", k, err)
		}
		if err := s.Delete(ctx, k); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Delete(%q) = %v, want ErrInvalidKey", k, err)
		}
	}

	// Symlinks inside the store that point outside must not be followed,
	// neither for a directory component nor for the final element.
	if err := os.MkdirAll(filepath.Join(s.Dir(), "orgs", "acme"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(s.Dir(), "orgs", "acme", "evil")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(s.Dir(), "orgs", "acme", "link.txt")); err != nil {
		t.Fatal(err)
	}
	if rc, err := s.Open(ctx, "orgs/acme/evil/secret.txt"); err == nil {
		b, _ := io.ReadAll(rc)
		rc.Close()
		t.Errorf("Open through escaping dir symlink succeeded: %q", b)
	}
	if rc, err := s.Open(ctx, "orgs/acme/link.txt"); err == nil {
		b, _ := io.ReadAll(rc)
		rc.Close()
		t.Errorf("Open of escaping file symlink succeeded: %q", b)
	}
	if _, err := s.Stat(ctx, "orgs/acme/evil/secret.txt"); err == nil {
		t.Errorf("Stat through escaping symlink succeeded")
	}
	if _, err := s.Put(ctx, "orgs/acme/evil/new.txt", strings.NewReader("pwned"), ""); err == nil {
		t.Errorf("Put through escaping symlink succeeded")
	}
	if err := s.Delete(ctx, "orgs/acme/evil/secret.txt"); err == nil {
		// Delete may report nil only if it did not touch the target.
		if _, statErr := os.Stat(secret); statErr != nil {
			t.Errorf("Delete through escaping symlink removed the outside file")
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside dir modified: %v", entries)
	}
	if b, _ := os.ReadFile(secret); string(b) != "top secret" {
		t.Errorf("outside file modified: %q", b)
	}
}

func TestCancelledPutLeavesNoTempFile(t *testing.T) {
	s := newStore(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	key, _ := blob.OrgKey("acme", "x.csv")
	if _, err := s.Put(ctx, key, blobtest.Pattern(1, 1<<20), ""); !errors.Is(err, context.Canceled) {
		t.Fatalf("Put with cancelled ctx: %v, want context.Canceled", err)
	}
	assertNoTempFiles(t, s.Dir())
}

func TestSignedURLVerify(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	key, _ := blob.OrgKey("acme", "exports", "résumé 2024.csv")
	u, err := s.SignedURL(ctx, key, 10*time.Minute, "résumé 2024.csv")
	if err != nil {
		t.Fatal(err)
	}
	const prefix = "https://dqs.example.com/api/v1/blobs/"
	if !strings.HasPrefix(u, prefix) {
		t.Fatalf("URL %q lacks prefix %q", u, prefix)
	}
	tok := strings.TrimPrefix(u, prefix)
	if strings.ContainsAny(tok, "/?#%+ ") {
		t.Fatalf("token %q is not path-safe", tok)
	}

	now := time.Now()
	gotKey, gotName, err := s.Verify(tok, now)
	if err != nil || gotKey != key || gotName != "résumé 2024.csv" {
		t.Fatalf("Verify(fresh) = %q, %q, %v", gotKey, gotName, err)
	}

	if _, _, err := s.Verify(tok, now.Add(11*time.Minute)); !errors.Is(err, local.ErrExpired) {
		t.Errorf("Verify(expired) = %v, want ErrExpired", err)
	}

	payload, sig, _ := strings.Cut(tok, ".")
	flip := func(s string, i int) string {
		b := []byte(s)
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
		return string(b)
	}
	tampered := []string{
		flip(payload, len(payload)/2) + "." + sig,
		payload + "." + flip(sig, 3),
		payload,
		"." + sig,
		payload + ".",
		"garbage",
		"",
		payload + "." + sig + "x",
	}
	for _, bad := range tampered {
		if _, _, err := s.Verify(bad, now); !errors.Is(err, local.ErrBadSignature) {
			t.Errorf("Verify(%q) = %v, want ErrBadSignature", bad, err)
		}
	}

	// A token from a store with a different key is rejected.
	other, err := local.New(t.TempDir(), bytes.Repeat([]byte("z"), 32), "https://dqs.example.com")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, _, err := other.Verify(tok, now); !errors.Is(err, local.ErrBadSignature) {
		t.Errorf("Verify with other key = %v, want ErrBadSignature", err)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".blobtmp-") {
			t.Errorf("temp file left behind: %s", p)
		}
		return nil
	})
}
