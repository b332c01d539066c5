package corrections

import (
	"bufio"
	"io"
	"unicode/utf8"

	"github.com/dqs/dqs/records"
)

// jsonWriter writes JSON Lines, or a JSON array of the same objects when
// array is set, a row at a time: the array is streamed, never built.
type jsonWriter struct {
	w     *bufio.Writer
	array bool
	keys  [][]byte // each column's key, quoted, with its colon
	rows  int64
	buf   []byte
}

func newJSONWriter(w io.Writer, array bool) *jsonWriter {
	return &jsonWriter{w: bufio.NewWriterSize(w, 64<<10), array: array}
}

func (j *jsonWriter) WriteHeader(cols []string) error {
	j.keys = make([][]byte, len(cols))
	for i, c := range cols {
		j.keys[i] = append(appendJSONString(nil, c), ':')
	}
	if j.array {
		_, err := j.w.WriteString("[")
		return err
	}
	return nil
}

func (j *jsonWriter) Write(rec *records.Record) error {
	b := j.buf[:0]
	switch {
	case j.array && j.rows > 0:
		b = append(b, ",\n"...)
	case j.array:
		b = append(b, '\n')
	}
	b = append(b, '{')
	for i, v := range rec.Values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, j.keys[i]...)
		if i < len(rec.Null) && rec.Null[i] {
			b = append(b, "null"...)
		} else {
			b = appendJSONString(b, v)
		}
	}
	b = append(b, '}')
	if !j.array {
		b = append(b, '\n')
	}
	j.rows++
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

func (j *jsonWriter) Close() error {
	if j.array {
		if j.rows > 0 {
			j.w.WriteByte('\n')
		}
		j.w.WriteString("]\n")
	}
	return j.w.Flush()
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 replaced by U+FFFD (as
// encoding/json does), and U+2028 and U+2029 escaped, which JavaScript
// once took for line ends.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, `\u202`...)
			b = append(b, hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
