package postgresql

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

// sampledRows reads, with a plain SELECT, the very rows Profile's sample
// pass reads from a table of rows rows: the same TABLESAMPLE SYSTEM
// percentage and REPEATABLE seed give the same pages while the table is
// unchanged. cols are the columns selected; width is the table's number
// of columns (it sets the sample's size).
func (s *server) sampledRows(t testing.TB, schema, table string, cols []string, width int, rows int64) [][]any {
	t.Helper()
	idents := make([]string, len(cols))
	for i, c := range cols {
		idents[i] = pgx.Identifier{c}.Sanitize()
	}
	sql := "SELECT " + strings.Join(idents, ", ") + " FROM " + pgx.Identifier{schema, table}.Sanitize() +
		" TABLESAMPLE SYSTEM ($1::real) REPEATABLE ($2::float8)"
	res, err := s.admin.Query(context.Background(), sql, SamplePercent(SampleRows(width), rows), float64(SampleSeed))
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(res, func(r pgx.CollectableRow) ([]any, error) { return r.Values() })
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// duj1 is the distinct count Profile estimates for column ci from the
// sample, computed here from the sampled rows: d values, f1 of them seen
// once, among n non-null ones, scaled to the table's nonNull values.
func duj1(sample [][]any, ci int, nonNull, rows int64) int64 {
	seen := map[any]int64{}
	var n int64
	for _, row := range sample {
		if v := row[ci]; v != nil {
			seen[v]++
			n++
		}
	}
	var f1 int64
	for _, k := range seen {
		if k == 1 {
			f1++
		}
	}
	return EstimateDistinct(int64(len(seen)), f1, n, nonNull, rows, nil)
}

// TestProfileSampleMatchesOracle profiles a table larger than its sample
// and checks every figure against an oracle computed in Go: counts,
// blanks and numeric min and max against the whole table, exactly; the
// sampled figures (mean, deviation, quantiles, text min and max, format
// conformance, the distinct estimate's inputs) against the very rows the
// sample pass read, exactly (floats to FloatError).
func TestProfileSampleMatchesOracle(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tbl := oracleTable(20_000, 11)
	srv.create(t, schema, tbl)
	setSampleTarget(t, 3_000)

	src := srv.open(t, schema, nil)
	got, err := src.Profile(context.Background(), tbl.Name, tbl.Formats)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(tbl.Columns))
	for i, c := range tbl.Columns {
		names[i] = c.Name
	}
	sample := connectortest.Table{Name: tbl.Name, Columns: tbl.Columns, Rows: srv.sampledRows(t, schema, tbl.Name, names, len(names), got.Rows)}
	if n := len(sample.Rows); n < 1_000 || n > 9_000 {
		t.Fatalf("the sample holds %d of %d rows, want about %d", n, len(tbl.Rows), SampleTarget)
	}
	t.Logf("sample of %d rows", len(sample.Rows))
	// Go's RE2 and PostgreSQL read the label format alike; the other
	// format matches nothing in either.
	formats := map[string]string{"label": tbl.Formats["label"], "Mixed Case \"name\"": `^NOTHING$`}
	whole, sampled := connectortest.Expect(tbl, formats), connectortest.Expect(sample, formats)

	if got.Rows != whole.Rows || len(got.Columns) != len(whole.Columns) {
		t.Fatalf("%d rows, %d columns; want %d, %d", got.Rows, len(got.Columns), whole.Rows, len(whole.Columns))
	}
	for i, w := range whole.Columns {
		g, sw := got.Columns[i], sampled.Columns[i]
		checkExact(t, g, w, whole.Types[i])
		checkSampled(t, g, sw, sampled.Types[i])
		if want := duj1(sample.Rows, i, whole.Rows-w.Nulls, whole.Rows); g.Distinct != want {
			t.Errorf("%s: distinct %d, want %d (Duj1 over the sample)", w.Name, g.Distinct, want)
		}
		if want := wantEstimated(sw, whole.Types[i]); !slices.Equal(g.Estimated, want) {
			t.Errorf("%s: estimated %q, want %q", w.Name, g.Estimated, want)
		}
	}
}

// checkExact checks the figures the full pass computes over the whole
// table: nulls, blanks, numbers' min and max, booleans' min and max.
func checkExact(t *testing.T, g, w connectors.ColumnMetrics, typ connectortest.ColumnType) {
	t.Helper()
	if g.Nulls != w.Nulls || g.Empty != w.Empty || g.Numeric != w.Numeric {
		t.Errorf("%s: nulls %d empty %d numeric %v, want %d %d %v", w.Name, g.Nulls, g.Empty, g.Numeric, w.Nulls, w.Empty, w.Numeric)
	}
	switch typ {
	case connectortest.Integer, connectortest.Float:
		// The oracle's values need no exponent: PostgreSQL's shortest
		// exact text (extra_float_digits 3) is Go's 'g' -1.
		if str(g.Min) != str(w.Min) || str(g.Max) != str(w.Max) {
			t.Errorf("%s: min %s max %s, want %s %s", w.Name, str(g.Min), str(g.Max), str(w.Min), str(w.Max))
		}
	case connectortest.Boolean:
		if str(g.Min) != "false" || str(g.Max) != "true" {
			t.Errorf("%s: min %s max %s, want false true", w.Name, str(g.Min), str(g.Max))
		}
	}
}

// checkSampled checks the figures the sample pass computes against the
// same figures of the sampled rows.
func checkSampled(t *testing.T, g, w connectors.ColumnMetrics, typ connectortest.ColumnType) {
	t.Helper()
	if typ == connectortest.Text && (str(g.Min) != str(w.Min) || str(g.Max) != str(w.Max)) {
		t.Errorf("%s: min %q max %q, want the sample's %q %q", w.Name, str(g.Min), str(g.Max), str(w.Min), str(w.Max))
	}
	for what, pair := range map[string][2]*float64{"mean": {g.Mean, w.Mean}, "stddev": {g.StdDev, w.StdDev}, "median": {g.Median, w.Median}, "format conformance": {g.FormatConformance, w.FormatConformance}} {
		if !nearly(pair[0], pair[1]) {
			t.Errorf("%s %s: %v, want the sample's %v", w.Name, what, num(pair[0]), num(pair[1]))
		}
	}
	if len(g.Quantiles) != len(w.Quantiles) {
		t.Errorf("%s: quantiles %v, want the sample's %v", w.Name, g.Quantiles, w.Quantiles)
	}
	for k, v := range w.Quantiles {
		if g.Quantiles[k] != v {
			t.Errorf("%s %s: %v, want exactly the sample's %v", w.Name, k, g.Quantiles[k], v)
		}
	}
}

// wantEstimated is what a sampled column's Estimated must name.
func wantEstimated(w connectors.ColumnMetrics, typ connectortest.ColumnType) []string {
	names := []string{"distinct"}
	if typ == connectortest.Text && w.Min != nil {
		names = append(names, "min", "max")
	}
	if w.Mean != nil {
		names = append(names, "mean", "stddev", "median", "quantiles")
	}
	if w.FormatConformance != nil {
		names = append(names, "format_conformance")
	}
	return names
}

func str(v *string) string {
	if v == nil {
		return "<nil>"
	}
	return *v
}

func num(v *float64) string {
	if v == nil {
		return "<nil>"
	}
	return fmt.Sprint(*v)
}

// nearly reports whether two optional floats are both absent or equal to
// connectortest.FloatError relative.
func nearly(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) <= connectortest.FloatError*math.Max(1, math.Max(math.Abs(*a), math.Abs(*b)))
}

// tagTracer records the command tag of Profile's sample pass.
type tagTracer struct{ tag string }

func (tr *tagTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return context.WithValue(ctx, traceKey{}, d.SQL)
}

func (tr *tagTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	if sql, _ := ctx.Value(traceKey{}).(string); strings.HasPrefix(sql, "WITH s AS ") {
		tr.tag = d.CommandTag.String()
	}
}

// TestSamplePassRowPerColumn profiles a sampled table none of whose
// columns has a figure of the sample's own (no numbers, text or format;
// distinct counts from pg_stats): the sample pass still returns one row
// per column, not one per sampled row.
func TestSamplePassRowPerColumn(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	name := pgx.Identifier{schema, "dated"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+" AS SELECT DATE '2020-01-01' + g % 300 AS d, g % 3 = 0 AS b FROM generate_series(1, 20000) g")
	srv.exec(t, "ANALYZE "+name)
	setSampleTarget(t, 1_000)
	tr := &tagTracer{}
	src := srv.open(t, schema, func(c *pgx.ConnConfig) { c.Tracer = tr })
	p, err := src.Profile(context.Background(), "dated", nil)
	if err != nil {
		t.Fatal(err)
	}
	if tr.tag != "SELECT 2" {
		t.Errorf("the sample pass returned %q, want a row per column (SELECT 2)", tr.tag)
	}
	d, b := p.Columns[0], p.Columns[1]
	if *d.Min != "2020-01-01" || *d.Max != "2020-10-26" || d.Distinct != 300 || *b.Min != "false" || *b.Max != "true" || b.Distinct != 2 {
		t.Errorf("profile %+v %+v", d, b)
	}
	if !slices.Equal(d.Estimated, []string{"distinct"}) {
		t.Errorf("estimated %q, want distinct", d.Estimated)
	}
}
