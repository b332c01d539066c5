package anomalies

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/anomaly"
)

// source is one fixture file read as series: a time column, values in
// columns, one series per value column (and per group, when set).
type source struct {
	row    string // the report row
	file   string // under vega-datasets/data
	time   string
	group  string
	values []string
	scale  anomaly.Scale
}

// sources are server-, traffic- and sensor-like series with their noise,
// trends and cycles: daily weather of two cities, hourly normals with a
// daily cycle, monthly CO2 with its yearly one, stock prices, employment
// counts, GitHub activity by the hour.
var sources = []source{
	{"weather daily", "weather.csv", "date", "location", []string{"temp_max", "temp_min", "wind"}, anomaly.Level},
	{"weather hourly", "seattle-weather-hourly-normals.csv", "date", "", []string{"pressure", "temperature", "wind"}, anomaly.Level},
	{"co2 monthly", "co2-concentration.csv", "Date", "", []string{"CO2"}, anomaly.Level},
	{"stocks monthly", "stocks.csv", "date", "symbol", []string{"price"}, anomaly.Level},
	{"employment monthly", "us-employment.csv", "month", "", []string{"nonfarm", "private", "construction", "manufacturing", "retail_trade", "leisure_and_hospitality", "government"}, anomaly.Count},
	{"unemployment monthly", "unemployment-across-industries.json", "date", "series", []string{"count"}, anomaly.Count},
	{"github hourly", "github.csv", "time", "", []string{"count"}, anomaly.Count},
}

const (
	// maxRealLength cuts long series into pieces, each judged on its own
	// (a month of hourly points, a year and a half of daily ones).
	maxRealLength = 500
	// minRealLength leaves out pieces too short to inject into.
	minRealLength = 60
	// maxPieces keeps at most this many pieces of a series, evenly spread
	// over it, so that the 8,760 hourly normals do not outweigh the rest.
	maxPieces = 3
)

// timeLayouts are the fixtures' date formats.
var timeLayouts = []string{time.RFC3339, "2006-01-02", "2006-01-02T15:04:05", "Jan 2 2006", "2006/01/02 15:04:05"}

// RealWorld reads the sources under fixtures and injects labelled
// anomalies. skipped says why there are none when the folder is absent;
// with DQS_REQUIRE_FIXTURES=1 that is an error instead.
func RealWorld(fixtures string) (series []Series, skipped string, err error) {
	pieces, skipped, err := realPieces(fixtures)
	for _, p := range pieces {
		series = append(series, inject(p))
	}
	return series, skipped, err
}

// realPieces is the real-world series before injection.
func realPieces(fixtures string) (series []Series, skipped string, err error) {
	dir := filepath.Join(fixtures, "vega-datasets", "data")
	if _, err := os.Stat(dir); err != nil {
		if os.Getenv("DQS_REQUIRE_FIXTURES") == "1" {
			return nil, "", fmt.Errorf("the real-world anomaly suite needs the shared fixtures and DQS_REQUIRE_FIXTURES=1: %w", err)
		}
		return nil, fmt.Sprintf("no shared fixtures at %s (-fixtures or DQS_FIXTURES)", dir), nil
	}
	for _, src := range sources {
		recs, err := readRecords(filepath.Join(dir, src.file))
		if err != nil {
			return nil, "", err
		}
		for _, s := range src.series(recs) {
			pieces := (len(s.Points) + maxRealLength - 1) / maxRealLength
			for k := range min(pieces, maxPieces) {
				from := maxRealLength * (k * (pieces - 1) / max(1, min(pieces, maxPieces)-1))
				piece := s
				piece.Points = s.Points[from:min(len(s.Points), from+maxRealLength)]
				if len(piece.Points) < minRealLength {
					continue
				}
				piece.Name = fmt.Sprintf("%s@%d", s.Name, from)
				series = append(series, piece)
			}
		}
	}
	return series, "", nil
}

// readRecords reads a CSV file, or a JSON array of flat objects, as one
// map per row.
func readRecords(path string) ([]map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".json") {
		var objs []map[string]any
		if err := json.Unmarshal(data, &objs); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out := make([]map[string]string, len(objs))
		for i, o := range objs {
			out[i] = map[string]string{}
			for k, v := range o {
				out[i][k] = fmt.Sprint(v)
			}
		}
		return out, nil
	}
	rows, err := csv.NewReader(strings.NewReader(string(data))).ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	out := make([]map[string]string, 0, len(rows)-1)
	for _, r := range rows[1:] {
		m := map[string]string{}
		for j, h := range rows[0] {
			if j < len(r) {
				m[h] = r[j]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// series splits recs into one series per group and value column, in time
// order, leaving out rows whose time or value does not parse.
func (src source) series(recs []map[string]string) []Series {
	var out []Series
	byName := map[string]int{}
	for _, rec := range recs {
		at, ok := parseTime(rec[src.time])
		if !ok {
			continue
		}
		for _, col := range src.values {
			v, err := strconv.ParseFloat(rec[col], 64)
			if err != nil {
				continue
			}
			name := src.file + "/" + col
			if src.group != "" {
				name = src.file + "/" + rec[src.group] + "/" + col
			}
			i, ok := byName[name]
			if !ok {
				i = len(out)
				byName[name] = i
				out = append(out, Series{Name: name, Kind: src.row, Metric: col, Scale: src.scale})
			}
			out[i].Points = append(out[i].Points, anomaly.Point{At: at, Value: v})
		}
	}
	for i := range out {
		slices.SortStableFunc(out[i].Points, func(a, b anomaly.Point) int { return a.At.Compare(b.At) })
	}
	return out
}

func parseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// inject adds labelled anomalies to a real series, seeded by its name:
// from the 40th point on, one every 45 to 80 points, a one-point spike or
// (once per series, when 30 points remain) a permanent level shift, each
// 6 to 10 times the series' noise, up or down.
func inject(s Series) Series {
	g := newGen("real/" + s.Name)
	s.Points = slices.Clone(s.Points)
	spread := noise(s.Points)
	shifted := false
	for at := g.intIn(40, 60); at < len(s.Points)-5; at += g.intIn(45, 80) {
		size := g.sign() * g.uniform(6, 10) * spread
		if s.Scale == anomaly.Count && s.Points[at].Value+size < 0 {
			size = -size // counts stay counts
		}
		if !shifted && at < len(s.Points)-30 && g.chance(0.35) {
			shifted = true
			for i := at; i < len(s.Points); i++ {
				s.Points[i].Value += size
			}
			s.Windows = append(s.Windows, Window{at, at + shiftWindow - 1})
			continue
		}
		s.Points[at].Value += size
		s.Windows = append(s.Windows, Window{at, at})
	}
	return s
}

// noise is a series' robust point-to-point spread: 1.4826 MAD of its
// first differences over √2, which trends and slow cycles hardly move;
// falling back to the spread of the values, then to 1, when the
// differences are mostly zero.
func noise(points []anomaly.Point) float64 {
	diffs := make([]float64, 0, len(points))
	vals := make([]float64, 0, len(points))
	for i, p := range points {
		vals = append(vals, p.Value)
		if i > 0 {
			diffs = append(diffs, p.Value-points[i-1].Value)
		}
	}
	if s := 1.4826 * mad(diffs) / math.Sqrt2; s > 0 {
		return s
	}
	if s := 1.4826 * mad(vals); s > 0 {
		return s
	}
	return 1
}

// mad is the median absolute deviation from the median.
func mad(vs []float64) float64 {
	m := median(vs)
	d := make([]float64, len(vs))
	for i, v := range vs {
		d[i] = math.Abs(v - m)
	}
	return median(d)
}

func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(vs))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
