package readers

import (
	"bufio"
	"bytes"
	"testing"
)

// compactHeader writes thrift compact-protocol fields, for page-header
// tests.
type compactHeader struct{ b []byte }

// field writes the header of a field delta ids after the previous one.
func (c *compactHeader) field(delta int, typ byte) *compactHeader {
	c.b = append(c.b, byte(delta<<4)|typ)
	return c
}

// fieldID writes a field header in the long form, which any id may take
// (a smaller id than the previous field's needs it).
func (c *compactHeader) fieldID(id int16, typ byte) *compactHeader {
	c.b = append(c.b, typ)
	c.varint(uint32(int32(id)<<1) ^ uint32(int32(id)>>31))
	return c
}

func (c *compactHeader) varint(u uint32) {
	for u >= 0x80 {
		c.b = append(c.b, byte(u)|0x80)
		u >>= 7
	}
	c.b = append(c.b, byte(u))
}

// i32 writes an i32 field delta ids after the previous one.
func (c *compactHeader) i32(delta int, v int32) *compactHeader {
	c.field(delta, tI32)
	c.varint(uint32(v<<1) ^ uint32(v>>31))
	return c
}

func (c *compactHeader) stop() *compactHeader {
	c.b = append(c.b, 0)
	return c
}

// dataPageV1 writes field 5 (delta from field 0 or 3): a DataPageHeader of
// 10 values, PLAIN, RLE levels.
func (c *compactHeader) dataPageV1(delta int) *compactHeader {
	return c.field(delta, tStruct).i32(1, 10).i32(1, encPlain).i32(1, encRLE).i32(1, encRLE).stop()
}

// dataPageV2 writes field 8, three after field 5: a DataPageHeaderV2 of 99
// values (and rows), 5 nulls, dictionary-encoded, not compressed.
func (c *compactHeader) dataPageV2() *compactHeader {
	return c.field(3, tStruct).i32(1, 99).i32(1, 5).i32(1, 99).i32(1, encRLEDictionary).i32(1, 4).i32(1, 0).field(1, tBoolFalse).stop()
}

// A header that lacks a field parquet.thrift requires is refused, as
// arrow-go's decoder refuses it: else the direct path would read a page
// that Next fails on (a fuzzer found one without the page type).
func TestReadPageHeaderRequiresFields(t *testing.T) {
	noType := new(compactHeader).fieldID(2, tI32)
	noType.varint(2000) // uncompressed size, zigzag
	noType.i32(1, 500).dataPageV1(2).stop()
	for name, b := range map[string][]byte{
		"no type":                noType.b,
		"no encoding":            new(compactHeader).i32(1, pageData).i32(1, 1000).i32(1, 500).field(2, tStruct).i32(1, 10).i32(2, encRLE).i32(1, encRLE).stop().stop().b,
		"no num_rows in v2":      new(compactHeader).i32(1, pageDataV2).i32(1, 1000).i32(1, 500).field(5, tStruct).i32(1, 9).i32(1, 0).i32(2, 0).i32(1, 0).i32(1, 0).stop().stop().b,
		"no dictionary encoding": new(compactHeader).i32(1, pageDictionary).i32(1, 1000).i32(1, 500).field(4, tStruct).i32(1, 10).stop().stop().b,
	} {
		_, err := readPageHeader(&countingByteReader{r: bufio.NewReader(bytes.NewReader(b)), limit: int64(len(b))})
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func readHeaderBytes(t *testing.T, b []byte) pageHeader {
	t.Helper()
	h, err := readPageHeader(&countingByteReader{r: bufio.NewReader(bytes.NewReader(b)), limit: int64(len(b))})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// A header carrying a sub-header that does not match its page's type (a
// data page v1 with a DataPageHeaderV2 too, say) is read as Arrow reads it:
// by the sub-header of its type alone, whichever order the fields come in.
func TestReadPageHeaderPicksSubHeader(t *testing.T) {
	cases := []struct {
		name      string
		typ       int32
		wantN     int32
		wantComp  bool
		wantNulls int32
	}{
		{"data page", pageData, 10, true, 0},
		{"data page v2", pageDataV2, 99, false, 5},
		{"dictionary page", pageDictionary, 0, true, 0},
	}
	check := func(order string, c int, got pageHeader) {
		w := cases[c]
		if got.typ != w.typ || got.numValues != w.wantN || got.hasNumValues != (w.wantN != 0) ||
			got.isCompressed != w.wantComp || got.numNulls != w.wantNulls || got.uncompressed != 1000 || got.compressed != 500 {
			t.Errorf("%s, %s: read %+v", w.name, order, got)
		}
	}
	for i, c := range cases {
		var first compactHeader // type, sizes, then both sub-headers
		first.i32(1, c.typ).i32(1, 1000).i32(1, 500).dataPageV1(2).dataPageV2()
		check("type first", i, readHeaderBytes(t, first.stop().b))

		var last compactHeader // both sub-headers, then type and sizes
		last.dataPageV1(5).dataPageV2().fieldID(1, tI32)
		last.varint(uint32(c.typ<<1) ^ uint32(c.typ>>31))
		last.i32(1, 1000).i32(1, 500)
		check("type last", i, readHeaderBytes(t, last.stop().b))
	}
	var dict compactHeader // a dictionary page with its own sub-header (field 7)
	dict.i32(1, pageDictionary).i32(1, 64).i32(1, 64).field(4, tStruct).i32(1, 7).i32(1, encPlain).stop()
	if got := readHeaderBytes(t, dict.stop().b); got.numValues != 7 || !got.hasNumValues || got.encoding != encPlain {
		t.Errorf("dictionary page: read %+v", got)
	}
}
