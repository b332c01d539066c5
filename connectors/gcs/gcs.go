// Package gcs is the object-store connector for Google Cloud Storage, on
// cloud.google.com/go/storage (JSON API for listing, XML or JSON API for
// reads).
//
// Credentials (connectors.Credentials): bucket (required), prefix,
// service_account_json (a service-account key file; other credential
// types are refused), endpoint (an emulator or GCS-compatible JSON API
// URL such as http://localhost:4443/storage/v1/; a bare host gets
// /storage/v1/). Without service_account_json, requests to an endpoint
// go unauthenticated (emulators); without either, the server's
// Application Default Credentials are used.
//
// The connector only reads and needs storage.objects.list and
// storage.objects.get (roles/storage.objectViewer): Open checks the
// bucket with a one-object listing rather than the bucket's attributes,
// which would need storage.buckets.get as well.
//
// The prefix is a folder, as in the s3 connector: List returns the
// objects under it with supported extensions; Open refuses any other key
// (and "." or ".." segments) as not found.
//
// Every request to the store goes through Options.Dialer (or
// Options.HTTPClient), token requests of a service account included
// (self-signed JWTs need none). Application Default Credentials reach the
// operator's metadata server with the library's own client.
package gcs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/httptransport"
	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/internal/rangeio"
)

var _ connectors.ObjectSource = (*Source)(nil)

// MaxObjects and MaxScanned bound List as in the s3 connector: beyond
// them List fails with connectors.ErrInvalid (narrow the prefix) rather
// than return a truncated list in which the objects left out would look
// deleted.
const (
	MaxObjects = 100_000
	MaxScanned = 1_000_000
)

// Tests lower these.
var (
	pageSize   = 1000
	maxObjects = MaxObjects
)

// Source is a GCS bucket (under a prefix) as a connectors.ObjectSource.
type Source struct {
	client    *storage.Client
	bucket    *storage.BucketHandle
	name      string
	prefix    string
	timeout   time.Duration
	secret    string
	transport *http.Transport // ours to close; nil with Options.HTTPClient
}

// Open checks the settings, builds the client and checks the bucket can
// be listed: connectors.ErrNotFound for a missing bucket,
// connectors.ErrConnect for one that cannot be reached or is denied,
// connectors.ErrInvalid for incomplete or malformed settings.
func Open(ctx context.Context, opts connectors.Options) (*Source, error) {
	c := opts.Credentials
	name, err := connectors.BucketName("gcs", c["bucket"])
	if err != nil {
		return nil, err
	}
	saJSON := strings.TrimSpace(c["service_account_json"])
	endpoint, err := parseEndpoint(c["endpoint"])
	if err != nil {
		return nil, err
	}
	if opts.HTTPClient == nil && opts.Dialer == nil {
		return nil, fmt.Errorf("%w: no dialer for gcs", connectors.ErrInvalid)
	}
	timeout := opts.CallTimeout()
	s := &Source{name: name, prefix: connectors.FolderPrefix(c["prefix"]), timeout: timeout, secret: saJSON}

	var base http.RoundTripper
	base, s.transport = connectors.HTTPBase(opts.HTTPClient, func() *http.Transport {
		return connectors.NewTransport(opts.Dialer.DialContext, timeout)
	})
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	clientOpts := []option.ClientOption{storage.WithDisabledClientMetrics()}
	var creds *auth.Credentials
	switch {
	case saJSON != "":
		var probe struct {
			Type string `json:"type"`
		}
		if json.Unmarshal([]byte(saJSON), &probe) != nil || probe.Type != "service_account" {
			return nil, fmt.Errorf("%w: gcs service_account_json must be a service account key file (JSON with \"type\": \"service_account\")", connectors.ErrInvalid)
		}
		creds, err = credentials.NewCredentialsFromJSON(credentials.ServiceAccount, []byte(saJSON), &credentials.DetectOptions{
			Scopes:           []string{storage.ScopeReadOnly},
			UseSelfSignedJWT: true,
			// A token request, should one be made, goes to the key
			// file's token_uri: the user's choice, so through the guard.
			Client: &http.Client{Transport: base, CheckRedirect: noRedirect},
		})
		if err != nil {
			return nil, fmt.Errorf("%w: gcs service_account_json is not a usable service account key", connectors.ErrInvalid)
		}
	case endpoint != "":
		clientOpts = append(clientOpts, option.WithoutAuthentication())
	default:
		creds, err = credentials.DetectDefault(&credentials.DetectOptions{Scopes: []string{storage.ScopeReadOnly}})
		if err != nil {
			return nil, fmt.Errorf("%w: gcs needs service_account_json (the server has no Google credentials of its own)", connectors.ErrInvalid)
		}
	}
	hc := &http.Client{Transport: base, CheckRedirect: noRedirect}
	if creds != nil {
		hc, err = httptransport.NewClient(&httptransport.Options{
			Credentials:      creds,
			BaseRoundTripper: base,
			DisableTelemetry: true,
		})
		if err != nil {
			return nil, fmt.Errorf("%w: gcs credentials could not be used", connectors.ErrInvalid)
		}
		hc.CheckRedirect = noRedirect
		clientOpts = append(clientOpts, option.WithAuthCredentials(creds))
	}
	clientOpts = append(clientOpts, option.WithHTTPClient(hc))
	if endpoint != "" {
		// Emulators serve reads on the JSON API only.
		clientOpts = append(clientOpts, option.WithEndpoint(endpoint), storage.WithJSONReads())
	}
	s.client, err = storage.NewClient(ctx, clientOpts...)
	if err != nil {
		connectors.CloseIdle(s.transport)
		return nil, connectors.Scrub(fmt.Errorf("%w: gcs client configuration failed", connectors.ErrInvalid), saJSON)
	}
	// The library retries until the context ends by default; a few quick
	// attempts keep an unreachable source from holding the whole timeout.
	s.client.SetRetry(
		storage.WithMaxAttempts(3),
		storage.WithBackoff(gax.Backoff{Initial: 100 * time.Millisecond, Max: 2 * time.Second, Multiplier: 2}))
	s.bucket = s.client.Bucket(name)

	octx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	q := &storage.Query{Prefix: s.prefix}
	if err := q.SetAttrSelection([]string{"Name"}); err != nil {
		s.Close()
		return nil, fmt.Errorf("%w: gcs query: internal error", connectors.ErrInvalid)
	}
	it := s.bucket.Objects(octx, q)
	it.PageInfo().MaxSize = 1
	if _, err := it.Next(); err != nil && !errors.Is(err, iterator.Done) {
		s.Close()
		return nil, s.mapErr(ctx, octx, "open", err)
	}
	return s, nil
}

// Close releases the client, then the transport's idle connections.
func (s *Source) Close() error {
	defer connectors.CloseIdle(s.transport)
	if s.client != nil && s.client.Close() != nil {
		return errors.New("gcs: closing the client failed")
	}
	return nil
}

// List returns the supported objects under the prefix, sorted by name,
// within one Options.Timeout.
func (s *Source) List(ctx context.Context) ([]connectors.Table, error) {
	lctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	q := &storage.Query{Prefix: s.prefix}
	if err := q.SetAttrSelection([]string{"Name", "Size", "Etag", "Updated", "Created", "Generation"}); err != nil {
		return nil, fmt.Errorf("%w: gcs query: internal error", connectors.ErrInvalid)
	}
	it := s.bucket.Objects(lctx, q)
	it.PageInfo().MaxSize = pageSize
	var out []connectors.Table
	for scanned := 0; ; scanned++ {
		o, err := it.Next()
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, s.mapErr(ctx, lctx, "list", err)
		}
		if scanned >= MaxScanned {
			return nil, fmt.Errorf("%w: more than %d objects under the prefix of gcs bucket %q; narrow the prefix", connectors.ErrInvalid, MaxScanned, s.name)
		}
		if o.Name == "" || !connectors.KeyUnder(s.prefix, o.Name) || !connectors.SupportedExtension(o.Name) {
			continue
		}
		if len(out) == maxObjects {
			return nil, fmt.Errorf("%w: more than %d supported objects under the prefix of gcs bucket %q; narrow the prefix", connectors.ErrInvalid, maxObjects, s.name)
		}
		etag := strings.Trim(o.Etag, `"`)
		if etag == "" && o.Generation != 0 {
			etag = strconv.FormatInt(o.Generation, 10)
		}
		mod := o.Updated
		if mod.IsZero() {
			mod = o.Created
		}
		out = append(out, connectors.Table{Name: o.Name, SizeBytes: o.Size, ETag: etag, LastModified: mod.UTC()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Open streams length bytes of one object from offset (length < 0: to
// the end), as connectors.ObjectSource.Open says, with the library's
// NewRangeReader (a Range header; none for the whole object). GCS answers
// an offset at or beyond the end with 416, which Open returns as an empty
// stream; length 0 asks for one byte, to learn that the object exists
// (the library would fetch the whole object for it on the JSON API), and
// returns an empty stream. Options.Timeout bounds obtaining the object (up
// to the response headers); the body then streams for as long as ctx
// lives.
func (s *Source) Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if !connectors.KeyUnder(s.prefix, key) {
		return nil, fmt.Errorf("%w: object %q is not under the source's prefix", connectors.ErrNotFound, connectors.Clip(key, 200))
	}
	if offset < 0 {
		return nil, fmt.Errorf("%w: gcs read of object %q from negative offset %d", connectors.ErrInvalid, connectors.Clip(key, 200), offset)
	}
	probe := length == 0
	switch {
	case probe:
		length = 1
	case length < 0:
		length = -1 // the library's "to the end"
	case length > math.MaxInt64-offset:
		length = -1 // past any object's end: the same range
	}
	body, octx, err := connectors.OpenWithin(ctx, s.timeout, func(octx context.Context) (io.ReadCloser, error) {
		r, err := s.bucket.Object(key).NewRangeReader(octx, offset, length)
		if err != nil {
			return nil, err
		}
		return fromOffset(r, offset, length), nil
	})
	if err != nil {
		if errors.Is(err, storage.ErrObjectNotExist) && ctx.Err() == nil {
			return nil, fmt.Errorf("%w: object %q in gcs bucket %q", connectors.ErrNotFound, connectors.Clip(key, 200), s.name)
		}
		var ge *googleapi.Error
		if errors.As(err, &ge) && ge.Code == http.StatusRequestedRangeNotSatisfiable && ctx.Err() == nil {
			return http.NoBody, nil
		}
		return nil, s.mapErr(ctx, octx, "read", err)
	}
	if probe {
		body.Close()
		return http.NoBody, nil
	}
	return body, nil
}

// fromOffset returns r's stream as the range asked for. GCS serves an
// object stored gzip-compressed (Content-Encoding: gzip) decompressed and
// whole, whatever the range ("decompressive transcoding"), and the
// library passes that on: the bytes before offset are then skipped as
// they are read and the stream is cut at length. (List's size of such an
// object is its compressed size.)
func fromOffset(r *storage.Reader, offset, length int64) io.ReadCloser {
	if r.Attrs.Decompressed || r.Attrs.StartOffset != offset || (length >= 0 && (r.Remain() < 0 || r.Remain() > length)) {
		return rangeio.Cut(r, max(0, offset-r.Attrs.StartOffset), length)
	}
	return r
}

// mapErr turns a library error into a short message wrapping a connectors
// sentinel. Nothing of the library's message is kept (it may quote the
// server's answer).
func (s *Source) mapErr(parent, call context.Context, op string, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("gcs %s stopped: %w", op, context.Cause(parent))
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(call), context.DeadlineExceeded) {
		return fmt.Errorf("%w: gcs bucket %q did not answer within %s: %w", connectors.ErrConnect, s.name, s.timeout, context.DeadlineExceeded)
	}
	if errors.Is(err, storage.ErrBucketNotExist) {
		return fmt.Errorf("%w: gcs bucket %q does not exist", connectors.ErrNotFound, s.name)
	}
	var ae *auth.Error
	if errors.As(err, &ae) {
		return fmt.Errorf("%w: gcs did not accept the service account of bucket %q (token refused)", connectors.ErrConnect, s.name)
	}
	var out error
	var ge *googleapi.Error
	switch {
	case !errors.As(err, &ge):
		out = fmt.Errorf("%w: gcs bucket %q is unreachable", connectors.ErrConnect, s.name)
	case ge.Code == http.StatusNotFound:
		out = fmt.Errorf("%w: gcs bucket %q does not exist", connectors.ErrNotFound, s.name)
	case ge.Code == http.StatusUnauthorized || ge.Code == http.StatusForbidden:
		out = fmt.Errorf("%w: access to gcs bucket %q was denied (check the service account and its storage.objects.list and storage.objects.get permissions)", connectors.ErrConnect, s.name)
	case ge.Code == http.StatusBadRequest:
		out = fmt.Errorf("%w: gcs rejected the request for bucket %q", connectors.ErrInvalid, s.name)
	default:
		out = fmt.Errorf("%w: gcs bucket %q answered HTTP %d", connectors.ErrConnect, s.name, ge.Code)
	}
	return connectors.Scrub(out, s.secret)
}

// parseEndpoint accepts an http(s) URL without user info, query or
// fragment; an empty path becomes /storage/v1/.
func parseEndpoint(raw string) (string, error) {
	u, err := connectors.ParseEndpoint("gcs", raw, "http://localhost:4443/storage/v1/")
	if u == nil {
		return "", err
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/storage/v1/"
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}
