package hostile

import "encoding/binary"

// compact is a minimal writer of the Thrift compact protocol, enough for
// Parquet footers and page headers. Fields are written in increasing id
// order within a struct (the caller's duty), as the protocol's short form
// needs.
type compact struct {
	b    []byte
	last []int16 // last field id of each open struct
}

// Thrift compact type ids.
const (
	tBoolTrue  = 1
	tBoolFalse = 2
	tI32       = 5
	tI64       = 6
	tBinary    = 8
	tList      = 9
	tStruct    = 12
)

func (c *compact) header(id int16, typ byte) {
	if len(c.last) == 0 {
		c.last = append(c.last, 0)
	}
	last := &c.last[len(c.last)-1]
	if d := id - *last; d > 0 && d <= 15 {
		c.b = append(c.b, byte(d)<<4|typ)
	} else {
		c.b = append(c.b, typ)
		c.b = binary.AppendUvarint(c.b, zigzag(int64(id)))
	}
	*last = id
}

func zigzag(v int64) uint64 { return uint64((v << 1) ^ (v >> 63)) }

func (c *compact) i32(id int16, v int32) {
	c.header(id, tI32)
	c.b = binary.AppendUvarint(c.b, zigzag(int64(v)))
}
func (c *compact) i64(id int16, v int64) {
	c.header(id, tI64)
	c.b = binary.AppendUvarint(c.b, zigzag(v))
}

func (c *compact) str(id int16, s string) {
	c.header(id, tBinary)
	c.b = binary.AppendUvarint(c.b, uint64(len(s)))
	c.b = append(c.b, s...)
}

func (c *compact) boolean(id int16, v bool) {
	if v {
		c.header(id, tBoolTrue)
	} else {
		c.header(id, tBoolFalse)
	}
}

// list opens a list field of n elements of type elem.
func (c *compact) list(id int16, elem byte, n int) {
	c.header(id, tList)
	c.listHeader(elem, n)
}

func (c *compact) listHeader(elem byte, n int) {
	if n < 15 {
		c.b = append(c.b, byte(n)<<4|elem)
		return
	}
	c.b = append(c.b, 0xf0|elem)
	c.b = binary.AppendUvarint(c.b, uint64(n))
}

// listI32 and listStr write list elements, which carry no field header.
func (c *compact) elemI32(v int32) { c.b = binary.AppendUvarint(c.b, zigzag(int64(v))) }
func (c *compact) elemStr(s string) {
	c.b = binary.AppendUvarint(c.b, uint64(len(s)))
	c.b = append(c.b, s...)
}

// beginStruct starts a struct field (id > 0) or a list element (id == 0).
func (c *compact) beginStruct(id int16) {
	if id > 0 {
		c.header(id, tStruct)
	}
	c.last = append(c.last, 0)
}

func (c *compact) endStruct() {
	c.b = append(c.b, 0)
	c.last = c.last[:len(c.last)-1]
}
