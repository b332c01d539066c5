package s3_test

import (
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/blobtest"
	blobs3 "github.com/dqs/dqs/blob/s3"
	"github.com/dqs/dqs/internal/emulators"
)

const bucket = emulators.Bucket

// newStore starts the S3 emulator and returns the store on its bucket,
// under prefix.
func newStore(t *testing.T, prefix string) (*blobs3.Store, *emulators.S3) {
	t.Helper()
	e := emulators.StartS3(t)
	return e.Store(t, prefix), e
}

func TestConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		s, _ := newStore(t, "")
		return s
	})
}

// TestPutAlloc only logs: gofakes3 keeps the object on the same heap, so the
// figure includes the server's copy. The driver's own buffering is bounded
// by PartSize × Concurrency.
func TestPutAlloc(t *testing.T) {
	s, _ := newStore(t, "")
	blobtest.CheckPutAlloc(t, s, 0)
}

func TestPrefix(t *testing.T) {
	s, e := newStore(t, "/tenant-data/")
	key, _ := blob.OrgKey("acme", "f.csv")
	if _, err := s.Put(t.Context(), key, strings.NewReader("hello"), "text/csv"); err != nil {
		t.Fatal(err)
	}
	obj, err := e.Backend.HeadObject(bucket, "tenant-data/"+key)
	if err != nil {
		t.Fatalf("object not stored under prefix: %v", err)
	}
	if obj.Size != 5 {
		t.Errorf("size = %d", obj.Size)
	}
	if ct := obj.Metadata["Content-Type"]; ct != "text/csv" {
		t.Errorf("Content-Type = %q, want text/csv", ct)
	}
}

// TestPresignedGet fetches the presigned URL with plain net/http, as a
// browser following the API's 307 would. gofakes3 does not verify
// signatures or expiry, so those are checked on the URL itself; what the
// fetch proves is that the URL addresses the right object and that the
// response-content-disposition override reaches the response.
func TestPresignedGet(t *testing.T) {
	s, srv := newStore(t, "p")
	ctx := t.Context()
	key, _ := blob.OrgKey("acme", "exports", "données 2024.csv")
	var want bytes.Buffer
	if _, err := s.Put(ctx, key, io.TeeReader(blobtest.Pattern(7, 6<<20), &want), "text/csv"); err != nil {
		t.Fatal(err)
	}

	u, err := s.SignedURL(ctx, key, 15*time.Minute, "données 2024.csv")
	if err != nil {
		t.Fatal(err)
	}
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u, srv.URL+"/"+bucket+"/p/orgs/acme/") {
		t.Errorf("URL %q not path-style under %s", u, srv.URL)
	}
	q := pu.Query()
	if got := q.Get("X-Amz-Expires"); got != "900" {
		t.Errorf("X-Amz-Expires = %q, want 900", got)
	}
	if q.Get("X-Amz-Signature") == "" || q.Get("X-Amz-Algorithm") != "AWS4-HMAC-SHA256" {
		t.Errorf("URL not SigV4 presigned: %q", u)
	}
	if !strings.Contains(q.Get("X-Amz-Credential"), emulators.S3AccessKeyID+"/") {
		t.Errorf("X-Amz-Credential = %q", q.Get("X-Amz-Credential"))
	}

	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET presigned: %s: %s", resp.Status, b)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("presigned GET returned %d bytes, differing from the %d uploaded", len(got), want.Len())
	}
	cd := resp.Header.Get("Content-Disposition")
	if cd != blob.ContentDisposition("données 2024.csv") {
		t.Errorf("Content-Disposition = %q, want %q", cd, blob.ContentDisposition("données 2024.csv"))
	}
	disp, params, err := mime.ParseMediaType(cd)
	if err != nil || disp != "attachment" || params["filename"] != "données 2024.csv" {
		t.Errorf("parsed Content-Disposition = %q %v %v", disp, params, err)
	}
}

func TestNewValidation(t *testing.T) {
	emulators.IsolateAWSEnv(t)
	ctx := t.Context()
	if _, err := blobs3.New(ctx, blobs3.Config{Region: "us-east-1"}); err == nil {
		t.Error("New accepted empty bucket")
	}
	if _, err := blobs3.New(ctx, blobs3.Config{Bucket: "b", Region: "us-east-1", AccessKeyID: "x"}); err == nil {
		t.Error("New accepted access key without secret")
	}
	if _, err := blobs3.New(ctx, blobs3.Config{Bucket: "b"}); err == nil {
		t.Error("New accepted no region and no endpoint")
	}
}

// TestMissingBucket makes sure a misconfigured bucket is an error, not a
// silent "object not found" for Open (NoSuchBucket must not map to
// ErrNotFound).
func TestMissingBucket(t *testing.T) {
	srv := emulators.StartS3(t)
	s, err := blobs3.New(t.Context(), blobs3.Config{
		Bucket: "no-such-bucket", Region: "us-east-1", Endpoint: srv.URL,
		AccessKeyID: "a", SecretAccessKey: "b", UsePathStyle: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := blob.OrgKey("acme", "f")
	if _, err := s.Open(t.Context(), key); err == nil || errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Open in missing bucket = %v, want non-NotFound error", err)
	}
	if _, err := s.Put(t.Context(), key, strings.NewReader("x"), ""); err == nil {
		t.Errorf("Put in missing bucket succeeded")
	}
}

// TestOpenRangeIgnoredByServer covers an S3-compatible server that ignores
// the Range header and answers 200 with the whole object: OpenRange must
// still return just the range.
func TestOpenRangeIgnoredByServer(t *testing.T) {
	emulators.IsolateAWSEnv(t)
	const content = "0123456789abcdefghij"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(content)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			io.WriteString(w, content)
		}
	}))
	t.Cleanup(srv.Close)
	s, err := blobs3.New(t.Context(), blobs3.Config{
		Bucket: "b", Region: "us-east-1", Endpoint: srv.URL,
		AccessKeyID: "a", SecretAccessKey: "b", UsePathStyle: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	key, _ := blob.OrgKey("acme", "f.csv")
	blobtest.CheckRangeReads(t, s, key, []blobtest.RangeRead{
		{Offset: 0, Length: 4, Want: content[:4]},
		{Offset: 3, Length: 5, Want: content[3:8]},
		{Offset: 15, Length: -1, Want: content[15:]},
		{Offset: 18, Length: 10, Want: content[18:]},
		{Offset: 0, Length: -1, Want: content},
	})
}
