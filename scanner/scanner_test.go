package scanner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/internal/fixtures"
	"github.com/dqs/dqs/quality"
)

func TestLayoutPattern(t *testing.T) {
	for _, tc := range []struct {
		layout    string
		match, no []string
	}{
		{"YYYY-MM-DD", []string{"2026-11-27"}, []string{"27/11/2026", "2026-11-27x", "26-11-27"}},
		{"DD/MM/YYYY", []string{"27/11/2026"}, []string{"2026-11-27", "27/11/26"}},
		{"D/M/YYYY", []string{"7/1/2026", "27/11/2026"}, []string{"7-1-2026"}},
		{"YYYY-MM-DD hh:mm:ss", []string{"2026-11-27 08:00:00", "2026-11-27T08:00:00"}, []string{"2026-11-27"}},
		{"YYYY-MM-DD hh:mm:ss.fff", []string{"2026-11-27 08:00:00.123", "2026-11-27 08:00:00"}, []string{"2026-11-27 08:00"}},
		{"DD.MM.YYYY", []string{"27.11.2026"}, []string{"27x11x2026"}},
	} {
		p, ok := layoutPattern(tc.layout)
		if !ok {
			t.Errorf("layoutPattern(%q) refused", tc.layout)
			continue
		}
		re := regexp.MustCompile(p)
		for _, v := range tc.match {
			if !re.MatchString(v) {
				t.Errorf("%s (%s) does not match %q", tc.layout, p, v)
			}
		}
		for _, v := range tc.no {
			if re.MatchString(v) {
				t.Errorf("%s (%s) matches %q", tc.layout, p, v)
			}
		}
	}
	for _, layout := range []string{"Month D, YYYY", "YYYY-MM-DD hh:mm:ss±hh:mm", "DD Mon YYYY"} {
		if p, ok := layoutPattern(layout); ok {
			t.Errorf("layoutPattern(%q) = %q, want refused: it would guess", layout, p)
		}
	}
}

func TestLabelPatterns(t *testing.T) {
	for label, tc := range map[string]struct{ match, no []string }{
		classify.LabelEmail:      {[]string{"ada@example.com", "a.b+c@mail.example.org"}, []string{"ada@", "ada example.com", "a@b@c.com"}},
		classify.LabelPhone:      {[]string{"+46 70 123 45 67", "(555) 123-4567"}, []string{"call me", "12"}},
		classify.LabelIBAN:       {[]string{"SE4550000000058398257466", "DE89 3704 0044 0532 0130 00"}, []string{"se45", "1234567890123456"}},
		classify.LabelIP:         {[]string{"192.168.0.1"}, []string{"192.168.0", "host"}},
		classify.LabelMAC:        {[]string{"00:1A:2b:3C:4d:5E", "00-1A-2B-3C-4D-5E"}, []string{"00:1A:2B"}},
		classify.LabelURL:        {[]string{"https://example.com/a?b=c"}, []string{"example.com", "http:// x"}},
		classify.LabelPostalCode: {[]string{"114 55", "SW1A 1AA", "90210"}, []string{"", "a very long postal code"}},
	} {
		p, ok := FormatPattern(classify.Result{Label: label})
		if !ok {
			t.Errorf("%s has no pattern", label)
			continue
		}
		re := regexp.MustCompile(p) // RE2, as BigQuery reads it
		for _, v := range tc.match {
			if !re.MatchString(v) {
				t.Errorf("%s pattern %s does not match %q", label, p, v)
			}
		}
		for _, v := range tc.no {
			if re.MatchString(v) {
				t.Errorf("%s pattern %s matches %q", label, p, v)
			}
		}
	}
	date := classify.Result{Label: classify.LabelDate, Conformance: &classify.Conformance{Formats: []classify.FormatCount{{Format: "DD/MM/YYYY", Count: 9}}}}
	if p, ok := FormatPattern(date); !ok || p != "^[0-9]{2}/[0-9]{2}/[0-9]{4}$" {
		t.Errorf("date pattern = %q, %v", p, ok)
	}
	if _, ok := FormatPattern(classify.Result{Label: classify.LabelFreeText}); ok {
		t.Error("free text has a pattern")
	}
}

func f(v float64) *float64 { return &v }
func s(v string) *string   { return &v }

// TestMetrics compares Metrics with the values worked out by hand.
func TestMetrics(t *testing.T) {
	r := &Result{Rows: 200, SampleRows: 200, Quality: &quality.Report{Score: 87.5}, Columns: []Column{
		{ColumnMetrics: connectors.ColumnMetrics{Name: "email", Nulls: 20, Empty: 10, Distinct: 170, Min: s("a"), FormatConformance: f(0.95)}},
		{ColumnMetrics: connectors.ColumnMetrics{Name: "age", Numeric: true, Nulls: 0, Distinct: 60, Min: s("18"), Max: s("77"), Mean: f(42.5), Median: f(41), StdDev: f(12.25)}},
		{ColumnMetrics: connectors.ColumnMetrics{Name: "code", Numeric: true, Distinct: 3, Min: s("1,5")}},
	}}
	want := []Metric{
		{"", "row_count", 200}, {"", "column_count", 3}, {"", "quality_score", 87.5},
		{"email", "null_rate", 0.1}, {"email", "empty_rate", 0.05}, {"email", "distinct_count", 170}, {"email", "format_conformance", 0.95},
		{"age", "null_rate", 0}, {"age", "empty_rate", 0}, {"age", "distinct_count", 60}, {"age", "mean", 42.5}, {"age", "median", 41},
		{"age", "stddev", 12.25}, {"age", "min", 18}, {"age", "max", 77},
		{"code", "null_rate", 0}, {"code", "empty_rate", 0}, {"code", "distinct_count", 3},
	}
	if got := r.Metrics(); !reflect.DeepEqual(got, want) {
		t.Errorf("Metrics =\n%v\nwant\n%v", got, want)
	}
	empty := &Result{Rows: 0, Columns: []Column{{ColumnMetrics: connectors.ColumnMetrics{Name: "x"}}}}
	if got := empty.Metrics(); !reflect.DeepEqual(got, []Metric{{"", "row_count", 0}, {"", "column_count", 1}, {"x", "distinct_count", 0}}) {
		t.Errorf("Metrics of an empty table = %v", got)
	}
	for _, m := range want {
		if !IsMetric(m.Name) {
			t.Errorf("%s is recorded but not in MetricNames", m.Name)
		}
	}
}

// memObjects is an object store in memory, a stand-in for a bucket so
// that Object can be compared with the analysis of the same bytes read
// from a file; the S3 and GCS connectors are tested against real
// emulators in their own packages and through the API.
type memObjects map[string][]byte

func (m memObjects) List(context.Context) ([]connectors.Table, error) { return nil, nil }
func (m memObjects) Close() error                                     { return nil }
func (m memObjects) Open(_ context.Context, key string, off, n int64) (io.ReadCloser, error) {
	b, ok := m[key]
	if !ok {
		return nil, connectors.ErrNotFound
	}
	off = min(off, int64(len(b)))
	end := int64(len(b))
	if n >= 0 {
		end = min(end, off+n)
	}
	return io.NopCloser(bytes.NewReader(b[off:end])), nil
}

// TestObjectMatchesUpload: an object read where it is stored gets the
// analysis the same file gets when uploaded, over real-world files.
func TestObjectMatchesUpload(t *testing.T) {
	var files []string
	for _, sub := range []string{"vega-datasets/data", "parquet-testing/data", "csv-spectrum/csvs"} {
		dir := fixtures.Dir(t, sub)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			ext := strings.ToLower(filepath.Ext(e.Name()))
			if !e.IsDir() && connectors.SupportedExtension(e.Name()) && (ext != ".parquet" || len(files)%3 == 0) {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	sort.Strings(files)
	compared := 0
	for _, path := range files {
		info, err := os.Stat(path)
		if err != nil || info.Size() > 8<<20 {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		key := "data/" + filepath.Base(path)
		fh, _ := os.Open(path)
		want, wantErr := analysis.Run(context.Background(), fh, key, info.Size(), analysis.Dialect{}, analysis.Limits{}, nil)
		fh.Close()
		got, err := Object(context.Background(), memObjects{key: data}, key, info.Size(), Options{})
		if wantErr != nil {
			if err == nil {
				t.Errorf("%s: upload fails (%v) but the object scans", path, wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		compared++
		if got.Rows != want.RowCount || len(got.Columns) != len(want.Columns) || got.BytesRead < info.Size() {
			t.Errorf("%s: rows %d/%d, columns %d/%d, bytes read %d of %d", path, got.Rows, want.RowCount, len(got.Columns), len(want.Columns), got.BytesRead, info.Size())
			continue
		}
		if got.Quality.Score != want.Quality.Score {
			t.Errorf("%s: quality %v, upload %v", path, got.Quality.Score, want.Quality.Score)
		}
		for i, c := range want.Columns {
			g := got.Columns[i]
			if g.Name != c.Name || g.Nulls != c.Nulls || g.Empty != c.Empty || g.Distinct != c.Distinct ||
				g.Classification.Label != c.Classification.Label || !reflect.DeepEqual(g.Mean, c.Mean) {
				t.Errorf("%s: column %s differs from the upload's", path, c.Name)
			}
		}
	}
	if compared < 20 {
		t.Fatalf("compared %d files; the fixtures should give many more", compared)
	}
}

func TestObjectNotADataFile(t *testing.T) {
	objs := memObjects{"x/broken.parquet": []byte("this is not parquet"), "x/empty.csv": {}}
	for key, b := range objs {
		_, err := Object(context.Background(), objs, key, int64(len(b)), Options{})
		if !isBadInput(err) {
			t.Errorf("%s: err = %v, want ErrBadInput", key, err)
		}
	}
}

func isBadInput(err error) bool { return errors.Is(err, ErrBadInput) }

// TestFiniteMetrics: figures a database computed that are not finite are
// left out; finite ones, and the others of the column, stay.
func TestFiniteMetrics(t *testing.T) {
	inf, nan, one := math.Inf(1), math.NaN(), 1.0
	m := finiteMetrics(connectors.ColumnMetrics{Name: "amount", Numeric: true, Nulls: 3, Mean: &inf, StdDev: &nan, Median: &one,
		Quantiles: map[string]float64{"p01": math.Inf(-1), "p50": 1}})
	if m.Mean != nil || m.StdDev != nil || m.Median == nil || *m.Median != 1 || m.Nulls != 3 || len(m.Quantiles) != 1 || m.Quantiles["p50"] != 1 {
		t.Fatalf("finiteMetrics = %+v", m)
	}
	if _, err := json.Marshal(m); err != nil {
		t.Fatal(err)
	}
}
