// Package netguard decides which network addresses the service may connect
// to on a user's behalf. Webhook URLs and data sources (databases, buckets,
// warehouses) are chosen by users, so every connection to them could be
// aimed at the service's own network (server-side request forgery): its
// loopback, its private networks, the cloud's metadata endpoint.
//
// A Guard refuses loopback, private, link-local, unique-local, multicast,
// unspecified, shared (CGNAT) and every other special-purpose address of
// the IANA registries (via code.dny.dev/ssrf), IPv4-mapped IPv6 included,
// unless the operator allowed a network (Options.Allow, Options.
// AllowLoopback). Targets are checked before use (CheckHost, CheckURL) and
// again at dial time, on the address actually dialled (Dialer, DialContext,
// HTTPTransport), so a name that resolves to an allowed address when
// checked and to a refused one when dialled (DNS rebinding) is still
// refused.
//
// Every refusal wraps ErrRefused, and its message is safe to show to the
// user who typed the target: it names only what the user typed (the host,
// the port), never an address a name resolved to.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
)

// ErrRefused is wrapped by every refusal of a Guard.
var ErrRefused = errors.New("refused by the network policy")

// Refusal is the error of every refusal: errors.Is(err, ErrRefused) holds
// for it. Its Reason is safe to show.
type Refusal struct {
	// Reason says why, naming only what the user typed (a host, a port),
	// never an address a name resolved to.
	Reason string
}

func (r *Refusal) Error() string { return ErrRefused.Error() + ": " + r.Reason }

// Unwrap makes a Refusal match ErrRefused.
func (r *Refusal) Unwrap() error { return ErrRefused }

func refuse(format string, args ...any) error {
	return &Refusal{Reason: fmt.Sprintf(format, args...)}
}

// Options configure a Guard.
type Options struct {
	// Ports are the only destination ports allowed; nil or empty allows
	// any port. Webhooks pass 443. Each must be 1 to 65535.
	Ports []int
	// AllowLoopback lets the guard reach 127.0.0.0/8 and ::1. Every other
	// refused range stays refused, IPv4-mapped loopback (::ffff:127.0.0.1)
	// written as such included.
	AllowLoopback bool
	// Allow are networks the operator allows although they are private or
	// reserved, e.g. 10.0.0.0/8 for a database on the private network. They
	// are checked before the refused ranges, so a network covering loopback
	// or the metadata address allows it too. Host bits are ignored; an
	// IPv4-mapped IPv6 prefix is taken as the IPv4 network.
	Allow []netip.Prefix
	// Resolver resolves host names; nil is the system resolver.
	Resolver *net.Resolver
}

// Guard decides which hosts and addresses may be reached. It is safe for
// concurrent use.
type Guard struct {
	guardian *ssrf.Guardian // addresses and networks; ports are checked here
	ports    []int          // sorted; empty means any
	portList string         // "port 443", "ports 443, 5432"
	resolver *net.Resolver
}

var (
	loopback4 = netip.MustParsePrefix("127.0.0.0/8")
	loopback6 = netip.MustParsePrefix("::1/128")
)

// New returns a guard for o. It panics on an invalid port or an invalid
// prefix: options come from code or from configuration validated at start
// (config.Load), never from a request.
func New(o Options) *Guard {
	var v4, v6 []netip.Prefix
	if o.AllowLoopback {
		v4, v6 = append(v4, loopback4), append(v6, loopback6)
	}
	for _, p := range o.Allow {
		if !p.IsValid() {
			panic(fmt.Sprintf("netguard: invalid allowed network %v", p))
		}
		p = p.Masked()
		if p.Addr().Is4In6() && p.Bits() >= 96 {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	g := &Guard{
		guardian: ssrf.New(ssrf.WithAnyPort(), ssrf.WithAllowedV4Prefixes(v4...), ssrf.WithAllowedV6Prefixes(v6...)),
		resolver: o.Resolver,
	}
	if g.resolver == nil {
		g.resolver = net.DefaultResolver
	}
	for _, p := range o.Ports {
		if p < 1 || p > 65535 {
			panic(fmt.Sprintf("netguard: invalid port %d", p))
		}
		if !slices.Contains(g.ports, p) {
			g.ports = append(g.ports, p)
		}
	}
	slices.Sort(g.ports)
	if len(g.ports) > 0 {
		list := make([]string, len(g.ports))
		for i, p := range g.ports {
			list[i] = strconv.Itoa(p)
		}
		g.portList = "port " + list[0]
		if len(list) > 1 {
			g.portList = "ports " + strings.Join(list, ", ")
		}
	}
	return g
}

// maxHostLen bounds a host name (DNS names are at most 253 characters).
const maxHostLen = 253

// MaxURLLen bounds a URL given to CheckURL.
const MaxURLLen = 2048

// CheckHost checks that host (a name, or an IP literal, IPv6 with or
// without brackets) and port may be reached: a name must resolve, and
// every address it resolves to must be allowed (one refused address among
// allowed ones refuses the host). The error is a *Refusal.
//
// A refusal names only what the user typed (the host) and the class of
// the reason, never an address a name resolved to: the answer would
// otherwise tell a user what the service's internal names resolve to. For
// the same reason a name that does not resolve and a name that resolves to
// a private address get the same message, so the answer does not tell
// which internal names exist either. The address is judged before the
// port, so a refused port is only reported for a reachable address.
func (g *Guard) CheckHost(ctx context.Context, host string, port int) error {
	if port < 1 || port > 65535 {
		return refuse("port %d is not a valid port number", port)
	}
	if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	switch {
	case host == "":
		return refuse("there is no host")
	case len(host) > maxHostLen:
		return refuse("the host name is longer than %d characters", maxHostLen)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		// An IP literal is judged as written: an IPv4-mapped IPv6 literal
		// stays refused, whatever IPv4 address it maps.
		if !g.addrOK(ip) {
			return refuse("%s is not a public address (it is private, internal or reserved)", host)
		}
		return g.checkPort(port)
	}
	ips, err := g.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(ips) == 0 {
		return errNotPublic(host)
	}
	for _, ip := range ips {
		// The hosts file yields IPv4 addresses in IPv4-mapped form; the
		// dialer connects to the plain IPv4 address, so judge that one.
		if !g.addrOK(ip.Unmap()) {
			return errNotPublic(host)
		}
	}
	return g.checkPort(port)
}

// CheckURL checks a URL-based target: at most MaxURLLen characters,
// http:// or https://, a host, and a host and port (by default 80 or 443)
// CheckHost allows. The error is a *Refusal and never repeats the URL
// (its path or query may carry a secret). Rules of a kind of target (only
// https, no credentials…) are its caller's.
func (g *Guard) CheckURL(ctx context.Context, raw string) error {
	if len(raw) > MaxURLLen {
		return refuse("the URL is longer than %d characters", MaxURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return refuse("the URL does not parse")
	}
	var port int
	switch u.Scheme {
	case "https":
		port = 443
	case "http":
		port = 80
	default:
		return refuse("the URL must start with https:// or http://")
	}
	host := u.Hostname()
	if host == "" {
		return refuse("the URL has no host")
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return refuse("the URL's port is not a valid port number")
		}
	}
	return g.CheckHost(ctx, host, port)
}

// errNotPublic refuses a host name without saying what it resolved to, or
// whether it resolved at all.
func errNotPublic(host string) error {
	return refuse("the host %q is not a public address (it does not resolve, or it resolves to a private or internal address)", host)
}

// addrOK reports whether ip may be reached, on some port.
func (g *Guard) addrOK(ip netip.Addr) bool { return g.guardian.SafeAddr(ip) == nil }

// portOK reports whether port may be reached.
func (g *Guard) portOK(port int) bool {
	return len(g.ports) == 0 || slices.Contains(g.ports, port)
}

// checkPort refuses a port the guard does not allow.
func (g *Guard) checkPort(port int) error {
	if g.portOK(port) {
		return nil
	}
	return refuse("port %d is not allowed; connections may only go to %s", port, g.portList)
}

// control is the dialer's Control: it runs for every connection, after
// DNS resolution, on the address actually dialled.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return refuse("only TCP connections are allowed")
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !g.addrOK(ap.Addr()) {
		// The address is what the host name resolved to when dialled; it
		// is not shown (see CheckHost).
		return refuse("the connection was refused: the host no longer resolves to an allowed address")
	}
	if !g.portOK(int(ap.Port())) {
		return refuse("the connection was refused: port %d is not allowed", ap.Port())
	}
	return nil
}

// Dialer returns a dialer (timeout 0: none but the context's) whose every
// connection is checked, on the address actually dialled, by the guard;
// it resolves names with the guard's resolver. Check the target first with
// CheckHost for a refusal that names the host: the dialer's own refusal is
// a *Refusal inside the *net.OpError the dial returns, whose message
// quotes the address dialled. DialContext does both.
func (g *Guard) Dialer(timeout time.Duration) *net.Dialer {
	return &net.Dialer{Timeout: timeout, Resolver: g.resolver, Control: g.control}
}

// dialTimeout bounds a connection made by DialContext (as net/http's
// default transport does).
const dialTimeout = 30 * time.Second

// DialContext connects to addr ("host:port", numeric port) over TCP once
// CheckHost allows it, through Dialer, so the address dialled is checked
// again (DNS rebinding). A refusal is returned as a bare *Refusal, never
// inside a *net.OpError quoting the address; other failures (connection
// refused, timeouts) are returned as the dialer gives them and may name
// the address dialled.
func (g *Guard) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch network {
	case "tcp", "tcp4", "tcp6":
	default:
		return nil, refuse("only TCP connections are allowed")
	}
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, refuse("the address is not host:port")
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		return nil, refuse("the port is not a port number")
	}
	if err := g.CheckHost(ctx, host, port); err != nil {
		return nil, err
	}
	conn, err := g.Dialer(dialTimeout).DialContext(ctx, network, addr)
	if err != nil {
		var r *Refusal
		if errors.As(err, &r) {
			return nil, r
		}
		return nil, err
	}
	return conn, nil
}

// HTTPTransport returns a new HTTP transport dialling through DialContext.
// It never uses a proxy (the proxy would do the dialling, out of the
// guard's reach); every connection, redirects' included, is checked. The
// caller may set its TLS configuration and timeouts.
func (g *Guard) HTTPTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           g.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          100,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}
