package gcs_test

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/blobtest"
	"github.com/dqs/dqs/blob/gcs"
)

const bucket = "dqs-test"

// fakeServiceAccount returns a service-account key file for a freshly
// generated RSA key: enough for local URL signing, never valid at Google.
func fakeServiceAccount(t *testing.T) []byte {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	j, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "dqs-test",
		"private_key_id": "0123456789abcdef",
		"private_key":    string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})),
		"client_email":   "dqs-blob@dqs-test.iam.gserviceaccount.com",
		"client_id":      "1234567890",
		"token_uri":      "https://oauth2.googleapis.com/token",
	})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// newStore runs fake-gcs-server on a real local HTTP listener and points
// the real storage client at it through Config.Endpoint, so the whole client
// stack (resumable chunked uploads, JSON reads, error mapping) is exercised.
func newStore(t *testing.T, prefix string) (*gcs.Store, *fakestorage.Server) {
	t.Helper()
	t.Setenv("STORAGE_EMULATOR_HOST", "") // do not let the env override Endpoint
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		Scheme:     "http",
		Host:       "127.0.0.1",
		NoListener: false,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	s, err := gcs.New(t.Context(), gcs.Config{
		Bucket:                bucket,
		Prefix:                prefix,
		Endpoint:              srv.URL() + "/storage/v1/",
		CredentialsJSON:       fakeServiceAccount(t),
		WithoutAuthentication: true,
	})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s, srv
}

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		s, _ := newStore(t, "")
		return s
	})
}

// TestPutAlloc only logs: the emulator holds objects on the same heap.
func TestPutAlloc(t *testing.T) {
	s, _ := newStore(t, "")
	blobtest.CheckPutAlloc(t, s, 0)
}

func TestPrefixAndContentType(t *testing.T) {
	s, srv := newStore(t, "tenant-data")
	key, _ := blob.OrgKey("acme", "f.json")
	if _, err := s.Put(t.Context(), key, strings.NewReader(`{"a":1}`), "application/json"); err != nil {
		t.Fatal(err)
	}
	obj, err := srv.GetObject(bucket, "tenant-data/"+key)
	if err != nil {
		t.Fatalf("object not stored under prefix: %v", err)
	}
	if string(obj.Content) != `{"a":1}` || obj.ContentType != "application/json" {
		t.Errorf("stored object = %q (%s)", obj.Content, obj.ContentType)
	}
}

// TestSignedURL checks the shape of the V4 signed URL. It cannot be fetched
// from the emulator: fake-gcs-server neither verifies V4 signatures nor
// honours response-content-disposition, and serves the XML API only on its
// configured public host, so a fetch would prove nothing about real GCS.
func TestSignedURL(t *testing.T) {
	s, srv := newStore(t, "p")
	key, _ := blob.OrgKey("acme", "exports", "données 2024.csv")
	u, err := s.SignedURL(t.Context(), key, 10*time.Minute, "données 2024.csv")
	if err != nil {
		t.Fatal(err)
	}
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	su, _ := url.Parse(srv.URL())
	if pu.Scheme != "http" || pu.Host != su.Host {
		t.Errorf("URL %q not on emulator host %s", u, su.Host)
	}
	if !strings.HasPrefix(pu.Path, "/"+bucket+"/p/orgs/acme/exports/") {
		t.Errorf("URL path %q lacks bucket/prefix/key", pu.Path)
	}
	q := pu.Query()
	if got := q.Get("X-Goog-Expires"); got != "600" {
		t.Errorf("X-Goog-Expires = %q, want 600", got)
	}
	if d, err := time.Parse("20060102T150405Z", q.Get("X-Goog-Date")); err != nil || time.Since(d) > time.Minute {
		t.Errorf("X-Goog-Date = %q (%v)", q.Get("X-Goog-Date"), err)
	}
	if q.Get("X-Goog-Algorithm") != "GOOG4-RSA-SHA256" || q.Get("X-Goog-Signature") == "" {
		t.Errorf("URL not V4 signed: %q", u)
	}
	if !strings.HasPrefix(q.Get("X-Goog-Credential"), "dqs-blob@dqs-test.iam.gserviceaccount.com/") {
		t.Errorf("X-Goog-Credential = %q", q.Get("X-Goog-Credential"))
	}
	if got, want := q.Get("response-content-disposition"), blob.ContentDisposition("données 2024.csv"); got != want {
		t.Errorf("response-content-disposition = %q, want %q", got, want)
	}
}

func TestNewValidation(t *testing.T) {
	ctx := t.Context()
	if _, err := gcs.New(ctx, gcs.Config{WithoutAuthentication: true}); err == nil {
		t.Error("New accepted empty bucket")
	}
	if _, err := gcs.New(ctx, gcs.Config{Bucket: "b", CredentialsJSON: []byte("{not json")}); err == nil {
		t.Error("New accepted malformed credentials")
	}
	if _, err := gcs.New(ctx, gcs.Config{Bucket: "b", CredentialsJSON: []byte(`{"type":"external_account"}`)}); err == nil {
		t.Error("New accepted non-service-account credentials")
	}
}
