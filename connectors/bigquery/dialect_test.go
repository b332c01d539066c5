package bigquery

import (
	"strings"
	"testing"
)

// The dialect's SQL, checked on its own against golden strings.

var goldenCols = []column{
	{Name: "id", Type: "INT64", Class: classNumeric},
	{Name: "name", Type: "STRING", Class: classText},
	{Name: "active", Type: "BOOL", Class: classBool},
	{Name: "created", Type: "TIMESTAMP", Class: classOrdered},
}

func TestProfileQueryGolden(t *testing.T) {
	sql, items, params := profileQuery(tableRef{"proj", "ds", "people"}, goldenCols, map[string]string{"name": `^[A-Z]{2}-[0-9]{4}$`, "missing": "x"}, 100)
	want := "SELECT COUNT(*) AS m0, " +
		"COUNTIF(`id` IS NULL) AS m1, APPROX_COUNT_DISTINCT(`id`) AS m2, CAST(MIN(`id`) AS STRING) AS m3, CAST(MAX(`id`) AS STRING) AS m4, " +
		"AVG(CAST(`id` AS FLOAT64)) AS m5, STDDEV_SAMP(CAST(`id` AS FLOAT64)) AS m6, APPROX_QUANTILES(CAST(`id` AS FLOAT64), 100) AS m7, " +
		"COUNTIF(`name` IS NULL) AS m8, COUNTIF(TRIM(`name`) = '') AS m9, APPROX_COUNT_DISTINCT(`name`) AS m10, " +
		"MIN(IF(TRIM(`name`) = '', NULL, `name`)) AS m11, MAX(IF(TRIM(`name`) = '', NULL, `name`)) AS m12, " +
		"COUNTIF(TRIM(`name`) != '' AND REGEXP_CONTAINS(`name`, @p0)) AS m13, " +
		"COUNTIF(`active` IS NULL) AS m14, APPROX_COUNT_DISTINCT(`active`) AS m15, CAST(MIN(`active`) AS STRING) AS m16, CAST(MAX(`active`) AS STRING) AS m17, " +
		"COUNTIF(`created` IS NULL) AS m18, APPROX_COUNT_DISTINCT(`created`) AS m19, CAST(MIN(`created`) AS STRING) AS m20, CAST(MAX(`created`) AS STRING) AS m21 " +
		"FROM `proj`.`ds`.`people`"
	if sql != want {
		t.Errorf("profile SQL\n got %s\nwant %s", sql, want)
	}
	if len(items) != 22 {
		t.Errorf("%d items, want 22", len(items))
	}
	if len(params) != 1 || params[0].Name != "p0" || params[0].Value != `^(?:^[A-Z]{2}-[0-9]{4}$)$` {
		t.Errorf("params %+v", params)
	}
	// The value travels as a parameter only.
	if strings.Contains(sql, "[A-Z]") {
		t.Error("the regular expression is in the SQL text")
	}
}

func TestFloatAndOtherColumns(t *testing.T) {
	cols := []column{
		{Name: "f", Type: "FLOAT64", Class: classNumeric},
		{Name: "tags", Type: "ARRAY<STRING>", Class: classRepeated},
		{Name: "geo", Type: "GEOGRAPHY", Class: classOther},
		{Name: "b", Type: "BYTES", Class: classBytes},
	}
	sql, _, params := profileQuery(tableRef{"p", "d", "t"}, cols, map[string]string{"geo": "x", "b": "y"}, 100)
	want := "SELECT COUNT(*) AS m0, COUNTIF(`f` IS NULL) AS m1, APPROX_COUNT_DISTINCT(`f`) AS m2, CAST(MIN(`f`) AS STRING) AS m3, CAST(MAX(`f`) AS STRING) AS m4, " +
		"AVG(`f`) AS m5, STDDEV_SAMP(`f`) AS m6, APPROX_QUANTILES(`f`, 100) AS m7, " +
		"COUNTIF(`geo` IS NULL) AS m8, " +
		"COUNTIF(`b` IS NULL) AS m9, APPROX_COUNT_DISTINCT(`b`) AS m10, TO_BASE64(MIN(`b`)) AS m11, TO_BASE64(MAX(`b`)) AS m12, " +
		"COUNTIF(TRIM(TO_BASE64(`b`)) != '' AND REGEXP_CONTAINS(TO_BASE64(`b`), @p0)) AS m13 FROM `p`.`d`.`t`"
	if sql != want {
		t.Errorf("profile SQL\n got %s\nwant %s", sql, want)
	}
	if len(params) != 1 || params[0].Value != "^(?:y)$" {
		t.Errorf("params %+v", params)
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{
		"plain":        "`plain`",
		"we`ird":       "`we\\`ird`",
		`back\slash`:   "`back\\\\slash`",
		"x`; DROP --":  "`x\\`; DROP --`",
		"line\nbreak":  "`line\\x0abreak`",
		`quote"'s`:     "`quote\"'s`",
		"`":            "`\\``",
		"ünïcode name": "`ünïcode name`",
	} {
		if got := quoteIdent(in); got != want {
			t.Errorf("quoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
	sql, _, _ := profileQuery(tableRef{"p", "d", "t`x"}, []column{{Name: "a`b", Type: "STRING", Class: classText}}, nil, 100)
	if !strings.Contains(sql, "COUNTIF(`a\\`b` IS NULL)") || !strings.HasSuffix(sql, "FROM `p`.`d`.`t\\`x`") {
		t.Errorf("escaped SQL: %s", sql)
	}
}

func TestSampleQueryGolden(t *testing.T) {
	ref := tableRef{"proj", "ds", "people"}
	small := sampleQuery(ref, goldenCols, 50, 1000, true)
	want := "SELECT CAST(`id` AS STRING) AS `id`, `name` AS `name`, CAST(`active` AS STRING) AS `active`, CAST(`created` AS STRING) AS `created` " +
		"FROM `proj`.`ds`.`people` ORDER BY RAND() LIMIT 50"
	if small != want {
		t.Errorf("small sample\n got %s\nwant %s", small, want)
	}
	big := sampleQuery(ref, goldenCols[:1], 1000, 10_000_000, true)
	want = "SELECT CAST(`id` AS STRING) AS `id` FROM `proj`.`ds`.`people` TABLESAMPLE SYSTEM (0.03 PERCENT) ORDER BY RAND() LIMIT 1000"
	if big != want {
		t.Errorf("large sample\n got %s\nwant %s", big, want)
	}
	view := sampleQuery(ref, goldenCols[:1], 10, 10_000_000, false)
	if strings.Contains(view, "TABLESAMPLE") {
		t.Errorf("a view is sampled with TABLESAMPLE: %s", view)
	}
}

func TestListQuery(t *testing.T) {
	want := "SELECT table_id, row_count, size_bytes, type FROM `proj`.`d``s`.__TABLES__ ORDER BY table_id"
	want = strings.Replace(want, "`d``s`", "`d\\`s`", 1)
	if got := listQuery("proj", "d`s"); got != want {
		t.Errorf("list SQL %s, want %s", got, want)
	}
}

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in       string
		repeated bool
		typ      string
		cl       class
	}{
		{"INTEGER", false, "INT64", classNumeric},
		{"FLOAT", false, "FLOAT64", classNumeric},
		{"NUMERIC", false, "NUMERIC", classNumeric},
		{"BOOLEAN", false, "BOOL", classBool},
		{"STRING", false, "STRING", classText},
		{"TIMESTAMP", false, "TIMESTAMP", classOrdered},
		{"RECORD", false, "STRUCT", classOther},
		{"STRING", true, "ARRAY<STRING>", classRepeated},
		{"JSON", false, "JSON", classOther},
	} {
		typ, cl := classify(c.in, c.repeated)
		if typ != c.typ || cl != c.cl {
			t.Errorf("classify(%s, %v) = %s, %v", c.in, c.repeated, typ, cl)
		}
	}
}

func TestSampledProfileQueryGolden(t *testing.T) {
	sql, items, params := profileQuery(tableRef{"proj", "ds", "people"}, goldenCols, map[string]string{"name": "x"}, 0.811)
	want := "SELECT COUNT(*) AS m0, " +
		"COUNTIF(`id` IS NULL) AS m1, COUNT(DISTINCT `id`) AS m2, CAST(MIN(`id`) AS STRING) AS m3, CAST(MAX(`id`) AS STRING) AS m4, " +
		"AVG(CAST(`id` AS FLOAT64)) AS m5, STDDEV_SAMP(CAST(`id` AS FLOAT64)) AS m6, APPROX_QUANTILES(CAST(`id` AS FLOAT64), 100) AS m7, " +
		"COUNTIF(`name` IS NULL) AS m8, COUNTIF(TRIM(`name`) = '') AS m9, COUNT(DISTINCT `name`) AS m10, " +
		"MIN(IF(TRIM(`name`) = '', NULL, `name`)) AS m11, MAX(IF(TRIM(`name`) = '', NULL, `name`)) AS m12, " +
		"COUNTIF(TRIM(`name`) != '' AND REGEXP_CONTAINS(`name`, @p0)) AS m13, " +
		"COUNTIF(`active` IS NULL) AS m14, COUNT(DISTINCT `active`) AS m15, CAST(MIN(`active`) AS STRING) AS m16, CAST(MAX(`active`) AS STRING) AS m17, " +
		"COUNTIF(`created` IS NULL) AS m18, COUNT(DISTINCT `created`) AS m19, CAST(MIN(`created`) AS STRING) AS m20, CAST(MAX(`created`) AS STRING) AS m21 " +
		"FROM `proj`.`ds`.`people` TABLESAMPLE SYSTEM (0.811 PERCENT)"
	if sql != want {
		t.Errorf("sampled profile SQL\n got %s\nwant %s", sql, want)
	}
	if len(items) != 22 || len(params) != 1 {
		t.Errorf("%d items, %d params", len(items), len(params))
	}
	if got := countQuery(tableRef{"p", "d", "t`x"}); got != "SELECT COUNT(*) FROM `p`.`d`.`t\\`x`" {
		t.Errorf("count SQL %s", got)
	}
}
