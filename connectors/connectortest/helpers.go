package connectortest

// Scaffolding the kinds' own tests share: dialers and transports that
// count or refuse, keys, payloads and the reading of a sample.

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/records"
)

// CountingDialer dials with a net.Dialer and counts its dials, proving a
// connector's connections go through Options.Dialer.
type CountingDialer struct {
	d net.Dialer
	n atomic.Int64
}

// DialContext implements connectors.Dialer.
func (c *CountingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c.n.Add(1)
	return c.d.DialContext(ctx, network, addr)
}

// Dials is the number of dials so far.
func (c *CountingDialer) Dials() int64 { return c.n.Load() }

// RefusingDialer refuses every dial with Err, as the network guard
// refuses an address.
type RefusingDialer struct{ Err error }

// DialContext implements connectors.Dialer.
func (r RefusingDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	return nil, r.Err
}

// RoundTripFunc is a function as an http.RoundTripper.
type RoundTripFunc func(*http.Request) (*http.Response, error)

// RoundTrip implements http.RoundTripper.
func (f RoundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// CountingTransport sends with http.DefaultTransport and counts the
// requests, proving a connector uses Options.HTTPClient.
type CountingTransport struct{ n atomic.Int64 }

// RoundTrip implements http.RoundTripper.
func (c *CountingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// Requests is the number of requests so far.
func (c *CountingTransport) Requests() int64 { return c.n.Load() }

// ClosedAddr returns a local address (host:port) nothing listens on.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// HangingServer returns a server that accepts requests and never answers
// them; it stops when t ends.
func HangingServer(t testing.TB) *httptest.Server {
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)
	t.Cleanup(hang.CloseClientConnections)
	return hang
}

// RandomBytes returns n pseudo-random bytes, the same on every call.
func RandomBytes(n int) []byte {
	r := mrand.New(mrand.NewPCG(1, 2))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// NewRSAKey returns a fresh 2048-bit RSA key (valid nowhere) and its
// PKCS#8 PEM encoding ("-----BEGIN PRIVATE KEY-----"), as a service
// account key file or a Snowflake key pair holds it.
func NewRSAKey() (*rsa.PrivateKey, string) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		panic(err)
	}
	return k, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
}

// ReadAll reads r to the end and returns copies of its records (a reader
// may reuse the one it returns); an error other than io.EOF fails t.
func ReadAll(t testing.TB, r records.Reader) []records.Record {
	t.Helper()
	var out []records.Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, records.Record{Values: slices.Clone(rec.Values), Null: slices.Clone(rec.Null)})
	}
}

// FailsWithin runs call (what names it in messages) and checks that it
// fails within limit with an error wrapping every one of want: an
// unreachable address, a server that never answers and a cancelled
// context must all end a call quickly. A wrong error stops t. It returns
// the error for the caller's own checks (no secret in it, ...).
func FailsWithin(t testing.TB, what string, limit time.Duration, call func() error, want ...error) error {
	t.Helper()
	start := time.Now()
	err := call()
	for _, w := range want {
		if !errors.Is(err, w) {
			t.Fatalf("%s: %v, want an error wrapping %q", what, err, w)
		}
	}
	if d := time.Since(start); d > limit {
		t.Errorf("%s took %v (at most %v)", what, d, limit)
	}
	return err
}

// CheckEstimated fails t for each column of p whose Estimated list, as
// fmt prints it, is not want's entry for the column's position.
func CheckEstimated(t testing.TB, p *connectors.TableProfile, want ...string) {
	t.Helper()
	if len(p.Columns) != len(want) {
		t.Fatalf("%d columns, want %d", len(p.Columns), len(want))
	}
	for i, c := range p.Columns {
		if got := fmt.Sprint(c.Estimated); got != want[i] {
			t.Errorf("%s: estimated %s, want %s", c.Name, got, want[i])
		}
	}
}
