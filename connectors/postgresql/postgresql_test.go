package postgresql

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

func TestConformance(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tables := connectortest.Fixture()
	for _, tbl := range tables {
		srv.create(t, schema, tbl)
	}
	connectortest.RunTableSource(t, func(t *testing.T) connectors.TableSource {
		return srv.open(t, schema, nil)
	}, tables)
}

func TestListFromCatalogue(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	other := srv.schema(t)
	q := func(n string) string { return pgx.Identifier{schema, n}.Sanitize() }
	srv.exec(t, "CREATE TABLE "+q("b_analysed")+" AS SELECT g AS id FROM generate_series(1, 1000) g")
	srv.exec(t, "ANALYZE "+q("b_analysed"))
	srv.exec(t, "CREATE TABLE "+q("A_never_analysed")+" (id int) WITH (autovacuum_enabled = false)")
	srv.exec(t, "INSERT INTO "+q("A_never_analysed")+" SELECT generate_series(1, 500)")
	srv.exec(t, "CREATE VIEW "+q("c_view")+" AS SELECT 1 AS one")
	srv.exec(t, "CREATE MATERIALIZED VIEW "+q("d_matview")+" AS SELECT g FROM generate_series(1, 10) g")
	srv.exec(t, "CREATE TABLE "+q("e_parted")+" (k int) PARTITION BY RANGE (k)")
	srv.exec(t, "CREATE TABLE "+q("e_part1")+" PARTITION OF "+q("e_parted")+" FOR VALUES FROM (0) TO (100)")
	srv.exec(t, "CREATE TABLE "+q("e_part2")+" PARTITION OF "+q("e_parted")+" FOR VALUES FROM (100) TO (200)")
	srv.exec(t, "INSERT INTO "+q("e_parted")+" SELECT g % 200 FROM generate_series(1, 2000) g")
	srv.exec(t, "ANALYZE "+q("e_parted"))
	srv.exec(t, "CREATE SEQUENCE "+q("f_seq"))
	srv.exec(t, "CREATE INDEX ON "+q("b_analysed")+" (id)")
	srv.exec(t, "CREATE TABLE "+pgx.Identifier{other, "elsewhere"}.Sanitize()+" (id int)")

	tr := &tracer{}
	src := srv.open(t, schema, func(c *pgx.ConnConfig) { c.Tracer = tr })
	tr.reset()
	list, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if n := len(tr.reset()); n != 1 {
		t.Errorf("List sent %d queries, want 1", n)
	}
	var names []string
	for _, tb := range list {
		names = append(names, tb.Name)
		if tb.Schema != schema {
			t.Errorf("%s: schema %q", tb.Name, tb.Schema)
		}
	}
	want := []string{"A_never_analysed", "b_analysed", "c_view", "d_matview", "e_parted"}
	if !slices.Equal(names, want) {
		t.Fatalf("List names %q, want %q", names, want)
	}
	est := map[string]connectors.Table{}
	for _, tb := range list {
		est[tb.Name] = tb
	}
	if e := est["b_analysed"]; e.RowEstimate != 1000 || e.SizeBytes < 8192*2 {
		t.Errorf("b_analysed: %+v, want 1000 rows and the table and index sizes", e)
	}
	if e := est["A_never_analysed"]; e.RowEstimate != 0 || e.SizeBytes <= 0 {
		t.Errorf("A_never_analysed: %+v, want no estimate (never counted) and a size", e)
	}
	if e := est["e_parted"]; e.RowEstimate != 2000 || e.SizeBytes <= 0 {
		t.Errorf("e_parted: %+v, want the partitions' 2000 rows and size", e)
	}
	if e := est["c_view"]; e.RowEstimate != 0 || e.SizeBytes != 0 {
		t.Errorf("c_view: %+v", e)
	}

	// Every kind listed profiles and samples.
	for _, tb := range list {
		p, err := src.Profile(context.Background(), tb.Name, nil)
		if err != nil {
			t.Errorf("Profile %s: %v", tb.Name, err)
			continue
		}
		r, err := src.Sample(context.Background(), tb.Name, 5)
		if err != nil {
			t.Errorf("Sample %s: %v", tb.Name, err)
			continue
		}
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					t.Errorf("Sample %s: %v", tb.Name, err)
				}
				break
			}
			n++
		}
		r.Close()
		if n != int(min(5, p.Rows)) {
			t.Errorf("%s: sample of %d rows from %d", tb.Name, n, p.Rows)
		}
	}
	// Past SampleRows, a view is sampled with random().
	setSampleTarget(t, 100)
	srv.exec(t, "CREATE VIEW "+q("g_big_view")+" AS SELECT g FROM generate_series(1, 100000) g")
	if p, err := src.Profile(context.Background(), "g_big_view", nil); err != nil || p.Rows != 100000 || p.Columns[0].Distinct != 100000 {
		t.Errorf("Profile of a large view: %+v, %v", p, err)
	}

	// An unknown schema lists nothing.
	none := srv.open(t, "ct_no_such_schema", nil)
	if l, err := none.List(context.Background()); err != nil || len(l) != 0 {
		t.Errorf("List of an unknown schema: %v, %v", l, err)
	}
}

// oracleTable is a table of every type class with random values, nulls
// and blanks.
func oracleTable(rows int, seed uint64) connectortest.Table {
	r := rand.New(rand.NewPCG(seed, 1))
	tbl := connectortest.Table{
		Name: "oracle",
		Columns: []connectortest.Column{
			{Name: "id", Type: connectortest.Integer}, {Name: "small", Type: connectortest.Integer}, {Name: "x", Type: connectortest.Float},
			{Name: "label", Type: connectortest.Text}, {Name: "Mixed Case \"name\"", Type: connectortest.Text}, {Name: "flag", Type: connectortest.Boolean},
		},
		Formats: map[string]string{"label": `^[a-z]+-[0-9]+$`, "Mixed Case \"name\"": `'; DROP TABLE oracle; --`},
	}
	words := []string{"alpha", "beta", "gamma", "delta", "épsilon", "zeta"}
	for i := 0; i < rows; i++ {
		row := []any{int64(i + 1), nil, nil, nil, nil, nil}
		if r.IntN(10) > 0 {
			row[1] = int64(r.IntN(200) - 100)
		}
		if r.IntN(8) > 0 {
			row[2] = r.NormFloat64()*1000 + 5
		}
		switch k := r.IntN(20); {
		case k == 0:
		case k == 1:
			row[3] = ""
		case k == 2:
			row[3] = " \t "
		case k == 3:
			row[3] = "Not conforming"
		default:
			row[3] = words[r.IntN(len(words))] + "-" + strconv.Itoa(r.IntN(1000))
		}
		if r.IntN(5) > 0 {
			row[4] = strings.Repeat("z", r.IntN(3)) + words[r.IntN(len(words))]
		}
		if r.IntN(4) > 0 {
			row[5] = r.IntN(2) == 0
		}
		tbl.Rows = append(tbl.Rows, row)
	}
	return tbl
}

func TestProfileMatchesOracle(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tbl := oracleTable(20_000, 7)
	srv.create(t, schema, tbl)
	src := srv.open(t, schema, nil)
	got, err := src.Profile(context.Background(), tbl.Name, tbl.Formats)
	if err != nil {
		t.Fatal(err)
	}
	want := connectortest.Expect(tbl, map[string]string{"label": tbl.Formats["label"], "Mixed Case \"name\"": `^NOTHING$`})
	connectortest.Compare(t, got, want)
	// A table of at most SampleTarget rows is read whole: distinct
	// counts and quantiles are exact, and no figure is an estimate.
	for i, w := range want.Columns {
		g := got.Columns[i]
		if len(g.Estimated) != 0 {
			t.Errorf("%s: estimated %q, want none", w.Name, g.Estimated)
		}
		if g.Distinct != w.Distinct {
			t.Errorf("%s: distinct %d, want exactly %d", w.Name, g.Distinct, w.Distinct)
		}
		for k, v := range w.Quantiles {
			if g.Quantiles[k] != v {
				t.Errorf("%s %s: %v, want exactly %v", w.Name, k, g.Quantiles[k], v)
			}
		}
	}
	if got.Columns[5].Min == nil || *got.Columns[5].Min != "false" || *got.Columns[5].Max != "true" {
		t.Errorf("flag: min %v max %v, want false true", got.Columns[5].Min, got.Columns[5].Max)
	}
	if got.Columns[0].DataType != "bigint" || got.Columns[3].DataType != "text" {
		t.Errorf("data types %q %q", got.Columns[0].DataType, got.Columns[3].DataType)
	}
}

// TestProfileTypes covers the types beyond the fixture's: their class
// decides which metrics they get.
func TestProfileTypes(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	srv.exec(t, "SET search_path = "+schema)
	defer srv.exec(t, "RESET search_path")
	srv.exec(t, `CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')`)
	srv.exec(t, `CREATE DOMAIN posint AS integer CHECK (VALUE > 0)`)
	srv.exec(t, `CREATE TABLE typed (
		i2 smallint, i4 integer, r real, n numeric(12,3), vc varchar(10), ch char(4), d date,
		ts timestamptz, j json, jb jsonb, u uuid, m mood, p posint, arr int[], pt point, by bytea)`)
	srv.exec(t, `INSERT INTO typed VALUES
		(1, 10, 1.5, 1.250, 'b', 'x', '2024-01-02', '2024-01-02 03:04:05+00', '{"a":1}', '{"a":1}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 'ok', 3, '{1,2}', '(1,2)', '\x00'),
		(3, 30, 'NaN', 2.5, '  ', '', '2023-05-06', '2025-01-02 00:00:00+00', '{"a":1}', '{"b":2}', NULL, 'happy', 7, '{1,2}', '(1,2)', '\x01'),
		(NULL, NULL, 2.5, NULL, 'a', NULL, NULL, NULL, NULL, NULL, NULL, 'sad', NULL, NULL, NULL, NULL)`)
	src := srv.open(t, schema, nil)
	p, err := src.Profile(context.Background(), "typed", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows != 3 || len(p.Columns) != 16 {
		t.Fatalf("rows %d, %d columns", p.Rows, len(p.Columns))
	}
	col := map[string]connectors.ColumnMetrics{}
	for _, c := range p.Columns {
		col[c.Name] = c
	}
	s := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	f := func(p *float64) string {
		if p == nil {
			return "<nil>"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	checks := []struct {
		name, got, want string
	}{
		{"i2 min max mean", s(col["i2"].Min) + " " + s(col["i2"].Max) + " " + f(col["i2"].Mean), "1 3 2"},
		{"i4 median", f(col["i4"].Median), "10"},
		// NaN is no number for the mean and quantiles (as in the file engine).
		{"r mean p50", f(col["r"].Mean) + " " + f(col["r"].Median), "2 1.5"},
		{"n mean", f(col["n"].Mean), "1.875"},
		{"vc min max empty", s(col["vc"].Min) + " " + s(col["vc"].Max) + " " + strconv.Itoa(int(col["vc"].Empty)), "a b 1"},
		{"ch empty", strconv.Itoa(int(col["ch"].Empty)), "1"},
		{"d min max", s(col["d"].Min) + " " + s(col["d"].Max), "2023-05-06 2024-01-02"},
		{"ts max", s(col["ts"].Max), "2025-01-02 00:00:00+00"},
		{"j distinct nulls min", fmt.Sprintf("%d %d %s", col["j"].Distinct, col["j"].Nulls, s(col["j"].Min)), "1 1 <nil>"},
		{"jb distinct", fmt.Sprint(col["jb"].Distinct), "2"},
		{"u nulls distinct", fmt.Sprint(col["u"].Nulls, col["u"].Distinct), "2 1"},
		{"m min max", s(col["m"].Min) + " " + s(col["m"].Max), "sad happy"},
		{"p numeric mean", fmt.Sprintf("%v %s", col["p"].Numeric, f(col["p"].Mean)), "true 5"},
		{"arr distinct", fmt.Sprint(col["arr"].Distinct), "1"},
		{"pt distinct", fmt.Sprint(col["pt"].Distinct), "1"},
		{"by distinct", fmt.Sprint(col["by"].Distinct), "2"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: %s, want %s", c.name, c.got, c.want)
		}
	}
	if col["vc"].Numeric || col["d"].Mean != nil || col["j"].Quantiles != nil {
		t.Error("non-numeric columns got numeric metrics")
	}
}

func TestProfileQueryCount(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tbl := oracleTable(2_000, 3)
	srv.create(t, schema, tbl)
	// Past SampleTarget rows, so that the second query samples.
	setSampleTarget(t, 500)

	tr := &tracer{}
	src := srv.open(t, schema, func(c *pgx.ConnConfig) { c.Tracer = tr })
	tr.reset()
	p, err := src.Profile(context.Background(), tbl.Name, tbl.Formats)
	if err != nil {
		t.Fatal(err)
	}
	queries := tr.reset()
	aggregates := 0
	for _, q := range queries {
		if isAggregate(q) {
			aggregates++
		}
	}
	if len(queries) != 3 || aggregates != 2 || p.Queries != 3 {
		t.Errorf("Profile sent %d queries (%d aggregate), reported %d; want 3 (2 aggregate):\n%s",
			len(queries), aggregates, p.Queries, strings.Join(queries, "\n---\n"))
	}
	for _, q := range queries {
		if strings.Contains(q, "DROP TABLE") || strings.Contains(q, "[a-z]") {
			t.Errorf("a format reached the SQL text: %s", firstLine(q))
		}
	}
	if !strings.Contains(queries[2], "TABLESAMPLE SYSTEM") {
		t.Errorf("second aggregate query does not sample: %s", queries[2])
	}

	r, err := src.Sample(context.Background(), tbl.Name, 50)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for {
		if _, err := r.Next(); err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		n++
	}
	r.Close()
	if q := tr.reset(); len(q) != 1 {
		t.Errorf("Sample sent %d queries, want 1", len(q))
	}
	if n == 0 || n > 50 {
		t.Errorf("Sample returned %d rows, want 1 to 50", n)
	}
}

// TestProfileMillionRows profiles a table of a million rows generated on
// the server, against an oracle computed in Go from the same formulas:
// exact metrics exactly, sampled ones within the documented precision,
// first from the sample (Duj1), then from pg_stats after ANALYZE.
func TestProfileMillionRows(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	srv := testServer(t)
	schema := srv.schema(t)
	const N = 1_000_000
	name := pgx.Identifier{schema, "million"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+` (id bigint, k integer, x double precision, t text, f boolean)
		WITH (autovacuum_enabled = false)`)
	srv.exec(t, "INSERT INTO "+name+` SELECT g, g % 1000, ((g::int8 * 7919) % 1000003) / 1000.0,
		CASE WHEN g % 10 = 0 THEN NULL WHEN g % 97 = 0 THEN '' ELSE 'v' || (g % 50000) END,
		CASE WHEN g % 3 = 0 THEN NULL ELSE g % 2 = 0 END
		FROM generate_series(1, $1::int) g`, N)

	// The oracle.
	ids := make([]float64, 0, N)
	xs := make([]float64, 0, N)
	ks := make([]float64, 0, N)
	distinctT := map[string]bool{}
	var tNulls, tEmpty, fNulls int64
	tMin, tMax := "", ""
	for g := int64(1); g <= N; g++ {
		ids = append(ids, float64(g))
		ks = append(ks, float64(g%1000))
		xs = append(xs, float64((g*7919)%1000003)/1000.0)
		switch {
		case g%10 == 0:
			tNulls++
		case g%97 == 0:
			tEmpty++
			distinctT[""] = true
		default:
			v := "v" + strconv.FormatInt(g%50000, 10)
			distinctT[v] = true
			if tMin == "" || v < tMin {
				tMin = v
			}
			if v > tMax {
				tMax = v
			}
		}
		if g%3 == 0 {
			fNulls++
		}
	}
	slices.Sort(xs)
	slices.Sort(ks)
	xMean, xSD := connectortest.MeanStdDev(xs)
	kMean, kSD := connectortest.MeanStdDev(ks)

	// The sampled figures' oracle: the rows the sample pass reads.
	sample := srv.sampledRows(t, schema, "million", []string{"id", "k", "x", "t"}, 5, N)
	var sIDs, sKs, sXs []float64
	sTMin, sTMax := "", ""
	for _, row := range sample {
		sIDs, sKs, sXs = append(sIDs, float64(row[0].(int64))), append(sKs, float64(row[1].(int32))), append(sXs, row[2].(float64))
		if v, ok := row[3].(string); ok && v != "" {
			if sTMin == "" || v < sTMin {
				sTMin = v
			}
			sTMax = max(sTMax, v)
		}
	}
	t.Logf("sample of %d rows", len(sample))

	src := srv.open(t, schema, nil)
	for _, analysed := range []bool{false, true} {
		if analysed {
			srv.exec(t, "ANALYZE "+name)
		}
		start := time.Now()
		p, err := src.Profile(context.Background(), "million", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("analysed %v: profiled in %v", analysed, time.Since(start))
		if p.Rows != N {
			t.Fatalf("rows %d", p.Rows)
		}
		id, k, x, tc, f := p.Columns[0], p.Columns[1], p.Columns[2], p.Columns[3], p.Columns[4]
		exact := []struct {
			what      string
			got, want any
		}{
			{"id min", *id.Min, "1"}, {"id max", *id.Max, "1000000"}, {"id nulls", id.Nulls, int64(0)},
			{"k min", *k.Min, "0"}, {"k max", *k.Max, "999"},
			{"t nulls", tc.Nulls, tNulls}, {"t empty", tc.Empty, tEmpty},
			{"t min", *tc.Min, sTMin}, {"t max", *tc.Max, sTMax}, // the sample's
			{"f nulls", f.Nulls, fNulls},
		}
		for _, c := range exact {
			if c.got != c.want {
				t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
			}
		}
		near := func(what string, got *float64, want float64) {
			if got == nil || math.Abs(*got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Errorf("%s: %v, want %v", what, got, want)
			}
		}
		// Means and deviations are the sample's, exactly; and, as a
		// check of the sample itself, within 0.15 standard deviations
		// (mean) and 10% (deviation) of the table's: page sampling
		// reads ~650 pages here, so the mean's standard error is at
		// most sd/sqrt(650) = 0.04 sd (id, stored in its order), and
		// the bounds are over three times that.
		for _, c := range []struct {
			what             string
			m                connectors.ColumnMetrics
			sample           []float64
			tableMean, table float64
		}{{"id", id, sIDs, (N + 1) / 2.0, math.Sqrt(float64(N) * (N + 1) / 12)}, {"x", x, sXs, xMean, xSD}, {"k", k, sKs, kMean, kSD}} {
			sMean, sSD := connectortest.MeanStdDev(c.sample)
			near(c.what+" mean", c.m.Mean, sMean)
			near(c.what+" stddev", c.m.StdDev, sSD)
			if math.Abs(sMean-c.tableMean) > 0.15*c.table || math.Abs(sSD-c.table) > 0.1*c.table {
				t.Errorf("%s: the sample's mean %v and deviation %v are far from the table's %v and %v", c.what, sMean, sSD, c.tableMean, c.table)
			}
		}

		// Quantiles: x is scattered over the pages, id stored in its
		// order (the worst case of page sampling) and k in runs of its
		// order: their rank error is that of the pages read, about
		// 0.5/sqrt(pages) at the median, ~2% here; the tolerance is
		// three times that.
		for name, c := range map[string]struct {
			m   connectors.ColumnMetrics
			v   []float64
			tol float64
		}{"x": {x, xs, 0.01}, "id": {id, ids, 0.06}, "k": {k, ks, 0.06}} {
			for qi, qn := range QuantileNames {
				if msg := connectortest.RankError(c.v, QuantileValues[qi], c.m.Quantiles[qn], c.tol); msg != "" {
					t.Errorf("analysed %v: %s %s: %s", analysed, name, qn, msg)
				}
			}
		}
		// Distinct counts.
		for _, c := range []struct {
			what      string
			got, want int64
			tol       float64
		}{
			{"id", id.Distinct, N, 0.02},
			{"x", x.Distinct, N, 0.02},
			{"k", k.Distinct, 1000, 0.02},
			{"t", tc.Distinct, int64(len(distinctT)), 0.1},
			{"f", f.Distinct, 2, 0},
		} {
			if rel := math.Abs(float64(c.got-c.want)) / float64(c.want); rel > c.tol {
				t.Errorf("analysed %v: %s distinct %d, want %d ± %.0f%%", analysed, c.what, c.got, c.want, 100*c.tol)
			} else {
				t.Logf("analysed %v: %s distinct %d, want %d (%.1f%% off)", analysed, c.what, c.got, c.want, 100*rel)
			}
		}
	}
}

func TestTooWide(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	cols := make([]string, 1600)
	for i := range cols {
		cols[i] = fmt.Sprintf("c%d int", i)
	}
	srv.exec(t, "CREATE TABLE "+pgx.Identifier{schema, "wide"}.Sanitize()+" ("+strings.Join(cols, ", ")+")")
	srv.exec(t, "INSERT INTO "+pgx.Identifier{schema, "wide"}.Sanitize()+" (c0, c1599) VALUES (1, 2), (3, NULL)")
	src := srv.open(t, schema, nil)

	// PostgreSQL's widest table profiles (its aggregates exceed the 1664
	// entries of a target list, hence the arrays).
	start := time.Now()
	p, err := src.Profile(context.Background(), "wide", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1600 columns profiled in %v", time.Since(start))
	if len(p.Columns) != 1600 || p.Columns[1599].Nulls != 1 || *p.Columns[0].Max != "3" || p.Columns[5].Nulls != 2 {
		t.Errorf("wide profile: %d columns, last %+v", len(p.Columns), p.Columns[1599])
	}

	old := maxColumns
	maxColumns = 1599
	defer func() { maxColumns = old }()
	if _, err := src.Profile(context.Background(), "wide", nil); !errors.Is(err, connectors.ErrTooWide) {
		t.Errorf("Profile of a table wider than the limit: %v, want ErrTooWide", err)
	}
}

func TestSampleRendersText(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	name := pgx.Identifier{schema, "s"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+" (b boolean, d date, n numeric(5,2), j jsonb, \"Odd name\" text)")
	srv.exec(t, "INSERT INTO "+name+` VALUES (true, '2024-02-29', 1.5, '{"a": [1]}', 'x'), (false, NULL, NULL, NULL, NULL)`)
	src := srv.open(t, schema, nil)
	r, err := src.Sample(context.Background(), "s", 10)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if !slices.Equal(r.Columns(), []string{"b", "d", "n", "j", "Odd name"}) || r.Format() != "sql" {
		t.Fatalf("columns %q format %q", r.Columns(), r.Format())
	}
	var got []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(rec.Values, rec.Null))
	}
	slices.Sort(got) // a sample comes in random order
	want := []string{
		`[false    ] [false true true true true]`,
		`[true 2024-02-29 1.50 {"a": [1]} x] [false false false false false]`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}

	// A view is sampled too (its first rows).
	srv.exec(t, "CREATE VIEW "+pgx.Identifier{schema, "v"}.Sanitize()+" AS SELECT g FROM generate_series(1, 100) g")
	r2, err := src.Sample(context.Background(), "v", 5)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	n := 0
	for {
		if _, err := r2.Next(); err != nil {
			break
		}
		n++
	}
	if n != 5 {
		t.Errorf("view sample: %d rows, want 5", n)
	}
}

// TestSampleLargeTableIsBounded samples a table far larger than the
// limit: a bounded number of rows from pages spread over the table.
func TestSampleLargeTableIsBounded(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	name := pgx.Identifier{schema, "big"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+" AS SELECT g AS id FROM generate_series(1, 200000) g")
	srv.exec(t, "ANALYZE "+name)
	src := srv.open(t, schema, nil)
	r, err := src.Sample(context.Background(), "big", 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ids []int
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		id, _ := strconv.Atoi(rec.Values[0])
		ids = append(ids, id)
	}
	if len(ids) < 500 || len(ids) > 1000 {
		t.Fatalf("%d rows, want 500 to 1000", len(ids))
	}
	// Not the first rows: pages were sampled.
	if slices.Max(ids) < 20_000 {
		t.Errorf("sample ids up to %d only: the table's first pages", slices.Max(ids))
	}
}

// TestConcurrentCalls shares a Source between goroutines, a Sample reader
// held open meanwhile.
func TestConcurrentCalls(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	tbl := oracleTable(3_000, 11)
	srv.create(t, schema, tbl)
	src := srv.open(t, schema, nil)
	held, err := src.Sample(context.Background(), tbl.Name, 10)
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		go func() {
			_, err := src.Profile(context.Background(), tbl.Name, nil)
			errs <- err
		}()
		go func() {
			r, err := src.Sample(context.Background(), tbl.Name, 100)
			if err == nil {
				for err == nil {
					_, err = r.Next()
				}
				if err == io.EOF {
					err = nil
				}
				r.Close()
			}
			errs <- err
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if _, err := held.Next(); err != nil {
		t.Errorf("held sample: %v", err)
	}
	held.Close()
	src.Close()
	if _, err := src.List(context.Background()); err == nil {
		t.Error("List after Close succeeded")
	}
}
