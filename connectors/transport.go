package connectors

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// DialFunc opens one connection, as net.Dialer.DialContext does.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// NewTransport is the HTTP transport of a source's client: every
// connection through dial (the network guard's dialer, possibly wrapped),
// no proxy (a proxy would hide the real address from the guard), bounded
// TLS handshakes and header waits, and no overall request timeout, so that
// a long object or result set streams for as long as its context lives.
func NewTransport(dial DialFunc, timeout time.Duration) *http.Transport {
	return &http.Transport{
		Proxy:                  nil,
		DialContext:            dial,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           32,
		MaxIdleConnsPerHost:    16,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		ResponseHeaderTimeout:  timeout,
		MaxResponseHeaderBytes: 1 << 20,
	}
}

// Clip shortens text quoted in an error message (an object key, a
// server's message) to at most n bytes on a rune boundary, on one line.
func Clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ReleaseOnClose returns body with cancel called after it is closed: the
// body of a response holds its request's context until then.
func ReleaseOnClose(body io.ReadCloser, cancel func()) io.ReadCloser {
	return &releasingBody{ReadCloser: body, cancel: cancel}
}

type releasingBody struct {
	io.ReadCloser
	cancel func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}
