package contracts

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dqs/dqs/scanner"
)

// ErrODCS marks a document Import cannot read at all (HTTP 400): not
// YAML or JSON, not ODCS v3, no schema object of the table. Items it
// reads but cannot evaluate are not errors: they are Imported.Skipped.
var ErrODCS = errors.New("invalid ODCS document")

// ErrTooLarge marks a document over MaxODCSBytes (HTTP 413).
var ErrTooLarge = errors.New("ODCS document too large")

// maxQualityItems bounds the quality items of the imported table.
const maxQualityItems = 2000

// ODCS library metrics.
const (
	odcsNullValues      = "nullValues"
	odcsMissingValues   = "missingValues"
	odcsInvalidValues   = "invalidValues"
	odcsDuplicateValues = "duplicateValues"
	odcsRowCount        = "rowCount"
)

// ODCS comparison keys and the DQS operator of each single-valued one.
var odcsOperators = map[string]string{
	"mustBe":                 OpEqual,
	"mustNotBe":              OpNotEqual,
	"mustBeGreaterThan":      OpGreater,
	"mustBeGreaterOrEqualTo": OpGreaterOrEqual,
	"mustBeLessThan":         OpLess,
	"mustBeLessOrEqualTo":    OpLessOrEqual,
	"mustBeBetween":          "",
	"mustNotBeBetween":       "",
}

// Skipped is a quality item of the document that DQS cannot evaluate, and
// why. Path locates it ("schema[0].properties[2].quality[1]"), Column is
// its property ("" at schema level), Check its library metric or type.
type Skipped struct {
	Path   string `json:"path"`
	Column string `json:"column,omitempty"`
	Check  string `json:"check"`
	Reason string `json:"reason"`
}

// Note is something Import changed or assumed while reading an item that
// it did import (an unknown severity read as the default, a name cut).
type Note struct {
	Path string `json:"path"`
	Note string `json:"note"`
}

// Imported is what Import read: the contract of the table (its rules
// valid, table-level first then by property), the items it skipped and
// its notes.
type Imported struct {
	Contract Contract  `json:"contract"`
	Skipped  []Skipped `json:"skipped"`
	Notes    []Note    `json:"notes"`
}

// Import reads the quality section of an Open Data Contract Standard v3
// document (YAML or JSON, at most MaxODCSBytes, nesting at most
// MaxODCSDepth, no YAML aliases) for one table: the schema object whose
// name or physicalName is table, or the only schema object when table is
// "". Every quality item of that object and its properties becomes rules
// or a Skipped entry with the reason; the package documentation has the
// mapping. The contract is named after the document (name, else id, else
// the table) and its TableName is the object's physicalName, else name.
// The error wraps ErrODCS or ErrTooLarge.
func Import(data []byte, table string) (*Imported, error) {
	root, err := parseDocument(data)
	if err != nil {
		return nil, err
	}
	if root.kind != kMap {
		return nil, fmt.Errorf("%w: the document is a %s, not a mapping", ErrODCS, root.kind)
	}
	if v := root.get("apiVersion"); v != nil && !strings.HasPrefix(v.str(), "v3.") && v.str() != "v3" {
		return nil, fmt.Errorf("%w: apiVersion %q: only ODCS v3 documents are read", ErrODCS, clip(v.str()))
	}
	if k := root.get("kind"); k != nil && k.str() != "DataContract" {
		return nil, fmt.Errorf("%w: kind %q: an ODCS document is of kind DataContract", ErrODCS, clip(k.str()))
	}
	idx, obj, err := selectSchema(root.get("schema"), table)
	if err != nil {
		return nil, err
	}
	im := &importer{out: &Imported{Skipped: []Skipped{}, Notes: []Note{}}}
	name := firstNonEmpty(root.get("name").str(), root.get("id").str())
	tableName := firstNonEmpty(obj.get("physicalName").str(), obj.get("name").str())
	if name == "" {
		name = tableName
	}
	im.out.Contract = Contract{Name: im.cut("name", name, MaxNameLen), TableName: tableName, Rules: []Rule{}}

	base := fmt.Sprintf("schema[%d]", idx)
	im.qualityList(base, obj.get("quality"), "", false)
	if props := obj.get("properties"); props != nil {
		if props.kind != kList {
			im.skip(base+".properties", "", "properties", "properties is not a list")
		}
		for i, p := range props.items {
			im.property(fmt.Sprintf("%s.properties[%d]", base, i), p, "", false)
		}
	}
	if im.items > maxQualityItems {
		return nil, fmt.Errorf("%w: table %q has %d quality items, more than %d", ErrODCS, clip(tableName), im.items, maxQualityItems)
	}
	if n := len(im.out.Contract.Rules); n > MaxRules {
		return nil, fmt.Errorf("%w: table %q makes %d rules, more than %d", ErrODCS, clip(tableName), n, MaxRules)
	}
	return im.out, nil
}

// selectSchema picks the schema object of table.
func selectSchema(schema *tnode, table string) (int, *tnode, error) {
	if schema == nil || schema.kind != kList || len(schema.items) == 0 {
		return 0, nil, fmt.Errorf("%w: the document has no schema objects", ErrODCS)
	}
	var names []string
	found := -1
	for i, o := range schema.items {
		if o.kind != kMap {
			continue
		}
		name, physical := o.get("name").str(), o.get("physicalName").str()
		names = append(names, strconv.Quote(clip(name)))
		if table == "" || (table != name && table != physical) {
			continue
		}
		if found >= 0 {
			return 0, nil, fmt.Errorf("%w: several schema objects are named %q", ErrODCS, clip(table))
		}
		found = i
	}
	if table == "" {
		if len(schema.items) == 1 && schema.items[0].kind == kMap {
			return 0, schema.items[0], nil
		}
		return 0, nil, fmt.Errorf("%w: the document has %d schema objects (%s); name the table to import", ErrODCS, len(schema.items), listOf(names))
	}
	if found < 0 {
		return 0, nil, fmt.Errorf("%w: no schema object is named %q; the document has %s", ErrODCS, clip(table), listOf(names))
	}
	return found, schema.items[found], nil
}

func listOf(names []string) string {
	if len(names) > 10 {
		names = append(names[:10:10], "…")
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

type importer struct {
	out   *Imported
	items int
}

func (im *importer) skip(path, column, check, reason string) {
	im.out.Skipped = append(im.out.Skipped, Skipped{Path: path, Column: column, Check: check, Reason: reason})
}

func (im *importer) note(path, format string, args ...any) {
	im.out.Notes = append(im.out.Notes, Note{Path: path, Note: fmt.Sprintf(format, args...)})
}

// cut shortens s to max bytes, with a note.
func (im *importer) cut(path, s string, max int) string {
	if len(s) <= max {
		return s
	}
	c := max
	for c > 0 && !utf8.RuneStart(s[c]) {
		c--
	}
	im.note(path, "shortened to %d bytes", max)
	return s[:c]
}

// property reads a property's quality, and its nested properties' as
// skipped: a scan records the metrics of a table's top-level columns.
// An array's items take the array's name when they have none.
func (im *importer) property(path string, p *tnode, parent string, nested bool) {
	if p.kind != kMap {
		return
	}
	column := firstNonEmpty(p.get("physicalName").str(), p.get("name").str(), parent)
	im.qualityList(path, p.get("quality"), column, nested)
	for i, c := range p.get("properties").listItems() {
		im.property(fmt.Sprintf("%s.properties[%d]", path, i), c, "", true)
	}
	if items := p.get("items"); items != nil {
		im.property(path+".items", items, column, true)
	}
}

func (n *tnode) listItems() []*tnode {
	if n == nil || n.kind != kList {
		return nil
	}
	return n.items
}

// qualityList reads the quality items at path; column "" is the schema
// level.
func (im *importer) qualityList(path string, q *tnode, column string, nested bool) {
	if q == nil || q.kind == kNull {
		return
	}
	if q.kind != kList {
		im.skip(path+".quality", column, "quality", "quality is not a list")
		return
	}
	for i, item := range q.items {
		im.items++
		if im.items > maxQualityItems {
			return
		}
		p := fmt.Sprintf("%s.quality[%d]", path, i)
		if nested {
			im.skip(p, column, checkName(item), "the property is nested in another: a scan records the metrics of a table's top-level columns only")
			continue
		}
		if column == "" && path != "" && strings.Contains(path, ".properties[") {
			im.skip(p, column, checkName(item), "the property has no name")
			continue
		}
		im.item(p, column, item)
	}
}

// qualityType is an item's type, defaulted as ODCS does: library when a
// metric (or the deprecated rule) is set, else sql with a query, custom
// with an engine or implementation, text otherwise.
func qualityType(n *tnode) string {
	if t := strings.ToLower(strings.TrimSpace(n.get("type").str())); t != "" {
		return t
	}
	switch {
	case libraryMetric(n) != "":
		return "library"
	case n.get("query") != nil:
		return "sql"
	case n.get("engine") != nil || n.get("implementation") != nil:
		return "custom"
	}
	return "text"
}

func libraryMetric(n *tnode) string {
	return firstNonEmpty(n.get("metric").str(), n.get("rule").str())
}

// checkName labels an item in Skipped: its metric, else its type.
func checkName(n *tnode) string {
	if n == nil || n.kind != kMap {
		return "unknown"
	}
	t := qualityType(n)
	if t == "library" {
		if m := libraryMetric(n); m != "" {
			return clip(m)
		}
	}
	if t == "custom" {
		if e := n.get("engine").str(); e != "" {
			return "custom (" + clip(e) + ")"
		}
	}
	return clip(t)
}

// item reads one quality item.
func (im *importer) item(path, column string, n *tnode) {
	check := checkName(n)
	if n.kind != kMap {
		im.skip(path, column, check, "a quality item is a mapping")
		return
	}
	skip := func(format string, args ...any) { im.skip(path, column, check, fmt.Sprintf(format, args...)) }
	switch t := qualityType(n); t {
	case "text":
		skip("a text item describes quality for people; there is nothing to measure")
	case "sql":
		skip("an sql item runs its own query on the source; DQS evaluates the metrics its scans record and runs no contract SQL")
	case "custom":
		if engine := n.get("engine").str(); !strings.EqualFold(engine, dqsEngine) {
			skip("a custom item is written for engine %q and runs there; DQS runs only its own (engine: %s)", clip(engine), dqsEngine)
			return
		}
		im.dqsItem(path, column, check, n)
	case "library":
		im.library(path, column, check, n)
	default:
		skip("unknown quality type %q (ODCS has library, sql, text and custom)", clip(t))
	}
}

// comparison is one bound of a library item in the document's units.
type comparison struct {
	key   string // the ODCS key: mustBe, mustBeBetween, ...
	op    string // the DQS operator; "" for mustNotBeBetween
	value string // decimal text; for mustNotBeBetween the low bound
	high  string // mustNotBeBetween's high bound
}

// comparisons reads an item's operator keys in the document's order;
// mustBeBetween [a, b] is the two bounds >= a and <= b (inclusive, as
// SQL's BETWEEN and the engines that run ODCS). The string is why the item
// cannot be read.
func comparisons(n *tnode) ([]comparison, string) {
	var out []comparison
	for i, key := range n.keys {
		v := n.vals[i]
		op, known := odcsOperators[key]
		if !known {
			if strings.HasPrefix(key, "must") {
				return nil, fmt.Sprintf("unknown operator %q (ODCS has %s)", clip(key), odcsOperatorList())
			}
			continue
		}
		switch key {
		case "mustBeBetween", "mustNotBeBetween":
			if v.kind != kList || len(v.items) != 2 || v.items[0].kind != kNumber || v.items[1].kind != kNumber {
				return nil, fmt.Sprintf("%s takes a list of two numbers", key)
			}
			lo, hi := v.items[0].text, v.items[1].text
			if !(parseNumber(lo) <= parseNumber(hi)) {
				return nil, fmt.Sprintf("%s [%s, %s]: the smaller bound comes first", key, clip(lo), clip(hi))
			}
			if key == "mustBeBetween" {
				out = append(out, comparison{key: key, op: OpGreaterOrEqual, value: lo}, comparison{key: key, op: OpLessOrEqual, value: hi})
			} else {
				out = append(out, comparison{key: key, value: lo, high: hi})
			}
		default:
			if v.kind != kNumber {
				return nil, fmt.Sprintf("%s is compared with a number, not a %s", key, v.kind)
			}
			out = append(out, comparison{key: key, op: op, value: v.text})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Sprintf("no operator: a library item compares its metric with %s", odcsOperatorList())
	}
	for _, c := range out {
		for _, s := range []string{c.value, c.high} {
			if f := parseNumber(s); s != "" && (math.IsNaN(f) || math.IsInf(f, 0)) {
				return nil, fmt.Sprintf("%s: %s is not a finite number", c.key, clip(s))
			}
		}
	}
	return out, ""
}

func odcsOperatorList() string {
	return "mustBe, mustNotBe, mustBeGreaterThan, mustBeGreaterOrEqualTo, mustBeLessThan, mustBeLessOrEqualTo, mustBeBetween, mustNotBeBetween"
}

// parseNumber reads decimal text; NaN when it is not a number.
func parseNumber(s string) float64 {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return math.NaN()
	}
	return f
}

// percentToShare reads a percent's decimal text as a share, exactly:
// "1.5" is the nearest float64 to 0.015, not 1.5/100.
func percentToShare(s string) float64 {
	if t, ok := shiftDecimal(s, -2); ok {
		return parseNumber(t)
	}
	return parseNumber(s) / 100
}

// library reads a library item.
func (im *importer) library(path, column, check string, n *tnode) {
	skip := func(format string, args ...any) { im.skip(path, column, check, fmt.Sprintf(format, args...)) }
	metric := libraryMetric(n)
	if metric == "" {
		skip("a library item names its metric (nullValues, missingValues, invalidValues, duplicateValues, rowCount)")
		return
	}
	cmps, why := comparisons(n)
	if why != "" {
		skip("%s", why)
		return
	}
	unit := strings.ToLower(strings.TrimSpace(n.get("unit").str()))
	switch unit {
	case "", "row", "rows":
		unit = "rows"
	case "percent", "percentage", "%":
		unit = "percent"
	default:
		skip("unit %q: DQS reads rows and percent", clip(unit))
		return
	}
	severity := im.severity(path, n)
	args := n.get("arguments")
	level := "property"
	if column == "" {
		level = "schema"
	}

	switch metric {
	case odcsRowCount:
		if column != "" {
			skip("rowCount is a schema-level metric: it belongs in the schema object's quality, not a property's")
			return
		}
		if unit == "percent" {
			skip("rowCount counts rows; a percent of it has no meaning")
			return
		}
		im.add(path, column, check, scanner.MetricRowCount, cmps, severity, parseNumber)
	case odcsNullValues:
		if column == "" {
			skip("nullValues is a property-level metric: it belongs in a property's quality")
			return
		}
		im.nulls(path, column, check, cmps, unit, severity)
	case odcsMissingValues:
		if column == "" {
			skip("missingValues is a property-level metric: it belongs in a property's quality")
			return
		}
		if why := onlyNulls(args.get("missingValues")); why != "" {
			skip("%s", why)
			return
		}
		im.nulls(path, column, check, cmps, unit, severity)
	case odcsInvalidValues:
		switch {
		case column == "":
			skip("invalidValues is a property-level metric: it belongs in a property's quality")
		case args.get("validValues") != nil:
			skip("invalidValues with validValues checks each value against a list; DQS scans record no such count")
		case args.get("pattern") != nil:
			skip("invalidValues with a pattern checks each value against a regular expression; DQS scans record no such count (format_conformance measures the format DQS recognised in the column, not a contract's pattern)")
		default:
			skip("invalidValues needs arguments validValues or pattern to know what is invalid")
		}
	case odcsDuplicateValues:
		if level == "schema" {
			skip("duplicateValues across several properties needs a count of duplicate rows; DQS scans record none")
			return
		}
		skip("duplicateValues needs an exact count of duplicates; DQS records distinct_count, an approximate count of distinct values, and duplicates (non-null rows minus distinct values) would compare two metrics, which a rule cannot")
	default:
		skip("unknown library metric %q (ODCS has nullValues, missingValues, invalidValues, duplicateValues, rowCount)", clip(metric))
	}
}

// onlyNulls checks missingValues' argument: absent, empty or only null
// means the nulls DQS counts; anything else it does not count.
func onlyNulls(list *tnode) string {
	if list == nil || list.kind == kNull {
		return ""
	}
	if list.kind != kList {
		return "arguments.missingValues is a list of the values counted as missing"
	}
	var others []string
	for _, v := range list.items {
		if v.kind != kNull {
			others = append(others, strconv.Quote(clip(v.text)))
		}
	}
	if len(others) == 0 {
		return ""
	}
	return fmt.Sprintf("missingValues counts %s as missing besides nulls; DQS records nulls (null_rate) and empty or blank text (empty_rate) apart, and a rule compares one of them, so the sum cannot be checked exactly: write a nullValues item, and an empty_rate rule in DQS", listOf(others))
}

// nulls maps a count or percent of nulls to null_rate.
func (im *importer) nulls(path, column, check string, cmps []comparison, unit, severity string) {
	if unit == "percent" {
		for _, c := range cmps {
			for _, s := range []string{c.value, c.high} {
				if f := parseNumber(s); s != "" && (f < 0 || f > 100) {
					im.skip(path, column, check, fmt.Sprintf("%s: a percent is within [0, 100], not %s", c.key, clip(s)))
					return
				}
			}
		}
		im.add(path, column, check, scanner.MetricNullRate, cmps, severity, percentToShare)
		return
	}
	// A count of rows: DQS records the share of the rows, so only what
	// does not depend on the row count converts: "no nulls" and "some".
	holds := func(c float64) bool {
		for _, x := range cmps {
			v := parseNumber(x.value)
			var ok bool
			if x.op == "" {
				ok = c < v || c > parseNumber(x.high)
			} else {
				ok, _ = Compare(c, x.op, v)
			}
			if !ok {
				return false
			}
		}
		return true
	}
	// Between and around the thresholds the truth of holds is constant,
	// so these counts cover every case of a count of at least one row.
	candidates := []float64{1, 2, 1e18}
	for _, x := range cmps {
		for _, s := range []string{x.value, x.high} {
			if s == "" {
				continue
			}
			v := parseNumber(s)
			for _, c := range []float64{math.Floor(v) - 1, math.Floor(v), math.Floor(v) + 1, math.Ceil(v), math.Ceil(v) + 1} {
				if c >= 1 {
					candidates = append(candidates, c)
				}
			}
		}
	}
	zero := holds(0)
	all, none := true, true
	for _, c := range candidates {
		if holds(c) {
			none = false
		} else {
			all = false
		}
	}
	rule := Rule{Metric: scanner.MetricNullRate, Column: column, Severity: severity}
	switch {
	case zero && none:
		rule.Operator, rule.Threshold = OpEqual, 0
	case !zero && all:
		rule.Operator, rule.Threshold = OpGreater, 0
	case zero && all:
		im.skip(path, column, check, "the condition holds for any count of nulls: there is nothing to check")
		return
	case !zero && none:
		im.skip(path, column, check, "the condition holds for no count of nulls: it can never pass")
		return
	default:
		im.skip(path, column, check, "a count of null rows other than none or some depends on the row count, and DQS records null_rate, the share of the rows: write it with unit: percent")
		return
	}
	im.appendRules(path, column, check, []Rule{rule})
}

// add maps an item's comparisons to rules of metric, converting each
// value with conv. mustNotBeBetween [a, b] (below a or above b) becomes
// one rule when one side is outside the metric's domain, and is skipped
// otherwise: the rules of a contract must all hold, they cannot say "or".
func (im *importer) add(path, column, check, metric string, cmps []comparison, severity string, conv func(string) float64) {
	var rules []Rule
	for _, c := range cmps {
		r := Rule{Metric: metric, Column: column, Operator: c.op, Threshold: conv(c.value), Severity: severity}
		if c.op == "" {
			lo, hi := conv(c.value), conv(c.high)
			dlo, dhi := Domain(metric)
			switch {
			case hi >= dhi:
				r.Operator, r.Threshold = OpLess, lo
			case lo <= dlo:
				r.Operator, r.Threshold = OpGreater, hi
			default:
				im.skip(path, column, check, fmt.Sprintf("mustNotBeBetween [%s, %s] means below %s or above %s; the rules of a contract must all hold, so an \"or\" cannot be written", clip(c.value), clip(c.high), clip(c.value), clip(c.high)))
				return
			}
		}
		rules = append(rules, r)
	}
	im.appendRules(path, column, check, rules)
}

// appendRules adds an item's rules when all are valid, else skips it.
func (im *importer) appendRules(path, column, check string, rules []Rule) {
	for _, r := range rules {
		if err := validateRule(r); err != nil {
			im.skip(path, column, check, err.Field+": "+err.Reason)
			return
		}
	}
	im.out.Contract.Rules = append(im.out.Contract.Rules, rules...)
}

// severity maps an item's severity: info; warning (warn); critical
// (error, critical, fatal). Absent or unknown: DefaultSeverity, noted
// when unknown.
func (im *importer) severity(path string, n *tnode) string {
	raw := strings.TrimSpace(n.get("severity").str())
	switch strings.ToLower(raw) {
	case "":
		return DefaultSeverity
	case "info", "information", "informational":
		return SeverityInfo
	case "warning", "warn":
		return SeverityWarning
	case "error", "critical", "fatal":
		return SeverityCritical
	}
	im.note(path, "severity %q is not info, warning or error: read as %s", clip(raw), DefaultSeverity)
	return DefaultSeverity
}

// dqsEngine is the engine name of DQS's own rules in a custom item.
const dqsEngine = "dqs"

// dqsItem reads a custom item of engine dqs: implementation {metric,
// operator, threshold}, as Export writes the rules ODCS's library has no
// metric for. The column is the item's property.
func (im *importer) dqsItem(path, column, check string, n *tnode) {
	skip := func(format string, args ...any) { im.skip(path, column, check, fmt.Sprintf(format, args...)) }
	impl := n.get("implementation")
	if impl != nil && impl.kind == kString {
		parsed, err := parseDocument([]byte(impl.text))
		if err != nil {
			skip("implementation: %s", strings.TrimPrefix(err.Error(), ErrODCS.Error()+": "))
			return
		}
		impl = parsed
	}
	if impl == nil || impl.kind != kMap {
		skip("implementation is a mapping of metric, operator and threshold")
		return
	}
	threshold := impl.get("threshold")
	if threshold == nil || threshold.kind != kNumber {
		skip("implementation.threshold is a number")
		return
	}
	r := Rule{Metric: impl.get("metric").str(), Column: column, Operator: impl.get("operator").str(),
		Threshold: parseNumber(threshold.text), Severity: im.severity(path, n)}
	im.appendRules(path, column, check, []Rule{r})
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}
