// Package blob defines the storage abstraction used for uploaded data files
// (CSV, JSON, Parquet, often 1 GiB or more) and the helpers shared by its
// drivers.
//
// Design constraints, and why:
//
//   - Objects are streamed in and out (io.Reader / io.ReadCloser) and never
//     held whole in memory: a handful of concurrent 1 GiB uploads would
//     otherwise exhaust the service's heap.
//   - Downloads are served as 307 redirects to time-limited signed URLs so
//     large transfers bypass the API process entirely (for the local driver
//     the "signed URL" points back at the API, which verifies a HMAC token).
//   - Every key is prefixed by organisation (see OrgKey) so tenant data can be
//     listed, exported or purged per organisation and a bug in one code path
//     cannot silently address another tenant's objects.
//
// Drivers live in sub-packages: blob/local (filesystem), blob/s3 (AWS S3 and
// S3-compatible stores) and blob/gcs (Google Cloud Storage). blob/blobtest
// holds the conformance suite they all pass.
package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ErrNotFound is returned (possibly wrapped; test with errors.Is) by Open,
// OpenRange and Stat when no object exists at the key.
var ErrNotFound = errors.New("blob: object not found")

// ErrInvalidKey is returned (wrapped; test with errors.Is) when a key is not
// acceptable to the store. Keys are validated identically by every driver so
// that a key which works in development (local) also works in production
// (S3/GCS) and vice versa.
var ErrInvalidKey = errors.New("blob: invalid key")

// MaxKeyLen is the maximum key length in bytes. It matches the S3 and GCS
// limit (1024 bytes of UTF-8) so keys are portable between drivers.
const MaxKeyLen = 1024

// MaxSignedURLTTL is the longest lifetime accepted by SignedURL. It is the
// limit of both S3 SigV4 presigning and GCS V4 signing (7 days); the local
// driver applies it too so behaviour does not depend on the backend.
const MaxSignedURLTTL = 7 * 24 * time.Hour

// Info describes a stored object.
type Info struct {
	Key string
	// Size in bytes.
	Size int64
	// ETag is an opaque version identifier: it changes when the object is
	// overwritten. Its format is driver specific (quotes are stripped) and it
	// is not necessarily a content hash.
	ETag     string
	Modified time.Time
}

// Store is implemented by every blob driver. Implementations are safe for
// concurrent use.
type Store interface {
	// Put streams r to key (overwrite allowed); returns bytes written. Must
	// not buffer the whole object in memory. A failed or cancelled Put never
	// leaves a partial object readable at key.
	Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error)
	// Open streams the object; ErrNotFound (errors.Is) when missing. The
	// caller must Close the reader.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// OpenRange streams length bytes of the object from byte offset;
	// length < 0 streams to the end. A range running past the end stops
	// at the end. An offset at or beyond the end, and length 0, give an
	// empty stream (its first Read returns io.EOF), never an error; the
	// object must still exist (ErrNotFound otherwise, as Open). A
	// negative offset is an error. The caller must Close the reader.
	// It lets a reader that needs only part of a stored file (the first
	// rows of a CSV, a Parquet footer and column chunks) fetch just that.
	OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
	// Stat returns the object's metadata; ErrNotFound when missing.
	Stat(ctx context.Context, key string) (Info, error)
	// Delete removes the object; a missing object is not an error (already
	// deleted), which makes retention jobs idempotent and safe to retry.
	Delete(ctx context.Context, key string) error
	// SignedURL returns a URL valid for ttl that downloads the object with
	// Content-Disposition attachment; filename. ttl must be in
	// (0, MaxSignedURLTTL].
	SignedURL(ctx context.Context, key string, ttl time.Duration, filename string) (string, error)
}

// OrgKey builds "orgs/<orgID>/<parts joined by />", rejecting empty parts,
// ".." (and "."), "/" or "\" inside parts, control characters and invalid
// UTF-8. At least one part is required: a bare "orgs/<orgID>" names a
// directory-like prefix, not an object.
//
// Parts are validated individually (instead of accepting a pre-joined path)
// so that user-controlled values such as an uploaded file name can never
// introduce extra path segments or climb into another organisation's prefix.
func OrgKey(orgID string, parts ...string) (string, error) {
	if err := validateSegment(orgID); err != nil {
		return "", fmt.Errorf("%w: org id: %v", ErrInvalidKey, err)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("%w: no key parts after org id", ErrInvalidKey)
	}
	for i, p := range parts {
		if err := validateSegment(p); err != nil {
			return "", fmt.Errorf("%w: part %d: %v", ErrInvalidKey, i, err)
		}
	}
	key := "orgs/" + orgID + "/" + strings.Join(parts, "/")
	if len(key) > MaxKeyLen {
		return "", fmt.Errorf("%w: key longer than %d bytes", ErrInvalidKey, MaxKeyLen)
	}
	return key, nil
}

// ValidateKey reports whether key is acceptable to every driver: non-empty,
// at most MaxKeyLen bytes of valid UTF-8, relative (no leading "/"), made of
// non-empty "/"-separated segments none of which is "." or "..", and free of
// backslashes and control characters. It returns an error wrapping
// ErrInvalidKey otherwise.
//
// The rules are deliberately stricter than S3/GCS require: the same key must
// map to a safe path on the local filesystem driver, and rejecting odd keys
// everywhere keeps drivers interchangeable.
func ValidateKey(key string) error {
	if key == "" {
		return fmt.Errorf("%w: empty key", ErrInvalidKey)
	}
	if len(key) > MaxKeyLen {
		return fmt.Errorf("%w: key longer than %d bytes", ErrInvalidKey, MaxKeyLen)
	}
	if strings.HasPrefix(key, "/") {
		return fmt.Errorf("%w: absolute key %q", ErrInvalidKey, key)
	}
	for seg := range strings.SplitSeq(key, "/") {
		if err := validateSegment(seg); err != nil {
			return fmt.Errorf("%w: %q: %v", ErrInvalidKey, key, err)
		}
	}
	return nil
}

// validateSegment checks one path segment (no "/" allowed inside).
func validateSegment(s string) error {
	switch s {
	case "":
		return errors.New("empty segment")
	case ".", "..":
		return fmt.Errorf("segment %q not allowed", s)
	}
	if !utf8.ValidString(s) {
		return errors.New("invalid UTF-8")
	}
	for _, r := range s {
		switch {
		case r == '/':
			return errors.New(`"/" inside segment`)
		case r == '\\':
			// A path separator on Windows; rejected so a key can never
			// be interpreted as a traversal by the local driver.
			return errors.New(`"\" inside segment`)
		case unicode.IsControl(r):
			return fmt.Errorf("control character %U", r)
		}
	}
	return nil
}

// ValidateTTL checks a SignedURL lifetime against (0, MaxSignedURLTTL].
func ValidateTTL(ttl time.Duration) error {
	if ttl <= 0 {
		return fmt.Errorf("blob: signed URL ttl must be positive, got %v", ttl)
	}
	if ttl > MaxSignedURLTTL {
		return fmt.Errorf("blob: signed URL ttl %v exceeds maximum %v", ttl, MaxSignedURLTTL)
	}
	return nil
}

// ContentDisposition returns an "attachment" Content-Disposition header value
// for filename, safe to embed in a header or a signed URL parameter.
//
// The filename comes from users, so it is reduced to its last path element,
// stripped of control characters and quotes are never emitted unescaped. A
// plain-ASCII fallback is given in filename= and, when the name is not pure
// ASCII, the exact UTF-8 name in filename*= (RFC 6266 / RFC 5987), which all
// current browsers prefer. An empty result falls back to "download".
func ContentDisposition(filename string) string {
	name := SanitizeFilename(filename)
	var ascii strings.Builder
	nonASCII := false
	for _, r := range name {
		switch {
		case r > unicode.MaxASCII:
			nonASCII = true
			ascii.WriteByte('_')
		case r == '"' || r == '\\':
			ascii.WriteByte('_')
		default:
			ascii.WriteRune(r)
		}
	}
	v := `attachment; filename="` + ascii.String() + `"`
	if nonASCII {
		v += "; filename*=UTF-8''" + rfc5987Escape(name)
	}
	return v
}

// SanitizeFilename reduces a user-supplied download name to something safe
// to offer as a file name: the last "/" or "\" separated element, with
// control characters removed and surrounding spaces trimmed. Invalid UTF-8
// is replaced. It returns "download" when nothing usable remains.
func SanitizeFilename(filename string) string {
	filename = strings.ToValidUTF8(filename, "_")
	if i := strings.LastIndexAny(filename, `/\`); i >= 0 {
		filename = filename[i+1:]
	}
	filename = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, filename)
	filename = strings.TrimSpace(filename)
	if filename == "" || filename == "." || filename == ".." {
		return "download"
	}
	return filename
}

// rfc5987Escape percent-encodes everything except RFC 5987 attr-chars.
func rfc5987Escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') ||
			strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&0xF])
	}
	return b.String()
}

// ContextReader wraps r so that every Read first checks ctx and fails with
// ctx.Err() once it is done. Drivers whose copy loop would otherwise not
// notice cancellation (e.g. a local file copy fed by a slow or endless
// reader) use it so a cancelled upload stops promptly.
func ContextReader(ctx context.Context, r io.Reader) io.Reader {
	return &ctxReader{ctx: ctx, r: r}
}

type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// CountingReader counts the bytes read through it. Drivers use it to report
// the size of a streamed Put without buffering.
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}

// CheckRange validates OpenRange arguments for drivers: a negative offset is
// an error. It returns the length to request, with length < 0 (to the end)
// normalised to -1, and a length whose end would overflow int64 (past any
// object's end) turned into -1 too, since both mean the same range.
func CheckRange(offset, length int64) (int64, error) {
	if offset < 0 {
		return 0, fmt.Errorf("blob: negative range offset %d", offset)
	}
	if length < 0 || length > math.MaxInt64-offset {
		return -1, nil
	}
	return length, nil
}
