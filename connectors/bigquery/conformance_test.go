package bigquery

// The conformance suite (connectortest) run against a FAKE of BigQuery:
// BigQuery cannot run here. This fake holds connectortest's fixture
// tables and evaluates the connector's own SQL shapes over them in Go
// (the profile query's select-list items one by one, the sample's ORDER BY
// RAND() LIMIT n, __TABLES__), so it checks the decoding and the metric
// conventions (blanks, format conformance, quantile positions) against the
// suite's oracle, not BigQuery's SQL semantics.

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/connectortest"
)

type evalFake struct {
	srv    *httptest.Server
	tables map[string]connectortest.Table
}

var bqType = map[connectortest.ColumnType]string{
	connectortest.Integer: "INTEGER", connectortest.Float: "FLOAT", connectortest.Text: "STRING", connectortest.Boolean: "BOOLEAN",
}

func (f *evalFake) serve(w http.ResponseWriter, r *http.Request) {
	if !(&fake{}).authorized(r) {
		apiError(w, 401, "unauthorized", "invalid credentials")
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/bigquery/v2/"), "/")
	switch {
	case r.Method == "GET" && len(parts) == 6 && parts[4] == "tables":
		tb, ok := f.tables[parts[5]]
		if !ok {
			apiError(w, 404, "notFound", "Not found: Table")
			return
		}
		var fields []map[string]string
		for _, c := range tb.Columns {
			fields = append(fields, map[string]string{"name": c.Name, "type": bqType[c.Type]})
		}
		writeJSON(w, 200, map[string]any{"schema": map[string]any{"fields": fields}, "numRows": fmt.Sprint(len(tb.Rows)), "type": "TABLE"})
	case r.Method == "POST" && len(parts) == 3 && parts[2] == "queries":
		var req struct {
			Query           string `json:"query"`
			QueryParameters []struct {
				Name           string
				ParameterValue struct{ Value string } `json:"parameterValue"`
			} `json:"queryParameters"`
		}
		if err := decodeJSON(r, &req); err != nil {
			apiError(w, 400, "invalid", "bad body")
			return
		}
		params := map[string]string{}
		for _, p := range req.QueryParameters {
			params[p.Name] = p.ParameterValue.Value
		}
		select {
		case <-r.Context().Done():
			return
		default:
		}
		f.query(w, req.Query, params)
	case r.Method == "GET" && getQueryResults(w, parts):
	default:
		apiError(w, 404, "notFound", "no such method")
	}
}

var (
	fromRe   = regexp.MustCompile(" FROM `proj`\\.`ds`\\.`([^`]+)`")
	itemSep  = regexp.MustCompile(` AS (?:m\d+|` + "`[^`]+`" + `)(?:, |$)`)
	colRe    = regexp.MustCompile("`([^`]+)`")
	limitRe  = regexp.MustCompile(`LIMIT (\d+)$`)
	paramRef = regexp.MustCompile(`@(\w+)\)\)$`)
)

func (f *evalFake) query(w http.ResponseWriter, sql string, params map[string]string) {
	if strings.Contains(sql, "__TABLES__") {
		var rows [][]any
		for _, name := range slices.Sorted(maps.Keys(f.tables)) {
			rows = append(rows, []any{name, int64(len(f.tables[name].Rows)), int64(100), int64(1)})
		}
		queryResult(w, []string{"table_id", "row_count", "size_bytes", "type"}, rows)
		return
	}
	m := fromRe.FindStringSubmatchIndex(sql)
	if m == nil {
		apiError(w, 400, "invalidQuery", "unexpected SQL")
		return
	}
	tb, ok := f.tables[sql[m[2]:m[3]]]
	if !ok {
		apiError(w, 404, "notFound", "Not found: Table")
		return
	}
	exprs := itemSep.Split(strings.TrimPrefix(sql[:m[0]], "SELECT "), -1)
	exprs = slices.DeleteFunc(exprs, func(s string) bool { return s == "" })
	colIndex := func(e string) int {
		name := colRe.FindStringSubmatch(e)[1]
		return slices.IndexFunc(tb.Columns, func(c connectortest.Column) bool { return c.Name == name })
	}
	if strings.Contains(sql, "ORDER BY RAND()") {
		limit, _ := strconv.Atoi(limitRe.FindStringSubmatch(sql)[1])
		var rows [][]any
		for _, row := range tb.Rows[:min(limit, len(tb.Rows))] {
			out := make([]any, len(exprs))
			for i, e := range exprs {
				if v := row[colIndex(e)]; v != nil {
					out[i] = text(v)
				}
			}
			rows = append(rows, out)
		}
		names := make([]string, len(exprs))
		for i := range names {
			names[i] = fmt.Sprint("c", i)
		}
		queryResult(w, names, rows)
		return
	}
	out := make([]any, len(exprs))
	for i, e := range exprs {
		if e == "COUNT(*)" {
			out[i] = int64(len(tb.Rows))
			continue
		}
		ci := colIndex(e)
		var vals []any
		for _, row := range tb.Rows {
			vals = append(vals, row[ci])
		}
		out[i] = eval(e, vals, params)
	}
	names := make([]string, len(out))
	for i := range names {
		names[i] = fmt.Sprint("m", i)
	}
	queryResult(w, names, [][]any{out})
}

func text(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

func num(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}

// eval computes one select-list item over a column's values.
func eval(e string, vals []any, params map[string]string) any {
	var nonNull []any
	var nums []float64
	for _, v := range vals {
		if v != nil {
			nonNull = append(nonNull, v)
			if f := num(v); !math.IsNaN(f) {
				nums = append(nums, f)
			}
		}
	}
	slices.Sort(nums)
	blank := func(v any) bool { s, ok := v.(string); return ok && connectortest.IsBlank(s) }
	switch {
	case strings.HasSuffix(e, " IS NULL)"):
		return int64(len(vals) - len(nonNull))
	case strings.HasPrefix(e, "COUNTIF(TRIM(") && strings.HasSuffix(e, ") = '')"):
		n := int64(0)
		for _, v := range nonNull {
			if blank(v) {
				n++
			}
		}
		return n
	case strings.HasPrefix(e, "APPROX_COUNT_DISTINCT("):
		seen := map[any]bool{}
		for _, v := range nonNull {
			seen[v] = true
		}
		return int64(len(seen))
	case strings.HasPrefix(e, "MIN(IF(") || strings.HasPrefix(e, "MAX(IF("):
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
		if best == nil {
			return nil
		}
		return *best
	case strings.HasPrefix(e, "CAST(MIN(") || strings.HasPrefix(e, "CAST(MAX("):
		if len(nonNull) == 0 {
			return nil
		}
		if _, ok := nonNull[0].(bool); ok {
			lo, hi := true, false
			for _, v := range nonNull {
				lo, hi = lo && v.(bool), hi || v.(bool)
			}
			if strings.HasPrefix(e, "CAST(MIN") {
				return strconv.FormatBool(lo)
			}
			return strconv.FormatBool(hi)
		}
		pick := nums[0]
		if strings.HasPrefix(e, "CAST(MAX") {
			pick = nums[len(nums)-1]
		}
		if _, ok := nonNull[0].(int64); ok {
			return strconv.FormatInt(int64(pick), 10)
		}
		return text(pick)
	case strings.HasPrefix(e, "AVG("), strings.HasPrefix(e, "STDDEV_SAMP("):
		if len(nums) == 0 || (len(nums) == 1 && strings.HasPrefix(e, "STDDEV")) {
			return nil
		}
		mean, sd := connectortest.MeanStdDev(nums)
		if strings.HasPrefix(e, "AVG") {
			return mean
		}
		return sd
	case strings.HasPrefix(e, "APPROX_QUANTILES("):
		if len(nums) == 0 {
			return []float64(nil)
		}
		qs := make([]float64, 101)
		for k := range qs {
			qs[k] = nums[int(math.Round(float64(k)*float64(len(nums)-1)/100))]
		}
		return qs
	case strings.Contains(e, "REGEXP_CONTAINS("):
		re := regexp.MustCompile(params[paramRef.FindStringSubmatch(e)[1]])
		n := int64(0)
		for _, v := range nonNull {
			if !blank(v) && re.MatchString(text(v)) {
				n++
			}
		}
		return n
	}
	panic("fake cannot evaluate " + e)
}

func TestConformance(t *testing.T) {
	tables := connectortest.Fixture()
	f := &evalFake{tables: map[string]connectortest.Table{}}
	for _, tb := range tables {
		f.tables[tb.Name] = tb
	}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	defer f.srv.Close()
	sa := serviceAccount(t, "good")
	connectortest.RunTableSource(t, func(t *testing.T) connectors.TableSource {
		s, err := open(context.Background(), connectors.Options{
			Credentials: connectors.Credentials{"project_id": "proj", "dataset": "ds", "service_account_json": sa},
			Dialer:      &connectortest.CountingDialer{},
			Timeout:     10 * time.Second,
		}, f.srv.URL+"/bigquery/v2/")
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		return s
	}, tables)
}

func decodeJSON(r *http.Request, v any) error { return json.NewDecoder(r.Body).Decode(v) }
