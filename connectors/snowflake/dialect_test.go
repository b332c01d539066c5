package snowflake

import (
	"strings"
	"testing"
)

// The dialect's SQL, checked on its own against golden strings.

func TestProfileQueryGolden(t *testing.T) {
	cols := []column{
		{"ID", "NUMBER", classNumeric},
		{"NAME", "TEXT", classText},
		{"ACTIVE", "BOOLEAN", classBool},
		{"CREATED", "TIMESTAMP_NTZ", classOrdered},
	}
	sql, items, args := profileQuery("PUBLIC", "PEOPLE", cols, map[string]string{"NAME": `^[A-Z]{2}-[0-9]{4}$`, "MISSING": "x"}, 100)
	const b = `' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)`
	want := `SELECT COUNT(*) AS M0, ` +
		`COUNT_IF("ID" IS NULL) AS M1, APPROX_COUNT_DISTINCT("ID") AS M2, TO_VARCHAR(MIN("ID")) AS M3, TO_VARCHAR(MAX("ID")) AS M4, ` +
		`AVG(CAST("ID" AS DOUBLE)) AS M5, STDDEV_SAMP(CAST("ID" AS DOUBLE)) AS M6, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.01) AS M7, APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.05) AS M8, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.25) AS M9, APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.5) AS M10, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.75) AS M11, APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.95) AS M12, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.99) AS M13, ` +
		`COUNT_IF("NAME" IS NULL) AS M14, COUNT_IF(TRIM("NAME", ` + b + `) = '') AS M15, APPROX_COUNT_DISTINCT("NAME") AS M16, ` +
		`MIN(IFF(TRIM("NAME", ` + b + `) = '', NULL, "NAME")) AS M17, MAX(IFF(TRIM("NAME", ` + b + `) = '', NULL, "NAME")) AS M18, ` +
		`COUNT_IF(TRIM("NAME", ` + b + `) <> '' AND REGEXP_LIKE("NAME", ?)) AS M19, ` +
		`COUNT_IF("ACTIVE" IS NULL) AS M20, APPROX_COUNT_DISTINCT("ACTIVE") AS M21, TO_VARCHAR(BOOLAND_AGG("ACTIVE")) AS M22, TO_VARCHAR(BOOLOR_AGG("ACTIVE")) AS M23, ` +
		`COUNT_IF("CREATED" IS NULL) AS M24, APPROX_COUNT_DISTINCT("CREATED") AS M25, TO_VARCHAR(MIN("CREATED")) AS M26, TO_VARCHAR(MAX("CREATED")) AS M27 ` +
		`FROM "PUBLIC"."PEOPLE"`
	if sql != want {
		t.Errorf("profile SQL\n got %s\nwant %s", sql, want)
	}
	if len(items) != 28 {
		t.Errorf("%d items, want 28", len(items))
	}
	if len(args) != 1 || args[0] != `^[A-Z]{2}-[0-9]{4}$` {
		t.Errorf("args %v", args)
	}
	if strings.Contains(sql, "[A-Z]") {
		t.Error("the regular expression is in the SQL text")
	}
}

func TestOtherColumns(t *testing.T) {
	cols := []column{{"V", "VARIANT", classOther}, {"D", "DATE", classOrdered}}
	sql, _, args := profileQuery("S", "T", cols, map[string]string{"V": "x", "D": `\d`}, 100)
	want := `SELECT COUNT(*) AS M0, COUNT_IF("V" IS NULL) AS M1, ` +
		`COUNT_IF("D" IS NULL) AS M2, APPROX_COUNT_DISTINCT("D") AS M3, TO_VARCHAR(MIN("D")) AS M4, TO_VARCHAR(MAX("D")) AS M5, ` +
		`COUNT_IF(TRIM(TO_VARCHAR("D"), ' ' || CHR(9) || CHR(10) || CHR(11) || CHR(12) || CHR(13)) <> '' AND REGEXP_LIKE(TO_VARCHAR("D"), ?)) AS M6 FROM "S"."T"`
	if sql != want {
		t.Errorf("profile SQL\n got %s\nwant %s", sql, want)
	}
	if len(args) != 1 || args[0] != `\d` {
		t.Errorf("args %v", args)
	}
}

func TestQuoteIdent(t *testing.T) {
	for in, want := range map[string]string{
		"PLAIN":            `"PLAIN"`,
		"lower case":       `"lower case"`,
		`we"ird`:           `"we""ird"`,
		`x"; DROP TABLE t`: `"x""; DROP TABLE t"`,
		"back`tick":        "\"back`tick\"",
		`""`:               `""""""`,
	} {
		if got := quoteIdent(in); got != want {
			t.Errorf("quoteIdent(%q) = %s, want %s", in, got, want)
		}
	}
	sql, _, _ := profileQuery(`my"schema`, `t"x`, []column{{`a"b`, "TEXT", classText}}, nil, 100)
	if !strings.Contains(sql, `COUNT_IF("a""b" IS NULL)`) || !strings.HasSuffix(sql, `FROM "my""schema"."t""x"`) {
		t.Errorf("escaped SQL: %s", sql)
	}
}

func TestSampleQueryGolden(t *testing.T) {
	if got, want := sampleQuery("PUBLIC", `PE"OPLE`, 50), `SELECT * FROM "PUBLIC"."PE""OPLE" SAMPLE (50 ROWS)`; got != want {
		t.Errorf("sample SQL %s, want %s", got, want)
	}
}

func TestCatalogueQueriesUseBinds(t *testing.T) {
	for _, q := range []string{listQuery, columnsQuery, schemaQuery} {
		if !strings.Contains(q, "IN (?, UPPER(?))") || strings.Contains(q, "'") {
			t.Errorf("catalogue query without binds: %s", q)
		}
	}
}

func TestClassify(t *testing.T) {
	for in, want := range map[string]class{
		"NUMBER": classNumeric, "FLOAT": classNumeric, "INTEGER": classNumeric, "DECFLOAT": classNumeric,
		"TEXT": classText, "VARCHAR": classText,
		"BOOLEAN": classBool,
		"DATE":    classOrdered, "TIMESTAMP_TZ": classOrdered, "BINARY": classOrdered,
		"VARIANT": classOther, "ARRAY": classOther, "GEOGRAPHY": classOther, "VECTOR": classOther,
	} {
		if got := classify(in); got != want {
			t.Errorf("classify(%s) = %v, want %v", in, got, want)
		}
	}
}

func TestSampledProfileQueryGolden(t *testing.T) {
	cols := []column{{"ID", "NUMBER", classNumeric}, {"D", "DATE", classOrdered}}
	sql, items, _ := profileQuery("S", "T", cols, nil, 0.0001)
	want := `SELECT COUNT(*) AS M0, ` +
		`COUNT_IF("ID" IS NULL) AS M1, COUNT(DISTINCT "ID") AS M2, TO_VARCHAR(MIN("ID")) AS M3, TO_VARCHAR(MAX("ID")) AS M4, ` +
		`AVG(CAST("ID" AS DOUBLE)) AS M5, STDDEV_SAMP(CAST("ID" AS DOUBLE)) AS M6, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.01) AS M7, APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.05) AS M8, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.25) AS M9, APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.5) AS M10, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.75) AS M11, APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.95) AS M12, ` +
		`APPROX_PERCENTILE(CAST("ID" AS DOUBLE), 0.99) AS M13, ` +
		`COUNT_IF("D" IS NULL) AS M14, COUNT(DISTINCT "D") AS M15, TO_VARCHAR(MIN("D")) AS M16, TO_VARCHAR(MAX("D")) AS M17 ` +
		`FROM "S"."T" SAMPLE SYSTEM (0.0001) SEED (20261127)`
	if sql != want {
		t.Errorf("sampled profile SQL\n got %s\nwant %s", sql, want)
	}
	if len(items) != 18 {
		t.Errorf("%d items", len(items))
	}
	if got := countQuery(`my"schema`, `t"x`); got != `SELECT COUNT(*) FROM "my""schema"."t""x"` {
		t.Errorf("count SQL %s", got)
	}
}
