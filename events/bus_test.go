package events_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// recorder is a Deliverer that records its calls. Deliverer is the seam to
// Temporal (it starts a durable delivery workflow), so a recording double
// stands in for it; the subscribers are the real webhook store.
type recorder struct {
	mu    sync.Mutex
	calls []delivery
	// fail makes Deliver refuse these webhook ids.
	fail map[string]error
}

type delivery struct {
	OrgID, WebhookID string
	Event            events.Event
}

func (r *recorder) Deliver(_ context.Context, orgID, webhookID string, e events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, delivery{orgID, webhookID, e})
	return r.fail[webhookID]
}

func (r *recorder) webhookIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []string{}
	for _, c := range r.calls {
		out = append(out, c.WebhookID)
	}
	slices.Sort(out)
	return out
}

type busFixture struct {
	stores *models.Stores
	orgA   string
	orgB   string
	// ids by name
	hooks map[string]string
}

func newBusFixture(t *testing.T) *busFixture {
	t.Helper()
	ctx := context.Background()
	s := models.NewStores(modelstest.Open(t, models.SQLite))
	f := &busFixture{stores: s, hooks: map[string]string{}}
	for _, o := range []*string{&f.orgA, &f.orgB} {
		org := &models.Organization{Name: "org"}
		if err := s.Orgs.Create(ctx, org); err != nil {
			t.Fatal(err)
		}
		*o = org.ID
	}
	add := func(org, name string, enabled bool, types ...string) {
		w := &models.Webhook{Name: name, Platform: "slack", URLSealed: "sealed", URLTail: "tail", URLLength: 40, Enabled: enabled}
		w.SetEvents(types)
		if err := s.Webhooks.Create(ctx, org, w); err != nil {
			t.Fatalf("create webhook %s: %v", name, err)
		}
		f.hooks[name] = w.ID
	}
	add(f.orgA, "a-drop", true, events.QualityDrop)
	add(f.orgA, "a-default", true, events.DefaultSubscription...)
	add(f.orgA, "a-disabled", false, events.QualityDrop, events.GDPRDetected)
	add(f.orgA, "a-gdpr", true, events.GDPRDetected)
	add(f.orgA, "a-none", true)
	add(f.orgB, "b-drop", true, events.QualityDrop)
	add(f.orgB, "b-gdpr", true, events.GDPRDetected)
	return f
}

func (f *busFixture) ids(names ...string) []string {
	out := []string{}
	for _, n := range names {
		out = append(out, f.hooks[n])
	}
	slices.Sort(out)
	return out
}

func (f *busFixture) event(org, typ string) events.Event {
	return events.Event{ID: "job_x/file/1/" + typ, Type: typ, OrgID: org, Title: "t", Text: "x",
		OccurredAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)}
}

func TestBusPublishDeliversToSubscribedEnabledWebhooksOfTheOrg(t *testing.T) {
	f := newBusFixture(t)
	ctx := context.Background()
	cases := []struct {
		org, typ string
		want     []string
	}{
		{f.orgA, events.QualityDrop, f.ids("a-drop", "a-default")},
		{f.orgA, events.GDPRDetected, f.ids("a-default", "a-gdpr")},
		{f.orgA, events.ScanFailure, f.ids("a-default")},
		{f.orgA, events.QualityImproved, f.ids()},
		{f.orgB, events.QualityDrop, f.ids("b-drop")},
		{f.orgB, events.GDPRDetected, f.ids("b-gdpr")},
		{f.orgB, events.NewIssue, f.ids()},
	}
	for _, tc := range cases {
		rec := &recorder{}
		bus := events.Bus{Webhooks: f.stores.Webhooks, Delivery: rec}
		e := f.event(tc.org, tc.typ)
		if err := bus.Publish(ctx, e); err != nil {
			t.Fatalf("publish %s: %v", tc.typ, err)
		}
		if got := rec.webhookIDs(); !slices.Equal(got, tc.want) {
			t.Fatalf("%s in org %s delivered to %v, want %v (hooks %v)", tc.typ, tc.org, got, tc.want, f.hooks)
		}
		for _, c := range rec.calls {
			if c.OrgID != tc.org || c.Event != e {
				t.Fatalf("delivery %+v, want org %s and event %+v", c, tc.org, e)
			}
		}
	}
}

func TestBusPublishNeverCrossesOrganisations(t *testing.T) {
	f := newBusFixture(t)
	ctx := context.Background()
	theirs := map[string]bool{f.hooks["b-drop"]: true, f.hooks["b-gdpr"]: true}
	for _, typ := range events.Types {
		rec := &recorder{}
		if err := (events.Bus{Webhooks: f.stores.Webhooks, Delivery: rec}).Publish(ctx, f.event(f.orgA, typ)); err != nil {
			t.Fatalf("publish %s: %v", typ, err)
		}
		for _, id := range rec.webhookIDs() {
			if theirs[id] {
				t.Fatalf("%s of org A delivered to org B's webhook %s", typ, id)
			}
		}
	}
	// An organisation without webhooks gets nothing.
	rec := &recorder{}
	if err := (events.Bus{Webhooks: f.stores.Webhooks, Delivery: rec}).Publish(ctx, f.event(models.NewID(), events.QualityDrop)); err != nil {
		t.Fatal(err)
	}
	if len(rec.calls) != 0 {
		t.Fatalf("deliveries for an organisation without webhooks: %+v", rec.calls)
	}
}

func TestBusPublishUnknownType(t *testing.T) {
	f := newBusFixture(t)
	for _, typ := range []string{"", "quality-drop", "QUALITY_DROP", "everything"} {
		rec := &recorder{}
		err := (events.Bus{Webhooks: f.stores.Webhooks, Delivery: rec}).Publish(context.Background(), f.event(f.orgA, typ))
		if err == nil {
			t.Fatalf("publish of type %q: no error", typ)
		}
		if len(rec.calls) != 0 {
			t.Fatalf("publish of type %q delivered %+v", typ, rec.calls)
		}
	}
}

func TestBusPublishDeliveryErrorDoesNotStopOthers(t *testing.T) {
	f := newBusFixture(t)
	boom := errors.New("temporal unavailable")
	failing := f.hooks["a-drop"]
	rec := &recorder{fail: map[string]error{failing: boom}}
	err := (events.Bus{Webhooks: f.stores.Webhooks, Delivery: rec}).Publish(context.Background(), f.event(f.orgA, events.QualityDrop))
	if err == nil {
		t.Fatal("a failed delivery was not reported")
	}
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want it to wrap %v", err, boom)
	}
	if !strings.Contains(err.Error(), failing) {
		t.Fatalf("err = %v, want it to name webhook %s", err, failing)
	}
	if strings.Contains(err.Error(), f.hooks["a-default"]) {
		t.Fatalf("err = %v names the webhook that was delivered to", err)
	}
	if got, want := rec.webhookIDs(), f.ids("a-drop", "a-default"); !slices.Equal(got, want) {
		t.Fatalf("attempted %v, want %v", got, want)
	}

	// Both failing: both attempted, both named.
	rec = &recorder{fail: map[string]error{failing: boom, f.hooks["a-default"]: errors.New("other")}}
	err = (events.Bus{Webhooks: f.stores.Webhooks, Delivery: rec}).Publish(context.Background(), f.event(f.orgA, events.QualityDrop))
	if err == nil || !strings.Contains(err.Error(), failing) || !strings.Contains(err.Error(), f.hooks["a-default"]) {
		t.Fatalf("err = %v, want both webhooks named", err)
	}
	if len(rec.calls) != 2 {
		t.Fatalf("attempted %d deliveries, want 2", len(rec.calls))
	}
}

func TestBusPublishFollowsWebhookChanges(t *testing.T) {
	f := newBusFixture(t)
	ctx := context.Background()
	// Disabling, unsubscribing or deleting a webhook stops its deliveries.
	w, err := f.stores.Webhooks.Get(ctx, f.orgA, f.hooks["a-drop"])
	if err != nil {
		t.Fatal(err)
	}
	w.Enabled = false
	if err := f.stores.Webhooks.Save(ctx, f.orgA, w); err != nil {
		t.Fatal(err)
	}
	d, err := f.stores.Webhooks.Get(ctx, f.orgA, f.hooks["a-default"])
	if err != nil {
		t.Fatal(err)
	}
	d.SetEvents([]string{events.ScanFailure})
	if err := f.stores.Webhooks.Save(ctx, f.orgA, d); err != nil {
		t.Fatal(err)
	}
	if err := f.stores.Webhooks.Delete(ctx, f.orgA, f.hooks["a-gdpr"]); err != nil {
		t.Fatal(err)
	}
	// And enabling one starts them.
	dis, err := f.stores.Webhooks.Get(ctx, f.orgA, f.hooks["a-disabled"])
	if err != nil {
		t.Fatal(err)
	}
	dis.Enabled = true
	if err := f.stores.Webhooks.Save(ctx, f.orgA, dis); err != nil {
		t.Fatal(err)
	}
	for typ, want := range map[string][]string{
		events.QualityDrop:  f.ids("a-disabled"),
		events.GDPRDetected: f.ids("a-disabled"),
		events.ScanFailure:  f.ids("a-default"),
		events.NewIssue:     f.ids(),
	} {
		rec := &recorder{}
		if err := (events.Bus{Webhooks: f.stores.Webhooks, Delivery: rec}).Publish(ctx, f.event(f.orgA, typ)); err != nil {
			t.Fatal(err)
		}
		if got := rec.webhookIDs(); !slices.Equal(got, want) {
			t.Fatalf("%s delivered to %v, want %v", typ, got, want)
		}
	}
}
