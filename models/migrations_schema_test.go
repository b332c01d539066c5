package models_test

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestMigrationsBuildTheLiveSchema: a new database built by the migrations
// alone has the tables, columns and indexes the live models describe, as
// AutoMigrate builds them from scratch on a second new database. A field or
// index tag added to a model without a migration, or a migration changing a
// table without the model following, fails here.
func TestMigrationsBuildTheLiveSchema(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			live := openEmpty(t, d)
			if err := live.Gorm.AutoMigrate(models.LiveModels()...); err != nil {
				t.Fatalf("AutoMigrate of the live models: %v", err)
			}
			want := describeSchema(t, live)
			got := describeSchema(t, modelstest.Open(t, d))
			if len(want) == 0 {
				t.Fatal("the live models describe no schema")
			}
			for _, k := range sortedUnion(want, got) {
				w, inLive := want[k]
				g, inMigrated := got[k]
				switch {
				case !inMigrated:
					t.Errorf("%s: the live models have %q, the migrations build nothing", k, w)
				case !inLive:
					t.Errorf("%s: the migrations build %q, the live models have nothing", k, g)
				case w != g:
					t.Errorf("%s: the live models have %q, the migrations build %q", k, w, g)
				}
			}
		})
	}
}

// describeSchema returns what makes up the schema of db's tables, keyed
// "table T", "column T.C" and "index T.I", each with a description that two
// equal schemas share. The migrations' own bookkeeping table is left out.
func describeSchema(t *testing.T, db *models.DB) map[string]string {
	t.Helper()
	m := db.Gorm.Migrator()
	tables, err := m.GetTables()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, table := range tables {
		if table == "schema_migrations" {
			continue
		}
		out["table "+table] = ""
		columns, err := m.ColumnTypes(table)
		if err != nil {
			t.Fatalf("columns of %s: %v", table, err)
		}
		for _, c := range columns {
			out["column "+table+"."+c.Name()] = fmt.Sprintf("%s length %s, nullable %s, default %s, primary key %s, unique %s",
				c.DatabaseTypeName(), known(c.Length()), known(c.Nullable()), known(c.DefaultValue()), known(c.PrimaryKey()), known(c.Unique()))
		}
		for _, idx := range indexesOf(t, db, table) {
			out["index "+table+"."+idx.name] = fmt.Sprintf("unique %v on (%s) where %q", idx.unique, idx.columns, idx.where)
		}
	}
	return out
}

// known formats a catalogue value a driver may not know (ok false).
func known[T any](v T, ok bool) string {
	if !ok {
		return "unknown"
	}
	return fmt.Sprint(v)
}

// index is an index as the catalogue holds it: its columns in order and the
// condition of a partial index.
type index struct {
	name    string
	unique  bool
	columns string
	where   string
}

// indexesOf reads the indexes of table from the catalogue rather than
// gorm's GetIndexes, which keeps neither the column order nor the condition
// of a partial index, both of which decide what an index allows.
func indexesOf(t *testing.T, db *models.DB, table string) []index {
	t.Helper()
	var rows []struct {
		Name    string
		Uniq    bool
		Columns string
		Where   string
	}
	query := `SELECT i.relname AS name, x.indisunique AS uniq,
  array_to_string(ARRAY(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, ord)
    JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.ord), ',') AS columns,
  COALESCE(pg_get_expr(x.indpred, x.indrelid), '') AS "where"
FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class r ON r.oid = x.indrelid
WHERE r.relname = ? AND r.relnamespace = current_schema()::regnamespace`
	if db.Dialect == models.SQLite {
		// SQLite keeps a partial index's condition only in its CREATE
		// statement.
		query = `SELECT l.name AS name, l."unique" AS uniq,
  (SELECT group_concat(name, ',') FROM (SELECT c.name FROM pragma_index_info(l.name) c ORDER BY c.seqno)) AS columns,
  COALESCE((SELECT sql FROM sqlite_master WHERE type = 'index' AND name = l.name), '') AS "where"
FROM pragma_index_list(?) l`
	}
	if err := db.Gorm.Raw(query, table).Scan(&rows).Error; err != nil {
		t.Fatalf("indexes of %s: %v", table, err)
	}
	out := make([]index, len(rows))
	for i, r := range rows {
		out[i] = index{name: r.Name, unique: r.Uniq, columns: r.Columns, where: indexCondition(r.Where)}
	}
	return out
}

var (
	whereClause   = regexp.MustCompile(`(?is)\bwhere\b(.*)$`)
	notCondition  = regexp.MustCompile("[\"`()]")
	conditionGaps = regexp.MustCompile(`\s+`)
)

// indexCondition returns the condition of a partial index from s, either
// the condition itself (PostgreSQL) or the index's CREATE statement
// (SQLite), in one spelling whatever the quoting, parentheses and case
// gorm or a hand-written statement used.
func indexCondition(s string) string {
	if m := whereClause.FindStringSubmatch(s); m != nil {
		s = m[1]
	} else if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(s)), "CREATE ") {
		return ""
	}
	s = notCondition.ReplaceAllString(strings.ToLower(s), " ")
	return strings.TrimSpace(conditionGaps.ReplaceAllString(s, " "))
}

// sortedUnion returns the keys of a and b, sorted.
func sortedUnion(a, b map[string]string) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
