// Package webhook sends chat messages to Slack and Microsoft Teams
// incoming webhooks, safely: a webhook URL is chosen by a user, so every
// request could be aimed at the service's own network (server-side
// request forgery). Targets are checked when a webhook is saved and again
// at every delivery, both after DNS resolution and at dial time, so a name
// that resolves to a public address at check time and a private one at
// dial time (DNS rebinding) is still refused.
package webhook

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"

	"github.com/dqs/dqs/netguard"
)

// Platforms.
const (
	Slack = "slack"
	Teams = "teams"
)

// Platforms lists the supported chat platforms.
var Platforms = []string{Slack, Teams}

// ErrTarget is wrapped by every refusal of a webhook URL; its message is
// safe to show (it never repeats the URL, which carries a secret token).
// A refusal by the network guard also matches netguard.ErrRefused.
var ErrTarget = errors.New("webhook target refused")

// refusal is a refused target: ErrTarget and the reason, which is safe
// to show. The sender rebuilds one from the guard's *netguard.Refusal it
// takes out of the network error that carries it at dial time, whose
// message would add the address dialled.
type refusal struct {
	reason string
	cause  error // the *netguard.Refusal, when the guard refused
}

func (r *refusal) Error() string { return ErrTarget.Error() + ": " + r.reason }
func (r *refusal) Unwrap() []error {
	if r.cause != nil {
		return []error{ErrTarget, r.cause}
	}
	return []error{ErrTarget}
}

func refuse(reason string) error { return &refusal{reason: reason} }

// fromGuard turns the network guard's refusal into a webhook refusal with
// the same reason (nil stays nil).
func fromGuard(err error) error {
	var r *netguard.Refusal
	if errors.As(err, &r) {
		return &refusal{reason: r.Reason, cause: r}
	}
	if err != nil {
		return refuse("the connection was refused")
	}
	return nil
}

// GuardOptions configure a Guard.
type GuardOptions struct {
	// AllowLoopback lets webhooks reach 127.0.0.0/8 and ::1 on any port.
	// TESTS ONLY (app.Options.WebhookTest, which no configuration
	// variable sets): a test's HTTPS receiver listens on loopback. Every
	// other refused range stays refused.
	AllowLoopback bool
	// Resolver resolves host names; nil is the system resolver.
	Resolver *net.Resolver
}

// Guard decides which webhook URLs and addresses may be reached: the
// webhook rules (https only, no credentials or fragment) over the
// service's network guard (package netguard), shared with data sources.
type Guard struct {
	net *netguard.Guard
}

// NewGuard returns a guard refusing loopback, private, link-local,
// unique-local, multicast, unspecified, shared (CGNAT) and every other
// special-purpose address of the IANA registries (cloud metadata
// endpoints live in link-local and unique-local space), IPv4-mapped IPv6
// included, on any port but 443 (see netguard.New).
func NewGuard(o GuardOptions) *Guard {
	opt := netguard.Options{Ports: []int{443}, Resolver: o.Resolver}
	if o.AllowLoopback {
		opt.Ports, opt.AllowLoopback = nil, true
	}
	return &Guard{net: netguard.New(opt)}
}

// Check validates a webhook URL: HTTPS, a host, no credentials or
// fragment, at most 2,048 characters, and a host whose every address may
// be reached (netguard.Guard.CheckURL). The error wraps ErrTarget and
// says why, without repeating the URL.
//
// A refusal names only what the user typed (the host) and the class of
// the reason, never an address a name resolved to: the answer would
// otherwise tell an admin what the service's internal names resolve to.
// For the same reason a name that does not resolve and a name that
// resolves to a private address get the same message, so the answer does
// not tell which internal names exist either.
func (g *Guard) Check(ctx context.Context, raw string) error {
	if err := shape(raw); err != nil {
		return err
	}
	return fromGuard(g.net.CheckURL(ctx, raw))
}

// shape refuses what the network guard lets through but a webhook may not
// be: another scheme than https, credentials, a fragment. A URL too long,
// not parsing or without a host is left to the guard to refuse.
func shape(raw string) error {
	if len(raw) > netguard.MaxURLLen {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	switch {
	case u.Scheme != "https":
		return refuse("the URL must start with https://")
	case u.User != nil:
		return refuse("the URL must not carry a user name or password")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return refuse("the URL must not have a fragment")
	}
	return nil
}

// visibleTail is how many trailing characters of a URL are shown.
const visibleTail = 8

// Tail is the part of a webhook URL that may be shown: its last 8
// characters.
func Tail(raw string) string {
	r := []rune(raw)
	if len(r) <= visibleTail {
		return ""
	}
	return string(r[len(r)-visibleTail:])
}

// Masked renders a URL of length characters (runes) ending in tail with
// everything but the tail hidden.
func Masked(length int, tail string) string {
	hidden := length - len([]rune(tail))
	if hidden < 0 {
		hidden = 0
	}
	return strings.Repeat("*", hidden) + tail
}

// Mask shows only the last 8 characters of a webhook URL.
func Mask(raw string) string { return Masked(len([]rune(raw)), Tail(raw)) }
