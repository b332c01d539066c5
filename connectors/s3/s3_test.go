package s3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

const (
	bucket    = "dqs-src"
	keyID     = "AKIDDQSTEST"
	secretKey = "s3cr3t-Do-Not-Leak-9f8e7d"
)

// isolateAWSEnv keeps the machine's AWS configuration out of the tests.
func isolateAWSEnv(t *testing.T) {
	none := filepath.Join(t.TempDir(), "none")
	t.Setenv("AWS_CONFIG_FILE", none)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, k := range []string{"AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
		"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"} {
		t.Setenv(k, "")
	}
}

// requireKey stands in for S3's authentication, which gofakes3 does not
// check at all (it neither verifies SigV4 signatures nor knows any keys):
// a request not signed with keyID is answered as S3 answers an unknown
// key, 403 InvalidAccessKeyId. The signature itself stays unverified.
func requireKey(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Authorization"), "Credential="+keyID+"/") {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusForbidden)
			if r.Method != http.MethodHead {
				io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidAccessKeyId</Code><Message>The AWS Access Key Id you provided does not exist in our records.</Message></Error>`)
			}
			return
		}
		h.ServeHTTP(w, r)
	})
}

// fakeS3 runs gofakes3 (in-memory backend) on a real local listener.
func fakeS3(t *testing.T) (*httptest.Server, *s3mem.Backend) {
	t.Helper()
	isolateAWSEnv(t)
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(requireKey(gofakes3.New(backend).Server()))
	t.Cleanup(srv.Close)
	return srv, backend
}

func put(t *testing.T, b *s3mem.Backend, key string, data []byte) {
	t.Helper()
	if _, err := b.PutObject(bucket, key, map[string]string{}, bytes.NewReader(data), int64(len(data)), nil); err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
}

func creds(endpoint string, kv ...string) connectors.Credentials {
	c := connectors.Credentials{
		"bucket": bucket, "region": "eu-west-1", "endpoint": endpoint,
		"access_key_id": keyID, "secret_access_key": secretKey,
	}
	for i := 0; i+1 < len(kv); i += 2 {
		c[kv[i]] = kv[i+1]
	}
	return c
}

func noSecret(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), secretKey) {
		t.Errorf("error carries the secret: %v", err)
	}
}

func TestConformance(t *testing.T) {
	srv, backend := fakeS3(t)
	defer func(p int32) { pageSize = p }(pageSize)
	pageSize = 2 // several ListObjectsV2 pages

	connectortest.RunObjectStore(t, func(key string, data []byte) { put(t, backend, key, data) },
		func(d connectors.Dialer) (connectors.ObjectSource, error) {
			return Open(t.Context(), connectors.Options{Credentials: creds(srv.URL, "prefix", "data"), Dialer: d})
		})
}

func TestETagAndLastModified(t *testing.T) {
	srv, backend := fakeS3(t)
	before := time.Now().Add(-time.Minute)
	put(t, backend, "k/v1.csv", []byte("a\n1\n"))
	s := connectortest.MustOpen(t, Open, creds(srv.URL, "prefix", "/k/"))
	first := connectortest.CheckETagChanges(t, s, func() { put(t, backend, "k/v1.csv", []byte("a\n2\n")) })
	if first.LastModified.Before(before) || strings.Contains(first.ETag, `"`) {
		t.Errorf("listed %+v", first)
	}
}

func TestHTTPClientOption(t *testing.T) {
	srv, backend := fakeS3(t)
	put(t, backend, "x.csv", []byte("x"))
	var used atomic.Bool
	hc := &http.Client{Transport: connectortest.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		used.Store(true)
		return http.DefaultTransport.RoundTrip(r)
	})}
	s, err := Open(t.Context(), connectors.Options{Credentials: creds(srv.URL), HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if l, err := s.List(t.Context()); err != nil || len(l) != 1 {
		t.Fatalf("List = %v, %v", l, err)
	}
	if !used.Load() {
		t.Error("Options.HTTPClient not used")
	}
}

func TestDefaultCredentialChain(t *testing.T) {
	srv, backend := fakeS3(t)
	put(t, backend, "x.csv", []byte("x"))
	t.Setenv("AWS_ACCESS_KEY_ID", keyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
	s := connectortest.MustOpen(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL})
	if l, err := s.List(t.Context()); err != nil || len(l) != 1 {
		t.Fatalf("List = %v, %v", l, err)
	}
}

func TestMissingBucket(t *testing.T) {
	srv, _ := fakeS3(t)
	_, err := connectortest.Open(t, Open, creds(srv.URL, "bucket", "no-such-bucket"), 0)
	if !errors.Is(err, connectors.ErrNotFound) || !strings.Contains(err.Error(), "no-such-bucket") {
		t.Fatalf("Open = %v, want ErrNotFound naming the bucket", err)
	}
	noSecret(t, err)
	t.Log(err)
}

func TestWrongKeys(t *testing.T) {
	srv, _ := fakeS3(t)
	_, err := connectortest.Open(t, Open, creds(srv.URL, "access_key_id", "AKIDWRONG"), 0)
	if !errors.Is(err, connectors.ErrConnect) {
		t.Fatalf("Open = %v, want ErrConnect", err)
	}
	if strings.Contains(err.Error(), "AKIDWRONG") {
		t.Errorf("error carries the key id: %v", err)
	}
	noSecret(t, err)
	t.Log(err)
}

func TestUnreachable(t *testing.T) {
	isolateAWSEnv(t)
	addr := connectortest.ClosedAddr(t)
	err := connectortest.FailsWithin(t, "Open", 9*time.Second, func() error {
		_, err := connectortest.Open(t, Open, creds("http://"+addr), 10*time.Second)
		return err
	}, connectors.ErrConnect)
	noSecret(t, err)
	t.Log(err)
}

// TestTimeout: a server that accepts and never answers fails the call
// after Options.Timeout.
func TestTimeout(t *testing.T) {
	isolateAWSEnv(t)
	hang := connectortest.HangingServer(t)
	err := connectortest.FailsWithin(t, "Open", 5*time.Second, func() error {
		_, err := connectortest.Open(t, Open, creds(hang.URL), 300*time.Millisecond)
		return err
	}, connectors.ErrConnect, context.DeadlineExceeded)
	noSecret(t, err)
	t.Log(err)
}

// TestStreamOutlivesTimeout: the per-call timeout bounds obtaining the
// object, not reading it.
func TestStreamOutlivesTimeout(t *testing.T) {
	srv, backend := fakeS3(t)
	data := connectortest.RandomBytes(4 << 20)
	put(t, backend, "big.csv", data)
	s, err := connectortest.Open(t, Open, creds(srv.URL), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	connectortest.CheckStreamOutlivesTimeout(t, s, 300*time.Millisecond, "big.csv", data)
}

func TestCancelMidStream(t *testing.T) {
	srv, backend := fakeS3(t)
	put(t, backend, "big.csv", connectortest.RandomBytes(8<<20))
	s := connectortest.MustOpen(t, Open, creds(srv.URL))
	connectortest.CheckCancelMidStream(t, s, "big.csv")
}

func TestInvalidSettings(t *testing.T) {
	isolateAWSEnv(t)
	connectortest.CheckInvalidSettings(t, Open, map[string]connectors.Credentials{
		"no bucket":       {"access_key_id": keyID, "secret_access_key": secretKey},
		"bad bucket":      {"bucket": "a/b", "access_key_id": keyID, "secret_access_key": secretKey},
		"key id alone":    {"bucket": bucket, "access_key_id": keyID},
		"secret alone":    {"bucket": bucket, "secret_access_key": secretKey},
		"bad region":      {"bucket": bucket, "region": "eu west"},
		"endpoint scheme": {"bucket": bucket, "endpoint": "ftp://x"},
		"endpoint user":   {"bucket": bucket, "endpoint": "https://u:" + secretKey + "@s3.example.com", "access_key_id": keyID, "secret_access_key": secretKey},
	}, noSecret)
	if _, err := Open(t.Context(), connectors.Options{Credentials: connectors.Credentials{"bucket": bucket}}); !errors.Is(err, connectors.ErrInvalid) {
		t.Errorf("Open without a dialer = %v, want ErrInvalid", err)
	}
}

func TestTooManyObjects(t *testing.T) {
	srv, backend := fakeS3(t)
	defer func(m int) { maxObjects = m }(maxObjects)
	maxObjects = 3
	for _, k := range []string{"a.csv", "b.csv", "c.csv", "d.csv"} {
		put(t, backend, k, []byte("x"))
	}
	s := connectortest.MustOpen(t, Open, creds(srv.URL))
	if _, err := s.List(t.Context()); !errors.Is(err, connectors.ErrInvalid) {
		t.Fatalf("List = %v, want ErrInvalid", err)
	}
}

// TestRangeRequests: Open sends the Range header S3 expects (none for the
// whole object), gets 206 for a range, and returns S3's 416 InvalidRange
// for an offset at or beyond the end, and for any range of an empty
// object, as an empty stream.
func TestRangeRequests(t *testing.T) {
	isolateAWSEnv(t)
	backend := s3mem.New()
	if err := backend.CreateBucket(bucket); err != nil {
		t.Fatal(err)
	}
	fake := requireKey(gofakes3.New(backend).Server())
	handler, rr := connectortest.RecordRanges(fake, func(r *http.Request) bool { return strings.HasSuffix(r.URL.Path, ".csv") })
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	put(t, backend, "r.csv", connectortest.RangeData)
	put(t, backend, "empty.csv", nil)
	s := connectortest.MustOpen(t, Open, creds(srv.URL))

	connectortest.CheckRangeRequests(t, s, rr)
}
