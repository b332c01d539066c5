package snowflake

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dqs/dqs/connectors/sqlprofile"
)

// The SQL of the connector, in Snowflake's dialect. It is built from
// identifiers only, each quoted by quoteIdent; every value (a schema or
// table name compared in the catalogue, a format's regular expression)
// is a bind parameter (?), never part of the text.

// quoteIdent double-quotes a Snowflake identifier, doubling the double
// quotes inside it. A quoted identifier is case-sensitive: names come
// from the catalogue as stored (upper case for unquoted ones).
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// class is what SQL can compute over a column.
type class int

const (
	// classOther: nulls only (VARIANT, OBJECT, ARRAY, GEOGRAPHY, ...).
	classOther class = iota
	classNumeric
	classText
	classBool
	// classOrdered: dates, times, timestamps, binary: distinct, min, max.
	classOrdered
)

type column struct {
	Name  string
	Type  string // INFORMATION_SCHEMA.COLUMNS.DATA_TYPE
	Class class
}

// classify maps a catalogue DATA_TYPE to its class.
func classify(dataType string) class {
	switch t := strings.ToUpper(strings.TrimSpace(dataType)); {
	case t == "NUMBER" || t == "DECIMAL" || t == "NUMERIC" || t == "FLOAT" || t == "REAL" || t == "DOUBLE" ||
		t == "DOUBLE PRECISION" || t == "FLOAT4" || t == "FLOAT8" || strings.HasPrefix(t, "INT") ||
		t == "BIGINT" || t == "SMALLINT" || t == "TINYINT" || t == "BYTEINT" || t == "DECFLOAT":
		return classNumeric
	case t == "TEXT" || t == "VARCHAR" || t == "STRING" || t == "CHAR" || t == "CHARACTER":
		return classText
	case t == "BOOLEAN":
		return classBool
	case t == "DATE" || t == "TIME" || t == "DATETIME" || strings.HasPrefix(t, "TIMESTAMP") || t == "BINARY" || t == "VARBINARY":
		return classOrdered
	}
	return classOther
}

// blank is the set of characters TRIM removes to tell a blank value: the
// ASCII whitespace (TRIM alone removes spaces only).
const blank = "' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)"

// profileQuery is the single aggregate query of a profile: the row count,
// then per column its nulls, blanks, approximate distinct count, minimum
// and maximum as text, mean, sample standard deviation and approximate
// percentiles, and the number of non-blank values matching the column's
// format (REGEXP_LIKE, which matches the whole value). args are the bind
// values of the ? placeholders, in order.
//
// With pct below 100 (a sampled profile, sqlprofile.Run) the same query
// reads a block sample of pct percent of the table, SAMPLE SYSTEM (pct)
// SEED (sqlprofile.SampleSeed), its COUNT(*) then counting the sampled
// rows, and counts the distinct values of the sample exactly
// (COUNT(DISTINCT)), which sqlprofile.EstimateDistinct needs to tell a
// unique column from one of values seen twice. The seed makes the sample
// repeatable: the same blocks of an unchanged table from one profile to
// the next, so its estimates do not move between scans. Snowflake takes a
// seed only for SYSTEM (BLOCK) or BERNOULLI sampling of a fraction of a
// table, not of a view or a subquery: only a table (sampleable) is ever
// sampled.
func profileQuery(schema, table string, cols []column, formats map[string]string, pct float64) (sql string, items []sqlprofile.Item, args []any) {
	var sel []string
	add := func(col int, m sqlprofile.Metric, q, expr string) {
		sel = append(sel, fmt.Sprintf("%s AS M%d", expr, len(sel)))
		items = append(items, sqlprofile.Item{Col: col, Metric: m, Quantile: q})
	}
	sampled := pct < 100
	distinct := "APPROX_COUNT_DISTINCT(%s)"
	if sampled {
		distinct = "COUNT(DISTINCT %s)"
	}
	add(-1, sqlprofile.Rows, "", "COUNT(*)")
	for i, c := range cols {
		q := quoteIdent(c.Name)
		add(i, sqlprofile.Nulls, "", fmt.Sprintf("COUNT_IF(%s IS NULL)", q))
		switch c.Class {
		case classText:
			trim := fmt.Sprintf("TRIM(%s, %s)", q, blank)
			add(i, sqlprofile.Empty, "", fmt.Sprintf("COUNT_IF(%s = '')", trim))
			add(i, sqlprofile.Distinct, "", fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, "", fmt.Sprintf("MIN(IFF(%s = '', NULL, %s))", trim, q))
			add(i, sqlprofile.Max, "", fmt.Sprintf("MAX(IFF(%s = '', NULL, %s))", trim, q))
		case classNumeric:
			f := fmt.Sprintf("CAST(%s AS DOUBLE)", q)
			add(i, sqlprofile.Distinct, "", fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, "", fmt.Sprintf("TO_VARCHAR(MIN(%s))", q))
			add(i, sqlprofile.Max, "", fmt.Sprintf("TO_VARCHAR(MAX(%s))", q))
			add(i, sqlprofile.Mean, "", fmt.Sprintf("AVG(%s)", f))
			add(i, sqlprofile.StdDev, "", fmt.Sprintf("STDDEV_SAMP(%s)", f))
			for _, p := range sqlprofile.Quantiles {
				add(i, sqlprofile.Quantile, p.Key, fmt.Sprintf("APPROX_PERCENTILE(%s, %s)", f, p.Fraction()))
			}
		case classBool:
			add(i, sqlprofile.Distinct, "", fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, "", fmt.Sprintf("TO_VARCHAR(BOOLAND_AGG(%s))", q))
			add(i, sqlprofile.Max, "", fmt.Sprintf("TO_VARCHAR(BOOLOR_AGG(%s))", q))
		case classOrdered:
			add(i, sqlprofile.Distinct, "", fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, "", fmt.Sprintf("TO_VARCHAR(MIN(%s))", q))
			add(i, sqlprofile.Max, "", fmt.Sprintf("TO_VARCHAR(MAX(%s))", q))
		}
		if re, ok := formats[c.Name]; ok && re != "" && c.Class != classOther {
			args = append(args, re)
			text := q
			if c.Class != classText {
				text = "TO_VARCHAR(" + q + ")"
			}
			add(i, sqlprofile.Format, "", fmt.Sprintf("COUNT_IF(TRIM(%s, %s) <> '' AND REGEXP_LIKE(%s, ?))", text, blank, text))
		}
	}
	sql = "SELECT " + strings.Join(sel, ", ") + " FROM " + tableName(schema, table)
	if sampled {
		sql += " SAMPLE SYSTEM (" + sqlprofile.PercentLiteral(pct) + ") SEED (" + strconv.Itoa(sqlprofile.SampleSeed) + ")"
	}
	return sql, items, args
}

// tableName is a table's name qualified by its schema.
func tableName(schema, table string) string { return quoteIdent(schema) + "." + quoteIdent(table) }

// countQuery is the first query of a sampled profile: the table's exact
// row count, which Snowflake answers from its micro-partitions' metadata
// for a table (a view would be evaluated whole: views are never sampled,
// sampleable).
func countQuery(schema, table string) string {
	return "SELECT COUNT(*) FROM " + tableName(schema, table)
}

// sampleQuery returns at most limit random rows (SAMPLE ... ROWS draws
// them from the whole table).
func sampleQuery(schema, table string, limit int) string {
	return "SELECT * FROM " + quoteIdent(schema) + "." + quoteIdent(table) +
		" SAMPLE (" + strconv.Itoa(limit) + " ROWS)"
}

// sampleable tells whether an object of catalogue TABLE_TYPE typ
// (INFORMATION_SCHEMA.TABLES) is profiled from a sample in a sampled
// profile: a table stored in micro-partitions, BASE TABLE (permanent,
// transient, dynamic, Iceberg or hybrid alike) or a temporary table.
// Anything else is profiled by the exact query alone, as BigQuery's views
// are: a VIEW or MATERIALIZED VIEW, which COUNT(*) would evaluate whole
// before the sample evaluates it again (sampled costing more than exact)
// and which takes no seed (SAMPLE ... SEED is for tables only); an
// EXTERNAL TABLE, whose COUNT(*) reads its files; an EVENT TABLE; and a
// type unknown (or missing, NULL) rather than one guessed safe.
func sampleable(typ string) bool {
	switch strings.ToUpper(strings.TrimSpace(typ)) {
	case "BASE TABLE", "TEMPORARY TABLE", "LOCAL TEMPORARY":
		return true
	}
	return false
}

// The catalogue of the session's database. A schema is matched as given
// or upper-cased (the name an unquoted identifier is stored under); the
// exact match wins. columnsQuery reads a table's columns and, on each of
// them, the table's TABLE_TYPE (sampleable), in one query: the
// INFORMATION_SCHEMA.TABLES row of the same table joined to its columns.
const (
	listQuery = "SELECT TABLE_SCHEMA, TABLE_NAME, ROW_COUNT, BYTES FROM INFORMATION_SCHEMA.TABLES " +
		"WHERE TABLE_SCHEMA IN (?, UPPER(?)) ORDER BY TABLE_NAME"
	columnsQuery = "SELECT C.TABLE_SCHEMA, C.COLUMN_NAME, C.DATA_TYPE, T.TABLE_TYPE FROM INFORMATION_SCHEMA.COLUMNS C " +
		"LEFT JOIN INFORMATION_SCHEMA.TABLES T ON T.TABLE_CATALOG = C.TABLE_CATALOG AND T.TABLE_SCHEMA = C.TABLE_SCHEMA AND T.TABLE_NAME = C.TABLE_NAME " +
		"WHERE C.TABLE_SCHEMA IN (?, UPPER(?)) AND C.TABLE_NAME = ? ORDER BY C.TABLE_SCHEMA, C.ORDINAL_POSITION"
	schemaQuery = "SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA WHERE SCHEMA_NAME IN (?, UPPER(?))"
)
