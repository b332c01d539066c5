package sources

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"github.com/dqs/dqs/netguard"
	"github.com/dqs/dqs/secrets"
)

const password = "pw-Hx81!kq2-never-shown"

func newService(t *testing.T) (*Service, string, string) {
	t.Helper()
	stores := models.NewStores(modelstest.Open(t, models.SQLite))
	var orgs []string
	for _, name := range []string{"Acme", "Globex"} {
		o := &models.Organization{Name: name}
		if err := stores.Orgs.Create(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		orgs = append(orgs, o.ID)
	}
	box, err := secrets.NewBox(bytes.Repeat([]byte{7}, secrets.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	w := audit.NewWriter(stores.Audit, logger)
	t.Cleanup(func() { w.Close(context.Background()) })
	return &Service{Stores: stores, Secrets: box, Guard: netguard.New(netguard.Options{}), Audit: w, Logger: logger}, orgs[0], orgs[1]
}

func pgSettings(host string) Settings {
	return Settings{Type: connectors.PostgreSQL, Credentials: connectors.Credentials{
		"host": host, "database": "sales", "username": "reader", "password": password}, Config: Config{Schema: "finance"}}
}

func TestCredentialsAreSealedAndBoundToTheirSource(t *testing.T) {
	svc, org, other := newService(t)
	ctx := context.Background()
	a, err := svc.Create(ctx, audit.Actor{OrgID: org}, "warehouse", pgSettings("93.184.216.34"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.Create(ctx, audit.Actor{OrgID: org}, "replica", pgSettings("93.184.216.35"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := svc.Create(ctx, audit.Actor{OrgID: other}, "theirs", pgSettings("93.184.216.36"))
	if err != nil {
		t.Fatal(err)
	}
	stored, err := svc.Stores.Sources.Get(ctx, org, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stored.CredentialsSealed, password) || strings.Contains(stored.CredentialsSealed, "reader") {
		t.Fatal("credentials stored in clear")
	}
	st, err := svc.Settings(stored)
	if err != nil {
		t.Fatal(err)
	}
	if st.Credentials["password"] != password || st.Credentials["host"] != "93.184.216.34" || st.Config.Schema != "finance" {
		t.Fatalf("settings read back = %+v", st)
	}

	// A's ciphertext copied onto B's row, or onto another organisation's
	// row, does not open there.
	for _, target := range []struct {
		org string
		id  int64
	}{{org, b.ID}, {other, c.ID}} {
		if _, err := svc.Stores.Sources.Update(ctx, target.org, target.id, models.SourceUpdate{CredentialsSealed: &stored.CredentialsSealed}); err != nil {
			t.Fatal(err)
		}
		moved, err := svc.Stores.Sources.Get(ctx, target.org, target.id)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Settings(moved); !errors.Is(err, secrets.ErrOpen) {
			t.Fatalf("credentials moved to source %d opened: %v", target.id, err)
		}
	}
}

func TestUpdateMergesCredentialsAndRechecksTheHost(t *testing.T) {
	svc, org, _ := newService(t)
	ctx := context.Background()
	src, err := svc.Create(ctx, audit.Actor{OrgID: org}, "warehouse", pgSettings("93.184.216.34"))
	if err != nil {
		t.Fatal(err)
	}
	newPassword := "rotated-password-2"
	if _, err := svc.Update(ctx, audit.Actor{OrgID: org}, src.ID, Patch{Credentials: map[string]*string{"password": &newPassword}}); err != nil {
		t.Fatal(err)
	}
	got, _ := svc.Stores.Sources.Get(ctx, org, src.ID)
	st, err := svc.Settings(got)
	if err != nil {
		t.Fatal(err)
	}
	if st.Credentials["password"] != newPassword || st.Credentials["username"] != "reader" || st.Credentials["host"] != "93.184.216.34" {
		t.Fatalf("after rotating the password: %+v", st.Credentials)
	}
	private := "10.0.0.5"
	if _, err := svc.Update(ctx, audit.Actor{OrgID: org}, src.ID, Patch{Credentials: map[string]*string{"host": &private}}); err == nil ||
		!strings.Contains(err.Error(), "network policy") {
		t.Fatalf("moving the host to a private address = %v, want a refusal", err)
	}
	got, _ = svc.Stores.Sources.Get(ctx, org, src.ID)
	if st, _ := svc.Settings(got); st.Credentials["host"] != "93.184.216.34" {
		t.Fatalf("a refused update changed the host to %q", st.Credentials["host"])
	}
}

func TestParseCredentialsReadsWhatUsersWrite(t *testing.T) {
	got, err := ParseCredentials([]byte(`{"host":"db","port":5432,"ssl":true,"service_account_json":{"type":"service_account"},"password":null}`))
	if err != nil {
		t.Fatal(err)
	}
	if *got["port"] != "5432" || *got["ssl"] != "true" || *got["service_account_json"] != `{"type":"service_account"}` || got["password"] != nil {
		t.Fatalf("parsed = %v", got)
	}
	for _, bad := range []string{`[]`, `"x"`, `{"host":["a"]}`, `{"host":{"a":1}}`} {
		if _, err := ParseCredentials([]byte(bad)); err == nil {
			t.Errorf("ParseCredentials(%s) accepted", bad)
		}
	}
}

// TestConfigUpdates: config keys are set one by one, null resets one to
// its default, the mode is read without regard to case or blanks, and
// anything else is a 400 naming the key.
func TestConfigUpdates(t *testing.T) {
	stored := Config{Schema: "sales", ProfileMode: ProfileSampled}
	for _, c := range []struct {
		raw  string
		want Config
	}{
		{`{"profile_mode":"exact"}`, Config{Schema: "sales"}},
		{`{"profile_mode":null}`, Config{Schema: "sales"}},
		{`{"profile_mode":" Sampled "}`, stored},
		{`{"schema":" finance "}`, Config{Schema: "finance", ProfileMode: ProfileSampled}},
		{`{"schema":null}`, Config{ProfileMode: ProfileSampled}},
		{`{}`, stored},
		{`null`, stored},
	} {
		u, err := ParseConfigUpdate(json.RawMessage(c.raw))
		if err != nil {
			t.Errorf("%s: %v", c.raw, err)
			continue
		}
		if got, err := stored.With(u); err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.raw, got, err, c.want)
		}
	}
	for raw, want := range map[string]string{
		`{"profile_mode":"fast"}`: "exact or sampled",
		`{"profile_mode":1}`:      "profile_mode must be a string",
		`{"profile":"sampled"}`:   "config.profile is not a setting",
		`[1]`:                     "JSON object",
		`{"schema":"` + strings.Repeat("s", 129) + `"}`: "128 bytes",
	} {
		_, err := ParseConfig(json.RawMessage(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a refusal saying %q", raw, err, want)
		}
	}
	if c, err := ParseConfig(json.RawMessage(`{"profile_mode":"sampled","schema":"x"}`)); err != nil || !c.Sampled() || c.Schema != "x" {
		t.Errorf("new config = %+v, %v", c, err)
	}
}
