// Package local implements blob.Store on the local filesystem, for
// development, tests and single-node deployments.
//
// Safety properties, and why they matter here:
//
//   - All file access goes through an os.Root opened on the storage
//     directory. os.Root refuses any path (including via "..", absolute
//     paths or symbolic links) that would resolve outside that directory, so
//     a crafted key or a symlink planted inside the tree cannot read or
//     overwrite files elsewhere on the host. Keys are additionally checked
//     with blob.ValidateKey.
//   - Put writes to a uniquely named temporary file in the destination
//     directory and renames it into place only after a successful copy and
//     fsync. Rename within one directory is atomic on POSIX filesystems, so
//     readers see either the old object or the complete new one, and a
//     failed or cancelled upload leaves nothing behind.
//   - Directories are created 0700 and files 0600: uploaded data belongs to
//     tenants and must not be readable by other local users.
//
// Signed URLs point back at the API ("<baseURL>/api/v1/blobs/<token>"); the
// token carries key, filename and expiry and is authenticated with
// HMAC-SHA256, so the API can serve the download without a session after
// calling Verify.
package local

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/internal/rangeio"
)

var _ blob.Store = (*Store)(nil)

// ErrExpired is returned by Verify for a correctly signed token whose expiry
// has passed.
var ErrExpired = errors.New("blob/local: signed URL expired")

// ErrBadSignature is returned by Verify for a token that is malformed or
// whose signature does not match (tampered, or signed with another key).
var ErrBadSignature = errors.New("blob/local: bad signed URL signature")

// MinSigningKeyLen is the minimum HMAC key length accepted by New. 32 bytes
// matches the SHA-256 output size, the recommended HMAC key strength.
const MinSigningKeyLen = 32

// tmpPrefix marks in-progress uploads. Keys with a segment starting with it
// are rejected so an object can never collide with (or expose) a temp file.
const tmpPrefix = ".blobtmp-"

// tokenDomain separates these HMACs from any other use of the same key.
const tokenDomain = "dqs-blob-url-v1\x00"

// Store is a filesystem-backed blob.Store. Create it with New and release
// it with Close.
type Store struct {
	root       *os.Root
	dir        string
	signingKey []byte
	baseURL    string
	now        func() time.Time
}

// New opens (creating if needed, mode 0700) the storage directory dir.
// signingKey authenticates signed URL tokens and must be at least
// MinSigningKeyLen bytes; it must be stable across restarts and shared by all
// API replicas or outstanding URLs stop verifying. baseURL is the externally
// reachable API origin, e.g. "https://dqs.example.com" (a trailing "/" is
// ignored).
func New(dir string, signingKey []byte, baseURL string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("blob/local: empty directory")
	}
	if len(signingKey) < MinSigningKeyLen {
		return nil, fmt.Errorf("blob/local: signing key must be at least %d bytes", MinSigningKeyLen)
	}
	if baseURL == "" {
		return nil, errors.New("blob/local: empty base URL")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("blob/local: %w", err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("blob/local: create dir: %w", err)
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("blob/local: open dir: %w", err)
	}
	return &Store{
		root:       root,
		dir:        abs,
		signingKey: append([]byte(nil), signingKey...),
		baseURL:    strings.TrimRight(baseURL, "/"),
		now:        time.Now,
	}, nil
}

// Close releases the directory handle. The Store must not be used after.
func (s *Store) Close() error { return s.root.Close() }

// Dir returns the absolute storage directory.
func (s *Store) Dir() string { return s.dir }

// name validates key and converts it to a root-relative OS path.
func (s *Store) name(key string) (string, error) {
	if err := blob.ValidateKey(key); err != nil {
		return "", err
	}
	for seg := range strings.SplitSeq(key, "/") {
		if strings.HasPrefix(seg, tmpPrefix) {
			return "", fmt.Errorf("%w: segment %q uses reserved prefix", blob.ErrInvalidKey, seg)
		}
	}
	return filepath.FromSlash(key), nil
}

// Put streams r into a temp file next to the destination, fsyncs it and
// renames it over key. Memory use is one copy buffer regardless of size.
// contentType is not stored: the filesystem has nowhere to keep it, and
// downloads are served as attachments whose type the API derives itself.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	name, err := s.name(key)
	if err != nil {
		return 0, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	dir := filepath.Dir(name)
	f, tmp, err := s.createTemp(dir)
	if err != nil {
		return 0, fmt.Errorf("blob/local: put %q: %w", key, err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = s.root.Remove(tmp)
		}
	}()
	// ContextReader makes a cancelled ctx abort the copy at the next Read;
	// io.Copy uses a single small buffer, so memory stays constant.
	n, err := io.Copy(f, blob.ContextReader(ctx, r))
	if err != nil {
		return n, fmt.Errorf("blob/local: put %q: %w", key, err)
	}
	if err := f.Sync(); err != nil {
		return n, fmt.Errorf("blob/local: put %q: sync: %w", key, err)
	}
	if err := f.Close(); err != nil {
		return n, fmt.Errorf("blob/local: put %q: close: %w", key, err)
	}
	// Last chance to honour cancellation before the object becomes visible.
	if err := ctx.Err(); err != nil {
		_ = s.root.Remove(tmp)
		ok = true
		return n, fmt.Errorf("blob/local: put %q: %w", key, err)
	}
	if err := s.root.Rename(tmp, name); err != nil {
		_ = s.root.Remove(tmp)
		ok = true
		return n, fmt.Errorf("blob/local: put %q: rename: %w", key, err)
	}
	ok = true
	// Persist the rename itself (best effort): without a directory fsync a
	// crash could lose an upload the API already acknowledged.
	if d, err := s.root.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return n, nil
}

// createTemp creates the parent directory and an exclusive temp file in it.
// It retries a few times because a concurrent Delete may prune the freshly
// created (still empty) parent directory between MkdirAll and OpenFile.
func (s *Store) createTemp(dir string) (*os.File, string, error) {
	var lastErr error
	for range 5 {
		if dir != "." {
			if err := s.root.MkdirAll(dir, 0o700); err != nil {
				return nil, "", err
			}
		}
		var rnd [12]byte
		_, _ = rand.Read(rnd[:])
		tmp := filepath.Join(dir, tmpPrefix+hex.EncodeToString(rnd[:]))
		f, err := s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			return f, tmp, nil
		}
		lastErr = err
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return nil, "", lastErr
}

// Open opens the object for streaming. Directories (key prefixes) are
// reported as ErrNotFound.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	name, err := s.name(key)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.open(key, name)
}

// OpenRange opens the object as Open does, seeks to offset and limits the
// stream to length bytes. Seeking past the end of a regular file is allowed
// and its reads then return io.EOF, so an offset at or beyond the end gives
// an empty stream.
func (s *Store) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	name, err := s.name(key)
	if err != nil {
		return nil, err
	}
	length, err = blob.CheckRange(offset, length)
	if err != nil {
		return nil, fmt.Errorf("blob/local: open %q: %w", key, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := s.open(key, name)
	if err != nil {
		return nil, err
	}
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("blob/local: open %q: seek: %w", key, err)
		}
	}
	if length < 0 {
		return f, nil
	}
	return rangeio.Cut(f, 0, length), nil
}

// open opens the regular file name (the checked path of key).
func (s *Store) open(key, name string) (*os.File, error) {
	f, err := s.root.Open(name)
	if err != nil {
		return nil, mapErr(key, err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, mapErr(key, err)
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("%w: %q", blob.ErrNotFound, key)
	}
	return f, nil
}

// Stat returns size and modification time. The ETag is derived from size and
// mtime (nanoseconds) rather than a content hash so Stat never has to re-read
// a potentially multi-gigabyte file; every Put produces a new file, so the
// ETag changes on overwrite.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	name, err := s.name(key)
	if err != nil {
		return blob.Info{}, err
	}
	if err := ctx.Err(); err != nil {
		return blob.Info{}, err
	}
	fi, err := s.root.Stat(name)
	if err != nil {
		return blob.Info{}, mapErr(key, err)
	}
	if !fi.Mode().IsRegular() {
		return blob.Info{}, fmt.Errorf("%w: %q", blob.ErrNotFound, key)
	}
	return blob.Info{
		Key:      key,
		Size:     fi.Size(),
		ETag:     strconv.FormatInt(fi.Size(), 16) + "-" + strconv.FormatInt(fi.ModTime().UnixNano(), 16),
		Modified: fi.ModTime(),
	}, nil
}

// Delete removes the object (a missing one is not an error) and then prunes
// now-empty parent directories, best effort, so retention does not leave an
// ever-growing tree of empty directories.
func (s *Store) Delete(ctx context.Context, key string) error {
	name, err := s.name(key)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fi, err := s.root.Lstat(name)
	if err != nil {
		if err := mapErr(key, err); !errors.Is(err, blob.ErrNotFound) {
			return err
		}
		return nil
	}
	if fi.IsDir() {
		// A key prefix, not an object: nothing to delete.
		return nil
	}
	if err := s.root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob/local: delete %q: %w", key, err)
	}
	for dir := path.Dir(key); dir != "."; dir = path.Dir(dir) {
		// Remove fails on non-empty directories, which ends the walk.
		if s.root.Remove(filepath.FromSlash(dir)) != nil {
			break
		}
	}
	return nil
}

func mapErr(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %q", blob.ErrNotFound, key)
	}
	if errors.Is(err, syscall.ENOTDIR) {
		// A path component is a file (e.g. "a/b" when "a" is an object).
		return fmt.Errorf("%w: %q", blob.ErrNotFound, key)
	}
	return fmt.Errorf("blob/local: %q: %w", key, err)
}

// token is the signed payload. Short JSON names keep URLs compact.
type token struct {
	Key      string `json:"k"`
	Filename string `json:"f"`
	Expires  int64  `json:"e"` // Unix seconds
}

// SignedURL returns baseURL + "/api/v1/blobs/" + token, where token is
// base64url(JSON{key, filename, expiry}) + "." + base64url(HMAC-SHA256).
// The object's existence is not checked: a URL for a missing object simply
// yields a 404 when used, as with S3 and GCS.
func (s *Store) SignedURL(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	if _, err := s.name(key); err != nil {
		return "", err
	}
	if err := blob.ValidateTTL(ttl); err != nil {
		return "", err
	}
	payload, err := json.Marshal(token{
		Key:      key,
		Filename: filename,
		Expires:  s.now().Add(ttl).Unix(),
	})
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	p := enc.EncodeToString(payload)
	return s.baseURL + "/api/v1/blobs/" + p + "." + enc.EncodeToString(s.mac(p)), nil
}

func (s *Store) mac(encodedPayload string) []byte {
	m := hmac.New(sha256.New, s.signingKey)
	m.Write([]byte(tokenDomain))
	m.Write([]byte(encodedPayload))
	return m.Sum(nil)
}

// Verify checks a token taken from a SignedURL path and returns the key and
// requested download filename. The signature is checked (in constant time)
// before anything in the payload is trusted, so a tampered token yields
// ErrBadSignature even if its expiry was also altered; a genuine token past
// its expiry yields ErrExpired. The API layer should then call Open and set
// Content-Disposition with blob.ContentDisposition(filename).
func (s *Store) Verify(tok string, now time.Time) (key, filename string, err error) {
	p, sig, ok := strings.Cut(tok, ".")
	if !ok || p == "" || sig == "" {
		return "", "", ErrBadSignature
	}
	enc := base64.RawURLEncoding
	got, err := enc.DecodeString(sig)
	if err != nil || !hmac.Equal(got, s.mac(p)) {
		return "", "", ErrBadSignature
	}
	raw, err := enc.DecodeString(p)
	if err != nil {
		return "", "", ErrBadSignature
	}
	var t token
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", "", ErrBadSignature
	}
	if !now.Before(time.Unix(t.Expires, 0)) {
		return "", "", ErrExpired
	}
	// Defence in depth: only keys this store would accept are returned.
	if _, err := s.name(t.Key); err != nil {
		return "", "", ErrBadSignature
	}
	return t.Key, t.Filename, nil
}
