// Package modelstest opens migrated test databases: a SQLite file in a temp
// directory and, when reachable, a fresh schema on PostgreSQL
// ($DQS_TEST_POSTGRES_URL, default the local server). With
// DQS_REQUIRE_POSTGRES=1 an unreachable PostgreSQL fails the test instead of
// skipping it, which is how CI runs.
package modelstest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/auth"
	"github.com/dqs/dqs/models"
)

// DefaultPostgresURL is the local server of the development machine.
const DefaultPostgresURL = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"

// PostgresURL returns the server tests use.
func PostgresURL() string {
	if u := os.Getenv("DQS_TEST_POSTGRES_URL"); u != "" {
		return u
	}
	return DefaultPostgresURL
}

// RequirePostgres reports whether an unreachable PostgreSQL must fail tests.
func RequirePostgres() bool { return os.Getenv("DQS_REQUIRE_POSTGRES") == "1" }

// Dialects are the databases every store test runs on.
var Dialects = []models.Dialect{models.SQLite, models.Postgres}

// URL returns the address of a new, empty database of dialect d that is
// dropped when the test ends: a SQLite file in a temp directory, or a
// PostgreSQL schema of its own (so tests run in parallel and leave nothing
// behind).
func URL(t testing.TB, d models.Dialect) string {
	t.Helper()
	if d == models.SQLite {
		return "sqlite:" + filepath.Join(t.TempDir(), "dqs.db")
	}
	base := PostgresURL()
	admin, err := models.Open(base)
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = admin.Ping(ctx)
		cancel()
	}
	if err != nil {
		if RequirePostgres() {
			t.Fatalf("PostgreSQL at DQS_TEST_POSTGRES_URL is unreachable and DQS_REQUIRE_POSTGRES=1: %v", err)
		}
		t.Skipf("skipping the PostgreSQL run: server unreachable (%v); set DQS_TEST_POSTGRES_URL or DQS_REQUIRE_POSTGRES=1 to make this fail", err)
	}
	schema := strings.ReplaceAll("t_"+strings.ToLower(auth.RandomToken(9)), "-", "_")
	if err := admin.Gorm.Exec(fmt.Sprintf(`CREATE SCHEMA "%s"`, schema)).Error; err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		admin.Gorm.Exec(fmt.Sprintf(`DROP SCHEMA "%s" CASCADE`, schema))
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse DQS_TEST_POSTGRES_URL: %v", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open returns a migrated, empty database of dialect d, closed and dropped
// when the test ends.
func Open(t testing.TB, d models.Dialect) *models.DB {
	t.Helper()
	db, err := models.Open(URL(t, d))
	if err != nil {
		t.Fatalf("open %s: %v", d, err)
	}
	t.Cleanup(func() { db.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("migrate %s: %v", d, err)
	}
	return db
}

// Each runs fn as a subtest on every dialect.
func Each(t *testing.T, fn func(t *testing.T, db *models.DB)) {
	for _, d := range Dialects {
		t.Run(string(d), func(t *testing.T) {
			fn(t, Open(t, d))
		})
	}
}
