package bigquery

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/sqlprofile"
	"github.com/dqs/dqs/records"
)

// List returns the dataset's tables and views in name order, with the
// catalogue's row count and size (views have none), in one query on the
// dataset's __TABLES__ metadata.
func (s *Source) List(ctx context.Context) ([]connectors.Table, error) {
	cctx, cancel := s.call(ctx)
	defer cancel()
	what := fmt.Sprintf("dataset %q", s.dataset)
	it, err := s.client.Query(listQuery(s.project, s.dataset)).Read(cctx)
	if err != nil {
		return nil, s.mapErr(ctx, cctx, what, err)
	}
	var out []connectors.Table
	for {
		var row []bigquery.Value
		err := it.Next(&row)
		if errors.Is(err, iterator.Done) {
			break
		}
		if err != nil {
			return nil, s.mapErr(ctx, cctx, what, err)
		}
		if len(row) < 3 {
			return nil, fmt.Errorf("%w: bigquery catalogue of %s has an unexpected shape", connectors.ErrConnect, what)
		}
		name, _ := row[0].(string)
		if name == "" {
			continue
		}
		out = append(out, connectors.Table{
			Schema:      s.dataset,
			Name:        name,
			RowEstimate: max(0, asInt(row[1])),
			SizeBytes:   max(0, asInt(row[2])),
		})
	}
	slices.SortFunc(out, func(a, b connectors.Table) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// table reads a table's schema and catalogue entry (tables.get).
func (s *Source) table(ctx, cctx context.Context, name string) ([]column, *bigquery.TableMetadata, error) {
	if name == "" {
		return nil, nil, fmt.Errorf("%w: bigquery table name is empty", connectors.ErrNotFound)
	}
	md, err := s.client.Dataset(s.dataset).Table(name).Metadata(cctx)
	if err != nil {
		return nil, nil, s.mapErr(ctx, cctx, fmt.Sprintf("table %q in dataset %q", name, s.dataset), err)
	}
	if len(md.Schema) > connectors.MaxColumns {
		return nil, nil, fmt.Errorf("%w: bigquery table %q has %d columns (at most %d)", connectors.ErrTooWide, name, len(md.Schema), connectors.MaxColumns)
	}
	cols := make([]column, len(md.Schema))
	for i, f := range md.Schema {
		typ, cl := classify(string(f.Type), f.Repeated)
		cols[i] = column{Name: f.Name, Type: typ, Class: cl}
	}
	return cols, md, nil
}

// Profile computes the table's column metrics in one aggregate query,
// after reading its schema with tables.get; in a sampled profile (Options.
// SampledProfile) a table's rows are counted first and the aggregate query
// reads a sample of them (sqlprofile.Run). A view, a materialized view or
// an external table, which TABLESAMPLE does not sample by blocks and
// COUNT(*) would read whole, is profiled exactly either way.
func (s *Source) Profile(ctx context.Context, name string, formats map[string]string) (*connectors.TableProfile, error) {
	cctx, cancel := s.readCall(ctx)
	defer cancel()
	cols, md, err := s.table(ctx, cctx, name)
	if err != nil {
		return nil, err
	}
	ref := tableRef{s.project, s.dataset, name}
	what := fmt.Sprintf("table %q in dataset %q", name, s.dataset)
	// row runs a query returning one row.
	row := func(q *bigquery.Query) ([]bigquery.Value, error) {
		it, err := q.Read(cctx)
		if err != nil {
			return nil, s.mapErr(ctx, cctx, what, err)
		}
		var row []bigquery.Value
		if err := it.Next(&row); err != nil {
			if errors.Is(err, iterator.Done) {
				return nil, fmt.Errorf("%w: bigquery returned no profile row for %s", connectors.ErrConnect, what)
			}
			return nil, s.mapErr(ctx, cctx, what, err)
		}
		return row, nil
	}
	count := func() (int64, error) {
		r, err := row(s.client.Query(countQuery(ref)))
		if err != nil {
			return 0, err
		}
		if len(r) != 1 {
			return 0, fmt.Errorf("%w: bigquery returned %d values counting the rows of %s", connectors.ErrConnect, len(r), what)
		}
		return asInt(r[0]), nil
	}
	aggregate := func(pct float64) (*connectors.TableProfile, []sqlprofile.Item, error) {
		sql, items, params := profileQuery(ref, cols, formats, pct)
		q := s.client.Query(sql)
		for _, p := range params {
			q.Parameters = append(q.Parameters, bigquery.QueryParameter{Name: p.Name, Value: p.Value})
		}
		r, err := row(q)
		if err != nil {
			return nil, nil, err
		}
		p, err := decodeProfile(cols, items, r)
		if err != nil {
			return nil, nil, fmt.Errorf("bigquery profile of %s: %w", what, err)
		}
		return p, items, nil
	}
	sampled := s.sampled && md.Type == bigquery.RegularTable
	return sqlprofile.Run(sampled, len(cols), count, aggregate)
}

// decodeProfile reads the profile query's row.
func decodeProfile(cols []column, items []sqlprofile.Item, row []bigquery.Value) (*connectors.TableProfile, error) {
	if len(row) != len(items) {
		return nil, fmt.Errorf("%w: the profile query returned %d values for %d metrics", connectors.ErrConnect, len(row), len(items))
	}
	ms := make([]connectors.ColumnMetrics, len(cols))
	for i, c := range cols {
		ms[i] = connectors.ColumnMetrics{Name: c.Name, DataType: c.Type, Numeric: c.Class == classNumeric}
	}
	return sqlprofile.Decode(ms, items, row, readValue), nil
}

// readValue reads the values of a result row as the client library
// decodes them: int64, float64, *big.Rat, string, []bigquery.Value (an
// array) or nil.
var readValue = sqlprofile.Reader[bigquery.Value]{
	Int:   asInt,
	Float: asFloat,
	Text:  asText,
	List: func(v bigquery.Value) []bigquery.Value {
		vs, _ := v.([]bigquery.Value)
		return vs
	},
}

func asInt(v bigquery.Value) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

func asFloat(v bigquery.Value) *float64 {
	var f float64
	switch x := v.(type) {
	case float64:
		f = x
	case int64:
		f = float64(x)
	case *big.Rat:
		f, _ = x.Float64()
	case string:
		var err error
		if f, err = strconv.ParseFloat(x, 64); err != nil {
			return nil
		}
	default:
		return nil
	}
	if math.IsNaN(f) {
		return nil
	}
	return &f
}

func asText(v bigquery.Value) *string {
	if v == nil {
		return nil
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	default:
		s = fmt.Sprint(x)
	}
	return &s
}

// MaxSample bounds a sample's rows.
const MaxSample = 100_000

// Sample returns at most limit random rows of the table, every value as
// BigQuery renders it as text, in one query (after tables.get). The
// reader holds the query's results; Close releases it.
func (s *Source) Sample(ctx context.Context, name string, limit int) (records.Reader, error) {
	if limit < 1 {
		return nil, fmt.Errorf("%w: sample limit %d", connectors.ErrInvalid, limit)
	}
	limit = min(limit, MaxSample)
	cctx, cancel := s.readCall(ctx)
	cols, md, err := s.table(ctx, cctx, name)
	if err != nil {
		cancel()
		return nil, err
	}
	what := fmt.Sprintf("table %q in dataset %q", name, s.dataset)
	sql := sampleQuery(tableRef{s.project, s.dataset, name}, cols, limit, md.NumRows, md.Type == bigquery.RegularTable)
	it, err := s.client.Query(sql).Read(cctx)
	if err != nil {
		cancel()
		return nil, s.mapErr(ctx, cctx, what, err)
	}
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return &sampleReader{s: s, ctx: ctx, cctx: cctx, cancel: cancel, what: what, it: it, cols: names,
		rec: records.Record{Values: make([]string, len(cols)), Null: make([]bool, len(cols))}}, nil
}

type sampleReader struct {
	s         *Source
	ctx, cctx context.Context
	cancel    context.CancelFunc
	what      string
	it        *bigquery.RowIterator
	cols      []string
	rec       records.Record
	row       []bigquery.Value
	done      bool
}

func (r *sampleReader) Columns() []string      { return r.cols }
func (r *sampleReader) Format() records.Format { return "sql" }

func (r *sampleReader) Next() (*records.Record, error) {
	if r.done {
		return nil, io.EOF
	}
	r.row = r.row[:0]
	err := r.it.Next(&r.row)
	if errors.Is(err, iterator.Done) {
		r.done = true
		return nil, io.EOF
	}
	if err != nil {
		r.done = true
		return nil, r.s.mapErr(r.ctx, r.cctx, r.what, err)
	}
	for i := range r.rec.Values {
		r.rec.Values[i], r.rec.Null[i] = "", true
		if i < len(r.row) && r.row[i] != nil {
			r.rec.Values[i], r.rec.Null[i] = *asText(r.row[i]), false
		}
	}
	return &r.rec, nil
}

func (r *sampleReader) Close() error {
	r.done = true
	r.cancel()
	return nil
}
