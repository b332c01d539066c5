package webhook_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/miekg/dns"

	"github.com/dqs/dqs/netguard"
	"github.com/dqs/dqs/netguard/dnstest"
	"github.com/dqs/dqs/webhook"
)

// secretToken stands for the secret part of a webhook URL's path: no
// error message may ever repeat it.
const secretToken = "XyZsEcReTt0kEn4242"

// secretPath is the path every test URL carries.
const secretPath = "/services/T0000/B0000/" + secretToken

// assertSafeMessage fails when err's message repeats the URL's path or its
// secret token.
func assertSafeMessage(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := err.Error()
	for _, secret := range []string{secretToken, "/services/", "T0000/B0000"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error message %q repeats the URL's secret part %q", msg, secret)
		}
	}
}

// startDNS starts a real DNS server answering with answer (the guard's
// shared test server, netguard/dnstest); it stops when the test ends.
func startDNS(t *testing.T, answer dnstest.AnswerFunc) *dnstest.Server {
	t.Helper()
	return dnstest.Start(t, answer)
}

// zone answers from a fixed table of names; other names do not exist.
var zone = dnstest.Zone

// testZone is the zone of the guard tests.
var testZone = map[string][]string{
	"public.test":      {"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"},
	"public4.test":     {"93.184.216.34"},
	"private.test":     {"10.1.2.3"},
	"loopback.test":    {"127.0.0.1"},
	"loopback6.test":   {"::1"},
	"metadata.test":    {"169.254.169.254"},
	"metadata6.test":   {"fd00:ec2::254"},
	"mixed.test":       {"93.184.216.34", "10.0.0.7"},
	"mixed6.test":      {"93.184.216.34", "fd00::1"},
	"cgnat.test":       {"100.64.0.1"},
	"unspecified.test": {"0.0.0.0"},
}

func checkCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestCheckRefusesWithProductionGuard(t *testing.T) {
	d := startDNS(t, zone(testZone))
	g := webhook.NewGuard(webhook.GuardOptions{Resolver: d.Resolver()})
	ctx := checkCtx(t)

	long := "https://hooks.slack.com" + secretPath + "/" + strings.Repeat("a", 2100)
	cases := []struct {
		name, url string
		why       string // a fragment of the expected reason
	}{
		{"http scheme", "http://hooks.slack.com" + secretPath, "https://"},
		{"ftp scheme", "ftp://hooks.slack.com" + secretPath, "https://"},
		{"no scheme", "hooks.slack.com" + secretPath, "https://"},
		{"no host", "https://" + secretPath, "no host"},
		{"no host with port", "https://:443" + secretPath, "no host"},
		{"user and password", "https://user:hunter2@hooks.slack.com" + secretPath, "user name or password"},
		{"user only", "https://hunter2@hooks.slack.com" + secretPath, "user name or password"},
		{"fragment", "https://hooks.slack.com" + secretPath + "#frag", "fragment"},
		{"empty fragment", "https://hooks.slack.com" + secretPath + "#", "fragment"},
		{"over 2048 characters", long, "longer than 2048"},
		{"does not parse", "https://hooks.slack.com" + secretPath + "%zz", "does not parse"},
		{"loopback 127.0.0.1", "https://127.0.0.1" + secretPath, "127.0.0.1"},
		{"loopback 127.1.2.3", "https://127.1.2.3" + secretPath, "127.1.2.3"},
		{"loopback ::1", "https://[::1]" + secretPath, "::1"},
		{"private 10/8", "https://10.0.0.1" + secretPath, "10.0.0.1"},
		{"private 172.16/12", "https://172.16.5.4" + secretPath, "172.16.5.4"},
		{"private 192.168/16", "https://192.168.1.1" + secretPath, "192.168.1.1"},
		{"cloud metadata 169.254.169.254", "https://169.254.169.254" + secretPath, "169.254.169.254"},
		{"link-local fe80::1", "https://[fe80::1]" + secretPath, "fe80::1"},
		{"unique-local fc00::1", "https://[fc00::1]" + secretPath, "fc00::1"},
		{"AWS IPv6 metadata fd00:ec2::254", "https://[fd00:ec2::254]" + secretPath, "fd00:ec2::254"},
		{"multicast 224.0.0.1", "https://224.0.0.1" + secretPath, "224.0.0.1"},
		{"multicast ff02::1", "https://[ff02::1]" + secretPath, "ff02::1"},
		{"unspecified 0.0.0.0", "https://0.0.0.0" + secretPath, "0.0.0.0"},
		{"unspecified ::", "https://[::]" + secretPath, "::"},
		{"CGNAT 100.64.0.1", "https://100.64.0.1" + secretPath, "100.64.0.1"},
		{"IPv4-mapped loopback", "https://[::ffff:127.0.0.1]" + secretPath, "127.0.0.1"},
		{"IPv4-mapped private", "https://[::ffff:10.0.0.1]" + secretPath, "10.0.0.1"},
		{"documentation 192.0.2.1", "https://192.0.2.1" + secretPath, "192.0.2.1"},
		{"public IP on port 8443", "https://93.184.216.34:8443" + secretPath, "port 443"},
		{"public IP on port 80", "https://93.184.216.34:80" + secretPath, "port 443"},
		{"public name on port 8443", "https://public.test:8443" + secretPath, "port 443"},
		{"name resolving to private", "https://private.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to loopback", "https://loopback.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to IPv6 loopback", "https://loopback6.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to metadata", "https://metadata.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to IPv6 metadata", "https://metadata6.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to CGNAT", "https://cgnat.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to 0.0.0.0", "https://unspecified.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to public and private", "https://mixed.test" + secretPath, "resolves to a private or internal address"},
		{"name resolving to public and private IPv6", "https://mixed6.test" + secretPath, "resolves to a private or internal address"},
		{"name that does not resolve", "https://nx.test" + secretPath, "does not resolve"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := g.Check(ctx, tc.url)
			if err == nil {
				t.Fatalf("Check(%q) = nil, want a refusal", tc.url)
			}
			if !errors.Is(err, webhook.ErrTarget) {
				t.Errorf("Check error %v does not wrap ErrTarget", err)
			}
			if !strings.Contains(err.Error(), tc.why) {
				t.Errorf("Check error %q does not say %q", err, tc.why)
			}
			assertSafeMessage(t, err)
			assertNoResolvedAddress(t, tc.url, err)
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("Check error %q repeats the URL's password", err)
			}
			if len(err.Error()) > 300 {
				t.Errorf("Check error is %d characters long, it repeats too much: %q", len(err.Error()), err)
			}
		})
	}
}

// TestCheckRefusalDoesNotTellResolvingFromMissing: a name that resolves
// to a private address and a name that does not resolve are refused with
// the same words, so an admin cannot probe which internal names exist.
func TestCheckRefusalDoesNotTellResolvingFromMissing(t *testing.T) {
	d := startDNS(t, zone(testZone))
	g := webhook.NewGuard(webhook.GuardOptions{Resolver: d.Resolver()})
	ctx := checkCtx(t)
	reason := func(host string) string {
		err := g.Check(ctx, "https://"+host+secretPath)
		if !errors.Is(err, webhook.ErrTarget) {
			t.Fatalf("Check(%s) = %v, want a refusal", host, err)
		}
		return strings.ReplaceAll(err.Error(), host, "HOST")
	}
	missing := reason("nx.test")
	for _, host := range []string{"private.test", "loopback.test", "metadata6.test", "mixed.test"} {
		if got := reason(host); got != missing {
			t.Errorf("refusal of %s = %q, of a missing name = %q; want the same words", host, got, missing)
		}
	}
}

func TestCheckAcceptsPublicTargets(t *testing.T) {
	d := startDNS(t, zone(testZone))
	g := webhook.NewGuard(webhook.GuardOptions{Resolver: d.Resolver()})
	ctx := checkCtx(t)
	for _, u := range []string{
		"https://93.184.216.34/services/x",
		"https://93.184.216.34:443" + secretPath,
		"https://[2606:2800:220:1:248:1893:25c8:1946]" + secretPath,
		"https://public.test" + secretPath,
		"https://public4.test" + secretPath + "?x=1",
		"https://PUBLIC.test:443" + secretPath,
	} {
		if err := g.Check(ctx, u); err != nil {
			t.Errorf("Check(%q) = %v, want nil", u, err)
		}
	}
	// The names were really asked of the DNS server (public.test and
	// PUBLIC.test once each).
	if n := d.Count("public.test", dns.TypeA); n != 2 {
		t.Errorf("public.test was asked %d times for A, want 2", n)
	}
}

func TestCheckLoopbackAllowanceKeepsOtherRangesRefused(t *testing.T) {
	d := startDNS(t, zone(testZone))
	g := webhook.NewGuard(webhook.GuardOptions{AllowLoopback: true, Resolver: d.Resolver()})
	ctx := checkCtx(t)
	for _, u := range []string{
		"https://127.0.0.1:8443" + secretPath,
		"https://127.1.2.3" + secretPath,
		"https://[::1]:1234" + secretPath,
		"https://loopback.test:9999" + secretPath,
		"https://93.184.216.34:8443" + secretPath, // any port with the allowance
	} {
		if err := g.Check(ctx, u); err != nil {
			t.Errorf("Check(%q) with the loopback allowance = %v, want nil", u, err)
		}
	}
	for _, u := range []string{
		"http://127.0.0.1:8443" + secretPath,
		"https://10.0.0.1" + secretPath,
		"https://192.168.1.1:8443" + secretPath,
		"https://169.254.169.254" + secretPath,
		"https://[fd00:ec2::254]" + secretPath,
		"https://[fe80::1]" + secretPath,
		"https://[::ffff:127.0.0.1]" + secretPath,
		"https://0.0.0.0" + secretPath,
		"https://private.test" + secretPath,
		"https://mixed.test" + secretPath,
	} {
		err := g.Check(ctx, u)
		if !errors.Is(err, webhook.ErrTarget) {
			t.Errorf("Check(%q) with the loopback allowance = %v, want an ErrTarget refusal", u, err)
		}
		assertSafeMessage(t, err)
		assertNoResolvedAddress(t, u, err)
	}
}

// assertNoResolvedAddress fails when a refusal of a URL naming a host of
// the test zone shows an address the name resolves to: the message may
// name the host typed, never what it resolved to (a DNS oracle).
func assertNoResolvedAddress(t *testing.T, rawURL string, err error) {
	t.Helper()
	u, perr := url.Parse(rawURL)
	if perr != nil || err == nil {
		return
	}
	for _, addr := range testZone[strings.ToLower(u.Hostname())] {
		if strings.Contains(err.Error(), addr) {
			t.Errorf("refusal of %s shows the resolved address %s: %q", u.Hostname(), addr, err)
		}
	}
}

func TestTailMaskMasked(t *testing.T) {
	const u = "https://hooks.slack.com/services/T0000/B0000/abcdefgh12345678"
	if got := webhook.Tail(u); got != "12345678" {
		t.Errorf("Tail = %q, want %q", got, "12345678")
	}
	want := strings.Repeat("*", len(u)-8) + "12345678"
	if got := webhook.Mask(u); got != want {
		t.Errorf("Mask = %q, want %q", got, want)
	}
	if got := webhook.Masked(len(u), webhook.Tail(u)); got != want {
		t.Errorf("Masked(len, Tail) = %q, want %q", got, want)
	}
	if strings.Contains(webhook.Mask(u), "abcdefgh") || strings.Contains(webhook.Mask(u), "hooks") {
		t.Errorf("Mask shows more than the last 8 characters: %q", webhook.Mask(u))
	}

	// Short URLs (8 characters or fewer) are fully hidden, length kept.
	for _, s := range []string{"", "a", "short", "12345678"} {
		if got := webhook.Tail(s); got != "" {
			t.Errorf("Tail(%q) = %q, want empty", s, got)
		}
		if got, want := webhook.Mask(s), strings.Repeat("*", len(s)); got != want {
			t.Errorf("Mask(%q) = %q, want %q", s, got, want)
		}
	}
	if got := webhook.Mask("123456789"); got != "*23456789" {
		t.Errorf("Mask(9 chars) = %q, want %q", got, "*23456789")
	}

	// Lengths and tails count characters, not bytes.
	const uni = "https://example.com/hook/ééééüüüüßß"
	tail := webhook.Tail(uni)
	if tail != "ééüüüüßß" {
		t.Errorf("Tail(%q) = %q, want %q", uni, tail, "ééüüüüßß")
	}
	masked := webhook.Mask(uni)
	if utf8.RuneCountInString(masked) != utf8.RuneCountInString(uni) {
		t.Errorf("Mask(%q) = %q: %d characters, want %d", uni, masked, utf8.RuneCountInString(masked), utf8.RuneCountInString(uni))
	}
	if !strings.HasSuffix(masked, "ééüüüüßß") || !utf8.ValidString(masked) {
		t.Errorf("Mask(%q) = %q", uni, masked)
	}

	// Masked renders stored (length, tail) pairs.
	if got := webhook.Masked(12, "abcdefgh"); got != "****abcdefgh" {
		t.Errorf("Masked(12, tail) = %q", got)
	}
	if got := webhook.Masked(5, ""); got != "*****" {
		t.Errorf("Masked(5, \"\") = %q", got)
	}
	if got := webhook.Masked(0, ""); got != "" {
		t.Errorf("Masked(0, \"\") = %q", got)
	}
}

// TestCheckJudgesHostsFileEntriesAsIPv4: the system resolver returns
// hosts-file entries (localhost) in IPv4-mapped form; they are judged as
// the IPv4 address the dialer connects to, not refused as mapped IPv6.
func TestCheckJudgesHostsFileEntriesAsIPv4(t *testing.T) {
	g := webhook.NewGuard(webhook.GuardOptions{AllowLoopback: true})
	if err := g.Check(context.Background(), "https://localhost:8443/hook"); err != nil {
		t.Fatalf("localhost with the loopback allowance = %v, want accepted", err)
	}
	prod := webhook.NewGuard(webhook.GuardOptions{})
	err := prod.Check(context.Background(), "https://localhost/hook")
	if !errors.Is(err, webhook.ErrTarget) || !strings.Contains(err.Error(), `"localhost"`) ||
		!strings.Contains(err.Error(), "private or internal address") {
		t.Fatalf("localhost with the production guard = %v, want refused, naming the host and the reason", err)
	}
	// The refusal names the host typed, never what it resolves to.
	for _, addr := range []string{"127.0.0.1", "::1", "127.0."} {
		if strings.Contains(err.Error(), addr) {
			t.Fatalf("refusal of localhost %q shows the resolved address %s", err, addr)
		}
	}
}

// TestRefusalsShareTheNetworkGuardsSentinel: the webhook guard is a thin
// layer over netguard: a refusal of the address also matches
// netguard.ErrRefused, with the guard's reason; a webhook-only rule
// (https://) is a webhook refusal only.
func TestRefusalsShareTheNetworkGuardsSentinel(t *testing.T) {
	g := webhook.NewGuard(webhook.GuardOptions{})
	ctx := checkCtx(t)
	err := g.Check(ctx, "https://10.0.0.1"+secretPath)
	if !errors.Is(err, webhook.ErrTarget) || !errors.Is(err, netguard.ErrRefused) {
		t.Fatalf("Check(private) = %v, want ErrTarget and netguard.ErrRefused", err)
	}
	if want := "webhook target refused: 10.0.0.1 is not a public address (it is private, internal or reserved)"; err.Error() != want {
		t.Errorf("Check(private) = %q, want %q", err, want)
	}
	err = g.Check(ctx, "http://93.184.216.34"+secretPath)
	if !errors.Is(err, webhook.ErrTarget) || errors.Is(err, netguard.ErrRefused) {
		t.Errorf("Check(http://) = %v, want a webhook refusal only", err)
	}
}
