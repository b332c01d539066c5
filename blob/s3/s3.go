// Package s3 implements blob.Store on Amazon S3 and S3-compatible object
// stores (MinIO, Ceph RGW, R2, ...), using the AWS SDK for Go v2.
//
// Put uses the feature/s3/manager Uploader, which splits the stream into
// parts and uploads them as a multipart upload: memory use is bounded by
// PartSize × Concurrency per upload instead of the object size, and a failed
// or cancelled upload is aborted so no partial object becomes visible.
// (The manager package is marked deprecated in favour of
// feature/s3/transfermanager; it is still maintained and is what this
// module depends on.)
//
// Downloads are presigned GET URLs (SigV4 query authentication) carrying
// response-content-disposition, so the browser saves the file under its
// original name while the bytes never pass through the API.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/internal/rangeio"
)

var _ blob.Store = (*Store)(nil)

// Upload tuning. 8 MiB parts × 4 in flight caps a single upload at about
// 32 MiB of buffers whatever the file size, and allows objects up to
// 8 MiB × 10,000 parts ≈ 78 GiB.
const (
	PartSize    = 8 << 20
	Concurrency = 4
)

// Config selects the bucket and how to reach it.
type Config struct {
	// Bucket is required.
	Bucket string
	// Prefix is prepended to every key (a "/" separator is added when
	// missing), letting several deployments share one bucket.
	Prefix string
	// Region defaults to the SDK's default chain (AWS_REGION, shared
	// config), or "us-east-1" when an Endpoint is set and none is found.
	Region string
	// Endpoint overrides the S3 endpoint URL for S3-compatible stores and
	// tests. When set, the SDK's automatic CRC checksums are limited to
	// operations that require them, since many S3-compatible servers do not
	// understand the newer flexible-checksum headers.
	Endpoint string
	// AccessKeyID and SecretAccessKey select static credentials. When both
	// are empty the SDK default chain is used (env, shared config, web
	// identity, ECS/EC2 roles), which is what production on AWS should use.
	AccessKeyID     string
	SecretAccessKey string
	// UsePathStyle addresses buckets as endpoint/bucket/key instead of
	// bucket.endpoint/key; most S3-compatible servers need it.
	UsePathStyle bool
}

// Store is an S3-backed blob.Store.
type Store struct {
	client   *s3.Client
	presign  *s3.PresignClient
	uploader *manager.Uploader
	bucket   string
	prefix   string
}

// New builds the client. It does not contact S3, so it succeeds even if the
// bucket is unreachable; the first operation reports such problems.
func New(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Bucket == "" {
		return nil, errors.New("blob/s3: empty bucket")
	}
	if (cfg.AccessKeyID == "") != (cfg.SecretAccessKey == "") {
		return nil, errors.New("blob/s3: AccessKeyID and SecretAccessKey must be set together")
	}
	var opts []func(*config.LoadOptions) error
	if cfg.Region != "" {
		opts = append(opts, config.WithRegion(cfg.Region))
	}
	if cfg.AccessKeyID != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, "")))
	}
	if cfg.Endpoint != "" {
		opts = append(opts,
			config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
			config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("blob/s3: load config: %w", err)
	}
	if awsCfg.Region == "" {
		if cfg.Endpoint == "" {
			return nil, errors.New("blob/s3: no region configured")
		}
		awsCfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		o.UsePathStyle = cfg.UsePathStyle
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
		}
	})
	uploader := manager.NewUploader(client, func(u *manager.Uploader) {
		u.PartSize = PartSize
		u.Concurrency = Concurrency
		u.LeavePartsOnError = false // abort: never leave billable orphan parts
		if cfg.Endpoint != "" {
			u.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
		}
	})
	prefix := strings.Trim(cfg.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	return &Store{
		client:   client,
		presign:  s3.NewPresignClient(client),
		uploader: uploader,
		bucket:   cfg.Bucket,
		prefix:   prefix,
	}, nil
}

// Client exposes the underlying SDK client (e.g. for health checks).
func (s *Store) Client() *s3.Client { return s.client }

func (s *Store) objectKey(key string) (string, error) {
	if err := blob.ValidateKey(key); err != nil {
		return "", err
	}
	return s.prefix + key, nil
}

// Put streams r to S3 through the multipart uploader. r is deliberately
// wrapped (hiding any io.Seeker) so the uploader reads it sequentially part
// by part rather than probing its length.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, contentType string) (int64, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return 0, err
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	cr := &blob.CountingReader{R: r}
	_, err = s.uploader.Upload(ctx, &s3.PutObjectInput{
		Bucket:      aws.String(s.bucket),
		Key:         aws.String(k),
		Body:        cr,
		ContentType: aws.String(contentType),
	})
	if err != nil {
		return cr.N, fmt.Errorf("blob/s3: put %q: %w", key, err)
	}
	return cr.N, nil
}

// Open streams the object body.
func (s *Store) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)})
	if err != nil {
		return nil, mapErr("open", key, err)
	}
	return out.Body, nil
}

// OpenRange streams part of the object with a ranged GET ("bytes=off-" or
// "bytes=off-end"). The whole object (offset 0, to the end) is asked for
// without a Range header, since S3 refuses any range on an empty object.
// S3 answers 416 InvalidRange for a range starting at or after the end (and
// for any range of an empty object); that becomes an empty stream once a
// HEAD has shown the object exists. Length 0 is just that HEAD.
func (s *Store) OpenRange(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return nil, err
	}
	length, err = blob.CheckRange(offset, length)
	if err != nil {
		return nil, fmt.Errorf("blob/s3: open %q: %w", key, err)
	}
	if length == 0 {
		return s.empty(ctx, key, k)
	}
	in := &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)}
	switch {
	case length < 0 && offset == 0:
		// The whole object: no Range.
	case length < 0:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", offset))
	default:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", offset, offset+length-1))
	}
	out, err := s.client.GetObject(ctx, in)
	if err != nil {
		if ctx.Err() == nil && notSatisfiable(err) {
			return s.empty(ctx, key, k)
		}
		return nil, mapErr("open", key, err)
	}
	if in.Range != nil && aws.ToString(out.ContentRange) == "" {
		// The server ignored the Range and sent the whole object.
		return rangeio.Cut(out.Body, offset, length), nil
	}
	return out.Body, nil
}

// empty returns an empty stream if the object exists (HEAD).
func (s *Store) empty(ctx context.Context, key, k string) (io.ReadCloser, error) {
	_, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)})
	if err != nil {
		return nil, mapErr("open", key, err)
	}
	return http.NoBody, nil
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

// Stat issues a HEAD request.
func (s *Store) Stat(ctx context.Context, key string) (blob.Info, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return blob.Info{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)})
	if err != nil {
		return blob.Info{}, mapErr("stat", key, err)
	}
	return blob.Info{
		Key:      key,
		Size:     aws.ToInt64(out.ContentLength),
		ETag:     strings.Trim(aws.ToString(out.ETag), `"`),
		Modified: aws.ToTime(out.LastModified),
	}, nil
}

// Delete removes the object. S3 itself answers 204 for missing keys; a
// NoSuchKey from stricter compatible servers is also treated as success.
func (s *Store) Delete(ctx context.Context, key string) error {
	k, err := s.objectKey(key)
	if err != nil {
		return err
	}
	_, err = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)})
	if err := mapErr("delete", key, err); err != nil && !errors.Is(err, blob.ErrNotFound) {
		return err
	}
	return nil
}

// SignedURL presigns a GET valid for ttl (at most 7 days, the SigV4 limit)
// that makes S3 answer with Content-Disposition: attachment. The signature
// is computed locally; no request is sent. Note that with temporary
// credentials (roles) the URL also stops working when the session expires.
func (s *Store) SignedURL(ctx context.Context, key string, ttl time.Duration, filename string) (string, error) {
	k, err := s.objectKey(key)
	if err != nil {
		return "", err
	}
	if err := blob.ValidateTTL(ttl); err != nil {
		return "", err
	}
	req, err := s.presign.PresignGetObject(ctx, &s3.GetObjectInput{
		Bucket:                     aws.String(s.bucket),
		Key:                        aws.String(k),
		ResponseContentDisposition: aws.String(blob.ContentDisposition(filename)),
	}, s3.WithPresignExpires(ttl))
	if err != nil {
		return "", fmt.Errorf("blob/s3: presign %q: %w", key, err)
	}
	return req.URL, nil
}

// mapErr turns "no such object" API errors into blob.ErrNotFound. HEAD
// responses carry no body, so S3 reports them as the generic "NotFound".
func mapErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%w: %q", blob.ErrNotFound, key)
		}
	}
	return fmt.Errorf("blob/s3: %s %q: %w", op, key, err)
}
