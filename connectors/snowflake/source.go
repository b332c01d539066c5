package snowflake

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/sqlprofile"
	"github.com/dqs/dqs/records"
)

func (s *Source) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// readCall bounds a Profile or a Sample, which read the table, by the
// profile timeout.
func (s *Source) readCall(ctx context.Context) (context.Context, context.CancelFunc) {
	return connectors.ProfileContext(ctx, s.readTimeout)
}

// pick returns the stored schema name among those the catalogue matched:
// the configured name as given, else its upper-case form.
func (s *Source) pick(found []string) (string, bool) {
	if slices.Contains(found, s.schema) {
		return s.schema, true
	}
	if up := strings.ToUpper(s.schema); slices.Contains(found, up) {
		return up, true
	}
	return "", false
}

func (s *Source) remember(schema string) {
	s.mu.Lock()
	s.resolved = schema
	s.mu.Unlock()
}

// List returns the schema's tables and views in name order, with the
// catalogue's ROW_COUNT and BYTES (null for views: 0), in one query.
func (s *Source) List(ctx context.Context) ([]connectors.Table, error) {
	cctx, cancel := s.call(ctx)
	defer cancel()
	conn, err := s.conn(ctx, cctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	what := fmt.Sprintf("the catalogue of schema %q", s.schema)
	rows, err := conn.QueryContext(cctx, listQuery, s.schema, s.schema)
	if err != nil {
		return nil, s.queryErr(ctx, cctx, what, err)
	}
	defer rows.Close()
	var all []connectors.Table
	var schemas []string
	for rows.Next() {
		var schema, name string
		var n, size sql.NullInt64
		if err := rows.Scan(&schema, &name, &n, &size); err != nil {
			return nil, s.queryErr(ctx, cctx, what, err)
		}
		all = append(all, connectors.Table{Schema: schema, Name: name, RowEstimate: max(0, n.Int64), SizeBytes: max(0, size.Int64)})
		if !slices.Contains(schemas, schema) {
			schemas = append(schemas, schema)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, s.queryErr(ctx, cctx, what, err)
	}
	schema, ok := s.pick(schemas)
	if !ok {
		// An empty schema (or one that does not exist): nothing listed.
		return []connectors.Table{}, nil
	}
	s.remember(schema)
	out := all[:0]
	for _, t := range all {
		if t.Schema == schema {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b connectors.Table) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// columns reads a table's columns from the catalogue, with its TABLE_TYPE
// ("" when the catalogue has none for it).
func (s *Source) columns(ctx, cctx context.Context, conn *sql.Conn, table string) (string, []column, string, error) {
	what := fmt.Sprintf("table %q", table)
	rows, err := conn.QueryContext(cctx, columnsQuery, s.schema, s.schema, table)
	if err != nil {
		return "", nil, "", s.queryErr(ctx, cctx, what, err)
	}
	defer rows.Close()
	bySchema := map[string][]column{}
	kinds := map[string]string{}
	var schemas []string
	for rows.Next() {
		var schema, name, typ string
		var kind sql.NullString
		if err := rows.Scan(&schema, &name, &typ, &kind); err != nil {
			return "", nil, "", s.queryErr(ctx, cctx, what, err)
		}
		if _, ok := bySchema[schema]; !ok {
			schemas = append(schemas, schema)
		}
		bySchema[schema] = append(bySchema[schema], column{Name: name, Type: typ, Class: classify(typ)})
		kinds[schema] = kind.String
	}
	if err := rows.Err(); err != nil {
		return "", nil, "", s.queryErr(ctx, cctx, what, err)
	}
	schema, ok := s.pick(schemas)
	if !ok {
		return "", nil, "", fmt.Errorf("%w: snowflake table %q in schema %q", connectors.ErrNotFound, table, s.schema)
	}
	s.remember(schema)
	cols := bySchema[schema]
	if len(cols) > connectors.MaxColumns {
		return "", nil, "", fmt.Errorf("%w: snowflake table %q has %d columns (at most %d)", connectors.ErrTooWide, table, len(cols), connectors.MaxColumns)
	}
	return schema, cols, kinds[schema], nil
}

// Profile computes the table's column metrics: one catalogue query for
// its columns (and its type), one aggregate query; in a sampled profile
// (Options.SampledProfile) a table's rows are counted first and the
// aggregate query reads a seeded sample of them (sqlprofile.Run). A view,
// a materialized view or any object but a table (sampleable) is profiled
// exactly either way: COUNT(*) would evaluate a view whole, and a view
// takes no seeded sample.
func (s *Source) Profile(ctx context.Context, table string, formats map[string]string) (*connectors.TableProfile, error) {
	cctx, cancel := s.readCall(ctx)
	defer cancel()
	conn, err := s.conn(ctx, cctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	schema, cols, kind, err := s.columns(ctx, cctx, conn, table)
	if err != nil {
		return nil, err
	}
	what := fmt.Sprintf("table %q", table)
	// row runs a query returning one row into vals.
	row := func(query string, args []any, vals []sql.NullString) error {
		rows, err := conn.QueryContext(cctx, query, args...)
		if err != nil {
			return s.queryErr(ctx, cctx, what, err)
		}
		defer rows.Close()
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return s.queryErr(ctx, cctx, what, err)
			}
			return fmt.Errorf("%w: snowflake returned no profile row for %s", connectors.ErrConnect, what)
		}
		if err := rows.Scan(ptrs...); err != nil {
			return s.queryErr(ctx, cctx, what, err)
		}
		return nil
	}
	count := func() (int64, error) {
		var n [1]sql.NullString
		if err := row(countQuery(schema, table), nil, n[:]); err != nil {
			return 0, err
		}
		return asInt(n[0]), nil
	}
	aggregate := func(pct float64) (*connectors.TableProfile, []sqlprofile.Item, error) {
		query, items, args := profileQuery(schema, table, cols, formats, pct)
		vals := make([]sql.NullString, len(items))
		if err := row(query, args, vals); err != nil {
			return nil, nil, err
		}
		return decodeProfile(cols, items, vals), items, nil
	}
	p, err := sqlprofile.Run(s.sampled && sampleable(kind), len(cols), count, aggregate)
	if err != nil {
		return nil, err
	}
	p.Queries++ // the catalogue's
	return p, nil
}

// decodeProfile reads the profile query's row, every value as text.
func decodeProfile(cols []column, items []sqlprofile.Item, row []sql.NullString) *connectors.TableProfile {
	ms := make([]connectors.ColumnMetrics, len(cols))
	for i, c := range cols {
		ms[i] = connectors.ColumnMetrics{Name: c.Name, DataType: c.Type, Numeric: c.Class == classNumeric}
	}
	return sqlprofile.Decode(ms, items, row, sqlprofile.Reader[sql.NullString]{Int: asInt, Float: asFloat, Text: asText})
}

func asInt(v sql.NullString) int64 {
	n, err := strconv.ParseInt(v.String, 10, 64)
	if err != nil {
		f, _ := strconv.ParseFloat(v.String, 64)
		return int64(f)
	}
	return n
}

func asFloat(v sql.NullString) *float64 {
	if !v.Valid {
		return nil
	}
	f, err := strconv.ParseFloat(v.String, 64)
	if err != nil || math.IsNaN(f) {
		return nil
	}
	return &f
}

func asText(v sql.NullString) *string {
	if !v.Valid {
		return nil
	}
	s := v.String
	return &s
}

// MaxSample bounds a sample's rows.
const MaxSample = 100_000

// schemaName returns the schema's stored name, asking the catalogue the
// first time.
func (s *Source) schemaName(ctx, cctx context.Context, conn *sql.Conn) (string, error) {
	s.mu.Lock()
	r := s.resolved
	s.mu.Unlock()
	if r != "" {
		return r, nil
	}
	what := fmt.Sprintf("schema %q", s.schema)
	rows, err := conn.QueryContext(cctx, schemaQuery, s.schema, s.schema)
	if err != nil {
		return "", s.queryErr(ctx, cctx, what, err)
	}
	defer rows.Close()
	var found []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return "", s.queryErr(ctx, cctx, what, err)
		}
		found = append(found, n)
	}
	if err := rows.Err(); err != nil {
		return "", s.queryErr(ctx, cctx, what, err)
	}
	name, ok := s.pick(found)
	if !ok {
		return "", fmt.Errorf("%w: snowflake schema %q", connectors.ErrNotFound, s.schema)
	}
	s.remember(name)
	return name, nil
}

// Sample returns at most limit random rows of the table (SAMPLE (n
// ROWS)), every value as text, in one query. The reader holds a
// connection until Close.
func (s *Source) Sample(ctx context.Context, table string, limit int) (records.Reader, error) {
	if limit < 1 {
		return nil, fmt.Errorf("%w: sample limit %d", connectors.ErrInvalid, limit)
	}
	limit = min(limit, MaxSample)
	cctx, cancel := s.readCall(ctx)
	conn, err := s.conn(ctx, cctx)
	if err != nil {
		cancel()
		return nil, err
	}
	fail := func(err error) (records.Reader, error) {
		conn.Close()
		cancel()
		return nil, err
	}
	schema, err := s.schemaName(ctx, cctx, conn)
	if err != nil {
		return fail(err)
	}
	what := fmt.Sprintf("table %q", table)
	rows, err := conn.QueryContext(cctx, sampleQuery(schema, table, limit))
	if err != nil {
		return fail(s.queryErr(ctx, cctx, what, err))
	}
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return fail(s.queryErr(ctx, cctx, what, err))
	}
	r := &sampleReader{bools: make([]bool, len(cols)), s: s, ctx: ctx, cctx: cctx, cancel: cancel, conn: conn, rows: rows, what: what, cols: cols, limit: limit,
		vals: make([]sql.NullString, len(cols)), ptrs: make([]any, len(cols)),
		rec: records.Record{Values: make([]string, len(cols)), Null: make([]bool, len(cols))}}
	for i := range r.vals {
		r.ptrs[i] = &r.vals[i]
	}
	if types, err := rows.ColumnTypes(); err == nil && len(types) == len(cols) {
		for i, t := range types {
			r.bools[i] = strings.EqualFold(t.DatabaseTypeName(), "BOOLEAN")
		}
	}
	return r, nil
}

type sampleReader struct {
	s         *Source
	ctx, cctx context.Context
	cancel    context.CancelFunc
	conn      *sql.Conn
	rows      *sql.Rows
	what      string
	cols      []string
	vals      []sql.NullString
	ptrs      []any
	rec       records.Record
	// bools marks BOOLEAN columns, whose JSON rowset values are 1 and 0.
	bools    []bool
	n, limit int
	done     bool
}

func (r *sampleReader) Columns() []string      { return r.cols }
func (r *sampleReader) Format() records.Format { return "sql" }

func (r *sampleReader) Next() (*records.Record, error) {
	if r.done {
		return nil, io.EOF
	}
	if r.n >= r.limit || !r.rows.Next() {
		r.done = true
		if err := r.rows.Err(); err != nil {
			return nil, r.s.queryErr(r.ctx, r.cctx, r.what, err)
		}
		return nil, io.EOF
	}
	if err := r.rows.Scan(r.ptrs...); err != nil {
		r.done = true
		return nil, r.s.queryErr(r.ctx, r.cctx, r.what, err)
	}
	r.n++
	for i, v := range r.vals {
		r.rec.Values[i], r.rec.Null[i] = v.String, !v.Valid
		switch {
		case !v.Valid:
			r.rec.Values[i] = ""
		case r.bools[i] && v.String == "1":
			r.rec.Values[i] = "true"
		case r.bools[i] && v.String == "0":
			r.rec.Values[i] = "false"
		}
	}
	return &r.rec, nil
}

func (r *sampleReader) Close() error {
	if r.rows == nil {
		return nil
	}
	r.done = true
	err := r.rows.Close()
	r.conn.Close()
	r.cancel()
	r.rows = nil
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("snowflake: closing the sample of %s failed", r.what)
	}
	return nil
}
