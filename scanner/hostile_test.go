package scanner

// Tables and objects that cannot be scanned as they are fail with a
// clear error marked ErrBadInput, never a panic: a real PostgreSQL schema
// of the test's own, and objects held in memory.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/postgresql"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// pgSource opens a postgresql source on a schema of the test's own and
// returns it with a function running SQL there.
func pgSource(t *testing.T) (*postgresql.Source, func(sql string)) {
	t.Helper()
	dsn := modelstest.URL(t, models.Postgres)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	schema := u.Query().Get("search_path")
	db, err := models.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	exec := func(sql string) {
		t.Helper()
		if err := db.Gorm.Exec(strings.ReplaceAll(sql, "$S", fmt.Sprintf("%q", schema))).Error; err != nil {
			t.Fatalf("%.80s: %v", sql, err)
		}
	}
	password, _ := u.User.Password()
	port := u.Port()
	if port == "" {
		port = "5432"
	}
	src, err := postgresql.Open(context.Background(), connectors.Options{Schema: schema, Dialer: &net.Dialer{},
		Credentials: connectors.Credentials{"host": u.Hostname(), "port": port, "database": strings.TrimPrefix(u.Path, "/"),
			"username": u.User.Username(), "password": password, "sslmode": "disable"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, exec
}

func TestTableDroppedAfterListing(t *testing.T) {
	src, exec := pgSource(t)
	exec(`CREATE TABLE $S.doomed (id int, email text)`)
	exec(`INSERT INTO $S.doomed SELECT g, 'x' || g || '@example.com' FROM generate_series(1, 50) g`)
	tables, err := src.List(context.Background())
	if err != nil || len(tables) != 1 {
		t.Fatalf("List = %v, %v", tables, err)
	}
	exec(`DROP TABLE $S.doomed`)
	_, err = Table(context.Background(), src, "doomed", Options{})
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "doomed") {
		t.Fatalf("scan of a dropped table: %v, want ErrBadInput naming it", err)
	}
}

// TestWidestTable scans a table of PostgreSQL's maximum width (1,600
// columns): it is scanned, or refused as too wide with a clear error.
func TestWidestTable(t *testing.T) {
	src, exec := pgSource(t)
	cols := make([]string, 1600)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d int", i)
	}
	exec(`CREATE TABLE $S.wide (` + strings.Join(cols, ", ") + `)`)
	exec(`INSERT INTO $S.wide (c0, c1599) SELECT g, g FROM generate_series(1, 20) g`)
	res, err := Table(context.Background(), src, "wide", Options{})
	if err != nil {
		if !errors.Is(err, ErrBadInput) {
			t.Fatalf("scan of 1,600 columns: %v, want a result or ErrBadInput", err)
		}
		t.Logf("refused: %v", err)
		return
	}
	if res.Rows != 20 || len(res.Columns) != 1600 || res.Columns[1].Nulls != 20 || res.Columns[1599].Nulls != 0 {
		t.Fatalf("wide table: rows %d, columns %d", res.Rows, len(res.Columns))
	}
}

// TestWideObject reads a CSV object of 10,000 columns.
func TestWideObject(t *testing.T) {
	var b strings.Builder
	for row := range 3 {
		for c := range 10000 {
			if c > 0 {
				b.WriteByte(',')
			}
			if row == 0 {
				fmt.Fprintf(&b, "c%d", c)
			} else {
				fmt.Fprint(&b, row*c)
			}
		}
		b.WriteByte('\n')
	}
	objs := memObjects{"wide.csv": []byte(b.String())}
	res, err := Object(context.Background(), objs, "wide.csv", int64(b.Len()), Options{})
	if err != nil {
		if !errors.Is(err, ErrBadInput) {
			t.Fatalf("10,000 columns: %v, want a result or ErrBadInput", err)
		}
		t.Logf("refused: %v", err)
		return
	}
	if res.Rows != 2 || len(res.Columns) != 10000 {
		t.Fatalf("wide object: rows %d, columns %d", res.Rows, len(res.Columns))
	}
}
