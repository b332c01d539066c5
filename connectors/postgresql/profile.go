package postgresql

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/sqlprofile"
)

// QuantileNames and QuantileValues are the quantiles Profile reports, the
// file engine's (profile.Column.Quantiles).
var (
	QuantileNames  = [...]string{"p01", "p05", "p25", "p50", "p75", "p95", "p99"}
	QuantileValues = [...]float64{0.01, 0.05, 0.25, 0.50, 0.75, 0.95, 0.99}
)

// maxValueBytes bounds a min or max text value; a longer one is cut and
// ends with "…".
const maxValueBytes = 1024

// blank is the set of characters a blank text value is made of: space,
// tab, line feed, carriage return, form feed, vertical tab.
const blank = `E' \t\n\r\f\x0B'`

// catalogSQL resolves a table and its columns in one catalogue query. A
// table without columns yields one row with NULL column fields. pg_stats
// has a row per column once the table has been analysed (inherited rows
// for a partitioned table's whole tree).
const catalogSQL = `
SELECT c.relkind::text, a.attname, format_type(a.atttypid, a.atttypmod),
       bt.typname::text, bt.typcategory::text, bt.typtype::text, st.n_distinct::float8
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
LEFT JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
LEFT JOIN pg_stats st ON st.schemaname = n.nspname AND st.tablename = c.relname
     AND st.attname = a.attname AND st.inherited = (c.relkind = 'p')
WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ` + relKinds + `
ORDER BY a.attnum`

// class is what SQL can compute over a column.
type class int

const (
	classOther   class = iota // counts only; grouped by its text
	classNumber               // quantiles, mean, stddev, min, max
	classText                 // blanks, min, max in byte order
	classBool                 // min, max as false < true
	classOrdered              // min, max in the type's order
	classEqual                // groupable as it is, no min or max
)

type column struct {
	name, dataType string
	typ            string // base type name
	class          class
	float          bool // float4, float8 or numeric: NaN (and infinities) left out of numbers
	nDistinct      *float64
	format         string
	hasFormat      bool
}

func classify(typName, category, typType string) class {
	switch typName {
	case "int2", "int4", "int8", "float4", "float8", "numeric":
		return classNumber
	case "bool":
		return classBool
	case "date", "time", "timetz", "timestamp", "timestamptz", "interval", "inet", "cidr", "money", "oid":
		return classOrdered
	case "uuid", "bytea", "jsonb", "macaddr", "macaddr8":
		return classEqual
	}
	if category == "S" {
		return classText
	}
	if typType == "e" {
		return classOrdered
	}
	return classOther
}

// Profile computes the table's metrics in a catalogue query and at most two
// aggregate queries (see the package documentation for what each computes
// and how precisely). formats maps a column to a PostgreSQL regular
// expression; FormatConformance is then the share of its non-blank values
// matching it.
func (s *Source) Profile(ctx context.Context, table string, formats map[string]string) (*TableProfile, error) {
	conn, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer s.release(conn)
	p := &TableProfile{}
	relkind, cols, err := s.catalog(ctx, conn, table)
	p.Queries++
	if err != nil {
		return nil, err
	}
	if len(cols) > maxColumns {
		return nil, fmt.Errorf("%w: postgresql table %q has %d columns, more than %d", connectors.ErrTooWide, table, len(cols), maxColumns)
	}
	for i := range cols {
		if f, ok := formats[cols[i].name]; ok {
			cols[i].format, cols[i].hasFormat = f, true
		}
	}
	ident := pgx.Identifier{s.schema, table}.Sanitize()

	// A view is evaluated whole to be sampled (by a random() filter, not
	// by pages, and not repeatably): sampling it would cost a count and
	// the evaluation, more than the exact profile, for estimates that move
	// from scan to scan. Views are profiled exactly in both modes.
	return p, s.passes(ctx, conn, table, ident, relkind, cols, p, s.sampled && relkind != "v")
}

// passes runs the two aggregate queries of a profile, sampled or exact.
// A sampled profile whose sample read no row of a table that counted
// some (it was emptied in between, or a view's rows changed) has no
// figure to scale and is run again exactly, rather than report a column
// of nulls as having none.
func (s *Source) passes(ctx context.Context, conn *pgx.Conn, table, ident, relkind string, cols []column, p *TableProfile, sampled bool) error {
	p.Queries++
	if err := s.fullPass(ctx, conn, table, ident, cols, p, sampled); err != nil {
		return err
	}
	if p.Rows == 0 || len(cols) == 0 {
		return nil
	}
	p.Queries++
	read, err := s.samplePass(ctx, conn, table, ident, relkind, cols, p, sampled)
	if err != nil || !sampled || read > 0 {
		return err
	}
	return s.passes(ctx, conn, table, ident, relkind, cols, p, false)
}

// TableProfile is connectors.TableProfile.
type TableProfile = connectors.TableProfile

func (s *Source) catalog(ctx context.Context, conn *pgx.Conn, table string) (relkind string, cols []column, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := conn.Query(ctx, catalogSQL, s.schema, table)
	if err != nil {
		return "", nil, s.queryError(ctx, table, err)
	}
	defer rows.Close()
	found := false
	for rows.Next() {
		var name, dataType, typName, category, typType *string
		var nd *float64
		if err := rows.Scan(&relkind, &name, &dataType, &typName, &category, &typType, &nd); err != nil {
			return "", nil, s.queryError(ctx, table, err)
		}
		found = true
		if name == nil {
			continue // a table without columns
		}
		c := column{name: *name, dataType: deref(dataType), typ: deref(typName)}
		c.class = classify(c.typ, deref(category), deref(typType))
		c.float = c.typ == "float4" || c.typ == "float8" || c.typ == "numeric"
		if nd != nil && *nd != 0 {
			c.nDistinct = nd
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil {
		return "", nil, s.queryError(ctx, table, err)
	}
	if !found {
		return "", nil, fmt.Errorf("%w: postgresql table %q in schema %q", connectors.ErrNotFound, table, s.schema)
	}
	return relkind, cols, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// isNumber is the condition that keeps a float column's numbers, leaving
// NaN and infinities out as the file engine does. PostgreSQL sorts NaN
// above every number and infinity, so two comparisons decide it for
// floats (one call each, where an IN list made three), and one for
// numeric, whose infinities (PostgreSQL 14 and later) stay numbers as
// they always have here. Other types hold only numbers.
func isNumber(c column, ref string) string {
	switch c.typ {
	case "float4", "float8":
		return ref + ` > '-Infinity' AND ` + ref + ` < 'Infinity'`
	case "numeric":
		return ref + ` < 'NaN'`
	}
	return "true"
}

// maxParallelAggregates is the most aggregates the full pass may hold and
// still run as a parallel aggregate (PostgreSQL's 1664 columns a row, with
// a margin): about 530 integer columns, 800 text ones.
const maxParallelAggregates = 1600

// slots records where a column's aggregates sit in the full pass's result
// array (-1: not computed).
type slots struct {
	count, empty, min, max int
	trues                  int // booleans: true values
}

// textOf is a column reference as text.
func textOf(ref string, c column) string {
	if c.typ == "text" {
		return ref // no cast to spell out
	}
	return ref + "::text"
}

// isBlank is the condition that a text value is blank: made of blank
// characters, all below '!', so that the byte comparison spares most
// values the btrim, which allocates.
func isBlank(text string) string {
	return fmt.Sprintf(`(%s COLLATE "C" < '!' AND btrim(%s, %s) = '')`, text, text, blank)
}

// fullPass is aggregate query 1: one pass over the whole table for the
// figures it reports exactly, counts and extremes, which no sample stands
// for. Its result is one text array, since a target list holds at most
// 1664 entries and a wide table's aggregates would not fit in columns.
//
// The pass runs as a parallel aggregate (every aggregate and operator in
// it is parallel safe) and costs, per row, the deforming of the row up to
// its last column (which count(*) never does), one transition per
// aggregate and one evaluation per FILTER: those, not the reading of the
// table, are its time, so each column gets the fewest:
//
//   - every column: count (its nulls follow);
//   - integers, numeric, dates, times, intervals, network addresses,
//     enums: min and max in the type's order (numeric's max over values
//     below NaN, and its min NaN only when every value is);
//   - floats: min over values above -Infinity, max over values below
//     Infinity (a NaN or infinite result means no number: NaN sorts above
//     Infinity);
//   - booleans: count of true values (min and max follow);
//   - text: blanks.
//
// Text min and max come from the sample pass: over non-blank values they
// took two FILTERs and two transitions a value, a third of the pass on the
// benchmark table, for figures the scan shows but measures nothing on
// (and drops for personal columns).
//
// Aggregates run on the native values; only their results are cast to
// text.
func (s *Source) fullPass(ctx context.Context, conn *pgx.Conn, table, ident string, cols []column, p *TableProfile, sampled bool) error {
	counted := cols
	if sampled {
		counted = nil // the row count alone: the sample pass counts the rest
	}
	plan := planCounts(counted, func(_ int, c column) string { return pgx.Identifier{c.name}.Sanitize() })
	sql := "SELECT ARRAY[\n" + strings.Join(plan.exprs, ",\n") + "\n] FROM " + ident
	if len(plan.exprs) > maxParallelAggregates {
		// A parallel plan passes every aggregate's partial state from the
		// workers as a column, and a row holds at most 1664: past that
		// its execution fails (54011). pg_backend_pid() is parallel
		// restricted, and a condition without columns is tested once (a
		// one-time filter), so this keeps the plan serial at no cost.
		sql += " WHERE pg_backend_pid() IS NOT NULL"
	}

	vals, err := s.queryArray(ctx, conn, table, sql)
	if err != nil {
		return err
	}
	if len(vals) != len(plan.exprs) {
		return fmt.Errorf("postgresql: profile of %q: %d values for %d aggregates", table, len(vals), len(plan.exprs))
	}
	p.Rows = parseInt(vals[0])
	p.Columns = make([]connectors.ColumnMetrics, len(cols))
	for i, c := range cols {
		m := &p.Columns[i]
		m.Name, m.DataType = c.name, c.dataType
		m.Numeric = c.class == classNumber
	}
	plan.decode(vals, p.Columns, p.Rows)
	return nil
}

// countPlan is the aggregates of the counts and extremes of a set of
// rows, in one text array: count(*) first, then each column's (fullPass
// lists them).
type countPlan struct {
	cols  []column
	exprs []string
	sl    []slots
}

// planCounts plans the counts and extremes of cols, ref naming column i in
// the query.
func planCounts(cols []column, ref func(i int, c column) string) countPlan {
	pl := countPlan{cols: cols, sl: make([]slots, len(cols))}
	add := func(e string) int { pl.exprs = append(pl.exprs, e+"::text"); return len(pl.exprs) - 1 }
	minMax := func(ref, filterMin, filterMax string) (int, int) {
		return add("min(" + ref + ")" + filterMin), add("max(" + ref + ")" + filterMax)
	}
	add("count(*)")
	for i, c := range cols {
		ref := ref(i, c)
		sl := &pl.sl[i]
		*sl = slots{count: add("count(" + ref + ")"), empty: -1, min: -1, max: -1, trues: -1}
		switch {
		case c.typ == "float4" || c.typ == "float8":
			sl.min, sl.max = minMax(ref, " FILTER (WHERE "+ref+" > '-Infinity')", " FILTER (WHERE "+ref+" < 'Infinity')")
		case c.typ == "numeric":
			sl.min, sl.max = minMax(ref, "", " FILTER (WHERE "+isNumber(c, ref)+")")
		case c.class == classNumber:
			sl.min, sl.max = minMax(ref, "", "")
		case c.class == classText:
			sl.empty = add("count(*) FILTER (WHERE " + isBlank(textOf(ref, c)) + ")")
		case c.class == classBool:
			sl.trues = add("count(*) FILTER (WHERE " + ref + ")")
		case c.class == classOrdered:
			sl.min = add(fmt.Sprintf("left(min(%s)::text, %d)", ref, maxValueBytes+1))
			sl.max = add(fmt.Sprintf("left(max(%s)::text, %d)", ref, maxValueBytes+1))
		}
	}
	return pl
}

// decode sets the planned figures of each column's metrics from vals,
// the plan's results over vals[0] rows, with counts scaled to a table of
// rows rows when those were a sample of it (each rounded, blanks bounded
// by the rows that are not null).
func (pl countPlan) decode(vals []*string, ms []connectors.ColumnMetrics, rows int64) {
	read := parseInt(vals[0])
	scale := func(n int64) int64 {
		if read == rows || read == 0 {
			return min(n, rows)
		}
		return min(int64(math.Round(float64(n)*float64(rows)/float64(read))), rows)
	}
	for i, c := range pl.cols {
		m, sl := &ms[i], pl.sl[i]
		nonNull := parseInt(vals[sl.count])
		m.Nulls = scale(read - nonNull)
		if sl.empty >= 0 {
			m.Empty = min(scale(parseInt(vals[sl.empty])), rows-m.Nulls)
		}
		if sl.min >= 0 {
			m.Min, m.Max = cut(vals[sl.min]), cut(vals[sl.max])
		}
		// A float column's min over values above -Infinity is NaN or
		// Infinity, and its max below Infinity is -Infinity, only when it
		// holds no number; numeric's unfiltered min is NaN only then.
		switch {
		case c.typ == "float4" || c.typ == "float8":
			if v := deref(m.Min); v == "NaN" || v == "Infinity" {
				m.Min = nil
			}
			if deref(m.Max) == "-Infinity" {
				m.Max = nil
			}
		case c.typ == "numeric" && deref(m.Min) == "NaN":
			m.Min = nil
		}
		if sl.trues >= 0 && nonNull > 0 {
			m.Min, m.Max = boolRange(parseInt(vals[sl.trues]), nonNull)
		}
	}
}

// boolRange is the min and max of a boolean column of nonNull values,
// trues of them true.
func boolRange(trues, nonNull int64) (lo, hi *string) {
	l, h := "false", "false"
	if trues == nonNull {
		l = "true"
	}
	if trues > 0 {
		h = "true"
	}
	return &l, &h
}

// SampleRows is the number of rows Profile's second query reads from a
// table of cols columns: SampleTarget, fewer for a wide table, so that the
// sample holds at most sqlprofile.SampleCells values (never fewer than
// sqlprofile.MinSampleRows rows), as the warehouses' samples.
func SampleRows(cols int) int64 {
	return min(SampleTarget, max(sqlprofile.MinSampleRows, sqlprofile.SampleCells/int64(max(cols, 1))))
}

// SampleSeed is the seed of the sample pass's TABLESAMPLE SYSTEM ...
// REPEATABLE: which pages a table's sample reads is random, by a hash of
// the seed and the page number, but the same from one profile to the next
// for the same pages, so that two scans of an unchanged table report the
// same estimates (and a test can read the very rows Profile sampled).
const SampleSeed = sqlprofile.SampleSeed

// SamplePercent is the TABLESAMPLE SYSTEM percentage at which the sample
// pass reads about target of a table's rows rows.
func SamplePercent(target, rows int64) float32 {
	return float32(math.Min(100, 100*float64(target)/float64(rows)))
}

// samplePass is aggregate query 2, over a sample of about SampleRows rows
// (the whole table when it holds no more), kept once (s, materialized) and
// read twice:
//
//   - distinct values: each sampled value becomes a (column, text) row by
//     unnest in the target list (a ProjectSet, which streams: a LATERAL
//     VALUES list re-initialises its expressions for every row, and a
//     materialized unpivot wrote every value to a tuplestore), grouped by
//     column and text for the distinct values, values seen once and
//     non-null values of the sample; unpivoting keeps planning linear in
//     the columns (a subquery per column costs the planner the square of
//     the width). A column pg_stats gives n_distinct for is left out
//     (that estimate is preferred), unless the sample is the whole table;
//   - per column, one float8 array (all gathered into one text array, one
//     target entry whatever the width, that every column's row indexes):
//     for a column given a format, its non-blank values and those
//     matching the format; for a numeric column, its numbers' count, mean
//     and sample standard deviation (avg and stddev_samp over the same
//     float8 input share one transition state), then its quantiles, each
//     percentile_disc sorting only its own numbers; and, in a second text
//     array, a text column's min and max non-blank values in byte order.
//
// The query returns a row per column (q's count(*) keeps it one row when
// no column has a figure of its own).
func (s *Source) samplePass(ctx context.Context, conn *pgx.Conn, table, ident, relkind string, cols []column, p *TableProfile, sampled bool) (read int64, err error) {
	target := SampleRows(len(cols))
	exact := p.Rows <= target
	var args []any
	param := func(v any) string { args = append(args, v); return "$" + strconv.Itoa(len(args)) }
	from := ident
	switch {
	case exact:
	case relkind == "v":
		// A view cannot be sampled by page.
		from += " WHERE random() < " + param(float64(target)/float64(p.Rows)) + "::float8"
	default:
		from += " TABLESAMPLE SYSTEM (" + param(SamplePercent(target, p.Rows)) + "::real) REPEATABLE (" + param(float64(SampleSeed)) + "::float8)"
	}
	var counts *countPlan
	if sampled {
		pl := planCounts(cols, func(i int, _ column) string { return "c" + strconv.Itoa(i) })
		counts = &pl
	}
	sql := samplePassSQL(from, cols, exact, counts, param)

	qctx, cancel := s.readContext(ctx)
	defer cancel()
	rows, err := conn.Query(qctx, sql, args...)
	if err != nil {
		return 0, s.readError(qctx, table, "profiled", err)
	}
	defer rows.Close()
	found := make([]sampledRow, len(cols))
	var countVals []*string
	for rows.Next() {
		var i int32
		var st sampledRow
		var cs []*string
		if err := rows.Scan(&i, &st.d, &st.f1, &st.n, &st.stats, &st.min, &st.max, &cs); err != nil {
			return 0, s.readError(qctx, table, "profiled", err)
		}
		if i >= 0 && int(i) < len(cols) {
			found[i] = st
		}
		if cs != nil {
			countVals = cs
		}
	}
	if err := rows.Err(); err != nil {
		return 0, s.readError(qctx, table, "profiled", err)
	}
	if counts != nil {
		if len(countVals) != len(counts.exprs) {
			return 0, fmt.Errorf("postgresql: profile of %q: %d sampled counts for %d aggregates", table, len(countVals), len(counts.exprs))
		}
		// Before apply: the distinct estimate is bounded by the non-null
		// values.
		counts.decode(countVals, p.Columns, p.Rows)
		read = parseInt(countVals[0])
	}
	for i, c := range cols {
		found[i].apply(&p.Columns[i], c, p.Rows, exact, counts != nil)
	}
	return read, nil
}

// samplePassSQL is the sample pass's query over from (the table, sampled);
// exact says the sample is the whole table, counts (nil for none) are the
// counts and extremes it computes too, over the sample, returned in the
// first column's row, and param adds a bind parameter (a format) and
// returns its placeholder.
func samplePassSQL(from string, cols []column, exact bool, counts *countPlan, param func(any) string) string {
	var sel, grouped, keys []string
	all := make([]string, len(cols))
	stats := make([]string, len(cols))
	texts := make([]string, 0, 2*len(cols))
	for i, c := range cols {
		ref := "c" + strconv.Itoa(i)
		all[i] = strconv.Itoa(i)
		var parts []string
		if c.hasFormat {
			parts = append(parts, formatStats(textOf(ref, c), param(c.format)))
		}
		if c.class == classNumber {
			parts = append(parts, numberStats(c, ref)...)
		}
		lo, hi := "NULL::text", "NULL::text"
		if c.class == classText {
			lo, hi = textRange(textOf(ref, c))
		}
		texts = append(texts, lo, hi)
		group := exact || c.nDistinct == nil
		if group {
			grouped = append(grouped, all[i])
			keys = append(keys, ref+"::text")
		}
		if group || len(parts) > 0 || c.class == classText || counts != nil {
			sel = append(sel, pgx.Identifier{c.name}.Sanitize()+" AS "+ref)
		}
		stats[i] = "NULL::text"
		if len(parts) > 0 {
			stats[i] = "(" + strings.Join(parts, " || ") + ")::text"
		}
	}
	countsArray := "NULL::text[]"
	if counts != nil {
		countsArray = "ARRAY[" + strings.Join(counts.exprs, ", ") + "]::text[]"
	}
	return `WITH s AS MATERIALIZED (SELECT ` + strings.Join(sel, ", ") + ` FROM ` + from + `),
g AS (SELECT i, count(*) AS n FROM (SELECT unnest('{` + strings.Join(grouped, ",") + `}'::int4[]) AS i, unnest(ARRAY[` + strings.Join(keys, ", ") + `]::text[]) AS k FROM s) u WHERE k IS NOT NULL GROUP BY i, k),
d AS (SELECT i, count(*) AS d, count(*) FILTER (WHERE n = 1) AS f1, sum(n)::int8 AS n FROM g GROUP BY i),
q AS (SELECT count(*) AS sampled, ARRAY[` + strings.Join(stats, ", ") + `]::text[] AS qs, ARRAY[` + strings.Join(texts, ", ") + `]::text[] AS ts, ` + countsArray + ` AS cs FROM s)
SELECT c.i, coalesce(d.d, 0), coalesce(d.f1, 0), coalesce(d.n, 0), q.qs[c.i + 1]::float8[], q.ts[2 * c.i + 1], q.ts[2 * c.i + 2], CASE WHEN c.i = 0 THEN q.cs END
FROM unnest('{` + strings.Join(all, ",") + `}'::int4[]) AS c(i) LEFT JOIN d ON d.i = c.i CROSS JOIN q`
}

// formatStats is the sample's non-blank values of a text expression and
// those of them matching the format, the bind parameter param.
func formatStats(text, param string) string {
	nonBlank := "NOT " + isBlank(text)
	return fmt.Sprintf("ARRAY[count(*) FILTER (WHERE %s), count(*) FILTER (WHERE %s AND %s ~ %s)]::float8[]", nonBlank, nonBlank, text, param)
}

// textRange is a text expression's sampled min and max non-blank values
// in byte order, cut past maxValueBytes.
func textRange(text string) (lo, hi string) {
	nonBlank := fmt.Sprintf(` COLLATE "C") FILTER (WHERE NOT %s), %d)`, isBlank(text), maxValueBytes+1)
	return "left(min(" + text + nonBlank, "left(max(" + text + nonBlank
}

// numberStats is a numeric column's sampled numbers' count, mean and
// sample standard deviation (0 for one value, as in the file engine),
// then their quantiles (none when there is no number: array_cat leaves
// the NULL out). NaN and infinities are no numbers.
func numberStats(c column, ref string) []string {
	x := ref + "::float8"
	if c.float {
		x = "CASE WHEN " + isNumber(c, ref) + " THEN " + x + " END"
	}
	qv := make([]string, len(QuantileValues))
	for i, q := range QuantileValues {
		qv[i] = strconv.FormatFloat(q, 'f', -1, 64)
	}
	return []string{
		fmt.Sprintf("ARRAY[count(%s), coalesce(avg(%s), 0), coalesce(stddev_samp(%s), 0)]::float8[]", x, x, x),
		"percentile_disc(ARRAY[" + strings.Join(qv, ",") + "]::float8[]) WITHIN GROUP (ORDER BY " + x + ")",
	}
}

// sampledRow is one column's row of the sample pass.
type sampledRow struct {
	d, f1, n int64     // distinct, once-seen and non-null sampled values, when grouped
	stats    []float64 // formatStats' figures, then numberStats'
	min, max *string   // textRange's
}

// apply sets a column's figures from its sample row; exact says the
// sample was the whole table, counts that the sample counted the nulls
// and blanks and found the extremes too. Unless exact, every figure the
// sample gave is an estimate, and the column's Estimated names them.
func (st sampledRow) apply(m *connectors.ColumnMetrics, c column, rows int64, exact, counts bool) {
	if exact {
		m.Distinct = st.d
	} else {
		m.Distinct = EstimateDistinct(st.d, st.f1, st.n, rows-m.Nulls, rows, c.nDistinct)
	}
	if c.class == classText {
		m.Min, m.Max = cut(st.min), cut(st.max)
	}
	a := st.stats
	if c.hasFormat && len(a) >= 2 {
		share := 1.0 // nothing to conform: the file engine's 1
		if a[0] > 0 {
			share = a[1] / a[0]
		}
		m.FormatConformance = &share
		a = a[2:]
	}
	if c.class == classNumber && len(a) >= 3 && a[0] > 0 {
		mean, sd := a[1], a[2]
		m.Mean, m.StdDev = &mean, &sd
		if qs := a[3:]; len(qs) == len(QuantileNames) {
			m.Quantiles = make(map[string]float64, len(qs))
			for j, x := range qs {
				m.Quantiles[QuantileNames[j]] = x
			}
			med := m.Quantiles["p50"]
			m.Median = &med
		}
	}
	if !exact {
		m.Estimated = estimated(m, c.class == classText, counts)
	}
}

// estimated names (by their JSON names) the figures of m a sample gives;
// text says m is a text column's, counts that the sample gave the nulls,
// blanks and extremes.
func estimated(m *connectors.ColumnMetrics, text, counts bool) []string {
	var names []string
	if counts {
		names = append(names, "nulls")
		if text {
			names = append(names, "empty")
		}
	}
	names = append(names, "distinct")
	if (text || counts) && m.Min != nil {
		names = append(names, "min", "max")
	}
	if m.Mean != nil {
		names = append(names, "mean", "stddev")
	}
	if m.Median != nil {
		names = append(names, "median", "quantiles")
	}
	if m.FormatConformance != nil {
		names = append(names, "format_conformance")
	}
	return names
}

// EstimateDistinct estimates a column's distinct non-null values from a
// sample in which n non-null values held d distinct ones, f1 of them seen
// once, the table holding nonNull non-null values in rows rows. stats,
// when not nil, is pg_stats.n_distinct (negative: a fraction of the rows)
// and is preferred. Otherwise it is the Haas–Stokes Duj1 estimator,
// n·d / (n − f1 + f1·n/N). The estimate is clamped to [d, nonNull].
func EstimateDistinct(d, f1, n, nonNull, rows int64, stats *float64) int64 {
	if nonNull <= 0 {
		return 0
	}
	var est float64
	switch {
	case stats != nil && *stats > 0:
		est = *stats
	case stats != nil && *stats < 0:
		est = -*stats * float64(rows)
	case n <= 0:
		est = float64(d)
	case f1 >= n: // every sampled value unique
		est = float64(nonNull)
	default:
		N := float64(nonNull)
		fn := float64(n)
		est = fn * float64(d) / (fn - float64(f1) + float64(f1)*fn/N)
	}
	e := int64(math.Round(est))
	return min(max(e, d), nonNull)
}

// queryArray runs a query returning one text array under the profile
// timeout.
func (s *Source) queryArray(ctx context.Context, conn *pgx.Conn, table, sql string) ([]*string, error) {
	ctx, cancel := s.readContext(ctx)
	defer cancel()
	var vals []*string
	if err := conn.QueryRow(ctx, sql).Scan(&vals); err != nil {
		return nil, s.readError(ctx, table, "profiled", err)
	}
	return vals, nil
}

func parseInt(v *string) int64 {
	if v == nil {
		return 0
	}
	n, _ := strconv.ParseInt(*v, 10, 64)
	return n
}

// cut returns v cut to maxValueBytes (on a rune boundary, ending with "…").
func cut(v *string) *string {
	if v == nil || len(*v) <= maxValueBytes {
		return v
	}
	j := maxValueBytes
	for j > maxValueBytes-utf8.UTFMax && !utf8.RuneStart((*v)[j]) {
		j--
	}
	s := (*v)[:j] + "…"
	return &s
}
