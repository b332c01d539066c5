package s3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"net"
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

// countingDialer is a net.Dialer that counts its dials, proving the
// connector's connections go through Options.Dialer.
type countingDialer struct {
	d     net.Dialer
	dials atomic.Int64
}

func (c *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c.dials.Add(1)
	return c.d.DialContext(ctx, network, addr)
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

func open(t *testing.T, c connectors.Credentials, timeout time.Duration) (*Source, error) {
	t.Helper()
	s, err := Open(t.Context(), connectors.Options{Credentials: c, Dialer: &net.Dialer{}, Timeout: timeout})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

func mustOpen(t *testing.T, c connectors.Credentials) *Source {
	t.Helper()
	s, err := open(t, c, 0)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s
}

func noSecret(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.Contains(err.Error(), secretKey) {
		t.Errorf("error carries the secret: %v", err)
	}
}

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestConformance(t *testing.T) {
	srv, backend := fakeS3(t)
	defer func(p int32) { pageSize = p }(pageSize)
	pageSize = 2 // several ListObjectsV2 pages

	want := map[string][]byte{
		"data/a.csv":            []byte("id,name\n1,x\n"),
		"data/sub/b.parquet":    []byte("PAR1....PAR1"),
		"data/sub/deep/c.JSONL": []byte(`{"a":1}` + "\n"),
		"data/d.tsv":            []byte("a\tb\n"),
		"data/e.json":           []byte(`[{"a":1}]`),
		"data/f.ndjson":         []byte(`{"b":2}`),
		"data/g.txt":            []byte("x\n"),
		"data/empty.csv":        {},
		"data/big.csv":          randomBytes(3<<20 + 17),
		"data/ünïcode name.csv": []byte("u\n1\n"),
	}
	for k, v := range want {
		put(t, backend, k, v)
	}
	hidden := map[string][]byte{
		"data/notes.pdf":      []byte("%PDF"),
		"data/archive.csv.gz": []byte("\x1f\x8b"),
		"data/README":         []byte("readme"),
		"data/dir/":           {},
		"data/../escape.csv":  []byte("no"),
		"database/y.csv":      []byte("outside"),
		"other/x.csv":         []byte("outside"),
		"root.csv":            []byte("outside"),
	}
	for k, v := range hidden {
		put(t, backend, k, v)
	}
	dialer := &countingDialer{}
	s, err := Open(t.Context(), connectors.Options{Credentials: creds(srv.URL, "prefix", "data"), Dialer: dialer})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer s.Close()
	connectortest.RunObjectSource(t, s, want, "database/y.csv", "other/x.csv", "root.csv", "data/../escape.csv")
	if dialer.dials.Load() == 0 {
		t.Error("no connection went through Options.Dialer")
	}
}

func TestETagAndLastModified(t *testing.T) {
	srv, backend := fakeS3(t)
	before := time.Now().Add(-time.Minute)
	put(t, backend, "k/v1.csv", []byte("a\n1\n"))
	s := mustOpen(t, creds(srv.URL, "prefix", "/k/"))
	l1, err := s.List(t.Context())
	if err != nil || len(l1) != 1 {
		t.Fatalf("List = %v, %v", l1, err)
	}
	if l1[0].LastModified.Before(before) || strings.Contains(l1[0].ETag, `"`) {
		t.Errorf("listed %+v", l1[0])
	}
	put(t, backend, "k/v1.csv", []byte("a\n2\n"))
	l2, err := s.List(t.Context())
	if err != nil || len(l2) != 1 {
		t.Fatalf("List = %v, %v", l2, err)
	}
	if l2[0].ETag == l1[0].ETag {
		t.Errorf("ETag unchanged after the object changed: %q", l2[0].ETag)
	}
}

func TestHTTPClientOption(t *testing.T) {
	srv, backend := fakeS3(t)
	put(t, backend, "x.csv", []byte("x"))
	var used atomic.Bool
	hc := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
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

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestDefaultCredentialChain(t *testing.T) {
	srv, backend := fakeS3(t)
	put(t, backend, "x.csv", []byte("x"))
	t.Setenv("AWS_ACCESS_KEY_ID", keyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", secretKey)
	s := mustOpen(t, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL})
	if l, err := s.List(t.Context()); err != nil || len(l) != 1 {
		t.Fatalf("List = %v, %v", l, err)
	}
}

func TestMissingBucket(t *testing.T) {
	srv, _ := fakeS3(t)
	_, err := open(t, creds(srv.URL, "bucket", "no-such-bucket"), 0)
	if !errors.Is(err, connectors.ErrNotFound) || !strings.Contains(err.Error(), "no-such-bucket") {
		t.Fatalf("Open = %v, want ErrNotFound naming the bucket", err)
	}
	noSecret(t, err)
	t.Log(err)
}

func TestWrongKeys(t *testing.T) {
	srv, _ := fakeS3(t)
	_, err := open(t, creds(srv.URL, "access_key_id", "AKIDWRONG"), 0)
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	start := time.Now()
	_, err = open(t, creds("http://"+addr), 10*time.Second)
	if !errors.Is(err, connectors.ErrConnect) {
		t.Fatalf("Open = %v, want ErrConnect", err)
	}
	noSecret(t, err)
	t.Log(err)
	if d := time.Since(start); d > 9*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestTimeout: a server that accepts and never answers fails the call
// after Options.Timeout.
func TestTimeout(t *testing.T) {
	isolateAWSEnv(t)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	defer hang.Close()
	defer hang.CloseClientConnections()
	start := time.Now()
	_, err := open(t, creds(hang.URL), 300*time.Millisecond)
	if !errors.Is(err, connectors.ErrConnect) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Open = %v, want ErrConnect and DeadlineExceeded", err)
	}
	noSecret(t, err)
	t.Log(err)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}

// TestStreamOutlivesTimeout: the per-call timeout bounds obtaining the
// object, not reading it.
func TestStreamOutlivesTimeout(t *testing.T) {
	srv, backend := fakeS3(t)
	data := randomBytes(4 << 20)
	put(t, backend, "big.csv", data)
	s, err := open(t, creds(srv.URL), 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := s.Open(t.Context(), "big.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	head := make([]byte, 1024)
	if _, err := io.ReadFull(rc, head); err != nil {
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	rest, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("reading after the timeout: %v", err)
	}
	if !bytes.Equal(append(head, rest...), data) {
		t.Error("content differs")
	}
}

func TestCancelMidStream(t *testing.T) {
	srv, backend := fakeS3(t)
	put(t, backend, "big.csv", randomBytes(8<<20))
	s := mustOpen(t, creds(srv.URL))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rc, err := s.Open(ctx, "big.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if _, err := io.ReadFull(rc, make([]byte, 1024)); err != nil {
		t.Fatal(err)
	}
	cancel()
	if n, err := io.Copy(io.Discard, rc); err == nil {
		t.Errorf("read %d more bytes after cancel without error", n)
	}
}

func TestInvalidSettings(t *testing.T) {
	isolateAWSEnv(t)
	for name, c := range map[string]connectors.Credentials{
		"no bucket":       {"access_key_id": keyID, "secret_access_key": secretKey},
		"bad bucket":      {"bucket": "a/b", "access_key_id": keyID, "secret_access_key": secretKey},
		"key id alone":    {"bucket": bucket, "access_key_id": keyID},
		"secret alone":    {"bucket": bucket, "secret_access_key": secretKey},
		"bad region":      {"bucket": bucket, "region": "eu west"},
		"endpoint scheme": {"bucket": bucket, "endpoint": "ftp://x"},
		"endpoint user":   {"bucket": bucket, "endpoint": "https://u:" + secretKey + "@s3.example.com", "access_key_id": keyID, "secret_access_key": secretKey},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := open(t, c, 0)
			if !errors.Is(err, connectors.ErrInvalid) {
				t.Fatalf("Open = %v, want ErrInvalid", err)
			}
			noSecret(t, err)
			t.Log(err)
		})
	}
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
	s := mustOpen(t, creds(srv.URL))
	if _, err := s.List(t.Context()); !errors.Is(err, connectors.ErrInvalid) {
		t.Fatalf("List = %v, want ErrInvalid", err)
	}
}
