// Package secrets seals small secrets (TOTP seeds now, source credentials
// later) with AES-256-GCM before they are stored, and loads or creates the
// key files of the single-machine shape.
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the size of an AES-256 key.
const KeySize = 32

// sealedPrefix versions the sealed format so the key or cipher can change.
const sealedPrefix = "v1:"

// Box seals and opens secrets with one key.
type Box struct{ aead cipher.AEAD }

// NewBox returns a Box for a 32-byte key.
func NewBox(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("encryption key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal encrypts plaintext; the result is printable and safe to store.
func (b *Box) Seal(plaintext string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := b.aead.Seal(nonce, nonce, []byte(plaintext), nil)
	return sealedPrefix + base64.RawStdEncoding.EncodeToString(out), nil
}

// ErrOpen means a sealed value could not be decrypted (wrong key or tampering).
var ErrOpen = errors.New("sealed secret could not be opened")

// Open decrypts a value made by Seal.
func (b *Box) Open(sealed string) (string, error) {
	raw, ok := strings.CutPrefix(sealed, sealedPrefix)
	if !ok {
		return "", ErrOpen
	}
	data, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil || len(data) < b.aead.NonceSize() {
		return "", ErrOpen
	}
	nonce, ct := data[:b.aead.NonceSize()], data[b.aead.NonceSize():]
	pt, err := b.aead.Open(nil, nonce, ct, nil)
	if err != nil {
		return "", ErrOpen
	}
	return string(pt), nil
}

// boundPrefix marks a value sealed by SealBound, so Open and OpenBound never
// take each other's values.
const boundPrefix = "v1b:"

// SealBound encrypts plaintext bound to context: the context strings are the
// additional authenticated data, so the value opens only with OpenBound and
// the same strings in the same order (a source's credentials sealed for
// organisation A and source 1 open for nothing else). The context is not
// stored in the result; the caller supplies it again to open.
func (b *Box) SealBound(plaintext string, context ...string) (string, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	out := b.aead.Seal(nonce, nonce, []byte(plaintext), boundData(context))
	return boundPrefix + base64.RawStdEncoding.EncodeToString(out), nil
}

// OpenBound decrypts a value made by SealBound with the same context; a
// different context, key or a tampered value is ErrOpen.
func (b *Box) OpenBound(sealed string, context ...string) (string, error) {
	raw, ok := strings.CutPrefix(sealed, boundPrefix)
	if !ok {
		return "", ErrOpen
	}
	data, err := base64.RawStdEncoding.DecodeString(raw)
	if err != nil || len(data) < b.aead.NonceSize() {
		return "", ErrOpen
	}
	nonce, ct := data[:b.aead.NonceSize()], data[b.aead.NonceSize():]
	pt, err := b.aead.Open(nil, nonce, ct, boundData(context))
	if err != nil {
		return "", ErrOpen
	}
	return string(pt), nil
}

// boundData encodes context unambiguously as additional data: a label,
// then each string preceded by its length (8 bytes, big-endian), so no two
// different lists share an encoding (("ab", "c") is not ("a", "bc")).
func boundData(context []string) []byte {
	n := len(boundDataLabel)
	for _, c := range context {
		n += 8 + len(c)
	}
	out := make([]byte, 0, n)
	out = append(out, boundDataLabel...)
	for _, c := range context {
		out = binary.BigEndian.AppendUint64(out, uint64(len(c)))
		out = append(out, c...)
	}
	return out
}

// boundDataLabel starts the additional data of every bound value.
const boundDataLabel = "dqs-secrets-bound-v1\x00"

// LoadOrCreateKeyFile returns the base64 key stored at path, creating the
// file with a new random key (mode 0600) when it does not exist. The single
// machine shape uses it so keys survive restarts without configuration.
func LoadOrCreateKeyFile(path string, size int) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err == nil {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(data)))
		if err != nil || len(key) != size {
			return nil, fmt.Errorf("key file %s is not %d base64 bytes", path, size)
		}
		return key, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read key file %s: %w", path, err)
	}
	key := make([]byte, size)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another process created it first: use theirs.
		return LoadOrCreateKeyFile(path, size)
	}
	if err != nil {
		return nil, fmt.Errorf("create key file %s: %w", path, err)
	}
	defer f.Close()
	if _, err := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		return nil, err
	}
	return key, f.Sync()
}

// DecodeKey reads a base64 key given in configuration.
func DecodeKey(b64 string, size int) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(b64))
	if err != nil || len(key) != size {
		return nil, fmt.Errorf("want %d bytes, base64 encoded", size)
	}
	return key, nil
}
