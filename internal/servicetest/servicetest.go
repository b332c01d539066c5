// Package servicetest runs the whole service for integration tests: the
// real HTTP server on a loopback port, a real database (SQLite or a
// PostgreSQL schema of its own), the real Temporal dev server (shared per
// test binary, kept apart by a task queue prefix of the test's own) with the
// worker, and captured JSON logs.
package servicetest

import (
	"bytes"
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/app"
	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/temporaltest"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// Env is one running service.
type Env struct {
	T       testing.TB
	BaseURL string
	Config  *config.Config
	App     *app.App
	Logs    *SyncBuffer
	HTTP    *http.Client
}

// Options adjust an Env.
type Options struct {
	Dialect models.Dialect // SQLite when empty
	// Configure edits the configuration before the service is built.
	Configure func(*config.Config)
	// NoWorker serves the API only (a test runs its own workers).
	NoWorker bool
	// Temporal is the server to use; empty means the binary's shared one.
	Temporal *temporaltest.Server
	// WebhookReceiverCAs, when set, lets webhooks reach loopback HTTPS
	// receivers whose certificates are in the pool (the test-only
	// app.WebhookTest option).
	WebhookReceiverCAs *x509.CertPool
}

// Start builds and serves the service; everything stops when the test ends.
func Start(t testing.TB, opt Options) *Env {
	t.Helper()
	if opt.Dialect == "" {
		opt.Dialect = models.SQLite
	}
	tmp := t.TempDir()
	cfg := config.Defaults()
	cfg.DataDir = tmp
	cfg.OutboxDir = filepath.Join(tmp, "outbox")
	cfg.Blob.Dir = filepath.Join(tmp, "blobs") // Defaults derived it from ./data
	cfg.DatabaseURL = modelstest.URL(t, opt.Dialect)
	cfg.JWTSecret = auth.RandomToken(32)
	cfg.EncryptionKey = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
	cfg.TemporalPrefix = "t" + strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(auth.RandomToken(8)))
	// Tests make many calls from one IP; the limits have tests of their own.
	cfg.Limits.Auth.Limit = 100000
	cfg.Limits.General.Limit = 100000
	cfg.Limits.Billing.Limit = 100000
	if opt.Configure != nil {
		opt.Configure(cfg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.AppURL = "http://" + ln.Addr().String()
	logs := &SyncBuffer{}
	logger := slog.New(slog.NewJSONHandler(io.MultiWriter(logs, testWriter{t}), &slog.HandlerOptions{Level: slog.LevelDebug}))
	tsrv := opt.Temporal
	if tsrv == nil {
		tsrv = temporaltest.Shared(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	appOpt := app.Options{API: true, Worker: !opt.NoWorker, Version: "test", Logger: logger, Temporal: tsrv.Client}
	if opt.WebhookReceiverCAs != nil {
		appOpt.WebhookTest = &app.WebhookTest{RootCAs: opt.WebhookReceiverCAs}
	}
	a, err := app.New(ctx, cfg, appOpt)
	if err != nil {
		ln.Close()
		t.Fatalf("build service: %v", err)
	}
	serveCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.ServeListener(serveCtx, ln) }()
	t.Cleanup(func() {
		stop()
		<-done
		a.Close(context.Background())
	})
	cfg.TemporalAddress = tsrv.HostPort
	return &Env{T: t, BaseURL: "http://" + ln.Addr().String(), Config: cfg, App: a, Logs: logs,
		HTTP: &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// testWriter sends log lines to the test log only when -v is on.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	if testing.Verbose() {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Response is a decoded API response.
type Response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// Data returns the envelope's data as an object.
func (r *Response) Data() map[string]any {
	d, _ := r.Body["data"].(map[string]any)
	return d
}

// List returns the envelope's data as an array of objects.
func (r *Response) List() []map[string]any {
	arr, _ := r.Body["data"].([]any)
	out := make([]map[string]any, 0, len(arr))
	for _, v := range arr {
		m, _ := v.(map[string]any)
		out = append(out, m)
	}
	return out
}

// ErrorCode returns error.code, or "".
func (r *Response) ErrorCode() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// ErrorMessage returns error.message, or "".
func (r *Response) ErrorMessage() string {
	e, _ := r.Body["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// Do sends a request with an optional bearer token and JSON body (a string
// is sent as it is) and decodes the response.
func (e *Env) Do(method, path, token string, body any) *Response {
	e.T.Helper()
	return e.DoHeaders(method, path, token, body, nil)
}

// DoHeaders is Do with extra request headers.
func (e *Env) DoHeaders(method, path, token string, body any, hdr map[string]string) *Response {
	e.T.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			e.T.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, e.BaseURL+path, rd)
	if err != nil {
		e.T.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := e.HTTP.Do(req)
	if err != nil {
		e.T.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		e.T.Fatal(err)
	}
	r := &Response{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			e.T.Fatalf("%s %s: response is not JSON: %v: %s", method, path, err, raw)
		}
	}
	return r
}

// Must sends a request and fails the test unless the status is want.
func (e *Env) Must(want int, method, path, token string, body any) *Response {
	e.T.Helper()
	r := e.Do(method, path, token, body)
	if r.Status != want {
		e.T.Fatalf("%s %s = %d, want %d: %s", method, path, r.Status, want, r.Raw)
	}
	return r
}

// Session is a signed-in user.
type Session struct {
	Email, Password string
	Access, Refresh string
	UserID, OrgID   string
}

// Password is the password test users get.
const Password = "correct horse battery staple"

// Register signs up a new organisation and returns its admin's session.
func (e *Env) Register(email string) *Session {
	e.T.Helper()
	r := e.Must(http.StatusCreated, "POST", "/api/v1/auth/register", "", map[string]any{
		"email": email, "password": Password, "organization_name": "Org of " + email,
	})
	d := r.Data()
	return &Session{Email: email, Password: Password, Access: d["access_token"].(string), Refresh: d["refresh_token"].(string),
		UserID: d["user"].(map[string]any)["id"].(string), OrgID: d["organization"].(map[string]any)["id"].(string)}
}

// AddUser creates a user of the admin's organisation with role and signs them in.
func (e *Env) AddUser(admin *Session, email, role string) *Session {
	e.T.Helper()
	r := e.Must(http.StatusCreated, "POST", "/api/v1/users", admin.Access, map[string]any{"email": email, "password": Password, "role": role})
	id := r.Data()["id"].(string)
	s := e.Login(email, Password)
	s.UserID, s.OrgID = id, admin.OrgID
	return s
}

// Login signs a user without 2FA in.
func (e *Env) Login(email, password string) *Session {
	e.T.Helper()
	d := e.Must(http.StatusOK, "POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": password}).Data()
	return &Session{Email: email, Password: password, Access: d["access_token"].(string), Refresh: d["refresh_token"].(string)}
}

// APIKey creates a key of scope with the admin's session and returns it.
func (e *Env) APIKey(admin *Session, scope string) (key, id string) {
	e.T.Helper()
	d := e.Must(http.StatusCreated, "POST", "/api/v1/api-keys", admin.Access, map[string]any{"name": scope + " key", "scope": scope}).Data()
	return d["key"].(string), d["id"].(string)
}

// FlushAudit waits until every audit entry recorded so far is written.
func (e *Env) FlushAudit() {
	e.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.App.Audit.Flush(ctx); err != nil {
		e.T.Fatal(err)
	}
}

// WaitForMail waits until the outbox holds a message to addr and returns it.
func (e *Env) WaitForMail(addr string, timeout time.Duration) string {
	e.T.Helper()
	deadline := time.Now().Add(timeout)
	for {
		files, _ := filepath.Glob(filepath.Join(e.Config.OutboxDir, "*.eml"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err == nil && strings.Contains(string(raw), "To: <"+addr+">") {
				return string(raw)
			}
		}
		if time.Now().After(deadline) {
			e.T.Fatalf("no e-mail to %s within %s (outbox has %d files)", addr, timeout, len(files))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Unique returns a unique e-mail address for a test.
func Unique(name string) string {
	return fmt.Sprintf("%s-%s@example.com", name, strings.ToLower(auth.RandomToken(6)))
}
