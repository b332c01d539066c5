package postgresql

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestProfileSpecialValues covers what the full pass leaves to its
// formulation rather than to a FILTER on every aggregate: NaN and
// infinities kept out of a float column's min, max, mean and deviation
// (and every figure absent when only they are there), numeric NaN, the
// booleans' min and max from counts, and integer columns whose count and
// moments come from one regr state.
func TestProfileSpecialValues(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	name := pgx.Identifier{schema, "special"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+` (f8 double precision, f4 real, n numeric, nn numeric, b boolean, b2 boolean, i integer, j bigint)`)
	srv.exec(t, "INSERT INTO "+name+` VALUES
		('-Infinity', 'NaN',       2.50,  'NaN', true, false, NULL, 7),
		(1.5,         'Infinity',  'NaN', 'NaN', true, NULL,  NULL, NULL),
		('NaN',       '-Infinity', 1.25,  NULL,  NULL, false, NULL, NULL),
		('Infinity',  NULL,        NULL,  'NaN', true, false, NULL, NULL),
		(-2,          'NaN',       NULL,  NULL,  true, false, NULL, NULL),
		(NULL,        NULL,        NULL,  NULL,  NULL, NULL,  NULL, NULL)`)
	src := srv.open(t, schema, nil)
	p, err := src.Profile(context.Background(), "special", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows != 6 {
		t.Fatalf("rows %d", p.Rows)
	}
	str := func(v *string) string {
		if v == nil {
			return "<nil>"
		}
		return *v
	}
	type want struct {
		nulls      int64
		min, max   string
		mean, sd   float64 // NaN: absent
		median     float64 // NaN: absent
		numericCol bool
	}
	none := math.NaN()
	wants := []want{
		{1, "-2", "1.5", -0.25, math.Sqrt(6.125), -2, true},
		{2, "<nil>", "<nil>", none, none, none, true},
		{3, "1.25", "2.50", 1.875, math.Sqrt(0.78125), 1.25, true},
		{3, "<nil>", "<nil>", none, none, none, true},
		{2, "true", "true", none, none, none, false},
		{2, "false", "false", none, none, none, false},
		{6, "<nil>", "<nil>", none, none, none, true},
		{5, "7", "7", 7, 0, 7, true},
	}
	near := func(got *float64, want float64) bool {
		if math.IsNaN(want) {
			return got == nil
		}
		return got != nil && math.Abs(*got-want) <= 1e-12*math.Max(1, math.Abs(want))
	}
	for i, w := range wants {
		c := p.Columns[i]
		if c.Nulls != w.nulls || str(c.Min) != w.min || str(c.Max) != w.max || c.Numeric != w.numericCol {
			t.Errorf("%s: nulls %d min %s max %s numeric %v, want %d %s %s %v", c.Name, c.Nulls, str(c.Min), str(c.Max), c.Numeric, w.nulls, w.min, w.max, w.numericCol)
		}
		if !near(c.Mean, w.mean) || !near(c.StdDev, w.sd) || !near(c.Median, w.median) {
			t.Errorf("%s: mean %v sd %v median %v, want %v %v %v", c.Name, c.Mean, c.StdDev, c.Median, w.mean, w.sd, w.median)
		}
	}
}

// TestProfileWideParallel profiles a table wide enough that the full pass
// holds more aggregates than a row has columns, with the planner told that
// parallel plans cost nothing: a parallel plan would pass each partial
// state as a column and fail (54011), so the pass must stay serial.
func TestProfileWideParallel(t *testing.T) {
	srv := testServer(t)
	schema := srv.schema(t)
	const cols = 600 // 3 aggregates each: 1801 in all
	defs := make([]string, cols)
	vals := make([]string, cols)
	for i := range defs {
		defs[i] = fmt.Sprintf("c%d int", i)
		vals[i] = fmt.Sprintf("CASE WHEN g %% %d = 0 THEN NULL ELSE g %% 1000 END", i+2)
	}
	name := pgx.Identifier{schema, "wide_parallel"}.Sanitize()
	srv.exec(t, "CREATE TABLE "+name+" ("+strings.Join(defs, ", ")+")")
	srv.exec(t, "INSERT INTO "+name+" SELECT "+strings.Join(vals, ", ")+" FROM generate_series(1, 3000) g")
	srv.exec(t, "ANALYZE "+name)
	src := srv.open(t, schema, func(c *pgx.ConnConfig) {
		c.RuntimeParams["parallel_setup_cost"] = "0"
		c.RuntimeParams["parallel_tuple_cost"] = "0"
		c.RuntimeParams["min_parallel_table_scan_size"] = "0"
	})
	p, err := src.Profile(context.Background(), "wide_parallel", nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rows != 3000 || len(p.Columns) != cols {
		t.Fatalf("%d rows, %d columns", p.Rows, len(p.Columns))
	}
	// c0 is null on even g: 1500 nulls; c599 on multiples of 601: 4.
	if c := p.Columns[0]; c.Nulls != 1500 || *c.Max != "999" {
		t.Errorf("c0: nulls %d max %s, want 1500 999", c.Nulls, *c.Max)
	}
	if c := p.Columns[cols-1]; c.Nulls != 4 || *c.Min != "0" {
		t.Errorf("c599: nulls %d min %s, want 4 0", c.Nulls, *c.Min)
	}
}
