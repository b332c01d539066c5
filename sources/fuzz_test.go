package sources

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/dqs/dqs/errs"
)

// FuzzSourceSettings feeds the parsers of a source's settings (bytes a
// user sends) anything: they never panic, every refusal is a 400 in the
// envelope, and settings that pass name a known kind with its required
// keys, and credential values never appear in a refusal's message except
// as typed by the user in a key name.
func FuzzSourceSettings(f *testing.F) {
	f.Add("postgresql", []byte(`{"host":"db.example.com","port":5432,"database":"d","username":"u","password":"p"}`), []byte(`{"schema":"public"}`))
	f.Add("s3", []byte(`{"bucket":"b","endpoint":"http://user:pw@h","prefix":null}`), []byte(`{}`))
	f.Add("gcs", []byte(`{"bucket":"b","service_account_json":{"type":"service_account"}}`), []byte(`null`))
	f.Add("snowflake", []byte(`{"account":"a","warehouse":"w","database":"d","schema":"s","username":"u","password":"p","private_key":"k"}`), []byte(`{"shema":1}`))
	f.Add("bigquery", []byte(`[1,2]`), []byte(`"x"`))
	f.Add("postgresql", []byte(`{"host":"h","database":"d","username":"u"}`), []byte(`{"profile_mode":" SAMPLED ","schema":null}`))
	f.Add("s3", []byte(`{"bucket":"b","port":1e400}`), []byte(`{"schema":"`+strings.Repeat("s", 200)+`"}`))
	f.Fuzz(func(t *testing.T, kind string, creds, config []byte) {
		parsed, err := ParseCredentials(creds)
		if err != nil {
			badRequest(t, err)
			return
		}
		cfg, err := ParseConfig(config)
		if err != nil {
			badRequest(t, err)
			return
		}
		// The same object as an update of a stored config: refused the
		// same way, or a config whose mode is one DQS knows.
		if u, err := ParseConfigUpdate(config); err != nil {
			badRequest(t, err)
		} else if c, err := (Config{Schema: "sales", ProfileMode: ProfileSampled}).With(u); err != nil {
			badRequest(t, err)
		} else if c.ProfileMode != "" && c.ProfileMode != ProfileSampled {
			t.Fatalf("update %q gave profile mode %q", config, c.ProfileMode)
		}
		st := Settings{Type: kind, Credentials: Given(parsed), Config: cfg}
		if err := st.Check(); err != nil {
			badRequest(t, err)
			return
		}
		f, ok := kinds[kind]
		if !ok {
			t.Fatalf("kind %q passed", kind)
		}
		for _, k := range f.required {
			if strings.TrimSpace(st.Credentials[k]) == "" {
				t.Fatalf("%s passed without %s", kind, k)
			}
		}
		st.Host() // must not panic on anything that passed
	})
}

func badRequest(t *testing.T, err error) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
		t.Fatalf("refusal %v is not a 400", err)
	}
}
