package snowflake

// The conformance suite (connectortest) run against the FAKE Snowflake of
// snowflake_test.go: Snowflake cannot run here. For this test the fake
// holds connectortest's fixture tables (in schema PUBLIC, names as the
// fixture spells them) and evaluates the connector's own SQL shapes over
// them in Go (catalogue queries, the profile query's select-list items
// one by one, SAMPLE (n ROWS)), so it checks the decoding and the metric
// conventions against the suite's oracle, not Snowflake's SQL semantics
// (APPROX_PERCENTILE is played by the exact lower quantile).

import (
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

var (
	sfFromRe  = regexp.MustCompile(` FROM "PUBLIC"\."([^"]+)"`)
	sfItemSep = regexp.MustCompile(` AS M\d+(?:, |$)`)
	sfColRe   = regexp.MustCompile(`"([^"]+)"`)
	sfLimitRe = regexp.MustCompile(`SAMPLE \((\d+) ROWS\)$`)
	sfFracRe  = regexp.MustCompile(`, (0\.\d+)\)$`)
)

var sfType = map[connectortest.ColumnType][2]string{ // catalogue type, wire type
	connectortest.Integer: {"NUMBER", "fixed"}, connectortest.Float: {"FLOAT", "real"},
	connectortest.Text: {"TEXT", "text"}, connectortest.Boolean: {"BOOLEAN", "boolean"},
}

func sfText(v any) *string {
	switch x := v.(type) {
	case nil:
		return nil
	case float64:
		return sp(strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		if x {
			return sp("1")
		}
		return sp("0")
	}
	return sp(fmt.Sprint(v))
}

func evalAnswer(tables map[string]connectortest.Table) func(r *http.Request, q query) (*result, string) {
	return func(r *http.Request, q query) (*result, string) {
		switch {
		case strings.Contains(q.SQL, "INFORMATION_SCHEMA.COLUMNS"):
			// Before the TABLES case: columnsQuery joins both.
			res := &result{cols: columnsCols}
			for _, c := range tables[q.Args[2]].Columns {
				res.rows = append(res.rows, []*string{sp("PUBLIC"), sp(c.Name), sp(sfType[c.Type][0]), sp("BASE TABLE")})
			}
			return res, ""
		case strings.Contains(q.SQL, "INFORMATION_SCHEMA.TABLES"):
			res := &result{cols: []col{{"TABLE_SCHEMA", "text"}, {"TABLE_NAME", "text"}, {"ROW_COUNT", "fixed"}, {"BYTES", "fixed"}}}
			for _, name := range slices.Sorted(maps.Keys(tables)) {
				res.rows = append(res.rows, []*string{sp("PUBLIC"), sp(name), sp(strconv.Itoa(len(tables[name].Rows))), sp("100")})
			}
			return res, ""
		case strings.Contains(q.SQL, "INFORMATION_SCHEMA.SCHEMATA"):
			return &result{cols: []col{{"SCHEMA_NAME", "text"}}, rows: [][]*string{{sp("PUBLIC")}}}, ""
		}
		m := sfFromRe.FindStringSubmatchIndex(q.SQL)
		if m == nil {
			return nil, "001003"
		}
		tb, ok := tables[q.SQL[m[2]:m[3]]]
		if !ok {
			return nil, "002003"
		}
		if strings.HasPrefix(q.SQL, "SELECT * FROM") {
			limit, _ := strconv.Atoi(sfLimitRe.FindStringSubmatch(q.SQL)[1])
			res := &result{}
			for _, c := range tb.Columns {
				res.cols = append(res.cols, col{c.Name, sfType[c.Type][1]})
			}
			for _, row := range tb.Rows[:min(limit, len(tb.Rows))] {
				out := make([]*string, len(row))
				for i, v := range row {
					out[i] = sfText(v)
				}
				res.rows = append(res.rows, out)
			}
			return res, ""
		}
		exprs := sfItemSep.Split(strings.TrimPrefix(q.SQL[:m[0]], "SELECT "), -1)
		exprs = slices.DeleteFunc(exprs, func(s string) bool { return s == "" })
		res := &result{}
		out := make([]*string, len(exprs))
		arg := 0
		for i, e := range exprs {
			res.cols = append(res.cols, col{fmt.Sprint("M", i), "text"})
			if e == "COUNT(*)" {
				out[i] = sp(strconv.Itoa(len(tb.Rows)))
				continue
			}
			name := sfColRe.FindStringSubmatch(e)[1]
			ci := slices.IndexFunc(tb.Columns, func(c connectortest.Column) bool { return c.Name == name })
			var vals []any
			for _, row := range tb.Rows {
				vals = append(vals, row[ci])
			}
			re := ""
			if strings.Contains(e, "REGEXP_LIKE(") {
				re = q.Args[arg]
				arg++
			}
			out[i] = sfEval(e, vals, re)
		}
		res.rows = [][]*string{out}
		return res, ""
	}
}

func sfEval(e string, vals []any, re string) *string {
	var nonNull []any
	var nums []float64
	for _, v := range vals {
		if v == nil {
			continue
		}
		nonNull = append(nonNull, v)
		switch x := v.(type) {
		case int64:
			nums = append(nums, float64(x))
		case float64:
			nums = append(nums, x)
		}
	}
	slices.Sort(nums)
	blank := func(v any) bool { s, ok := v.(string); return ok && connectortest.IsBlank(s) }
	count := func(keep func(any) bool) *string {
		n := 0
		for _, v := range nonNull {
			if keep(v) {
				n++
			}
		}
		return sp(strconv.Itoa(n))
	}
	switch {
	case strings.HasSuffix(e, " IS NULL)"):
		return sp(strconv.Itoa(len(vals) - len(nonNull)))
	case strings.HasPrefix(e, "COUNT_IF(TRIM(") && strings.HasSuffix(e, ") = '')"):
		return count(blank)
	case strings.Contains(e, "REGEXP_LIKE("):
		rx := regexp.MustCompile(re)
		return count(func(v any) bool {
			t := fmt.Sprint(v)
			if b, ok := v.(bool); ok {
				t = strconv.FormatBool(b)
			} else if f, ok := v.(float64); ok {
				t = strconv.FormatFloat(f, 'g', -1, 64)
			}
			return !blank(v) && rx.MatchString(t)
		})
	case strings.HasPrefix(e, "APPROX_COUNT_DISTINCT("):
		seen := map[any]bool{}
		for _, v := range nonNull {
			seen[v] = true
		}
		return sp(strconv.Itoa(len(seen)))
	case strings.HasPrefix(e, "MIN(IFF(") || strings.HasPrefix(e, "MAX(IFF("):
		var best *string
		for _, v := range nonNull {
			s := v.(string)
			if blank(v) {
				continue
			}
			if best == nil || (strings.HasPrefix(e, "MIN") && s < *best) || (strings.HasPrefix(e, "MAX") && s > *best) {
				best = &s
			}
		}
		return best
	case strings.HasPrefix(e, "TO_VARCHAR(BOOLAND_AGG(") || strings.HasPrefix(e, "TO_VARCHAR(BOOLOR_AGG("):
		if len(nonNull) == 0 {
			return nil
		}
		and, or := true, false
		for _, v := range nonNull {
			and, or = and && v.(bool), or || v.(bool)
		}
		if strings.Contains(e, "BOOLAND") {
			return sp(strconv.FormatBool(and))
		}
		return sp(strconv.FormatBool(or))
	case strings.HasPrefix(e, "TO_VARCHAR(MIN(") || strings.HasPrefix(e, "TO_VARCHAR(MAX("):
		if len(nums) == 0 {
			return nil
		}
		pick := nums[0]
		if strings.HasPrefix(e, "TO_VARCHAR(MAX") {
			pick = nums[len(nums)-1]
		}
		if _, ok := nonNull[0].(int64); ok {
			return sp(strconv.FormatInt(int64(pick), 10))
		}
		return sp(strconv.FormatFloat(pick, 'g', -1, 64))
	case strings.HasPrefix(e, "AVG("), strings.HasPrefix(e, "STDDEV_SAMP("):
		if len(nums) == 0 || (len(nums) == 1 && strings.HasPrefix(e, "STDDEV")) {
			return nil
		}
		mean, sd := connectortest.MeanStdDev(nums)
		if strings.HasPrefix(e, "AVG") {
			return sp(strconv.FormatFloat(mean, 'g', -1, 64))
		}
		return sp(strconv.FormatFloat(sd, 'g', -1, 64))
	case strings.HasPrefix(e, "APPROX_PERCENTILE("):
		if len(nums) == 0 {
			return nil
		}
		q, _ := strconv.ParseFloat(sfFracRe.FindStringSubmatch(e)[1], 64)
		return sp(strconv.FormatFloat(connectortest.LowerQuantile(nums, q), 'g', -1, 64))
	}
	panic("fake cannot evaluate " + e)
}

func TestConformance(t *testing.T) {
	tables := connectortest.Fixture()
	byName := map[string]connectortest.Table{}
	for _, tb := range tables {
		byName[tb.Name] = tb
	}
	f := newFake(t)
	f.answer = evalAnswer(byName)
	connectortest.RunTableSource(t, func(t *testing.T) connectors.TableSource {
		s, err := open(t.Context(), connectors.Options{Credentials: creds(nil), Dialer: &connectortest.CountingDialer{}, Timeout: 10 * time.Second}, fakeEndpoint(t, f.srv.URL))
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		return s
	}, tables)
}
