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

	p.Queries++
	if err := s.fullPass(ctx, conn, table, ident, cols, p); err != nil {
		return nil, err
	}
	if p.Rows == 0 || len(cols) == 0 {
		return p, nil
	}
	p.Queries++
	if err := s.samplePass(ctx, conn, table, ident, relkind, cols, p); err != nil {
		return nil, err
	}
	return p, nil
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
// a margin): about 320 integer columns, 400 text ones.
const maxParallelAggregates = 1600

// slots records where a column's aggregates sit in the result array
// (-1: not computed).
type slots struct {
	count, empty, min, max, format int
	numbers                        int // values of the mean and deviation (regr_count)
	mean                           int
	sxx                            int // sum of squared deviations from the mean (regr_sxx)
	sd                             int // stddev_samp, for numeric
	trues                          int // booleans: true values
}

// fullPass is aggregate query 1: one pass over the whole table. Its
// result is one text array, since a target list holds at most 1664
// entries and a wide table's aggregates would not fit in columns.
//
// The pass runs as a parallel aggregate (every aggregate and operator in
// it is parallel safe) and costs, per row, one transition per aggregate
// and one call per FILTER: that count, not the reading of the table, is
// what its time is made of, so each column gets the fewest:
//
//   - integers: min, max and one float8_regr_accum state (regr_count,
//     regr_avgx and regr_sxx read the same state, so PostgreSQL keeps one:
//     the count, float8 sum and Youngs–Cramer sum of squares that avg and
//     stddev_samp keep); the count of non-null values is regr_count's;
//   - floats: count, min over values above -Infinity, max over values
//     below Infinity (a NaN or infinite result means no number: NaN sorts
//     above Infinity), and the regr state over finite values;
//   - numeric: count, min (NaN only when every value is NaN), max, avg
//     and stddev_samp over values below NaN, in exact numeric arithmetic;
//   - booleans: count and count of true values (min and max follow);
//   - text: count, blanks, min and max of non-blank values, in byte order;
//   - other ordered types: count, min, max.
//
// Aggregates run on the native values; only their results are cast to
// text.
func (s *Source) fullPass(ctx context.Context, conn *pgx.Conn, table, ident string, cols []column, p *TableProfile) error {
	var exprs []string
	var args []any
	add := func(e string) int { exprs = append(exprs, e+"::text"); return len(exprs) - 1 }
	textOf := func(ref string, c column) string {
		if c.typ == "text" {
			return ref // no cast to spell out
		}
		return ref + "::text"
	}
	add("count(*)")
	sl := make([]slots, len(cols))
	for i, c := range cols {
		ref := pgx.Identifier{c.name}.Sanitize()
		text := textOf(ref, c)
		sl[i] = slots{count: -1, numbers: -1, mean: -1, sxx: -1, sd: -1, trues: -1, empty: -1, min: -1, max: -1, format: -1}
		// Blank: made of blank characters, all below '!'; the byte
		// comparison spares most values the btrim, which allocates.
		isBlank := fmt.Sprintf(`(%s COLLATE "C" < '!' AND btrim(%s, %s) = '')`, text, text, blank)
		nonBlank := "NOT " + isBlank
		switch {
		case c.class == classNumber && c.typ == "numeric":
			filter := " FILTER (WHERE " + isNumber(c, ref) + ")"
			sl[i].count = add("count(" + ref + ")")
			sl[i].min = add("min(" + ref + ")")
			sl[i].max = add("max(" + ref + ")" + filter)
			sl[i].mean = add("avg(" + ref + ")" + filter)
			sl[i].sd = add("stddev_samp(" + ref + ")" + filter)
		case c.class == classNumber:
			// regr_*(Y, X) over pairs with Y constant: X's count, mean
			// and sum of squares, in one shared state.
			x := "0, " + ref + "::float8"
			filter := ""
			if c.float {
				filter = " FILTER (WHERE " + isNumber(c, ref) + ")"
				sl[i].count = add("count(" + ref + ")")
				sl[i].min = add("min(" + ref + ") FILTER (WHERE " + ref + " > '-Infinity')")
				sl[i].max = add("max(" + ref + ") FILTER (WHERE " + ref + " < 'Infinity')")
			} else {
				sl[i].min = add("min(" + ref + ")")
				sl[i].max = add("max(" + ref + ")")
			}
			sl[i].numbers = add("regr_count(" + x + ")" + filter)
			sl[i].mean = add("regr_avgx(" + x + ")" + filter)
			sl[i].sxx = add("regr_sxx(" + x + ")" + filter)
			if !c.float {
				sl[i].count = sl[i].numbers
			}
		case c.class == classText:
			sl[i].count = add("count(" + ref + ")")
			sl[i].empty = add("count(*) FILTER (WHERE " + isBlank + ")")
			sl[i].min = add(fmt.Sprintf(`left(min(%s COLLATE "C") FILTER (WHERE %s), %d)`, text, nonBlank, maxValueBytes+1))
			sl[i].max = add(fmt.Sprintf(`left(max(%s COLLATE "C") FILTER (WHERE %s), %d)`, text, nonBlank, maxValueBytes+1))
		case c.class == classBool:
			sl[i].count = add("count(" + ref + ")")
			sl[i].trues = add("count(*) FILTER (WHERE " + ref + ")")
		case c.class == classOrdered:
			sl[i].count = add("count(" + ref + ")")
			sl[i].min = add(fmt.Sprintf("left(min(%s)::text, %d)", ref, maxValueBytes+1))
			sl[i].max = add(fmt.Sprintf("left(max(%s)::text, %d)", ref, maxValueBytes+1))
		default:
			sl[i].count = add("count(" + ref + ")")
		}
		if c.hasFormat {
			args = append(args, c.format)
			sl[i].format = add(fmt.Sprintf("count(*) FILTER (WHERE %s AND %s ~ $%d)", nonBlank, text, len(args)))
		}
	}
	sql := "SELECT ARRAY[\n" + strings.Join(exprs, ",\n") + "\n] FROM " + ident
	if len(exprs) > maxParallelAggregates {
		// A parallel plan passes every aggregate's partial state from the
		// workers as a column, and a row holds at most 1664: past that
		// its execution fails (54011). pg_backend_pid() is parallel
		// restricted, and a condition without columns is tested once (a
		// one-time filter), so this keeps the plan serial at no cost.
		sql += " WHERE pg_backend_pid() IS NOT NULL"
	}

	vals, err := s.queryArray(ctx, conn, table, sql, args...)
	if err != nil {
		return err
	}
	if len(vals) != len(exprs) {
		return fmt.Errorf("postgresql: profile of %q: %d values for %d aggregates", table, len(vals), len(exprs))
	}
	p.Rows = parseInt(vals[0])
	p.Columns = make([]connectors.ColumnMetrics, len(cols))
	for i, c := range cols {
		m := &p.Columns[i]
		m.Name, m.DataType = c.name, c.dataType
		m.Numeric = c.class == classNumber
		nonNull := parseInt(vals[sl[i].count])
		m.Nulls = p.Rows - nonNull
		if sl[i].empty >= 0 {
			m.Empty = parseInt(vals[sl[i].empty])
		}
		if sl[i].min >= 0 {
			m.Min, m.Max = cut(vals[sl[i].min]), cut(vals[sl[i].max])
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
		if sl[i].trues >= 0 && nonNull > 0 {
			trues := parseInt(vals[sl[i].trues])
			lo, hi := "false", "false"
			if trues == nonNull {
				lo = "true"
			}
			if trues > 0 {
				hi = "true"
			}
			m.Min, m.Max = &lo, &hi
		}
		if sl[i].mean >= 0 && vals[sl[i].mean] != nil {
			m.Mean = parseFloat(vals[sl[i].mean])
			sd := 0.0 // one value: the file engine's 0
			switch {
			case sl[i].sd >= 0:
				if v := parseFloat(vals[sl[i].sd]); v != nil {
					sd = *v
				}
			case sl[i].sxx >= 0:
				// stddev_samp's own final step, on the same state.
				n := float64(parseInt(vals[sl[i].numbers]))
				if sxx := parseFloat(vals[sl[i].sxx]); sxx != nil && n > 1 {
					sd = math.Sqrt(*sxx / (n - 1))
				}
			}
			m.StdDev = &sd
		}
		if sl[i].format >= 0 {
			share := 1.0 // nothing to conform: the file engine's 1
			if nonBlank := nonNull - m.Empty; nonBlank > 0 {
				share = float64(parseInt(vals[sl[i].format])) / float64(nonBlank)
			}
			m.FormatConformance = &share
		}
	}
	return nil
}

// sampleCells bounds the values Profile's second query reads: a table
// wider than sampleCells/SampleTarget columns is sampled in fewer rows
// (never fewer than minSampleRows).
const (
	sampleCells   = 2_000_000
	minSampleRows = 1_000
)

// SampleRows is the number of rows Profile's second query reads from a
// table of cols columns.
func SampleRows(cols int) int64 {
	return min(SampleTarget, max(minSampleRows, sampleCells/int64(max(cols, 1))))
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
//     the width);
//   - quantiles: one percentile_disc per numeric column over s, each
//     sorting only its own numbers, gathered into one text array (one
//     target entry, whatever the width) that every column's row indexes.
//
// The query returns a row per column that has a non-null sampled value.
func (s *Source) samplePass(ctx context.Context, conn *pgx.Conn, table, ident, relkind string, cols []column, p *TableProfile) error {
	target := SampleRows(len(cols))
	exact := p.Rows <= target
	from := ident
	var args []any
	if !exact {
		frac := float64(target) / float64(p.Rows)
		if relkind == "v" {
			from += " WHERE random() < $1::float8"
			args = append(args, frac)
		} else {
			from += " TABLESAMPLE SYSTEM ($1::real)"
			args = append(args, math.Min(100, 100*frac))
		}
	}
	qv := make([]string, len(QuantileValues))
	for i, q := range QuantileValues {
		qv[i] = strconv.FormatFloat(q, 'f', -1, 64)
	}
	sel := make([]string, len(cols))
	idx := make([]string, len(cols))
	keys := make([]string, len(cols))
	quants := make([]string, len(cols))
	numbers := false
	for i, c := range cols {
		ref := fmt.Sprintf("c%d", i)
		sel[i] = fmt.Sprintf("%s AS %s", pgx.Identifier{c.name}.Sanitize(), ref)
		idx[i] = strconv.Itoa(i)
		keys[i] = ref + "::text"
		quants[i] = "NULL::text"
		if c.class == classNumber {
			x := ref + "::float8"
			if c.float {
				x = "CASE WHEN " + isNumber(c, ref) + " THEN " + x + " END"
			}
			quants[i] = "(percentile_disc(ARRAY[" + strings.Join(qv, ",") + "]::float8[]) WITHIN GROUP (ORDER BY " + x + "))::text"
			numbers = true
		}
	}
	sql := `WITH s AS MATERIALIZED (SELECT ` + strings.Join(sel, ", ") + ` FROM ` + from + `),
g AS (SELECT i, count(*) AS n FROM (SELECT unnest('{` + strings.Join(idx, ",") + `}'::int4[]) AS i, unnest(ARRAY[` + strings.Join(keys, ", ") + `]) AS k FROM s) u WHERE k IS NOT NULL GROUP BY i, k),
d AS (SELECT i, count(*) AS d, count(*) FILTER (WHERE n = 1) AS f1, sum(n)::int8 AS n FROM g GROUP BY i)`
	if numbers {
		sql += `,
q AS (SELECT ARRAY[` + strings.Join(quants, ", ") + `] AS qs FROM s)
SELECT d.i, d.d, d.f1, d.n, q.qs[d.i + 1]::float8[] FROM d CROSS JOIN q`
	} else {
		sql += `
SELECT d.i, d.d, d.f1, d.n, NULL::float8[] FROM d`
	}

	qctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := conn.Query(qctx, sql, args...)
	if err != nil {
		return s.queryError(qctx, table, err)
	}
	defer rows.Close()
	type stat struct {
		d, f1, n int64
		qs       []float64
	}
	stats := make([]stat, len(cols))
	for rows.Next() {
		var i int32
		var st stat
		if err := rows.Scan(&i, &st.d, &st.f1, &st.n, &st.qs); err != nil {
			return s.queryError(qctx, table, err)
		}
		if i >= 0 && int(i) < len(cols) {
			stats[i] = st
		}
	}
	if err := rows.Err(); err != nil {
		return s.queryError(qctx, table, err)
	}
	for i, c := range cols {
		m := &p.Columns[i]
		st := stats[i]
		if exact {
			m.Distinct = st.d
		} else {
			m.Distinct = EstimateDistinct(st.d, st.f1, st.n, p.Rows-m.Nulls, p.Rows, c.nDistinct)
		}
		if c.class == classNumber && len(st.qs) == len(QuantileNames) {
			m.Quantiles = make(map[string]float64, len(st.qs))
			for j, x := range st.qs {
				m.Quantiles[QuantileNames[j]] = x
			}
			med := m.Quantiles["p50"]
			m.Median = &med
		}
	}
	return nil
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

// queryArray runs a query returning one text array under the call
// timeout.
func (s *Source) queryArray(ctx context.Context, conn *pgx.Conn, table, sql string, args ...any) ([]*string, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	var vals []*string
	if err := conn.QueryRow(ctx, sql, args...).Scan(&vals); err != nil {
		return nil, s.queryError(ctx, table, err)
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

func parseFloat(v *string) *float64 {
	if v == nil {
		return nil
	}
	f, err := strconv.ParseFloat(*v, 64)
	if err != nil && !isRange(err) {
		return nil
	}
	return &f
}

func isRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
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
