package contracts

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dqs/dqs/scanner"
)

// ODCSAPIVersion is the version of the standard Export writes: the first
// with the library metrics (metric, arguments, unit) it uses.
const ODCSAPIVersion = "v3.1.0"

// ExportOptions are the document fields a contract does not hold.
type ExportOptions struct {
	// ID is the document's id (default "dqs-contract-" and the name's
	// letters and digits).
	ID string
	// Version is the document's version (default "1.0.0").
	Version string
	// Status is the document's status (default "active"; "draft" suits
	// a disabled contract).
	Status string
}

// odcsOperatorOf is the ODCS key of each DQS operator.
var odcsOperatorOf = map[string]string{
	OpEqual:          "mustBe",
	OpNotEqual:       "mustNotBe",
	OpGreater:        "mustBeGreaterThan",
	OpGreaterOrEqual: "mustBeGreaterOrEqualTo",
	OpLess:           "mustBeLessThan",
	OpLessOrEqual:    "mustBeLessOrEqualTo",
}

// odcsSeverityOf is the ODCS severity of each DQS severity.
var odcsSeverityOf = map[string]string{
	SeverityInfo:     "info",
	SeverityWarning:  "warning",
	SeverityCritical: "error",
}

// Export renders c as an ODCS v3 document in YAML: one schema object, the
// table, with row_count rules as library rowCount items at its level,
// null_rate rules as library nullValues items in percent on their
// property, and every other rule, which the ODCS library has no metric
// for, as a custom item of engine dqs. Each rule is one item of one
// operator. Import reads the document back to the same rules, table-level
// first then by column in the order columns first appear; another tool
// runs the library items and skips the custom ones as written for DQS.
// The contract must be valid (Contract.Validate).
func Export(c Contract, opt ExportOptions) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if opt.ID == "" {
		opt.ID = "dqs-contract-" + slug(c.Name)
	}
	if opt.Version == "" {
		opt.Version = "1.0.0"
	}
	if opt.Status == "" {
		opt.Status = "active"
	}
	var table []Rule
	var columns []string
	byColumn := map[string][]Rule{}
	for _, r := range Normalize(c.Rules) {
		if r.Column == "" {
			table = append(table, r)
			continue
		}
		if _, seen := byColumn[r.Column]; !seen {
			columns = append(columns, r.Column)
		}
		byColumn[r.Column] = append(byColumn[r.Column], r)
	}

	var w yamlWriter
	w.line(0, "apiVersion: "+ODCSAPIVersion)
	w.line(0, "kind: DataContract")
	w.line(0, "id: "+quote(opt.ID))
	w.line(0, "name: "+quote(c.Name))
	w.line(0, "version: "+quote(opt.Version))
	w.line(0, "status: "+quote(opt.Status))
	w.line(0, "schema:")
	w.line(1, "- name: "+quote(c.TableName))
	w.line(2, "physicalName: "+quote(c.TableName))
	if len(table) > 0 {
		w.line(2, "quality:")
		for _, r := range table {
			writeItem(&w, 3, r)
		}
	}
	if len(columns) > 0 {
		w.line(2, "properties:")
		for _, col := range columns {
			w.line(3, "- name: "+quote(col))
			w.line(4, "quality:")
			for _, r := range byColumn[col] {
				writeItem(&w, 5, r)
			}
		}
	}
	return []byte(w.String()), nil
}

// writeItem writes one rule as a quality item at depth d.
func writeItem(w *yamlWriter, d int, r Rule) {
	desc := "DQS rule: " + r.String()
	switch r.Metric {
	case scanner.MetricRowCount:
		w.line(d, "- metric: rowCount")
		w.line(d+1, "type: library")
		w.line(d+1, "dimension: completeness")
		w.line(d+1, odcsOperatorOf[r.Operator]+": "+formatNumber(r.Threshold))
		w.line(d+1, "unit: rows")
	case scanner.MetricNullRate:
		percent := formatNumber(r.Threshold)
		if s, ok := shiftDecimal(percent, 2); ok {
			percent = s
		}
		w.line(d, "- metric: nullValues")
		w.line(d+1, "type: library")
		w.line(d+1, "dimension: completeness")
		w.line(d+1, odcsOperatorOf[r.Operator]+": "+percent)
		w.line(d+1, "unit: percent")
	default:
		w.line(d, "- type: custom")
		w.line(d+1, "engine: "+dqsEngine)
		w.line(d+1, "implementation:")
		w.line(d+2, "metric: "+r.Metric)
		w.line(d+2, "operator: "+quote(r.Operator))
		w.line(d+2, "threshold: "+formatNumber(r.Threshold))
	}
	w.line(d+1, "severity: "+odcsSeverityOf[r.Severity])
	w.line(d+1, "description: "+quote(desc))
}

// yamlWriter writes block YAML, two spaces a level.
type yamlWriter struct{ strings.Builder }

func (w *yamlWriter) line(depth int, s string) {
	w.WriteString(strings.Repeat("  ", depth))
	w.WriteString(s)
	w.WriteByte('\n')
}

// quote writes s as a double-quoted scalar: JSON's escapes are YAML's.
func quote(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil { // a string always encodes
		return fmt.Sprintf("%q", s)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// slug keeps the letters and digits of s, lower-cased, words joined by
// dashes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
		default:
			dash = true
		}
		if b.Len() >= 64 {
			break
		}
	}
	if b.Len() == 0 {
		return "unnamed"
	}
	return b.String()
}
