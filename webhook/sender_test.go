package webhook_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/miekg/dns"

	"github.com/dqs/dqs/webhook"
)

// TestSendIgnoresProxyEnvironment comes first in this file: net/http reads
// the proxy variables once per process, so a sender that wrongly used
// them would only be caught by the first request the test binary makes.
func TestSendIgnoresProxyEnvironment(t *testing.T) {
	// An address where nothing listens.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadProxy := "http://" + ln.Addr().String()
	_ = ln.Close()
	for _, k := range []string{"HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy", "ALL_PROXY", "all_proxy"} {
		t.Setenv(k, deadProxy)
	}
	t.Setenv("NO_PROXY", "")
	t.Setenv("no_proxy", "")

	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	// A host name (not a loopback literal, which net/http never proxies)
	// that the test's DNS server resolves to the receiver.
	d := startDNS(t, zone(map[string][]string{"example.com": {"127.0.0.1"}}))
	g := webhook.NewGuard(webhook.GuardOptions{AllowLoopback: true, Resolver: d.Resolver()})
	s := webhook.NewSender(g, webhook.SenderOptions{Timeout: 5 * time.Second, RootCAs: rcv.pool})

	u := "https://example.com:" + rcv.port() + secretPath
	res := s.Send(sendCtx(t), u, []byte(`{"text":"hi"}`))
	assertSafeMessage(t, res.Err)
	if !res.OK() || res.Status != http.StatusOK {
		t.Fatalf("Send with proxy variables set = %+v, want OK 200 straight to the receiver", res)
	}
	if n := rcv.hits.Load(); n != 1 {
		t.Errorf("receiver hit %d times, want 1", n)
	}
	if d.Count("example.com", dns.TypeA) == 0 {
		t.Error("the sender did not resolve the receiver's name itself")
	}
}

// receiver is a real HTTPS server on loopback.
type receiver struct {
	srv  *httptest.Server
	pool *x509.CertPool
	hits atomic.Int32
}

func (r *receiver) port() string {
	return strconv.Itoa(r.srv.Listener.Addr().(*net.TCPAddr).Port)
}

// url is the receiver's address with the secret path.
func (r *receiver) url() string { return r.srv.URL + secretPath }

func newReceiver(t *testing.T, h http.HandlerFunc) *receiver {
	t.Helper()
	rcv := &receiver{}
	rcv.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rcv.hits.Add(1)
		h(w, r)
	}))
	rcv.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	rcv.srv.StartTLS()
	t.Cleanup(rcv.srv.Close)
	rcv.pool = x509.NewCertPool()
	rcv.pool.AddCert(rcv.srv.Certificate())
	return rcv
}

// loopbackSender trusts pool and may reach loopback (the test-only
// allowance).
func loopbackSender(pool *x509.CertPool, timeout time.Duration) *webhook.Sender {
	g := webhook.NewGuard(webhook.GuardOptions{AllowLoopback: true})
	return webhook.NewSender(g, webhook.SenderOptions{Timeout: timeout, RootCAs: pool})
}

func sendCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type received struct {
	method, contentType, path string
	body                      []byte
}

func TestPostDeliversExactPayload(t *testing.T) {
	got := make(chan received, 1)
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		got <- received{r.Method, r.Header.Get("Content-Type"), r.URL.Path, b}
		_, _ = io.WriteString(w, "ok")
	})
	s := loopbackSender(rcv.pool, 5*time.Second)
	m := webhook.Message{Title: "Run failed <oops>", Text: "Check \"orders\" & <@here>\nline two"}

	for _, platform := range webhook.Platforms {
		t.Run(platform, func(t *testing.T) {
			want, err := webhook.Payload(platform, m)
			if err != nil {
				t.Fatal(err)
			}
			res := s.Post(sendCtx(t), platform, rcv.url(), m)
			if !res.OK() || res.Status != http.StatusOK || res.Permanent {
				t.Fatalf("Post = %+v, want OK 200", res)
			}
			var r received
			select {
			case r = <-got:
			default:
				t.Fatal("the receiver got nothing")
			}
			if r.method != http.MethodPost {
				t.Errorf("method = %s, want POST", r.method)
			}
			if r.contentType != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", r.contentType)
			}
			if r.path != secretPath {
				t.Errorf("path = %q, want %q", r.path, secretPath)
			}
			if string(r.body) != string(want) {
				t.Errorf("body = %s\nwant %s", r.body, want)
			}
			if !json.Valid(r.body) {
				t.Errorf("body is not JSON: %s", r.body)
			}
		})
	}

	// Send posts the given bytes as they are.
	body := []byte(`{"blocks":[],"x":"\u00e9"}`)
	res := s.Send(sendCtx(t), rcv.url(), body)
	if !res.OK() {
		t.Fatalf("Send = %+v", res)
	}
	if r := <-got; string(r.body) != string(body) {
		t.Errorf("body = %s, want %s", r.body, body)
	}
}

func TestPostUnknownPlatform(t *testing.T) {
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {})
	s := loopbackSender(rcv.pool, 5*time.Second)
	res := s.Post(sendCtx(t), "discord", rcv.url(), webhook.Message{Title: "t", Text: "x"})
	if res.OK() || !res.Permanent || res.Status != 0 {
		t.Errorf("Post to an unknown platform = %+v, want a permanent failure", res)
	}
	if n := rcv.hits.Load(); n != 0 {
		t.Errorf("receiver hit %d times, want 0", n)
	}
}

func TestSendStatusClassification(t *testing.T) {
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		code, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil {
			code = http.StatusTeapot
		}
		w.WriteHeader(code)
		if code != http.StatusNoContent && code != http.StatusNotModified {
			_, _ = io.WriteString(w, `{"error":"whatever"}`)
		}
	})
	s := loopbackSender(rcv.pool, 5*time.Second)
	const (
		ok = iota
		retry
		permanent
	)
	cases := []struct {
		code int
		want int
	}{
		{200, ok}, {201, ok}, {202, ok}, {204, ok},
		{500, retry}, {502, retry}, {503, retry}, {504, retry}, {408, retry}, {429, retry},
		{400, permanent}, {401, permanent}, {403, permanent}, {404, permanent}, {410, permanent}, {413, permanent},
		{301, permanent}, {302, permanent}, {307, permanent}, {308, permanent},
	}
	for _, tc := range cases {
		t.Run(strconv.Itoa(tc.code), func(t *testing.T) {
			res := s.Send(sendCtx(t), rcv.url()+"?code="+strconv.Itoa(tc.code), []byte(`{}`))
			assertSafeMessage(t, res.Err)
			if res.Status != tc.code {
				t.Errorf("Status = %d, want %d", res.Status, tc.code)
			}
			switch tc.want {
			case ok:
				if !res.OK() || res.Permanent {
					t.Errorf("Send = %+v, want OK", res)
				}
			case retry:
				if res.OK() || res.Permanent {
					t.Errorf("Send = %+v, want a failure worth retrying", res)
				}
			case permanent:
				if res.OK() || !res.Permanent {
					t.Errorf("Send = %+v, want a permanent failure", res)
				}
			}
			if res.Err != nil && !strings.Contains(res.Err.Error(), strconv.Itoa(tc.code)) {
				t.Errorf("error %q does not give the status", res.Err)
			}
			if res.Err != nil && errors.Is(res.Err, webhook.ErrTarget) {
				t.Errorf("an HTTP answer is not a refused target: %v", res.Err)
			}
		})
	}
}

func TestSendDoesNotFollowRedirects(t *testing.T) {
	second := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	first := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, second.url(), http.StatusFound)
	})
	s := loopbackSender(first.pool, 5*time.Second)
	res := s.Send(sendCtx(t), first.url(), []byte(`{}`))
	assertSafeMessage(t, res.Err)
	if res.OK() || !res.Permanent || res.Status != http.StatusFound {
		t.Errorf("Send answered by a redirect = %+v, want a permanent failure with status 302", res)
	}
	if res.Err != nil && !strings.Contains(res.Err.Error(), "redirect") {
		t.Errorf("error %q does not mention the redirect", res.Err)
	}
	if n := first.hits.Load(); n != 1 {
		t.Errorf("first receiver hit %d times, want 1", n)
	}
	if n := second.hits.Load(); n != 0 {
		t.Errorf("the redirect was followed: second receiver hit %d times", n)
	}
}

func TestSendDoesNotReadAHugeAnswer(t *testing.T) {
	const huge = 50 << 20
	written := make(chan int64, 1)
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusOK)
		chunk := []byte(strings.Repeat("x", 32<<10))
		var n int64
		for n < huge {
			k, err := w.Write(chunk)
			n += int64(k)
			if err != nil {
				break
			}
		}
		written <- n
	})
	s := loopbackSender(rcv.pool, 20*time.Second)
	start := time.Now()
	res := s.Send(sendCtx(t), rcv.url(), []byte(`{}`))
	elapsed := time.Since(start)
	if !res.OK() || res.Status != http.StatusOK {
		t.Fatalf("Send = %+v, want OK", res)
	}
	var n int64
	select {
	case n = <-written:
	case <-time.After(15 * time.Second):
		t.Fatal("the receiver kept writing: the sender did not hang up")
	}
	if n >= huge {
		t.Errorf("the receiver wrote all %d bytes: the sender read the whole answer", n)
	}
	if elapsed > 10*time.Second {
		t.Errorf("Send took %v", elapsed)
	}
	t.Logf("receiver wrote %d of %d bytes; Send took %v", n, huge, elapsed)
}

func TestSendTimeout(t *testing.T) {
	release := make(chan struct{})
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	s := loopbackSender(rcv.pool, 300*time.Millisecond)
	start := time.Now()
	res := s.Send(sendCtx(t), rcv.url(), []byte(`{}`))
	elapsed := time.Since(start)
	assertSafeMessage(t, res.Err)
	if res.OK() || res.Permanent || res.Status != 0 {
		t.Fatalf("Send to a slow receiver = %+v, want a failure worth retrying", res)
	}
	if !strings.Contains(res.Err.Error(), "did not answer in time") {
		t.Errorf("error %q does not say the target did not answer in time", res.Err)
	}
	if elapsed > 5*time.Second {
		t.Errorf("Send took %v with a 300ms timeout", elapsed)
	}
	if n := rcv.hits.Load(); n != 1 {
		t.Errorf("receiver hit %d times, want 1", n)
	}
}

func TestSendRefusesPlainHTTP(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
	}))
	t.Cleanup(srv.Close)
	s := loopbackSender(nil, 5*time.Second)

	res := s.Send(sendCtx(t), srv.URL+secretPath, []byte(`{}`))
	assertSafeMessage(t, res.Err)
	if res.OK() || !res.Permanent || !errors.Is(res.Err, webhook.ErrTarget) {
		t.Errorf("Send to http:// = %+v, want a permanent ErrTarget refusal", res)
	}
	if res.Err != nil && !strings.Contains(res.Err.Error(), "https://") {
		t.Errorf("error %q does not say https is required", res.Err)
	}

	// https:// to the plain-HTTP server: the TLS handshake fails.
	u := strings.Replace(srv.URL, "http://", "https://", 1) + secretPath
	res = s.Send(sendCtx(t), u, []byte(`{}`))
	assertSafeMessage(t, res.Err)
	if res.OK() {
		t.Errorf("Send over TLS to a plain-HTTP server = %+v, want a failure", res)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("plain-HTTP server hit %d times, want 0", n)
	}
}

func TestSendRefusesUntrustedCertificate(t *testing.T) {
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	s := loopbackSender(nil, 5*time.Second) // system roots only
	res := s.Send(sendCtx(t), rcv.url(), []byte(`{}`))
	assertSafeMessage(t, res.Err)
	if res.OK() || res.Status != 0 {
		t.Errorf("Send to an untrusted certificate = %+v, want a failure", res)
	}
	if res.Err != nil && errors.Is(res.Err, webhook.ErrTarget) {
		t.Errorf("an untrusted certificate is not a refused target: %v", res.Err)
	}
	if n := rcv.hits.Load(); n != 0 {
		t.Errorf("receiver handled %d requests over an untrusted connection", n)
	}
}

func TestSendProductionGuardRefusesLoopbackReceiver(t *testing.T) {
	rcv := newReceiver(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	s := webhook.NewSender(webhook.NewGuard(webhook.GuardOptions{}),
		webhook.SenderOptions{Timeout: 5 * time.Second, RootCAs: rcv.pool})
	res := s.Send(sendCtx(t), rcv.url(), []byte(`{}`))
	assertSafeMessage(t, res.Err)
	if res.OK() || !res.Permanent || !errors.Is(res.Err, webhook.ErrTarget) {
		t.Errorf("Send = %+v, want a permanent ErrTarget refusal", res)
	}
	if n := rcv.hits.Load(); n != 0 {
		t.Errorf("receiver hit %d times, want 0", n)
	}
}

// TestSendRefusesDNSRebindingAtDialTime: the name is public when checked
// and private when dialled; the dialer's Control must refuse it.
func TestSendRefusesDNSRebindingAtDialTime(t *testing.T) {
	public := netip.MustParseAddr("93.184.216.34")
	for _, private := range []string{"127.0.0.1", "10.0.0.1", "169.254.169.254"} {
		t.Run(private, func(t *testing.T) {
			const name = "rebind.test"
			privateAddr := netip.MustParseAddr(private)
			d := startDNS(t, func(q string, qtype uint16, n int) ([]netip.Addr, bool) {
				if q != name {
					return nil, false
				}
				if qtype != dns.TypeA {
					return nil, true // no AAAA record
				}
				// The first two A queries (the test's own Check, then the
				// one Send makes) see the public address; the dialer's
				// resolution sees the private one.
				if n <= 2 {
					return []netip.Addr{public}, true
				}
				return []netip.Addr{privateAddr}, true
			})
			g := webhook.NewGuard(webhook.GuardOptions{Resolver: d.Resolver()})
			s := webhook.NewSender(g, webhook.SenderOptions{Timeout: 5 * time.Second})
			u := "https://" + name + secretPath

			if err := g.Check(sendCtx(t), u); err != nil {
				t.Fatalf("Check while the name is public = %v, want nil", err)
			}
			res := s.Send(sendCtx(t), u, []byte(`{}`))
			assertSafeMessage(t, res.Err)
			if res.OK() || !res.Permanent || res.Status != 0 {
				t.Fatalf("Send after rebinding = %+v, want a permanent failure", res)
			}
			if !errors.Is(res.Err, webhook.ErrTarget) {
				t.Fatalf("Send after rebinding: %v does not wrap ErrTarget", res.Err)
			}
			// It is the dial-time check that refused (Send's own Check
			// still saw the public address), and its message shows neither
			// the address dialled nor the one checked.
			msg := res.Err.Error()
			if !strings.Contains(msg, "connection was refused") {
				t.Errorf("error %q is not the dial-time refusal", msg)
			}
			for _, addr := range []string{private, public.String()} {
				if strings.Contains(msg, addr) {
					t.Errorf("error %q shows the resolved address %s", msg, addr)
				}
			}
			if n := d.Count(name, dns.TypeA); n != 3 {
				t.Errorf("%s was asked %d times for A, want 3 (Check, Send's check, the dial)", name, n)
			}
		})
	}
}

func TestPayloadSlack(t *testing.T) {
	m := webhook.Message{
		Title: "Run <failed> & stopped",
		Text:  "Table a&b has <3 rows> see <https://evil|here> <!channel>",
	}
	got := decodePayload(t, webhook.Slack, m)
	want := map[string]any{"blocks": []any{
		map[string]any{"type": "header", "text": map[string]any{
			"type": "plain_text", "text": "Run <failed> & stopped"}},
		map[string]any{"type": "section", "text": map[string]any{
			"type": "mrkdwn",
			"text": "Table a&amp;b has &lt;3 rows&gt; see &lt;https://evil|here&gt; &lt;!channel&gt;"}},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("slack payload =\n%#v\nwant\n%#v", got, want)
	}
}

func TestPayloadTeams(t *testing.T) {
	m := webhook.Message{Title: "Run <failed> & stopped", Text: "Table a&b has <3 rows>\nsecond line"}
	got := decodePayload(t, webhook.Teams, m)
	want := map[string]any{
		"type": "message",
		"attachments": []any{map[string]any{
			"contentType": "application/vnd.microsoft.card.adaptive",
			"content": map[string]any{
				"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
				"type":    "AdaptiveCard",
				"version": "1.4",
				"body": []any{
					map[string]any{"type": "TextBlock", "text": "Run <failed> & stopped",
						"weight": "Bolder", "size": "Medium", "wrap": true},
					map[string]any{"type": "TextBlock", "text": "Table a&b has <3 rows>\nsecond line",
						"wrap": true},
				},
			},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("teams payload =\n%#v\nwant\n%#v", got, want)
	}
}

func TestPayloadTruncatesLongTitleAndText(t *testing.T) {
	longTitle := strings.Repeat("é", 500)
	longText := strings.Repeat("ab", 4000)
	for _, platform := range webhook.Platforms {
		t.Run(platform, func(t *testing.T) {
			title, text := payloadTexts(t, platform, webhook.Message{Title: longTitle, Text: longText})
			if n := utf8.RuneCountInString(title); n != 150 {
				t.Errorf("title is %d characters, want 150", n)
			}
			if !utf8.ValidString(title) || !strings.HasSuffix(title, "…") || !strings.HasPrefix(longTitle, strings.TrimSuffix(title, "…")) {
				t.Errorf("title %q is not the start of the title and an ellipsis", title)
			}
			if n := utf8.RuneCountInString(text); n != 3000 {
				t.Errorf("text is %d characters, want 3000", n)
			}
			if !strings.HasSuffix(text, "…") || !strings.HasPrefix(longText, strings.TrimSuffix(text, "…")) {
				t.Errorf("text is not the start of the text and an ellipsis")
			}

			// At the limits nothing is cut.
			exactTitle, exactText := strings.Repeat("t", 150), strings.Repeat("x", 3000)
			title, text = payloadTexts(t, platform, webhook.Message{Title: exactTitle, Text: exactText})
			if title != exactTitle || text != exactText {
				t.Errorf("a 150-character title or 3000-character text was changed")
			}
		})
	}
}

func TestPayloadUnknownPlatform(t *testing.T) {
	for _, p := range []string{"", "discord", "Slack", "TEAMS", "slack "} {
		b, err := webhook.Payload(p, webhook.Message{Title: "t", Text: "x"})
		if err == nil || b != nil {
			t.Errorf("Payload(%q) = %s, %v; want an error", p, b, err)
		}
	}
}

func decodePayload(t *testing.T, platform string, m webhook.Message) map[string]any {
	t.Helper()
	b, err := webhook.Payload(platform, m)
	if err != nil {
		t.Fatalf("Payload(%s): %v", platform, err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("Payload(%s) is not JSON: %v\n%s", platform, err, b)
	}
	return v
}

// payloadTexts extracts the rendered title and text of a payload.
func payloadTexts(t *testing.T, platform string, m webhook.Message) (title, text string) {
	t.Helper()
	b, err := webhook.Payload(platform, m)
	if err != nil {
		t.Fatal(err)
	}
	switch platform {
	case webhook.Slack:
		var v struct {
			Blocks []struct {
				Text struct{ Text string } `json:"text"`
			} `json:"blocks"`
		}
		if err := json.Unmarshal(b, &v); err != nil || len(v.Blocks) != 2 {
			t.Fatalf("slack payload %s: %v", b, err)
		}
		return v.Blocks[0].Text.Text, v.Blocks[1].Text.Text
	case webhook.Teams:
		var v struct {
			Attachments []struct {
				Content struct {
					Body []struct {
						Text string `json:"text"`
					} `json:"body"`
				} `json:"content"`
			} `json:"attachments"`
		}
		if err := json.Unmarshal(b, &v); err != nil || len(v.Attachments) != 1 || len(v.Attachments[0].Content.Body) != 2 {
			t.Fatalf("teams payload %s: %v", b, err)
		}
		return v.Attachments[0].Content.Body[0].Text, v.Attachments[0].Content.Body[1].Text
	}
	t.Fatalf("unknown platform %s", platform)
	return "", ""
}

// TestPayloadSlackEscapedTextStaysWithinTheLimit: escaping lengthens the
// text; the section still fits Slack's 3,000 characters and no escape
// sequence is cut in half.
func TestPayloadSlackEscapedTextStaysWithinTheLimit(t *testing.T) {
	body, err := webhook.Payload(webhook.Slack, webhook.Message{Title: "t", Text: strings.Repeat("a<", 2000)})
	if err != nil {
		t.Fatal(err)
	}
	var msg struct {
		Blocks []struct {
			Text struct{ Text string } `json:"text"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		t.Fatal(err)
	}
	section := msg.Blocks[1].Text.Text
	if n := utf8.RuneCountInString(section); n > 3000 {
		t.Fatalf("section is %d characters, over Slack's 3000", n)
	}
	trimmed := strings.TrimSuffix(section, "…")
	if strings.Contains(strings.ReplaceAll(trimmed, "&lt;", ""), "&") || strings.Contains(trimmed, "<") {
		t.Fatalf("section ends with a broken escape: %q", trimmed[len(trimmed)-20:])
	}
}

// TestSendFailureDoesNotShowTheAddress: a target that resolves but does
// not accept the connection fails with the cause alone; the network
// error's own message, which names the address dialled, is not shown.
func TestSendFailureDoesNotShowTheAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // nothing listens there any more: the connection is refused
	d := startDNS(t, zone(map[string][]string{"closed.test": {"127.0.0.1"}}))
	g := webhook.NewGuard(webhook.GuardOptions{AllowLoopback: true, Resolver: d.Resolver()})
	s := webhook.NewSender(g, webhook.SenderOptions{Timeout: 5 * time.Second})
	res := s.Send(sendCtx(t), fmt.Sprintf("https://closed.test:%d%s", port, secretPath), []byte(`{}`))
	if res.OK() || res.Err == nil {
		t.Fatalf("Send to a closed port = %+v, want a failure", res)
	}
	msg := res.Err.Error()
	assertSafeMessage(t, res.Err)
	if !strings.Contains(msg, "could not reach the target") || !strings.Contains(msg, "refused") {
		t.Errorf("error %q does not say the connection was refused", msg)
	}
	if strings.Contains(msg, "127.0.0.1") {
		t.Errorf("error %q shows the address the name resolved to", msg)
	}
}
