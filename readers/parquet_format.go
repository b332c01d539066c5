package readers

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/dqs/dqs/columnar"
)

// Value formatting shared by the Parquet readers:
// ints in decimal, floats with strconv 'g' -1, bools true/false, timestamps
// RFC 3339 (nanoseconds, UTC), dates 2006-01-02, times 15:04:05.999999999,
// decimals exact, binary as UTF-8 when valid else standard base64, and
// lists, maps and structs inside them as compact JSON.

const (
	dateLayout = "2006-01-02"
	timeLayout = "15:04:05.999999999"
)

// The append* functions below are the one formatting core: the row reader
// (Next), the batch reader (NextBatch) and the plain column reader all
// format through them, so the three cannot drift apart. They append to a
// caller's buffer because the batch reader formats straight into a
// column's text, with no string per value. The format* wrappers serve the
// plain reader, which keeps values as strings.

// appendFloat appends v in the shortest form that reads back as v and
// reports whether the text is a JSON number (not NaN or an infinity).
func appendFloat(dst []byte, v float64, bits int) ([]byte, bool) {
	if bits == 64 {
		return columnar.AppendFloat64(dst, v), !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	return strconv.AppendFloat(dst, v, 'g', -1, bits), !math.IsNaN(v) && !math.IsInf(v, 0)
}

func formatFloat(v float64, bits int) string {
	return strconv.FormatFloat(v, 'g', -1, bits)
}

// appendTimestamp appends t in UTC as RFC 3339 with nanoseconds. Go's
// AppendFormat has a fast path for this exact layout.
func appendTimestamp(dst []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(dst, time.RFC3339Nano)
}

func formatTimestamp(t time.Time) string { return string(appendTimestamp(nil, t)) }

// appendUnixTimestamp appends the instant v units after the epoch as
// appendTimestamp does.
func appendUnixTimestamp(dst []byte, v int64, unit arrow.TimeUnit) []byte {
	return columnar.AppendTimestamp(dst, v, unitsPerSecond(unit))
}

// appendDate appends t's date in UTC as 2006-01-02.
func appendDate(dst []byte, t time.Time) []byte {
	days := t.Unix() / 86400
	if t.Unix()%86400 < 0 {
		days--
	}
	return columnar.AppendDate(dst, days)
}

// appendEpochDate appends the date days days after 1970-01-01.
func appendEpochDate(dst []byte, days int64) []byte { return columnar.AppendDate(dst, days) }

func formatEpochDate(days int64) string { return string(appendEpochDate(nil, days)) }

// appendBinary appends b as is when it is valid UTF-8, else in standard
// base64.
func appendBinary(dst, b []byte) []byte {
	if utf8.Valid(b) {
		return append(dst, b...)
	}
	return base64.StdEncoding.AppendEncode(dst, b)
}

func formatBinary(b []byte) string { return string(appendBinary(nil, b)) }

// appendScaled appends unscaled * 10^-scale exactly, given unscaled's
// decimal digits (with a leading '-' when negative).
func appendScaled(dst, digits []byte, scale int32) []byte {
	if scale <= 0 {
		dst = append(dst, digits...)
		if scale < 0 && string(digits) != "0" {
			dst = appendZeros(dst, int(-scale))
		}
		return dst
	}
	if digits[0] == '-' {
		dst = append(dst, '-')
		digits = digits[1:]
	}
	places := int(scale)
	if len(digits) <= places {
		dst = append(dst, "0."...)
		dst = appendZeros(dst, places-len(digits))
		return append(dst, digits...)
	}
	dst = append(dst, digits[:len(digits)-places]...)
	dst = append(dst, '.')
	return append(dst, digits[len(digits)-places:]...)
}

func appendZeros(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, '0')
	}
	return dst
}

// appendDecimal appends unscaled * 10^-scale for an unscaled value that
// fits in an int64 (the common case, which needs no big.Int).
func appendDecimal(dst []byte, unscaled int64, scale int32) []byte {
	var digits [20]byte
	return appendScaled(dst, strconv.AppendInt(digits[:0], unscaled, 10), scale)
}

// appendBigDecimal appends unscaled * 10^-scale.
func appendBigDecimal(dst []byte, unscaled *big.Int, scale int32) []byte {
	var digits [80]byte
	return appendScaled(dst, unscaled.Append(digits[:0], 10), scale)
}

func formatDecimal(unscaled *big.Int, scale int32) string {
	return string(appendBigDecimal(nil, unscaled, scale))
}

// appendDecimal128 appends n * 10^-scale, through int64 when n fits.
func appendDecimal128(dst []byte, n decimal128.Num, scale int32) []byte {
	if lo, hi := n.LowBits(), n.HighBits(); hi == -int64(lo>>63) {
		return appendDecimal(dst, int64(lo), scale)
	}
	return appendBigDecimal(dst, n.BigInt(), scale)
}

// appendTimeOfDay appends a time of day given in units per second.
func appendTimeOfDay(dst []byte, v int64, perSecond int64) []byte {
	d := time.Duration(v) * (time.Second / time.Duration(perSecond))
	return time.Unix(0, 0).UTC().Add(d).AppendFormat(dst, timeLayout)
}

func formatTimeOfDay(v int64, perSecond int64) string {
	return string(appendTimeOfDay(nil, v, perSecond))
}

func unitsPerSecond(u arrow.TimeUnit) int64 {
	switch u {
	case arrow.Second:
		return 1
	case arrow.Millisecond:
		return 1e3
	case arrow.Microsecond:
		return 1e6
	}
	return 1e9
}

// appendArrowValue appends the text of element i of arr (which must not be
// null) to dst. jsonOK reports whether the text is a JSON literal (number,
// bool, object or array) rather than something to quote. The JSON text of a
// nested value stops at limit bytes (see appendArrowJSON); a scalar's is
// as long as the value.
func appendArrowValue(dst []byte, arr arrow.Array, i int, limit int) (_ []byte, jsonOK bool) {
	switch a := arr.(type) {
	case *array.Boolean:
		return strconv.AppendBool(dst, a.Value(i)), true
	case *array.Int8:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), true
	case *array.Int16:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), true
	case *array.Int32:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), true
	case *array.Int64:
		return strconv.AppendInt(dst, a.Value(i), 10), true
	case *array.Uint8:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), true
	case *array.Uint16:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), true
	case *array.Uint32:
		return strconv.AppendUint(dst, uint64(a.Value(i)), 10), true
	case *array.Uint64:
		return strconv.AppendUint(dst, a.Value(i), 10), true
	case *array.Float16:
		return appendFloat(dst, float64(a.Value(i).Float32()), 32)
	case *array.Float32:
		return appendFloat(dst, float64(a.Value(i)), 32)
	case *array.Float64:
		return appendFloat(dst, a.Value(i), 64)
	case *array.String:
		return append(dst, a.Value(i)...), false
	case *array.LargeString:
		return append(dst, a.Value(i)...), false
	case *array.StringView:
		return append(dst, a.Value(i)...), false
	case *array.Binary:
		return appendBinary(dst, a.Value(i)), false
	case *array.LargeBinary:
		return appendBinary(dst, a.Value(i)), false
	case *array.BinaryView:
		return appendBinary(dst, a.Value(i)), false
	case *array.FixedSizeBinary:
		return appendBinary(dst, a.Value(i)), false
	case *array.Date32:
		return appendEpochDate(dst, int64(a.Value(i))), false
	case *array.Date64:
		return appendDate(dst, a.Value(i).ToTime()), false
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return appendUnixTimestamp(dst, int64(a.Value(i)), unit), false
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return appendTimeOfDay(dst, int64(a.Value(i)), unitsPerSecond(unit)), false
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return appendTimeOfDay(dst, int64(a.Value(i)), unitsPerSecond(unit)), false
	case *array.Duration:
		return strconv.AppendInt(dst, int64(a.Value(i)), 10), true
	case *array.Decimal32:
		return appendDecimal(dst, int64(a.Value(i)), a.DataType().(*arrow.Decimal32Type).Scale), true
	case *array.Decimal64:
		return appendDecimal(dst, int64(a.Value(i)), a.DataType().(*arrow.Decimal64Type).Scale), true
	case *array.Decimal128:
		return appendDecimal128(dst, a.Value(i), a.DataType().(*arrow.Decimal128Type).Scale), true
	case *array.Decimal256:
		return appendBigDecimal(dst, a.Value(i).BigInt(), a.DataType().(*arrow.Decimal256Type).Scale), true
	case *array.Dictionary:
		return appendArrowValue(dst, a.Dictionary(), a.GetValueIndex(i), limit)
	case array.ExtensionArray:
		if fsb, ok := a.Storage().(*array.FixedSizeBinary); ok && a.ExtensionType().ExtensionName() == "arrow.uuid" {
			return appendUUID(dst, fsb.Value(i)), false
		}
		return appendArrowValue(dst, a.Storage(), i, limit)
	case *array.Struct, *array.Map, array.ListLike:
		return appendArrowJSON(dst, arr, i, 0, len(dst)+limit), true
	}
	return append(dst, arr.ValueStr(i)...), false
}

const maxNestedJSONDepth = 256

// valueOverLimit is what appendArrowJSON panics with when the JSON text of
// a nested value passes its limit: a list of many elements named by long
// field names takes little memory in Arrow and without bound as text.
// guard turns it into ErrUnsupported.
type valueOverLimit struct{}

// appendArrowJSON appends element i of arr as compact JSON; it panics with
// valueOverLimit once dst passes stop bytes.
func appendArrowJSON(dst []byte, arr arrow.Array, i int, depth int, stop int) []byte {
	if len(dst) > stop {
		panic(valueOverLimit{})
	}
	if arr.IsNull(i) || depth > maxNestedJSONDepth {
		return append(dst, "null"...)
	}
	switch a := arr.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		dst = append(dst, '{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, st.Field(k).Name)
			dst = append(dst, ':')
			dst = appendArrowJSON(dst, a.Field(k), i, depth+1, stop)
		}
		return append(dst, '}')
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		var key []byte
		dst = append(dst, '{')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			key = append(key[:0], "null"...)
			if !keys.IsNull(int(j)) {
				key, _ = appendArrowValue(key[:0], keys, int(j), stop-len(dst))
			}
			dst = appendJSONString(dst, string(key))
			dst = append(dst, ':')
			dst = appendArrowJSON(dst, items, int(j), depth+1, stop)
		}
		return append(dst, '}')
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		dst = append(dst, '[')
		for j := start; j < end; j++ {
			if j > start {
				dst = append(dst, ',')
			}
			dst = appendArrowJSON(dst, vals, int(j), depth+1, stop)
		}
		return append(dst, ']')
	case *array.Dictionary:
		return appendArrowJSON(dst, a.Dictionary(), a.GetValueIndex(i), depth+1, stop)
	case array.ExtensionArray:
		return appendArrowJSON(dst, a.Storage(), i, depth+1, stop)
	}
	// A scalar: append its text, then quote it in place unless it is
	// already a JSON literal.
	start := len(dst)
	dst, lit := appendArrowValue(dst, arr, i, stop-start)
	if lit {
		return dst
	}
	text := string(dst[start:])
	return appendJSONString(dst[:start], text)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, "\ufffd"...)
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		case '\t':
			dst = append(dst, `\t`...)
		default:
			dst = append(dst, `\u00`...)
			dst = append(dst, hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendUUID appends 16 bytes in the canonical 8-4-4-4-12 form.
func appendUUID(dst, b []byte) []byte {
	if len(b) != 16 {
		return appendBinary(dst, b)
	}
	dst = hex.AppendEncode(dst, b[0:4])
	for _, part := range [][]byte{b[4:6], b[6:8], b[8:10], b[10:16]} {
		dst = append(dst, '-')
		dst = hex.AppendEncode(dst, part)
	}
	return dst
}

func formatUUID(b []byte) string { return string(appendUUID(nil, b)) }

// float16Text formats raw half-precision bits.
func float16Text(bits uint16) string {
	return formatFloat(float64(float16.FromBits(bits).Float32()), 32)
}
