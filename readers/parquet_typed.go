package readers

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/dqs/dqs/columnar"
)

// Typed columns. NextBatch hands over Parquet columns of integers, doubles,
// dates and timestamps as values (columnar.Column.Nums), not text: the profiler
// hashes and counts the 8-byte values and formats only those it shows,
// which saves formatting every value here and reading it back there.
// Both the direct path and the Arrow path do so for exactly the Arrow
// types typedKind names, so a file's batches do not depend on the path
// that read them (the direct path may hand over to the Arrow path
// partway through a file). Next, which reads row by row, gives text as
// before.

// maxTypedText is the longest text of a typed value (an int64 takes 20
// bytes, an instant past year 9999 about 40): a file read with a field
// limit under it gets text, so that the limit is checked on every value.
const maxTypedText = 64

// typedKind is the kind of the batch columns made of an Arrow array of
// type t: columnar.Text unless t is INT32, INT64, FLOAT64, DATE32 or
// TIMESTAMP (a dictionary of them is text, as are their extension types).
func typedKind(t arrow.DataType, maxValue int) columnar.Kind {
	if maxValue < maxTypedText {
		return columnar.Text
	}
	switch t.ID() {
	case arrow.INT32, arrow.INT64:
		return columnar.Int
	case arrow.FLOAT64:
		return columnar.Float64
	case arrow.DATE32:
		return columnar.Date
	case arrow.TIMESTAMP:
		return timestampKind(t.(*arrow.TimestampType).Unit)
	}
	return columnar.Text
}

func timestampKind(u arrow.TimeUnit) columnar.Kind {
	switch u {
	case arrow.Second:
		return columnar.TimestampS
	case arrow.Millisecond:
		return columnar.TimestampMS
	case arrow.Microsecond:
		return columnar.TimestampUS
	}
	return columnar.TimestampNS
}

// arrowNum returns element i of arr, an array of a type typedKind types.
func arrowNum(arr arrow.Array, i int) int64 {
	switch a := arr.(type) {
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return columnar.CanonicalFloat(int64(math.Float64bits(a.Value(i))))
	case *array.Date32:
		return int64(a.Value(i))
	case *array.Timestamp:
		return int64(a.Value(i))
	}
	panic("arrowNum of an array of type " + arr.DataType().String())
}

// appendNums appends rows [from, from+n) of the leaf, of kind k, to col,
// which CanType(k), as values.
func (l *arrowLeaf) appendNums(col *columnar.Column, k columnar.Kind, from, n int) {
	col.SetKind(k) // a run of nulls is typed too, as on the direct path
	for i := from; i < from+n; i++ {
		if l.null(i) {
			col.AppendNull()
			continue
		}
		col.AppendNum(k, arrowNum(l.arr, i))
	}
}
