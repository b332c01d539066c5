// Package contracts holds data contracts: rules over the metrics a scan
// records for a table (scanner.MetricNames), their validation, their
// evaluation against the table's latest metrics, and their import from
// and export to the quality section of an Open Data Contract Standard
// (ODCS v3) document. It knows nothing of storage or HTTP.
//
// # Rules
//
// A Rule compares one metric with a threshold: row_count, column_count
// and quality_score belong to the table and take no column; null_rate,
// empty_rate, distinct_count, mean, median, stddev, min, max and
// format_conformance take one. Operators are >=, <=, >, <, == and !=;
// severities info, warning and critical, an empty severity meaning
// warning (Normalize fills it in). Thresholds are finite and within the
// metric's domain: shares (null_rate, empty_rate, format_conformance) in
// [0, 1], quality_score in [0, 100], counts not negative. A contract has
// at most MaxRules rules.
//
// # Evaluation
//
// Evaluate compares each rule with the table's latest value. Two values
// are equal within a relative 1e-9 (Equal), and every operator uses that
// equality, so exactly one of <, ==, > holds. A rule whose column is not
// in the scan, or whose metric was not recorded (mean of a text column,
// shares of an empty table, format_conformance of a column of no known
// format), is skipped with the reason; skipped rules are listed and
// counted but do not fail the contract.
//
// # ODCS
//
// Import reads one schema object (a table) of an ODCS v3 document, YAML
// or JSON, and maps each quality item of the object and of its properties
// (columns) to rules; an item it cannot evaluate exactly is listed in
// Imported.Skipped with the reason, never dropped. Comparisons: mustBe
// ==, mustNotBe !=, mustBeGreaterThan >, mustBeGreaterOrEqualTo >=,
// mustBeLessThan <, mustBeLessOrEqualTo <=; mustBeBetween [a, b] is two
// rules, >= a and <= b (inclusive, as SQL's BETWEEN and the engines that
// run ODCS read it); mustNotBeBetween [a, b] is one rule when a bound is
// at the edge of the metric's domain (< a when b reaches it, > b when a
// does) and skipped otherwise, for "below a or above b" is not a
// conjunction of rules. An item with several operators makes one rule
// each. Severity error, critical or fatal reads as critical, warning or
// warn as warning, info as info; absent as warning; another as warning
// with a Note.
//
//	ODCS item                                DQS rules
//	rowCount (schema level), unit rows       row_count, same operator and threshold
//	nullValues (property), unit percent      null_rate, threshold / 100 (exact decimal shift)
//	nullValues, unit rows (the default)      null_rate == 0 when the condition means "no nulls"
//	                                         (mustBe 0, mustBeLessThan 1, ...), null_rate > 0
//	                                         when it means "some nulls"; otherwise skipped
//	missingValues without arguments, or      as nullValues
//	  with missingValues [null] only
//	custom, engine dqs                       the rule in its implementation {metric,
//	                                         operator, threshold}: what Export writes
//
// Skipped, and why:
//
//   - type text: a description for people, nothing to measure.
//   - type sql: it runs its own query; DQS runs no contract SQL.
//   - type custom of another engine (soda, greatExpectations, ...).
//   - missingValues counting values besides null (the empty string, N/A): DQS records
//     nulls and empty text apart (null_rate, empty_rate), and the sum of
//     two metrics is not a rule.
//   - invalidValues (validValues or pattern): scans count no values
//     against a contract's list or pattern.
//   - duplicateValues: at property level it needs an exact duplicate
//     count, and DQS's distinct_count is approximate and would be compared
//     with a second metric; at schema level it spans several columns.
//   - nullValues in rows other than "none" or "some": the row count is not
//     known when the contract is written, and null_rate is a share.
//   - rowCount in percent, or at property level; nullValues, missingValues
//     or invalidValues at schema level.
//   - units other than rows and percent; unknown metrics, types or
//     operator keys; operator values that are not finite numbers; a
//     mustBeBetween whose bounds are out of order; a percent outside
//     [0, 100]; a threshold outside the metric's domain.
//   - items of nested properties (an object's fields, an array's items):
//     scans measure a table's top-level columns.
//
// Export writes a contract as an ODCS v3.1.0 document with one schema
// object: row_count rules as rowCount items, null_rate rules as
// nullValues items in percent, every other rule as a custom item of
// engine dqs, one operator an item. Import reads it back to the same
// rules, exactly: percents are written and read by moving the decimal
// point in the number's text, not by multiplying floats (a tool that
// rewrites the document through float64 may move a percent of 17
// significant digits by one unit in the last place).
package contracts
