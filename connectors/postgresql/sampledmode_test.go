package postgresql

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

// openSampled opens a Source in the sampled profile mode, through
// connectors.Options as a scan does, recording its queries in tr.
func (s *server) openSampled(t *testing.T, schema string, tr *tracer) *Source {
	t.Helper()
	opts := s.options(schema)
	opts.SampledProfile = true
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := open(ctx, opts, func(c *pgx.ConnConfig) { c.Tracer = tr })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src
}

// scaled is a count over read sampled rows scaled to a table of rows
// rows, as the oracle computes it.
func scaled(n, read, rows int64) int64 {
	return int64(math.Round(float64(n) * float64(rows) / float64(read)))
}

// TestProfileSampledModeMatchesOracle profiles a table larger than its
// sample in the sampled mode: the row count is exact, from a pass that
// computes nothing else; every other figure comes from the very rows the
// sample pass read, the counts scaled to the table (checked against an
// oracle over those rows), and Estimated names them all.
func TestProfileSampledModeMatchesOracle(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tbl := oracleTable(20_000, 13)
	srv.create(t, schema, tbl)
	setSampleTarget(t, 3_000)

	tr := &tracer{}
	got, err := srv.openSampled(t, schema, tr).Profile(context.Background(), tbl.Name, tbl.Formats)
	if err != nil {
		t.Fatal(err)
	}
	if got.Queries != 3 || len(tr.queries) != 3 {
		t.Fatalf("%d queries counted, %d sent; want 3 (catalogue, row count, sample pass)", got.Queries, len(tr.queries))
	}
	if want := "SELECT ARRAY[\ncount(*)::text\n] FROM " + (pgx.Identifier{schema, tbl.Name}).Sanitize(); tr.queries[1] != want {
		t.Errorf("the pass over the whole table is\n%s\nwant only the row count:\n%s", tr.queries[1], want)
	}
	names := make([]string, len(tbl.Columns))
	for i, c := range tbl.Columns {
		names[i] = c.Name
	}
	sample := connectortest.Table{Name: tbl.Name, Columns: tbl.Columns, Rows: srv.sampledRows(t, schema, tbl.Name, names, len(names), got.Rows)}
	read := int64(len(sample.Rows))
	if read < 1_000 || read > 9_000 {
		t.Fatalf("the sample holds %d of %d rows, want about %d", read, len(tbl.Rows), SampleTarget)
	}
	whole, sampled := connectortest.Expect(tbl, tbl.Formats), connectortest.Expect(sample, tbl.Formats)
	if got.Rows != whole.Rows {
		t.Fatalf("%d rows, want exactly %d", got.Rows, whole.Rows)
	}
	for i, sw := range sampled.Columns {
		g, typ := got.Columns[i], sampled.Types[i]
		if wn, we := scaled(sw.Nulls, read, whole.Rows), scaled(sw.Empty, read, whole.Rows); g.Nulls != wn || g.Empty != we {
			t.Errorf("%s: nulls %d empty %d, want the sample's %d and %d scaled to %d: %d %d", sw.Name, g.Nulls, g.Empty, sw.Nulls, sw.Empty, whole.Rows, wn, we)
		}
		wantMin, wantMax := str(sw.Min), str(sw.Max)
		if typ == connectortest.Boolean {
			wantMin, wantMax = boolRangeOf(sample.Rows, i)
		}
		if str(g.Min) != wantMin || str(g.Max) != wantMax {
			t.Errorf("%s: min %s max %s, want the sample's %s %s", sw.Name, str(g.Min), str(g.Max), wantMin, wantMax)
		}
		checkSampled(t, g, sw, typ)
		if want := duj1(sample.Rows, i, whole.Rows-g.Nulls, whole.Rows); g.Distinct != want {
			t.Errorf("%s: distinct %d, want %d (Duj1 over the sample)", sw.Name, g.Distinct, want)
		}
		want := []string{"nulls"}
		if typ == connectortest.Text {
			want = append(want, "empty")
		}
		want = append(want, "distinct")
		if sw.Min != nil || typ == connectortest.Boolean {
			want = append(want, "min", "max")
		}
		if sw.Mean != nil {
			want = append(want, "mean", "stddev", "median", "quantiles")
		}
		if sw.FormatConformance != nil {
			want = append(want, "format_conformance")
		}
		if !slices.Equal(g.Estimated, want) {
			t.Errorf("%s: estimated %q, want %q", sw.Name, g.Estimated, want)
		}
	}
}

// boolRangeOf is the min and max of boolean column ci of rows.
func boolRangeOf(rows [][]any, ci int) (lo, hi string) {
	lo, hi = "<nil>", "<nil>"
	for _, r := range rows {
		b, ok := r[ci].(bool)
		if !ok {
			continue
		}
		if lo == "<nil>" || (!b && lo == "true") {
			lo = map[bool]string{true: "true", false: "false"}[b]
		}
		if hi == "<nil>" || (b && hi == "false") {
			hi = map[bool]string{true: "true", false: "false"}[b]
		}
	}
	return lo, hi
}

// TestProfileSampledModeSmallTableIsExact: a table no larger than its
// sample is read whole in the sampled mode too, and profiles exactly as
// in the exact mode, with nothing estimated, in the same number of
// queries.
func TestProfileSampledModeSmallTableIsExact(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tbl := oracleTable(2_000, 17)
	srv.create(t, schema, tbl)

	exact, err := srv.open(t, schema, nil).Profile(context.Background(), tbl.Name, tbl.Formats)
	if err != nil {
		t.Fatal(err)
	}
	tr := &tracer{}
	got, err := srv.openSampled(t, schema, tr).Profile(context.Background(), tbl.Name, tbl.Formats)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rows != exact.Rows || got.Queries != exact.Queries || len(got.Columns) != len(exact.Columns) {
		t.Fatalf("sampled mode: %d rows in %d queries; exact mode: %d in %d", got.Rows, got.Queries, exact.Rows, exact.Queries)
	}
	for i, e := range exact.Columns {
		g := got.Columns[i]
		if len(g.Estimated) != 0 {
			t.Errorf("%s: estimated %q on a table read whole", g.Name, g.Estimated)
		}
		if g.Nulls != e.Nulls || g.Empty != e.Empty || g.Distinct != e.Distinct || str(g.Min) != str(e.Min) || str(g.Max) != str(e.Max) ||
			!nearly(g.Mean, e.Mean) || !nearly(g.StdDev, e.StdDev) || !nearly(g.Median, e.Median) || !nearly(g.FormatConformance, e.FormatConformance) {
			t.Errorf("%s: sampled mode %+v, exact mode %+v", g.Name, g, e)
		}
	}
	whole := connectortest.Expect(tbl, tbl.Formats)
	for i, w := range whole.Columns {
		checkExact(t, got.Columns[i], w, whole.Types[i])
	}
	// Read whole, the table's counts come from the sample pass, after a
	// pass that only counts the rows.
	if len(tr.queries) != 3 || !strings.HasSuffix(tr.queries[1], "count(*)::text\n] FROM "+(pgx.Identifier{schema, tbl.Name}).Sanitize()) ||
		!strings.Contains(tr.queries[2], "ARRAY[count(*)::text, count(c0)::text") {
		t.Errorf("queries %q, want the row count, then the sample pass counting the columns", tr.queries)
	}
}

// TestSampledCountsBounded: counts scaled from a sample are rounded one
// by one, and blanks are bounded by the rows that are not null, so nulls
// and blanks never add up to more than the table's rows.
func TestSampledCountsBounded(t *testing.T) {
	pl := planCounts([]column{{name: "t", typ: "text", class: classText}}, func(int, column) string { return "c0" })
	text := func(s string) *string { return &s }
	// 100,000 sampled rows: 1 null, 99,999 blanks; a table of 150,000:
	// 1.5 and 149,998.5 both round up.
	vals := []*string{text("100000"), text("99999"), text("99999")}
	ms := make([]connectors.ColumnMetrics, 1)
	pl.decode(vals, ms, 150_000)
	if ms[0].Nulls != 2 || ms[0].Empty != 149_998 {
		t.Errorf("nulls %d, empty %d; want 2 and 149,998 (the rows not null)", ms[0].Nulls, ms[0].Empty)
	}
}

// TestSampledProfileEmptySampleIsRunExactly: a sampled profile whose
// sample reads no row of a table that counted some has nothing to scale;
// the profile is run again exactly rather than report no nulls.
func TestSampledProfileEmptySampleIsRunExactly(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	name := pgx.Identifier{schema, "few"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+" AS SELECT g AS id, NULL::int AS n FROM generate_series(1, 8) g")
	setSampleTarget(t, 3)
	if rows := srv.sampledRows(t, schema, "few", []string{"id"}, 2, 8); len(rows) != 0 {
		t.Fatalf("the seed's sample of the one page reads %d rows; this test needs a sample reading none", len(rows))
	}
	tr := &tracer{}
	p, err := srv.openSampled(t, schema, tr).Profile(context.Background(), "few", nil)
	if err != nil {
		t.Fatal(err)
	}
	exact, err := srv.open(t, schema, nil).Profile(context.Background(), "few", nil)
	if err != nil {
		t.Fatal(err)
	}
	id, n := p.Columns[0], p.Columns[1]
	if p.Rows != 8 || n.Nulls != 8 || id.Nulls != 0 || str(id.Min) != "1" || str(id.Max) != "8" || p.Queries != 5 {
		t.Errorf("profile %+v in %d queries, want the exact counts and extremes after the empty sample (5 queries)", p.Columns, p.Queries)
	}
	for i, e := range exact.Columns {
		if g := p.Columns[i]; fmt.Sprint(g.Estimated) != fmt.Sprint(e.Estimated) || g.Distinct != e.Distinct {
			t.Errorf("%s: %+v, want the exact mode's %+v", g.Name, g, e)
		}
	}
}

// TestSampledProfileOfAViewIsExact: a view would be evaluated whole to
// be sampled, so the sampled mode profiles it exactly, as the exact mode
// does.
func TestSampledProfileOfAViewIsExact(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tbl := oracleTable(20_000, 19)
	srv.create(t, schema, tbl)
	srv.exec(t, "CREATE VIEW "+(pgx.Identifier{schema, "v"}).Sanitize()+" AS SELECT * FROM "+(pgx.Identifier{schema, tbl.Name}).Sanitize())
	setSampleTarget(t, 3_000)
	exact, err := srv.open(t, schema, nil).Profile(context.Background(), "v", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := srv.openSampled(t, schema, &tracer{}).Profile(context.Background(), "v", nil)
	if err != nil {
		t.Fatal(err)
	}
	whole := connectortest.Expect(tbl, nil)
	for i, w := range whole.Columns {
		g := got.Columns[i]
		checkExact(t, g, w, whole.Types[i])
		if slices.Contains(g.Estimated, "nulls") || fmt.Sprint(g.Estimated) != fmt.Sprint(exact.Columns[i].Estimated) {
			t.Errorf("%s: estimated %q, want the exact mode's %q", g.Name, g.Estimated, exact.Columns[i].Estimated)
		}
	}
}
