package readers

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"strconv"
)

// csvScanner is a small RFC 4180 tokenizer over UTF-8 text.
//
// Differences from encoding/csv that matter here: CR-only line endings are
// recognised, CR LF inside quoted fields is kept verbatim, a quote inside an
// unquoted field is taken literally (as Python's csv module does), and
// every limit (field size, record size, field count) is enforced while
// scanning so a hostile file cannot make it buffer without bound.
type csvScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	eof      bool
	rerr     error

	delim byte
	quote byte // 0 disables quoting
	// special marks bytes that end an unquoted field.
	special [256]bool

	line    int  // 1-based line of the next unread byte
	prevCR  bool // last byte appended inside a quoted field was '\r'
	recLine int  // line where the current record starts

	rec  []byte // field bytes of the current record, concatenated
	ends []int  // end offset of each field in rec

	maxField  int
	maxFields int
	maxRecord int
}

func newCSVScanner(r io.Reader, delim, quote byte, maxField, maxFields int) *csvScanner {
	return newCSVScannerSize(r, delim, quote, maxField, maxFields, 256<<10)
}

func newCSVScannerSize(r io.Reader, delim, quote byte, maxField, maxFields, bufSize int) *csvScanner {
	s := &csvScanner{
		r:         r,
		buf:       make([]byte, max(bufSize, 16)),
		delim:     delim,
		quote:     quote,
		line:      1,
		maxField:  maxField,
		maxFields: maxFields,
		maxRecord: max(64<<20, 2*maxField),
	}
	s.special[delim] = true
	s.special['\n'] = true
	s.special['\r'] = true
	return s
}

func (s *csvScanner) fill() bool {
	if s.pos < s.end {
		return true
	}
	for !s.eof {
		n, err := s.r.Read(s.buf)
		s.pos, s.end = 0, n
		if err != nil {
			s.eof = true
			if err != io.EOF {
				s.rerr = err
			}
		}
		if n > 0 {
			return true
		}
	}
	return false
}

// skipLines discards n physical lines without interpreting quotes.
func (s *csvScanner) skipLines(n int) error {
	for n > 0 {
		if !s.fill() {
			return s.rerr
		}
		chunk := s.buf[s.pos:s.end]
		i := bytes.IndexAny(chunk, "\r\n")
		if i < 0 {
			s.pos = s.end
			continue
		}
		s.pos += i
		s.consumeEOL()
		n--
	}
	return nil
}

// consumeEOL consumes one line terminator (\n, \r\n or \r) at s.pos.
func (s *csvScanner) consumeEOL() {
	c := s.buf[s.pos]
	s.pos++
	s.line++
	if c == '\r' && s.fill() && s.buf[s.pos] == '\n' {
		s.pos++
	}
}

func (s *csvScanner) errorf(line int, format string, args ...any) error {
	return malformedf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (s *csvScanner) fieldTooLarge() error {
	return unsupportedf("line %d: field %d is larger than the %s limit", s.recLine, len(s.ends)+1, humanBytes(s.maxField))
}

func (s *csvScanner) endField() error {
	s.ends = append(s.ends, len(s.rec))
	if len(s.ends) > s.maxFields {
		return unsupportedf("line %d: more than %d fields in one row", s.recLine, s.maxFields)
	}
	if len(s.rec) > s.maxRecord {
		return unsupportedf("line %d: row is larger than the %s limit", s.recLine, humanBytes(s.maxRecord))
	}
	return nil
}

// appendQuoted appends bytes from inside a quoted field, counting the
// line breaks they contain.
func (s *csvScanner) appendQuoted(b []byte) {
	if len(b) == 0 {
		return
	}
	s.rec = append(s.rec, b...)
	if bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		s.prevCR = false
		return
	}
	for _, c := range b {
		switch c {
		case '\n':
			if !s.prevCR {
				s.line++
			}
			s.prevCR = false
		case '\r':
			s.line++
			s.prevCR = true
		default:
			s.prevCR = false
		}
	}
}

// readRecord scans the next non-blank record into s.rec/s.ends. It returns
// io.EOF when no record is left.
func (s *csvScanner) readRecord() error {
	s.rec = s.rec[:0]
	s.ends = s.ends[:0]
	for {
		if !s.fill() {
			if s.rerr != nil {
				return s.rerr
			}
			return io.EOF
		}
		c := s.buf[s.pos]
		if c != '\n' && c != '\r' {
			break
		}
		s.consumeEOL()
	}
	s.recLine = s.line
	for {
		fieldStart := len(s.rec)
		if s.quote != 0 && s.buf[s.pos] == s.quote {
			s.pos++
			openLine := s.line
			s.prevCR = false
			for {
				if !s.fill() {
					if s.rerr != nil {
						return s.rerr
					}
					return s.errorf(openLine, "quoted field %d is never closed (missing %c)", len(s.ends)+1, s.quote)
				}
				chunk := s.buf[s.pos:s.end]
				i := bytes.IndexByte(chunk, s.quote)
				if i < 0 {
					s.appendQuoted(chunk)
					s.pos = s.end
				} else {
					s.appendQuoted(chunk[:i])
					s.pos += i + 1
					if s.fill() && s.buf[s.pos] == s.quote {
						s.rec = append(s.rec, s.quote)
						s.pos++
						s.prevCR = false
					} else {
						if len(s.rec)-fieldStart > s.maxField {
							return s.fieldTooLarge()
						}
						break
					}
				}
				if len(s.rec)-fieldStart > s.maxField {
					return s.fieldTooLarge()
				}
			}
			if !s.fill() {
				if s.rerr != nil {
					return s.rerr
				}
				return s.endField()
			}
			switch c := s.buf[s.pos]; c {
			case s.delim:
				s.pos++
				if err := s.endField(); err != nil {
					return err
				}
				if !s.fill() { // trailing delimiter at end of input
					return s.endField()
				}
				continue
			case '\n', '\r':
				if err := s.endField(); err != nil {
					return err
				}
				s.consumeEOL()
				return nil
			default:
				return s.errorf(s.line, "unexpected %q after the closing quote of field %d (a quote inside a quoted field must be doubled)", rune(c), len(s.ends)+1)
			}
		}
		// Unquoted field.
		for {
			if !s.fill() {
				if s.rerr != nil {
					return s.rerr
				}
				return s.endField()
			}
			chunk := s.buf[s.pos:s.end]
			i := s.plainRun(chunk)
			s.rec = append(s.rec, chunk[:i]...)
			s.pos += i
			if len(s.rec)-fieldStart > s.maxField {
				return s.fieldTooLarge()
			}
			if i == len(chunk) {
				continue
			}
			if err := s.endField(); err != nil {
				return err
			}
			if chunk[i] == s.delim {
				s.pos++
				if !s.fill() { // trailing delimiter at end of input
					if s.rerr != nil {
						return s.rerr
					}
					return s.endField()
				}
				break
			}
			s.consumeEOL()
			return nil
		}
	}
}

// plainRun returns the length of the run of chunk before its first byte
// that ends an unquoted field (the delimiter, CR or LF), or len(chunk),
// testing eight bytes at a time: a byte of w equal to b is a zero byte of
// w^(ones*b).
func (s *csvScanner) plainRun(chunk []byte) int {
	d := ones * uint64(s.delim)
	i := 0
	for ; i+8 <= len(chunk); i += 8 {
		w := binary.LittleEndian.Uint64(chunk[i:])
		if m := hasZeroByte(w^d) | hasZeroByte(w^(ones*'\n')) | hasZeroByte(w^(ones*'\r')); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(chunk) && !s.special[chunk[i]] {
		i++
	}
	return i
}

// fieldCount is the number of fields in the current record.
func (s *csvScanner) fieldCount() int { return len(s.ends) }

// field returns field i of the current record as a byte slice that is only
// valid until the next readRecord.
func (s *csvScanner) field(i int) []byte {
	start := 0
	if i > 0 {
		start = s.ends[i-1]
	}
	return s.rec[start:s.ends[i]]
}

// aboutBytes words an amount that need not be exact: MiB (or KiB, GiB)
// with one decimal at most.
func aboutBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
