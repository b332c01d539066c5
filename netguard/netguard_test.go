package netguard_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/dqs/dqs/netguard"
	"github.com/dqs/dqs/netguard/dnstest"
)

// testZone is the zone of the guard tests.
var testZone = map[string][]string{
	"public.test":      {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
	"private.test":     {"10.1.2.3"},
	"private192.test":  {"192.168.1.10"},
	"loopback.test":    {"127.0.0.1"},
	"loopback6.test":   {"::1"},
	"metadata.test":    {"169.254.169.254"},
	"ula.test":         {"fd00::1"},
	"mixed.test":       {"93.184.216.34", "10.0.0.7"},
	"cgnat.test":       {"100.64.0.1"},
	"unspecified.test": {"0.0.0.0"},
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// assertRefused fails unless err is a refusal naming want and none of the
// addresses hidden.
func assertRefused(t *testing.T, err error, want string, hidden ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want a refusal saying %q", want)
	}
	if !errors.Is(err, netguard.ErrRefused) {
		t.Errorf("%v does not wrap ErrRefused", err)
	}
	var r *netguard.Refusal
	if !errors.As(err, &r) {
		t.Fatalf("%v is not a *Refusal", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(r.Error(), "refused by the network policy: ") {
		t.Errorf("refusal %q does not say it was refused by the network policy", msg)
	}
	if !strings.Contains(msg, want) {
		t.Errorf("refusal %q does not say %q", msg, want)
	}
	for _, h := range hidden {
		if strings.Contains(msg, h) {
			t.Errorf("refusal %q shows the resolved address %s", msg, h)
		}
	}
}

func TestCheckHostRefusesEverySpecialRange(t *testing.T) {
	g := netguard.New(netguard.Options{})
	ctx := ctxT(t)
	for _, host := range []string{
		"127.0.0.1", "127.1.2.3", "127.255.255.254", // loopback
		"::1", "[::1]",
		"10.0.0.1", "10.255.255.255", // private
		"172.16.0.1", "172.31.255.254",
		"192.168.0.1", "192.168.255.254",
		"169.254.169.254", "169.254.0.1", // link-local, cloud metadata
		"fd00::1", "fd00:ec2::254", "fc00::1", // unique-local
		"fe80::1", "fe80::1%eth0", // link-local IPv6
		"::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", // IPv4-mapped
		"0.0.0.0", "::", "0.1.2.3", // unspecified, "this network"
		"100.64.0.1", "100.127.255.254", // CGNAT
		"224.0.0.1", "ff02::1", "255.255.255.255", // multicast, broadcast
		"192.0.2.1", "2001:db8::1", // documentation
		"64:ff9b::7f00:1", // NAT64 of 127.0.0.1
	} {
		t.Run(host, func(t *testing.T) {
			err := g.CheckHost(ctx, host, 5432)
			assertRefused(t, err, "is not a public address (it is private, internal or reserved)")
			if !strings.Contains(err.Error(), strings.Trim(host, "[]")) {
				t.Errorf("refusal %q does not name the host typed", err)
			}
		})
	}
}

func TestCheckHostAllowsPublicAddresses(t *testing.T) {
	d := dnstest.Start(t, dnstest.Zone(testZone))
	g := netguard.New(netguard.Options{Resolver: d.Resolver()})
	ctx := ctxT(t)
	for _, host := range []string{
		"93.184.216.34", "8.8.8.8", "2606:2800:220:1:248:1893:25c8:1946", "[2606:4700::1111]",
		"172.15.255.255", "172.32.0.1", // just outside 172.16/12
		"100.63.255.255", "100.128.0.1", // just outside 100.64/10
		"11.0.0.1", "9.255.255.255", // just outside 10/8
		"public.test", "PUBLIC.test", "public.test.",
	} {
		for _, port := range []int{1, 443, 5432, 65535} {
			if err := g.CheckHost(ctx, host, port); err != nil {
				t.Errorf("CheckHost(%s, %d) = %v, want nil", host, port, err)
			}
		}
	}
}

// TestCheckHostRefusesNamesWithoutShowingAddresses: a name resolving to a
// refused address (one among public ones is enough) is refused with the
// same words as a name that does not resolve, naming the host and never an
// address.
func TestCheckHostRefusesNamesWithoutShowingAddresses(t *testing.T) {
	d := dnstest.Start(t, dnstest.Zone(testZone))
	g := netguard.New(netguard.Options{Resolver: d.Resolver()})
	ctx := ctxT(t)
	reason := func(host string) string {
		err := g.CheckHost(ctx, host, 443)
		assertRefused(t, err, `the host "`+host+`" is not a public address`, testZone[host]...)
		return strings.ReplaceAll(err.Error(), host, "HOST")
	}
	missing := reason("nx.test")
	if !strings.Contains(missing, "does not resolve") {
		t.Errorf("refusal of a missing name %q does not say it may not resolve", missing)
	}
	for _, host := range []string{"private.test", "private192.test", "loopback.test", "loopback6.test",
		"metadata.test", "ula.test", "mixed.test", "cgnat.test", "unspecified.test"} {
		if got := reason(host); got != missing {
			t.Errorf("refusal of %s = %q, of a missing name = %q; want the same words", host, got, missing)
		}
	}
	if n := d.Count("loopback.test", dns.TypeA); n == 0 {
		t.Error("loopback.test was not asked of the DNS server")
	}
}

func TestCheckHostShapes(t *testing.T) {
	g := netguard.New(netguard.Options{})
	ctx := ctxT(t)
	assertRefused(t, g.CheckHost(ctx, "", 443), "no host")
	assertRefused(t, g.CheckHost(ctx, "[]", 443), "no host")
	assertRefused(t, g.CheckHost(ctx, strings.Repeat("a", 254), 443), "longer than 253")
	for _, port := range []int{0, -1, 65536, 1 << 20} {
		assertRefused(t, g.CheckHost(ctx, "93.184.216.34", port), "port "+strconv.Itoa(port)+" is not a valid port number")
	}
}

func TestAllowLetsAPrivateNetworkThrough(t *testing.T) {
	d := dnstest.Start(t, dnstest.Zone(testZone))
	g := netguard.New(netguard.Options{Resolver: d.Resolver(), Allow: []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("fd12:3456::/48"),
		netip.MustParsePrefix("172.16.5.77/24"),         // host bits ignored: 172.16.5.0/24
		netip.MustParsePrefix("::ffff:192.168.7.0/120"), // taken as 192.168.7.0/24
	}})
	ctx := ctxT(t)
	for _, host := range []string{"10.0.0.1", "10.200.3.4", "fd12:3456::1", "fd12:3456:0:ff::2",
		"172.16.5.1", "192.168.7.9", "private.test", "mixed.test", "public.test", "8.8.8.8"} {
		if err := g.CheckHost(ctx, host, 5432); err != nil {
			t.Errorf("CheckHost(%s) with 10/8 allowed = %v, want nil", host, err)
		}
	}
	for _, host := range []string{"11.0.0.1" /* public */} {
		if err := g.CheckHost(ctx, host, 5432); err != nil {
			t.Errorf("CheckHost(%s) = %v, want nil", host, err)
		}
	}
	// Every other refused range stays refused.
	for _, host := range []string{"192.168.1.1", "192.168.8.1", "172.16.6.1", "127.0.0.1", "::1",
		"169.254.169.254", "fd00::1", "fd12:3457::1", "100.64.0.1", "0.0.0.0",
		"::ffff:10.0.0.1", // a mapped literal stays refused
	} {
		assertRefused(t, g.CheckHost(ctx, host, 5432), "is not a public address")
	}
	for _, host := range []string{"private192.test", "loopback.test", "metadata.test", "ula.test"} {
		assertRefused(t, g.CheckHost(ctx, host, 5432), "is not a public address", testZone[host]...)
	}
}

func TestAllowLoopbackKeepsOtherRangesRefused(t *testing.T) {
	d := dnstest.Start(t, dnstest.Zone(testZone))
	g := netguard.New(netguard.Options{AllowLoopback: true, Resolver: d.Resolver()})
	ctx := ctxT(t)
	for _, host := range []string{"127.0.0.1", "127.1.2.3", "::1", "[::1]", "loopback.test", "loopback6.test",
		"localhost", "public.test", "93.184.216.34"} {
		if err := g.CheckHost(ctx, host, 5432); err != nil {
			t.Errorf("CheckHost(%s) with loopback allowed = %v, want nil", host, err)
		}
	}
	for _, host := range []string{"10.0.0.1", "192.168.1.1", "172.16.0.1", "169.254.169.254", "fd00::1",
		"fe80::1", "::ffff:127.0.0.1", "0.0.0.0", "::", "100.64.0.1"} {
		assertRefused(t, g.CheckHost(ctx, host, 5432), "is not a public address")
	}
	for _, host := range []string{"private.test", "mixed.test", "metadata.test", "unspecified.test"} {
		assertRefused(t, g.CheckHost(ctx, host, 5432), "is not a public address", testZone[host]...)
	}
	// Without the allowance, localhost (from the hosts file, in
	// IPv4-mapped form) is refused naming the host, not its address.
	prod := netguard.New(netguard.Options{})
	assertRefused(t, prod.CheckHost(ctx, "localhost", 5432), `the host "localhost"`, "127.0.0.1", "::1")
}

func TestPorts(t *testing.T) {
	d := dnstest.Start(t, dnstest.Zone(testZone))
	ctx := ctxT(t)
	one := netguard.New(netguard.Options{Ports: []int{443}, Resolver: d.Resolver()})
	if err := one.CheckHost(ctx, "93.184.216.34", 443); err != nil {
		t.Errorf("port 443 with Ports [443] = %v", err)
	}
	if err := one.CheckHost(ctx, "public.test", 443); err != nil {
		t.Errorf("public.test:443 with Ports [443] = %v", err)
	}
	assertRefused(t, one.CheckHost(ctx, "93.184.216.34", 8443), "port 8443 is not allowed; connections may only go to port 443")
	assertRefused(t, one.CheckHost(ctx, "public.test", 80), "port 80 is not allowed")
	// A refused address is reported as such, whatever the port.
	assertRefused(t, one.CheckHost(ctx, "10.0.0.1", 8443), "is not a public address")
	assertRefused(t, one.CheckHost(ctx, "private.test", 8443), "is not a public address")

	two := netguard.New(netguard.Options{Ports: []int{5432, 3306, 5432}, AllowLoopback: true})
	for _, p := range []int{3306, 5432} {
		if err := two.CheckHost(ctx, "127.0.0.1", p); err != nil {
			t.Errorf("port %d with Ports [5432 3306] = %v", p, err)
		}
	}
	assertRefused(t, two.CheckHost(ctx, "127.0.0.1", 22), "port 22 is not allowed; connections may only go to ports 3306, 5432")

	anyPort := netguard.New(netguard.Options{Ports: []int{}})
	for _, p := range []int{1, 22, 65535} {
		if err := anyPort.CheckHost(ctx, "93.184.216.34", p); err != nil {
			t.Errorf("port %d with no port restriction = %v", p, err)
		}
	}
}

func TestNewPanicsOnInvalidOptions(t *testing.T) {
	for name, o := range map[string]netguard.Options{
		"port 0":       {Ports: []int{0}},
		"port 65536":   {Ports: []int{65536}},
		"zero prefix":  {Allow: []netip.Prefix{{}}},
		"invalid bits": {Allow: []netip.Prefix{netip.PrefixFrom(netip.MustParseAddr("10.0.0.0"), 33)}},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%+v) did not panic", o)
				}
			}()
			netguard.New(o)
		})
	}
}

func TestCheckURL(t *testing.T) {
	d := dnstest.Start(t, dnstest.Zone(testZone))
	g := netguard.New(netguard.Options{Ports: []int{443}, Resolver: d.Resolver()})
	ctx := ctxT(t)
	const secret = "/bucket/s3cr3t-t0ken?sig=abc"
	for _, u := range []string{
		"https://public.test" + secret,
		"https://93.184.216.34:443" + secret,
		"HTTPS://[2606:2800:220:1:248:1893:25c8:1946]/",
		"https://user:pw@public.test/", // credentials are the caller's rules
	} {
		if err := g.CheckURL(ctx, u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", u, err)
		}
	}
	for _, tc := range []struct{ url, why string }{
		{"http://public.test" + secret, "port 80 is not allowed"},
		{"https://public.test:8443" + secret, "port 8443 is not allowed"},
		{"ftp://public.test" + secret, "must start with https:// or http://"},
		{"public.test" + secret, "must start with https:// or http://"},
		{"https://" + secret, "no host"},
		{"https://:443" + secret, "no host"},
		{"https://public.test/%zz", "does not parse"},
		{"https://public.test/" + strings.Repeat("a", 2100), "longer than 2048"},
		{"https://public.test:99999999999999999999999/", "port is not a valid port number"},
		{"https://public.test:0/", "port 0 is not a valid port number"},
		{"https://127.0.0.1" + secret, "127.0.0.1 is not a public address"},
		{"https://[::ffff:127.0.0.1]" + secret, "::ffff:127.0.0.1 is not a public address"},
		{"https://169.254.169.254/latest/meta-data", "169.254.169.254 is not a public address"},
		{"https://loopback.test" + secret, `the host "loopback.test" is not a public address`},
		{"https://nx.test" + secret, `the host "nx.test" is not a public address`},
	} {
		err := g.CheckURL(ctx, tc.url)
		assertRefused(t, err, tc.why)
		if err != nil && (strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "sig=")) {
			t.Errorf("refusal of %q repeats the URL: %q", tc.url, err)
		}
	}
	// The default port of http:// is 80.
	web := netguard.New(netguard.Options{Ports: []int{80}})
	if err := web.CheckURL(ctx, "http://93.184.216.34/"); err != nil {
		t.Errorf("http:// on port 80 = %v", err)
	}
}

// listen starts a TCP server on 127.0.0.1 counting the connections it
// accepts (and closing them).
func listen(t *testing.T) (port int, accepted *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			_, _ = c.Write([]byte("hi"))
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

func TestDialContextRefusesLoopbackUnlessAllowed(t *testing.T) {
	port, accepted := listen(t)
	d := dnstest.Start(t, dnstest.Zone(map[string][]string{"db.test": {"127.0.0.1"}}))
	ctx := ctxT(t)
	p := strconv.Itoa(port)

	prod := netguard.New(netguard.Options{Resolver: d.Resolver()})
	for _, addr := range []string{"127.0.0.1:" + p, "db.test:" + p, "[::ffff:127.0.0.1]:" + p} {
		conn, err := prod.DialContext(ctx, "tcp", addr)
		if conn != nil {
			conn.Close()
		}
		assertRefused(t, err, "is not a public address")
	}
	_, err := prod.DialContext(ctx, "tcp", "db.test:"+p)
	assertRefused(t, err, `the host "db.test"`, "127.0.0.1")

	allowed := netguard.New(netguard.Options{AllowLoopback: true, Resolver: d.Resolver()})
	for _, addr := range []string{"127.0.0.1:" + p, "db.test:" + p} {
		conn, err := allowed.DialContext(ctx, "tcp", addr)
		if err != nil {
			t.Fatalf("DialContext(%s) with loopback allowed = %v", addr, err)
		}
		b, _ := io.ReadAll(conn)
		conn.Close()
		if string(b) != "hi" {
			t.Errorf("read %q from the listener, want hi", b)
		}
	}
	if n := accepted.Load(); n != 2 {
		t.Errorf("listener accepted %d connections, want 2 (only the allowed ones)", n)
	}

	// Only TCP, and only host:port with a numeric port.
	for _, tc := range []struct{ network, addr, why string }{
		{"udp", "127.0.0.1:" + p, "only TCP"},
		{"unix", "/tmp/x.sock", "only TCP"},
		{"tcp", "127.0.0.1", "not host:port"},
		{"tcp", "127.0.0.1:postgresql", "not a port number"},
	} {
		_, err := allowed.DialContext(ctx, tc.network, tc.addr)
		assertRefused(t, err, tc.why)
	}
	// The port restriction holds at dial time too.
	only443 := netguard.New(netguard.Options{AllowLoopback: true, Ports: []int{443}})
	_, err = only443.DialContext(ctx, "tcp", "127.0.0.1:"+p)
	assertRefused(t, err, "port "+p+" is not allowed")
	conn, err := only443.Dialer(5*time.Second).DialContext(ctx, "tcp", "127.0.0.1:"+p)
	if conn != nil {
		conn.Close()
	}
	assertRefused(t, err, "the connection was refused: port "+p+" is not allowed")
	if n := accepted.Load(); n != 2 {
		t.Errorf("listener accepted %d connections, want still 2", n)
	}
}

// TestDialRefusesDNSRebinding: the name is public when checked and
// loopback when dialled; the dialer's Control refuses the address dialled,
// and the refusal shows neither address.
func TestDialRefusesDNSRebinding(t *testing.T) {
	port, accepted := listen(t)
	const name = "rebind.test"
	d := dnstest.Start(t, func(q string, qtype uint16, n int) ([]netip.Addr, bool) {
		if q != name {
			return nil, false
		}
		if qtype != dns.TypeA {
			return nil, true // no AAAA record
		}
		if n%2 == 1 { // every check sees the public address, every dial loopback
			return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, true
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, true
	})
	g := netguard.New(netguard.Options{Resolver: d.Resolver()})
	ctx := ctxT(t)
	addr := net.JoinHostPort(name, strconv.Itoa(port))

	// DialContext: its check sees the public address, its dial loopback.
	conn, err := g.DialContext(ctx, "tcp", addr)
	if conn != nil {
		conn.Close()
	}
	assertRefused(t, err, "the connection was refused: the host no longer resolves to an allowed address", "127.0.0.1", "93.184.216.34")
	var opErr *net.OpError
	if errors.As(err, &opErr) {
		t.Errorf("DialContext's refusal %v is a *net.OpError, which quotes the address", err)
	}

	// Dialer after CheckHost: the same through the *net.OpError.
	if err := g.CheckHost(ctx, name, port); err != nil {
		t.Fatalf("CheckHost while the name is public = %v", err)
	}
	conn, err = g.Dialer(5*time.Second).DialContext(ctx, "tcp", addr)
	if conn != nil {
		conn.Close()
	}
	if !errors.Is(err, netguard.ErrRefused) {
		t.Fatalf("Dialer after rebinding = %v, want ErrRefused", err)
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("listener accepted %d connections, want 0", n)
	}
	if n := d.Count(name, dns.TypeA); n != 4 {
		t.Errorf("%s was asked %d times for A, want 4 (two checks, two dials)", name, n)
	}
}

func TestHTTPTransport(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	d := dnstest.Start(t, dnstest.Zone(map[string][]string{"example.com": {"127.0.0.1"}}))
	ctx := ctxT(t)
	get := func(g *netguard.Guard, u string) (*http.Response, error) {
		tr := g.HTTPTransport()
		t.Cleanup(tr.CloseIdleConnections)
		if tr.Proxy != nil {
			t.Error("HTTPTransport uses a proxy")
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return (&http.Client{Transport: tr}).Do(req)
	}

	prod := netguard.New(netguard.Options{Resolver: d.Resolver()})
	for _, u := range []string{srv.URL, "http://example.com:" + port + "/"} {
		resp, err := get(prod, u)
		if resp != nil {
			resp.Body.Close()
		}
		assertRefused(t, err, "is not a public address")
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("server hit %d times through the production guard", n)
	}

	// With loopback allowed the request goes straight to the server, the
	// environment's proxy ignored (a name, since net/http never proxies a
	// loopback literal).
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadProxy := "http://" + ln.Addr().String()
	ln.Close()
	t.Setenv("HTTP_PROXY", deadProxy)
	t.Setenv("http_proxy", deadProxy)
	allowed := netguard.New(netguard.Options{AllowLoopback: true, Resolver: d.Resolver()})
	resp, err := get(allowed, "http://example.com:"+port+"/")
	if err != nil {
		t.Fatalf("GET with loopback allowed = %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(b) != "ok" || hits.Load() != 1 {
		t.Errorf("GET = %d %q after %d hits, want 200 ok after 1", resp.StatusCode, b, hits.Load())
	}
}

// noDNS is a resolver that never answers: fuzzing must not reach a
// network.
var noDNS = &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) {
	return nil, errors.New("no DNS while fuzzing")
}}

// FuzzCheckURL: CheckURL never panics on an untrusted string, every error
// is a refusal, and a refusal never repeats the URL's path or query.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://93.184.216.34/hook", "http://[::1]:80/", "https://[fe80::1%25eth0]/", "https://user:pw@h/",
		"https://:443/", "https://x:99999999999999999999/", "%zz", "", "https://[::ffff:127.0.0.1]/",
		"https://127.0.0.1#frag", "HTTPS://LOCALHOST./", "https://[", "https://0x7f.1/",
	} {
		f.Add(s)
	}
	guards := []*netguard.Guard{
		netguard.New(netguard.Options{Ports: []int{443}, Resolver: noDNS}),
		netguard.New(netguard.Options{AllowLoopback: true, Resolver: noDNS,
			Allow: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}),
	}
	f.Fuzz(func(t *testing.T, raw string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		for _, g := range guards {
			err := g.CheckURL(ctx, raw)
			if err == nil {
				continue
			}
			if !errors.Is(err, netguard.ErrRefused) {
				t.Fatalf("CheckURL(%q) = %v, not a refusal", raw, err)
			}
			if i := strings.IndexAny(raw, "?"); i >= 0 && len(raw)-i > 12 && strings.Contains(err.Error(), raw[i:]) {
				t.Fatalf("refusal %q repeats the URL's query", err)
			}
		}
	})
}
