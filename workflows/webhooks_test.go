package workflows

// DeliverWebhook on the SDK's test environment (retry back-off skipped),
// with the real activities, a real SQLite database and a real HTTPS
// receiver on loopback (the test-only loopback allowance).

import (
	"bytes"
	"context"
	"crypto/x509"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"

	"go.temporal.io/sdk/testsuite"

	"github.com/dqs/dqs/activities"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/secrets"
	"github.com/dqs/dqs/webhook"
)

// scriptedReceiver answers each request with the next status of its
// script (the last one repeats) and counts requests.
type scriptedReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	script []int
	hits   atomic.Int32
}

func newScriptedReceiver(t *testing.T) *scriptedReceiver {
	r := &scriptedReceiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		n := int(r.hits.Add(1))
		r.mu.Lock()
		status := r.script[min(n, len(r.script))-1]
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *scriptedReceiver) answer(statuses ...int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.script = statuses
	r.hits.Store(0)
}

type deliveryFixture struct {
	stores *models.Stores
	acts   *activities.Activities
	recv   *scriptedReceiver
	hook   *models.Webhook
}

func newDeliveryFixture(t *testing.T) *deliveryFixture {
	t.Helper()
	stores, org := storesWithOrg(t)
	box, err := secrets.NewBox(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	recv := newScriptedReceiver(t)
	pool := x509.NewCertPool()
	pool.AddCert(recv.srv.Certificate())
	sender := webhook.NewSender(webhook.NewGuard(webhook.GuardOptions{AllowLoopback: true}), webhook.SenderOptions{RootCAs: pool})
	sealed, err := box.Seal(recv.srv.URL + "/services/T0/secret")
	if err != nil {
		t.Fatal(err)
	}
	hook := &models.Webhook{Name: "alerts", Platform: webhook.Slack, URLSealed: sealed, URLTail: "x", URLLength: 9, Enabled: true}
	hook.SetEvents(events.DefaultSubscription)
	if err := stores.Webhooks.Create(context.Background(), org.ID, hook); err != nil {
		t.Fatal(err)
	}
	acts := &activities.Activities{Stores: stores, Webhooks: sender, Secrets: box, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	return &deliveryFixture{stores: stores, acts: acts, recv: recv, hook: hook}
}

// deliver runs one delivery of a gdpr_detected event and returns the
// workflow's error.
func (f *deliveryFixture) deliver(t *testing.T, eventType string) error {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.RegisterActivity(f.acts)
	env.ExecuteWorkflow(DeliverWebhook, DeliveryInput{OrgID: f.hook.OrgID, WebhookID: f.hook.ID,
		Event: events.Event{ID: "job_x/file/1/" + eventType, Type: eventType, OrgID: f.hook.OrgID, Title: "t", Text: "d"}})
	if !env.IsWorkflowCompleted() {
		t.Fatal("delivery workflow did not complete")
	}
	return env.GetWorkflowError()
}

func (f *deliveryFixture) webhook(t *testing.T) *models.Webhook {
	t.Helper()
	w, err := f.stores.Webhooks.Get(context.Background(), f.hook.OrgID, f.hook.ID)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestDeliveryRetriesAfterServerErrors(t *testing.T) {
	f := newDeliveryFixture(t)
	f.recv.answer(500, 503, 429, 200)
	if err := f.deliver(t, events.GDPRDetected); err != nil {
		t.Fatalf("delivery failed: %v", err)
	}
	if n := f.recv.hits.Load(); n != 4 {
		t.Fatalf("%d attempts, want 4 (three retried failures, then success)", n)
	}
	if w := f.webhook(t); w.ConsecutiveFailures != 0 || w.LastDeliveryStatus != models.DeliveryOK || w.LastDeliveryAt == nil {
		t.Fatalf("webhook after delivery = %+v", w)
	}
}

func TestDeliveryIsNotRetriedAfterA404(t *testing.T) {
	f := newDeliveryFixture(t)
	f.recv.answer(404)
	if err := f.deliver(t, events.GDPRDetected); err == nil {
		t.Fatal("delivery to a 404 succeeded")
	}
	if n := f.recv.hits.Load(); n != 1 {
		t.Fatalf("%d attempts after a 404, want 1", n)
	}
	if w := f.webhook(t); w.ConsecutiveFailures != 1 || w.LastDeliveryStatus != models.DeliveryFailed {
		t.Fatalf("webhook after a refused delivery = %+v", w)
	}
}

// TestFailuresCountDeliveriesNotAttempts: a delivery that exhausts its
// retries counts once; a later success resets the count.
func TestFailuresCountDeliveriesNotAttempts(t *testing.T) {
	f := newDeliveryFixture(t)
	f.recv.answer(500)
	for i := 1; i <= 2; i++ {
		if err := f.deliver(t, events.NewIssue); err == nil {
			t.Fatal("delivery to a failing server succeeded")
		}
		if n := f.recv.hits.Load(); n != deliveryRetry.MaximumAttempts {
			t.Fatalf("%d attempts, want MaximumAttempts %d", n, deliveryRetry.MaximumAttempts)
		}
		if w := f.webhook(t); w.ConsecutiveFailures != i {
			t.Fatalf("consecutive_failures = %d after %d failed deliveries", w.ConsecutiveFailures, i)
		}
		f.recv.answer(500)
	}
	f.recv.answer(200)
	if err := f.deliver(t, events.NewIssue); err != nil {
		t.Fatal(err)
	}
	if w := f.webhook(t); w.ConsecutiveFailures != 0 || w.LastDeliveryStatus != models.DeliveryOK {
		t.Fatalf("webhook after a success = %+v, want the count reset", w)
	}
}

// TestDeliverySkipsWebhooksChangedSincePublishing: a webhook disabled,
// unsubscribed or deleted after the event was published gets nothing and
// nothing is counted.
func TestDeliverySkipsWebhooksChangedSincePublishing(t *testing.T) {
	f := newDeliveryFixture(t)
	f.recv.answer(200)
	if err := f.deliver(t, events.ContractViolation); err != nil { // not subscribed
		t.Fatal(err)
	}
	w := f.webhook(t)
	w.Enabled = false
	if err := f.stores.Webhooks.Save(context.Background(), w.OrgID, w); err != nil {
		t.Fatal(err)
	}
	if err := f.deliver(t, events.GDPRDetected); err != nil {
		t.Fatal(err)
	}
	if err := f.stores.Webhooks.Delete(context.Background(), w.OrgID, w.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.deliver(t, events.GDPRDetected); err != nil {
		t.Fatal(err)
	}
	if n := f.recv.hits.Load(); n != 0 {
		t.Fatalf("receiver got %d requests", n)
	}
}
