package corrections

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/zeebo/xxh3"
)

// slowDedupe is the oracle: a row stays when no row before it (keep first)
// or after it (keep last) has the same key.
func slowDedupe(rows table, keys []int, last bool) table {
	key := func(r []string) string {
		if keys == nil {
			return strings.Join(r, "\x01")
		}
		var parts []string
		for _, k := range keys {
			parts = append(parts, r[k])
		}
		return strings.Join(parts, "\x01")
	}
	var out table
	for i, r := range rows {
		dup := false
		others := rows[:i]
		if last {
			others = rows[i+1:]
		}
		for _, o := range others {
			dup = dup || key(o) == key(r)
		}
		if !dup {
			out = append(out, r)
		}
	}
	return out
}

func TestDedupe(t *testing.T) {
	cols := []string{"id", "name", "city"}
	rows := table{
		{"1", "ann", "paris"},
		{"2", "bob", "rome"},
		{"1", "ann", "paris"},
		{"3", "ann", "paris"},
		{"4", "bob", N},
		{"5", "bob", ""},
		{"4", "bob", N},
		{"6", "cy", "oslo"},
		{"2", "bob", "rome"},
	}
	for _, c := range []struct {
		strategy string
		params   map[string]any
		keys     []int
		want     table
	}{
		{StrategyExact, nil, nil, table{rows[0], rows[1], rows[3], rows[4], rows[5], rows[7]}},
		{StrategyExact, map[string]any{"keep": "last"}, nil, table{rows[2], rows[3], rows[5], rows[6], rows[7], rows[8]}},
		{StrategyKeys, map[string]any{"columns": []any{"name", "city"}}, []int{1, 2}, table{rows[0], rows[1], rows[4], rows[5], rows[7]}},
		{StrategyKeys, map[string]any{"columns": []any{"name", "city"}, "keep": "last"}, []int{1, 2}, table{rows[3], rows[5], rows[6], rows[7], rows[8]}},
		{StrategyKeys, map[string]any{"columns": []any{"id"}, "keep": "first"}, []int{0}, table{rows[0], rows[1], rows[3], rows[4], rows[5], rows[7]}},
	} {
		t.Run(fmt.Sprint(c.strategy, c.params), func(t *testing.T) {
			got, res := run(t, cols, rows, step("d", TypeDedupe, "", c.strategy, c.params))
			equalTables(t, got, c.want)
			equalTables(t, slowDedupe(rows, c.keys, c.params["keep"] == "last"), c.want)
			if res.Changes[0].RowsRemoved != int64(len(rows)-len(c.want)) || res.RowsOut != int64(len(c.want)) || res.Rows != int64(len(rows)) {
				t.Fatalf("counts %+v", res)
			}
		})
	}
}

// Many rows, through the table's growth, against the oracle; keys that
// earlier steps make equal are duplicates.
func TestDedupeManyRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	cols := []string{"k", "v"}
	var rows table
	for range 2000 {
		rows = append(rows, []string{fmt.Sprintf(" %d", rng.IntN(1600)), fmt.Sprint(rng.IntN(2))})
	}
	trimmed := make(table, len(rows))
	for i, r := range rows {
		trimmed[i] = []string{strings.TrimSpace(r[0]), r[1]}
	}
	for _, last := range []bool{false, true} {
		params := map[string]any{"columns": []any{"k"}, "keep": map[bool]string{false: "first", true: "last"}[last]}
		got, _ := run(t, cols, rows, fix("k", StrategyTrim, nil), step("d", TypeDedupe, "", StrategyKeys, params))
		equalTables(t, got, slowDedupe(trimmed, []int{0}, last))
	}
}

func TestDedupeBudget(t *testing.T) {
	cols := []string{"k"}
	var rows table
	for i := range 5000 {
		rows = append(rows, []string{fmt.Sprint(i)})
	}
	for _, keep := range []string{"first", "last"} {
		opt := Options{DedupeMemoryBudget: 64 << 10}
		_, _, err := tryRun(cols, rows, opt, step("d", TypeDedupe, "", StrategyExact, map[string]any{"keep": keep}))
		var re *RowError
		if !errors.Is(err, ErrDedupeBudget) || !errors.As(err, &re) || re.StepID != "d" || re.Row == 0 {
			t.Fatalf("keep %s: got %v, want ErrDedupeBudget on a row", keep, err)
		}
		opt.DedupeMemoryBudget = 1 << 20
		if _, _, err := tryRun(cols, rows, opt, step("d", TypeDedupe, "", StrategyExact, map[string]any{"keep": keep})); err != nil {
			t.Fatalf("keep %s within budget: %v", keep, err)
		}
	}
}

func TestKeyTable(t *testing.T) {
	tab := newKeyTable(1<<30, true)
	var keys []xxh3.Uint128
	for i := range 10000 {
		keys = append(keys, xxh3.Hash128([]byte(fmt.Sprint(i))))
	}
	keys = append(keys, xxh3.Uint128{}, xxh3.Uint128{Lo: 1 << 20}) // the empty mark, and one that probes past the end
	for i, k := range keys {
		j, found, err := tab.insert(k)
		if err != nil || found {
			t.Fatalf("insert %d: found %v, %v", i, found, err)
		}
		tab.idx[j] = int64(i)
	}
	for i, k := range keys {
		j, found := tab.find(k)
		if !found || tab.idx[j] != int64(i) {
			t.Fatalf("find %d: %v %d", i, found, tab.idx[j])
		}
	}
	if tab.n != len(keys) || len(tab.keys) < len(keys)*4/3 || slices.Index(keys, xxh3.Uint128{Hi: 1}) >= 0 {
		t.Fatalf("%d keys in %d slots", tab.n, len(tab.keys))
	}
	if _, found := tab.find(xxh3.Uint128{Hi: 1}); found {
		t.Fatal("found a key never inserted")
	}
}
