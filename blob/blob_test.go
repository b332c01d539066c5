package blob_test

import (
	"context"
	"errors"
	"math"
	"mime"
	"strings"
	"testing"

	"github.com/dqs/dqs/blob"
)

func TestOrgKey(t *testing.T) {
	ok := []struct {
		org   string
		parts []string
		want  string
	}{
		{"acme", []string{"uploads", "f.csv"}, "orgs/acme/uploads/f.csv"},
		{"7f3c", []string{"a b", "données 数据.json"}, "orgs/7f3c/a b/données 数据.json"},
		{"o", []string{"..x", "x..", ".hidden"}, "orgs/o/..x/x../.hidden"},
	}
	for _, c := range ok {
		got, err := blob.OrgKey(c.org, c.parts...)
		if err != nil || got != c.want {
			t.Errorf("OrgKey(%q, %q) = %q, %v; want %q", c.org, c.parts, got, err, c.want)
		}
		if err := blob.ValidateKey(got); err != nil {
			t.Errorf("ValidateKey(%q) = %v", got, err)
		}
	}

	bad := []struct {
		org   string
		parts []string
	}{
		{"", []string{"f"}},
		{"acme", nil},
		{"acme", []string{""}},
		{"acme", []string{"a", ""}},
		{"acme", []string{".."}},
		{"acme", []string{"."}},
		{"..", []string{"f"}},
		{"acme/other", []string{"f"}},
		{"acme", []string{"a/b"}},
		{"acme", []string{"/etc"}},
		{"acme", []string{`a\b`}},
		{"acme", []string{"a\nb"}},
		{"acme", []string{"tab\there"}},
		{"acme", []string{"nul\x00"}},
		{"acme", []string{"del\x7f"}},
		{"acme", []string{"c1\u0085"}},
		{"acme", []string{"bad\xffutf8"}},
		{"acme", []string{strings.Repeat("x", blob.MaxKeyLen)}},
	}
	for _, c := range bad {
		if got, err := blob.OrgKey(c.org, c.parts...); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("OrgKey(%q, %q) = %q, %v; want ErrInvalidKey", c.org, c.parts, got, err)
		}
	}
}

func TestValidateKey(t *testing.T) {
	for _, k := range []string{"a", "orgs/x/y.csv", "a b/c d", "ü/数据"} {
		if err := blob.ValidateKey(k); err != nil {
			t.Errorf("ValidateKey(%q) = %v", k, err)
		}
	}
	for _, k := range []string{"", "/a", "a/", "a//b", "./a", "a/../b", "..", `a\b`, "a\x00", strings.Repeat("a", blob.MaxKeyLen+1)} {
		if err := blob.ValidateKey(k); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, want ErrInvalidKey", k, err)
		}
	}
}

func TestContentDisposition(t *testing.T) {
	cases := []struct{ in, want, parsed string }{
		{"report.csv", `attachment; filename="report.csv"`, "report.csv"},
		{"../../etc/passwd", `attachment; filename="passwd"`, "passwd"},
		{`C:\Users\x\data.json`, `attachment; filename="data.json"`, "data.json"},
		{"a\"b\r\nSet-Cookie: x.csv", `attachment; filename="a_bSet-Cookie: x.csv"`, `a_bSet-Cookie: x.csv`},
		{"", `attachment; filename="download"`, "download"},
		{"données 2024.csv", `attachment; filename="donn_es 2024.csv"; filename*=UTF-8''donn%C3%A9es%202024.csv`, "données 2024.csv"},
	}
	for _, c := range cases {
		got := blob.ContentDisposition(c.in)
		if got != c.want {
			t.Errorf("ContentDisposition(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(got, "\r\n") {
			t.Errorf("ContentDisposition(%q) contains a line break", c.in)
		}
		disp, params, err := mime.ParseMediaType(got)
		if err != nil || disp != "attachment" {
			t.Errorf("ParseMediaType(%q) = %q, %v", got, disp, err)
			continue
		}
		// filename* wins when present, as in browsers.
		if params["filename"] != c.parsed {
			t.Errorf("parsed filename of %q = %q, want %q", got, params["filename"], c.parsed)
		}
	}
}

func TestValidateTTL(t *testing.T) {
	if blob.ValidateTTL(blob.MaxSignedURLTTL) != nil || blob.ValidateTTL(1) != nil {
		t.Error("valid ttl rejected")
	}
	if blob.ValidateTTL(0) == nil || blob.ValidateTTL(-1) == nil || blob.ValidateTTL(blob.MaxSignedURLTTL+1) == nil {
		t.Error("invalid ttl accepted")
	}
}

func TestContextReader(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	r := blob.ContextReader(ctx, strings.NewReader("abcdef"))
	buf := make([]byte, 3)
	if n, err := r.Read(buf); n != 3 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	cancel()
	if _, err := r.Read(buf); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read after cancel = %v", err)
	}
}

func TestCheckRange(t *testing.T) {
	for _, c := range []struct{ off, n, want int64 }{
		{0, -1, -1}, {5, -7, -1}, {0, 0, 0}, {3, 10, 10},
		{0, math.MaxInt64, math.MaxInt64}, {1, math.MaxInt64, -1}, {math.MaxInt64, 1, -1},
	} {
		if got, err := blob.CheckRange(c.off, c.n); err != nil || got != c.want {
			t.Errorf("CheckRange(%d, %d) = %d, %v; want %d", c.off, c.n, got, err, c.want)
		}
	}
	if _, err := blob.CheckRange(-1, 5); err == nil {
		t.Error("CheckRange accepted a negative offset")
	}
}
