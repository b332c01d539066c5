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
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"
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
var ErrTarget = errors.New("webhook target refused")

// refusal is a refused target: ErrTarget and the reason, which is safe
// to show. Being a type of its own lets the sender take it out of the
// network error that carries it at dial time, whose message would add the
// address dialled.
type refusal struct{ reason string }

func (r *refusal) Error() string { return ErrTarget.Error() + ": " + r.reason }
func (r *refusal) Unwrap() error { return ErrTarget }

func refuse(format string, args ...any) error {
	return &refusal{reason: fmt.Sprintf(format, args...)}
}

// GuardOptions configure a Guard.
type GuardOptions struct {
	// AllowLoopback lets webhooks reach 127.0.0.0/8 and ::1 on any port.
	// TESTS ONLY (DQS_TEST_WEBHOOK_ALLOW_LOOPBACK): a test's HTTPS
	// receiver listens on loopback. Every other refused range stays
	// refused.
	AllowLoopback bool
	// Resolver resolves host names; nil is the system resolver.
	Resolver *net.Resolver
}

// Guard decides which webhook URLs and addresses may be reached.
type Guard struct {
	guardian *ssrf.Guardian
	resolver *net.Resolver
}

// NewGuard returns a guard refusing loopback, private, link-local,
// unique-local, multicast, unspecified, shared (CGNAT) and every other
// special-purpose address of the IANA registries (cloud metadata
// endpoints live in link-local and unique-local space), IPv4-mapped IPv6
// included, on any port but 443.
func NewGuard(o GuardOptions) *Guard {
	opts := []ssrf.Option{ssrf.WithPorts(443)}
	if o.AllowLoopback {
		opts = []ssrf.Option{ssrf.WithAnyPort(),
			ssrf.WithAllowedV4Prefixes(netip.MustParsePrefix("127.0.0.0/8")),
			ssrf.WithAllowedV6Prefixes(netip.MustParsePrefix("::1/128"))}
	}
	r := o.Resolver
	if r == nil {
		r = net.DefaultResolver
	}
	return &Guard{guardian: ssrf.New(opts...), resolver: r}
}

// maxURLLen bounds a webhook URL (Slack's and Teams' are well under).
const maxURLLen = 2048

// Check validates a webhook URL: HTTPS, a host, no credentials or
// fragment, and a host whose every address may be reached. The error
// wraps ErrTarget and says why, without repeating the URL.
//
// A refusal names only what the user typed (the host) and the class of
// the reason, never an address a name resolved to: the answer would
// otherwise tell an admin what the service's internal names resolve to.
// For the same reason a name that does not resolve and a name that
// resolves to a private address get the same message, so the answer does
// not tell which internal names exist either.
func (g *Guard) Check(ctx context.Context, raw string) error {
	u, err := parse(raw)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if !g.safe(ip, port) {
			if g.safe(ip, "443") {
				return errPort(port)
			}
			return refuse("%s is not a public address (it is private, internal or reserved)", host)
		}
		return nil
	}
	ips, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return errNotPublic(host)
	}
	for _, ip := range ips {
		// The hosts file yields IPv4 addresses in IPv4-mapped form; the
		// dialer connects to the plain IPv4 address, so judge that one.
		// (A literal mapped address above stays refused.)
		if ip = ip.Unmap(); !g.safe(ip, port) {
			if g.safe(ip, "443") {
				return errPort(port)
			}
			return errNotPublic(host)
		}
	}
	return nil
}

// errPort refuses a port other than 443 on an otherwise reachable address.
func errPort(port string) error {
	return refuse("port %s is not allowed; webhooks are sent to port 443", port)
}

// errNotPublic refuses a host name without saying what it resolved to, or
// whether it resolved at all.
func errNotPublic(host string) error {
	return refuse("the host %q is not a public address (it does not resolve, or it resolves to a private or internal address)", host)
}

// safe reports whether ip:port may be reached.
func (g *Guard) safe(ip netip.Addr, port string) bool {
	ap, err := netip.ParseAddrPort(net.JoinHostPort(ip.String(), port))
	return err == nil && g.guardian.SafeAddrPort(ap) == nil
}

// parse checks the URL's shape.
func parse(raw string) (*url.URL, error) {
	if len(raw) > maxURLLen {
		return nil, refuse("the URL is longer than %d characters", maxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, refuse("the URL does not parse")
	}
	switch {
	case u.Scheme != "https":
		return nil, refuse("the URL must start with https://")
	case u.Hostname() == "":
		return nil, refuse("the URL has no host")
	case u.User != nil:
		return nil, refuse("the URL must not carry a user name or password")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return nil, refuse("the URL must not have a fragment")
	}
	return u, nil
}

// control is the dialer's Control: it runs for every connection, after
// DNS resolution, on the address actually dialled.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	if err := g.guardian.Safe(network, address, nil); err != nil {
		// The address is what the host name resolved to when dialled;
		// it is not shown (see Check).
		return refuse("the connection was refused: the host no longer resolves to a public address on port 443")
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
