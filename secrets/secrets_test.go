package secrets

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSealOpenRoundTripAndTamper(t *testing.T) {
	box, err := NewBox(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := box.Seal("JBSWY3DPEHPK3PXP")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "JBSWY3DPEHPK3PXP") {
		t.Fatal("sealed value contains the plaintext")
	}
	got, err := box.Open(sealed)
	if err != nil || got != "JBSWY3DPEHPK3PXP" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	again, _ := box.Seal("JBSWY3DPEHPK3PXP")
	if again == sealed {
		t.Fatal("two seals of one value are equal: nonce reused")
	}
	tampered := sealed[:len(sealed)-2] + "AA"
	if _, err := box.Open(tampered); err != ErrOpen {
		t.Fatalf("tampered Open err = %v, want ErrOpen", err)
	}
	other, _ := NewBox(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.Open(sealed); err != ErrOpen {
		t.Fatalf("wrong key Open err = %v, want ErrOpen", err)
	}
	if _, err := NewBox([]byte("short")); err == nil {
		t.Fatal("short key accepted")
	}
}

func TestLoadOrCreateKeyFileIsStable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "k.key")
	k1, err := LoadOrCreateKeyFile(path, KeySize)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := LoadOrCreateKeyFile(path, KeySize)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(k1, k2) || len(k1) != KeySize {
		t.Fatal("key changed between loads")
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, want 0600", st.Mode().Perm())
	}
	if err := os.WriteFile(path, []byte("not base64!"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateKeyFile(path, KeySize); err == nil {
		t.Fatal("corrupt key file accepted")
	}
}

func TestSealBoundOpensOnlyWithItsContext(t *testing.T) {
	box, err := NewBox(bytes.Repeat([]byte{7}, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	const secret = `{"password":"hunter2"}`
	sealed, err := box.SealBound(secret, "org-a", "1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sealed, "v1b:") || strings.Contains(sealed, "hunter2") || strings.Contains(sealed, "org-a") {
		t.Fatalf("sealed = %q, want a v1b: value holding neither the secret nor the context", sealed)
	}
	got, err := box.OpenBound(sealed, "org-a", "1")
	if err != nil || got != secret {
		t.Fatalf("OpenBound = %q, %v", got, err)
	}
	again, _ := box.SealBound(secret, "org-a", "1")
	if again == sealed {
		t.Fatal("two seals of one value are equal: nonce reused")
	}
	for _, ctx := range [][]string{
		{"org-a", "2"}, {"org-b", "1"}, {"org-a"}, {"org-a", "1", ""}, {"1", "org-a"}, {"org-a1"}, {"org-a", "1 "}, nil,
	} {
		if _, err := box.OpenBound(sealed, ctx...); err != ErrOpen {
			t.Fatalf("OpenBound with context %q: err = %v, want ErrOpen", ctx, err)
		}
	}
	// Bound and unbound values never open as each other.
	if _, err := box.Open(sealed); err != ErrOpen {
		t.Fatalf("Open of a bound value: err = %v, want ErrOpen", err)
	}
	plain, _ := box.Seal(secret)
	if _, err := box.OpenBound(plain); err != ErrOpen {
		t.Fatalf("OpenBound of an unbound value: err = %v, want ErrOpen", err)
	}
	// An empty context is a context like any other.
	none, _ := box.SealBound(secret)
	if got, err := box.OpenBound(none); err != nil || got != secret {
		t.Fatalf("OpenBound without context = %q, %v", got, err)
	}
	if _, err := box.OpenBound(none, ""); err != ErrOpen {
		t.Fatalf("OpenBound of a context-free value with (\"\"): err = %v, want ErrOpen", err)
	}
}

func TestSealBoundTamperAndWrongKey(t *testing.T) {
	box, _ := NewBox(bytes.Repeat([]byte{7}, KeySize))
	sealed, err := box.SealBound("s3cret", "org-a", "1")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Replace(sealed, "v1b:", "v1:", 1),
		"v1b:" + "!!!not base64",
		"v1b:AAAA",
		"",
	} {
		if _, err := box.OpenBound(bad, "org-a", "1"); err != ErrOpen {
			t.Fatalf("OpenBound(%q): err = %v, want ErrOpen", bad, err)
		}
	}
	// Flip each bit of the nonce, ciphertext and tag in turn.
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(sealed, "v1b:"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(raw) * 8 {
		b := append([]byte(nil), raw...)
		b[i/8] ^= 1 << (i % 8)
		if got, err := box.OpenBound("v1b:"+base64.RawStdEncoding.EncodeToString(b), "org-a", "1"); err != ErrOpen {
			t.Fatalf("flipping bit %d: OpenBound = %q, %v, want ErrOpen", i, got, err)
		}
	}
	other, _ := NewBox(bytes.Repeat([]byte{8}, KeySize))
	if _, err := other.OpenBound(sealed, "org-a", "1"); err != ErrOpen {
		t.Fatalf("wrong key: err = %v, want ErrOpen", err)
	}
}

func TestSealBoundContextIsUnambiguous(t *testing.T) {
	box, _ := NewBox(bytes.Repeat([]byte{7}, KeySize))
	pairs := [][2][]string{
		{{"ab", "c"}, {"a", "bc"}},
		{{"abc"}, {"ab", "c"}},
		{{"", "a"}, {"a", ""}},
		{{""}, nil},
		{{"a\x00", "b"}, {"a", "\x00b"}},
	}
	for _, p := range pairs {
		if bytes.Equal(boundData(p[0]), boundData(p[1])) {
			t.Fatalf("contexts %q and %q have one encoding", p[0], p[1])
		}
		sealed, err := box.SealBound("x", p[0]...)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := box.OpenBound(sealed, p[1]...); err != ErrOpen {
			t.Fatalf("sealed for %q opens for %q: err = %v", p[0], p[1], err)
		}
		if got, err := box.OpenBound(sealed, p[0]...); err != nil || got != "x" {
			t.Fatalf("sealed for %q does not open for it: %q, %v", p[0], got, err)
		}
	}
}
