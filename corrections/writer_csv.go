package corrections

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/dqs/dqs/records"
)

// csvWriter writes RFC 4180 CSV. encoding/csv would do but for two
// things: it writes a row of one empty field as an empty line, which
// readers skip (the row would be lost), and it leaves fields with leading
// or trailing spaces unquoted, which some readers trim.
type csvWriter struct {
	w     *bufio.Writer
	delim byte
	cols  int
	// special are the bytes that make a field need quotes.
	special string
}

func newCSVWriter(w io.Writer, delim rune) (*csvWriter, error) {
	if delim == 0 {
		delim = ','
	}
	if delim >= 0x80 || delim == '"' || delim == '\r' || delim == '\n' {
		return nil, fmt.Errorf("cannot write CSV with the delimiter %q: an ASCII character other than a quote or a line break", delim)
	}
	return &csvWriter{w: bufio.NewWriterSize(w, 64<<10), delim: byte(delim), special: string([]byte{byte(delim), '"', '\r', '\n'})}, nil
}

func (c *csvWriter) WriteHeader(cols []string) error {
	c.cols = len(cols)
	return c.line(cols, nil)
}

func (c *csvWriter) Write(rec *records.Record) error {
	return c.line(rec.Values, rec.Null)
}

func (c *csvWriter) line(values []string, null []bool) error {
	for i, v := range values {
		if i > 0 {
			c.w.WriteByte(c.delim)
		}
		if i < len(null) && null[i] {
			v = ""
		}
		c.field(v, len(values) == 1)
	}
	_, err := c.w.WriteString("\r\n")
	return err
}

// field writes v, quoted when it must be; alone is set when v is the only
// field of its line, which must then not be empty.
func (c *csvWriter) field(v string, alone bool) {
	quote := (alone && v == "") || strings.ContainsAny(v, c.special) ||
		(v != "" && (isSpaceByte(v[0]) || isSpaceByte(v[len(v)-1])))
	if !quote {
		c.w.WriteString(v)
		return
	}
	c.w.WriteByte('"')
	for {
		i := strings.IndexByte(v, '"')
		if i < 0 {
			break
		}
		c.w.WriteString(v[:i+1])
		c.w.WriteByte('"')
		v = v[i+1:]
	}
	c.w.WriteString(v)
	c.w.WriteByte('"')
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' }

func (c *csvWriter) Close() error { return c.w.Flush() }
