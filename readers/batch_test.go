package readers

import (
	"io"
	"strings"
	"testing"

	"github.com/dqs/dqs/columnar"
	"github.com/dqs/dqs/records"
)

// rowSource is a records.Reader of rows given as they come, not one of
// this package's: FillBatch reads it row by row. Its columns grow when a
// row has more of them, as a GrowingReader's do.
type rowSource struct {
	names []string
	rows  [][]string // a row's length says how many of names exist by then
	cols  int
	rec   records.Record
}

func (s *rowSource) Columns() []string      { return s.names[:s.cols] }
func (s *rowSource) Format() records.Format { return "test" }
func (s *rowSource) Close() error           { return nil }

func (s *rowSource) Next() (*records.Record, error) {
	if len(s.rows) == 0 {
		return nil, io.EOF
	}
	row := s.rows[0]
	s.rows = s.rows[1:]
	s.cols = max(s.cols, len(row))
	s.rec.Values = append(s.rec.Values[:0], row...)
	s.rec.Null = s.rec.Null[:0]
	for range row {
		s.rec.Null = append(s.rec.Null, false)
	}
	return &s.rec, nil
}

func TestFillBatchWidensForAGrowingRowSource(t *testing.T) {
	src := &rowSource{names: []string{"a", "b"}, cols: 1, rows: [][]string{{"1"}, {"2", "x"}}}
	b := columnar.NewBatch(len(src.Columns()))
	if err := FillBatch(src, b); err != nil {
		t.Fatal(err)
	}
	if b.Rows != 2 || len(b.Cols) != 2 {
		t.Fatalf("%d rows of %d columns, want 2 of 2", b.Rows, len(b.Cols))
	}
	if _, null := b.Cols[1].Cell(0); !null {
		t.Error("the new column is not null in the row before it")
	}
	if v, null := b.Cols[1].Cell(1); null || v != "x" {
		t.Errorf("the new column's cell is %q (null %v), want x", v, null)
	}
}

// A record that does not match its reader's columns is an error, not a
// panic on the goroutine that reads.
func TestFillBatchRefusesARecordOfTheWrongShape(t *testing.T) {
	src := shapeless{}
	b := columnar.NewBatch(len(src.Columns()))
	err := FillBatch(src, b)
	if err == nil || !strings.Contains(err.Error(), "1 values and 2 null flags for 2 columns") {
		t.Fatalf("err = %v, want the record's shape refused", err)
	}
}

// shapeless returns a record of one value and two null flags for two
// columns.
type shapeless struct{}

func (shapeless) Columns() []string      { return []string{"a", "b"} }
func (shapeless) Format() records.Format { return "test" }
func (shapeless) Close() error           { return nil }
func (shapeless) Next() (*records.Record, error) {
	return &records.Record{Values: []string{"1"}, Null: []bool{false, false}}, nil
}
