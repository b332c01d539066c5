package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// jsonRows frames the rows of a top-level JSON array or of a stream of
// JSON values (JSON Lines) and has a jsonParser parse each one straight
// from its buffer.
//
// The reader used to be built on encoding/json's Decoder, and what it
// accepts, its messages and their line and row numbers are kept: the
// Decoder's way through the input is mirrored where it shows. So JSON Lines
// are JSON values one after another whatever the line breaks: a row may
// span lines or share one (a .json file holding one pretty-printed object
// is read as JSON Lines). In an array, the Decoder's Token and More
// consumed '[', ',' and ']' and the whitespace before them without its
// scanner counting those bytes, and a syntax error is placed by that count.
//
// Rows are parsed where they lie in the buffer. One that runs past the
// buffered input is parsed again once more is read (the buffer doubles when
// a row fills it), which costs little as rows are far smaller than the
// buffer.
type jsonRows struct {
	f      File      // the whole file, reread to place errors (lineAt)
	in     io.Reader // the input: f from base on, up to its end or a bound
	format Format
	base   int64 // file offset of the input: past a UTF-8 BOM, or at a wrapped records array
	limit  int   // the largest row, in bytes

	buf  []byte
	off  int64 // input offset of buf[0]
	pos  int   // the first unconsumed byte of buf
	n    int   // buf[:n] holds input
	eof  bool  // the input ends at buf[n]
	rerr error // a read error, reported once the input before it is used

	open     bool // the array's '[' was consumed
	afterRow bool // in an array: a ',' or ']' comes next
	done     bool
	row      int
	scanned  int64 // input bytes encoding/json's scanner would have counted
	rowStart int64 // input offset where the Decoder stood before the row
	valStart int64 // input offset where its scanner started on the row
}

const (
	jsonMinBuffer = 64 << 10
	jsonBuffer    = 1 << 20 // the buffer grows to this while input keeps coming
)

// errRowTooLarge: a row runs past the row size limit.
var errRowTooLarge = errors.New("json: row too large")

// newJSONRows reads the rows of the whole file f, past a byte order mark.
func newJSONRows(f File, format Format, opt Options, buf []byte) (*jsonRows, error) {
	var bom [3]byte
	n, _ := f.ReadAt(bom[:], 0)
	base := int64(0)
	if n == 3 && bytes.Equal(bom[:], utf8BOM) {
		base = 3
	}
	return newJSONRowsIn(f, format, opt, buf, base, -1)
}

// newJSONRowsIn reads the rows of the part of f from file offset base up
// to end, or to the end of the file when end < 0: a wrapped records array
// (see locateRecords) is read as a JSON file of its own.
func newJSONRowsIn(f File, format Format, opt Options, buf []byte, base, end int64) (*jsonRows, error) {
	if _, err := f.Seek(base, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rewinding file: %w", err)
	}
	var in io.Reader = f
	if end >= 0 {
		in = io.LimitReader(f, end-base)
	}
	// A row may hold MaxColumns fields of MaxFieldBytes each, but never
	// more than the reader's record limit (a quarter of its budget).
	limit := max(2*int64(opt.MaxFieldBytes), min(int64(opt.MaxColumns)*int64(opt.MaxFieldBytes), opt.recordLimit()))
	if cap(buf) < jsonMinBuffer {
		buf = make([]byte, jsonMinBuffer)
	}
	return &jsonRows{f: f, in: in, format: format, base: base, limit: int(limit), buf: buf[:cap(buf)]}, nil
}

// next parses the next row with p, which hands its leaves to p.sink. A
// problem found while flattening is left in p.problem (see problemError).
// next returns io.EOF after the last row. The sink is told to abort the
// rows that fail here, not those with a problem.
func (it *jsonRows) next(p *jsonParser) error {
	if it.done {
		return io.EOF
	}
	if it.format == FormatJSON {
		if err := it.beforeArrayRow(); err != nil {
			return err
		}
	} else {
		it.rowStart = it.abs(it.pos)
	}
	it.valStart = it.abs(it.pos)
	end, err := it.parse(p, (*jsonParser).row)
	if err == io.EOF {
		it.done = true
		return io.EOF
	}
	it.row++
	if err != nil {
		p.abort()
		return it.rowError(err)
	}
	it.scanned += it.abs(end) - it.valStart
	it.pos = end
	it.afterRow = true
	if p.first != '{' {
		p.abort()
		return malformedf("%s: expected a JSON object, found %s", it.where(it.rowStart), describeJSON(p.first))
	}
	return nil
}

// beforeArrayRow consumes what precedes a row in an array: the opening
// '[' or the ',' after the previous row. At the closing ']' it checks that
// nothing follows and returns io.EOF.
func (it *jsonRows) beforeArrayRow() error {
	if !it.open {
		c, ok, err := it.peek()
		if err != nil {
			return it.readError(err, it.abs(it.pos))
		}
		if !ok {
			it.done = true
			return io.EOF
		}
		if c != '[' {
			return malformedf("line %d: expected a JSON array of objects", it.lineAt(0))
		}
		it.pos++
		it.open = true
	}
	c, ok, err := it.peek()
	switch {
	case err != nil:
		return it.readError(err, it.abs(it.pos))
	case !ok:
		return malformedf("%s: the file ends in the middle of a JSON value", it.where(it.abs(it.pos)))
	case c == ']':
		it.pos++
		return it.afterArray()
	case c == '}':
		context := "looking for beginning of value"
		if it.afterRow {
			context = "after array element"
		}
		return it.invalid(it.abs(it.pos)-1, "invalid character '}' "+context)
	}
	it.rowStart = it.abs(it.pos)
	if it.afterRow {
		if c != ',' {
			it.row++
			return it.invalid(it.abs(it.pos)-1, "expected comma after array element")
		}
		it.pos++
	}
	return nil
}

// afterArray checks that only whitespace follows the closing ']'. The line
// reported for anything else is where the Decoder stood after trying to
// read it as one more token.
func (it *jsonRows) afterArray() error {
	c, ok, err := it.peek()
	if err != nil {
		return it.readError(err, it.abs(it.pos))
	}
	if !ok {
		it.done = true
		return io.EOF
	}
	at := it.abs(it.pos) - 1
	switch c {
	case '[', '{':
		at++
	case ']', '}', ':', ',':
	default:
		var p jsonParser
		if end, err := it.parse(&p, (*jsonParser).value); err == nil {
			at = it.abs(end) - 1
		}
	}
	return malformedf("line %d: unexpected data after the end of the top-level array", it.lineAt(at))
}

// parse runs fn on the input from pos, reading more and starting over
// while the value goes on past the buffered input. It returns the index in
// buf where the value ends; a row longer than the limit is an error.
func (it *jsonRows) parse(p *jsonParser, fn func(*jsonParser) error) (int, error) {
	for {
		end, capped := it.n, false
		if end-it.pos > it.limit {
			end, capped = it.pos+it.limit+1, true
		}
		p.start(it.buf[it.pos:end], it.eof && !capped)
		err := fn(p)
		switch {
		case err == errNeedMore && capped, err == nil && p.i > it.limit:
			return 0, errRowTooLarge
		case err == errNeedMore:
			p.abort()
			if err := it.fill(); err != nil {
				return 0, err
			}
		case err != nil:
			return 0, err
		default:
			return it.pos + p.i, nil
		}
	}
}

// peek skips whitespace and returns the next byte; ok is false at the end
// of the input.
func (it *jsonRows) peek() (c byte, ok bool, err error) {
	for {
		for ; it.pos < it.n; it.pos++ {
			if !isJSONSpace(it.buf[it.pos]) {
				return it.buf[it.pos], true, nil
			}
		}
		if it.eof {
			return 0, false, nil
		}
		if err := it.fill(); err != nil {
			return 0, false, err
		}
	}
}

// fill reads more input after buf[pos:n], which it moves to the start of
// the buffer, growing the buffer when that is full or still small. It fills
// the buffer, so that a row is parsed again only after the buffer doubled.
func (it *jsonRows) fill() error {
	if it.rerr != nil {
		return it.rerr
	}
	if it.pos > 0 {
		it.n = copy(it.buf, it.buf[it.pos:it.n])
		it.off += int64(it.pos)
		it.pos = 0
	}
	if it.n == len(it.buf) || len(it.buf) < jsonBuffer {
		grown := make([]byte, 2*len(it.buf))
		copy(grown, it.buf[:it.n])
		it.buf = grown
	}
	had := it.n
	for idle := 0; it.n < len(it.buf); {
		m, err := it.in.Read(it.buf[it.n:])
		it.n += m
		switch {
		case err == io.EOF:
			it.eof = true
			return nil
		case err != nil:
			it.rerr = err
			if it.n > had {
				return nil // the input before the error is used first
			}
			return err
		case m == 0:
			if idle++; idle == 100 {
				it.rerr = io.ErrNoProgress
				return it.rerr
			}
		}
	}
	return nil
}

// abs is the input offset of buf[i].
func (it *jsonRows) abs(i int) int64 { return it.off + int64(i) }

// rowError words an error from parsing the current row.
func (it *jsonRows) rowError(err error) error {
	var se *jsonSyntaxError
	switch {
	case errors.As(err, &se):
		// The scanner's offset counts the bytes it stepped through.
		return it.invalid(it.scanned+it.abs(it.pos)+int64(se.pos)-it.valStart, se.msg)
	case err == errTruncated:
		return malformedf("%s: the file ends in the middle of a JSON value", it.where(it.valStart))
	case err == errRowTooLarge:
		return unsupportedf("%s: a single row is larger than the %s limit", it.where(it.valStart), humanBytes(it.limit))
	}
	return it.readError(err, it.valStart)
}

// problemError words p.problem, if any.
func (it *jsonRows) problemError(p *jsonParser) error {
	fp, ok := p.problem.(*flattenProblem)
	switch {
	case !ok:
		return p.problem
	case fp.tooDeep:
		return malformedf("%s: objects are nested more than %d levels deep", it.where(it.rowStart), maxJSONDepth)
	}
	return unsupportedf("%s: the value of %q is larger than the %s limit", it.where(it.rowStart), fp.name, humanBytes(p.maxField))
}

// invalid reports a syntax error; at is the input offset before the
// offending byte as encoding/json counted it.
func (it *jsonRows) invalid(at int64, msg string) error {
	line := it.lineAt(at)
	if it.format == FormatJSON && it.row > 0 {
		return malformedf("row %d (line %d): invalid JSON: %s", it.row, line, msg)
	}
	return malformedf("line %d: invalid JSON: %s", line, msg)
}

func (it *jsonRows) readError(err error, at int64) error {
	return fmt.Errorf("%s: reading file: %w", it.where(at), err)
}

// where names the current row for messages: "row N (line L)" in an array,
// "line L" in JSON Lines.
func (it *jsonRows) where(off int64) string {
	line := it.lineAt(off)
	if it.format == FormatJSON && it.row > 0 {
		return fmt.Sprintf("row %d (line %d)", it.row, line)
	}
	return fmt.Sprintf("line %d", line)
}

// lineAt returns the 1-based line of the first significant byte at or
// after input offset off. It rereads the file, which is fine because it
// only runs when reporting an error.
func (it *jsonRows) lineAt(off int64) int {
	if off < 0 {
		off = 0
	}
	line := 1
	buf := make([]byte, 64<<10)
	// Lines are counted from the start of the file, which may lie before
	// the input (a wrapped records array); a BOM holds no line break.
	pos := int64(0)
	end := it.base + off
	for {
		n, err := it.f.ReadAt(buf, pos)
		chunk := buf[:n]
		if pos+int64(n) > end {
			before := chunk[:max(0, end-pos)]
			line += bytes.Count(before, []byte{'\n'})
			for _, c := range chunk[len(before):] {
				if c == '\n' {
					line++
				} else if c != ' ' && c != '\t' && c != '\r' && c != ',' {
					return line
				}
			}
		} else {
			line += bytes.Count(chunk, []byte{'\n'})
		}
		if err != nil || n == 0 {
			return line
		}
		pos += int64(n)
	}
}

func describeJSON(first byte) string {
	switch first {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
