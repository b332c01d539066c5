// Package s3 is the object-store connector for Amazon S3 and S3-compatible
// stores (MinIO, Ceph RGW, R2, ...), on the AWS SDK for Go v2.
//
// Credentials (connectors.Credentials): bucket (required), prefix,
// region (default DefaultRegion), access_key_id and secret_access_key
// (both or neither: neither uses the SDK's default credential chain, i.e.
// the server's role), endpoint (an http(s) URL for an S3-compatible
// store; buckets are then addressed path-style).
//
// The connector only reads: it needs s3:ListBucket (ListObjectsV2 and
// HeadBucket) and s3:GetObject on the bucket.
//
// The prefix is a folder: "data" and "data/" both select the keys under
// "data/" (not "database/..."). List returns the objects under it whose
// extension the readers accept (SupportedExtension); Open refuses any key
// outside it, and any key with a "." or ".." segment, as not found.
//
// Every request to the store goes through Options.Dialer (or
// Options.HTTPClient). When the default credential chain is used, the
// SDK's own credential providers (instance metadata, STS, ECS) reach the
// operator's infrastructure with the SDK's default client, not through
// the Dialer: those addresses come from the server's environment, never
// from the user.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/dqs/dqs/connectors"
)

var _ connectors.ObjectSource = (*Source)(nil)

// DefaultRegion is the region when the credentials name none.
const DefaultRegion = "eu-north-1"

// MaxObjects bounds the objects List returns: a prefix holding more
// supported objects fails with connectors.ErrInvalid (narrow the prefix)
// rather than returning a truncated list, which would make the objects
// left out look deleted. MaxScanned bounds the keys List pages through
// (unsupported ones included) for the same reason.
const (
	MaxObjects = 100_000
	MaxScanned = 1_000_000
)

// pageSize is the ListObjectsV2 page size and maxObjects MaxObjects;
// tests lower them.
var (
	pageSize   int32 = 1000
	maxObjects       = MaxObjects
)

// Source is an S3 bucket (under a prefix) as a connectors.ObjectSource.
type Source struct {
	client    *s3.Client
	bucket    string
	prefix    string
	timeout   time.Duration
	transport *http.Transport // ours to close; nil with Options.HTTPClient
}

// Open checks the settings, builds the client and checks the bucket
// exists (HeadBucket): connectors.ErrNotFound for a missing bucket,
// connectors.ErrConnect for one that cannot be reached or is denied,
// connectors.ErrInvalid for incomplete settings.
func Open(ctx context.Context, opts connectors.Options) (*Source, error) {
	c := opts.Credentials
	bucket, err := connectors.BucketName("s3", c["bucket"])
	if err != nil {
		return nil, err
	}
	keyID, secret := strings.TrimSpace(c["access_key_id"]), strings.TrimSpace(c["secret_access_key"])
	if (keyID == "") != (secret == "") {
		return nil, fmt.Errorf("%w: s3 access_key_id and secret_access_key go together (give both, or neither to use the server's role)", connectors.ErrInvalid)
	}
	region := strings.TrimSpace(c["region"])
	if region == "" {
		region = DefaultRegion
	}
	if !validRegion.MatchString(region) {
		return nil, fmt.Errorf("%w: s3 region %q is not valid", connectors.ErrInvalid, connectors.Clip(region, 200))
	}
	endpoint, err := parseEndpoint(c["endpoint"])
	if err != nil {
		return nil, err
	}
	if opts.HTTPClient == nil && opts.Dialer == nil {
		return nil, fmt.Errorf("%w: no dialer for s3", connectors.ErrInvalid)
	}
	timeout := opts.CallTimeout()

	loadOpts := []func(*config.LoadOptions) error{config.WithRegion(region)}
	if keyID != "" {
		loadOpts = append(loadOpts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(keyID, secret, "")))
	}
	if endpoint != "" {
		// Many S3-compatible servers do not understand the flexible
		// checksum headers.
		loadOpts = append(loadOpts,
			config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, loadOpts...)
	if err != nil {
		// The message may name the server's shared config files; none of
		// it comes from the user's credentials.
		return nil, fmt.Errorf("%w: s3 client configuration failed", connectors.ErrInvalid)
	}

	s := &Source{bucket: bucket, prefix: connectors.FolderPrefix(c["prefix"]), timeout: timeout}
	var hc aws.HTTPClient
	if opts.HTTPClient != nil {
		hc = opts.HTTPClient
	} else {
		s.transport = connectors.NewTransport(opts.Dialer.DialContext, timeout)
		hc = &http.Client{
			Transport: s.transport,
			// S3 answers a wrong region with an error, not a redirect
			// worth following; never follow one elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
	}
	s.client = s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		o.HTTPClient = hc
		o.Region = region
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
			o.UsePathStyle = true
		}
	})

	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if _, err := s.client.HeadBucket(hctx, &s3.HeadBucketInput{Bucket: aws.String(bucket)}); err != nil {
		s.Close()
		return nil, s.mapErr(ctx, hctx, "open", err, secret)
	}
	return s, nil
}

// Close releases idle connections.
func (s *Source) Close() error {
	connectors.CloseIdle(s.transport)
	return nil
}

// List returns the supported objects under the prefix, sorted by key,
// within one Options.Timeout.
func (s *Source) List(ctx context.Context) ([]connectors.Table, error) {
	lctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	in := &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), MaxKeys: aws.Int32(pageSize)}
	if s.prefix != "" {
		in.Prefix = aws.String(s.prefix)
	}
	p := s3.NewListObjectsV2Paginator(s.client, in)
	var out []connectors.Table
	scanned := 0
	for p.HasMorePages() {
		page, err := p.NextPage(lctx)
		if err != nil {
			return nil, s.mapErr(ctx, lctx, "list", err, "")
		}
		for _, o := range page.Contents {
			scanned++
			key := aws.ToString(o.Key)
			if !connectors.KeyUnder(s.prefix, key) || !connectors.SupportedExtension(key) {
				continue
			}
			if len(out) == maxObjects {
				return nil, fmt.Errorf("%w: more than %d supported objects under the prefix of s3 bucket %q; narrow the prefix", connectors.ErrInvalid, maxObjects, s.bucket)
			}
			out = append(out, connectors.Table{
				Name:         key,
				SizeBytes:    aws.ToInt64(o.Size),
				ETag:         strings.Trim(aws.ToString(o.ETag), `"`),
				LastModified: aws.ToTime(o.LastModified).UTC(),
			})
		}
		if scanned > MaxScanned {
			return nil, fmt.Errorf("%w: more than %d objects under the prefix of s3 bucket %q; narrow the prefix", connectors.ErrInvalid, MaxScanned, s.bucket)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Open streams length bytes of one object from offset (length < 0: to
// the end), as connectors.ObjectSource.Open says: a GetObject with a Range
// header ("bytes=off-" or "bytes=off-end"; none for the whole object).
// S3 answers an offset at or beyond the end (and any range of an empty
// object) with 416 InvalidRange, which Open returns as an empty stream;
// length 0 asks for one byte, to learn that the object exists, and returns
// an empty stream. Options.Timeout bounds obtaining the object (up to the
// response headers); the body then streams for as long as ctx lives.
func (s *Source) Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	if !connectors.KeyUnder(s.prefix, key) {
		return nil, fmt.Errorf("%w: object %q is not under the source's prefix", connectors.ErrNotFound, connectors.Clip(key, 200))
	}
	if offset < 0 {
		return nil, fmt.Errorf("%w: s3 read of object %q from negative offset %d", connectors.ErrInvalid, connectors.Clip(key, 200), offset)
	}
	probe := length == 0
	if probe {
		length = 1
	}
	in := &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(key)}
	if r := byteRange(offset, length); r != "" {
		in.Range = aws.String(r)
	}
	body, octx, err := connectors.OpenWithin(ctx, s.timeout, func(octx context.Context) (io.ReadCloser, error) {
		out, err := s.client.GetObject(octx, in)
		if err != nil {
			return nil, err
		}
		return out.Body, nil
	})
	if err != nil {
		var nk interface{ ErrorCode() string }
		if errors.As(err, &nk) && (nk.ErrorCode() == "NoSuchKey" || nk.ErrorCode() == "NotFound") {
			return nil, fmt.Errorf("%w: object %q in s3 bucket %q", connectors.ErrNotFound, connectors.Clip(key, 200), s.bucket)
		}
		if ctx.Err() == nil && notSatisfiable(err) {
			return http.NoBody, nil
		}
		return nil, s.mapErr(ctx, octx, "read", err, "")
	}
	if probe {
		body.Close()
		return http.NoBody, nil
	}
	return body, nil
}

// byteRange is the Range header of length bytes from offset (length < 0:
// to the end); "" for the whole object, which S3 serves for an empty
// object too, where it refuses any range.
func byteRange(offset, length int64) string {
	switch {
	case length < 0 && offset == 0:
		return ""
	case length < 0:
		return fmt.Sprintf("bytes=%d-", offset)
	case length > math.MaxInt64-offset:
		// Past any object's end: to the end is the same range.
		return fmt.Sprintf("bytes=%d-", offset)
	default:
		return fmt.Sprintf("bytes=%d-%d", offset, offset+length-1)
	}
}

// notSatisfiable reports S3's answer to a range starting at or beyond the
// object's end: 416 InvalidRange.
func notSatisfiable(err error) bool {
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusRequestedRangeNotSatisfiable {
		return true
	}
	var ae smithy.APIError
	return errors.As(err, &ae) && ae.ErrorCode() == "InvalidRange"
}

// mapErr turns an SDK error into a short message wrapping a connectors
// sentinel. Nothing of the SDK's own message is kept (it may quote the
// endpoint's answer); only a letters-only S3 error code is.
func (s *Source) mapErr(parent, call context.Context, op string, err error, secret string) error {
	if parent.Err() != nil {
		return fmt.Errorf("s3 %s stopped: %w", op, context.Cause(parent))
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(call), context.DeadlineExceeded) {
		return fmt.Errorf("%w: s3 bucket %q did not answer within %s: %w", connectors.ErrConnect, s.bucket, s.timeout, context.DeadlineExceeded)
	}
	var se *v4.SigningError
	if errors.As(err, &se) {
		return fmt.Errorf("%w: no credentials for s3 bucket %q: give access_key_id and secret_access_key, or give the server a role", connectors.ErrConnect, s.bucket)
	}
	status := 0
	var re interface{ HTTPStatusCode() int }
	if errors.As(err, &re) {
		status = re.HTTPStatusCode()
	}
	code := ""
	var ae smithy.APIError
	if errors.As(err, &ae) && validCode.MatchString(ae.ErrorCode()) {
		code = ae.ErrorCode()
	}
	var out error
	switch {
	case status == 0:
		out = fmt.Errorf("%w: s3 bucket %q is unreachable", connectors.ErrConnect, s.bucket)
	case status == http.StatusNotFound || code == "NoSuchBucket":
		out = fmt.Errorf("%w: s3 bucket %q does not exist", connectors.ErrNotFound, s.bucket)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		out = fmt.Errorf("%w: access to s3 bucket %q was denied%s (check the keys and the ListBucket and GetObject permissions)", connectors.ErrConnect, s.bucket, codeText(code))
	case status == http.StatusMovedPermanently || code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed":
		out = fmt.Errorf("%w: s3 bucket %q is not in the region given%s", connectors.ErrInvalid, s.bucket, codeText(code))
	case code == "InvalidBucketName":
		out = fmt.Errorf("%w: s3 bucket name %q is not valid", connectors.ErrInvalid, s.bucket)
	default:
		out = fmt.Errorf("%w: s3 bucket %q answered HTTP %d%s", connectors.ErrConnect, s.bucket, status, codeText(code))
	}
	return connectors.Scrub(out, secret)
}

func codeText(code string) string {
	if code == "" {
		return ""
	}
	return " (" + code + ")"
}

var (
	validRegion = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)
	// An S3 error code is letters; anything else (an echoed key id) is
	// not repeated.
	validCode = regexp.MustCompile(`^[A-Za-z.]{1,64}$`)
)

// parseEndpoint accepts an http(s) URL without user info, query or
// fragment.
func parseEndpoint(raw string) (string, error) {
	u, err := connectors.ParseEndpoint("s3", raw, "https://s3.example.com")
	if u == nil {
		return "", err
	}
	return strings.TrimRight(u.String(), "/"), nil
}
