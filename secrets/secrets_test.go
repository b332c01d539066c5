package secrets

import (
	"bytes"
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
