package columnar

import (
	"strings"
	"testing"
)

func TestColumnCells(t *testing.T) {
	var c Column
	c.AppendString("ab")
	c.AppendNull()
	c.Append([]byte(""))
	c.Text = append(c.Text, "42"...)
	c.EndCell()
	want := []struct {
		v    string
		null bool
	}{{"ab", false}, {"", true}, {"", false}, {"42", false}}
	if c.Len() != len(want) {
		t.Fatalf("Len = %d, want %d", c.Len(), len(want))
	}
	for r, w := range want {
		if v, null := c.Cell(r); v != w.v || null != w.null {
			t.Errorf("cell %d = %q, %v; want %q, %v", r, v, null, w.v, w.null)
		}
	}
}

func TestBatchBounds(t *testing.T) {
	if got := NewBatch(14).MaxRows(); got != MaxRows {
		t.Errorf("narrow batch: %d rows, want %d", got, MaxRows)
	}
	if got := NewBatch(1000).MaxRows(); got != MaxCells/1000 {
		t.Errorf("wide batch: %d rows, want %d", got, MaxCells/1000)
	}
	if got := NewBatch(MaxCells * 2).MaxRows(); got != 1 {
		t.Errorf("very wide batch: %d rows, want 1", got)
	}

	b := NewBatch(2)
	for !b.Full() {
		b.Cols[0].AppendString("x")
		b.Cols[1].AppendNull()
		b.Rows++
	}
	if b.Rows != MaxRows {
		t.Errorf("full after %d rows, want %d", b.Rows, MaxRows)
	}
	b.Reset()
	if b.Rows != 0 || b.Cols[0].Len() != 0 || b.Full() {
		t.Fatalf("not empty after Reset: %d rows, %d cells", b.Rows, b.Cols[0].Len())
	}
	long := strings.Repeat("v", MaxBytes/2)
	b.Cols[0].AppendString(long)
	b.Cols[1].AppendString(long)
	b.Rows++
	if !b.Full() {
		t.Error("a batch holding MaxBytes of text is not full")
	}
}

func TestWiden(t *testing.T) {
	b := NewBatch(1)
	b.Cols[0].AppendString("a")
	b.Cols[0].AppendString("b")
	b.Rows = 2
	b.Widen(3)
	if len(b.Cols) != 3 {
		t.Fatalf("%d columns after Widen(3), want 3", len(b.Cols))
	}
	for i := 1; i < 3; i++ {
		if b.Cols[i].Len() != 2 {
			t.Fatalf("new column %d has %d cells, want 2", i, b.Cols[i].Len())
		}
		for r := range 2 {
			if _, null := b.Cols[i].Cell(r); !null {
				t.Errorf("new column %d, row %d is not null", i, r)
			}
		}
	}
	b.Widen(2) // never narrows
	if len(b.Cols) != 3 {
		t.Errorf("Widen(2) left %d columns", len(b.Cols))
	}
	if v, _ := b.Cols[0].Cell(1); v != "b" {
		t.Errorf("the old column changed: %q", v)
	}
	b.Widen(100)
	if b.MaxRows() != MaxCells/100 {
		t.Errorf("row bound %d after Widen(100), want %d", b.MaxRows(), MaxCells/100)
	}
}

func TestColumnCodes(t *testing.T) {
	var c Column
	if c.HasCodes() || !c.CanCode(1) {
		t.Fatal("an empty column has no codes and may take any")
	}
	d := NewDict()
	if NewDict() == d {
		t.Fatal("NewDict repeats a name")
	}
	c.AppendString("a")
	c.Codes, c.Dict = append(c.Codes, 0), d
	c.AppendString("b")
	c.Codes = append(c.Codes, 1)
	if !c.HasCodes() || !c.CanCode(d) || c.CanCode(d+1) {
		t.Fatal("two coded cells: codes whole, of their dictionary only")
	}
	c.AppendString("c") // appended without a code: the codes no longer hold
	if c.HasCodes() || c.CanCode(d) {
		t.Fatal("a cell without a code must drop the codes")
	}
	c.Truncate(2) // back to the coded cells
	if !c.HasCodes() || c.Len() != 2 || len(c.Text) != 2 {
		t.Fatalf("truncated to the coded cells: codes %v, %d cells, %q", c.Codes, c.Len(), c.Text)
	}
	c.Truncate(1)
	if v, _ := c.Cell(0); !c.HasCodes() || len(c.Codes) != 1 || v != "a" {
		t.Fatalf("truncated to one: codes %v, cell %q", c.Codes, v)
	}
	c.reset()
	if c.HasCodes() || c.Dict != 0 || !c.CanCode(d+5) {
		t.Fatal("reset keeps codes")
	}
}

// A batch whose text moves from column to column does not keep every
// column's largest buffer; a narrow batch keeps its buffers from one use to
// the next.
func TestResetBoundsKeptText(t *testing.T) {
	textCap := func(b *Batch) int {
		n := 0
		for i := range b.Cols {
			n += cap(b.Cols[i].Text)
		}
		return n
	}
	wide := NewBatch(300)
	big := strings.Repeat("x", MaxBytes)
	for round := range 40 {
		wide.Reset()
		wide.Cols[round%300].AppendString(big)
		for i := range wide.Cols {
			if i != round%300 {
				wide.Cols[i].AppendNull()
			}
		}
		wide.Rows = 1
		if n := textCap(wide); n > keptText+2*MaxBytes {
			t.Fatalf("round %d: the batch holds %d bytes of text buffers", round, n)
		}
	}
	narrow := NewBatch(14)
	for i := range narrow.Cols {
		narrow.Cols[i].AppendString(strings.Repeat("y", 300<<10))
	}
	before := textCap(narrow)
	narrow.Reset()
	if after := textCap(narrow); after != before {
		t.Fatalf("a narrow batch kept %d of its %d bytes of text buffers", after, before)
	}
}
