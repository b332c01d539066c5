package gcs

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

const (
	bucket      = "dqs-src"
	clientEmail = "dqs-reader@dqs-test.iam.gserviceaccount.com"
)

var (
	saOnce   sync.Once
	saJSON   string
	saKeyPEM string
	saWrong  string
)

// serviceAccounts returns two key files for fresh RSA keys (never valid at
// Google): the one the fake server accepts and another account's.
func serviceAccounts(t *testing.T) (good, wrong, privateKey string) {
	t.Helper()
	saOnce.Do(func() {
		mk := func(email string) (string, string) {
			_, pk := connectortest.NewRSAKey()
			j, _ := json.Marshal(map[string]string{
				"type":           "service_account",
				"project_id":     "dqs-test",
				"private_key_id": "0123456789abcdef",
				"private_key":    pk,
				"client_email":   email,
				"client_id":      "1234567890",
				// Never contacted: tokens are self-signed JWTs.
				"token_uri": "http://127.0.0.1:1/token",
			})
			return string(j), pk
		}
		saJSON, saKeyPEM = mk(clientEmail)
		saWrong, _ = mk("intruder@other.iam.gserviceaccount.com")
	})
	return saJSON, saWrong, saKeyPEM
}

// requireAccount stands in for Google's authentication, which
// fake-gcs-server does not check: a request must carry a bearer JWT issued
// by clientEmail (the self-signed JWT the auth library makes from the key
// file), else it gets GCS's 401. The signature is not verified.
func requireAccount(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		parts := strings.Split(tok, ".")
		var claims struct {
			Iss string `json:"iss"`
		}
		if ok && len(parts) == 3 {
			if p, err := base64.RawURLEncoding.DecodeString(parts[1]); err == nil {
				_ = json.Unmarshal(p, &claims)
			}
		}
		if claims.Iss != clientEmail {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"code":401,"message":"Invalid Credentials","errors":[{"message":"Invalid Credentials","domain":"global","reason":"authError"}]}}`)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// fakeGCS runs fake-gcs-server's handler on a real local listener. With
// auth, requests must be signed by the good service account.
func fakeGCS(t *testing.T, auth bool) (*httptest.Server, *fakestorage.Server) {
	t.Helper()
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Stop)
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	h := fake.HTTPHandler()
	if auth {
		h = requireAccount(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, fake
}

func put(fake *fakestorage.Server, key string, data []byte) {
	fake.CreateObject(fakestorage.Object{
		ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: key},
		Content:     data,
	})
}

func noSecret(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	_, _, pk := serviceAccounts(t)
	msg := err.Error()
	for _, line := range strings.Split(pk, "\n") {
		if len(line) > 8 && strings.Contains(msg, line) {
			t.Errorf("error carries the private key: %v", err)
			return
		}
	}
	if strings.Contains(msg, "private_key") || strings.Contains(msg, "BEGIN") {
		t.Errorf("error carries the key file: %v", err)
	}
}

func TestConformance(t *testing.T) {
	good, _, _ := serviceAccounts(t)
	srv, fake := fakeGCS(t, true)
	defer func(p int) { pageSize = p }(pageSize)
	pageSize = 2 // several pages

	connectortest.RunObjectStore(t, func(key string, data []byte) { put(fake, key, data) },
		func(d connectors.Dialer) (connectors.ObjectSource, error) {
			return Open(t.Context(), connectors.Options{
				Credentials: connectors.Credentials{"bucket": bucket, "prefix": "/data", "endpoint": srv.URL, "service_account_json": good},
				Dialer:      d,
			})
		})
}

// TestEmulatorWithoutAuth: an endpoint without service_account_json sends
// no credentials.
func TestEmulatorWithoutAuth(t *testing.T) {
	srv, fake := fakeGCS(t, false)
	put(fake, "x.csv", []byte("x"))
	var sawAuth atomic.Bool
	hc := &http.Client{Transport: connectortest.RoundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.Header.Get("Authorization") != "" {
			sawAuth.Store(true)
		}
		return http.DefaultTransport.RoundTrip(r)
	})}
	// A bare host gets /storage/v1/.
	s, err := Open(t.Context(), connectors.Options{Credentials: connectors.Credentials{"bucket": bucket, "endpoint": srv.URL}, HTTPClient: hc})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	l, err := s.List(t.Context())
	if err != nil || len(l) != 1 || l[0].Name != "x.csv" {
		t.Fatalf("List = %v, %v", l, err)
	}
	if sawAuth.Load() {
		t.Error("credentials sent to the emulator")
	}
}

func TestETagAndLastModified(t *testing.T) {
	srv, fake := fakeGCS(t, false)
	before := time.Now().Add(-time.Minute)
	put(fake, "k/v.csv", []byte("a\n1\n"))
	s := connectortest.MustOpen(t, Open, connectors.Credentials{"bucket": bucket, "prefix": "k", "endpoint": srv.URL + "/storage/v1/"})
	first := connectortest.CheckETagChanges(t, s, func() { put(fake, "k/v.csv", []byte("a\n2\n")) })
	if first.LastModified.Before(before) || first.ETag == "" {
		t.Errorf("listed %+v", first)
	}
}

func TestMissingBucket(t *testing.T) {
	good, _, _ := serviceAccounts(t)
	srv, _ := fakeGCS(t, true)
	_, err := connectortest.Open(t, Open, connectors.Credentials{"bucket": "no-such-bucket", "endpoint": srv.URL, "service_account_json": good}, 0)
	if !errors.Is(err, connectors.ErrNotFound) || !strings.Contains(err.Error(), "no-such-bucket") {
		t.Fatalf("Open = %v, want ErrNotFound naming the bucket", err)
	}
	noSecret(t, err)
	t.Log(err)
}

func TestWrongAccount(t *testing.T) {
	_, wrong, _ := serviceAccounts(t)
	srv, _ := fakeGCS(t, true)
	_, err := connectortest.Open(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL, "service_account_json": wrong}, 0)
	if !errors.Is(err, connectors.ErrConnect) {
		t.Fatalf("Open = %v, want ErrConnect", err)
	}
	noSecret(t, err)
	t.Log(err)
}

func TestUnreachable(t *testing.T) {
	good, _, _ := serviceAccounts(t)
	addr := connectortest.ClosedAddr(t)
	err := connectortest.FailsWithin(t, "Open", 9*time.Second, func() error {
		_, err := connectortest.Open(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": "http://" + addr, "service_account_json": good}, 10*time.Second)
		return err
	}, connectors.ErrConnect)
	noSecret(t, err)
	t.Log(err)
}

func TestTimeout(t *testing.T) {
	hang := connectortest.HangingServer(t)
	connectortest.FailsWithin(t, "Open", 5*time.Second, func() error {
		_, err := connectortest.Open(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": hang.URL}, 300*time.Millisecond)
		return err
	}, connectors.ErrConnect, context.DeadlineExceeded)
}

func TestStreamOutlivesTimeout(t *testing.T) {
	srv, fake := fakeGCS(t, false)
	data := connectortest.RandomBytes(4 << 20)
	put(fake, "big.csv", data)
	s, err := connectortest.Open(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	connectortest.CheckStreamOutlivesTimeout(t, s, 300*time.Millisecond, "big.csv", data)
}

func TestCancelMidStream(t *testing.T) {
	srv, fake := fakeGCS(t, false)
	put(fake, "big.csv", connectortest.RandomBytes(8<<20))
	s := connectortest.MustOpen(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL})
	connectortest.CheckCancelMidStream(t, s, "big.csv")
}

func TestInvalidSettings(t *testing.T) {
	good, _, _ := serviceAccounts(t)
	var external map[string]any
	_ = json.Unmarshal([]byte(good), &external)
	external["type"] = "external_account"
	ext, _ := json.Marshal(external)
	connectortest.CheckInvalidSettings(t, Open, map[string]connectors.Credentials{
		"no bucket":       {"endpoint": "http://127.0.0.1:1"},
		"bad bucket":      {"bucket": "a/b", "endpoint": "http://127.0.0.1:1"},
		"not json":        {"bucket": bucket, "service_account_json": "{" + good},
		"external":        {"bucket": bucket, "service_account_json": string(ext)},
		"endpoint scheme": {"bucket": bucket, "endpoint": "file:///etc"},
		"endpoint user":   {"bucket": bucket, "endpoint": "http://u:pw@127.0.0.1:1/"},
	}, noSecret)
	if _, err := Open(t.Context(), connectors.Options{Credentials: connectors.Credentials{"bucket": bucket, "endpoint": "http://127.0.0.1:1"}}); !errors.Is(err, connectors.ErrInvalid) {
		t.Errorf("Open without a dialer = %v, want ErrInvalid", err)
	}
}

func TestTooManyObjects(t *testing.T) {
	srv, fake := fakeGCS(t, false)
	defer func(m int) { maxObjects = m }(maxObjects)
	maxObjects = 3
	for _, k := range []string{"a.csv", "b.csv", "c.csv", "d.csv"} {
		put(fake, k, []byte("x"))
	}
	s := connectortest.MustOpen(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL})
	if _, err := s.List(t.Context()); !errors.Is(err, connectors.ErrInvalid) {
		t.Fatalf("List = %v, want ErrInvalid", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"http://h:4443":          "http://h:4443/storage/v1/",
		"http://h:4443/":         "http://h:4443/storage/v1/",
		"https://h/storage/v1":   "https://h/storage/v1/",
		"https://h/custom/path/": "https://h/custom/path/",
		"":                       "",
	} {
		if got, err := parseEndpoint(in); err != nil || got != want {
			t.Errorf("parseEndpoint(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// TestRangeRequests: Open sends the Range header GCS expects (none for
// the whole object), gets 206 for a range, and returns the 416 of an
// offset at or beyond the end, or of any range of an empty object, as an
// empty stream.
func TestRangeRequests(t *testing.T) {
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	fake, err := fakestorage.NewServerWithOptions(fakestorage.Options{NoListener: true, Writer: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fake.Stop)
	fake.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
	handler, rr := connectortest.RecordRanges(fake.HTTPHandler(), func(r *http.Request) bool { return r.URL.Query().Get("alt") == "media" })
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	put(fake, "r.csv", connectortest.RangeData)
	put(fake, "empty.csv", nil)
	s := connectortest.MustOpen(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL})

	connectortest.CheckRangeRequests(t, s, rr)
}

// TestRangeOfTranscodedObject: GCS serves an object stored with
// Content-Encoding gzip decompressed and whole, whatever the range; Open
// still returns the range asked for, of the decompressed content.
func TestRangeOfTranscodedObject(t *testing.T) {
	srv, fake := fakeGCS(t, false)
	data := []byte(strings.Repeat("id,name\n1,transcoded\n", 50))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	fake.CreateObject(fakestorage.Object{
		ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: "z.csv", ContentEncoding: "gzip"},
		Content:     gz.Bytes(),
	})
	s := connectortest.MustOpen(t, Open, connectors.Credentials{"bucket": bucket, "endpoint": srv.URL})
	n := int64(len(data))
	for _, r := range [][2]int64{{0, -1}, {3, 4}, {0, 10}, {n - 5, -1}, {n - 5, 100}, {n, -1}, {n + 3, 2}, {7, 0}} {
		connectortest.CheckRange(t, s, "z.csv", data, r[0], r[1])
	}
}
