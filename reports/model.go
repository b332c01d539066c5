// Package reports turns what DQS knows about an organisation's data into
// the PDF reports people file and present: the GDPR record of processing,
// the executive summary and the AI readiness report. It is an engine
// package: data in (Input), PDF bytes out (Render), no database, no
// storage, no clock. The same Input always renders to the same bytes: the
// PDF's dates come from Input.GeneratedAt, never from the time of
// rendering, so golden tests can compare whole files.
//
// Nothing in a report quotes a value of the data: datasets, columns,
// counts, scores and classifications only. Quality issues carry
// examples in the API; reports leave them out.
package reports

import (
	"time"
)

// Kind is a report type, as the API names it.
type Kind string

const (
	GDPRCompliance   Kind = "gdpr_compliance"
	ExecutiveSummary Kind = "executive_summary"
	AIReadiness      Kind = "ai_readiness"
)

// Kinds lists the report types in the order the documentation gives them.
var Kinds = []Kind{GDPRCompliance, ExecutiveSummary, AIReadiness}

// Level is how much a report shows: Basic the organisation-wide picture,
// Advanced adds per-column detail and charts per dataset.
type Level string

const (
	Basic    Level = "basic"
	Advanced Level = "advanced"
)

// Title is the report's title as its cover page prints it.
func (k Kind) Title() string {
	switch k {
	case GDPRCompliance:
		return "GDPR compliance report"
	case ExecutiveSummary:
		return "Executive summary"
	case AIReadiness:
		return "AI readiness report"
	}
	return string(k)
}

// Input is everything a report shows. The service fills it from the
// organisation's data; the engine only lays it out.
type Input struct {
	Kind     Kind
	Level    Level
	ReportID string
	// Organization is the organisation's name (the controller, for the
	// GDPR record).
	Organization string
	// GeneratedAt is the report row's creation time: the date printed on
	// the report and written as the PDF's creation date.
	GeneratedAt time.Time
	// From and To bound the analyses the report covers (nil: unbounded).
	From, To *time.Time
	// Retention is the organisation's retention setting.
	Retention Retention
	// Datasets are the analysed files and scanned tables in scope, each
	// at its latest analysis in the range: the most recently analysed,
	// when the scope holds more (DatasetsInScope counts them all).
	Datasets        []Dataset
	DatasetsInScope int64
	// OpenAlerts are the organisation's unacknowledged alerts (newest
	// first), for the executive summary.
	OpenAlerts []Alert
	// OpenAlertsTotal counts every open alert, when OpenAlerts holds
	// only the newest of them.
	OpenAlertsTotal int64
	// Trend is the organisation's mean quality score per day over the
	// range, oldest first.
	Trend []ScorePoint
	// Readiness is the AI readiness assessment (AI readiness reports).
	Readiness *Assessment
	// GradeHistory lists the grades of the organisation's earlier AI
	// readiness reports, oldest first, without this one.
	GradeHistory []GradePoint
	// Certificate is the certificate issued with an AI readiness report.
	Certificate *Certificate
}

// Retention is how long raw data is kept.
type Retention struct {
	// Mode is short_term, long_term or delete_after_analysis (the
	// organisation's retention_mode).
	Mode string
	// Days is the retention period in days.
	Days int
}

// DatasetKind says where a dataset lives.
type DatasetKind string

const (
	// KindFile is an uploaded file (or an object a scan read).
	KindFile DatasetKind = "file"
	// KindTable is a table of a database or warehouse source.
	KindTable DatasetKind = "table"
)

// Dataset is one file or table at its latest analysis.
type Dataset struct {
	Kind DatasetKind
	// ID is the file id or "source/table" of a table, unique in Input.
	ID string
	// Name is the file name, or the table's name.
	Name string
	// Location says where the data is stored, in words ("uploaded to DQS
	// storage", "PostgreSQL source warehouse, schema public").
	Location   string
	AnalysedAt time.Time
	Rows       int64
	// Score is the quality score (0-100) and Dimensions its parts.
	Score      float64
	Dimensions Dimensions
	// PreviousScore is the score of the analysis before (nil: first).
	PreviousScore *float64
	// History is the dataset's scores over the range, oldest first
	// (advanced charts).
	History []ScorePoint
	Columns []Column
	Issues  []Issue
	// ErasureDueAt is when the raw data is deleted under retention (nil:
	// kept, or a table DQS does not hold); ErasedAt when it was.
	ErasureDueAt *time.Time
	ErasedAt     *time.Time
}

// Dimensions are the quality engine's four dimensions, each 0-100.
type Dimensions struct {
	Completeness float64
	Validity     float64
	Uniqueness   float64
	Consistency  float64
}

// Column is one column's classification and key figures (never values).
type Column struct {
	Name string
	// Type is the inferred type (integer, float, date, string, ...).
	Type string
	// Classification is the label (email, person name, ...), Category
	// its GDPR category (none, personal, special_category) and
	// Confidence the classifier's confidence (0-1).
	Classification string
	Category       string
	Confidence     float64
	// NullRate is the share of null or empty values (0-1); Distinct the
	// distinct count.
	NullRate float64
	Distinct int64
	// Score is the column's quality score (0-100).
	Score float64
}

// Personal reports whether the column holds personal data of any kind.
func (c Column) Personal() bool { return c.Category == "personal" || c.Category == "special_category" }

// Special reports whether the column holds a special category of personal
// data (GDPR Article 9).
func (c Column) Special() bool { return c.Category == "special_category" }

// Issue is a quality issue, without its examples (they are values).
type Issue struct {
	Kind     string
	Column   string
	Severity string // info, warning, critical
	Count    int64
	Message  string
}

// Alert is an open alert.
type Alert struct {
	Kind     string
	Severity string
	Title    string
	RaisedAt time.Time
}

// ScorePoint is a quality score at a time.
type ScorePoint struct {
	At    time.Time
	Score float64
}

// GradePoint is an AI readiness grade at a time.
type GradePoint struct {
	At    time.Time
	Grade string
	Score float64
}

// Certificate is the AI readiness certificate as the report prints it.
type Certificate struct {
	VerificationHash string
	Grade            string
	Score            float64
	Certified        bool
	IssuedAt         time.Time
}
