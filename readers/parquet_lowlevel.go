package readers

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"time"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// plainRows reads each leaf column with the library's typed column readers
// and formats values from the Parquet physical and logical types. It is the
// fallback for files pqarrow cannot map to Arrow. Each leaf becomes one
// column named by its dotted path; a repeated leaf's values within a row
// are rendered as a JSON array.
type plainRows struct {
	p      *parquetReader
	names  []string
	cols   []*plainCol
	rg     int   // next row group
	rgLeft int64 // rows left in the current row group
	open   bool
}

// plainBatch is how many values a column reads at once, at most. Byte
// arrays read fewer when they may be long (batchFor): the library copies
// every value of a batch onto the heap before anything can check it.
const plainBatch = 1024

type plainCol struct {
	name       string
	idx        int
	maxDef     int16
	maxRep     int16
	literal    bool // values are JSON numbers/booleans
	nullAtTop  bool // definition level 0 means the whole value is null
	elemOption bool // the leaf itself is optional (null list elements)

	makeRead func(file.ColumnChunkReader) (func() (int, error), error)
	read     func() (int, error)
	batch    int // values read at once in the current column chunk
	maxValue int // MaxFieldBytes
	defs     []int16
	reps     []int16
	vals     []string
	n        int // levels in the buffer
	pos      int
	vpos     int
	json     []byte // the current row's text, for repeated leaves
}

func newPlainRows(p *parquetReader) (*plainRows, error) {
	pr := &plainRows{p: p}
	err := guard("parquet: reading the schema", func() error {
		sc := p.pf.MetaData().Schema
		for i := 0; i < sc.NumColumns(); i++ {
			d := sc.Column(i)
			c := &plainCol{
				name:     d.Path(),
				idx:      i,
				maxDef:   d.MaxDefinitionLevel(),
				maxRep:   d.MaxRepetitionLevel(),
				defs:     make([]int16, plainBatch),
				reps:     make([]int16, plainBatch),
				batch:    plainBatch,
				maxValue: p.opt.MaxFieldBytes,
			}
			c.elemOption = d.SchemaNode().RepetitionType() == parquet.Repetitions.Optional
			top := d.SchemaNode()
			for top.Parent() != nil && top.Parent().Parent() != nil {
				top = top.Parent()
			}
			c.nullAtTop = top.RepetitionType() == parquet.Repetitions.Optional
			c.makeRead, c.literal = plainReader(c, d)
			pr.cols = append(pr.cols, c)
			pr.names = append(pr.names, c.name)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return pr, nil
}

func (pr *plainRows) openRowGroup() error {
	md := pr.p.pf.MetaData()
	for {
		if pr.rg >= md.NumRowGroups() || len(pr.cols) == 0 {
			return io.EOF
		}
		rg := pr.rg
		pr.rg++
		pr.rgLeft = md.RowGroup(rg).NumRows()
		if pr.rgLeft == 0 {
			continue
		}
		if err := pr.p.prepareRowGroup(rg); err != nil {
			return err
		}
		rgr := pr.p.pf.RowGroup(rg)
		longColumns := 0
		for _, c := range pr.cols {
			if t := pr.p.pf.MetaData().Schema.Column(c.idx).PhysicalType(); t == parquet.Types.ByteArray || t == parquet.Types.FixedLenByteArray {
				longColumns++
			}
		}
		for _, c := range pr.cols {
			cr, err := rgr.Column(c.idx)
			if err != nil {
				return classify(fmt.Sprintf("parquet: row group %d, column %q", rg+1, c.name), err)
			}
			c.batch = pr.batchFor(rg, c, pr.p.opt.recordLimit()/int64(max(1, longColumns)))
			if c.read, err = c.makeRead(cr); err != nil {
				return err
			}
			c.n, c.pos, c.vpos = 0, 0, 0
		}
		pr.open = true
		return nil
	}
}

func (pr *plainRows) closeRowGroup() error {
	pr.open = false
	for _, c := range pr.cols {
		extra := c.pos < c.n
		if !extra {
			n, err := c.read()
			if err != nil {
				return classify(fmt.Sprintf("parquet: row group %d, column %q", pr.rg, c.name), err)
			}
			extra = n > 0
		}
		if extra {
			return malformedf("parquet: row group %d, column %q holds more values than the %d rows its metadata declares", pr.rg, c.name, pr.p.pf.MetaData().RowGroup(pr.rg-1).NumRows())
		}
	}
	return nil
}

func (pr *plainRows) next(rec *Record) error {
	if !pr.open || pr.rgLeft == 0 {
		if pr.open {
			if err := pr.closeRowGroup(); err != nil {
				return err
			}
		}
		if err := pr.openRowGroup(); err != nil {
			return err
		}
	}
	for i, c := range pr.cols {
		v, null, err := c.nextRow()
		if err != nil {
			return classify(fmt.Sprintf("parquet: row group %d, column %q", pr.rg, c.name), err)
		}
		rec.Values[i], rec.Null[i] = v, null
	}
	pr.rgLeft--
	return nil
}

// batchFor is how many values column c reads at once in row group rg (its
// pages checked): at most plainBatch, and for byte arrays, few enough that
// a batch of the longest values its pages allow takes at most limit bytes.
// A PLAIN page holds its values, so B values span at most B/fewest + 1
// pages; a dictionary-encoded value is a copy of one of the dictionary's
// (whose longest is measured); a DELTA_BYTE_ARRAY value may be as long as
// the field limit.
func (pr *plainRows) batchFor(rg int, c *plainCol, limit int64) int {
	d := pr.p.pf.MetaData().Schema.Column(c.idx)
	pages := pr.p.rgPages[c.idx]
	var perValue int64
	switch d.PhysicalType() {
	case parquet.Types.FixedLenByteArray:
		perValue = int64(max(1, d.TypeLength()))
	case parquet.Types.ByteArray:
		if pages.unbounded {
			perValue = int64(c.maxValue)
		}
		if pages.dictEncoded {
			col, err := pr.p.pf.MetaData().RowGroup(rg).ColumnChunk(c.idx)
			longest, ok := 0, false
			if err == nil {
				longest, ok = longestDictValue(pr.p.f, pr.p.size, col)
			}
			if !ok {
				longest = int(pages.dictionary)
			}
			perValue = max(perValue, int64(longest))
		}
	default:
		return plainBatch
	}
	bytes := func(n int64) int64 {
		b := n * perValue
		if pages.plainFewest > 0 {
			b += ((n+pages.plainFewest-1)/pages.plainFewest + 1) * pages.plainLargest
		}
		return b
	}
	n := int64(plainBatch)
	for n > 1 && bytes(n) > limit {
		n /= 2
	}
	return int(n)
}

// fill loads the next batch of levels; it reports false at the end of the
// column chunk.
func (c *plainCol) fill() (bool, error) {
	n, err := c.read()
	if err != nil {
		return false, err
	}
	c.n, c.pos, c.vpos = n, 0, 0
	return n > 0, nil
}

func (c *plainCol) hasValue(k int) bool {
	return c.maxDef == 0 || c.defs[k] == c.maxDef
}

func (c *plainCol) nextRow() (string, bool, error) {
	if c.pos >= c.n {
		ok, err := c.fill()
		if err != nil {
			return "", false, err
		}
		if !ok {
			return "", false, malformedf("the column holds fewer values than the row group's row count")
		}
	}
	if c.maxRep == 0 {
		k := c.pos
		c.pos++
		if !c.hasValue(k) {
			return "", true, nil
		}
		if c.vpos >= len(c.vals) {
			return "", false, malformedf("definition levels and values disagree")
		}
		v := c.vals[c.vpos]
		c.vpos++
		return v, false, nil
	}
	if c.reps[c.pos] != 0 {
		return "", false, malformedf("a row starts with a nonzero repetition level")
	}
	c.json = append(c.json[:0], '[')
	items, null := 0, false
	for first := true; ; first = false {
		if c.pos >= c.n {
			ok, err := c.fill()
			if err != nil {
				return "", false, err
			}
			if !ok {
				break
			}
		}
		if !first && c.reps[c.pos] == 0 {
			break
		}
		def := c.maxDef
		if c.maxDef > 0 {
			def = c.defs[c.pos]
		}
		switch {
		case def == c.maxDef:
			if c.vpos >= len(c.vals) {
				return "", false, malformedf("definition levels and values disagree")
			}
			if items > 0 {
				c.json = append(c.json, ',')
			}
			v := c.vals[c.vpos]
			c.vpos++
			if c.literal && v != "NaN" && v != "+Inf" && v != "-Inf" {
				c.json = append(c.json, v...)
			} else {
				c.json = appendJSONString(c.json, v)
			}
			items++
			if len(c.json) > c.maxValue {
				return "", false, c.tooLong()
			}
		case c.elemOption && def == c.maxDef-1:
			if items > 0 {
				c.json = append(c.json, ',')
			}
			c.json = append(c.json, "null"...)
			items++
			if len(c.json) > c.maxValue {
				return "", false, c.tooLong()
			}
		case first && def == 0 && c.nullAtTop:
			null = true
		}
		c.pos++
	}
	if null && items == 0 {
		return "", true, nil
	}
	c.json = append(c.json, ']')
	return string(c.json), false, nil
}

// tooLong is the error of a repeated value whose JSON text passes the field
// limit: a row of a few bytes of levels can hold millions of elements.
func (c *plainCol) tooLong() error {
	return unsupportedf("the value is larger than the %s limit", humanBytes(c.maxValue))
}

// readInto reads one batch through a typed ReadBatch and formats the values.
func readInto[T any](c *plainCol, read func(int64, []T, []int16, []int16) (int64, int, error), buf []T, conv func(T) string) (int, error) {
	buf = buf[:c.batch]
	total, nv, err := read(int64(len(buf)), buf, c.defs, c.reps)
	if err != nil {
		return 0, err
	}
	if nv < 0 || nv > len(buf) || total < 0 || total > int64(len(buf)) {
		return 0, malformedf("the column reader returned inconsistent counts")
	}
	c.vals = c.vals[:0]
	for _, v := range buf[:nv] {
		c.vals = append(c.vals, conv(v))
	}
	return int(total), nil
}

// plainReader returns a constructor for the batch reader of column d and
// whether its values are JSON literals.
func plainReader(c *plainCol, d *schema.Column) (func(file.ColumnChunkReader) (func() (int, error), error), bool) {
	lt := d.LogicalType()
	mismatch := func(cr file.ColumnChunkReader) error {
		return malformedf("parquet: column %q: unexpected reader type %T", c.name, cr)
	}
	switch d.PhysicalType() {
	case parquet.Types.Boolean:
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.BooleanColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]bool, plainBatch)
			return func() (int, error) { return readInto(c, r.ReadBatch, buf, strconv.FormatBool) }, nil
		}, true
	case parquet.Types.Int32:
		conv, lit := int32Formatter(lt)
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.Int32ColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]int32, plainBatch)
			return func() (int, error) { return readInto(c, r.ReadBatch, buf, conv) }, nil
		}, lit
	case parquet.Types.Int64:
		conv, lit := int64Formatter(lt)
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.Int64ColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]int64, plainBatch)
			return func() (int, error) { return readInto(c, r.ReadBatch, buf, conv) }, nil
		}, lit
	case parquet.Types.Int96:
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.Int96ColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]parquet.Int96, plainBatch)
			return func() (int, error) {
				return readInto(c, r.ReadBatch, buf, func(v parquet.Int96) string { return formatTimestamp(v.ToTime()) })
			}, nil
		}, false
	case parquet.Types.Float:
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.Float32ColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]float32, plainBatch)
			return func() (int, error) {
				return readInto(c, r.ReadBatch, buf, func(v float32) string { return formatFloat(float64(v), 32) })
			}, nil
		}, true
	case parquet.Types.Double:
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.Float64ColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]float64, plainBatch)
			return func() (int, error) {
				return readInto(c, r.ReadBatch, buf, func(v float64) string { return formatFloat(v, 64) })
			}, nil
		}, true
	case parquet.Types.ByteArray:
		conv, lit := bytesFormatter(lt)
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.ByteArrayColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]parquet.ByteArray, plainBatch)
			return func() (int, error) {
				return readInto(c, r.ReadBatch, buf, func(v parquet.ByteArray) string { return conv(v) })
			}, nil
		}, lit
	case parquet.Types.FixedLenByteArray:
		conv, lit := bytesFormatter(lt)
		return func(cr file.ColumnChunkReader) (func() (int, error), error) {
			r, ok := cr.(*file.FixedLenByteArrayColumnChunkReader)
			if !ok {
				return nil, mismatch(cr)
			}
			buf := make([]parquet.FixedLenByteArray, plainBatch)
			return func() (int, error) {
				return readInto(c, r.ReadBatch, buf, func(v parquet.FixedLenByteArray) string { return conv(v) })
			}, nil
		}, lit
	}
	return func(file.ColumnChunkReader) (func() (int, error), error) {
		return nil, malformedf("parquet: the schema gives column %q an invalid physical type (corrupt footer)", c.name)
	}, false
}

func int32Formatter(lt schema.LogicalType) (func(int32) string, bool) {
	switch t := lt.(type) {
	case schema.DateLogicalType, *schema.DateLogicalType:
		return func(v int32) string { return formatEpochDate(int64(v)) }, false
	case schema.DecimalLogicalType:
		return func(v int32) string { return string(appendDecimal(nil, int64(v), t.Scale())) }, true
	case *schema.DecimalLogicalType:
		return func(v int32) string { return string(appendDecimal(nil, int64(v), t.Scale())) }, true
	case schema.TimeLogicalType:
		return func(v int32) string { return formatTimeOfDay(int64(v), 1000) }, false
	case *schema.TimeLogicalType:
		return func(v int32) string { return formatTimeOfDay(int64(v), 1000) }, false
	case schema.IntLogicalType:
		if !t.IsSigned() {
			return func(v int32) string { return strconv.FormatUint(uint64(uint32(v)), 10) }, true
		}
	case *schema.IntLogicalType:
		if !t.IsSigned() {
			return func(v int32) string { return strconv.FormatUint(uint64(uint32(v)), 10) }, true
		}
	}
	return func(v int32) string { return strconv.FormatInt(int64(v), 10) }, true
}

func perSecond(u schema.TimeUnitType) int64 {
	switch u {
	case schema.TimeUnitMillis:
		return 1e3
	case schema.TimeUnitMicros:
		return 1e6
	}
	return 1e9
}

func timestampFormatter(unit schema.TimeUnitType) func(int64) string {
	ps := perSecond(unit)
	return func(v int64) string {
		sec, frac := v/ps, v%ps
		if frac < 0 {
			sec--
			frac += ps
		}
		return formatTimestamp(time.Unix(sec, frac*(1e9/ps)))
	}
}

func int64Formatter(lt schema.LogicalType) (func(int64) string, bool) {
	switch t := lt.(type) {
	case schema.TimestampLogicalType:
		return timestampFormatter(t.TimeUnit()), false
	case *schema.TimestampLogicalType:
		return timestampFormatter(t.TimeUnit()), false
	case schema.DecimalLogicalType:
		return func(v int64) string { return string(appendDecimal(nil, v, t.Scale())) }, true
	case *schema.DecimalLogicalType:
		return func(v int64) string { return string(appendDecimal(nil, v, t.Scale())) }, true
	case schema.TimeLogicalType:
		ps := perSecond(t.TimeUnit())
		return func(v int64) string { return formatTimeOfDay(v, ps) }, false
	case *schema.TimeLogicalType:
		ps := perSecond(t.TimeUnit())
		return func(v int64) string { return formatTimeOfDay(v, ps) }, false
	case schema.IntLogicalType:
		if !t.IsSigned() {
			return func(v int64) string { return strconv.FormatUint(uint64(v), 10) }, true
		}
	case *schema.IntLogicalType:
		if !t.IsSigned() {
			return func(v int64) string { return strconv.FormatUint(uint64(v), 10) }, true
		}
	}
	return func(v int64) string { return strconv.FormatInt(v, 10) }, true
}

// bigEndianInt decodes a big-endian two's complement integer.
func bigEndianInt(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

func bytesFormatter(lt schema.LogicalType) (func([]byte) string, bool) {
	var scale int32
	isDecimal := false
	switch t := lt.(type) {
	case schema.DecimalLogicalType:
		scale, isDecimal = t.Scale(), true
	case *schema.DecimalLogicalType:
		scale, isDecimal = t.Scale(), true
	case schema.Float16LogicalType, *schema.Float16LogicalType:
		return func(b []byte) string {
			if len(b) != 2 {
				return formatBinary(b)
			}
			return float16Text(binary.LittleEndian.Uint16(b))
		}, true
	case schema.UUIDLogicalType, *schema.UUIDLogicalType:
		return formatUUID, false
	}
	if isDecimal {
		return func(b []byte) string { return formatDecimal(bigEndianInt(b), scale) }, true
	}
	return formatBinary, false
}
