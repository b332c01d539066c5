package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/lineagesvc"
	"github.com/dqs/dqs/models"
)

// pgSchema is the schema the PostgreSQL run loads the graph into, dropped
// before and after, so the run starts empty and leaves nothing behind.
const pgSchema = "dqs_lineagebench"

// sqlStores loads g into the SQL databases cfg asks for (a temporary
// SQLite file; PostgreSQL when cfg.postgres is set) and returns a store
// for each. closeAll removes what was made, also after an error.
func sqlStores(ctx context.Context, cfg config, org string, g lineage.Graph, limits lineage.Limits) (out []*store, closeAll func(), err error) {
	var closers []func()
	closeAll = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	add := func(name string, db *models.DB, done func()) error {
		closers = append(closers, done)
		if err := load(ctx, db, name, org, g, cfg.sqlBatch); err != nil {
			return err
		}
		stores := models.NewStores(db)
		out = append(out, &store{name: name, eng: &lineage.Engine{Store: stores.Lineage, Limits: limits},
			queries: cfg.sqlQueries, ok: true})
		svc := &lineagesvc.Service{Stores: stores, Limits: limits}
		if err := loadCopy(ctx, svc, name, org); err != nil {
			return err
		}
		out = append(out, &store{name: name + ", in-memory copy", svc: svc, queries: cfg.queries, ok: true})
		return nil
	}
	if cfg.sqlite {
		dir, err := os.MkdirTemp("", "dqs-lineagebench-")
		if err != nil {
			return nil, closeAll, err
		}
		closers = append(closers, func() { os.RemoveAll(dir) })
		db, err := models.Open("sqlite:" + filepath.Join(dir, "dqs.db"))
		if err != nil {
			return nil, closeAll, err
		}
		if err := add("SQLite", db, func() { db.Close() }); err != nil {
			return nil, closeAll, err
		}
		if err := pragmas(db, cfg.sqlitePragma); err != nil {
			return nil, closeAll, err
		}
	}
	if cfg.postgres != "" {
		db, done, err := openPostgres(ctx, cfg.postgres)
		if err != nil {
			return nil, closeAll, err
		}
		if err := add("PostgreSQL", db, done); err != nil {
			return nil, closeAll, err
		}
	}
	return out, closeAll, nil
}

// loadCopy has the service load its in-memory copy of org's graph (a
// first walk starts the load and reads SQL; the copy serves the walks
// once loaded) and prints how long the load took and the heap it holds.
func loadCopy(ctx context.Context, svc *lineagesvc.Service, name, org string) error {
	runtime.GC()
	before := heapNow()
	t := time.Now()
	for {
		st, err := svc.Stores.Lineage.Walker(ctx, org)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if _, ok := st.(*lineage.MemStore); ok {
			break
		}
		if time.Since(t) > 5*time.Minute {
			return fmt.Errorf("%s: the in-memory copy of the graph was not loaded after 5 minutes", name)
		}
		time.Sleep(20 * time.Millisecond)
	}
	loaded := time.Since(t)
	runtime.GC()
	held := uint64(0)
	if h := heapNow(); h > before {
		held = h - before
	}
	fmt.Printf("%s: the service's in-memory copy of the graph (DQS_LINEAGE_CACHE) loaded in the background in %v; it holds %s of heap\n",
		name, loaded.Round(time.Millisecond), mb(held))
	return nil
}

// openPostgres opens the server at base on the schema pgSchema, made
// afresh; done drops it.
func openPostgres(ctx context.Context, base string) (db *models.DB, done func(), err error) {
	admin, err := models.Open(base)
	if err != nil {
		return nil, nil, fmt.Errorf("PostgreSQL ($DQS_TEST_POSTGRES_URL): %w", err)
	}
	drop := func() error { return admin.Gorm.Exec(`DROP SCHEMA IF EXISTS "` + pgSchema + `" CASCADE`).Error }
	if err = drop(); err == nil {
		err = admin.Gorm.Exec(`CREATE SCHEMA "` + pgSchema + `"`).Error
	}
	if err != nil {
		admin.Close()
		return nil, nil, fmt.Errorf("PostgreSQL ($DQS_TEST_POSTGRES_URL): %w", err)
	}
	u, err := url.Parse(base)
	if err == nil {
		q := u.Query()
		q.Set("search_path", pgSchema)
		u.RawQuery = q.Encode()
		db, err = models.Open(u.String())
	}
	done = func() {
		if db != nil {
			db.Close()
		}
		drop()
		admin.Close()
	}
	if err != nil {
		done()
		return nil, nil, fmt.Errorf("PostgreSQL ($DQS_TEST_POSTGRES_URL): %w", err)
	}
	return db, done, nil
}

// loadCacheKiB is SQLite's page cache while loading: inserting 400,000
// rows under random UUID keys into five indexes thrashes the default 2 MB
// cache (37 s to load instead of 24 s). The service's setting is put back
// before anything is measured.
const loadCacheKiB = 256 << 10

// load migrates db as the service does and imports g through
// models.Lineage.Import in batches of batch rows. On PostgreSQL it then
// runs ANALYZE, as autovacuum would soon after such a load; SQLite is
// left as the service leaves it, without statistics.
func load(ctx context.Context, db *models.DB, name, org string, g lineage.Graph, batch int) error {
	t := time.Now()
	if err := db.Migrate(ctx); err != nil {
		return fmt.Errorf("%s: migrate: %w", name, err)
	}
	migrated := time.Since(t)
	// SQLite has one connection (models.Open), so a PRAGMA set here is the
	// one the import and the queries run on.
	var cache int64
	if db.Dialect == models.SQLite {
		if err := db.Gorm.Raw("PRAGMA cache_size").Row().Scan(&cache); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if err := db.Gorm.Exec(fmt.Sprintf("PRAGMA cache_size = -%d", loadCacheKiB)).Error; err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	t = time.Now()
	if err := models.NewStores(db).Lineage.Import(ctx, org, g, batch); err != nil {
		return fmt.Errorf("%s: load: %w", name, err)
	}
	loaded := time.Since(t)
	after := ""
	switch db.Dialect {
	case models.SQLite:
		if err := db.Gorm.Exec(fmt.Sprintf("PRAGMA cache_size = %d", cache)).Error; err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		after = fmt.Sprintf("; page cache %d MB while loading, then the service's (cache_size %d)", loadCacheKiB>>10, cache)
	case models.Postgres:
		t = time.Now()
		if err := db.Gorm.WithContext(ctx).Exec("ANALYZE lineage_nodes, lineage_edges").Error; err != nil {
			return fmt.Errorf("%s: ANALYZE: %w", name, err)
		}
		after = fmt.Sprintf("; ANALYZE %v", time.Since(t).Round(time.Millisecond))
	}
	batches := "its default batches"
	if batch > 0 {
		batches = fmt.Sprintf("batches of %d rows", batch)
	}
	fmt.Printf("%s: migrated in %v; %d nodes and %d edges loaded through models.Lineage.Import in %v (%s)%s\n",
		name, migrated.Round(time.Millisecond), len(g.Nodes), len(g.Edges), loaded.Round(time.Millisecond), batches, after)
	return nil
}

// pragmas sets the SQLite pragmas of -sqlitepragma ("name=value;…") on
// db's connection and prints what SQLite reports back, for trying settings
// models.Open does not make (mmap_size, cache_size).
func pragmas(db *models.DB, list string) error {
	for _, p := range strings.Split(list, ";") {
		if p = strings.TrimSpace(p); p == "" {
			continue
		}
		name, _, _ := strings.Cut(p, "=")
		if err := db.Gorm.Exec("PRAGMA " + p).Error; err != nil {
			return fmt.Errorf("-sqlitepragma %s: %w", p, err)
		}
		var v any
		if err := db.Gorm.Raw("PRAGMA " + name).Row().Scan(&v); err != nil {
			return fmt.Errorf("-sqlitepragma %s: %w", p, err)
		}
		fmt.Printf("SQLite: PRAGMA %s, now %v\n", p, v)
	}
	return nil
}
