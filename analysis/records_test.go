package analysis

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/records"
)

// sqlSample is a records.Reader over rows held in memory, as a connector
// would hand over the rows of a SQL query: a nil cell is SQL NULL. It is
// written here, outside package readers, on purpose: AnalyzeRecords must
// take any reader, not only the decoders'.
type sqlSample struct {
	cols []string
	rows [][]*string
	next int
	rec  records.Record
	// fail, when set, is returned by Next in place of row failAt.
	fail   error
	failAt int
	closed bool
}

func (s *sqlSample) Columns() []string      { return s.cols }
func (s *sqlSample) Format() records.Format { return "sql" }
func (s *sqlSample) Close() error           { s.closed = true; return nil }

func (s *sqlSample) Next() (*records.Record, error) {
	if s.fail != nil && s.next == s.failAt {
		return nil, s.fail
	}
	if s.next == len(s.rows) {
		return nil, io.EOF
	}
	row := s.rows[s.next]
	s.next++
	s.rec.Values = s.rec.Values[:0]
	s.rec.Null = s.rec.Null[:0]
	for _, v := range row {
		s.rec.Null = append(s.rec.Null, v == nil)
		if v == nil {
			s.rec.Values = append(s.rec.Values, "")
		} else {
			s.rec.Values = append(s.rec.Values, *v)
		}
	}
	return &s.rec, nil
}

// customerRows are rows of a customer table over several batches
// (columnar.MaxRows), with NULLs, personal data to classify and mask,
// duplicate rows and a column past the exact distinct bound.
func customerRows(n int) (cols []string, rows [][]*string) {
	cols = []string{"customer_id", "email", "full_name", "country", "amount", "note"}
	names := []string{"Anna Svensson", "Mikko Virtanen", "Ola Nordmann", "John Smith", "Marie Dubois"}
	s := func(format string, args ...any) *string { v := fmt.Sprintf(format, args...); return &v }
	for i := range n {
		k := i
		if i%499 == 0 && i > 0 {
			k-- // a duplicate of the row before
		}
		row := []*string{s("%d", 1000+k), s("person%d@example.org", k), s("%s", names[k%len(names)]), s("%s", []string{"SE", "FI", "NO"}[k%3]), s("%d.%02d", k%500, k%100), nil}
		if k%20 == 0 {
			row[1] = nil // 5% missing e-mails
		}
		if k%7 != 0 {
			row[5] = s("note %d", k%97)
		}
		if k%31 == 0 {
			row[3] = s("n/a") // a null by the default tokens, a value by others
		}
		rows = append(rows, row)
	}
	return cols, rows
}

// asCSV writes rows as a CSV file, a NULL as NULL, as a database export
// does: an empty field would be an empty string, not a null.
func asCSV(t *testing.T, cols []string, rows [][]*string) *bytes.Reader {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(cols)
	for _, row := range rows {
		rec := make([]string, len(row))
		for i, v := range row {
			rec[i] = "NULL"
			if v != nil {
				rec[i] = *v
			}
		}
		w.Write(rec)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b.Bytes())
}

func TestAnalyzeRecordsEqualsRunOfTheSameRowsAsCSV(t *testing.T) {
	cols, rows := customerRows(100_000)
	nas := int64(0) // rows whose country is "n/a"
	for _, row := range rows {
		if *row[3] == "n/a" {
			nas++
		}
	}
	for _, tc := range []struct {
		tokens       []string
		countryNulls int64
	}{
		{nil, nas},                  // the default tokens take "n/a" for a null
		{[]string{"NULL", "--"}, 0}, // these do not
	} {
		tokens := tc.tokens
		d, err := WithNullTokens(tokens)
		if err != nil {
			t.Fatal(err)
		}
		f := asCSV(t, cols, rows)
		want, err := Run(context.Background(), f, "customers.csv", f.Size(), d, Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		src := &sqlSample{cols: cols, rows: rows}
		got, err := AnalyzeRecords(context.Background(), src, StreamOptions{NullTokens: d.NullTokens})
		if err != nil {
			t.Fatal(err)
		}
		if got.Format != "sql" || got.CSV != nil || want.CSV == nil {
			t.Errorf("tokens %q: format %q, CSV dialect %v (Run's %v): want sql, none", tokens, got.Format, got.CSV, want.CSV)
		}
		if src.closed {
			t.Error("AnalyzeRecords closed the caller's reader")
		}
		// The comparison below must have something to compare.
		if want.RowCount != 100_000 || want.DuplicateRows == 0 || want.Quality.Dimensions.Completeness >= 100 || len(want.Columns) != len(cols) || want.Columns[1].Nulls != 5000 {
			t.Fatalf("the data does not exercise what it should: %d rows, %d duplicates, completeness %v", want.RowCount, want.DuplicateRows, want.Quality.Dimensions.Completeness)
		}
		if n := got.Columns[3].Nulls; nas == 0 || n != tc.countryNulls {
			t.Errorf("tokens %q: country has %d nulls, want %d: the null tokens were not applied", tokens, n, tc.countryNulls)
		}
		// Everything but how the rows were read: the same profiles,
		// classifications, masking and quality.
		got.Format, got.CSV = want.Format, want.CSV
		if !reflect.DeepEqual(want, got) {
			for i := range want.Columns {
				if !reflect.DeepEqual(want.Columns[i], got.Columns[i]) {
					t.Errorf("tokens %q: column %s:\n run  %+v\n recs %+v", tokens, want.Columns[i].Name, want.Columns[i], got.Columns[i])
				}
			}
			if !reflect.DeepEqual(want.Quality, got.Quality) {
				t.Errorf("tokens %q: quality:\n run  %+v\n recs %+v", tokens, want.Quality, got.Quality)
			}
			t.Fatalf("tokens %q: AnalyzeRecords' result differs from Run's of the same rows as CSV", tokens)
		}
	}
}

func TestAnalyzeRecordsReturnsTheSourcesError(t *testing.T) {
	cols, rows := customerRows(50_000)
	lost := errors.New("connection reset by peer")
	for _, tc := range []struct {
		name     string
		err      error
		badInput bool
	}{
		{"a failure of the source", lost, false},
		{"a bad row", fmt.Errorf("row 40001: %w", records.ErrMalformed), true},
	} {
		// Past the first batch, while the pipeline is busy with it.
		src := &sqlSample{cols: cols, rows: rows, fail: tc.err, failAt: 40_000}
		_, err := AnalyzeRecords(context.Background(), src, StreamOptions{})
		if !errors.Is(err, tc.err) {
			t.Fatalf("%s: err = %v, want %v", tc.name, err, tc.err)
		}
		if !strings.Contains(err.Error(), tc.err.Error()) || !tc.badInput && !strings.Contains(err.Error(), "reading the sql rows") {
			t.Errorf("%s: err = %q, want the source's message and, for a failure, where it came from", tc.name, err)
		}
		if errors.Is(err, ErrBadInput) != tc.badInput {
			t.Errorf("%s: err = %v; errors.Is(err, ErrBadInput) should be %v", tc.name, err, tc.badInput)
		}
	}
}

// endless is a source that never runs out of rows and cancels ctx once it
// has handed over after rows.
type endless struct {
	rec    records.Record
	rows   int
	after  int
	cancel context.CancelFunc
}

func (e *endless) Columns() []string      { return []string{"n", "label"} }
func (e *endless) Format() records.Format { return "stream" }
func (e *endless) Close() error           { return nil }

func (e *endless) Next() (*records.Record, error) {
	e.rows++
	if e.rows == e.after {
		e.cancel()
	}
	e.rec.Values = append(e.rec.Values[:0], fmt.Sprint(e.rows), fmt.Sprint("label ", e.rows%10))
	e.rec.Null = append(e.rec.Null[:0], false, false)
	return &e.rec, nil
}

func TestAnalyzeRecordsStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	src := &endless{after: 100_000, cancel: cancel}
	_, err := AnalyzeRecords(ctx, src, StreamOptions{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The reader stops at the batch in hand, give or take the batches in
	// flight.
	if limit := 100_000 + (inFlight+1)*32<<10; src.rows > limit {
		t.Errorf("%d rows read after the cancel at 100,000, want at most %d", src.rows, limit)
	}
}

func TestAnalyzeRecordsProgress(t *testing.T) {
	cols, rows := customerRows(100_000)
	for _, tc := range []struct {
		name    string
		opt     StreamOptions
		lastPro float64 // the last share reported while profiling
	}{
		{"rows known", StreamOptions{Rows: int64(len(rows))}, 1},
		{"rows unknown", StreamOptions{}, 0},
		{"read over size", StreamOptions{Read: func() int64 { return 3 }, Size: 4}, 0.75},
	} {
		var profiling []float64
		var stages []string
		tc.opt.Progress = func(stage string, f float64) {
			if len(stages) == 0 || stages[len(stages)-1] != stage {
				stages = append(stages, stage)
			}
			if stage == StageProfiling {
				profiling = append(profiling, f)
			}
		}
		if _, err := AnalyzeRecords(context.Background(), &sqlSample{cols: cols, rows: rows}, tc.opt); err != nil {
			t.Fatal(err)
		}
		if want := []string{StageProfiling, StageClassifying, StageScoring}; !reflect.DeepEqual(stages, want) {
			t.Errorf("%s: stages %v, want %v", tc.name, stages, want)
		}
		// 100,000 rows of 6 columns are 4 batches: one call each.
		if len(profiling) != 4 || profiling[len(profiling)-1] != tc.lastPro {
			t.Errorf("%s: profiling progress %v, want 4 calls ending at %v", tc.name, profiling, tc.lastPro)
		}
		for i := 1; i < len(profiling); i++ {
			if profiling[i] < profiling[i-1] {
				t.Errorf("%s: progress went back: %v", tc.name, profiling)
			}
		}
	}
}

// growingSample is a sqlSample whose last column shows up only at row from
// on: Columns lists it from then on, and rows have a cell for it.
type growingSample struct {
	sqlSample
	from int
}

func (g *growingSample) Columns() []string {
	if g.next <= g.from {
		return g.cols[:len(g.cols)-1]
	}
	return g.cols
}

func (g *growingSample) Next() (*records.Record, error) {
	rec, err := g.sqlSample.Next()
	if err == nil && g.next <= g.from {
		rec.Values, rec.Null = rec.Values[:len(rec.Values)-1], rec.Null[:len(rec.Null)-1]
	}
	return rec, err
}

func (g *growingSample) Kept() []bool {
	kept := make([]bool, len(g.cols))
	for i := range kept {
		kept[i] = true
	}
	return kept
}

// A connector's GrowingReader, read row by row, gives the analysis of the
// same rows with the late column known from the start, null before it
// shows up.
func TestAnalyzeRecordsOfAGrowingSource(t *testing.T) {
	cols, rows := customerRows(100_000)
	const from = 50_000 // in the second batch
	for _, row := range rows[:from] {
		row[len(row)-1] = nil
	}
	want, err := AnalyzeRecords(context.Background(), &sqlSample{cols: cols, rows: rows}, StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	g := &growingSample{sqlSample: sqlSample{cols: cols, rows: rows}, from: from}
	got, err := AnalyzeRecords(context.Background(), g, StreamOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Columns) != len(cols) {
		t.Fatalf("%d columns, want %d", len(got.Columns), len(cols))
	}
	if !reflect.DeepEqual(want, got) {
		t.Error("the growing source's analysis differs from the one of the same rows with every column known")
	}
}
