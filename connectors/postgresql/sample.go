package postgresql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/dqs/dqs/records"
)

// Format is the records.Format of a Sample.
const Format records.Format = "sql"

// samplePages is the fewest pages a Sample reads: a table of that many
// pages or fewer is read whole (up to the limit).
const samplePages = 64

// sampleSQL samples by page at the rate that reads about three times
// limit rows ($1) by the catalogue's rows a page (20 a page when the table
// was never analysed), at least samplePages ($3) pages, and keeps limit of
// the rows read at random (ORDER BY random() LIMIT is a top-N sort of the
// sampled rows, limit of them held by the server; without it the LIMIT
// would keep the first sampled pages). $2 is the quoted table name, for
// the catalogue.
const sampleSQL = `SELECT * FROM %s TABLESAMPLE SYSTEM ((
  SELECT CASE WHEN e.pages <= $3 THEN 100
         ELSE least(100, 100 * greatest($3, 3 * $1 * e.pages / CASE WHEN e.tuples > 0 THEN e.tuples ELSE e.pages * 20 END) / e.pages)
         END
  FROM (SELECT coalesce(sum(pg_relation_size(l.oid)), 0) / current_setting('block_size')::float8 AS pages,
               coalesce(sum(greatest(l.reltuples, 0)), 0)::float8 AS tuples
        FROM pg_class l
        WHERE l.oid IN (SELECT relid FROM pg_partition_tree($2::text::regclass) WHERE isleaf)
           OR (l.oid = $2::text::regclass AND l.relkind <> 'p')) e
)::real) ORDER BY random() LIMIT $1`

// Sample returns at most limit rows of the table sampled by page (see the
// package documentation), each value as the server writes it as text
// (booleans true and false), NULL as a null. One query; two for a view,
// which cannot be sampled by page and yields its first rows. The reader
// holds a connection until it is closed.
func (s *Source) Sample(ctx context.Context, table string, limit int) (records.Reader, error) {
	if limit < 0 {
		limit = 0
	}
	conn, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	ident := pgx.Identifier{s.schema, table}.Sanitize()
	// The profile timeout bounds the query and the reading of its rows.
	qctx, cancel := s.readContext(ctx)
	r := &sampleReader{s: s, conn: conn, cancel: cancel, table: table, ctx: qctx}
	err = r.start(fmt.Sprintf(sampleSQL, ident), int64(limit), ident, float64(samplePages))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "0A000" {
		// A view: TABLESAMPLE applies to tables only.
		err = r.start("SELECT * FROM "+ident+" LIMIT $1", int64(limit))
	}
	if err != nil {
		// Mapped before Close cancels qctx.
		err = s.readError(qctx, table, "sampled", err)
		r.Close()
		return nil, err
	}
	return r, nil
}

type sampleReader struct {
	s      *Source
	conn   *pgx.Conn
	cancel context.CancelFunc
	ctx    context.Context
	table  string

	rows    pgx.Rows
	cols    []string
	isBool  []bool
	rec     records.Record
	pending bool // rec holds the first row, read by start
	done    bool
	err     error
	once    sync.Once
}

// start sends the query and reads its first row, so that an error of the
// query (a missing table) is Sample's.
func (r *sampleReader) start(sql string, args ...any) error {
	if r.rows != nil {
		r.rows.Close()
	}
	rows, err := r.conn.Query(r.ctx, sql, args...)
	if err != nil {
		return err
	}
	r.rows = rows
	more := rows.Next()
	if !more {
		if err := rows.Err(); err != nil {
			return err
		}
	}
	fds := rows.FieldDescriptions()
	r.cols = make([]string, len(fds))
	r.isBool = make([]bool, len(fds))
	for i, fd := range fds {
		r.cols[i] = fd.Name
		r.isBool[i] = fd.DataTypeOID == pgtype.BoolOID
	}
	r.rec = records.Record{Values: make([]string, len(fds)), Null: make([]bool, len(fds))}
	if more {
		r.fill()
		r.pending = true
	} else {
		r.done = true
	}
	return nil
}

func (r *sampleReader) fill() {
	raw := r.rows.RawValues()
	for i := range r.rec.Values {
		var v []byte
		if i < len(raw) {
			v = raw[i]
		}
		switch {
		case v == nil:
			r.rec.Values[i], r.rec.Null[i] = "", true
		case r.isBool[i] && string(v) == "t":
			r.rec.Values[i], r.rec.Null[i] = "true", false
		case r.isBool[i] && string(v) == "f":
			r.rec.Values[i], r.rec.Null[i] = "false", false
		default:
			r.rec.Values[i], r.rec.Null[i] = string(v), false
		}
	}
}

func (r *sampleReader) Columns() []string      { return r.cols }
func (r *sampleReader) Format() records.Format { return Format }

func (r *sampleReader) Next() (*records.Record, error) {
	if r.pending {
		r.pending = false
		return &r.rec, nil
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.done || r.rows == nil {
		return nil, io.EOF
	}
	if r.rows.Next() {
		r.fill()
		return &r.rec, nil
	}
	r.done = true
	if err := r.rows.Err(); err != nil {
		r.err = r.s.readError(r.ctx, r.table, "sampled", err)
		return nil, r.err
	}
	return nil, io.EOF
}

// Close ends the query and gives the connection back.
func (r *sampleReader) Close() error {
	r.once.Do(func() {
		if r.rows != nil {
			r.rows.Close()
		}
		r.cancel()
		r.s.release(r.conn)
	})
	return nil
}

var _ records.Reader = (*sampleReader)(nil)
