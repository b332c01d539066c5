package emulators

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/dqs/dqs/blob/gcs"
)

// GCSServiceAccount is the client e-mail of FakeServiceAccount's key: the
// X-Goog-Credential of the URLs it signs.
const GCSServiceAccount = "dqs-blob@dqs-test.iam.gserviceaccount.com"

// FakeServiceAccount returns a service-account key file for a freshly
// generated RSA key: enough for local URL signing, never valid at Google.
func FakeServiceAccount(t testing.TB) []byte {
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
		"client_email":   GCSServiceAccount,
		"client_id":      "1234567890",
		"token_uri":      "https://oauth2.googleapis.com/token",
	})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// GCSOptions configures StartGCS.
type GCSOptions struct {
	// ServeSignedURLs makes the emulator's public host its own address
	// (127.0.0.1, any port), so that the path-style signed URLs the
	// client library makes for the emulator's endpoint are answered by
	// its XML download handler, response-content-disposition included.
	// The emulator verifies neither the V4 signature nor the expiry: a
	// fetch proves that the URL names the right bucket and object, not
	// that GCS would accept it. Without it the emulator keeps its default
	// public host (storage.googleapis.com) and such URLs are 404.
	ServeSignedURLs bool
}

// GCS is a running fake-gcs-server holding the bucket Bucket.
type GCS struct {
	Server *fakestorage.Server
}

// StartGCS runs fake-gcs-server on a real loopback HTTP listener, so the
// real storage client is exercised end to end (resumable chunked uploads,
// JSON reads, error mapping). STORAGE_EMULATOR_HOST is cleared for the
// test so that it cannot override the store's endpoint.
func StartGCS(t testing.TB, opts GCSOptions) *GCS {
	t.Helper()
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	o := fakestorage.Options{Scheme: "http", Host: "127.0.0.1", Writer: io.Discard}
	if opts.ServeSignedURLs {
		o.PublicHost = "127.0.0.1"
	}
	srv, err := fakestorage.NewServerWithOptions(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: Bucket})
	return &GCS{Server: srv}
}

// URL is the emulator's base URL (http://127.0.0.1:port).
func (g *GCS) URL() string { return g.Server.URL() }

// Config is the blob/gcs configuration of a store on the emulator's
// bucket, under prefix: requests unauthenticated, URLs signed with a
// FakeServiceAccount key.
func (g *GCS) Config(t testing.TB, prefix string) gcs.Config {
	return gcs.Config{
		Bucket:                Bucket,
		Prefix:                prefix,
		Endpoint:              g.Server.URL() + "/storage/v1/",
		CredentialsJSON:       FakeServiceAccount(t),
		WithoutAuthentication: true,
	}
}

// Store is the project's GCS blob store (cloud.google.com/go/storage) on
// the emulator's bucket, under prefix, closed when the test ends.
func (g *GCS) Store(t testing.TB, prefix string) *gcs.Store {
	t.Helper()
	s, err := gcs.New(t.Context(), g.Config(t, prefix))
	if err != nil {
		t.Fatalf("blob/gcs: New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
