// Package gcs implements blob.Store on Google Cloud Storage.
//
// Put streams through a storage.Writer with a fixed ChunkSize: the client
// performs a resumable upload, buffering one chunk at a time (so memory per
// upload is bounded by ChunkSize, not the object size) and retrying chunks
// individually. An upload is only finalised by a successful Close, so a
// failed or cancelled Put never creates or replaces the object.
//
// Downloads are V4 signed URLs carrying response-content-disposition,
// signed locally with the service account's private key taken from
// Config.CredentialsJSON; without such a key the client library falls back
// to its own detection (e.g. IAM signBlob on GCE/GKE with Workload Identity).
package gcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"cloud.google.com/go/storage"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/internal/rangeio"
)

var _ blob.Store = (*Store)(nil)

// ChunkSize is the resumable-upload chunk (and buffer) size per Put. It must
// be a multiple of 256 KiB; 8 MiB halves the client default (16 MiB) to keep
// many concurrent uploads cheap while staying well above the size where
// per-request overhead dominates.
const ChunkSize = 8 << 20

// Config selects the bucket and how to reach it.
type Config struct {
	// Bucket is required.
	Bucket string
	// Prefix is prepended to every object name (a "/" separator is added
	// when missing).
	Prefix string
	// Endpoint overrides the JSON API endpoint, e.g.
	// "http://localhost:4443/storage/v1/" for fake-gcs-server. When set,
	// reads use the JSON API too, since emulators generally do not serve the
	// XML API on the endpoint host.
	Endpoint string
	// CredentialsJSON is a service-account key file. It authenticates API
	// calls and signs URLs. When empty, Application Default Credentials are
	// used for calls and URL signing relies on the library's detection.
	CredentialsJSON []byte
	// WithoutAuthentication sends API requests unauthenticated (emulators).
	// CredentialsJSON, if given, is then used only to sign URLs. Without
	// this switch the client would try to exchange the service-account key
	// for an OAuth token at Google, which an offline emulator setup cannot
	// reach.
	WithoutAuthentication bool
}

// Store is a GCS-backed blob.Store. Release it with Close.
type Store struct {
	client   *storage.Client
	bucket   *storage.BucketHandle
	prefix   string
	accessID string // service account e-mail, for signing
	key      []byte // PEM private key, for signing
	insecure bool   // endpoint is plain http (emulator): sign http URLs
}

// serviceAccount holds the fields of a key file needed for signing.
type serviceAccount struct {
	Type        string `json:"type"`
	ClientEmail string `json:"client_email"`
	PrivateKey  string `json:"private_key"`
}

// New builds the client; like the S3 driver it does not contact the service.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("blob/gcs: empty bucket")
	}
	var sa serviceAccount
	if len(cfg.CredentialsJSON) > 0 {
		if err := json.Unmarshal(cfg.CredentialsJSON, &sa); err != nil {
			return nil, fmt.Errorf("blob/gcs: parse credentials JSON: %w", err)
		}
	}
	var opts []option.ClientOption
	insecure := false
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("blob/gcs: invalid endpoint %q", cfg.Endpoint)
		}
		insecure = u.Scheme == "http"
		opts = append(opts, option.WithEndpoint(cfg.Endpoint), storage.WithJSONReads())
	}
	switch {
	case cfg.WithoutAuthentication:
		opts = append(opts, option.WithoutAuthentication())
	case len(cfg.CredentialsJSON) > 0:
		if sa.Type != "service_account" {
			return nil, fmt.Errorf("blob/gcs: credentials JSON type %q, want service_account", sa.Type)
		}
		// WithAuthCredentialsJSON pins the expected credential type, so a
		// config value cannot smuggle in e.g. an external-account file.
		opts = append(opts, option.WithAuthCredentialsJSON(option.ServiceAccount, cfg.CredentialsJSON))
	}
	client, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("blob/gcs: new client: %w", err)
	}
	prefix := strings.Trim(cfg.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	s := &Store{
		client:   client,
		bucket:   client.Bucket(cfg.Bucket),
		prefix:   prefix,
		insecure: insecure,
	}
	if sa.Type == "service_account" && sa.ClientEmail != "" && sa.PrivateKey != "" {
		s.accessID = sa.ClientEmail
		s.key = []byte(sa.PrivateKey)
	}
	return s, nil
}

// Close releases the client's resources.
func (s *Store) Close() error { return s.client.Close() }

func (s *Store) object(key string) (*storage.ObjectHandle, error) {
	if err := blob.ValidateKey(key); err != nil {
		return nil, err
	}
	return s.bucket.Object(s.prefix + key), nil
}

// Put streams r into a resumable upload. On any error the writer's context
// is cancelled before Close, which is the documented way to abandon an
// upload without finalising the object.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	obj, err := s.object(key)
	if err != nil {
		return 0, err
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := obj.NewWriter(wctx)
	w.ChunkSize = ChunkSize
	w.ContentType = contentType
	n, err := io.Copy(w, r)
	if err != nil {
		cancel()
		_ = w.Close()
		return n, fmt.Errorf("blob/gcs: put %q: %w", key, err)
	}
	if err := w.Close(); err != nil {
		return n, fmt.Errorf("blob/gcs: put %q: %w", key, err)
	}
	return n, nil
}

// Open streams the object.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	rd, err := obj.NewReader(ctx)
	if err != nil {
		return nil, mapErr("open", key, err)
	}
	return rd, nil
}

// OpenRange streams part of the object with NewRangeReader. Length 0 only
// checks the object exists (Attrs): the library would otherwise GET the
// whole object and drop it. GCS answers 416 for a range starting at or after
// the end (any range of an empty object included); that becomes an empty
// stream once Attrs has shown the object exists.
//
// The stream is trimmed to the range when the answer holds more: GCS serves
// an object stored with Content-Encoding gzip decompressed and whole,
// whatever the range ("decompressive transcoding"), and the library passes
// that on, as it does a 200 whole-object answer to a range from offset 0.
func (s *Store) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	obj, err := s.object(key)
	if err != nil {
		return nil, err
	}
	length, err = blob.CheckRange(offset, length)
	if err != nil {
		return nil, fmt.Errorf("blob/gcs: open %q: %w", key, err)
	}
	if length == 0 {
		return s.empty(ctx, obj, key)
	}
	r, err := obj.NewRangeReader(ctx, offset, length)
	if err != nil {
		var ge *googleapi.Error
		if ctx.Err() == nil && errors.As(err, &ge) && ge.Code == http.StatusRequestedRangeNotSatisfiable {
			return s.empty(ctx, obj, key)
		}
		return nil, mapErr("open", key, err)
	}
	if r.Attrs.Decompressed || r.Attrs.StartOffset != offset || (length >= 0 && (r.Remain() < 0 || r.Remain() > length)) {
		return rangeio.Cut(r, max(0, offset-r.Attrs.StartOffset), length), nil
	}
	return r, nil
}

// empty returns an empty stream if the object exists.
func (s *Store) empty(ctx context.Context, obj *storage.ObjectHandle, key string) (io.ReadCloser, error) {
	if _, err := obj.Attrs(ctx); err != nil {
		return nil, mapErr("open", key, err)
	}
	return http.NoBody, nil
}

// Stat fetches the object's attributes.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	obj, err := s.object(key)
	if err != nil {
		return blob.Info{}, err
	}
	a, err := obj.Attrs(ctx)
	if err != nil {
		return blob.Info{}, mapErr("stat", key, err)
	}
	return blob.Info{Key: key, Size: a.Size, ETag: strings.Trim(a.Etag, `"`), Modified: a.Updated}, nil
}

// Delete removes the object; a missing object is success.
func (s *Store) Delete(ctx context.Context, key string) error {
	obj, err := s.object(key)
	if err != nil {
		return err
	}
	if err := obj.Delete(ctx); err != nil && !errors.Is(err, storage.ErrObjectNotExist) {
		return fmt.Errorf("blob/gcs: delete %q: %w", key, err)
	}
	return nil
}

// SignedURL returns a V4 signed GET URL (path style, so the bucket appears
// in the path) valid for ttl, at most 7 days. Signing is local when the
// service-account key is known; no request is sent.
func (s *Store) SignedURL(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	if _, err := s.object(key); err != nil {
		return "", err
	}
	if err := blob.ValidateTTL(ttl); err != nil {
		return "", err
	}
	opts := &storage.SignedURLOptions{
		Scheme: storage.SigningSchemeV4,
		Method: "GET",
		// The library signs X-Goog-Expires = whole seconds between Expires
		// and its own (slightly later) clock reading; the half-second
		// slack makes that come out as exactly ttl instead of ttl-1s.
		Expires:        time.Now().Add(ttl + 500*time.Millisecond),
		Style:          storage.PathStyle(),
		Insecure:       s.insecure,
		GoogleAccessID: s.accessID,
		PrivateKey:     s.key,
		QueryParameters: url.Values{
			"response-content-disposition": {blob.ContentDisposition(filename)},
		},
	}
	u, err := s.bucket.SignedURL(s.prefix+key, opts)
	if err != nil {
		return "", fmt.Errorf("blob/gcs: sign %q: %w", key, err)
	}
	return u, nil
}

func mapErr(op, key string, err error) error {
	if errors.Is(err, storage.ErrObjectNotExist) {
		return fmt.Errorf("%w: %q", blob.ErrNotFound, key)
	}
	return fmt.Errorf("blob/gcs: %s %q: %w", op, key, err)
}
