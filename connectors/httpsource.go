package connectors

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// What the HTTP-based kinds (s3, gcs, bigquery, snowflake) do alike when
// they open a source and stream from it, written once so that they agree
// on which transport is theirs to close and on how a timeout bounds a
// stream.

// CallTimeout is the bound of one call: Options.Timeout, or DefaultTimeout
// when that is not positive.
func (o Options) CallTimeout() time.Duration {
	if o.Timeout <= 0 {
		return DefaultTimeout
	}
	return o.Timeout
}

// ProfileCallTimeout is the bound of a table source's Profile or Sample:
// Options.ProfileTimeout, or DefaultProfileTimeout when that is not
// positive.
func (o Options) ProfileCallTimeout() time.Duration {
	if o.ProfileTimeout <= 0 {
		return DefaultProfileTimeout
	}
	return o.ProfileTimeout
}

// profileDeadline is the cause of a context ProfileContext made that
// reached its bound.
var profileDeadline = errors.New("profile timeout")

// ProfileContext bounds a table source's Profile or Sample by timeout
// (Options.ProfileCallTimeout); ProfileTimedOut tells that bound from the
// caller's own deadline.
func ProfileContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, timeout, profileDeadline)
}

// ProfileTimedOut reports whether call, a context ProfileContext made,
// ended at its bound.
func ProfileTimedOut(call context.Context) bool {
	return context.Cause(call) == profileDeadline
}

// TimedOut is the error of a Profile or Sample the source stopped at its
// bound: it wraps ErrTimedOut, and what says what could not be done
// (`postgresql table "t" could not be profiled`).
func TimedOut(what string, bound time.Duration) error {
	return fmt.Errorf("%w: %s within %s", ErrTimedOut, what, bound)
}

// HTTPBase returns the round tripper a source's client sends through:
// client's transport when the caller lent one (Options.HTTPClient;
// http.DefaultTransport when its Transport is nil), else a transport
// build makes (one dialing through Options.Dialer). owned is the transport
// built, nil when lent: the source closes the idle connections of its own
// transport only (CloseIdle). build is not called when client is set, so
// it may use an Options.Dialer that is then nil.
func HTTPBase(client *http.Client, build func() *http.Transport) (base http.RoundTripper, owned *http.Transport) {
	if client != nil {
		if client.Transport != nil {
			return client.Transport, nil
		}
		return http.DefaultTransport, nil
	}
	owned = build()
	return owned, owned
}

// CloseIdle closes the idle connections of a transport HTTPBase built;
// nil (a lent transport) is left alone.
func CloseIdle(owned *http.Transport) {
	if owned != nil {
		owned.CloseIdleConnections()
	}
}

// validBucket: the object stores' own rules differ (and S3-compatible
// stores allow more than AWS); this one only makes sure nothing can leave
// the URL path.
var validBucket = regexp.MustCompile(`^[A-Za-z0-9._-]{1,255}$`)

// BucketName reads an object store's bucket setting: required, and a name
// that stays inside a URL path. kind names the store in the message.
func BucketName(kind, raw string) (string, error) {
	name := strings.TrimSpace(raw)
	if name == "" {
		return "", fmt.Errorf("%w: %s bucket is required", ErrInvalid, kind)
	}
	if !validBucket.MatchString(name) {
		return "", fmt.Errorf("%w: %s bucket name %q is not valid", ErrInvalid, kind, Clip(name, 200))
	}
	return name, nil
}

// OpenWithin obtains a body with get (an object's GET) within timeout and
// returns it streaming for as long as ctx lives: the timeout bounds
// obtaining the body (up to the response headers), not reading it, and
// closing the body releases get's context. On failure call is get's
// context, already cancelled, whose cause tells a timeout (it is
// context.DeadlineExceeded then) for the caller's error mapping; err is
// get's error, or context.DeadlineExceeded when the timeout fired just as
// get succeeded (that body is bound to a cancelled context, so it is
// closed and not returned).
func OpenWithin(ctx context.Context, timeout time.Duration, get func(ctx context.Context) (io.ReadCloser, error)) (body io.ReadCloser, call context.Context, err error) {
	call, cancel := context.WithCancelCause(ctx)
	timer := time.AfterFunc(timeout, func() { cancel(context.DeadlineExceeded) })
	body, err = get(call)
	if !timer.Stop() && err == nil {
		body.Close()
		err = context.DeadlineExceeded
	}
	if err != nil {
		cancel(nil)
		return nil, call, err
	}
	return ReleaseOnClose(body, func() { cancel(nil) }), call, nil
}
