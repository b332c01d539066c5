// Package scanner reads one table or object of a data source into a
// profile and the metric values a scan records: tables are profiled where
// they live (connectors.TableSource.Profile) and classified on a bounded
// random sample, objects are streamed through the file engine without
// touching disk. The classifier and quality checks are those of uploads,
// so a column gets the same label whether it was uploaded or scanned.
//
// It knows nothing of scans, tokens or storage: the scan activities call
// it and keep what it returns.
package scanner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
)

// Kinds of result.
const (
	KindTable  = "table"
	KindObject = "object"
)

// Result is what a scan learns of one table or object.
type Result struct {
	Name string `json:"table_name"`
	Kind string `json:"kind"`
	// Rows is the table's row count (of the whole table, not the sample)
	// or the object's.
	Rows int64 `json:"rows"`
	// BytesRead is what was moved from the source: the object's bytes;
	// for a table, the sample's rows as text (the aggregates move next to
	// nothing).
	BytesRead int64 `json:"bytes_read"`
	// SampleRows is the number of rows classification and the quality
	// checks saw: the sample of a table, every row of an object.
	SampleRows int64 `json:"sample_rows"`
	// Queries is the number of queries a table's profile sent.
	Queries int      `json:"queries,omitempty"`
	Columns []Column `json:"columns"`
	// Quality scores the rows SampleRows counts.
	Quality *quality.Report `json:"quality,omitempty"`
}

// Column is one column's metrics and classification: for a table, the
// push-down metrics as the database computed them; for an object, the
// same metrics of the file engine's profile (DataType then the inferred
// type, FormatConformance the share of the sample its label's validator
// accepts). Min and Max are left out of personal columns, as in uploads'
// profiles: they are values.
type Column struct {
	connectors.ColumnMetrics
	Classification classify.Result `json:"classification"`
}

// Options bound a scan of one table or object.
type Options struct {
	// SampleRows bounds a table's sample (0: DefaultSampleRows).
	SampleRows int
	// Limits bound the memory of an object's analysis, as an upload's.
	// A table's sample is analysed within analysis.MinFileMemory of the
	// same pool.
	Limits analysis.Limits
	// Progress, when set, receives the share done (0..1) as the work goes
	// on, often enough to heartbeat on.
	Progress func(fraction float64)
	// NullTokens are the values that count as nulls in an object and in a
	// table's sample, the organisation's as for its uploads; nil: the
	// defaults. (A table's push-down profile counts SQL NULLs.)
	NullTokens *profile.NullTokens
}

// DefaultSampleRows is the sample a table is classified on.
const DefaultSampleRows = 5000

// ErrBadInput marks a table or object that cannot be scanned as it is (an
// object that is not a data file, a table too wide): a retry will not
// help and the message says why.
var ErrBadInput = errors.New("cannot be scanned")

// Table scans one table: it classifies a random sample, then profiles the
// table in the database (connectors.TableSource.Profile: exact counts over
// the whole table, measures over its sample), measuring each classified
// column's format conformance there.
func Table(ctx context.Context, src connectors.TableSource, table string, opt Options) (*Result, error) {
	progress := opt.progress()
	limit := opt.SampleRows
	if limit <= 0 {
		limit = DefaultSampleRows
	}
	progress(0)
	sample, err := sampleTable(ctx, src, table, limit, opt)
	if err != nil {
		return nil, err
	}
	progress(0.3)
	formats := map[string]string{}
	classes := map[string]classify.Result{}
	if sample != nil {
		for _, c := range sample.Columns {
			classes[c.Name] = c.Classification
			if p, ok := FormatPattern(c.Classification); ok {
				formats[c.Name] = p
			}
		}
	}
	tp, err := src.Profile(ctx, table, formats)
	if err != nil {
		return nil, badInput(err)
	}
	progress(1)
	res := &Result{Name: table, Kind: KindTable, Rows: tp.Rows, Queries: tp.Queries, Columns: make([]Column, len(tp.Columns))}
	if sample != nil {
		res.SampleRows, res.Quality, res.BytesRead = sample.RowCount, &sample.Quality, sampleBytes(sample)
	}
	for i, m := range tp.Columns {
		c := Column{ColumnMetrics: finiteMetrics(m), Classification: classes[m.Name]}
		if c.Classification.Label == "" {
			c.Classification = classify.Result{Label: classify.LabelUnknown, Category: classify.CategoryNone, Evidence: []string{}}
		}
		if c.Classification.Category != classify.CategoryNone {
			c.Min, c.Max = nil, nil
			c.Estimated = slices.DeleteFunc(slices.Clone(c.Estimated), func(f string) bool { return f == "min" || f == "max" })
		}
		res.Columns[i] = c
	}
	return res, nil
}

// finiteMetrics leaves out the figures a database computed that are not
// finite numbers (the mean of a numeric column holding 'Infinity'), which
// no JSON and no metric history can hold.
func finiteMetrics(m connectors.ColumnMetrics) connectors.ColumnMetrics {
	for _, p := range []**float64{&m.Mean, &m.StdDev, &m.Median, &m.FormatConformance} {
		if *p != nil && (math.IsNaN(**p) || math.IsInf(**p, 0)) {
			*p = nil
		}
	}
	if len(m.Quantiles) > 0 {
		q := maps.Clone(m.Quantiles)
		maps.DeleteFunc(q, func(_ string, v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) })
		m.Quantiles = q
	}
	return m
}

// sampleTable analyses a random sample of the table; nil when the table
// has no rows.
func sampleTable(ctx context.Context, src connectors.TableSource, table string, limit int, opt Options) (*analysis.Result, error) {
	r, err := src.Sample(ctx, table, limit)
	if err != nil {
		return nil, badInput(err)
	}
	defer r.Close()
	// The width is checked before a row is read: a sample of a table of
	// thousands of columns would take the memory the profile refuses.
	if n := len(r.Columns()); n > connectors.MaxColumns {
		return nil, fmt.Errorf("%w: %w: table %q has %d columns, more than %d", ErrBadInput, connectors.ErrTooWide, table, n, connectors.MaxColumns)
	}
	res, err := analysis.AnalyzeRecords(ctx, r, analysis.StreamOptions{
		Limits:     analysis.Limits{FileMemory: analysis.MinFileMemory, Pool: opt.Limits.Pool},
		Rows:       int64(limit),
		NullTokens: opt.NullTokens,
	})
	if errors.Is(err, analysis.ErrBadInput) && len(r.Columns()) > 0 {
		// A table without rows: nothing to classify; the profile says
		// what there is to say.
		return nil, nil
	}
	if err != nil {
		return nil, badInput(err)
	}
	return res, nil
}

// sampleBytes is the text a sample moved: the values of its columns, as
// the profile measured their lengths.
func sampleBytes(s *analysis.Result) int64 {
	var n float64
	for _, c := range s.Columns {
		n += c.MeanLength * float64(c.Count-c.Nulls)
	}
	return int64(n)
}

// Object scans one object: the file engine reads it where it is stored,
// through ranged reads, as it reads an upload (format from the key's
// extension, then from the content).
func Object(ctx context.Context, src connectors.ObjectSource, key string, size int64, opt Options) (*Result, error) {
	progress := opt.progress()
	f := connectors.NewRemoteFile(ctx, src, key, size)
	defer f.Close()
	res, err := analysis.Run(ctx, f, key, size, analysis.Dialect{NullTokens: opt.NullTokens}, opt.Limits, func(_ string, fraction float64) { progress(fraction) })
	if err != nil {
		return nil, badInput(err)
	}
	out := &Result{Name: key, Kind: KindObject, Rows: res.RowCount, BytesRead: f.BytesRead(), SampleRows: res.RowCount,
		Quality: &res.Quality, Columns: make([]Column, len(res.Columns))}
	for i, c := range res.Columns {
		col := Column{ColumnMetrics: connectors.ColumnMetrics{Name: c.Name, DataType: c.InferredType, Numeric: c.Mean != nil,
			Nulls: c.Nulls, Empty: c.Empty, Distinct: c.Distinct, Min: c.Min, Max: c.Max, Mean: c.Mean, StdDev: c.StdDev,
			Median: c.Median, Quantiles: maps.Clone(c.Quantiles)}, Classification: c.Classification}
		col.FormatConformance = sampleConformance(c.Classification)
		if c.Classification.Category != classify.CategoryNone {
			col.Min, col.Max = nil, nil
		}
		out.Columns[i] = col
	}
	return out, nil
}

// sampleConformance is the share of a column's checked values its label's
// validator accepts; nil when it has none.
func sampleConformance(cls classify.Result) *float64 {
	c := cls.Conformance
	if c == nil || c.Checked == 0 {
		return nil
	}
	share := float64(c.Checked-c.Failed) / float64(c.Checked)
	return &share
}

// badInput marks the errors a retry will not mend.
func badInput(err error) error {
	if errors.Is(err, analysis.ErrBadInput) || errors.Is(err, connectors.ErrTooWide) ||
		errors.Is(err, connectors.ErrNotFound) || errors.Is(err, connectors.ErrInvalid) {
		if !errors.Is(err, ErrBadInput) {
			return fmt.Errorf("%w: %w", ErrBadInput, err)
		}
	}
	return err
}

func (o Options) progress() func(float64) {
	if o.Progress == nil {
		return func(float64) {}
	}
	return o.Progress
}

// Metric is one value a scan records: Column "" for a table's.
type Metric struct {
	Column string
	Name   string
	Value  float64
}

// Metric names. Shares are fractions in [0, 1].
const (
	MetricRowCount          = "row_count"
	MetricColumnCount       = "column_count"
	MetricQualityScore      = "quality_score"
	MetricNullRate          = "null_rate"
	MetricEmptyRate         = "empty_rate"
	MetricDistinctCount     = "distinct_count"
	MetricMean              = "mean"
	MetricMedian            = "median"
	MetricStdDev            = "stddev"
	MetricMin               = "min"
	MetricMax               = "max"
	MetricFormatConformance = "format_conformance"
)

// MetricNames lists every metric a scan records, table-level first.
var MetricNames = []string{MetricRowCount, MetricColumnCount, MetricQualityScore, MetricNullRate, MetricEmptyRate,
	MetricDistinctCount, MetricMean, MetricMedian, MetricStdDev, MetricMin, MetricMax, MetricFormatConformance}

// Metrics are the numeric metrics of r, the series anomaly detection and
// contracts follow: the table's row_count, column_count and quality_score,
// and per column null_rate and empty_rate (shares of the rows; not recorded
// for a table without rows), distinct_count, and for numeric columns mean,
// median, stddev, min and max, and format_conformance where a format was
// measured. Columns come in the result's order, metrics in MetricNames'.
func (r *Result) Metrics() []Metric {
	out := []Metric{{Name: MetricRowCount, Value: float64(r.Rows)}, {Name: MetricColumnCount, Value: float64(len(r.Columns))}}
	if r.Quality != nil && r.SampleRows > 0 {
		out = append(out, Metric{Name: MetricQualityScore, Value: r.Quality.Score})
	}
	for _, c := range r.Columns {
		add := func(name string, v *float64) {
			if v != nil {
				out = append(out, Metric{Column: c.Name, Name: name, Value: *v})
			}
		}
		if r.Rows > 0 {
			add(MetricNullRate, share(c.Nulls, r.Rows))
			add(MetricEmptyRate, share(c.Empty, r.Rows))
		}
		add(MetricDistinctCount, ptr(float64(c.Distinct)))
		if c.Numeric {
			add(MetricMean, c.Mean)
			add(MetricMedian, c.Median)
			add(MetricStdDev, c.StdDev)
			add(MetricMin, number(c.Min))
			add(MetricMax, number(c.Max))
		}
		add(MetricFormatConformance, c.FormatConformance)
	}
	return out
}

func share(n, of int64) *float64 { return ptr(float64(n) / float64(of)) }

func ptr(v float64) *float64 { return &v }

// number reads a numeric column's min or max; nil when absent or not a
// plain number.
func number(s *string) *float64 {
	if s == nil {
		return nil
	}
	v, err := strconv.ParseFloat(*s, 64)
	if err != nil {
		return nil
	}
	return &v
}

// IsMetric reports whether name is a metric a scan records.
func IsMetric(name string) bool { return slices.Contains(MetricNames, name) }
