package bigquery

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dqs/dqs/connectors/sqlprofile"
)

// The SQL of the connector, in GoogleSQL (BigQuery's standard SQL). It is
// built from identifiers only, each quoted by quoteIdent; every value a
// user supplies (a format's regular expression) travels as a named query
// parameter (@p0, @p1, ...), never inside the text.

// quoteIdent quotes a GoogleSQL identifier with backticks. Inside a quoted
// identifier a backslash starts an escape sequence, so backslashes and
// backticks are escaped; a newline or other control character is written
// as a \x escape so that the text stays on one line.
func quoteIdent(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('`')
	for _, r := range s {
		switch {
		case r == '`' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('`')
	return b.String()
}

// tableRef is a table's full name: project.dataset.table.
type tableRef struct{ Project, Dataset, Table string }

func (t tableRef) sql() string {
	return quoteIdent(t.Project) + "." + quoteIdent(t.Dataset) + "." + quoteIdent(t.Table)
}

// class is what SQL can compute over a column.
type class int

const (
	// classOther: nulls only (STRUCT, JSON, GEOGRAPHY, INTERVAL, RANGE).
	classOther class = iota
	classNumeric
	classText
	classBool
	// classOrdered: dates, times and timestamps: distinct, min, max.
	classOrdered
	// classBytes: distinct, min and max in base64.
	classBytes
	// classRepeated: an ARRAY is never NULL; nothing to compute.
	classRepeated
)

// column is a column as the table's schema gives it.
type column struct {
	Name string
	// Type is the GoogleSQL name (INT64, STRING, ARRAY<INT64>, ...).
	Type  string
	Class class
}

// classify maps a schema field (legacy or standard type name, repeated
// flag) to its GoogleSQL type name and class.
func classify(fieldType string, repeated bool) (string, class) {
	t := strings.ToUpper(fieldType)
	switch t {
	case "INTEGER":
		t = "INT64"
	case "FLOAT":
		t = "FLOAT64"
	case "BOOLEAN":
		t = "BOOL"
	case "RECORD":
		t = "STRUCT"
	}
	if repeated {
		return "ARRAY<" + t + ">", classRepeated
	}
	switch t {
	case "INT64", "FLOAT64", "NUMERIC", "BIGNUMERIC":
		return t, classNumeric
	case "STRING":
		return t, classText
	case "BOOL":
		return t, classBool
	case "DATE", "TIME", "DATETIME", "TIMESTAMP":
		return t, classOrdered
	case "BYTES":
		return t, classBytes
	}
	return t, classOther
}

// param is a named string query parameter.
type param struct{ Name, Value string }

// profileQuery is the single aggregate query of a profile: the row count,
// then per column its nulls, blanks, approximate distinct count, minimum
// and maximum as text, mean, sample standard deviation and approximate
// percentiles (APPROX_QUANTILES over 100 parts), and the number of
// non-blank values matching the column's format. Items lists what each
// select-list item is, in order.
//
// With pct below 100 (a sampled profile, sqlprofile.Run) the same query
// reads a block sample of pct percent of the table, TABLESAMPLE SYSTEM
// (pct PERCENT), its COUNT(*) then counting the sampled rows, and counts
// the distinct values of the sample exactly (COUNT(DISTINCT)), which
// sqlprofile.EstimateDistinct needs to tell a unique column from one of
// values seen twice.
func profileQuery(t tableRef, cols []column, formats map[string]string, pct float64) (sql string, items []sqlprofile.Item, params []param) {
	var sel []string
	add := func(col int, m sqlprofile.Metric, expr string) {
		sel = append(sel, fmt.Sprintf("%s AS m%d", expr, len(sel)))
		items = append(items, sqlprofile.Item{Col: col, Metric: m})
	}
	sampled := pct < 100
	distinct := "APPROX_COUNT_DISTINCT(%s)"
	if sampled {
		distinct = "COUNT(DISTINCT %s)"
	}
	add(-1, sqlprofile.Rows, "COUNT(*)")
	for i, c := range cols {
		q := quoteIdent(c.Name)
		if c.Class == classRepeated {
			continue
		}
		add(i, sqlprofile.Nulls, fmt.Sprintf("COUNTIF(%s IS NULL)", q))
		switch c.Class {
		case classText:
			add(i, sqlprofile.Empty, fmt.Sprintf("COUNTIF(TRIM(%s) = '')", q))
			add(i, sqlprofile.Distinct, fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, fmt.Sprintf("MIN(IF(TRIM(%s) = '', NULL, %s))", q, q))
			add(i, sqlprofile.Max, fmt.Sprintf("MAX(IF(TRIM(%s) = '', NULL, %s))", q, q))
		case classNumeric:
			f := fmt.Sprintf("CAST(%s AS FLOAT64)", q)
			if c.Type == "FLOAT64" {
				f = q
			}
			add(i, sqlprofile.Distinct, fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, fmt.Sprintf("CAST(MIN(%s) AS STRING)", q))
			add(i, sqlprofile.Max, fmt.Sprintf("CAST(MAX(%s) AS STRING)", q))
			add(i, sqlprofile.Mean, fmt.Sprintf("AVG(%s)", f))
			add(i, sqlprofile.StdDev, fmt.Sprintf("STDDEV_SAMP(%s)", f))
			add(i, sqlprofile.Percentiles, fmt.Sprintf("APPROX_QUANTILES(%s, 100)", f))
		case classBool, classOrdered:
			add(i, sqlprofile.Distinct, fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, fmt.Sprintf("CAST(MIN(%s) AS STRING)", q))
			add(i, sqlprofile.Max, fmt.Sprintf("CAST(MAX(%s) AS STRING)", q))
		case classBytes:
			add(i, sqlprofile.Distinct, fmt.Sprintf(distinct, q))
			add(i, sqlprofile.Min, fmt.Sprintf("TO_BASE64(MIN(%s))", q))
			add(i, sqlprofile.Max, fmt.Sprintf("TO_BASE64(MAX(%s))", q))
		}
		if re, ok := formats[c.Name]; ok && re != "" && c.Class != classOther {
			p := param{Name: fmt.Sprintf("p%d", len(params)), Value: anchored(re)}
			params = append(params, p)
			text := textExpr(c, q)
			add(i, sqlprofile.Format, fmt.Sprintf("COUNTIF(TRIM(%s) != '' AND REGEXP_CONTAINS(%s, @%s))", text, text, p.Name))
		}
	}
	sql = "SELECT " + strings.Join(sel, ", ") + " FROM " + t.sql()
	if sampled {
		sql += " TABLESAMPLE SYSTEM (" + sqlprofile.PercentLiteral(pct) + " PERCENT)"
	}
	return sql, items, params
}

// countQuery is the first query of a sampled profile: the table's exact
// row count, which BigQuery answers from the table's metadata (no bytes
// billed).
func countQuery(t tableRef) string {
	return "SELECT COUNT(*) FROM " + t.sql()
}

// anchored makes REGEXP_CONTAINS, which finds a match anywhere, test the
// whole value, as a format does.
func anchored(re string) string { return "^(?:" + re + ")$" }

// textExpr renders a column's value as text.
func textExpr(c column, q string) string {
	switch c.Class {
	case classText:
		return q
	case classBytes:
		return "TO_BASE64(" + q + ")"
	case classRepeated, classOther:
		if c.Type == "GEOGRAPHY" {
			return "ST_ASTEXT(" + q + ")"
		}
		return "TO_JSON_STRING(" + q + ")"
	}
	return "CAST(" + q + " AS STRING)"
}

// smallTable is the row count up to which a sample orders the whole table
// at random; larger tables are sampled by blocks first.
const smallTable = 100_000

// sampleQuery returns at most limit rows of t, each value rendered as
// text. A table known to hold more than smallTable rows is read through
// TABLESAMPLE SYSTEM with three times the needed share (blocks vary in
// size), then shuffled; a smaller one (or a view, rows unknown) is
// shuffled whole.
func sampleQuery(t tableRef, cols []column, limit int, rows uint64, isTable bool) string {
	sel := make([]string, len(cols))
	for i, c := range cols {
		sel[i] = textExpr(c, quoteIdent(c.Name)) + " AS " + quoteIdent(c.Name)
	}
	from := t.sql()
	if isTable && rows > smallTable {
		pct := math.Min(100, math.Ceil(3*float64(limit)/float64(rows)*100*1000)/1000)
		from += " TABLESAMPLE SYSTEM (" + strconv.FormatFloat(pct, 'f', -1, 64) + " PERCENT)"
	}
	return "SELECT " + strings.Join(sel, ", ") + " FROM " + from + " ORDER BY RAND() LIMIT " + strconv.Itoa(limit)
}

// listQuery reads the dataset's catalogue: every table and view with the
// row count and size BigQuery keeps for it (type 1 table, 2 view, 3
// external). It counts nothing.
func listQuery(project, dataset string) string {
	return "SELECT table_id, row_count, size_bytes, type FROM " +
		quoteIdent(project) + "." + quoteIdent(dataset) + ".__TABLES__ ORDER BY table_id"
}
