package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// cleanEnv clears every DQS_ setting for the test, so the developer's
// environment cannot change the outcome.
func cleanEnv(t *testing.T) {
	t.Helper()
	for _, n := range config.Names() {
		t.Setenv(n, "")
	}
}

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func checkUsage(t *testing.T, out string) {
	t.Helper()
	for _, n := range config.Names() {
		if !strings.Contains(out, n) {
			t.Errorf("usage does not list %s", n)
		}
	}
	for _, cmd := range []string{"dqs dev", "dqs api", "dqs worker", "dqs migrate", "dqs version"} {
		if !strings.Contains(out, cmd) {
			t.Errorf("usage does not list %q", cmd)
		}
	}
}

func TestHelp(t *testing.T) {
	cleanEnv(t)
	for _, flag := range []string{"--help", "-h", "help"} {
		t.Run(flag, func(t *testing.T) {
			code, out, errOut := runCmd(t, flag)
			if code != 0 {
				t.Fatalf("exit = %d, want 0", code)
			}
			if errOut != "" {
				t.Errorf("stderr = %q, want empty", errOut)
			}
			checkUsage(t, out)
		})
	}
}

func TestHelpWorksWithBadConfig(t *testing.T) {
	cleanEnv(t)
	t.Setenv("DQS_ACCESS_TOKEN_TTL", "banana")
	code, out, _ := runCmd(t, "--help")
	if code != 0 {
		t.Fatalf("exit = %d, want 0", code)
	}
	checkUsage(t, out)
}

func TestNoArgs(t *testing.T) {
	cleanEnv(t)
	code, out, _ := runCmd(t)
	if code != 2 {
		t.Fatalf("exit = %d, want 2", code)
	}
	if !strings.Contains(out, "Usage:") {
		t.Fatalf("no usage printed:\n%s", out)
	}
	checkUsage(t, out)
}

func TestUnknownCommand(t *testing.T) {
	cleanEnv(t)
	code, out, errOut := runCmd(t, "frobnicate")
	if code != 2 {
		t.Fatalf("exit = %d, want 2", code)
	}
	if !strings.Contains(errOut, "frobnicate") || !strings.Contains(errOut, "unknown command") {
		t.Fatalf("stderr = %q, want it to name the unknown command", errOut)
	}
	if out != "" {
		t.Errorf("stdout = %q, want empty", out)
	}
}

func TestVersion(t *testing.T) {
	cleanEnv(t)
	code, out, errOut := runCmd(t, "version")
	if code != 0 {
		t.Fatalf("exit = %d (stderr %q), want 0", code, errOut)
	}
	if strings.TrimSpace(out) != version || version == "" {
		t.Fatalf("stdout = %q, want %q", out, version)
	}
}

func TestBadConfigValue(t *testing.T) {
	cleanEnv(t)
	t.Setenv("DQS_ACCESS_TOKEN_TTL", "banana")
	for _, cmd := range []string{"version", "migrate", "dev"} {
		t.Run(cmd, func(t *testing.T) {
			code, _, errOut := runCmd(t, cmd)
			if code != 2 {
				t.Fatalf("exit = %d, want 2", code)
			}
			if !strings.Contains(errOut, "DQS_ACCESS_TOKEN_TTL") {
				t.Fatalf("stderr = %q, want the variable named", errOut)
			}
		})
	}
}

func checkMigrated(t *testing.T, url string) {
	t.Helper()
	db, err := models.Open(url)
	if err != nil {
		t.Fatalf("open migrated database: %v", err)
	}
	defer db.Close()
	var ids []string
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := db.Gorm.WithContext(ctx).Raw("SELECT id FROM schema_migrations").Scan(&ids).Error; err != nil {
		t.Fatalf("read schema_migrations: %v", err)
	}
	want := append([]string(nil), models.MigrationIDs()...)
	sort.Strings(ids)
	sort.Strings(want)
	if len(want) == 0 || !reflect.DeepEqual(ids, want) {
		t.Fatalf("schema_migrations = %v, want %v", ids, want)
	}
	// The schema is usable.
	if err := db.Gorm.WithContext(ctx).Raw("SELECT count(*) FROM audit_logs").Scan(new(int64)).Error; err != nil {
		t.Fatalf("audit_logs missing: %v", err)
	}
}

func TestMigrateSQLite(t *testing.T) {
	cleanEnv(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "dqs.db")
	url := "sqlite:" + path
	t.Setenv("DQS_DATABASE_URL", url)
	// Nothing of the data directory is needed for migrate.
	t.Setenv("DQS_DATA_DIR", filepath.Join(dir, "unused"))

	for i := 0; i < 2; i++ { // idempotent
		code, out, errOut := runCmd(t, "migrate")
		if code != 0 {
			t.Fatalf("run %d: exit = %d, stderr %q", i, code, errOut)
		}
		if !strings.Contains(out, "up to date") {
			t.Errorf("stdout = %q", out)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "unused")); err == nil {
		t.Errorf("migrate created the data directory although a database URL was set")
	}
	checkMigrated(t, url)
}

func TestMigrateDefaultSQLiteUnderDataDir(t *testing.T) {
	cleanEnv(t)
	dir := filepath.Join(t.TempDir(), "data")
	t.Setenv("DQS_DATA_DIR", dir)
	code, _, errOut := runCmd(t, "migrate")
	if code != 0 {
		t.Fatalf("exit = %d, stderr %q", code, errOut)
	}
	checkMigrated(t, "sqlite:"+filepath.Join(dir, "dqs.db"))
}

func TestMigratePostgres(t *testing.T) {
	cleanEnv(t)
	url := modelstest.URL(t, models.Postgres)
	t.Setenv("DQS_DATABASE_URL", url)
	t.Setenv("DQS_DATA_DIR", filepath.Join(t.TempDir(), "unused"))
	code, out, errOut := runCmd(t, "migrate")
	if code != 0 {
		t.Fatalf("exit = %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "up to date") {
		t.Errorf("stdout = %q", out)
	}
	checkMigrated(t, url)
}

func TestMigrateUnreachableDatabaseFailsWithoutEchoingURL(t *testing.T) {
	cleanEnv(t)
	const secret = "s3cr3t-pass"
	t.Setenv("DQS_DATABASE_URL", "postgres://dqs:"+secret+"@127.0.0.1:1/dqs?sslmode=disable&connect_timeout=2")
	code, out, errOut := runCmd(t, "migrate")
	if code != 1 {
		t.Fatalf("exit = %d, want 1 (stdout %q, stderr %q)", code, out, errOut)
	}
	if errOut == "" {
		t.Fatal("no error on stderr")
	}
	if strings.Contains(errOut+out, secret) {
		t.Fatalf("output echoes the database password: %q", errOut)
	}
}
