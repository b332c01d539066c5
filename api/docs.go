package api

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// The browsable API reference: Redoc (vendored in docs/redoc, whose README
// gives its version and licence) renders openapi.json in the browser. The
// page and the script are embedded and served from here, so the reference
// works without internet access and its policy can refuse every other
// origin.

//go:embed docs/index.html
var docsHTML []byte

//go:embed docs/redoc/redoc.standalone.js
var redocJS []byte

// docsCSP lets the page load only what this service serves. The exceptions
// are Redoc's own needs, none of which reaches another origin: styled
// components inject <style> elements ('unsafe-inline' styles), icons are
// data: URIs, and the search index runs in a Worker built from a blob: URL.
const docsCSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self' blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// docsPage serves the reference page at GET /api/v1/docs.
func (s *Server) docsPage(c *gin.Context) error {
	serveDocs(c, "text/html; charset=utf-8", docsHTML)
	return nil
}

// docsRedoc serves the Redoc bundle the page loads.
func (s *Server) docsRedoc(c *gin.Context) error {
	serveDocs(c, "text/javascript; charset=utf-8", redocJS)
	return nil
}

func serveDocs(c *gin.Context, contentType string, body []byte) {
	c.Header("Content-Security-Policy", docsCSP)
	c.Header("X-Content-Type-Options", "nosniff")
	c.Header("Referrer-Policy", "no-referrer")
	// An hour: a new release's page and bundle are picked up soon after a
	// deployment, without every visit downloading 1 MB of script.
	c.Header("Cache-Control", "public, max-age=3600")
	c.Data(http.StatusOK, contentType, body)
}
