package contracts

import (
	"fmt"
	"math"

	"github.com/dqs/dqs/scanner"
)

// Key names one recorded value: Column "" for the table's own metrics.
type Key struct {
	Column string
	Metric string
}

// Metrics are the latest values recorded for one table: what a contract
// is evaluated against. A column is known to the scan when any of its
// metrics was recorded (a scan always records distinct_count) or when
// AddColumn named it. The zero value and nil are empty.
type Metrics struct {
	values  map[Key]float64
	columns map[string]struct{}
}

// NewMetrics returns empty metrics.
func NewMetrics() *Metrics {
	return &Metrics{values: map[Key]float64{}, columns: map[string]struct{}{}}
}

// MetricsFromScan collects the metrics of one scan result
// (scanner.Result.Metrics).
func MetricsFromScan(ms []scanner.Metric) *Metrics {
	m := NewMetrics()
	for _, x := range ms {
		m.Set(x.Column, x.Name, x.Value)
	}
	return m
}

// Set records value for column's metric (column "" for the table), the
// later of two values winning.
func (m *Metrics) Set(column, metric string, value float64) {
	if m.values == nil {
		m.values = map[Key]float64{}
	}
	m.values[Key{column, metric}] = value
	if column != "" {
		m.AddColumn(column)
	}
}

// AddColumn records that the scan saw column, whether or not any of its
// metrics was recorded.
func (m *Metrics) AddColumn(column string) {
	if m.columns == nil {
		m.columns = map[string]struct{}{}
	}
	m.columns[column] = struct{}{}
}

// Value is the recorded value of column's metric.
func (m *Metrics) Value(column, metric string) (float64, bool) {
	if m == nil {
		return 0, false
	}
	v, ok := m.values[Key{column, metric}]
	return v, ok
}

// HasColumn reports whether the scan saw column.
func (m *Metrics) HasColumn(column string) bool {
	if m == nil {
		return false
	}
	_, ok := m.columns[column]
	return ok
}

// Len is the number of recorded values.
func (m *Metrics) Len() int {
	if m == nil {
		return 0
	}
	return len(m.values)
}

// Result is the outcome of one rule. Actual is null when the value was
// not recorded; a rule that could not be evaluated has Skipped set, a
// Reason, and Passed false, and does not fail the contract.
type Result struct {
	Metric    string   `json:"metric"`
	Column    string   `json:"column"`
	Operator  string   `json:"operator"`
	Threshold float64  `json:"threshold"`
	Actual    *float64 `json:"actual"`
	Passed    bool     `json:"passed"`
	Severity  string   `json:"severity"`
	Skipped   bool     `json:"skipped"`
	Reason    string   `json:"reason,omitempty"`
}

// Evaluation is the outcome of a contract's rules, one result a rule in
// the rules' order. Passed is true when no rule failed: skipped rules do
// not fail a contract but are listed and counted.
type Evaluation struct {
	Passed    bool     `json:"passed"`
	Evaluated int      `json:"evaluated"`
	Failed    int      `json:"failed"`
	Skipped   int      `json:"skipped"`
	Results   []Result `json:"results"`
}

// Violations are the failed results (not the skipped ones).
func (e Evaluation) Violations() []Result {
	var out []Result
	for _, r := range e.Results {
		if !r.Passed && !r.Skipped {
			out = append(out, r)
		}
	}
	return out
}

// WorstSeverity is the highest severity of a failed rule, "" when none
// failed: the severity of the contract_violation alert.
func (e Evaluation) WorstSeverity() string {
	worst := ""
	for _, r := range e.Violations() {
		if worst == "" || severityRank(r.Severity) > severityRank(worst) {
			worst = r.Severity
		}
	}
	return worst
}

// Evaluate checks rules against the latest metrics of their table. A
// rule is skipped, with the reason, when it is invalid (rules stored
// before a change of the metrics), when its column is not in the scan, or
// when the scan did not record its metric (mean of a text column, shares
// of a table without rows, ...). Empty severities read as
// DefaultSeverity. Comparisons follow Compare.
func Evaluate(rules []Rule, m *Metrics) Evaluation {
	ev := Evaluation{Passed: true, Results: make([]Result, 0, len(rules))}
	for _, rule := range rules {
		res := Result{Metric: rule.Metric, Column: rule.Column, Operator: rule.Operator,
			Threshold: rule.Threshold, Severity: rule.Severity}
		if res.Severity == "" {
			res.Severity = DefaultSeverity
		}
		switch actual, reason := lookup(rule, m); {
		case reason != "":
			res.Skipped, res.Reason = true, reason
		default:
			res.Actual = &actual
			res.Passed, _ = Compare(actual, rule.Operator, rule.Threshold)
		}
		switch {
		case res.Skipped:
			ev.Skipped++
		case res.Passed:
			ev.Evaluated++
		default:
			ev.Evaluated++
			ev.Failed++
			ev.Passed = false
		}
		ev.Results = append(ev.Results, res)
	}
	return ev
}

// lookup finds the value a rule compares, or says why it cannot.
func lookup(rule Rule, m *Metrics) (float64, string) {
	if err := validateRule(rule); err != nil {
		return 0, "invalid rule: " + err.Error()
	}
	if m.Len() == 0 {
		return 0, "no metrics were recorded for the table: it has not been scanned"
	}
	if rule.Column != "" && !m.HasColumn(rule.Column) {
		return 0, fmt.Sprintf("column %q is not in the latest scan of the table", clip(rule.Column))
	}
	v, ok := m.Value(rule.Column, rule.Metric)
	if !ok {
		return 0, notRecorded(rule)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Sprintf("the recorded %s is not a finite number", rule.Metric)
	}
	return v, ""
}

// notRecorded says why a scan records no value of the rule's metric.
func notRecorded(rule Rule) string {
	switch rule.Metric {
	case scanner.MetricMean, scanner.MetricMedian, scanner.MetricStdDev:
		return fmt.Sprintf("%s is recorded for numeric columns only, and column %q is not numeric", rule.Metric, clip(rule.Column))
	case scanner.MetricMin, scanner.MetricMax:
		return fmt.Sprintf("%s is recorded for numeric columns only, and not for columns holding personal data; column %q has none", rule.Metric, clip(rule.Column))
	case scanner.MetricNullRate, scanner.MetricEmptyRate:
		return fmt.Sprintf("%s is not recorded for a table without rows", rule.Metric)
	case scanner.MetricFormatConformance:
		return fmt.Sprintf("format_conformance is recorded only for columns of a recognised format, and column %q has none", clip(rule.Column))
	case scanner.MetricQualityScore:
		return "quality_score is not recorded when the scan's sample has no rows"
	}
	if rule.Column == "" {
		return fmt.Sprintf("%s was not recorded for the table", rule.Metric)
	}
	return fmt.Sprintf("%s was not recorded for column %q", rule.Metric, clip(rule.Column))
}

// RelativeTolerance is how close two values are to count as equal.
const RelativeTolerance = 1e-9

// Equal reports whether a and b are equal within RelativeTolerance of
// the larger magnitude: |a-b| <= 1e-9 * max(|a|, |b|). The tolerance is
// relative only, so 0 equals nothing but 0 (a null_rate of 1e-12, one
// null in a trillion rows, is not 0).
func Equal(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= RelativeTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// Compare reports whether actual op threshold holds. All six operators
// use Equal's notion of equality, so exactly one of <, ==, > holds for
// any two finite values: == is Equal, != its negation, < and > are strict
// and not Equal, <= and >= are < or Equal and > or Equal. An unknown
// operator or a non-finite value is an error (and false).
func Compare(actual float64, op string, threshold float64) (bool, error) {
	if math.IsNaN(actual) || math.IsInf(actual, 0) || math.IsNaN(threshold) || math.IsInf(threshold, 0) {
		return false, fmt.Errorf("cannot compare %v with %v", actual, threshold)
	}
	eq := Equal(actual, threshold)
	switch op {
	case OpEqual:
		return eq, nil
	case OpNotEqual:
		return !eq, nil
	case OpLess:
		return !eq && actual < threshold, nil
	case OpGreater:
		return !eq && actual > threshold, nil
	case OpLessOrEqual:
		return eq || actual < threshold, nil
	case OpGreaterOrEqual:
		return eq || actual > threshold, nil
	}
	return false, fmt.Errorf("unknown operator %q", clip(op))
}
