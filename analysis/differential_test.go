package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
	"github.com/dqs/dqs/readers"
)

// The differential test: every file of the shared fixtures (Parquet
// conformance files, real-world data files, CSV conformance files) and 80
// generated files shaped like real exports (corpus_test.go) is read
// row by row and profiled by the oracle (oracle_test.go), and profiled by
// the engine the way an analysis does (the batch pipeline, typed Parquet
// columns as values); every column figure must be the oracle's: equal for
// exact figures, within rounding for the mean and standard deviation.
// Quantiles are not compared yet: they are a sketch's, with a relative
// error bound, until they get an exact definition.

// fixturesDir is the shared fixtures folder (DQS_FIXTURES, default
// ../shared/fixtures from the repository root); without it the test fails
// when DQS_REQUIRE_FIXTURES=1 and is skipped otherwise.
func fixturesDir(t testing.TB) string {
	t.Helper()
	root := os.Getenv("DQS_FIXTURES")
	if root == "" {
		root = filepath.Join("..", "shared", "fixtures")
	}
	if !filepath.IsAbs(root) {
		root = filepath.Join("..", root)
	}
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("DQS_REQUIRE_FIXTURES") == "1" {
			t.Fatalf("test fixtures %s are missing and DQS_REQUIRE_FIXTURES=1: %v", root, err)
		}
		t.Skipf("test fixtures %s not found (set DQS_FIXTURES): %v", root, err)
	}
	return root
}

// corpus lists the fixture files the differential test reads.
func corpus(t *testing.T) []string {
	root := fixturesDir(t)
	var files []string
	for _, dir := range []string{"parquet-testing/data", "vega-datasets", "csv-spectrum/csvs"} {
		err := filepath.Walk(filepath.Join(root, dir), func(p string, info os.FileInfo, err error) error {
			if err != nil || info.IsDir() {
				return err
			}
			switch filepath.Ext(p) {
			case ".parquet", ".csv", ".tsv", ".json":
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(files)
	return files
}

// oracleRows reads every row of the file through Next, the reference
// reader, as columns of cells.
func oracleRows(path string) (cols []string, cells [][]oracleCell, rows [][]oracleCell, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	r, err := readers.Open(f, filepath.Base(path), readers.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	defer r.Close()
	cols = r.Columns()
	cells = make([][]oracleCell, len(cols))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return cols, cells, rows, nil
		}
		if err != nil {
			return nil, nil, nil, err
		}
		row := make([]oracleCell, len(cols))
		for i := range cols {
			row[i] = oracleCell{value: rec.Values[i], null: rec.Null[i]}
			cells[i] = append(cells[i], row[i])
		}
		rows = append(rows, row)
	}
}

// engineProfile profiles the file as an analysis does.
func engineProfile(path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := readers.Open(f, filepath.Base(path), readers.Options{OnePass: true})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	p, err := profileParallel(context.Background(), r, profile.Options{}, 2, func() int64 { return 0 }, nil)
	if err != nil {
		return nil, err
	}
	res := p.Result()
	if g, ok := r.(readers.GrowingReader); ok {
		res.Columns = keepColumns(res.Columns, g.Kept())
	}
	return res, nil
}

func TestEngineAgreesWithTheOracle(t *testing.T) {
	files := append(corpus(t), writeGenerated(t, t.TempDir(), 80)...)
	if len(files) < 200 {
		t.Fatalf("the corpus holds %d files, fewer than 200", len(files))
	}
	compared, figures := 0, 0
	for _, path := range files {
		name := strings.TrimPrefix(path, fixturesDir(t)+"/")
		if strings.HasPrefix(filepath.Base(path), "gen") {
			name = filepath.Base(path)
		}
		cols, cells, rows, oerr := oracleRows(path)
		got, eerr := engineProfile(path)
		if oerr != nil || eerr != nil {
			// A file either reader refuses: both must refuse it.
			if (oerr == nil) != (eerr == nil) {
				t.Errorf("%s: the reference reader says %v, the analysis %v", name, oerr, eerr)
			}
			continue
		}
		compared++
		if got.RowCount != int64(len(rows)) {
			t.Errorf("%s: %d rows, want %d", name, got.RowCount, len(rows))
			continue
		}
		if !got.DuplicateRowsEstimated {
			figures++
			if want := oracleDuplicateRows(rows); got.DuplicateRows != want {
				t.Errorf("%s: %d duplicate rows, want %d", name, got.DuplicateRows, want)
			}
		}
		if len(got.Columns) != len(cols) {
			t.Errorf("%s: %d columns, want %d", name, len(got.Columns), len(cols))
			continue
		}
		for i, c := range got.Columns {
			want := oracleProfile(cols[i], cells[i], 10, 10_000)
			figures += compareColumn(t, name, c, want)
		}
	}
	t.Logf("%d files compared (of %d), %d figures", compared, len(files), figures)
	if compared < 200 {
		t.Fatalf("only %d files compared", compared)
	}
}

// compareColumn reports every figure of got that is not the oracle's, and
// returns how many figures it compared.
func compareColumn(t *testing.T, file string, got profile.Column, want oracleColumn) int {
	t.Helper()
	n := 0
	check := func(figure string, ok bool, g, w any) {
		n++
		if !ok {
			t.Errorf("%s, column %q: %s = %v, want %v", file, got.Name, figure, g, w)
		}
	}
	eq := func(figure string, g, w any) { check(figure, reflect.DeepEqual(g, w), g, w) }
	eq("name", got.Name, want.Name)
	eq("count", got.Count, want.Count)
	eq("nulls", got.Nulls, want.Nulls)
	eq("empty", got.Empty, want.Empty)
	eq("min length", got.MinLength, want.MinLength)
	eq("max length", got.MaxLength, want.MaxLength)
	eq("mean length", got.MeanLength, want.MeanLength)
	eq("distinct exact", got.DistinctExact, want.DistinctExact)
	if want.DistinctExact {
		eq("distinct", got.Distinct, want.Distinct)
	}
	if want.exactTop {
		eq("top values", got.TopValues, want.TopValues)
	}
	eq("inferred type", got.InferredType, want.InferredType)
	eq("type conformance", got.TypeConformance, want.TypeConformance)
	eq("min", deref(got.Min), deref(want.Min))
	eq("max", deref(got.Max), deref(want.Max))
	if want.formatExact {
		eq("format", got.Format, want.Format)
		eq("format conformance", got.FormatConformance, want.FormatConformance)
	}
	close := func(figure string, g, w *float64) {
		if g == nil || w == nil {
			check(figure, g == nil && w == nil, deref(g), deref(w))
			return
		}
		// The engine adds in one pass (Welford); the oracle exactly.
		check(figure, math.Abs(*g-*w) <= 1e-9*math.Max(1, math.Abs(*w)) || (math.IsInf(*w, 0) && *g == *w), *g, *w)
	}
	close("mean", got.Mean, want.Mean)
	close("standard deviation", got.StdDev, want.StdDev)
	n += compareQuantiles(t, file, got, want)
	n += compareOutliers(t, file, got, want)
	return n
}

// compareOutliers: a numeric column's tails are its most extreme numbers,
// exactly, and the outlier issue counts exactly the numbers beyond the
// rule's bounds whenever it says its count is exact.
func compareOutliers(t *testing.T, file string, got profile.Column, want oracleColumn) int {
	t.Helper()
	xs := want.numbers
	if len(want.Quantiles) == 0 {
		return 0
	}
	var low, high []profile.TailValue
	for i := 0; i < len(xs); i++ { // ascending: runs of equal numbers
		j := i
		for j+1 < len(xs) && xs[j+1] == xs[i] {
			j++
		}
		if len(low) < profile.TailSize {
			low = append(low, profile.TailValue{X: xs[i], Count: int64(j - i + 1)})
		}
		high = append([]profile.TailValue{{X: xs[i], Count: int64(j - i + 1)}}, high...)
		i = j
	}
	high = high[:min(len(high), profile.TailSize)]
	if got.Tails == nil || !reflect.DeepEqual(got.Tails.Low, low) || !reflect.DeepEqual(got.Tails.High, high) {
		t.Errorf("%s, column %q: tails %+v, want low %v high %v", file, got.Name, got.Tails, low, high)
	}
	if !got.DistinctExact {
		return 1
	}
	q := want.Quantiles
	iqr := q["p75"] - q["p25"]
	var beyond int64
	if iqr > 0 {
		for _, x := range xs {
			if x < q["p01"]-3*iqr || x > q["p99"]+3*iqr {
				beyond++
			}
		}
	}
	var count int64
	estimated := false
	r := quality.Assess(&profile.Profile{RowCount: got.Count, Columns: []profile.Column{got}}, nil)
	for _, is := range r.Issues {
		if is.Kind == quality.KindOutliers {
			count, estimated = is.Count, is.Estimated
		}
	}
	if !estimated && count != beyond {
		t.Errorf("%s, column %q: %d outliers, want %d", file, got.Name, count, beyond)
	}
	return 2
}

// compareQuantiles: exact quantiles while the column is exact; past it,
// within the sketch's 0.5% of rank of the truth.
func compareQuantiles(t *testing.T, file string, got profile.Column, want oracleColumn) int {
	t.Helper()
	if len(got.Quantiles) != len(want.Quantiles) {
		t.Errorf("%s, column %q: quantiles %v, want %v", file, got.Name, got.Quantiles, want.Quantiles)
		return 1
	}
	if len(want.Quantiles) == 0 {
		return 0
	}
	if got.DistinctExact {
		if !reflect.DeepEqual(got.Quantiles, want.Quantiles) || deref(got.Median) != deref(want.Median) {
			t.Errorf("%s, column %q: quantiles %v, want %v", file, got.Name, got.Quantiles, want.Quantiles)
		}
		return len(got.Quantiles)
	}
	// Past the exact phase: a value of the column, whose ranks come
	// within 0.5% of the quantile's.
	xs := want.numbers
	for name, q := range oracleQuantileNames {
		g := got.Quantiles[name]
		r := oracleRank(q, len(xs))
		below := sort.SearchFloat64s(xs, g)
		upTo := sort.Search(len(xs), func(i int) bool { return xs[i] > g })
		slack := int(0.005 * float64(len(xs)))
		if upTo == below || r < below+1-slack || r > upTo+slack {
			t.Errorf("%s, column %q: %s = %v, ranks %d to %d, want about %d of %d", file, got.Name, name, g, below+1, upTo, r, len(xs))
		}
	}
	return len(got.Quantiles)
}

func deref[T any](p *T) string {
	if p == nil {
		return "<none>"
	}
	return fmt.Sprint(*p)
}
