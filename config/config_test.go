package config

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/ratelimit"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestDefaults(t *testing.T) {
	c := Defaults()
	checks := []struct {
		name      string
		got, want any
	}{
		{"HTTPAddr", c.HTTPAddr, ":8080"},
		{"AppURL", c.AppURL, "http://localhost:8080"},
		{"DataDir", c.DataDir, "./data"},
		{"DatabaseURL", c.DatabaseURL, ""},
		{"TemporalAddress", c.TemporalAddress, "127.0.0.1:7233"},
		{"TemporalNamespace", c.TemporalNamespace, "default"},
		{"TemporalPrefix", c.TemporalPrefix, "dqs"},
		{"TemporalUIURL", c.TemporalUIURL, "http://localhost:8233"},
		{"WorkerQueues", c.WorkerQueues, AllQueues},
		{"JWTSecret", c.JWTSecret, ""},
		{"EncryptionKey", c.EncryptionKey, ""},
		{"AccessTokenTTL", c.AccessTokenTTL, 15 * time.Minute},
		{"RefreshTokenTTL", c.RefreshTokenTTL, 720 * time.Hour},
		{"OutboxDir", c.OutboxDir, "data/outbox"},
		{"SMTPHost", c.SMTPHost, ""},
		{"SMTPPort", c.SMTPPort, 587},
		{"SMTPFrom", c.SMTPFrom, "DQS <no-reply@dqs.local>"},
		{"SMTPTLS", c.SMTPTLS, "starttls"},
		{"LogLevel", c.LogLevel, "info"},
		{"TrustedProxies", len(c.TrustedProxies), 0},
		{"Limits.Auth", c.Limits.Auth, ratelimit.Rule{Limit: 10, Window: time.Minute}},
		{"Limits.General", c.Limits.General, ratelimit.Rule{Limit: 600, Window: time.Minute}},
		{"Limits.Upload", c.Limits.Upload, ratelimit.Rule{Limit: 30, Window: time.Minute}},
		{"Limits.Jobs", c.Limits.Jobs, ratelimit.Rule{Limit: 20, Window: time.Hour}},
		{"Limits.Billing", c.Limits.Billing, ratelimit.Rule{Limit: 10, Window: time.Hour}},
		{"Limits.WS", c.Limits.WS, ratelimit.Rule{Limit: 30, Window: time.Minute}},
	}
	for _, ch := range checks {
		if !reflect.DeepEqual(ch.got, ch.want) {
			t.Errorf("%s = %#v, want %#v", ch.name, ch.got, ch.want)
		}
	}
}

func TestLoadEmptyEnvIsDefaults(t *testing.T) {
	c, err := Load(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, Defaults()) {
		t.Fatalf("Load(empty) = %+v, want Defaults()", c)
	}
}

func TestEnvOverrides(t *testing.T) {
	c, err := Load(env(map[string]string{
		"DQS_HTTP_ADDR":          "127.0.0.1:9000",
		"DQS_APP_URL":            "https://dqs.example.com",
		"DQS_DATA_DIR":           "/var/lib/dqs",
		"DQS_DATABASE_URL":       "postgres://u:p@db/dqs",
		"DQS_TEMPORAL_ADDRESS":   "temporal:7233",
		"DQS_TEMPORAL_NAMESPACE": "prod",
		"DQS_TEMPORAL_PREFIX":    "dqs_prod-2",
		"DQS_TEMPORAL_UI_URL":    "https://temporal.example.com",
		"DQS_JWT_SECRET":         "jwt-secret-value",
		"DQS_ENCRYPTION_KEY":     "enc-key-value",
		"DQS_ACCESS_TOKEN_TTL":   "5m",
		"DQS_REFRESH_TOKEN_TTL":  "24h",
		"DQS_SMTP_HOST":          "smtp.example.com",
		"DQS_SMTP_PORT":          "2525",
		"DQS_SMTP_USERNAME":      "mailer",
		"DQS_SMTP_PASSWORD":      "smtp-pass",
		"DQS_SMTP_FROM":          "x@example.com",
		"DQS_SMTP_TLS":           "tls",
		"DQS_LOG_LEVEL":          "debug",
		"DQS_TRUSTED_PROXIES":    " 10.0.0.1, 192.168.0.0/16 ,,",
		"DQS_RATE_LIMIT_AUTH":    "5/30s",
		"DQS_RATE_LIMIT_GENERAL": " 100 / 1m ",
		"DQS_RATE_LIMIT_UPLOAD":  "1/1s",
		"DQS_RATE_LIMIT_JOBS":    "2/2h",
		"DQS_RATE_LIMIT_BILLING": "3/1h",
		"DQS_RATE_LIMIT_WS":      "4/1m",
		"DQS_FILE_MEMORY_BUDGET": "512MiB",
		"DQS_MEMORY_BUDGET":      "6 GiB",
		"DQS_WORKER_QUEUES":      "analysis",
		"DQS_LINEAGE_CACHE":      "64MiB",
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		HTTPAddr:          "127.0.0.1:9000",
		AppURL:            "https://dqs.example.com",
		DataDir:           "/var/lib/dqs",
		DatabaseURL:       "postgres://u:p@db/dqs",
		TemporalAddress:   "temporal:7233",
		TemporalNamespace: "prod",
		TemporalUIURL:     "https://temporal.example.com",
		TemporalPrefix:    "dqs_prod-2",
		JWTSecret:         "jwt-secret-value",
		EncryptionKey:     "enc-key-value",
		AccessTokenTTL:    5 * time.Minute,
		RefreshTokenTTL:   24 * time.Hour,
		OutboxDir:         "/var/lib/dqs/outbox",
		SMTPHost:          "smtp.example.com",
		SMTPPort:          2525,
		SMTPUsername:      "mailer",
		SMTPPassword:      "smtp-pass",
		SMTPFrom:          "x@example.com",
		SMTPTLS:           "tls",
		LogLevel:          "debug",
		TrustedProxies:    []string{"10.0.0.1", "192.168.0.0/16"},
		Limits: Limits{
			Auth:    ratelimit.Rule{Limit: 5, Window: 30 * time.Second},
			General: ratelimit.Rule{Limit: 100, Window: time.Minute},
			Upload:  ratelimit.Rule{Limit: 1, Window: time.Second},
			Jobs:    ratelimit.Rule{Limit: 2, Window: 2 * time.Hour},
			Billing: ratelimit.Rule{Limit: 3, Window: time.Hour},
			WS:      ratelimit.Rule{Limit: 4, Window: time.Minute},
		},
		MaxUploadBytes:   1 << 30,
		FileMemoryBudget: 512 << 20,
		MemoryBudget:     6 << 30,
		WSLifetime:       10 * time.Minute,
		LineageCache:     64 << 20,
		Blob:             Blob{Driver: "local", Dir: "/var/lib/dqs/blobs", Region: "eu-north-1"},
		WorkerQueues:     AnalysisQueue,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("Load =\n%+v\nwant\n%+v", c, want)
	}
}

func TestOutboxDirOverride(t *testing.T) {
	c, err := Load(env(map[string]string{"DQS_DATA_DIR": "/d", "DQS_OUTBOX_DIR": "/mail"}))
	if err != nil {
		t.Fatal(err)
	}
	if c.OutboxDir != "/mail" {
		t.Fatalf("OutboxDir = %q, want /mail", c.OutboxDir)
	}
}

func TestInvalidValuesNameTheVariable(t *testing.T) {
	cases := []struct{ name, value string }{
		{"DQS_ACCESS_TOKEN_TTL", "banana"},
		{"DQS_ACCESS_TOKEN_TTL", "15"},
		{"DQS_ACCESS_TOKEN_TTL", "-5m"},
		{"DQS_ACCESS_TOKEN_TTL", "0s"},
		{"DQS_REFRESH_TOKEN_TTL", "forever"},
		{"DQS_RATE_LIMIT_AUTH", "10"},
		{"DQS_RATE_LIMIT_AUTH", "x/1m"},
		{"DQS_RATE_LIMIT_AUTH", "0/1m"},
		{"DQS_RATE_LIMIT_GENERAL", "-1/1m"},
		{"DQS_RATE_LIMIT_UPLOAD", "10/"},
		{"DQS_RATE_LIMIT_JOBS", "10/0s"},
		{"DQS_RATE_LIMIT_BILLING", "10/hour"},
		{"DQS_RATE_LIMIT_WS", "/1m"},
		{"DQS_SMTP_PORT", "smtp"},
		{"DQS_SMTP_PORT", "0"},
		{"DQS_SMTP_PORT", "65536"},
		{"DQS_SMTP_PORT", "-1"},
		{"DQS_LOG_LEVEL", "verbose"},
		{"DQS_LOG_LEVEL", "INFO"},
		{"DQS_SMTP_TLS", "ssl"},
		{"DQS_TEMPORAL_PREFIX", "dqs prod"},
		{"DQS_TEMPORAL_PREFIX", "dqs/prod"},
		{"DQS_TEMPORAL_PREFIX", "dqs.prod"},
		{"DQS_TEMPORAL_PREFIX", "dqsé"},
		{"DQS_WORKER_QUEUES", "both"},
		{"DQS_WORKER_QUEUES", "Analysis"},
		{"DQS_WORKER_QUEUES", "default,analysis"},
		{"DQS_WORKER_QUEUES", " default"},
		{"DQS_LINEAGE_CACHE", "-1"},
		{"DQS_LINEAGE_CACHE", "1e6 bytes"},
		{"DQS_LINEAGE_CACHE", "lots"},
	}
	for _, tc := range cases {
		t.Run(tc.name+"="+tc.value, func(t *testing.T) {
			c, err := Load(env(map[string]string{tc.name: tc.value}))
			if err == nil {
				t.Fatalf("Load accepted %s=%q: %+v", tc.name, tc.value, c)
			}
			if c != nil {
				t.Errorf("Load returned a config with its error")
			}
			if !strings.Contains(err.Error(), tc.name) {
				t.Errorf("error %q does not name %s", err, tc.name)
			}
		})
	}
}

func TestValidEdgeValues(t *testing.T) {
	for name, value := range map[string]string{
		"DQS_SMTP_PORT":       "65535",
		"DQS_SMTP_TLS":        "none",
		"DQS_LOG_LEVEL":       "error",
		"DQS_TEMPORAL_PREFIX": "A-z_09",
	} {
		if _, err := Load(env(map[string]string{name: value})); err != nil {
			t.Errorf("%s=%q rejected: %v", name, value, err)
		}
	}
}

func secretSettings() []setting {
	var out []setting
	for _, s := range settings {
		if s.secret {
			out = append(out, s)
		}
	}
	return out
}

func TestSecretsAreMarked(t *testing.T) {
	want := map[string]bool{"DQS_DATABASE_URL": true, "DQS_JWT_SECRET": true, "DQS_ENCRYPTION_KEY": true, "DQS_SMTP_PASSWORD": true, "DQS_BLOB_SECRET_ACCESS_KEY": true}
	got := map[string]bool{}
	for _, s := range secretSettings() {
		got[s.name] = true
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("secret settings = %v, want %v", got, want)
	}
}

// No secret setting validates its value today, so the redacting branch of
// Load is exercised with a stand-in secret setting that rejects everything.
func TestInvalidSecretIsNotEchoed(t *testing.T) {
	saved := settings
	t.Cleanup(func() { settings = saved })
	settings = append(append([]setting(nil), saved...), setting{
		name: "DQS_TEST_SECRET", secret: true,
		set: func(*Config, string) error { return errors.New("want 32 bytes") },
	})
	const value = "hunter2-very-secret-value"
	_, err := Load(env(map[string]string{"DQS_TEST_SECRET": value}))
	if err == nil {
		t.Fatal("Load accepted the stand-in secret")
	}
	if !strings.Contains(err.Error(), "DQS_TEST_SECRET") {
		t.Errorf("error %q does not name the variable", err)
	}
	if strings.Contains(err.Error(), value) || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error %q echoes the secret value", err)
	}

	// Every real secret setting accepts any value (so cannot leak one in an
	// error today).
	settings = saved
	m := map[string]string{}
	for _, s := range secretSettings() {
		m[s.name] = "\x00 odd: value"
	}
	if _, err := Load(env(m)); err != nil {
		t.Fatalf("a secret setting rejected a value: %v", err)
	}
}

func TestPrintHelpNeverPrintsSecrets(t *testing.T) {
	for _, s := range secretSettings() {
		if s.def != "" {
			t.Errorf("secret %s has a default %q that help would print", s.name, s.def)
		}
	}
	// Help prints defaults, never the environment.
	secrets := map[string]string{
		"DQS_DATABASE_URL":   "postgres://admin:pg-secret-1@db/dqs",
		"DQS_JWT_SECRET":     "jwt-secret-2",
		"DQS_ENCRYPTION_KEY": "enc-secret-3",
		"DQS_SMTP_PASSWORD":  "smtp-secret-4",
	}
	for k, v := range secrets {
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	PrintHelp(&out)
	for _, v := range []string{"pg-secret-1", "jwt-secret-2", "enc-secret-3", "smtp-secret-4"} {
		if strings.Contains(out.String(), v) {
			t.Errorf("help prints secret %q:\n%s", v, out.String())
		}
	}
	// Each secret's row shows "(empty)" as its default.
	for _, line := range strings.Split(out.String(), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && secrets[f[0]] != "" && f[1] != "(empty)" {
			t.Errorf("help row of %s shows default %q", f[0], f[1])
		}
	}
}

func TestPrintHelpListsEveryName(t *testing.T) {
	var out bytes.Buffer
	PrintHelp(&out)
	rows := map[string]string{}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "VARIABLE") {
		t.Fatalf("help has no header:\n%s", out.String())
	}
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) < 3 {
			t.Errorf("help row %q has no default or meaning", line)
			continue
		}
		rows[f[0]] = f[1]
	}
	names := Names()
	if len(names) != len(settings) || len(names) == 0 {
		t.Fatalf("Names() = %v", names)
	}
	for _, n := range names {
		if !strings.HasPrefix(n, "DQS_") {
			t.Errorf("%s does not start with DQS_", n)
		}
		if _, ok := rows[n]; !ok {
			t.Errorf("help does not list %s", n)
		}
	}
	if len(rows) != len(names) {
		t.Errorf("help lists %d rows, Names() %d", len(rows), len(names))
	}
	if rows["DQS_HTTP_ADDR"] != ":8080" || rows["DQS_RATE_LIMIT_JOBS"] != "20/1h" {
		t.Errorf("help defaults wrong: %v", rows)
	}
}

func TestNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, n := range Names() {
		if seen[n] {
			t.Errorf("duplicate setting %s", n)
		}
		seen[n] = true
	}
}

func TestParseRule(t *testing.T) {
	good := map[string]ratelimit.Rule{
		"600/1m":    {Limit: 600, Window: time.Minute},
		"10/1h":     {Limit: 10, Window: time.Hour},
		"1/1ms":     {Limit: 1, Window: time.Millisecond},
		" 5 / 30s ": {Limit: 5, Window: 30 * time.Second},
		"100/1h30m": {Limit: 100, Window: 90 * time.Minute},
	}
	for in, want := range good {
		got, err := ParseRule(in)
		if err != nil {
			t.Errorf("ParseRule(%q): %v", in, err)
			continue
		}
		if got != want {
			t.Errorf("ParseRule(%q) = %+v, want %+v", in, got, want)
		}
	}
	for _, in := range []string{"", "10", "/", "x/1m", "0/1m", "-3/1m", "10/", "10/0", "10/0s", "10/-1m", "10/minute", "1.5/1m", "10/1m/2", "10:1m"} {
		if r, err := ParseRule(in); err == nil {
			t.Errorf("ParseRule(%q) = %+v, want an error", in, r)
		} else if r != (ratelimit.Rule{}) {
			t.Errorf("ParseRule(%q) returned %+v with its error", in, r)
		}
	}
}

func TestGetenvIsOSGetenv(t *testing.T) {
	t.Setenv("DQS_TEST_GETENV", "yes")
	if Getenv("DQS_TEST_GETENV") != "yes" {
		t.Fatal("Getenv does not read the environment")
	}
}

func TestMemoryBudgets(t *testing.T) {
	for _, c := range []struct {
		file, pool         string
		wantFile, wantPool int64
		err                string
	}{
		{"", "", 2 << 30, defaultMemoryBudget(), ""},
		{"1073741824", "8GiB", 1 << 30, 8 << 30, ""},
		{"256M", "1G", 256 << 20, 1 << 30, ""},
		{"4GiB", "1GiB", 1 << 30, 1 << 30, ""}, // one file fits in the pool
		{"64MiB", "", 0, 0, "DQS_FILE_MEMORY_BUDGET=\"64MiB\": want at least 128MiB"},
		{"2 furlongs", "", 0, 0, "want a size such as 2GiB"},
		{"", "-1", 0, 0, "DQS_MEMORY_BUDGET"},
		{"", "99999999TiB", 0, 0, "want a size"},
	} {
		got, err := Load(env(map[string]string{"DQS_FILE_MEMORY_BUDGET": c.file, "DQS_MEMORY_BUDGET": c.pool}))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q %q: err = %v, want %q", c.file, c.pool, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q %q: %v", c.file, c.pool, err)
			continue
		}
		want := c.wantFile
		if c.file == "" {
			want = min(c.wantFile, c.wantPool)
		}
		if got.FileMemoryBudget != want || got.MemoryBudget != c.wantPool {
			t.Errorf("%q %q: file %d pool %d, want %d %d", c.file, c.pool, got.FileMemoryBudget, got.MemoryBudget, want, c.wantPool)
		}
	}
	if defaultMemoryBudget() < 1<<30 {
		t.Fatalf("default pool %d: this machine has more memory than that", defaultMemoryBudget())
	}
}

// TestWorkerQueues: each value of DQS_WORKER_QUEUES polls exactly the
// queues it names, and an unknown one is refused with the accepted values.
func TestWorkerQueues(t *testing.T) {
	cases := []struct {
		value                       string
		pollsDefault, pollsAnalysis bool
	}{
		{"all", true, true},
		{"default", true, false},
		{"analysis", false, true},
	}
	for _, tc := range cases {
		c, err := Load(env(map[string]string{"DQS_WORKER_QUEUES": tc.value}))
		if err != nil {
			t.Fatalf("DQS_WORKER_QUEUES=%s: %v", tc.value, err)
		}
		q := c.WorkerQueues
		if q.PollsDefault() != tc.pollsDefault || q.PollsAnalysis() != tc.pollsAnalysis {
			t.Errorf("%s polls default %v, analysis %v; want %v, %v", tc.value, q.PollsDefault(), q.PollsAnalysis(), tc.pollsDefault, tc.pollsAnalysis)
		}
	}
	_, err := ParseWorkerQueues("everything")
	if err == nil || !strings.Contains(err.Error(), "all, default or analysis") {
		t.Fatalf("ParseWorkerQueues(everything) = %v, want the accepted values named", err)
	}
	if q := WorkerQueues(""); q.PollsDefault() || q.PollsAnalysis() {
		t.Error("an unset WorkerQueues polls a queue; Start must see it polls none and refuse")
	}
}
