// Package dnstest runs a real DNS server for tests (UDP and TCP on
// 127.0.0.1, random ports) and a resolver that asks only it, so the
// guard's tests resolve names through the same code as production.
package dnstest

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// AnswerFunc answers one DNS question: the addresses of name (lower case,
// no trailing dot) for qtype (dns.TypeA or dns.TypeAAAA; only those of the
// matching family are sent), n being how many times (1-based) this name
// and type have been asked. ok false answers NXDOMAIN.
type AnswerFunc func(name string, qtype uint16, n int) (addrs []netip.Addr, ok bool)

// Server is a running DNS server.
type Server struct {
	answer  AnswerFunc
	udpAddr string
	tcpAddr string

	mu     sync.Mutex
	counts map[string]int
}

func queryKey(name string, qtype uint16) string {
	return name + "/" + dns.TypeToString[qtype]
}

// ServeDNS implements dns.Handler.
func (d *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	m.RecursionAvailable = true
	if len(req.Question) != 1 {
		m.SetRcode(req, dns.RcodeFormatError)
		_ = w.WriteMsg(m)
		return
	}
	q := req.Question[0]
	name := strings.ToLower(strings.TrimSuffix(q.Name, "."))
	d.mu.Lock()
	d.counts[queryKey(name, q.Qtype)]++
	n := d.counts[queryKey(name, q.Qtype)]
	d.mu.Unlock()

	addrs, ok := d.answer(name, q.Qtype, n)
	if !ok {
		m.SetRcode(req, dns.RcodeNameError)
		m.Authoritative = true
		m.RecursionAvailable = true
		_ = w.WriteMsg(m)
		return
	}
	for _, a := range addrs {
		hdr := dns.RR_Header{Name: q.Name, Rrtype: q.Qtype, Class: dns.ClassINET, Ttl: 0}
		switch {
		case q.Qtype == dns.TypeA && a.Is4():
			m.Answer = append(m.Answer, &dns.A{Hdr: hdr, A: net.IP(a.AsSlice())})
		case q.Qtype == dns.TypeAAAA && a.Is6():
			m.Answer = append(m.Answer, &dns.AAAA{Hdr: hdr, AAAA: net.IP(a.AsSlice())})
		}
	}
	_ = w.WriteMsg(m)
}

// Count is how many times name was asked for qtype.
func (d *Server) Count(name string, qtype uint16) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.counts[queryKey(name, qtype)]
}

// Resolver is a pure-Go resolver that asks only this server.
func (d *Server) Resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, StrictErrors: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var dialer net.Dialer
			if strings.HasPrefix(network, "udp") {
				return dialer.DialContext(ctx, "udp", d.udpAddr)
			}
			return dialer.DialContext(ctx, "tcp", d.tcpAddr)
		}}
}

// Start starts a real DNS server answering with answer; it stops when the
// test ends.
func Start(t testing.TB, answer AnswerFunc) *Server {
	t.Helper()
	d := &Server{answer: answer, counts: map[string]int{}}

	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen udp: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		_ = pc.Close()
		t.Fatalf("listen tcp: %v", err)
	}
	d.udpAddr, d.tcpAddr = pc.LocalAddr().String(), ln.Addr().String()

	for _, srv := range []*dns.Server{
		{PacketConn: pc, Handler: d},
		{Listener: ln, Handler: d},
	} {
		started := make(chan struct{})
		srv.NotifyStartedFunc = func() { close(started) }
		served := make(chan error, 1)
		go func() { served <- srv.ActivateAndServe() }()
		select {
		case <-started:
		case err := <-served:
			t.Fatalf("dns server: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("dns server did not start")
		}
		t.Cleanup(func() {
			_ = srv.Shutdown()
			<-served
		})
	}
	return d
}

// Zone answers from a fixed table of names (lower case) to addresses;
// other names do not exist.
func Zone(records map[string][]string) AnswerFunc {
	parsed := map[string][]netip.Addr{}
	for name, addrs := range records {
		for _, a := range addrs {
			parsed[name] = append(parsed[name], netip.MustParseAddr(a))
		}
	}
	return func(name string, _ uint16, _ int) ([]netip.Addr, bool) {
		addrs, ok := parsed[name]
		return addrs, ok
	}
}
