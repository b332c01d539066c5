package contracts

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dqs/dqs/scanner"
)

// Operators a rule compares with.
const (
	OpGreaterOrEqual = ">="
	OpLessOrEqual    = "<="
	OpGreater        = ">"
	OpLess           = "<"
	OpEqual          = "=="
	OpNotEqual       = "!="
)

// Operators lists every operator a rule may use.
var Operators = []string{OpGreaterOrEqual, OpLessOrEqual, OpGreater, OpLess, OpEqual, OpNotEqual}

// Severities of a rule, as those of alerts.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// Severities lists every severity, least severe first.
var Severities = []string{SeverityInfo, SeverityWarning, SeverityCritical}

// DefaultSeverity is the severity of a rule that names none.
const DefaultSeverity = SeverityWarning

// Bounds of a contract.
const (
	// MaxRules bounds the rules of one contract.
	MaxRules = 200
	// MaxNameLen bounds a contract's name, in bytes.
	MaxNameLen = 200
	// MaxIdentifierLen bounds a table or column name, in bytes: what a
	// scan records (an object's key, a BigQuery name, up to 1024).
	MaxIdentifierLen = 1024
)

// Rule is one check of a contract: Metric of Column ("" for the table's
// own metrics) compared with Threshold by Operator. A failed rule raises
// an alert of its Severity.
type Rule struct {
	Metric    string  `json:"metric"`
	Column    string  `json:"column"`
	Operator  string  `json:"operator"`
	Threshold float64 `json:"threshold"`
	Severity  string  `json:"severity"`
}

// String renders the rule as "column.metric op threshold".
func (r Rule) String() string {
	subject := r.Metric
	if r.Column != "" {
		subject = r.Column + "." + r.Metric
	}
	return fmt.Sprintf("%s %s %s", subject, r.Operator, formatNumber(r.Threshold))
}

// Contract is what a contract says of one table: its rules. The source,
// the enabled flag and the identifiers belong to the service's model.
type Contract struct {
	Name      string `json:"name"`
	TableName string `json:"table_name"`
	Rules     []Rule `json:"rules"`
}

// ErrInvalid marks every error of Validate and Contract.Validate: the
// request is wrong (HTTP 400) and the message says where.
var ErrInvalid = errors.New("invalid contract")

// FieldError is an invalid field of a contract: Index is the rule's
// position (-1 for a field of the contract itself) and Field its JSON name.
type FieldError struct {
	Index  int
	Field  string
	Reason string
}

func (e *FieldError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("%s: %s", e.Field, e.Reason)
	}
	return fmt.Sprintf("rules[%d].%s: %s", e.Index, e.Field, e.Reason)
}

// Unwrap makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// Metric kinds, which bound a threshold.
var (
	tableMetrics = []string{scanner.MetricRowCount, scanner.MetricColumnCount, scanner.MetricQualityScore}
	shareMetrics = []string{scanner.MetricNullRate, scanner.MetricEmptyRate, scanner.MetricFormatConformance}
	countMetrics = []string{scanner.MetricRowCount, scanner.MetricColumnCount, scanner.MetricDistinctCount}
)

// IsTableMetric reports whether metric is one of the table's own
// (row_count, column_count, quality_score), taking no column.
func IsTableMetric(metric string) bool { return slices.Contains(tableMetrics, metric) }

// Domain is the range of values metric can take: shares [0, 1],
// quality_score [0, 100], counts [0, +Inf), the rest unbounded.
func Domain(metric string) (lo, hi float64) {
	switch {
	case slices.Contains(shareMetrics, metric):
		return 0, 1
	case metric == scanner.MetricQualityScore:
		return 0, 100
	case slices.Contains(countMetrics, metric):
		return 0, math.Inf(1)
	}
	return math.Inf(-1), math.Inf(1)
}

// Validate checks rules: at most MaxRules; each metric one a scan records
// (scanner.MetricNames); table metrics (row_count, column_count,
// quality_score) without a column and every other metric with one; an
// operator of Operators; a finite threshold within the metric's Domain
// (shares in [0, 1], quality_score in [0, 100], counts not negative); a
// severity of Severities or empty, which means DefaultSeverity. The error
// is a *FieldError naming the first bad rule and field.
func Validate(rules []Rule) error {
	if len(rules) > MaxRules {
		return &FieldError{Index: -1, Field: "rules", Reason: fmt.Sprintf("at most %d rules, got %d", MaxRules, len(rules))}
	}
	for i, r := range rules {
		if err := validateRule(r); err != nil {
			err.Index = i
			return err
		}
	}
	return nil
}

// Validate checks the contract's name and table name, then its rules
// (Validate). At least one rule is required.
func (c Contract) Validate() error {
	if err := checkText(c.Name, MaxNameLen); err != "" {
		return &FieldError{Index: -1, Field: "name", Reason: err}
	}
	if err := checkText(c.TableName, MaxIdentifierLen); err != "" {
		return &FieldError{Index: -1, Field: "table_name", Reason: err}
	}
	if len(c.Rules) == 0 {
		return &FieldError{Index: -1, Field: "rules", Reason: "at least one rule is required"}
	}
	return Validate(c.Rules)
}

// validateRule checks one rule; the error's Index is left to the caller.
func validateRule(r Rule) *FieldError {
	bad := func(field, format string, args ...any) *FieldError {
		return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case r.Metric == "":
		return bad("metric", "required; one of %s", strings.Join(scanner.MetricNames, ", "))
	case !scanner.IsMetric(r.Metric):
		return bad("metric", "unknown metric %q; one of %s", clip(r.Metric), strings.Join(scanner.MetricNames, ", "))
	}
	if IsTableMetric(r.Metric) {
		if r.Column != "" {
			return bad("column", "%s is a table metric and takes no column", r.Metric)
		}
	} else {
		if r.Column == "" {
			return bad("column", "%s is a column metric and needs a column", r.Metric)
		}
		if err := checkText(r.Column, MaxIdentifierLen); err != "" {
			return bad("column", "%s", err)
		}
	}
	if !slices.Contains(Operators, r.Operator) {
		return bad("operator", "unknown operator %q; one of %s", clip(r.Operator), strings.Join(Operators, ", "))
	}
	if math.IsNaN(r.Threshold) || math.IsInf(r.Threshold, 0) {
		return bad("threshold", "must be a finite number")
	}
	if lo, hi := Domain(r.Metric); r.Threshold < lo || r.Threshold > hi {
		switch {
		case math.IsInf(hi, 1):
			return bad("threshold", "%s cannot be negative", r.Metric)
		case slices.Contains(shareMetrics, r.Metric):
			return bad("threshold", "%s is a share: within [0, 1] (5%% is 0.05)", r.Metric)
		default:
			return bad("threshold", "%s is within [%s, %s]", r.Metric, formatNumber(lo), formatNumber(hi))
		}
	}
	if r.Severity != "" && !slices.Contains(Severities, r.Severity) {
		return bad("severity", "unknown severity %q; one of %s", clip(r.Severity), strings.Join(Severities, ", "))
	}
	return nil
}

// Normalize returns a copy of rules with an empty severity set to
// DefaultSeverity: what the service stores and returns.
func Normalize(rules []Rule) []Rule {
	out := make([]Rule, len(rules))
	for i, r := range rules {
		if r.Severity == "" {
			r.Severity = DefaultSeverity
		}
		out[i] = r
	}
	return out
}

// checkText checks a name: present, valid UTF-8, within max bytes, no
// control characters. It returns the reason, or "".
func checkText(s string, max int) string {
	switch {
	case strings.TrimSpace(s) == "":
		return "required"
	case len(s) > max:
		return fmt.Sprintf("at most %d bytes", max)
	case !utf8.ValidString(s):
		return "not valid UTF-8"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		return "control characters are not allowed"
	}
	return ""
}

// Clip shortens a name or value echoed in a message to 64 bytes, cut on
// a rune boundary.
func Clip(s string) string { return clip(s) }

// clip shortens a value echoed in a message.
func clip(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// severityRank orders severities; unknown ones rank as the default.
func severityRank(s string) int {
	if i := slices.Index(Severities, s); i >= 0 {
		return i
	}
	return slices.Index(Severities, DefaultSeverity)
}
