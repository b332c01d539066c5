// Package quality turns a profile.Profile into quality scores and issues.
//
// The definitions below are the product's promise; every score is in
// [0, 100] and never NaN, including for an empty table.
//
// Per column, with non-empty = Count − Nulls − Empty:
//
//   - Completeness = 100 × (1 − (Nulls + Empty) / Count); 100 when Count is 0.
//   - Validity and Consistency follow the column's meaning (validity.go):
//     for a column whose label has a validator (e-mail, phone, IBAN, card,
//     national IDs, IP, dates), Validity is 100 × the share of sampled
//     values it accepts and Consistency the share written in the most used
//     layout (dates) or Validity (others); for typed columns, Validity is
//     100 × TypeConformance and Consistency 100 × FormatConformance; for
//     categories, Validity is 100 less the share of values outside the
//     column's set, Consistency 100; for names, addresses, free text and the
//     special categories' vocabularies, both are 100; for other string
//     columns (codes), both are 100 × FormatConformance when the dominant
//     format covers at least 50% of the values, else 100 (free text has no
//     format to violate). Both are 100 for a column with no non-empty value.
//   - Uniqueness = 100: uniqueness is a file-level measure.
//   - Score = 0.35 Completeness + 0.30 Validity + 0.20 Uniqueness +
//     0.15 Consistency.
//
// For the file, Completeness, Validity and Consistency are the means of the
// columns' (100 without columns), Uniqueness = 100 × (1 − DuplicateRows /
// RowCount) (100 without rows), and Score is the same weighted mean of the
// file dimensions. Scores and dimensions are reported with one decimal,
// computed from unrounded values. A duplicate count estimated from a sample
// of the rows (DuplicateRowsEstimated, tables over 1,000,000 distinct rows)
// is used as it is: a table without duplicates gets 0.
//
// Issues (non-empty as above; a share is of Count unless said otherwise):
//
//   - missing_values: nulls + empty values above 5% (warning) or 30%
//     (critical). Count: nulls + empty.
//   - duplicate_rows (file level): any duplicate row (warning), above 10% of
//     the rows (critical). Count: DuplicateRows.
//   - invalid_format (warning), by the column's validity rule: values its
//     label's validator refuses, above 5% of the sample (count scaled from
//     it; examples: refused values); category values outside the column's
//     set; otherwise FormatConformance below 95% where a format is
//     meaningful: codes (string columns whose dominant format covers at
//     least 50%) and boolean, date and datetime columns without a date
//     validator. Numeric columns are left out: the shape of a number varies
//     with its value ("10" and "10.5"). Count: the (estimated) number of
//     non-conforming values; examples: sampled values not in the format.
//   - inconsistent_format (info): a date or timestamp column whose values
//     are written in more than one layout. Count: values not in the most
//     used layout; the message lists the layouts with their counts, the
//     examples show one value of each other layout.
//   - type_mismatch (warning): a typed column where some but less than 5% of
//     the non-empty values do not parse as its type (at 5% or more the
//     profiler would have inferred string). Count: estimated number of such
//     values; examples: sampled ones.
//   - constant_column (info): Distinct == 1 and Count > 1. Count: non-null
//     values; example: the value.
//   - outliers (info): numeric columns with sampled values below
//     p01 − 3×IQR or above p99 + 3×IQR (IQR = p75 − p25). Count: estimate
//     for the column, scaled from the sample; examples: sampled outliers.
//   - inconsistent_case (info): string or boolean columns whose sample holds
//     the same value with different letter case ("Paris", "PARIS"). Count:
//     estimated values not in their group's most frequent spelling;
//     examples: those spellings.
//
// Estimated counts scale what the sample shows to the column's non-empty
// values (exact when the sample holds every value). Issues come most severe
// first, then file level before columns, in column order.
//
// Examples are at most 3 distinct values, shown as they are, as the
// column's top values are, but in personal-data columns, where every
// character but the last two becomes '*' ("0612345678" -> "********78"),
// and values of 1 or 2 characters are masked entirely.
package quality

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// Issue kinds.
const (
	KindMissingValues      = "missing_values"
	KindInvalidFormat      = "invalid_format"
	KindDuplicateRows      = "duplicate_rows"
	KindTypeMismatch       = "type_mismatch"
	KindConstantColumn     = "constant_column"
	KindOutliers           = "outliers"
	KindInconsistentCase   = "inconsistent_case"
	KindInconsistentFormat = "inconsistent_format"
)

// Severities.
const (
	SeverityInfo     = "info"
	SeverityWarning  = "warning"
	SeverityCritical = "critical"
)

// Dimension weights in a score.
const (
	WeightCompleteness = 0.35
	WeightValidity     = 0.30
	WeightUniqueness   = 0.20
	WeightConsistency  = 0.15
)

// Issue is one finding, on a column or ("" Column) on the file.
type Issue struct {
	Kind     string `json:"kind"`
	Column   string `json:"column"`
	Severity string `json:"severity"`
	Count    int64  `json:"count"`
	// Estimated is true when Count is extrapolated from a sample of the
	// column (or of the rows) rather than counted.
	Estimated bool     `json:"estimated,omitempty"`
	Message   string   `json:"message"`
	Examples  []string `json:"examples,omitempty"`
}

// Dimensions are quality measures, each in [0, 100].
type Dimensions struct {
	Completeness float64 `json:"completeness"`
	Validity     float64 `json:"validity"`
	Uniqueness   float64 `json:"uniqueness"`
	Consistency  float64 `json:"consistency"`
}

// ColumnScore is one column's dimensions and score.
type ColumnScore struct {
	Name       string     `json:"name"`
	Dimensions Dimensions `json:"dimensions"`
	Score      float64    `json:"score"`
}

// Report is the assessment of a profile.
type Report struct {
	Score      float64       `json:"score"`
	Dimensions Dimensions    `json:"dimensions"`
	Columns    []ColumnScore `json:"columns"`
	Issues     []Issue       `json:"issues"`
}

const maxExamples = 3

// Meaning is what the classification of a column tells the checks.
type Meaning struct {
	// Personal: the column holds personal data, whose examples are masked.
	Personal bool
	// Label is the column's label (classify); "" when unknown.
	Label string
	// Conformance is the column's sample checked by its label's validator
	// (classify); nil when the label has none.
	Conformance *classify.Conformance
}

// Assess scores a profile. meaning tells per column name what its
// classification says; it may be nil (nothing known). A nil profile is
// assessed as an empty one.
func Assess(p *profile.Profile, meaning func(column string) Meaning) Report {
	if p == nil {
		p = &profile.Profile{}
	}
	if meaning == nil {
		meaning = func(string) Meaning { return Meaning{} }
	}
	rep := Report{Columns: make([]ColumnScore, 0, len(p.Columns)), Issues: []Issue{}}
	var sum Dimensions
	for i := range p.Columns {
		c := &p.Columns[i]
		d := columnDimensions(c, meaning(c.Name))
		sum.Completeness += d.Completeness
		sum.Validity += d.Validity
		sum.Consistency += d.Consistency
		rep.Columns = append(rep.Columns, ColumnScore{Name: c.Name, Dimensions: round(d), Score: round1(score(d))})
	}
	file := Dimensions{Completeness: 100, Validity: 100, Consistency: 100, Uniqueness: 100}
	if n := float64(len(p.Columns)); n > 0 {
		file.Completeness = clamp100(sum.Completeness / n)
		file.Validity = clamp100(sum.Validity / n)
		file.Consistency = clamp100(sum.Consistency / n)
	}
	dups := duplicates(p)
	file.Uniqueness = 100 * (1 - share(dups, p.RowCount))
	rep.Dimensions = round(file)
	rep.Score = round1(score(file))

	if p.RowCount > 0 && dups > 0 {
		sev := SeverityWarning
		if share(dups, p.RowCount) > 0.10 {
			sev = SeverityCritical
		}
		rep.Issues = append(rep.Issues, Issue{Kind: KindDuplicateRows, Severity: sev, Count: dups, Estimated: p.DuplicateRowsEstimated,
			Message: duplicateRowsMessage(dups, p.RowCount, p.DuplicateRowsEstimated)})
	}
	for i := range p.Columns {
		c := &p.Columns[i]
		rep.Issues = append(rep.Issues, columnIssues(c, meaning(c.Name))...)
	}
	rank := map[string]int{SeverityCritical: 0, SeverityWarning: 1, SeverityInfo: 2}
	slices.SortStableFunc(rep.Issues, func(a, b Issue) int { return cmp.Compare(rank[a.Severity], rank[b.Severity]) })
	return rep
}

// duplicates is the duplicate row count to score.
func duplicates(p *profile.Profile) int64 { return max(0, p.DuplicateRows) }

func score(d Dimensions) float64 {
	return clamp100(WeightCompleteness*d.Completeness + WeightValidity*d.Validity +
		WeightUniqueness*d.Uniqueness + WeightConsistency*d.Consistency)
}

func nonEmpty(c *profile.Column) int64 {
	n := max(0, c.Count-max(0, c.Nulls)) // no overflow: Count - [0, MaxInt64]
	return max(0, n-max(0, c.Empty))
}

func nonNull(c *profile.Column) int64 { return max(0, c.Count-max(0, c.Nulls)) }

// missing is Nulls + Empty, saturating.
func missing(c *profile.Column) int64 {
	n, e := max(0, c.Nulls), max(0, c.Empty)
	if n > math.MaxInt64-e {
		return math.MaxInt64
	}
	return n + e
}

func isNumeric(typ string) bool { return typ == profile.TypeInteger || typ == profile.TypeFloat }

func isTyped(typ string) bool {
	switch typ {
	case profile.TypeInteger, profile.TypeFloat, profile.TypeBoolean, profile.TypeDate, profile.TypeDatetime:
		return true
	}
	return false
}

func columnDimensions(c *profile.Column, m Meaning) Dimensions {
	d := Dimensions{Completeness: 100, Validity: 100, Uniqueness: 100, Consistency: 100}
	if c.Count > 0 {
		d.Completeness = 100 * (1 - share(missing(c), c.Count))
	}
	if nonEmpty(c) == 0 {
		return d
	}
	switch rule := validityRuleOf(c, m); rule {
	case ruleValidator:
		v := m.Conformance
		d.Validity = 100 * (1 - float64(v.Failed)/float64(v.Checked))
		d.Consistency = d.Validity
		if len(v.Formats) > 0 {
			d.Consistency = 100 * float64(v.Formats[0].Count) / float64(v.Checked)
		}
	case ruleVocabulary:
		if n, _ := outsideVocabulary(c); n > 0 {
			d.Validity = 100 * (1 - share(n, nonEmpty(c)))
		}
	case ruleTyped:
		d.Validity = 100 * unit(c.TypeConformance)
		d.Consistency = 100 * unit(c.FormatConformance)
	case rulePattern:
		if fc := unit(c.FormatConformance); fc >= 0.5 {
			d.Validity, d.Consistency = 100*fc, 100*fc
		}
	}
	return d
}

func columnIssues(c *profile.Column, m Meaning) []Issue {
	var out []Issue
	add := func(is Issue) {
		if m.Personal {
			for i, e := range is.Examples {
				is.Examples[i] = Mask(e)
			}
		}
		is.Column = c.Name
		out = append(out, is)
	}
	ne := nonEmpty(c)

	if c.Count > 0 {
		m := missing(c)
		msg := missingValuesMessage(c.Name, m, c.Count)
		switch f := share(m, c.Count); {
		case f > 0.30:
			add(Issue{Kind: KindMissingValues, Severity: SeverityCritical, Count: m, Message: msg})
		case f > 0.05:
			add(Issue{Kind: KindMissingValues, Severity: SeverityWarning, Count: m, Message: msg})
		}
	}
	if ne == 0 {
		if c.Distinct == 1 && c.Count > 1 { // e.g. only blanks: still constant
			add(constantColumn(c))
		}
		return out
	}

	for _, is := range validityIssues(c, m, ne) {
		add(is)
	}

	if isTyped(c.InferredType) {
		if m := 1 - unit(c.TypeConformance); m > 0 && m < 0.05 {
			ex := pick(c.Sample, func(v string) bool { return !profile.ParsesAs(c.InferredType, v) })
			n := atLeast1(math.Round(m * float64(ne)))
			add(Issue{Kind: KindTypeMismatch, Severity: SeverityWarning, Count: n, Examples: ex,
				Message: typeMismatchMessage(c.Name, c.InferredType, n, ne)})
		}
	}

	if c.Distinct == 1 && c.Count > 1 {
		add(constantColumn(c))
	}

	if isNumeric(c.InferredType) && outliersMean(m.Label) {
		if o, ok := outliers(c, ne); ok && o.count > 0 {
			add(Issue{Kind: KindOutliers, Severity: SeverityInfo, Count: o.count, Estimated: o.estimated, Examples: o.examples,
				Message: outliersMessage(c.Name, o.count, ne, o.estimated, o.lo, o.hi, m.Personal)})
		}
	}

	if c.InferredType == profile.TypeString || c.InferredType == profile.TypeBoolean {
		if n, ex := caseVariants(c.Sample); n > 0 {
			count, est := scaled(n, len(c.Sample), ne)
			add(Issue{Kind: KindInconsistentCase, Severity: SeverityInfo, Count: count, Estimated: est, Examples: ex,
				Message: inconsistentCaseMessage(c.Name, count, ne, est)})
		}
	}
	return out
}

func constantColumn(c *profile.Column) Issue {
	var ex []string
	if len(c.TopValues) > 0 {
		ex = []string{c.TopValues[0].Value}
	}
	n := nonNull(c)
	return Issue{Kind: KindConstantColumn, Severity: SeverityInfo, Count: n, Examples: ex, Message: constantColumnMessage(c.Name, n)}
}

// caseVariants groups sampled values by their lower-case form and counts
// the ones not spelled as their group's most frequent spelling.
func caseVariants(sample []string) (int, []string) {
	groups := map[string]map[string]int{}
	var order []string
	for _, v := range sample {
		k := strings.ToLower(v)
		g := groups[k]
		if g == nil {
			g = map[string]int{}
			groups[k] = g
			order = append(order, k)
		}
		g[v]++
	}
	n := 0
	var ex []string
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		spellings := make([]string, 0, len(g))
		for s := range g {
			spellings = append(spellings, s)
		}
		slices.SortFunc(spellings, func(a, b string) int {
			if c := cmp.Compare(g[b], g[a]); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		for _, s := range spellings[1:] {
			n += g[s]
			ex = addExample(ex, s)
		}
	}
	return n, ex
}

func pick(sample []string, bad func(string) bool) []string {
	var ex []string
	for _, v := range sample {
		if len(ex) == maxExamples {
			break
		}
		if bad(v) {
			ex = addExample(ex, v)
		}
	}
	return ex
}

func addExample(ex []string, v string) []string {
	if len(ex) < maxExamples && !slices.Contains(ex, v) {
		ex = append(ex, v)
	}
	return ex
}

// scaled estimates how many of the column's total values are like the n
// sampled ones out of sampleLen; estimated is false when the sample holds
// every value.
func scaled(n, sampleLen int, total int64) (count int64, estimated bool) {
	if sampleLen == 0 || int64(sampleLen) >= total {
		return int64(n), false
	}
	return atLeast1(math.Round(float64(n) / float64(sampleLen) * float64(total))), true
}

func atLeast1(f float64) int64 { return max(1, int64(f)) }

// Mask hides a personal value for display: every rune but the last two
// becomes '*', and values of at most two runes are masked entirely
// ("0612345678" -> "********78").
func Mask(v string) string {
	r := []rune(v)
	if n := len(r); n > 2 {
		return strings.Repeat("*", n-2) + string(r[n-2:])
	}
	return strings.Repeat("*", len(r))
}

// share is part/whole in [0, 1]; 0 when whole is not positive.
func share(part, whole int64) float64 {
	if whole <= 0 || part <= 0 {
		return 0
	}
	return min(1, float64(part)/float64(whole))
}

// unit clamps a ratio to [0, 1]; NaN counts as 0.
func unit(f float64) float64 {
	if !(f > 0) {
		return 0
	}
	return min(1, f)
}

func clamp100(f float64) float64 { return 100 * unit(f/100) }

func round1(f float64) float64 { return math.Round(clamp100(f)*10) / 10 }

func round(d Dimensions) Dimensions {
	return Dimensions{round1(d.Completeness), round1(d.Validity), round1(d.Uniqueness), round1(d.Consistency)}
}
