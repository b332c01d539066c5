// Package models holds the gorm models, the versioned migrations and the
// stores. Every store method that reads or writes tenant data takes the
// organisation id as its first argument after the context and filters by it;
// the few lookups that derive the organisation from a credential (login by
// e-mail, API key, refresh token) say so in their names.
package models

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/glebarez/sqlite"
	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Dialect names the database engine behind a DB.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// DB is the service's database handle.
type DB struct {
	Gorm    *gorm.DB
	Dialect Dialect
	// lineage holds copies of large lineage graphs (nil: none).
	lineage *lineageCache
}

// Open connects to url: postgres:// or postgresql:// for PostgreSQL,
// sqlite:PATH (or a bare path) for SQLite. SQLite uses one connection so
// writers never race on the file lock, WAL so readers do not block, and
// foreign keys on.
func Open(url string) (*DB, error) {
	cfg := &gorm.Config{Logger: logger.Discard, NowFunc: func() time.Time { return time.Now().UTC() }}
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		g, err := gorm.Open(postgres.Open(url), cfg)
		if err != nil {
			// pgx errors may quote the DSN; never echo it.
			return nil, fmt.Errorf("connect to PostgreSQL: %w", redact(err, url))
		}
		sqlDB, err := g.DB()
		if err != nil {
			return nil, err
		}
		sqlDB.SetMaxOpenConns(20)
		sqlDB.SetMaxIdleConns(5)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
		return &DB{Gorm: g, Dialect: Postgres, lineage: newLineageCache(DefaultLineageCache)}, nil
	default:
		path := strings.TrimPrefix(url, "sqlite:")
		if path == "" {
			return nil, errors.New("empty SQLite path")
		}
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return nil, fmt.Errorf("create database directory: %w", err)
			}
		}
		dsn := path + "?_pragma=foreign_keys(1)&_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=synchronous(NORMAL)&_pragma=mmap_size(268435456)&_txlock=immediate"
		g, err := gorm.Open(sqlite.Open(dsn), cfg)
		if err != nil {
			return nil, fmt.Errorf("open SQLite %s: %w", path, err)
		}
		sqlDB, err := g.DB()
		if err != nil {
			return nil, err
		}
		sqlDB.SetMaxOpenConns(1)
		return &DB{Gorm: g, Dialect: SQLite, lineage: newLineageCache(DefaultLineageCache)}, nil
	}
}

// Close stops the background loads of lineage graphs and releases the
// connections.
func (d *DB) Close() error {
	if d.lineage != nil {
		d.lineage.close()
	}
	sqlDB, err := d.Gorm.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

// Ping checks the database answers.
func (d *DB) Ping(ctx context.Context) error {
	sqlDB, err := d.Gorm.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

type redactedError struct{ msg string }

func (e redactedError) Error() string { return e.msg }

func redact(err error, secret string) error {
	msg := strings.ReplaceAll(err.Error(), secret, "[database url]")
	return redactedError{msg}
}

type txKey struct{}

// WithTx runs fn in one transaction; stores called with the context fn
// receives join it (the transaction travels in the context). A nested call
// joins the outer transaction.
func (d *DB) WithTx(ctx context.Context, fn func(ctx context.Context) error) error {
	if _, ok := ctx.Value(txKey{}).(*gorm.DB); ok {
		return fn(ctx)
	}
	return d.Gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return fn(context.WithValue(ctx, txKey{}, tx))
	})
}

// conn returns the transaction in ctx, or the database, bound to ctx.
func (d *DB) conn(ctx context.Context) *gorm.DB {
	if tx, ok := ctx.Value(txKey{}).(*gorm.DB); ok {
		return tx.WithContext(ctx)
	}
	return d.Gorm.WithContext(ctx)
}

// lockOrg serialises, within the current transaction, the writes of one
// organisation whose checks count rows (the last admin, the API key limit),
// so two concurrent requests cannot both pass the check. SQLite needs no
// lock: its transactions take the write lock when they begin.
func (d *DB) lockOrg(ctx context.Context, orgID string) error {
	if d.Dialect != Postgres {
		return nil
	}
	return d.conn(ctx).Exec("SELECT id FROM organizations WHERE id = ? FOR UPDATE", orgID).Error
}
