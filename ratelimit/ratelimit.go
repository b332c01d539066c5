// Package ratelimit counts requests per key against fixed-window limits so
// the HTTP layer can set X-RateLimit-Limit, X-RateLimit-Remaining,
// X-RateLimit-Reset and, when a request is over its limit, answer 429 with
// Retry-After.
//
// # Why fixed windows
//
// Each key gets a window that opens at its first request (after the previous
// window ended) and lasts Rule.Window. Up to Rule.Limit requests are allowed
// inside it; the whole quota comes back at once when it ends. This maps one to
// one onto the response headers: Limit is the rule, Remaining is Limit minus
// the count, Reset is the end of the window, and Retry-After is the time until
// Reset. Sliding logs or token buckets refill gradually, so "Reset" would have
// to be approximated. Fixed windows are also cheap: one counter and one
// timestamp per key, O(1) per request, and a shared store can do the same with
// one counter that expires. The known drawback, a burst of up to 2*Limit
// around a window boundary, is acceptable for abuse protection. Windows are
// anchored to each key's first request, not to the wall clock, so keys do not
// all reset at the same moment.
//
// # Shared store (cluster)
//
// A shared store such as Redis can implement Store with a counter that expires
// on its own:
//
//	INCR   k          -> n
//	PEXPIRE k window  (only when n == 1: the first request opens the window)
//	PTTL   k          -> ttl; Reset = now + ttl
//
// Two details matter. First, INCR and PEXPIRE must run atomically (a Lua
// script, or MULTI/EXEC), or a crash between them leaves a counter that never
// expires. Second, denied requests must not consume quota, so the script
// should check before it counts (GET; if n >= limit return denied with PTTL;
// otherwise INCR, plus PEXPIRE when the result is 1), or DECR when INCR goes
// past the limit. Redis computes the time, so servers with skewed clocks agree.
// The Redis key should include the window (for example key + ":" +
// window-in-ms), matching Memory, which counts each (key, Window) pair on its
// own.
package ratelimit

import (
	"context"
	"errors"
	"time"
)

// Rule is one limit: at most Limit requests per Window.
type Rule struct {
	Limit  int
	Window time.Duration
}

// ErrInvalidRule is returned by Take when Rule.Limit or Rule.Window is not
// positive.
var ErrInvalidRule = errors.New("ratelimit: rule needs Limit > 0 and Window > 0")

func (r Rule) valid() bool { return r.Limit > 0 && r.Window > 0 }

// Result says what one Take decided.
//
// HTTP mapping: X-RateLimit-Limit = Limit, X-RateLimit-Remaining = Remaining,
// X-RateLimit-Reset = Reset as Unix seconds, and when !Allowed answer 429 with
// Retry-After = RetryAfter rounded up to whole seconds, at least 1. To avoid
// telling clients to come back too early, round Reset up too, e.g.
// Reset.Add(time.Second - 1).Unix() (Reset is not whole seconds in general).
type Result struct {
	Allowed   bool
	Limit     int
	Remaining int       // never negative
	Reset     time.Time // when the current window ends and the full quota is back
	// RetryAfter is zero when Allowed. Otherwise it is the time until a request
	// would be allowed (Reset minus now, always > 0); callers round it up to
	// whole seconds, at least 1s.
	RetryAfter time.Duration
}

// Store counts requests. The single-machine build uses Memory; a cluster can
// plug in a shared store (e.g. Redis) behind the same interface.
//
// Take counts one request for key under rule and reports the decision. A
// denied request does not count against the quota. Counts are kept per
// (key, rule.Window), so the same key may be checked against rules with
// different windows (e.g. 10 per minute and 100 per hour) without the counts
// mixing. An error means no decision was made (invalid rule, store
// unreachable); the caller chooses whether to fail open or closed.
type Store interface {
	Take(ctx context.Context, key string, rule Rule) (Result, error)
}
