package api

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// verifyPage is where the verification e-mail's link lands on the single
// machine (a dashboard deployment serves its own page at DQS_APP_URL). It
// confirms by POSTing the token, so merely opening the link changes nothing.
//
//go:embed verify_page.html
var verifyPage []byte

func (s *Server) verifyEmailPage(c *gin.Context) error {
	c.Header("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'")
	c.Header("Referrer-Policy", "no-referrer")
	c.Header("Cache-Control", "no-store")
	c.Data(http.StatusOK, "text/html; charset=utf-8", verifyPage)
	return nil
}
