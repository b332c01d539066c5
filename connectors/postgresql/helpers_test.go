package postgresql

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
	"github.com/dqs/dqs/models/modelstest"
)

// server is the test PostgreSQL: modelstest's ($DQS_TEST_POSTGRES_URL,
// skipped when unreachable unless DQS_REQUIRE_POSTGRES=1).
type server struct {
	cfg   *pgx.ConnConfig
	admin *pgx.Conn
}

func testServer(t testing.TB) *server {
	t.Helper()
	url := modelstest.PostgresURL()
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatalf("parse DQS_TEST_POSTGRES_URL: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		err = admin.Ping(ctx)
	}
	if err != nil {
		if modelstest.RequirePostgres() {
			t.Fatalf("PostgreSQL at DQS_TEST_POSTGRES_URL is unreachable and DQS_REQUIRE_POSTGRES=1: %v", err)
		}
		t.Skipf("skipping the PostgreSQL run: server unreachable (%v); set DQS_TEST_POSTGRES_URL or DQS_REQUIRE_POSTGRES=1 to make this fail", err)
	}
	t.Cleanup(func() { admin.Close(context.Background()) })
	return &server{cfg: cfg, admin: admin}
}

// schema creates a schema of its own, dropped when the test ends.
func (s *server) schema(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	rand.Read(b)
	name := "ct_" + hex.EncodeToString(b)
	s.exec(t, "CREATE SCHEMA "+name)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.admin.Exec(ctx, "DROP SCHEMA "+name+" CASCADE")
	})
	return name
}

func (s *server) exec(t testing.TB, sql string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := s.admin.Exec(ctx, sql, args...); err != nil {
		t.Fatalf("%s: %v", firstLine(sql), err)
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// credentials of the test server.
func (s *server) credentials() connectors.Credentials {
	sslmode := "prefer"
	if s.cfg.TLSConfig == nil && len(s.cfg.Fallbacks) == 0 {
		sslmode = "disable"
	}
	return connectors.Credentials{
		"host":     s.cfg.Host,
		"port":     strconv.Itoa(int(s.cfg.Port)),
		"database": s.cfg.Database,
		"username": s.cfg.User,
		"password": s.cfg.Password,
		"sslmode":  sslmode,
	}
}

func (s *server) options(schema string) connectors.Options {
	return connectors.Options{
		Credentials: s.credentials(),
		Schema:      schema,
		Dialer:      &net.Dialer{},
		Timeout:     30 * time.Second,
	}
}

// open opens a Source on schema, closed when the test ends; tune adjusts
// its connection config.
func (s *server) open(t testing.TB, schema string, tune func(*pgx.ConnConfig)) *Source {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := open(ctx, s.options(schema), tune)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

var fixtureTypes = map[connectortest.ColumnType]string{
	connectortest.Integer: "bigint",
	connectortest.Float:   "double precision",
	connectortest.Text:    "text",
	connectortest.Boolean: "boolean",
}

// create creates a connectortest table in schema.
func (s *server) create(t testing.TB, schema string, tbl connectortest.Table) {
	t.Helper()
	var defs, names []string
	for _, c := range tbl.Columns {
		defs = append(defs, pgx.Identifier{c.Name}.Sanitize()+" "+fixtureTypes[c.Type])
		names = append(names, c.Name)
	}
	s.exec(t, fmt.Sprintf("CREATE TABLE %s (%s) WITH (autovacuum_enabled = false)",
		pgx.Identifier{schema, tbl.Name}.Sanitize(), strings.Join(defs, ", ")))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := s.admin.CopyFrom(ctx, pgx.Identifier{schema, tbl.Name}, names, pgx.CopyFromRows(tbl.Rows)); err != nil {
		t.Fatalf("copy into %s: %v", tbl.Name, err)
	}
}

// tracer records the queries a connection sends.
type tracer struct {
	mu      sync.Mutex
	queries []string
	onEnd   func(sql string)
}

type traceKey struct{}

func (tr *tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	tr.mu.Lock()
	tr.queries = append(tr.queries, d.SQL)
	tr.mu.Unlock()
	return context.WithValue(ctx, traceKey{}, d.SQL)
}

func (tr *tracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	if tr.onEnd != nil {
		sql, _ := ctx.Value(traceKey{}).(string)
		tr.onEnd(sql)
	}
}

func (tr *tracer) reset() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	q := tr.queries
	tr.queries = nil
	return q
}

// isAggregate reports whether a traced query is one of Profile's
// aggregate queries (the catalogue ones read pg_class).
func isAggregate(sql string) bool {
	return strings.HasPrefix(sql, "SELECT ARRAY[") || strings.HasPrefix(sql, "WITH s AS ")
}

// setSampleTarget sets SampleTarget for the test, restored when it ends.
func setSampleTarget(t testing.TB, n int64) {
	old := SampleTarget
	SampleTarget = n
	t.Cleanup(func() { SampleTarget = old })
}
