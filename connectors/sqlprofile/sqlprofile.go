// Package sqlprofile is the plan of a warehouse's push-down profile query,
// shared by the table sources that send one aggregate query (bigquery,
// snowflake): what each select-list item computes (Item) and how one
// result row of it becomes connectors.ColumnMetrics (Decode). The SQL text
// stays with each dialect; only the meaning of the items is common, so
// that the two connectors cannot drift apart in how they read a row (a
// blank count, a format share, the median among the quantiles).
//
// A sampled profile (connectors.Options.SampledProfile) is common too: Run
// sends the dialect's row count, then its aggregate query over a block
// sample of SamplePercent of the table (or over the whole table when it
// holds no more than SampleRows), and Scale turns the sample's figures
// into the table's, naming them in ColumnMetrics.Estimated.
package sqlprofile

import (
	"math"
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

// SampleTarget is the number of rows a sampled profile reads from a table
// of up to SampleCells/SampleTarget (20) columns, the same as PostgreSQL's
// sample pass (postgresql.SampleTarget), so that every table source
// estimates with the same precision: for rows drawn at random, 100,000 of
// them put the standard error of a share (nulls, a format's conformance)
// and the rank error of a quantile at most 0.16 percentage point, whatever
// the table's size (block sampling draws rows by blocks: less precise
// when equal values are stored together). A table of at most that many
// rows is read whole (its figures exact): sampling it would save little.
const SampleTarget = 100_000

// SampleSeed is the seed of a sampled profile's block sample wherever the
// dialect takes one (Snowflake's SAMPLE SYSTEM (p) SEED (n), on tables
// only), and of PostgreSQL's TABLESAMPLE (postgresql.SampleSeed, its
// ... REPEATABLE): which blocks a sample draws is random, but the same
// from one profile to the next while the table is unchanged, so that two
// scans of an unchanged table report the same estimates and the trends
// between scans are the table's, not the sample's. It is within the seeds
// Snowflake accepts (0 to 2147483647).
const SampleSeed = 20261127

// SampleCells bounds the values (rows times columns) of a sample: a wider
// table is sampled in fewer rows, never fewer than MinSampleRows, so that
// the bytes read (billed, in BigQuery) stay those of about 2,000,000
// values. As PostgreSQL's.
const (
	SampleCells   = 2_000_000
	MinSampleRows = 1_000
)

// SampleRows is the number of rows a sampled profile of a table of cols
// columns aims at: SampleTarget, fewer past 20 columns.
func SampleRows(cols int) int64 {
	return min(SampleTarget, max(MinSampleRows, SampleCells/int64(max(cols, 1))))
}

// SamplePercent is the share of a table of rows rows, in percent, that a
// sample of about target rows reads: 100·target/rows rounded up to three
// significant digits (so the literal stays short and the sample is never
// below target on average), in (0, 100]. It is 100 (read the whole table)
// when rows is at most target, or so little more that the share rounds up
// to 100.
func SamplePercent(rows, target int64) float64 {
	if rows <= target || target <= 0 {
		return 100
	}
	p := 100 * float64(target) / float64(rows)
	// p·10^k (k ≥ 1, p being below 100) has three digits before the
	// point; dividing its rounded-up integer by the power of ten gives the
	// double nearest to that decimal, which PercentLiteral writes back
	// exactly. The factor below 1 keeps a product that floating point
	// puts a hair above an integer from rounding up a step.
	scale := math.Pow10(2 - int(math.Floor(math.Log10(p))))
	return min(100, math.Ceil(p*scale*(1-1e-12))/scale)
}

// PercentLiteral writes a sample percentage (SamplePercent's) as a
// decimal SQL literal, never in exponent notation: 0.811, 0.000123, 100.
// The percentage is a number the connector computes, so the literal is
// the only text it puts into a dialect's sample clause.
func PercentLiteral(p float64) string {
	return strconv.FormatFloat(p, 'f', -1, 64)
}

// Query runs one aggregate query of a profile, over the whole table when
// percent is 100 and otherwise over a block sample of percent of it, and
// returns its decoded row (Decode: TableProfile.Rows is the rows it read)
// and the items of its plan.
type Query func(percent float64) (*connectors.TableProfile, []Item, error)

// Run profiles a table whose aggregate query is query: with sampled false,
// that query over the whole table alone; with sampled (a sampled profile,
// connectors.Options.SampledProfile), count first (the exact row count,
// SELECT COUNT(*)), then the aggregate query over a sample of about
// SampleRows(cols) rows, scaled to the table's rows (Scale), or over the
// whole table when it holds no more than that (figures exact, nothing
// Estimated). A sample of no rows at all (a small share of a table of few
// blocks may draw none) gives way to the query over the whole table.
// TableProfile.Queries is the number of queries Run sent.
//
// Whether a sample read the whole table is told by its rows (rows, the
// count, and read, the rows the sample counted):
//
//   - read == rows: the sample drew every block (BigQuery reads a table of
//     one block whole; a table of one micro-partition in Snowflake is
//     drawn whole or not at all): its figures are the table's, kept exact
//     (distinct too, counted exactly over the sample). A sample of only
//     some blocks that adds up to the count exactly would need the table
//     to have changed between the two queries by as many rows as the
//     unread blocks hold: not worth a query to rule out.
//   - read > rows: the table grew between the count and the sample, and
//     the rows alone cannot tell a sample that drew every block of the
//     grown table from one that drew some of them (a genuine sample
//     holding more rows than the stale count), whose figures kept as
//     exact would be neither exact nor the table's. So count is sent
//     again: a count equal to read is the whole table, read (its figures
//     exact, Rows read); any other is a sample of a table still changing,
//     scaled to the larger of the new count and read (Rows never below
//     the rows the sample counted, so that no figure describes more rows
//     than Rows). The recount replaces the exact fallback, which it
//     excludes: at most three queries either way.
//   - 0 < read < rows: a sample, scaled to rows. (A table that shrank
//     between the queries and was read whole is then scaled up a little,
//     by the share of rows deleted in between.)
func Run(sampled bool, cols int, count func() (int64, error), query Query) (*connectors.TableProfile, error) {
	sent := 0
	if sampled {
		rows, err := count()
		if err != nil {
			return nil, err
		}
		sent++
		if pct := SamplePercent(rows, SampleRows(cols)); pct < 100 {
			p, items, err := query(pct)
			if err != nil {
				return nil, err
			}
			sent++
			read := p.Rows
			if read > rows {
				if rows, err = count(); err != nil {
					return nil, err
				}
				sent++
			}
			switch {
			case read > 0 && read == rows:
				// Every block was drawn: the table's figures, exact.
				p.Queries = sent
				return p, nil
			case read > 0:
				Scale(p, items, max(rows, read))
				p.Queries = sent
				return p, nil
			}
		}
	}
	p, _, err := query(100)
	if err != nil {
		return nil, err
	}
	p.Queries = sent + 1
	return p, nil
}

// Scale turns p, decoded from the aggregate query (items) over a sample of
// p.Rows rows, into the profile of the table of rows rows: counts (nulls,
// blanks) are scaled to the table's rows, round(sampled·rows/p.Rows);
// distinct is estimated by EstimateDistinct; the other figures (min, max,
// mean, stddev, median, quantiles, the format share) are the sample's as
// they are. Each column's Estimated names the figures of it that came from
// the sample, by their JSON names: those its plan has items for (a column
// with none, a BigQuery ARRAY, has nothing estimated) and that are set.
// p.Rows becomes rows. p.Rows must be positive.
func Scale(p *connectors.TableProfile, items []Item, rows int64) {
	read := p.Rows
	planned := make([]map[Metric]bool, len(p.Columns))
	for _, it := range items {
		if it.Col < 0 || it.Col >= len(planned) {
			continue
		}
		if planned[it.Col] == nil {
			planned[it.Col] = map[Metric]bool{}
		}
		planned[it.Col][it.Metric] = true
	}
	scale := func(n int64) int64 {
		return min(rows, max(0, int64(math.Round(float64(n)*float64(rows)/float64(read)))))
	}
	for i := range p.Columns {
		m, has := &p.Columns[i], planned[i]
		if has == nil {
			continue
		}
		var est []string
		nonNull := read - m.Nulls // sampled
		if has[Nulls] {
			m.Nulls = scale(m.Nulls)
			est = append(est, "nulls")
		}
		if has[Empty] {
			m.Empty = min(scale(m.Empty), rows-m.Nulls)
			est = append(est, "empty")
		}
		if has[Distinct] {
			m.Distinct = EstimateDistinct(m.Distinct, nonNull, rows-m.Nulls)
			est = append(est, "distinct")
		}
		for _, f := range []struct {
			name string
			set  bool
		}{
			{"min", m.Min != nil}, {"max", m.Max != nil}, {"mean", m.Mean != nil}, {"stddev", m.StdDev != nil},
			{"median", m.Median != nil}, {"quantiles", len(m.Quantiles) > 0}, {"format_conformance", m.FormatConformance != nil},
		} {
			if f.set {
				est = append(est, f.name)
			}
		}
		m.Estimated = est
	}
	p.Rows = rows
}

// EstimateDistinct estimates a column's distinct non-null values in a
// table of N non-null values from a sample of n of them holding d distinct
// ones (counted exactly over the sample): a method-of-moments estimator
// for values of equal frequencies (the kind Haas, Naughton, Seshadri and
// Stokes compare in "Sampling-based estimation of the number of distinct
// values of an attribute", VLDB 1995), the D for which a sample drawing
// each of N rows with probability n/N, from D values held N/D times each,
// is expected to hold d distinct values: D·(1 − (1 − n/N)^(N/D)) = d,
// solved by bisection. A column unique in the sample (d = n) is estimated
// unique in the table (N); one whose values all recur many times in the
// sample keeps about d. It is right on average for values of equal
// frequencies drawn row by row (98,000 distinct among 99,000 sampled of
// 12,345,678 give about 3,500,000, each value about 3.5 times); it
// under-estimates skewed columns (values rare in the table are mostly
// missed and not made up for) and values stored together (a block sample
// sees their repeats together), possibly by as much as the factor N/n,
// and over-estimates, up to N, a column whose values recur too rarely for
// the sample to hold a repeat. The result is clamped to [d, N]; N 0
// gives 0.
func EstimateDistinct(d, n, N int64) int64 {
	switch {
	case N <= 0 || d <= 0:
		return 0
	case n >= N:
		return min(d, N)
	case d >= n:
		return N
	}
	q := float64(n) / float64(N)
	l := math.Log1p(-q) // < 0
	expected := func(D float64) float64 { return -D * math.Expm1(float64(N)/D*l) }
	lo, hi := float64(d), float64(N)
	for range 200 {
		mid := (lo + hi) / 2
		if expected(mid) < float64(d) {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 0.25 {
			break
		}
	}
	return min(max(int64(math.Round((lo+hi)/2)), d), N)
}
