package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/dqs/dqs/netguard"
)

// maxResponseBody is how much of a target's answer is read (and thrown
// away): enough for any chat platform's reply, never a flood.
const maxResponseBody = 64 << 10

// SenderOptions configure a Sender.
type SenderOptions struct {
	// Timeout bounds one request, connection to last byte.
	Timeout time.Duration
	// RootCAs replaces the system roots; tests trust their receiver's
	// certificate this way. Nil means the system roots.
	RootCAs *x509.CertPool
}

// Sender posts payloads to webhook URLs through the guard.
type Sender struct {
	guard  *Guard
	client *http.Client
}

// NewSender returns a sender whose every connection is checked by g at
// dial time. It never uses a proxy from the environment (the proxy would
// do the dialling, out of the guard's reach), never follows a redirect
// (the target could be anywhere) and reads at most 64 KiB of an answer.
func NewSender(g *Guard, o SenderOptions) *Sender {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	// The guard's dialer checks the address actually dialled; Send has
	// checked the URL just before (netguard.Guard.Dialer).
	dialer := g.net.Dialer(o.Timeout)
	transport := &http.Transport{
		Proxy:                  nil,
		DialContext:            dialer.DialContext,
		TLSClientConfig:        &tls.Config{RootCAs: o.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout:    o.Timeout,
		ResponseHeaderTimeout:  o.Timeout,
		MaxResponseHeaderBytes: 16 << 10,
		ForceAttemptHTTP2:      true,
		MaxIdleConnsPerHost:    2,
		IdleConnTimeout:        time.Minute,
	}
	return &Sender{guard: g, client: &http.Client{
		Transport:     transport,
		Timeout:       o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// Result is the outcome of one request.
type Result struct {
	// Status is the HTTP status answered, 0 when there was no answer.
	Status int
	// Err is nil when the target accepted the message (2xx); its message
	// is safe to show and never contains the URL.
	Err error
	// Permanent says a retry cannot help: the target is refused, it
	// answered a redirect, or a 4xx other than 408 and 429.
	Permanent bool
}

// OK reports whether the message was accepted.
func (r Result) OK() bool { return r.Err == nil }

// Post renders m for the platform and sends it once.
func (s *Sender) Post(ctx context.Context, platform, rawURL string, m Message) Result {
	body, err := Payload(platform, m)
	if err != nil {
		return Result{Err: err, Permanent: true}
	}
	return s.Send(ctx, rawURL, body)
}

// Send posts body (JSON) to the URL once.
func (s *Sender) Send(ctx context.Context, rawURL string, body []byte) Result {
	if err := s.guard.Check(ctx, rawURL); err != nil {
		return Result{Err: err, Permanent: true}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return Result{Err: refuse("the URL cannot be requested"), Permanent: true}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "DQS-Webhook/1")
	resp, err := s.client.Do(req)
	if err != nil {
		return failure(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxResponseBody))
	code := resp.StatusCode
	switch {
	case code >= 200 && code < 300:
		return Result{Status: code}
	case code >= 300 && code < 400:
		return Result{Status: code, Err: fmt.Errorf("the target answered a redirect (HTTP %d); redirects are not followed", code), Permanent: true}
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500:
		return Result{Status: code, Err: fmt.Errorf("the target answered HTTP %d", code)}
	}
	return Result{Status: code, Err: fmt.Errorf("the target refused the message (HTTP %d)", code), Permanent: true}
}

// failure describes a request that got no answer, without the URL (the
// client's errors quote it, and it carries the webhook's secret token) and
// without the address dialled or the resolver asked (network errors quote
// them, and they are the service's view of its network).
func failure(err error) Result {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, netguard.ErrRefused) { // refused at dial time: DNS changed since the check
		return Result{Err: fromGuard(err), Permanent: true}
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return Result{Err: errors.New("the target did not answer in time")}
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return Result{Err: errors.New("could not reach the target: the host does not resolve")}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Err != nil {
		// OpError's own message names the source and destination
		// addresses; its cause (connection refused, reset…) does not.
		return Result{Err: fmt.Errorf("could not reach the target: %v", opErr.Err)}
	}
	return Result{Err: fmt.Errorf("could not reach the target: %v", err)}
}
