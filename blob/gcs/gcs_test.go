package gcs_test

import (
	"bytes"
	"compress/gzip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/blobtest"
	"github.com/dqs/dqs/blob/gcs"
	"github.com/dqs/dqs/internal/emulators"
)

const bucket = emulators.Bucket

// newStore runs fake-gcs-server on a real local HTTP listener and points
// the real storage client at it through Config.Endpoint, so the whole client
// stack (resumable chunked uploads, JSON reads, error mapping) is exercised.
func newStore(t *testing.T, prefix string) (*gcs.Store, *fakestorage.Server) {
	t.Helper()
	e := emulators.StartGCS(t, emulators.GCSOptions{})
	return e.Store(t, prefix), e.Server
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
	if !strings.HasPrefix(q.Get("X-Goog-Credential"), emulators.GCSServiceAccount+"/") {
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

// TestOpenRangeTranscoded covers decompressive transcoding: GCS (and the
// emulator) serves an object stored with Content-Encoding gzip decompressed
// and whole whatever the range, so OpenRange must cut the range out itself.
func TestOpenRangeTranscoded(t *testing.T) {
	s, srv := newStore(t, "")
	plain := strings.Repeat("0123456789abcdef", 64)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(plain))
	zw.Close()
	key, _ := blob.OrgKey("acme", "z.csv")
	srv.CreateObject(fakestorage.Object{
		ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: key, ContentType: "text/csv", ContentEncoding: "gzip"},
		Content:     gz.Bytes(),
	})
	blobtest.CheckRangeReads(t, s, key, []blobtest.RangeRead{
		{Offset: 0, Length: 10, Want: plain[:10]},
		{Offset: 5, Length: 7, Want: plain[5:12]},
		{Offset: 1000, Length: -1, Want: plain[1000:]},
		{Offset: 1020, Length: 100, Want: plain[1020:]},
		{Offset: 0, Length: -1, Want: plain},
	})
}
