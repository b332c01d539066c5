package emulators

import (
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	blobs3 "github.com/dqs/dqs/blob/s3"
)

// The S3 credentials and region StartS3's stores use. gofakes3 accepts
// any; the SDK signs with them, and presigned URLs carry S3AccessKeyID.
const (
	S3AccessKeyID     = "AKIDTEST"
	S3SecretAccessKey = "secret"
	S3Region          = "eu-west-1"
)

// IsolateAWSEnv keeps the developer's or CI's AWS configuration
// (profiles, endpoint overrides, credentials) out of the test.
func IsolateAWSEnv(t testing.TB) {
	t.Helper()
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	for _, k := range []string{"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		t.Setenv(k, "")
	}
}

// S3 is a running S3-compatible server holding the bucket Bucket.
type S3 struct {
	// URL is the server's base URL (http://127.0.0.1:port), the endpoint
	// of path-style requests.
	URL string
	// Backend is the server's in-memory storage, to look at objects
	// without going through S3.
	Backend *s3mem.Backend
}

// StartS3 isolates the test from the machine's AWS configuration and
// starts gofakes3 with the in-memory backend behind a real HTTP server, so
// requests go through the SDK's full HTTP stack (signing, multipart,
// presigning). gofakes3 verifies neither signatures nor the expiry of
// presigned URLs.
func StartS3(t testing.TB) *S3 {
	t.Helper()
	IsolateAWSEnv(t)
	backend := s3mem.New()
	if err := backend.CreateBucket(Bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return &S3{URL: srv.URL, Backend: backend}
}

// Config is the blob/s3 configuration of a store on the server's bucket,
// path style, under prefix.
func (s *S3) Config(prefix string) blobs3.Config {
	return blobs3.Config{
		Bucket:          Bucket,
		Prefix:          prefix,
		Region:          S3Region,
		Endpoint:        s.URL,
		AccessKeyID:     S3AccessKeyID,
		SecretAccessKey: S3SecretAccessKey,
		UsePathStyle:    true,
	}
}

// Store is the project's S3 blob store (the official AWS SDK) on the
// server's bucket, under prefix.
func (s *S3) Store(t testing.TB, prefix string) *blobs3.Store {
	t.Helper()
	st, err := blobs3.New(t.Context(), s.Config(prefix))
	if err != nil {
		t.Fatalf("blob/s3: New: %v", err)
	}
	return st
}
