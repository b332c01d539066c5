package audit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// --- helpers ---------------------------------------------------------------

// syncBuffer is a bytes.Buffer safe for the writer goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func bufferLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, nil)), buf
}

// countingAppender wraps a real Appender and records the size of every batch.
// fail, when set, decides per call (1-based) whether to return an error
// instead of appending.
type countingAppender struct {
	next Appender
	fail func(call int) bool

	mu      sync.Mutex
	sizes   []int
	written int
}

func (c *countingAppender) AppendBatch(ctx context.Context, entries []models.AuditLog) error {
	c.mu.Lock()
	c.sizes = append(c.sizes, len(entries))
	call := len(c.sizes)
	c.mu.Unlock()
	if c.fail != nil && c.fail(call) {
		return errors.New("appender: simulated failure")
	}
	if err := c.next.AppendBatch(ctx, entries); err != nil {
		return err
	}
	c.mu.Lock()
	c.written += len(entries)
	c.mu.Unlock()
	return nil
}

func (c *countingAppender) batches() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.sizes...)
}

// memAppender keeps appended rows in memory (a stand-in for the store where
// the test is about the writer's concurrency, not persistence).
type memAppender struct {
	mu   sync.Mutex
	rows []models.AuditLog
}

func (m *memAppender) AppendBatch(_ context.Context, entries []models.AuditLog) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows = append(m.rows, entries...)
	return nil
}

func (m *memAppender) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rows)
}

func newOrg(t *testing.T, s *models.Stores) *models.Organization {
	t.Helper()
	org := &models.Organization{Name: "Acme"}
	if err := s.Orgs.Create(context.Background(), org); err != nil {
		t.Fatalf("create org: %v", err)
	}
	return org
}

func newUser(t *testing.T, s *models.Stores, orgID, email string) *models.User {
	t.Helper()
	u := &models.User{Email: email, PasswordHash: "x", Role: models.RoleAdmin}
	if err := s.Users.Create(context.Background(), orgID, u); err != nil {
		t.Fatalf("create user: %v", err)
	}
	return u
}

func listAll(t *testing.T, s *models.Stores, orgID string) []models.AuditEntry {
	t.Helper()
	rows, total, err := s.Audit.List(context.Background(), orgID, "", models.Page{Limit: 100000})
	if err != nil {
		t.Fatalf("list audit: %v", err)
	}
	if int64(len(rows)) != total {
		t.Fatalf("list returned %d rows, total %d", len(rows), total)
	}
	return rows
}

func ctxTimeout(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// --- writing ---------------------------------------------------------------

func TestRecordedEntriesAreWritten(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		s := models.NewStores(db)
		org := newOrg(t, s)
		user := newUser(t, s, org.ID, "ada@example.com")

		w := NewWriter(s.Audit, discardLogger())
		defer w.Close(context.Background())

		// A time in a non-UTC zone, at microsecond precision (PostgreSQL's).
		zone := time.FixedZone("UTC+5", 5*3600)
		at := time.Date(2026, 3, 4, 10, 11, 12, 345678000, zone)
		w.Record(Entry{OrgID: org.ID, UserID: user.ID, Event: Login, IP: "203.0.113.7",
			Metadata: map[string]any{"method": "password", "attempt": 2}, At: at})
		// No user, no metadata, no time.
		before := time.Now().UTC().Add(-time.Second)
		w.Record(Entry{OrgID: org.ID, Event: APIKeyUsed, IP: "198.51.100.1"})

		if err := w.Flush(ctxTimeout(t, 10*time.Second)); err != nil {
			t.Fatalf("flush: %v", err)
		}
		after := time.Now().UTC().Add(time.Second)

		rows := listAll(t, s, org.ID)
		if len(rows) != 2 {
			t.Fatalf("rows = %d, want 2", len(rows))
		}
		byEvent := map[string]models.AuditEntry{}
		for _, r := range rows {
			byEvent[r.Event] = r
		}

		login, ok := byEvent[Login]
		if !ok {
			t.Fatalf("no %s row in %+v", Login, rows)
		}
		if login.ID == "" {
			t.Error("login row has no id")
		}
		if login.OrgID != org.ID {
			t.Errorf("org = %q, want %q", login.OrgID, org.ID)
		}
		if login.UserID == nil || *login.UserID != user.ID {
			t.Errorf("user = %v, want %q", login.UserID, user.ID)
		}
		if login.UserEmail == nil || *login.UserEmail != "ada@example.com" {
			t.Errorf("joined user email = %v", login.UserEmail)
		}
		if login.IPAddress != "203.0.113.7" {
			t.Errorf("ip = %q", login.IPAddress)
		}
		var meta map[string]any
		if err := json.Unmarshal([]byte(login.Metadata), &meta); err != nil {
			t.Fatalf("metadata %q is not JSON: %v", login.Metadata, err)
		}
		if want := map[string]any{"method": "password", "attempt": float64(2)}; !reflect.DeepEqual(meta, want) {
			t.Errorf("metadata = %v, want %v", meta, want)
		}
		if !login.CreatedAt.Equal(at) {
			t.Errorf("created_at = %v, want the instant %v", login.CreatedAt, at)
		}
		// SQLite stores the time as text: it must be the UTC wall time, not
		// the caller's +05:00 one. (PostgreSQL stores an instant, checked
		// above; how the driver presents it on read is not the writer's.)
		if db.Dialect == models.SQLite {
			var raw string
			if err := db.Gorm.Raw("SELECT CAST(created_at AS TEXT) FROM audit_logs WHERE id = ?", login.ID).Scan(&raw).Error; err != nil {
				t.Fatalf("raw created_at: %v", err)
			}
			if !strings.Contains(raw, "05:11:12") || strings.Contains(raw, "10:11:12") || strings.Contains(raw, "+05") {
				t.Errorf("stored created_at = %q, want the UTC wall time 05:11:12", raw)
			}
		}

		key, ok := byEvent[APIKeyUsed]
		if !ok {
			t.Fatalf("no %s row in %+v", APIKeyUsed, rows)
		}
		if key.UserID != nil {
			t.Errorf("user = %q, want NULL when no user acted", *key.UserID)
		}
		if key.Metadata != "{}" {
			t.Errorf("metadata = %q, want {}", key.Metadata)
		}
		if key.IPAddress != "198.51.100.1" {
			t.Errorf("ip = %q", key.IPAddress)
		}
		if key.CreatedAt.Before(before) || key.CreatedAt.After(after) {
			t.Errorf("created_at = %v, want about now (%v..%v)", key.CreatedAt, before, after)
		}
	})
}

func TestRecordConvertsTimeToUTC(t *testing.T) {
	mem := &memAppender{}
	w := NewWriter(mem, discardLogger())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", -7*3600))
	w.Record(Entry{OrgID: "o", Event: Login, At: at})
	if err := w.Close(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if len(mem.rows) != 1 {
		t.Fatalf("rows = %d", len(mem.rows))
	}
	got := mem.rows[0].CreatedAt
	if got.Location() != time.UTC || !got.Equal(at) {
		t.Fatalf("created_at = %v, want %v in UTC", got, at.UTC())
	}
}

func TestManyEntriesAreWrittenInBatches(t *testing.T) {
	db := modelstest.Open(t, models.SQLite)
	s := models.NewStores(db)
	org := newOrg(t, s)

	store := &countingAppender{next: s.Audit}
	w := NewWriter(store, discardLogger())
	defer w.Close(context.Background())

	const n = 1000
	for i := 0; i < n; i++ {
		w.Record(Entry{OrgID: org.ID, Event: JobCreated, IP: "192.0.2.1", Metadata: map[string]any{"i": i}})
	}
	if err := w.Flush(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatalf("flush: %v", err)
	}

	sizes := store.batches()
	total := 0
	for _, sz := range sizes {
		if sz < 1 {
			t.Errorf("empty batch written: %v", sizes)
		}
		if sz > w.maxBatch {
			t.Errorf("batch of %d exceeds maxBatch %d", sz, w.maxBatch)
		}
		total += sz
	}
	if total != n {
		t.Fatalf("entries appended = %d, want %d", total, n)
	}
	if len(sizes) >= n {
		t.Fatalf("AppendBatch called %d times for %d entries; want batching", len(sizes), n)
	}
	if min := (n + w.maxBatch - 1) / w.maxBatch; len(sizes) < min {
		t.Fatalf("AppendBatch called %d times, fewer than possible (%d)", len(sizes), min)
	}

	rows := listAll(t, s, org.ID)
	if len(rows) != n {
		t.Fatalf("rows = %d, want %d", len(rows), n)
	}
	seen := make(map[float64]bool, n)
	for _, r := range rows {
		var m map[string]float64
		if err := json.Unmarshal([]byte(r.Metadata), &m); err != nil {
			t.Fatalf("metadata %q: %v", r.Metadata, err)
		}
		seen[m["i"]] = true
	}
	if len(seen) != n {
		t.Fatalf("distinct entries = %d, want %d", len(seen), n)
	}
}

func TestBatchIsWrittenAfterDelayWithoutFlush(t *testing.T) {
	mem := &memAppender{}
	w := NewWriter(mem, discardLogger())
	defer w.Close(context.Background())
	w.Record(Entry{OrgID: "o", Event: Logout})
	deadline := time.Now().Add(5 * time.Second)
	for mem.len() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a single entry was not written within 5s (maxDelay %v)", w.maxDelay)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestFlushWaitsForEverythingRecordedBefore(t *testing.T) {
	db := modelstest.Open(t, models.SQLite)
	s := models.NewStores(db)
	org := newOrg(t, s)
	w := NewWriter(s.Audit, discardLogger())
	defer w.Close(context.Background())

	for round := 1; round <= 3; round++ {
		// A count that is not a multiple of maxBatch, so a partial batch is
		// pending when Flush is called (well within maxDelay).
		for i := 0; i < 37; i++ {
			w.Record(Entry{OrgID: org.ID, Event: FileUploaded})
		}
		if err := w.Flush(ctxTimeout(t, 10*time.Second)); err != nil {
			t.Fatalf("flush: %v", err)
		}
		if got := len(listAll(t, s, org.ID)); got != 37*round {
			t.Fatalf("round %d: rows after Flush = %d, want %d", round, got, 37*round)
		}
	}
}

func TestFlushHonoursContext(t *testing.T) {
	release := make(chan struct{})
	called := make(chan struct{}, 1)
	blocked := appenderFunc(func(ctx context.Context, _ []models.AuditLog) error {
		select {
		case called <- struct{}{}:
		default:
		}
		<-release
		return nil
	})
	w := NewWriter(blocked, discardLogger())
	defer func() {
		close(release)
		w.Close(ctxTimeout(t, 10*time.Second))
	}()
	w.Record(Entry{OrgID: "o", Event: Login})
	select {
	case <-called: // the batch was written after maxDelay and now blocks
	case <-time.After(5 * time.Second):
		t.Fatal("store never called")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := w.Flush(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("flush with a blocked store = %v, want deadline exceeded", err)
	}
}

type appenderFunc func(ctx context.Context, entries []models.AuditLog) error

func (f appenderFunc) AppendBatch(ctx context.Context, entries []models.AuditLog) error {
	return f(ctx, entries)
}

// --- best effort -------------------------------------------------------------

func TestFailingAppenderIsBestEffort(t *testing.T) {
	db := modelstest.Open(t, models.SQLite)
	s := models.NewStores(db)
	org := newOrg(t, s)

	// Every call fails until the test switches it off.
	var mu sync.Mutex
	failing := true
	store := &countingAppender{next: s.Audit, fail: func(int) bool {
		mu.Lock()
		defer mu.Unlock()
		return failing
	}}
	log, logs := bufferLogger()
	w := NewWriter(store, log)
	defer w.Close(context.Background())

	start := time.Now()
	for i := 0; i < 450; i++ { // more than two full batches
		w.Record(Entry{OrgID: org.ID, Event: LoginFailed, Metadata: map[string]any{"i": i}})
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Record took %v with a failing store", d)
	}
	if err := w.Flush(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatalf("flush after failures: %v", err)
	}
	if len(store.batches()) == 0 {
		t.Fatal("the failing store was never called")
	}
	if got := len(listAll(t, s, org.ID)); got != 0 {
		t.Fatalf("rows = %d, want 0 (every write failed)", got)
	}
	if !strings.Contains(logs.String(), "audit batch not written") {
		t.Errorf("failed write not logged; log:\n%s", logs.String())
	}

	// The writer keeps working: the next batch is written.
	mu.Lock()
	failing = false
	mu.Unlock()
	for i := 0; i < 5; i++ {
		w.Record(Entry{OrgID: org.ID, Event: Login})
	}
	if err := w.Flush(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatalf("flush: %v", err)
	}
	rows := listAll(t, s, org.ID)
	if len(rows) != 5 {
		t.Fatalf("rows after recovery = %d, want 5", len(rows))
	}
	for _, r := range rows {
		if r.Event != Login {
			t.Fatalf("a dropped entry was written later: %+v", r)
		}
	}
}

func TestUnencodableMetadataIsDroppedNotPanicking(t *testing.T) {
	mem := &memAppender{}
	log, logs := bufferLogger()
	w := NewWriter(mem, log)
	w.Record(Entry{OrgID: "o", Event: Login, Metadata: map[string]any{"bad": make(chan int)}})
	w.Record(Entry{OrgID: "o", Event: Logout})
	if err := w.Close(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	if len(mem.rows) != 1 || mem.rows[0].Event != Logout {
		t.Fatalf("rows = %+v, want only the logout", mem.rows)
	}
	if !strings.Contains(logs.String(), "not encodable") {
		t.Errorf("dropped entry not logged; log:\n%s", logs.String())
	}
}

func TestRecordNeverBlocksWhenQueueFull(t *testing.T) {
	release := make(chan struct{})
	var calls sync.WaitGroup
	var once sync.Once
	calls.Add(1)
	blocked := appenderFunc(func(ctx context.Context, _ []models.AuditLog) error {
		once.Do(calls.Done)
		<-release
		return nil
	})
	log, logs := bufferLogger()
	w := NewWriter(blocked, log)
	released := false
	defer func() {
		if !released {
			close(release)
		}
		w.Close(ctxTimeout(t, 10*time.Second))
	}()

	// Make the writer goroutine block inside AppendBatch.
	for i := 0; i < w.maxBatch; i++ {
		w.Record(Entry{OrgID: "o", Event: Login})
	}
	calls.Wait()

	// Fill the queue, then overflow it.
	capacity := cap(w.queue)
	for i := 0; i < capacity; i++ {
		w.Record(Entry{OrgID: "o", Event: Login})
	}
	if got := len(w.queue); got != capacity {
		t.Fatalf("queue holds %d, want it full (%d)", got, capacity)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 100; i++ {
			w.Record(Entry{OrgID: "org-overflow", Event: JobCompleted})
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Fatal("Record blocked on a full queue")
	}
	out := logs.String()
	if !strings.Contains(out, "audit queue full") {
		t.Fatalf("dropped entry not logged; log:\n%s", out)
	}
	if !strings.Contains(out, "org-overflow") || !strings.Contains(out, JobCompleted) {
		t.Errorf("log does not name the dropped entry's org and event:\n%s", out)
	}
	if got := strings.Count(out, "audit queue full"); got != 100 {
		t.Errorf("queue-full log lines = %d, want 100", got)
	}

	// Unblocked, the writer drains what was queued.
	close(release)
	released = true
	if err := w.Flush(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatalf("flush after release: %v", err)
	}
}

func TestCloseWritesWhatIsQueued(t *testing.T) {
	db := modelstest.Open(t, models.SQLite)
	s := models.NewStores(db)
	org := newOrg(t, s)
	w := NewWriter(s.Audit, discardLogger())
	for i := 0; i < 250; i++ {
		w.Record(Entry{OrgID: org.ID, Event: FilesDeleted})
	}
	if err := w.Close(ctxTimeout(t, 30*time.Second)); err != nil {
		t.Fatalf("close: %v", err)
	}
	select {
	case <-w.done:
	default:
		t.Fatal("writer goroutine still running after Close")
	}
	if got := len(listAll(t, s, org.ID)); got != 250 {
		t.Fatalf("rows after Close = %d, want 250", got)
	}
}

// Record is called from request handlers; one still running while the
// service shuts down (e.g. past the HTTP shutdown timeout) may record after
// the writer was closed. Best effort means the entry is dropped, not that the
// handler panics.
func TestRecordAfterCloseDoesNotPanic(t *testing.T) {
	w := NewWriter(&memAppender{}, discardLogger())
	if err := w.Close(ctxTimeout(t, 10*time.Second)); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("Record after Close panicked: %v", r)
		}
	}()
	w.Record(Entry{OrgID: "o", Event: Logout})
}

// --- events ------------------------------------------------------------------

func TestKnown(t *testing.T) {
	for _, e := range Events {
		if !Known(e) {
			t.Errorf("Known(%q) = false", e)
		}
	}
	for _, e := range []string{"", "LOGIN", "login ", "unknown", "files_expired", "api_key"} {
		if Known(e) {
			t.Errorf("Known(%q) = true", e)
		}
	}
}

func TestEventsHasNoDuplicates(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Events {
		if e == "" {
			t.Error("empty event code")
		}
		if seen[e] {
			t.Errorf("duplicate event %q", e)
		}
		seen[e] = true
	}
}

func TestEventsContainSpecAuditEvents(t *testing.T) {
	spec := []string{
		"login", "logout", "login_failed", "register", "email_verified", "2fa_enabled", "2fa_disabled",
		"file_uploaded", "file_rejected_raw_password", "job_created", "job_started", "job_completed",
		"files_deleted", "files_expiring",
		"gdpr_check_disabled", "credits_added",
		"api_key_created", "api_key_revoked", "api_key_used",
	}
	for _, e := range spec {
		if !Known(e) {
			t.Errorf("SPEC.md audit event %q missing from Events", e)
		}
	}
	// SPEC.md order first.
	if len(Events) < len(spec) || !reflect.DeepEqual(Events[:len(spec)], spec) {
		t.Errorf("Events do not start with the SPEC.md events in order: %v", Events)
	}
	// Source creation and deletion are audit-logged too (SPEC.md).
	for _, e := range []string{SourceCreated, SourceDeleted} {
		if !Known(e) {
			t.Errorf("%q missing", e)
		}
	}
}
