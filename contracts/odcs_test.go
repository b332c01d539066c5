package contracts

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// wantSkip is an expected Skipped entry: Path, Column and Check exactly,
// and a phrase of the reason.
type wantSkip struct {
	path, column, check, reason string
}

func checkSkipped(t *testing.T, got []Skipped, want []wantSkip) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d skipped, want %d:\n%s", len(got), len(want), dumpSkipped(got))
		return
	}
	for i, w := range want {
		g := got[i]
		if g.Path != w.path || g.Column != w.column || g.Check != w.check || !strings.Contains(g.Reason, w.reason) {
			t.Errorf("skipped[%d] = %+v, want %+v", i, g, w)
		}
	}
}

func dumpSkipped(s []Skipped) string {
	var b strings.Builder
	for _, x := range s {
		fmt.Fprintf(&b, "  %s [%s] %s: %s\n", x.Path, x.Column, x.Check, x.Reason)
	}
	return b.String()
}

func TestImportOrdersDocument(t *testing.T) {
	doc, err := os.ReadFile("testdata/orders.odcs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	im, err := Import(doc, "orders")
	if err != nil {
		t.Fatal(err)
	}
	wantRules := []Rule{
		{Metric: "row_count", Operator: ">=", Threshold: 1000, Severity: "critical"},
		{Metric: "row_count", Operator: "<=", Threshold: 5000000, Severity: "critical"},
		{Metric: "row_count", Operator: ">", Threshold: 10, Severity: "warning"},
		{Metric: "null_rate", Column: "order_id", Operator: "==", Threshold: 0, Severity: "warning"},
		{Metric: "null_rate", Column: "email", Operator: "<", Threshold: 0.01, Severity: "warning"},
		{Metric: "null_rate", Column: "status", Operator: "<=", Threshold: 0.005, Severity: "info"},
		{Metric: "mean", Column: "amount", Operator: ">=", Threshold: 10, Severity: "critical"},
		{Metric: "null_rate", Column: "amount", Operator: "<", Threshold: 0.05, Severity: "warning"},
	}
	want := Contract{Name: "Web shop orders", TableName: "orders", Rules: wantRules}
	if !reflect.DeepEqual(im.Contract, want) {
		t.Errorf("contract\n got %+v\nwant %+v", im.Contract, want)
	}
	if err := im.Contract.Validate(); err != nil {
		t.Error(err)
	}
	checkSkipped(t, im.Skipped, []wantSkip{
		{"schema[0].quality[1]", "", "sql", "runs its own query"},
		{"schema[0].quality[2]", "", "duplicateValues", "across several properties"},
		{"schema[0].quality[3]", "", "text", "for people"},
		{"schema[0].properties[0].quality[1]", "order_id", "duplicateValues", "distinct_count, an approximate count"},
		{"schema[0].properties[1].quality[1]", "email", "missingValues", `"", "N/A", "n/a" as missing besides nulls`},
		{"schema[0].properties[1].quality[2]", "email", "invalidValues", "regular expression"},
		{"schema[0].properties[2].quality[0]", "status", "invalidValues", "against a list"},
		{"schema[0].properties[3].quality[0]", "amount", "custom (soda)", `engine "soda"`},
		{"schema[0].properties[3].quality[2]", "amount", "nullValues", "unit: percent"},
		{"schema[0].properties[4].properties[0].quality[0]", "zip", "nullValues", "top-level columns"},
	})
	wantNotes := []Note{{Path: "schema[0].properties[3].quality[3]", Note: `severity "urgent" is not info, warning or error: read as warning`}}
	if !reflect.DeepEqual(im.Notes, wantNotes) {
		t.Errorf("notes %+v", im.Notes)
	}

	// The same document as JSON reads the same.
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	fromJSON, err := Import(js, "orders")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fromJSON, im) {
		t.Errorf("JSON reads differently:\n%+v\n%+v", fromJSON, im)
	}

	// The other table, by name; evaluated against a scan.
	cu, err := Import(doc, "customers")
	if err != nil {
		t.Fatal(err)
	}
	if want := []Rule{{Metric: "row_count", Operator: ">", Threshold: 0, Severity: "warning"}}; !reflect.DeepEqual(cu.Contract.Rules, want) || len(cu.Skipped) != 0 {
		t.Errorf("customers: %+v", cu)
	}
	m := scanMetrics()
	m.Set("order_id", "null_rate", 0)
	ev := Evaluate(im.Contract.Rules, m)
	if ev.Evaluated+ev.Skipped != len(wantRules) {
		t.Errorf("%+v", ev)
	}
}

func TestImportSelectsTheTable(t *testing.T) {
	two := `apiVersion: v3.1.0
kind: DataContract
id: x
version: 1.0.0
status: draft
schema:
  - name: Orders
    physicalName: tbl_orders
    quality: [{metric: rowCount, mustBeGreaterThan: 0}]
  - name: lines
    quality: [{metric: rowCount, mustBeGreaterThan: 5}]
`
	for _, tc := range []struct {
		table, want, err string
	}{
		{"Orders", "tbl_orders", ""},
		{"tbl_orders", "tbl_orders", ""},
		{"lines", "lines", ""},
		{"orders", "", `no schema object is named "orders"; the document has "Orders", "lines"`},
		{"", "", `2 schema objects ("Orders", "lines"); name the table`},
	} {
		im, err := Import([]byte(two), tc.table)
		if tc.err != "" {
			if err == nil || !errors.Is(err, ErrODCS) || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: got %v, want %q", tc.table, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if im.Contract.TableName != tc.want || im.Contract.Name != "x" {
			t.Errorf("%q: %+v", tc.table, im.Contract)
		}
	}
	one := "schema:\n  - name: only\n    quality:\n      - metric: rowCount\n        mustBe: 7\n"
	im, err := Import([]byte(one), "")
	if err != nil || im.Contract.TableName != "only" || im.Contract.Name != "only" || len(im.Contract.Rules) != 1 {
		t.Errorf("%+v %v", im, err)
	}
}

func TestImportRejects(t *testing.T) {
	cases := []struct {
		doc, table, err string
	}{
		{"", "", "empty"},
		{"  \n", "", "empty"},
		{"- a\n- b\n", "", "is a list, not a mapping"},
		{"just text", "", "is a string"},
		{"apiVersion: v2.2.2\nschema: [{name: t}]\n", "", `apiVersion "v2.2.2"`},
		{"apiVersion: v3.1.0\nkind: DataProduct\nschema: [{name: t}]\n", "", `kind "DataProduct"`},
		{"apiVersion: v3.1.0\n", "", "no schema objects"},
		{"schema: []\n", "", "no schema objects"},
		{"schema: {name: t}\n", "", "no schema objects"},
		{"a: [\n", "", "not YAML or JSON"},
		{"schema: [{name: t}]\nschema: []\n", "", "duplicate key"},
		{`{"schema": [{"name": "t"}], "schema": []}`, "", "duplicate key"},
		{"base: &b {name: t}\nschema: [*b]\n", "", "aliases are not supported"},
		{"x: &b {name: t}\nschema:\n  - <<: *b\n", "", "not supported"},
		{"schema: [{name: t}, {name: t}]\n", "t", "several schema objects"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "", "nested more than 64"},
		{`{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}", "", "nested more than 64"},
	}
	for _, tc := range cases {
		_, err := Import([]byte(tc.doc), tc.table)
		if err == nil || !errors.Is(err, ErrODCS) || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%.40q: got %v, want %q", tc.doc, err, tc.err)
		}
	}
	big := make([]byte, MaxODCSBytes+1)
	if _, err := Import(big, ""); !errors.Is(err, ErrTooLarge) {
		t.Errorf("big: %v", err)
	}
	// Too many rules for one contract.
	var b strings.Builder
	b.WriteString("schema:\n  - name: t\n    quality:\n")
	for range MaxRules + 1 {
		b.WriteString("      - {metric: rowCount, mustBeGreaterThan: 1}\n")
	}
	if _, err := Import([]byte(b.String()), ""); err == nil || !strings.Contains(err.Error(), "201 rules, more than 200") {
		t.Errorf("rules: %v", err)
	}
}

// item imports one quality item at property level (column "c") or,
// with level "schema", at schema level.
func item(t *testing.T, level, yamlItem string) *Imported {
	t.Helper()
	indent := func(s, pad string) string {
		return pad + strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n"+pad+"  ")
	}
	doc := "apiVersion: v3.0.2\nkind: DataContract\nid: t\nschema:\n  - name: t\n"
	if level == "schema" {
		doc += "    quality:\n" + indent("- "+yamlItem, "      ") + "\n"
	} else {
		doc += "    properties:\n      - name: c\n        quality:\n" + indent("- "+yamlItem, "          ") + "\n"
	}
	im, err := Import([]byte(doc), "t")
	if err != nil {
		t.Fatalf("%s\n%v", doc, err)
	}
	return im
}

func TestImportItems(t *testing.T) {
	r := func(metric, col, op string, th float64, sev string) Rule {
		return Rule{Metric: metric, Column: col, Operator: op, Threshold: th, Severity: sev}
	}
	w := "warning"
	cases := []struct {
		name, level, item string
		rules             []Rule
		skip              string // a phrase of the reason, "" when imported
	}{
		// rowCount
		{"rowCount mustBe", "schema", "metric: rowCount\nmustBe: 100", []Rule{r("row_count", "", "==", 100, w)}, ""},
		{"rowCount each operator", "schema", "metric: rowCount\nmustNotBe: 1\nmustBeGreaterThan: 2\nmustBeGreaterOrEqualTo: 3\nmustBeLessThan: 40\nmustBeLessOrEqualTo: 50",
			[]Rule{r("row_count", "", "!=", 1, w), r("row_count", "", ">", 2, w), r("row_count", "", ">=", 3, w), r("row_count", "", "<", 40, w), r("row_count", "", "<=", 50, w)}, ""},
		{"rowCount between", "schema", "metric: rowCount\nmustBeBetween: [100, 120]", []Rule{r("row_count", "", ">=", 100, w), r("row_count", "", "<=", 120, w)}, ""},
		{"rowCount not between from 0", "schema", "metric: rowCount\nmustNotBeBetween: [0, 99]", []Rule{r("row_count", "", ">", 99, w)}, ""},
		{"rowCount not between", "schema", "metric: rowCount\nmustNotBeBetween: [10, 99]", nil, `"or" cannot be written`},
		{"rowCount deprecated rule key", "schema", "rule: rowCount\nmustBeGreaterThan: 0", []Rule{r("row_count", "", ">", 0, w)}, ""},
		{"rowCount type library", "schema", "type: library\nmetric: rowCount\nmustBeGreaterThan: 0\nunit: rows", []Rule{r("row_count", "", ">", 0, w)}, ""},
		{"rowCount percent", "schema", "metric: rowCount\nmustBeGreaterThan: 0\nunit: percent", nil, "percent of it has no meaning"},
		{"rowCount at property", "property", "metric: rowCount\nmustBeGreaterThan: 0", nil, "schema-level metric"},
		{"rowCount negative", "schema", "metric: rowCount\nmustBeGreaterThan: -1", nil, "threshold: row_count cannot be negative"},
		{"rowCount string", "schema", "metric: rowCount\nmustBe: many", nil, "compared with a number, not a string"},
		{"rowCount no operator", "schema", "metric: rowCount\ndescription: rows", nil, "no operator"},
		{"rowCount unknown operator", "schema", "metric: rowCount\nmustBeAtLeast: 4", nil, `unknown operator "mustBeAtLeast"`},
		{"rowCount between one", "schema", "metric: rowCount\nmustBeBetween: [4]", nil, "list of two numbers"},
		{"rowCount between reversed", "schema", "metric: rowCount\nmustBeBetween: [9, 4]", nil, "smaller bound comes first"},
		{"rowCount inf", "schema", "metric: rowCount\nmustBeLessThan: .inf", nil, "not a finite number"},
		{"rowCount huge", "schema", "metric: rowCount\nmustBeLessThan: 1e999", nil, "compared with a number"},
		{"rowCount hex", "schema", "metric: rowCount\nmustBe: 0x10", []Rule{r("row_count", "", "==", 16, w)}, ""},
		{"severity error", "schema", "metric: rowCount\nmustBe: 1\nseverity: error", []Rule{r("row_count", "", "==", 1, "critical")}, ""},
		{"severity Critical", "schema", "metric: rowCount\nmustBe: 1\nseverity: Critical", []Rule{r("row_count", "", "==", 1, "critical")}, ""},
		{"severity info", "schema", "metric: rowCount\nmustBe: 1\nseverity: info", []Rule{r("row_count", "", "==", 1, "info")}, ""},
		{"severity warn", "schema", "metric: rowCount\nmustBe: 1\nseverity: warn", []Rule{r("row_count", "", "==", 1, "warning")}, ""},
		{"unit unknown", "schema", "metric: rowCount\nmustBe: 1\nunit: bytes", nil, `unit "bytes"`},
		// nullValues in percent
		{"nulls percent", "property", "metric: nullValues\nmustBeLessThan: 1\nunit: percent", []Rule{r("null_rate", "c", "<", 0.01, w)}, ""},
		{"nulls percent decimal", "property", "metric: nullValues\nmustBeLessOrEqualTo: 0.7\nunit: Percent", []Rule{r("null_rate", "c", "<=", 0.007, w)}, ""},
		{"nulls percent exponent", "property", "metric: nullValues\nmustBeLessOrEqualTo: 1.5e-1\nunit: percent", []Rule{r("null_rate", "c", "<=", 0.0015, w)}, ""},
		{"nulls percent between", "property", "metric: nullValues\nmustBeBetween: [0.5, 7]\nunit: percent", []Rule{r("null_rate", "c", ">=", 0.005, w), r("null_rate", "c", "<=", 0.07, w)}, ""},
		{"nulls percent not between to 100", "property", "metric: nullValues\nmustNotBeBetween: [20, 100]\nunit: percent", []Rule{r("null_rate", "c", "<", 0.2, w)}, ""},
		{"nulls percent not between from 0", "property", "metric: nullValues\nmustNotBeBetween: [0, 3]\nunit: percent", []Rule{r("null_rate", "c", ">", 0.03, w)}, ""},
		{"nulls percent not between", "property", "metric: nullValues\nmustNotBeBetween: [2, 3]\nunit: percent", nil, `"or" cannot be written`},
		{"nulls percent above 100", "property", "metric: nullValues\nmustBeLessThan: 150\nunit: percent", nil, "within [0, 100]"},
		{"nulls percent negative", "property", "metric: nullValues\nmustBeGreaterThan: -1\nunit: percent", nil, "within [0, 100]"},
		{"nulls at schema", "schema", "metric: nullValues\nmustBe: 0", nil, "property-level metric"},
		// nullValues in rows: only "none" and "some" convert
		{"nulls rows mustBe 0", "property", "metric: nullValues\nmustBe: 0", []Rule{r("null_rate", "c", "==", 0, w)}, ""},
		{"nulls rows lt 1", "property", "metric: nullValues\nmustBeLessThan: 1\nunit: rows", []Rule{r("null_rate", "c", "==", 0, w)}, ""},
		{"nulls rows le 0.5", "property", "metric: nullValues\nmustBeLessOrEqualTo: 0.5", []Rule{r("null_rate", "c", "==", 0, w)}, ""},
		{"nulls rows le 0", "property", "metric: nullValues\nmustBeLessOrEqualTo: 0", []Rule{r("null_rate", "c", "==", 0, w)}, ""},
		{"nulls rows between 0 0.9", "property", "metric: nullValues\nmustBeBetween: [0, 0.9]", []Rule{r("null_rate", "c", "==", 0, w)}, ""},
		{"nulls rows mustNotBe 0", "property", "metric: nullValues\nmustNotBe: 0", []Rule{r("null_rate", "c", ">", 0, w)}, ""},
		{"nulls rows gt 0", "property", "metric: nullValues\nmustBeGreaterThan: 0", []Rule{r("null_rate", "c", ">", 0, w)}, ""},
		{"nulls rows ge 1", "property", "metric: nullValues\nmustBeGreaterOrEqualTo: 1", []Rule{r("null_rate", "c", ">", 0, w)}, ""},
		{"nulls rows gt 0.5", "property", "metric: nullValues\nmustBeGreaterThan: 0.5", []Rule{r("null_rate", "c", ">", 0, w)}, ""},
		{"nulls rows mustBe 1", "property", "metric: nullValues\nmustBe: 1", nil, "unit: percent"},
		{"nulls rows lt 5", "property", "metric: nullValues\nmustBeLessThan: 5", nil, "unit: percent"},
		{"nulls rows le 1", "property", "metric: nullValues\nmustBeLessOrEqualTo: 1", nil, "unit: percent"},
		{"nulls rows gt 1", "property", "metric: nullValues\nmustBeGreaterThan: 1", nil, "unit: percent"},
		{"nulls rows between 0 5", "property", "metric: nullValues\nmustBeBetween: [0, 5]", nil, "unit: percent"},
		{"nulls rows not between 0 0", "property", "metric: nullValues\nmustNotBeBetween: [0, 0.5]", []Rule{r("null_rate", "c", ">", 0, w)}, ""},
		{"nulls rows ge 0", "property", "metric: nullValues\nmustBeGreaterOrEqualTo: 0", nil, "nothing to check"},
		{"nulls rows lt 0", "property", "metric: nullValues\nmustBeLessThan: 0", nil, "can never pass"},
		{"nulls rows mustBe 0.5", "property", "metric: nullValues\nmustBe: 0.5", nil, "can never pass"},
		// missingValues
		{"missing no arguments", "property", "metric: missingValues\nmustBe: 0", []Rule{r("null_rate", "c", "==", 0, w)}, ""},
		{"missing only null", "property", "metric: missingValues\narguments:\n  missingValues: [null]\nmustBeLessThan: 2\nunit: percent", []Rule{r("null_rate", "c", "<", 0.02, w)}, ""},
		{"missing empty list", "property", "metric: missingValues\narguments:\n  missingValues: []\nmustBe: 0", []Rule{r("null_rate", "c", "==", 0, w)}, ""},
		{"missing empty string", "property", "metric: missingValues\narguments:\n  missingValues: [null, '']\nmustBe: 0", nil, `counts "" as missing`},
		{"missing not a list", "property", "metric: missingValues\narguments:\n  missingValues: N/A\nmustBe: 0", nil, "is a list"},
		{"missing at schema", "schema", "metric: missingValues\nmustBe: 0", nil, "property-level"},
		// invalidValues, duplicateValues
		{"invalid valid values", "property", "metric: invalidValues\narguments:\n  validValues: [a, b]\nmustBe: 0", nil, "against a list"},
		{"invalid pattern", "property", "metric: invalidValues\narguments:\n  pattern: '^a$'\nmustBe: 0", nil, "regular expression"},
		{"invalid bare", "property", "metric: invalidValues\nmustBe: 0", nil, "needs arguments"},
		{"invalid at schema", "schema", "metric: invalidValues\nmustBe: 0", nil, "property-level"},
		{"duplicates property", "property", "metric: duplicateValues\nmustBe: 0", nil, "exact count of duplicates"},
		{"duplicates percent", "property", "metric: duplicateValues\nmustBeLessThan: 1\nunit: percent", nil, "exact count of duplicates"},
		{"duplicates schema", "schema", "metric: duplicateValues\narguments:\n  properties: [a, b]\nmustBe: 0", nil, "several properties"},
		{"unknown metric", "property", "metric: freshness\nmustBeLessThan: 3", nil, `unknown library metric "freshness"`},
		{"library without metric", "property", "type: library\nmustBe: 0", nil, "names its metric"},
		// other types
		{"text", "property", "type: text\ndescription: emails are verified", nil, "for people"},
		{"description only", "property", "description: emails are verified", nil, "for people"},
		{"sql", "property", "type: sql\nquery: SELECT 1\nmustBe: 1", nil, "runs no contract SQL"},
		{"sql untyped", "schema", "query: SELECT 1\nmustBe: 1", nil, "runs no contract SQL"},
		{"custom great expectations", "schema", "type: custom\nengine: greatExpectations\nimplementation: {}", nil, `engine "greatExpectations"`},
		{"unknown type", "schema", "type: magic\nmustBe: 1", nil, `unknown quality type "magic"`},
		{"not a mapping", "property", "nullValues", nil, "is a mapping"},
		// DQS's own rules
		{"dqs mapping", "property", "type: custom\nengine: dqs\nimplementation: {metric: stddev, operator: '<', threshold: 2.5}", []Rule{r("stddev", "c", "<", 2.5, w)}, ""},
		{"dqs text", "property", "type: custom\nengine: DQS\nseverity: error\nimplementation: |\n  metric: distinct_count\n  operator: '>='\n  threshold: 10", []Rule{r("distinct_count", "c", ">=", 10, "critical")}, ""},
		{"dqs table", "schema", "type: custom\nengine: dqs\nimplementation: {metric: quality_score, operator: '>=', threshold: 80}", []Rule{r("quality_score", "", ">=", 80, w)}, ""},
		{"dqs bad metric", "property", "type: custom\nengine: dqs\nimplementation: {metric: nulls, operator: '<', threshold: 2}", nil, `metric: unknown metric "nulls"`},
		{"dqs table metric at property", "property", "type: custom\nengine: dqs\nimplementation: {metric: row_count, operator: '>', threshold: 2}", nil, "takes no column"},
		{"dqs column metric at schema", "schema", "type: custom\nengine: dqs\nimplementation: {metric: mean, operator: '>', threshold: 2}", nil, "needs a column"},
		{"dqs bad operator", "property", "type: custom\nengine: dqs\nimplementation: {metric: mean, operator: '=>', threshold: 2}", nil, "unknown operator"},
		{"dqs share out of range", "property", "type: custom\nengine: dqs\nimplementation: {metric: empty_rate, operator: '<', threshold: 5}", nil, "share"},
		{"dqs threshold text", "property", "type: custom\nengine: dqs\nimplementation: {metric: mean, operator: '<', threshold: five}", nil, "threshold is a number"},
		{"dqs no implementation", "property", "type: custom\nengine: dqs", nil, "implementation is a mapping"},
		{"dqs bad yaml", "property", "type: custom\nengine: dqs\nimplementation: 'a: ['", nil, "implementation: not YAML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			im := item(t, tc.level, tc.item)
			if tc.skip == "" {
				if len(im.Skipped) != 0 || !reflect.DeepEqual(im.Contract.Rules, tc.rules) {
					t.Errorf("rules %+v skipped %s, want %+v", im.Contract.Rules, dumpSkipped(im.Skipped), tc.rules)
				}
				return
			}
			if len(im.Contract.Rules) != 0 || len(im.Skipped) != 1 || !strings.Contains(im.Skipped[0].Reason, tc.skip) {
				t.Errorf("rules %+v skipped %s, want skipped for %q", im.Contract.Rules, dumpSkipped(im.Skipped), tc.skip)
				return
			}
			wantPath := "schema[0].quality[0]"
			if tc.level != "schema" {
				wantPath = "schema[0].properties[0].quality[0]"
			}
			if im.Skipped[0].Path != wantPath {
				t.Errorf("path %q", im.Skipped[0].Path)
			}
		})
	}
}

func TestImportStructure(t *testing.T) {
	doc := `
schema:
  - name: t
    quality: {metric: rowCount, mustBe: 1}
    properties:
      - name: a
        quality: nope
      - quality: [{metric: nullValues, mustBe: 0}]
      - name: arr
        logicalType: array
        items:
          logicalType: object
          quality: [{metric: nullValues, mustBe: 0}]
          properties:
            - name: deep
              quality: [{type: text, description: x}]
      - name: physical
        physicalName: col_physical
        quality: [{metric: nullValues, mustBe: 0}]
`
	im, err := Import([]byte(doc), "t")
	if err != nil {
		t.Fatal(err)
	}
	checkSkipped(t, im.Skipped, []wantSkip{
		{"schema[0].quality", "", "quality", "not a list"},
		{"schema[0].properties[0].quality", "a", "quality", "not a list"},
		{"schema[0].properties[1].quality[0]", "", "nullValues", "no name"},
		{"schema[0].properties[2].items.quality[0]", "arr", "nullValues", "nested"},
		{"schema[0].properties[2].items.properties[0].quality[0]", "deep", "text", "nested"},
	})
	if want := []Rule{{Metric: "null_rate", Column: "col_physical", Operator: "==", Threshold: 0, Severity: "warning"}}; !reflect.DeepEqual(im.Contract.Rules, want) {
		t.Errorf("%+v", im.Contract.Rules)
	}
}

// grouped is the order Import gives rules: table-level first, then by
// column in the order columns first appear.
func grouped(rules []Rule) []Rule {
	out := []Rule{}
	var cols []string
	for _, r := range Normalize(rules) {
		if r.Column == "" {
			out = append(out, r)
		} else if !slices.Contains(cols, r.Column) {
			cols = append(cols, r.Column)
		}
	}
	for _, c := range cols {
		for _, r := range Normalize(rules) {
			if r.Column == c {
				out = append(out, r)
			}
		}
	}
	return out
}

func TestExportRoundTrip(t *testing.T) {
	c := Contract{Name: "Orders: nightly <checks> & \"more\"", TableName: "orders", Rules: []Rule{
		{Metric: "row_count", Operator: ">=", Threshold: 1000, Severity: "critical"},
		{Metric: "null_rate", Column: "email", Operator: "<", Threshold: 0.01},
		{Metric: "null_rate", Column: "email", Operator: "!=", Threshold: 0.07, Severity: "info"},
		{Metric: "column_count", Operator: "==", Threshold: 12},
		{Metric: "mean", Column: "amount", Operator: ">", Threshold: -12.75},
		{Metric: "null_rate", Column: "amount", Operator: "<=", Threshold: 0.123456789012345678},
		{Metric: "quality_score", Operator: ">", Threshold: 80.5},
		{Metric: "format_conformance", Column: "e-mail \"work\"", Operator: ">=", Threshold: 0.999},
		{Metric: "empty_rate", Column: "ünïcode 名前", Operator: "<=", Threshold: 1e-7},
		{Metric: "null_rate", Column: "ünïcode 名前", Operator: "==", Threshold: 0},
		{Metric: "distinct_count", Column: "amount", Operator: ">=", Threshold: 3},
		{Metric: "median", Column: "amount", Operator: "<", Threshold: 1e21},
		{Metric: "stddev", Column: "amount", Operator: "<", Threshold: 2.5e-30},
		{Metric: "min", Column: "amount", Operator: ">=", Threshold: 0},
		{Metric: "max", Column: "amount", Operator: "<=", Threshold: 1e6},
		{Metric: "row_count", Operator: "<", Threshold: 5e9, Severity: "warning"},
	}}
	doc, err := Export(c, ExportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := Import(doc, "orders")
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	if len(im.Skipped) != 0 || len(im.Notes) != 0 {
		t.Errorf("skipped %s notes %+v", dumpSkipped(im.Skipped), im.Notes)
	}
	want := Contract{Name: c.Name, TableName: c.TableName, Rules: grouped(c.Rules)}
	if !reflect.DeepEqual(im.Contract, want) {
		t.Errorf("round trip\n got %+v\nwant %+v\n%s", im.Contract, want, doc)
	}
	// The standard's fields, and the library items another tool runs.
	for _, s := range []string{
		"apiVersion: v3.1.0\n", "kind: DataContract\n", `id: "dqs-contract-orders-nightly-checks-more"`, `version: "1.0.0"`, `status: "active"`,
		"- metric: rowCount\n", "mustBeGreaterOrEqualTo: 1000\n", "severity: error\n",
		"- metric: nullValues\n", "mustBeLessThan: 1\n", "unit: percent\n", "mustNotBe: 7\n",
		"mustBeLessOrEqualTo: 12.345678901234568\n", "mustBeLessThan: 5000000000\n",
		"engine: dqs\n", `operator: ">="`, "threshold: 0.999\n", "threshold: 0.0000001\n", "threshold: 1000000000000000000000\n", "threshold: 25e-31\n",
	} {
		if !strings.Contains(string(doc), s) {
			t.Errorf("export lacks %q:\n%s", s, doc)
		}
	}
	// It is YAML any reader takes, and JSON reads the same.
	js, err := yaml.YAMLToJSON(doc)
	if err != nil {
		t.Fatal(err)
	}
	// (A converter rewrites numbers through float64, so a percent of 17
	// significant digits may come back one unit in the last place off.)
	im2, err := Import(js, "")
	if err != nil || len(im2.Contract.Rules) != len(want.Rules) {
		t.Fatalf("JSON: %v %+v", err, im2)
	}
	for i, r := range im2.Contract.Rules {
		w := want.Rules[i]
		if !Equal(r.Threshold, w.Threshold) {
			t.Errorf("JSON: %s, want %s", r, w)
		}
		r.Threshold = w.Threshold
		if r != w {
			t.Errorf("JSON: %s, want %s", r, w)
		}
	}
	opt := ExportOptions{ID: "urn:dqs:contract:7", Version: "3", Status: "draft"}
	doc, err = Export(c, opt)
	if err != nil || !strings.Contains(string(doc), `id: "urn:dqs:contract:7"`) || !strings.Contains(string(doc), `status: "draft"`) {
		t.Errorf("%v\n%s", err, doc)
	}
	if _, err := Export(Contract{Name: "x", TableName: "t", Rules: []Rule{{Metric: "nope"}}}, opt); !errors.Is(err, ErrInvalid) {
		t.Errorf("invalid contract exported: %v", err)
	}
}

// TestExportRoundTripRandom: any valid threshold survives Export and
// Import exactly, percents included.
func TestExportRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	metrics := []string{"row_count", "null_rate", "mean", "format_conformance", "quality_score"}
	for i := range 300 {
		var rules []Rule
		for j := range 1 + rng.IntN(8) {
			m := metrics[rng.IntN(len(metrics))]
			col := fmt.Sprintf("c%d", j%3)
			if IsTableMetric(m) {
				col = ""
			}
			lo, hi := Domain(m)
			var th float64
			switch {
			case !math.IsInf(hi, 1):
				th = lo + (hi-lo)*rng.Float64()
			case lo == 0:
				th = math.Floor(rng.ExpFloat64() * 1e6)
			default:
				th = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
			}
			if rng.IntN(4) == 0 { // short decimals, as people write them
				th = math.Round(th*1000) / 1000
			}
			rules = append(rules, Rule{Metric: m, Column: col, Operator: Operators[rng.IntN(6)], Threshold: th, Severity: Severities[rng.IntN(3)]})
		}
		c := Contract{Name: "r", TableName: "t", Rules: rules}
		doc, err := Export(c, ExportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		im, err := Import(doc, "t")
		if err != nil {
			t.Fatal(err)
		}
		if want := grouped(rules); !reflect.DeepEqual(im.Contract.Rules, want) {
			t.Fatalf("%d:\n got %+v\nwant %+v\n%s", i, im.Contract.Rules, want, doc)
		}
	}
}

func TestShiftDecimal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		by   int
		want string
	}{
		{"5", -2, "0.05"},
		{"0.05", 2, "5"},
		{"1.5", -2, "0.015"},
		{"100", -2, "1"},
		{"0", -2, "0"},
		{"-0", 2, "0"},
		{"-2.50", 0, "-2.5"},
		{"+7", -2, "0.07"},
		{".5", 0, "0.5"},
		{"5.", 0, "5"},
		{"1e-3", 2, "0.1"},
		{"1.5E+3", -2, "15"},
		{"1e21", 0, "1000000000000000000000"},
		{"1e22", 0, "1e22"},
		{"2.5e-30", 0, "25e-31"},
		{"0.000123", 0, "0.000123"},
		{"123456789012345678", -20, "0.00123456789012345678"},
	} {
		got, ok := shiftDecimal(tc.in, tc.by)
		if !ok || got != tc.want {
			t.Errorf("shiftDecimal(%q, %d) = %q %v, want %q", tc.in, tc.by, got, ok, tc.want)
		}
	}
	for _, bad := range []string{"", ".", "-", "e5", "1e", "1e+", "0x10", "1_000", "inf", ".inf", "NaN", "1.2.3", "1e99999", "١٢"} {
		if got, ok := shiftDecimal(bad, 0); ok {
			t.Errorf("shiftDecimal(%q) = %q, want refused", bad, got)
		}
	}
}

// TestImportHostileInputs: documents built to exhaust a parser end in an
// error, quickly.
func TestImportHostileInputs(t *testing.T) {
	const n = 200 << 10 // under MaxODCSBytes: the parser's own bounds must stop them
	inputs := []struct{ name, doc, err string }{
		{"nested flow", strings.Repeat("[", n/2) + strings.Repeat("]", n/2), "depth"},
		{"nested json", `{"a":` + strings.Repeat("[", n/2) + strings.Repeat("]", n/2) + "}", "depth"},
		{"nested block", func() string {
			var b strings.Builder
			for i := 0; i < 200; i++ {
				b.WriteString(strings.Repeat(" ", i) + "a:\n")
			}
			return b.String()
		}(), "nested more than 64"},
		{"anchors", "a: &a [" + strings.Repeat("x,", 1000) + "]\nb: *a\n", "aliases are not supported"},
		{"many values", "a: [" + strings.Repeat("1,", maxODCSNodes+1) + "]\n", fmt.Sprintf("more than %d values", maxODCSNodes)},
		{"many items", "schema:\n- name: t\n  quality:\n" + strings.Repeat("  - {type: sql}\n", maxQualityItems+1), "quality items, more than 2000"},
	}
	for _, in := range inputs {
		start := time.Now()
		_, err := Import([]byte(in.doc), "")
		if err == nil || !strings.Contains(err.Error(), in.err) {
			t.Errorf("%s: got %.100v, want %q", in.name, err, in.err)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("%s: %v", in.name, d)
		}
	}
}
