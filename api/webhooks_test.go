package api_test

import (
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/servicetest"
)

// receiver is a real HTTPS server on loopback standing in for Slack and
// Teams: it records every message; paths under /fail/404 answer 404.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []receivedMessage
}

type receivedMessage struct {
	Path        string
	ContentType string
	Body        map[string]any
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		raw, _ := io.ReadAll(req.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("receiver got a body that is not JSON: %q", raw)
		}
		r.mu.Lock()
		r.got = append(r.got, receivedMessage{Path: req.URL.Path, ContentType: req.Header.Get("Content-Type"), Body: body})
		r.mu.Unlock()
		if strings.HasPrefix(req.URL.Path, "/fail/404") {
			http.NotFound(w, req)
			return
		}
		io.WriteString(w, "ok")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(r.srv.Certificate())
	return p
}

func (r *receiver) url(path string) string { return r.srv.URL + path }

// messages returns what arrived at path so far.
func (r *receiver) messages(path string) []receivedMessage {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []receivedMessage
	for _, m := range r.got {
		if m.Path == path {
			out = append(out, m)
		}
	}
	return out
}

// waitMessages waits until n messages arrived at path.
func (r *receiver) waitMessages(t *testing.T, path string, n int) []receivedMessage {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := r.messages(path)
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d message(s) at %s after 60s, want %d", len(got), path, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// slackTitle and slackText read a Slack message's header and section.
func slackParts(t *testing.T, m receivedMessage) (title, text string) {
	t.Helper()
	blocks, ok := m.Body["blocks"].([]any)
	if !ok || len(blocks) != 2 {
		t.Fatalf("slack message = %v, want two blocks", m.Body)
	}
	h, s := blocks[0].(map[string]any), blocks[1].(map[string]any)
	ht, st := h["text"].(map[string]any), s["text"].(map[string]any)
	if h["type"] != "header" || ht["type"] != "plain_text" || s["type"] != "section" || st["type"] != "mrkdwn" {
		t.Fatalf("slack blocks = %v", blocks)
	}
	return ht["text"].(string), st["text"].(string)
}

func teamsParts(t *testing.T, m receivedMessage) (title, text string) {
	t.Helper()
	atts, ok := m.Body["attachments"].([]any)
	if m.Body["type"] != "message" || !ok || len(atts) != 1 {
		t.Fatalf("teams message = %v", m.Body)
	}
	att := atts[0].(map[string]any)
	card := att["content"].(map[string]any)
	body := card["body"].([]any)
	if att["contentType"] != "application/vnd.microsoft.card.adaptive" || card["version"] != "1.4" || card["$schema"] == nil || len(body) != 2 {
		t.Fatalf("teams attachment = %v", att)
	}
	tb, db := body[0].(map[string]any), body[1].(map[string]any)
	if tb["weight"] != "Bolder" || tb["wrap"] != true || db["wrap"] != true {
		t.Fatalf("teams text blocks = %v", body)
	}
	return tb["text"].(string), db["text"].(string)
}

func TestWebhookManagement(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	admin := env.Register(servicetest.Unique("hooks"))
	member := env.AddUser(admin, servicetest.Unique("member"), "member")

	w := env.Must(201, "POST", "/api/v1/webhooks", admin.Access, map[string]any{"name": "alerts", "platform": "slack", "webhook_url": publicWebhookURL}).Data()
	masked := w["webhook_url"].(string)
	if !strings.HasSuffix(masked, "abcdefgh") || strings.Contains(masked, "secret-token") || len(masked) != len(publicWebhookURL) {
		t.Fatalf("webhook_url = %q, want all but the last 8 characters masked", masked)
	}
	if fmt.Sprint(w["event_types"]) != "[quality_drop gdpr_detected new_issue scan_failure]" || w["enabled"] != true ||
		w["consecutive_failures"] != float64(0) || w["last_delivery_at"] != nil || w["last_delivery_status"] != nil {
		t.Fatalf("new webhook = %v", w)
	}
	id := w["id"].(string)
	if list := env.Must(200, "GET", "/api/v1/webhooks", member.Access, nil).List(); len(list) != 1 || list[0]["webhook_url"] != masked {
		t.Fatalf("member's list = %v", list)
	}

	bad := []struct {
		body map[string]any
		want string
	}{
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": "http://93.184.216.34/hook"}, "https://"},
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": "https://10.0.0.1/hook"}, "not a public address"},
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": "https://127.0.0.1/hook"}, "not a public address"},
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": "https://localhost/hook"}, "not a public address"},
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": "https://169.254.169.254/latest/meta-data"}, "not a public address"},
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": "https://[::ffff:127.0.0.1]/hook"}, "not a public address"},
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": "https://user:pw@93.184.216.34/hook"}, "user name"},
		{map[string]any{"name": "x", "platform": "discord", "webhook_url": publicWebhookURL}, "platform"},
		{map[string]any{"name": "x", "platform": "teams", "webhook_url": publicWebhookURL, "event_types": []string{"file_uploaded"}}, "unknown event type"},
		{map[string]any{"name": "x", "platform": "teams", "webhook_url": publicWebhookURL, "event_types": []string{}}, "at least one"},
		{map[string]any{"platform": "teams", "webhook_url": publicWebhookURL}, "name"},
		{map[string]any{"name": "x", "platform": "slack"}, "webhook_url"},
		{map[string]any{"name": "x", "platform": "slack", "webhook_url": 7}, "webhook_url"},
	}
	for _, b := range bad {
		r := env.Do("POST", "/api/v1/webhooks", admin.Access, b.body)
		if r.Status != 400 || r.ErrorCode() != "bad_request" || !strings.Contains(r.ErrorMessage(), b.want) {
			t.Errorf("POST %v = %d %s, want 400 mentioning %q", b.body, r.Status, r.Raw, b.want)
		}
		if strings.Contains(string(r.Raw), "secret-token") {
			t.Errorf("error echoes the URL: %s", r.Raw)
		}
	}

	p := env.Must(200, "PATCH", "/api/v1/webhooks/"+id, admin.Access, map[string]any{"name": "ops", "event_types": []string{"contract_violation"}, "enabled": false}).Data()
	if p["name"] != "ops" || fmt.Sprint(p["event_types"]) != "[contract_violation]" || p["enabled"] != false || p["webhook_url"] != masked {
		t.Fatalf("patched = %v", p)
	}
	if r := env.Do("PATCH", "/api/v1/webhooks/"+id, admin.Access, map[string]any{"webhook_url": "https://192.168.1.10/x"}); r.Status != 400 {
		t.Fatalf("PATCH to a private address = %d %s", r.Status, r.Raw)
	}
	env.Must(400, "PATCH", "/api/v1/webhooks/"+id, admin.Access, map[string]any{})
	if got := env.Must(200, "GET", "/api/v1/webhooks", admin.Access, nil).List()[0]; got["webhook_url"] != masked || got["name"] != "ops" {
		t.Fatalf("refused PATCH changed the webhook: %v", got)
	}

	for i := 1; i < 10; i++ {
		env.Must(201, "POST", "/api/v1/webhooks", admin.Access, map[string]any{"name": fmt.Sprint("w", i), "platform": "teams", "webhook_url": publicWebhookURL})
	}
	if r := env.Do("POST", "/api/v1/webhooks", admin.Access, map[string]any{"name": "w11", "platform": "teams", "webhook_url": publicWebhookURL}); r.Status != 409 || r.ErrorCode() != "limit_exceeded" {
		t.Fatalf("11th webhook = %d %s, want 409 limit_exceeded", r.Status, r.Raw)
	}
	env.Must(200, "DELETE", "/api/v1/webhooks/"+id, admin.Access, nil)
	env.Must(404, "DELETE", "/api/v1/webhooks/"+id, admin.Access, nil)
	if n := len(env.Must(200, "GET", "/api/v1/webhooks", admin.Access, nil).List()); n != 9 {
		t.Fatalf("%d webhooks after a delete, want 9", n)
	}
	if strings.Contains(env.Logs.String(), "secret-token") {
		t.Fatal("a webhook URL reached the logs")
	}
}

func TestWebhookTestMessage(t *testing.T) {
	recv := newReceiver(t)
	env := servicetest.Start(t, servicetest.Options{WebhookReceiverCAs: recv.pool()})
	admin := env.Register(servicetest.Unique("hooktest"))
	for _, platform := range []string{"slack", "teams"} {
		path := "/hook/" + platform + "/T0/secret-token"
		id := env.Must(201, "POST", "/api/v1/webhooks", admin.Access, map[string]any{"name": "team " + platform, "platform": platform, "webhook_url": recv.url(path)}).Data()["id"].(string)
		r := env.Must(200, "POST", "/api/v1/webhooks/"+id+"/test", admin.Access, nil).Data()
		if r["success"] != true || r["error"] != nil {
			t.Fatalf("%s test = %v", platform, r)
		}
		got := recv.messages(path)
		if len(got) != 1 || got[0].ContentType != "application/json" {
			t.Fatalf("%s receiver got %v", platform, got)
		}
		var title string
		if platform == "slack" {
			title, _ = slackParts(t, got[0])
		} else {
			title, _ = teamsParts(t, got[0])
		}
		if title != "DQS test message" {
			t.Fatalf("%s title = %q", platform, title)
		}
	}
	id := env.Must(201, "POST", "/api/v1/webhooks", admin.Access, map[string]any{"name": "gone", "platform": "slack", "webhook_url": recv.url("/fail/404/secret-token")}).Data()["id"].(string)
	r := env.Must(200, "POST", "/api/v1/webhooks/"+id+"/test", admin.Access, nil)
	if d := r.Data(); d["success"] != false || !strings.Contains(fmt.Sprint(d["error"]), "HTTP 404") || strings.Contains(string(r.Raw), "secret-token") {
		t.Fatalf("failing test = %s", r.Raw)
	}
	// A test message is not a delivery: the failure count stays.
	for _, w := range env.Must(200, "GET", "/api/v1/webhooks", admin.Access, nil).List() {
		if w["consecutive_failures"] != float64(0) || w["last_delivery_at"] != nil {
			t.Fatalf("test messages counted as deliveries: %v", w)
		}
	}
}

// degradedPeopleCSV is people.csv with most e-mails and names missing:
// its quality score falls well over 5 points.
func degradedPeopleCSV(rows int) string {
	var b strings.Builder
	b.WriteString("id,email,full_name,signup_date,score\n")
	for i := 0; i < rows; i++ {
		email, name := "", ""
		if i%5 == 0 {
			email, name = fmt.Sprintf("user%d@example.com", i), "Anna Svensson"
		}
		fmt.Fprintf(&b, "%d,%s,%s,not a date,%d.%d\n", i+1, email, name, i%100, i%10)
	}
	return b.String()
}

// TestJobEventsReachSubscribedWebhooks: a finished job publishes its
// events; each webhook receives exactly the types it subscribes to, in its
// platform's format, and deliveries are counted.
func TestJobEventsReachSubscribedWebhooks(t *testing.T) {
	recv := newReceiver(t)
	env := servicetest.Start(t, servicetest.Options{WebhookReceiverCAs: recv.pool()})
	s := env.Register(servicetest.Unique("events"))
	hook := func(name, platform, path string, types []string, enabled bool) string {
		return env.Must(201, "POST", "/api/v1/webhooks", s.Access, map[string]any{"name": name, "platform": platform,
			"webhook_url": recv.url(path), "event_types": types, "enabled": enabled}).Data()["id"].(string)
	}
	hook("privacy", "slack", "/slack/gdpr", []string{"gdpr_detected"}, true)
	hook("quality", "teams", "/teams/quality", []string{"quality_drop", "quality_improved"}, true)
	hook("muted", "slack", "/slack/muted", []string{"gdpr_detected", "quality_drop", "new_issue"}, false)
	hook("broken", "slack", "/fail/404/issues", []string{"new_issue"}, true)

	first := upload(t, env, "/api/v1/public/upload", s.Access, map[string]string{"people.csv": peopleCSV(200)}).Data()["job_id"].(string)
	waitJob(t, env, s.Access, "/api/v1/jobs/"+first)
	gdpr := recv.waitMessages(t, "/slack/gdpr", 1)
	title, text := slackParts(t, gdpr[0])
	if !strings.Contains(title, "people.csv") || !strings.Contains(text, "email") || !strings.Contains(text, first) {
		t.Fatalf("gdpr message = %q / %q", title, text)
	}
	// people.csv is clean: no issue, so nothing for the new_issue webhook.
	// A dataset's first analysis raises no alert.
	if a := env.Must(200, "GET", "/api/v1/alerts", s.Access, nil).List(); len(a) != 0 {
		t.Fatalf("alerts after a first upload = %v, want none", a)
	}

	second := upload(t, env, "/api/v1/public/upload", s.Access, map[string]string{"people.csv": degradedPeopleCSV(200)}).Data()["job_id"].(string)
	waitJob(t, env, s.Access, "/api/v1/jobs/"+second)
	drop := recv.waitMessages(t, "/teams/quality", 1)
	title, text = teamsParts(t, drop[0])
	if !strings.Contains(title, "dropped") || !strings.Contains(text, second) {
		t.Fatalf("quality_drop message = %q / %q", title, text)
	}
	recv.waitMessages(t, "/slack/gdpr", 2)
	recv.waitMessages(t, "/fail/404/issues", 1)
	// The drop and the new issues are alerts of the file, raised once.
	alerts := map[string]map[string]any{}
	for _, a := range env.Must(200, "GET", "/api/v1/alerts", s.Access, nil).List() {
		alerts[a["type"].(string)] = a
	}
	dropAlert, issueAlert := alerts["quality_drop"], alerts["new_issue"]
	if len(alerts) != 2 || dropAlert == nil || issueAlert == nil || dropAlert["file_id"] == nil || dropAlert["source_id"] != nil ||
		!strings.Contains(dropAlert["message"].(string), "dropped") || !strings.Contains(issueAlert["message"].(string), "new quality issue") {
		t.Fatalf("alerts after a degraded upload = %v, want one quality_drop and one new_issue alert of the file", alerts)
	}

	// Give stray deliveries a moment, then check nothing else arrived.
	time.Sleep(time.Second)
	if n := len(recv.messages("/slack/muted")); n != 0 {
		t.Fatalf("disabled webhook received %d messages", n)
	}
	if n := len(recv.messages("/teams/quality")); n != 1 {
		t.Fatalf("quality webhook received %d messages, want only the drop", n)
	}
	if n := len(recv.messages("/fail/404/issues")); n != 1 {
		t.Fatalf("new_issue webhook received %d messages, want one (a 404 is not retried)", n)
	}
	if n := len(recv.messages("/slack/gdpr")); n != 2 {
		t.Fatalf("gdpr webhook received %d messages, want one per job", n)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		byName := map[string]map[string]any{}
		for _, w := range env.Must(200, "GET", "/api/v1/webhooks", s.Access, nil).List() {
			byName[w["name"].(string)] = w
		}
		b, p := byName["broken"], byName["privacy"]
		if b["consecutive_failures"] == float64(1) && b["last_delivery_status"] == "failed" &&
			p["consecutive_failures"] == float64(0) && p["last_delivery_status"] == "success" && p["last_delivery_at"] != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("delivery counts: broken %v, privacy %v", b, p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
