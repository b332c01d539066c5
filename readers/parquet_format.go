package readers

import (
	"encoding/base64"
	"encoding/hex"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/float16"
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

func formatFloat(v float64, bits int) string {
	return strconv.FormatFloat(v, 'g', -1, bits)
}

func formatTimestamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func formatBinary(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// formatDecimal renders unscaled * 10^-scale exactly.
func formatDecimal(unscaled *big.Int, scale int32) string {
	s := unscaled.String()
	if scale <= 0 {
		if scale < 0 && s != "0" {
			s += strings.Repeat("0", int(-scale))
		}
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	places := int(scale)
	if len(s) <= places {
		s = "0." + strings.Repeat("0", places-len(s)) + s
	} else {
		s = s[:len(s)-places] + "." + s[len(s)-places:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// formatTimeOfDay renders a time of day given in units per second.
func formatTimeOfDay(v int64, perSecond int64) string {
	d := time.Duration(v) * (time.Second / time.Duration(perSecond))
	return time.Unix(0, 0).UTC().Add(d).Format(timeLayout)
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

// arrowValue formats element i of arr (which must not be null) as text.
// jsonOK reports whether text is already a JSON literal (number, bool,
// object or array) rather than something to quote.
func arrowValue(arr arrow.Array, i int) (text string, jsonOK bool) {
	switch a := arr.(type) {
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i)), true
	case *array.Int8:
		return strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int16:
		return strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int32:
		return strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10), true
	case *array.Uint8:
		return strconv.FormatUint(uint64(a.Value(i)), 10), true
	case *array.Uint16:
		return strconv.FormatUint(uint64(a.Value(i)), 10), true
	case *array.Uint32:
		return strconv.FormatUint(uint64(a.Value(i)), 10), true
	case *array.Uint64:
		return strconv.FormatUint(a.Value(i), 10), true
	case *array.Float16:
		f := float64(a.Value(i).Float32())
		return formatFloat(f, 32), !math.IsNaN(f) && !math.IsInf(f, 0)
	case *array.Float32:
		f := float64(a.Value(i))
		return formatFloat(f, 32), !math.IsNaN(f) && !math.IsInf(f, 0)
	case *array.Float64:
		f := a.Value(i)
		return formatFloat(f, 64), !math.IsNaN(f) && !math.IsInf(f, 0)
	case *array.String:
		return strings.Clone(a.Value(i)), false
	case *array.LargeString:
		return strings.Clone(a.Value(i)), false
	case *array.StringView:
		return strings.Clone(a.Value(i)), false
	case *array.Binary:
		return formatBinary(a.Value(i)), false
	case *array.LargeBinary:
		return formatBinary(a.Value(i)), false
	case *array.BinaryView:
		return formatBinary(a.Value(i)), false
	case *array.FixedSizeBinary:
		return formatBinary(a.Value(i)), false
	case *array.Date32:
		return a.Value(i).ToTime().UTC().Format(dateLayout), false
	case *array.Date64:
		return a.Value(i).ToTime().UTC().Format(dateLayout), false
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return formatTimestamp(a.Value(i).ToTime(unit)), false
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return formatTimeOfDay(int64(a.Value(i)), unitsPerSecond(unit)), false
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return formatTimeOfDay(int64(a.Value(i)), unitsPerSecond(unit)), false
	case *array.Duration:
		return strconv.FormatInt(int64(a.Value(i)), 10), true
	case *array.Decimal32:
		return formatDecimal(big.NewInt(int64(a.Value(i))), a.DataType().(*arrow.Decimal32Type).Scale), true
	case *array.Decimal64:
		return formatDecimal(big.NewInt(int64(a.Value(i))), a.DataType().(*arrow.Decimal64Type).Scale), true
	case *array.Decimal128:
		return formatDecimal(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal128Type).Scale), true
	case *array.Decimal256:
		return formatDecimal(a.Value(i).BigInt(), a.DataType().(*arrow.Decimal256Type).Scale), true
	case *array.Dictionary:
		return arrowValue(a.Dictionary(), a.GetValueIndex(i))
	case array.ExtensionArray:
		if fsb, ok := a.Storage().(*array.FixedSizeBinary); ok && a.ExtensionType().ExtensionName() == "arrow.uuid" {
			return formatUUID(fsb.Value(i)), false
		}
		return arrowValue(a.Storage(), i)
	case *array.Struct, *array.Map, array.ListLike:
		var b strings.Builder
		writeArrowJSON(&b, arr, i, 0)
		return b.String(), true
	}
	return arr.ValueStr(i), false
}

const maxNestedJSONDepth = 256

// writeArrowJSON appends element i of arr as compact JSON.
func writeArrowJSON(b *strings.Builder, arr arrow.Array, i int, depth int) {
	if arr.IsNull(i) || depth > maxNestedJSONDepth {
		b.WriteString("null")
		return
	}
	switch a := arr.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		b.WriteByte('{')
		for k := 0; k < a.NumField(); k++ {
			if k > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, st.Field(k).Name)
			b.WriteByte(':')
			writeArrowJSON(b, a.Field(k), i, depth+1)
		}
		b.WriteByte('}')
	case *array.Map:
		start, end := a.ValueOffsets(i)
		keys, items := a.Keys(), a.Items()
		b.WriteByte('{')
		for j := start; j < end; j++ {
			if j > start {
				b.WriteByte(',')
			}
			key := "null"
			if !keys.IsNull(int(j)) {
				key, _ = arrowValue(keys, int(j))
			}
			writeJSONString(b, key)
			b.WriteByte(':')
			writeArrowJSON(b, items, int(j), depth+1)
		}
		b.WriteByte('}')
	case array.ListLike:
		start, end := a.ValueOffsets(i)
		vals := a.ListValues()
		b.WriteByte('[')
		for j := start; j < end; j++ {
			if j > start {
				b.WriteByte(',')
			}
			writeArrowJSON(b, vals, int(j), depth+1)
		}
		b.WriteByte(']')
	case *array.Dictionary:
		writeArrowJSON(b, a.Dictionary(), a.GetValueIndex(i), depth+1)
	case array.ExtensionArray:
		writeArrowJSON(b, a.Storage(), i, depth+1)
	default:
		text, lit := arrowValue(arr, i)
		if lit {
			b.WriteString(text)
		} else {
			writeJSONString(b, text)
		}
	}
}

const hexDigits = "0123456789abcdef"

// writeJSONString appends s as a JSON string literal.
func writeJSONString(b *strings.Builder, s string) {
	b.WriteByte('"')
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
				b.WriteString(s[start:i])
				b.WriteString("\ufffd")
				i += size
				start = i
				continue
			}
			i += size
			continue
		}
		b.WriteString(s[start:i])
		switch c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			b.WriteString(`\u00`)
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// formatUUID renders 16 bytes in the canonical 8-4-4-4-12 form.
func formatUUID(b []byte) string {
	if len(b) != 16 {
		return formatBinary(b)
	}
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// float16Text formats raw half-precision bits.
func float16Text(bits uint16) string {
	return formatFloat(float64(float16.FromBits(bits).Float32()), 32)
}
