package api_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// localRef finds the URLs a page makes the browser load or follow.
var localRef = regexp.MustCompile(`(?i)\b(?:src|href|spec-url|action)\s*=\s*["']([^"']*)["']`)

// TestDocsPageServesOnlyLocalAssets: GET /api/v1/docs answers the reference
// page, every URL in it is relative to the service and answers 200 (the
// script with a JavaScript type), and the Content-Security-Policy of both
// names no other origin, so the page works offline and loads nothing from a
// CDN.
func TestDocsPageServesOnlyLocalAssets(t *testing.T) {
	srv := openAPIServer(t)
	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec
	}
	const page = "/api/v1/docs"
	rec := get(page)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d, want 200; body: %.200s", page, rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("GET %s: Content-Type = %q, want text/html", page, ct)
	}
	checkDocsCSP(t, page, rec.Header().Get("Content-Security-Policy"))

	base, _ := url.Parse(page)
	refs := localRef.FindAllStringSubmatch(rec.Body.String(), -1)
	var script, spec bool
	for _, m := range refs {
		ref, err := url.Parse(m[1])
		if err != nil || ref.Scheme != "" || ref.Host != "" || strings.HasPrefix(m[1], "//") || strings.HasPrefix(m[1], "/") {
			t.Errorf("%s refers to %q; only paths relative to the page are allowed", page, m[1])
			continue
		}
		target := base.ResolveReference(ref).Path
		asset := get(target)
		if asset.Code != http.StatusOK || asset.Body.Len() == 0 {
			t.Errorf("%s refers to %s, which answers %d with %d bytes", page, target, asset.Code, asset.Body.Len())
			continue
		}
		switch target {
		case "/api/v1/openapi.json":
			spec = true
		case "/api/v1/docs/redoc.standalone.js":
			script = true
			if ct := asset.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") {
				t.Errorf("GET %s: Content-Type = %q, want text/javascript", target, ct)
			}
			if !strings.Contains(asset.Body.String(), "Redoc") {
				t.Errorf("GET %s is not the Redoc bundle", target)
			}
			checkDocsCSP(t, target, asset.Header().Get("Content-Security-Policy"))
		}
	}
	if !script || !spec {
		t.Errorf("%s loads the Redoc script: %v, names openapi.json: %v; want both (refs %v)", page, script, spec, refs)
	}
}

// checkDocsCSP: the policy denies by default, runs only this service's
// scripts, and every source it allows anywhere is this service or a local
// scheme, never a host.
func checkDocsCSP(t *testing.T, path, csp string) {
	t.Helper()
	directives := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		if fields := strings.Fields(d); len(fields) > 0 {
			directives[fields[0]] = fields[1:]
		}
	}
	if got := strings.Join(directives["default-src"], " "); got != "'none'" {
		t.Errorf("GET %s: default-src is %q, want 'none' (policy %q)", path, got, csp)
	}
	if got := strings.Join(directives["script-src"], " "); got != "'self'" {
		t.Errorf("GET %s: script-src is %q, want 'self' alone (policy %q)", path, got, csp)
	}
	local := map[string]bool{"'self'": true, "'none'": true, "'unsafe-inline'": true, "data:": true, "blob:": true}
	for name, sources := range directives {
		for _, src := range sources {
			if !local[src] {
				t.Errorf("GET %s: %s allows %q, which is not this service", path, name, src)
			}
		}
	}
}
