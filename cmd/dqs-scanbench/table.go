package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
)

// createSQL is the benchmark table: the mix of a sales table, 12 columns
// of every class the profile treats differently (integers, floats,
// numeric, text with nulls and blanks, dates, timestamps, booleans).
const createSQL = `CREATE TABLE %s (
	id          bigint,
	customer_id integer,
	quantity    smallint,
	amount      numeric(12,2),
	price       double precision,
	discount    real,
	first_name  text,
	last_name   varchar(40),
	email       text,
	created_on  date,
	updated_at  timestamptz,
	active      boolean
)`

// insertSQL generates rows $1 to $2 from random() (seeded once per load,
// so the table is the same on every machine). The inner query draws the
// random numbers once a row (OFFSET 0 keeps the planner from inlining it
// and drawing them again per use).
const insertSQL = `INSERT INTO %s
SELECT g,
       1 + floor(r1 * 250000)::int,
       CASE WHEN r2 < 0.02 THEN NULL ELSE 1 + floor(r2 * 20)::int END,
       round((r3 * r3 * 5000)::numeric, 2),
       CASE WHEN r4 < 0.05 THEN NULL ELSE round(exp(r4 * 8)::numeric, 4)::float8 END,
       CASE WHEN r5 < 0.30 THEN NULL ELSE (floor(r5 * 10) / 20)::real END,
       CASE WHEN r6 < 0.01 THEN NULL WHEN r6 < 0.015 THEN '' ELSE fn[1 + floor(r7 * array_length(fn, 1))::int] END,
       CASE WHEN r8 < 0.003 THEN '  ' ELSE ln[1 + floor(r8 * array_length(ln, 1))::int] END,
       CASE WHEN r9 < 0.04 THEN NULL
            WHEN r9 < 0.05 THEN ''
            WHEN r9 < 0.06 THEN 'n/a'
            ELSE lower(fn[1 + floor(r7 * array_length(fn, 1))::int]) || '.' ||
                 lower(ln[1 + floor(r8 * array_length(ln, 1))::int]) || (g %% 1000)::text || '@' ||
                 dom[1 + floor(r1 * r9 * 1000)::int %% array_length(dom, 1)]
       END,
       DATE '2015-01-01' + floor(r10 * 4000)::int,
       TIMESTAMPTZ '2015-01-01 00:00:00+00' + make_interval(secs => floor(r10 * 4000 * 86400 + r3 * 86400 * 30)),
       CASE WHEN r11 < 0.10 THEN NULL ELSE r11 < 0.70 END
FROM (SELECT g, random() r1, random() r2, random() r3, random() r4, random() r5, random() r6,
             random() r7, random() r8, random() r9, random() r10, random() r11
      FROM generate_series($1::int8, $2::int8) g OFFSET 0) r,
     (SELECT ARRAY['Alice','Bob','Carla','Dmitri','Eve','Farid','Grace','Hiro','Ines','Jamal',
                   'Kofi','Lena','Mateo','Nadia','Oscar','Priya','Quentin','Rosa','Sven','Tariq',
                   'Uma','Victor','Wen','Ximena','Yusuf','Zoe','Amélie','Björn','Chloé','Dário'] AS fn,
             ARRAY['Smith','Garcia','Müller','Rossi','Nguyen','Kowalski','Silva','Dubois','Kim','Okafor',
                   'Johansson','Novak','Haddad','Tanaka','Moreau','Schmidt','Ivanova','Costa','Lopez','Brown',
                   'Wilson','Martin','Bernard','Fischer','Sato','Chen','Petrov','Andersen','Murphy','Walsh'] AS ln,
             ARRAY['example.com','mail.example.org','corp.example.net','example.co.uk','test.example'] AS dom) a`

// loadChunk is the rows one INSERT generates, so that progress shows.
const loadChunk = 1_000_000

// ensureTable creates schema.scan with rows rows unless a complete one of
// that size is there: the comment, written last, records the row count and
// the generator's version.
func ensureTable(ctx context.Context, db *pgx.Conn, schema string, rows int64, log io.Writer) error {
	ident := pgx.Identifier{schema, tableName}.Sanitize()
	want := fmt.Sprintf("dqs-scanbench v%d rows=%d", tableVersion, rows)
	var comment *string
	err := db.QueryRow(ctx, `SELECT obj_description(c.oid, 'pg_class') FROM pg_class c
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2`,
		schema, tableName).Scan(&comment)
	switch {
	case err == nil && comment != nil && *comment == want:
		return nil
	case err != nil && err != pgx.ErrNoRows:
		return err
	}

	fmt.Fprintf(log, "creating %s with %d rows (once; later runs reuse it)…\n", ident, rows)
	start := time.Now()
	for _, sql := range []string{
		"CREATE SCHEMA IF NOT EXISTS " + pgx.Identifier{schema}.Sanitize(),
		"DROP TABLE IF EXISTS " + ident,
		fmt.Sprintf(createSQL, ident),
		"SELECT setseed(0.20261127)",
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			return fmt.Errorf("%s: %w", sql, err)
		}
	}
	for lo := int64(1); lo <= rows; lo += loadChunk {
		hi := min(rows, lo+loadChunk-1)
		if _, err := db.Exec(ctx, fmt.Sprintf(insertSQL, ident), lo, hi); err != nil {
			return fmt.Errorf("insert rows %d-%d: %w", lo, hi, err)
		}
		fmt.Fprintf(log, "  %d rows (%s)\n", hi, time.Since(start).Round(time.Second))
	}
	// VACUUM sets the hint bits and the visibility map now, so that no
	// timed read pays for writing them.
	if _, err := db.Exec(ctx, "VACUUM (FREEZE, ANALYZE) "+ident); err != nil {
		return fmt.Errorf("VACUUM: %w", err)
	}
	if _, err := db.Exec(ctx, fmt.Sprintf("COMMENT ON TABLE %s IS '%s'", ident, want)); err != nil {
		return fmt.Errorf("COMMENT: %w", err)
	}
	fmt.Fprintf(log, "  created in %s\n", time.Since(start).Round(time.Second))
	return nil
}
