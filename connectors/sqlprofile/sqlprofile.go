// Package sqlprofile is the plan of a warehouse's push-down profile query,
// shared by the table sources that send one aggregate query (bigquery,
// snowflake): what each select-list item computes (Item) and how one
// result row of it becomes connectors.ColumnMetrics (Decode). The SQL text
// stays with each dialect; only the meaning of the items is common, so
// that the two connectors cannot drift apart in how they read a row (a
// blank count, a format share, the median among the quantiles).
package sqlprofile

import (
	"strconv"

	"github.com/dqs/dqs/connectors"
)

// Metric is what one select-list item of a profile query computes.
type Metric int

// Metrics. Every item but Rows belongs to a column.
const (
	Rows Metric = iota
	Nulls
	Empty
	Distinct
	Min
	Max
	Mean
	StdDev
	// Percentiles is one value holding the 101 percentiles 0..100 of a
	// numeric column (BigQuery's APPROX_QUANTILES(x, 100)); Decode keeps
	// those of Quantiles.
	Percentiles
	// Quantile is one quantile of a numeric column, Item.Quantile its key
	// (Snowflake's APPROX_PERCENTILE, one item a quantile).
	Quantile
	// Format counts the non-blank values matching the column's format.
	Format
)

// Item is one select-list item of the profile query: a metric of column
// Col (-1 for the row count).
type Item struct {
	Col    int
	Metric Metric
	// Quantile is the key of a Quantile item (Quantiles' Key).
	Quantile string
}

// QuantileLevel is a quantile a profile reports: its key (those of the
// file engine's profile.Column.Quantiles) and its rank among 100.
type QuantileLevel struct {
	Key  string
	Rank int
}

// Fraction is the level as a decimal literal (0.01, 0.5, ...).
func (q QuantileLevel) Fraction() string {
	return strconv.FormatFloat(float64(q.Rank)/100, 'f', -1, 64)
}

// Quantiles are the quantiles a profile reports, in order.
var Quantiles = []QuantileLevel{{"p01", 1}, {"p05", 5}, {"p25", 25}, {"p50", 50}, {"p75", 75}, {"p95", 95}, {"p99", 99}}

// Reader reads the values of a result row of type V as the metrics need
// them: the one place a dialect's value representation (bigquery.Value,
// sql.NullString) shows.
type Reader[V any] struct {
	// Int reads a count (0 when it cannot).
	Int func(V) int64
	// Float reads a mean, a standard deviation or a quantile; nil for
	// NULL, NaN or text that is no number.
	Float func(V) *float64
	// Text reads a minimum or maximum; nil for NULL.
	Text func(V) *string
	// List reads the array of a Percentiles item; nil in dialects that
	// plan no such item.
	List func(V) []V
}

// Decode fills the metrics of cols (each with its Name, DataType and
// Numeric set) from row, the values of items in order, and returns the
// profile (Queries left for the caller). row must hold a value per item.
func Decode[V any](cols []connectors.ColumnMetrics, items []Item, row []V, r Reader[V]) *connectors.TableProfile {
	p := &connectors.TableProfile{Columns: cols}
	matched := make([]int64, len(cols))
	hasFormat := make([]bool, len(cols))
	for k, it := range items {
		v := row[k]
		if it.Metric == Rows {
			p.Rows = r.Int(v)
			continue
		}
		m := &p.Columns[it.Col]
		switch it.Metric {
		case Nulls:
			m.Nulls = r.Int(v)
		case Empty:
			m.Empty = r.Int(v)
		case Distinct:
			m.Distinct = r.Int(v)
		case Min:
			m.Min = r.Text(v)
		case Max:
			m.Max = r.Text(v)
		case Mean:
			m.Mean = r.Float(v)
		case StdDev:
			m.StdDev = r.Float(v)
		case Percentiles:
			// A column of nulls has no percentiles at all (NULL, not an
			// array of 101).
			ps := r.List(v)
			if len(ps) == 101 {
				m.Quantiles = map[string]float64{}
				for _, q := range Quantiles {
					setQuantile(m, q.Key, r.Float(ps[q.Rank]))
				}
			}
		case Quantile:
			setQuantile(m, it.Quantile, r.Float(v))
		case Format:
			matched[it.Col] = r.Int(v)
			hasFormat[it.Col] = true
		}
	}
	// A format's share is over the non-null, non-blank values; a column
	// with none conforms vacuously.
	for i := range cols {
		if !hasFormat[i] {
			continue
		}
		m := &p.Columns[i]
		share := 1.0
		if n := p.Rows - m.Nulls - m.Empty; n > 0 {
			share = float64(matched[i]) / float64(n)
		}
		m.FormatConformance = &share
	}
	return p
}

// setQuantile records quantile key of m (nothing for nil); p50 is also
// the median.
func setQuantile(m *connectors.ColumnMetrics, key string, f *float64) {
	if f == nil {
		return
	}
	if m.Quantiles == nil {
		m.Quantiles = map[string]float64{}
	}
	m.Quantiles[key] = *f
	if key == "p50" {
		med := *f
		m.Median = &med
	}
}
