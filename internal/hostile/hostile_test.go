package hostile

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// footer parses the footer of the Parquet file b.
func footer(t *testing.T, b []byte) *metadata.FileMetaData {
	t.Helper()
	if len(b) < 12 || string(b[:4]) != "PAR1" || string(b[len(b)-4:]) != "PAR1" {
		t.Fatal("not a Parquet file")
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	md, err := metadata.NewFileMetaData(b[len(b)-8-n:len(b)-8], nil)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// table reads the Parquet file b through Arrow, each top-level column as
// the text of its values, row by row: the columns of the given leaves, or
// all.
func table(t *testing.T, b []byte, leaves ...int) map[string][]string {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	if leaves == nil {
		for c := range pf.MetaData().Schema.NumColumns() {
			leaves = append(leaves, c)
		}
	}
	groups := make([]int, pf.NumRowGroups())
	for g := range groups {
		groups[g] = g
	}
	tbl, err := fr.ReadRowGroups(context.Background(), leaves, groups)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	cols := map[string][]string{}
	for i := range int(tbl.NumCols()) {
		c := tbl.Column(i)
		for _, chunk := range c.Data().Chunks() {
			for k := range chunk.Len() {
				cols[c.Name()] = append(cols[c.Name()], chunk.ValueStr(k))
			}
		}
	}
	return cols
}

// checkInt96Zeros reads the INT96 column of the first leaf of b and checks it
// holds rows zeros.
func checkInt96Zeros(t *testing.T, b []byte, rows int) {
	t.Helper()
	pf, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	col, err := pf.RowGroup(0).Column(0)
	if err != nil {
		t.Fatal(err)
	}
	values := make([]parquet.Int96, rows+1)
	_, n, err := col.(*file.Int96ColumnChunkReader).ReadBatch(int64(len(values)), values, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "INT96 values", n, rows)
	for _, v := range values {
		equal(t, "INT96 value", v, parquet.Int96{})
	}
}

// chunkOffsets lists where each column chunk of md says it starts.
func chunkOffsets(t *testing.T, md *metadata.FileMetaData) []int64 {
	t.Helper()
	var offsets []int64
	for g := range md.NumRowGroups() {
		rg := md.RowGroup(g)
		for c := range rg.NumColumns() {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			offsets = append(offsets, cc.DataPageOffset())
		}
	}
	return offsets
}

func equal(t *testing.T, what string, got, want any) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s = %v, want %v", what, got, want)
	}
}

func TestPlainList(t *testing.T) {
	b := PlainList(5)
	md := footer(t, b)
	equal(t, "rows", md.NumRows, 1)
	col := md.Schema.Column(1)
	equal(t, "path", col.Path(), "l.list.element")
	equal(t, "levels", []int16{col.MaxDefinitionLevel(), col.MaxRepetitionLevel()}, []int16{3, 1})
	equal(t, "t", md.Schema.Column(0).PhysicalType(), parquet.Types.Int96)
	equal(t, "l", table(t, b, 1)["l"], []string{"[null,null,null,null,null]"})
	checkInt96Zeros(t, b, 1)
}

func TestPlainDictionaryBomb(t *testing.T) {
	b := PlainDictionaryBomb(3, 10)
	md := footer(t, b)
	cc, err := md.RowGroup(0).ColumnChunk(1)
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "dictionary", cc.HasDictionaryPage(), true)
	equal(t, "codec", cc.Compression(), "ZSTD")
	x := strings.Repeat("x", 10)
	equal(t, "s", table(t, b, 1)["s"], []string{x, x, x})
	checkInt96Zeros(t, b, 3)
}

func TestDecimalScale(t *testing.T) {
	b := DecimalScale(3, 2)
	md := footer(t, b)
	equal(t, "logical type", md.Schema.Column(0).LogicalType(), schema.NewDecimalLogicalType(3, 3))
	equal(t, "d", table(t, b)["d"], []string{"0.001", "0.001"})
	md = footer(t, DecimalScale(1<<31-1, 1))
	equal(t, "logical type", md.Schema.Column(0).LogicalType(), schema.NewDecimalLogicalType(1<<31-1, 1<<31-1))
}

func TestStructFieldName(t *testing.T) {
	b := StructFieldName(3, 5)
	md := footer(t, b)
	equal(t, "path", md.Schema.Column(0).Path(), "l.list.element.kkkkk")
	equal(t, "l", table(t, b)["l"], []string{`[{"kkkkk":null},{"kkkkk":null},{"kkkkk":null}]`})
}

func TestDictionaryCountClaim(t *testing.T) {
	b := DictionaryCountClaim(1<<31-1, 1<<31-2, 7)
	md := footer(t, b)
	equal(t, "rows", md.NumRows, 7)
	r, err := file.NewParquetReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := r.RowGroup(0).GetColumnPageReader(0)
	if err != nil {
		t.Fatal(err)
	}
	if !pages.Next() {
		t.Fatal(pages.Err())
	}
	dict, ok := pages.Page().(*file.DictionaryPage)
	if !ok {
		t.Fatalf("first page %T, want a dictionary page", pages.Page())
	}
	equal(t, "claimed", dict.NumValues(), 1<<31-1)
	equal(t, "held", len(dict.Data()), 7) // one PLAIN value of 3 bytes
	if !pages.Next() {
		t.Fatal(pages.Err())
	}
	equal(t, "data page values", pages.Page().NumValues(), 7)
	equal(t, "indices", pages.Page().Data(), []byte{31, 14, 0xfe, 0xff, 0xff, 0x7f})
}

func TestLongPath(t *testing.T) {
	md := footer(t, LongPath(3, 4, 2))
	equal(t, "row groups", md.NumRowGroups(), 0)
	equal(t, "columns", md.Schema.NumColumns(), 2)
	equal(t, "path", md.Schema.Column(1).Path(), "0gggg.1gggg.2gggg.v1")
	equal(t, "definition level", md.Schema.Column(1).MaxDefinitionLevel(), 4)
}

func TestStaggeredPages(t *testing.T) {
	b := StaggeredPages(3, 4, 10)
	md := footer(t, b)
	equal(t, "row groups", md.NumRowGroups(), 3)
	got := table(t, b)
	for c := range 3 {
		name := fmt.Sprintf("s%d", c)
		for r, v := range got[name] {
			want := "a"
			if r/4 == c {
				want = strings.Repeat("x", 10)
			}
			equal(t, fmt.Sprintf("%s row %d", name, r), v, want)
		}
		equal(t, name+" rows", len(got[name]), 12)
	}
}

func TestRotatingColumns(t *testing.T) {
	b := RotatingColumns(3, 2, 2, 5)
	md := footer(t, b)
	equal(t, "rows", md.NumRows, 12)
	got := table(t, b)
	for c := range 3 {
		name := fmt.Sprintf("s%d", c)
		for r, v := range got[name] {
			want := "(null)"
			if r/2%3 == c {
				want = "yyyyy"
			}
			equal(t, fmt.Sprintf("%s row %d", name, r), v, want)
		}
		equal(t, name+" rows", len(got[name]), 12)
	}
}

func TestBigPageHeaders(t *testing.T) {
	b := BigPageHeaders(3, 1000, 5)
	if len(b) > 1300 {
		t.Fatalf("%d bytes: the chunk is written more than once", len(b))
	}
	md := footer(t, b)
	equal(t, "offsets", chunkOffsets(t, md), []int64{4, 4, 4})
	got := table(t, b)
	for c := range 3 {
		equal(t, fmt.Sprintf("c%d", c), got[fmt.Sprintf("c%d", c)], []string{"0", "0", "0", "0", "0"})
	}
}

func TestManyRowGroups(t *testing.T) {
	b := ManyRowGroups(5)
	md := footer(t, b)
	equal(t, "row groups", md.NumRowGroups(), 5)
	equal(t, "offsets", chunkOffsets(t, md), []int64{4, 4, 4, 4, 4})
	equal(t, "x", table(t, b)["x"], []string{"0", "0", "0", "0", "0"})
}

// The files at the sizes that took readers down stay small. (Their
// footers are not parsed here: LongPath's alone would have Arrow write 1 GB
// of column paths.)
func TestAttackSizes(t *testing.T) {
	for _, c := range []struct {
		name string
		file func() []byte
		max  int
	}{
		{"PlainList", func() []byte { return PlainList(1_000_000_000) }, 300},
		{"PlainDictionaryBomb", func() []byte { return PlainDictionaryBomb(2048, 3_000_000) }, 1 << 10},
		{"DecimalScale", func() []byte { return DecimalScale(1<<31-1, 1) }, 200},
		{"StructFieldName", func() []byte { return StructFieldName(16384, 64<<10) }, 140 << 10},
		{"DictionaryCountClaim", func() []byte { return DictionaryCountClaim(1<<31-1, 1<<31-2, 1) }, 200},
		{"LongPath", func() []byte { return LongPath(60, 60_000, 300) }, 4 << 20},
		{"StaggeredPages", func() []byte { return StaggeredPages(200, 16, 1_000_000) }, 5 << 20},
		{"RotatingColumns", func() []byte { return RotatingColumns(300, 2048, 4, 2048) }, 64 << 10},
		{"BigPageHeaders", func() []byte { return BigPageHeaders(1000, 3_000_000, 2000) }, 4 << 20},
		{"ManyRowGroups", func() []byte { return ManyRowGroups(129_000) }, 4 << 20},
	} {
		b := c.file()
		if len(b) > c.max {
			t.Errorf("%s: %d bytes, more than %d", c.name, len(b), c.max)
		}
	}
}
