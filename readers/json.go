package readers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// jsonReader streams a top-level JSON array of objects or JSON Lines.
// Columns are the union of (flattened) keys in first-seen order, found by a
// first pass over the file; a second pass streams the values.
type jsonReader struct {
	f      File
	format Format
	opt    Options
	rows   *jsonRows
	cols   []string
	index  map[string]int
	rec    Record
	err    error
}

func openJSON(f File, format Format, opt Options) (Reader, error) {
	r := &jsonReader{f: f, format: format, opt: opt, index: map[string]int{}}

	// Pass 1: collect the columns.
	rows, err := newJSONRows(f, format, opt)
	if err != nil {
		return nil, err
	}
	// A key that is only ever null but elsewhere holds an object (its
	// dotted children exist) gets no column of its own.
	nonNull := map[string]bool{}
	addColumn := func(name string, _ []byte, kind valueKind) error {
		if kind != kindNull {
			nonNull[name] = true
		}
		if _, ok := r.index[name]; !ok {
			if len(r.cols) >= opt.MaxColumns {
				return unsupportedf("the file has more than %d distinct keys (columns)", opt.MaxColumns)
			}
			r.index[name] = len(r.cols)
			r.cols = append(r.cols, name)
		}
		return nil
	}
	good := 0
	for {
		raw, err := rows.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = rows.flatten(raw, addColumn)
		}
		if err != nil {
			if good == 0 || errors.Is(err, ErrUnsupported) {
				return nil, err
			}
			// Later rows report the problem from Next, at the right row.
			break
		}
		good++
	}
	r.dropNullParents(nonNull)

	// Pass 2 streams from the start again.
	if r.rows, err = newJSONRows(f, format, opt); err != nil {
		return nil, err
	}
	r.rec.Values = make([]string, len(r.cols))
	r.rec.Null = make([]bool, len(r.cols))
	return r, nil
}

func (r *jsonReader) dropNullParents(nonNull map[string]bool) {
	prefixes := map[string]bool{}
	for _, c := range r.cols {
		for i := 0; i < len(c); i++ {
			if c[i] == '.' {
				prefixes[c[:i]] = true
			}
		}
	}
	kept := r.cols[:0]
	for _, c := range r.cols {
		if !nonNull[c] && prefixes[c] {
			continue
		}
		kept = append(kept, c)
	}
	r.cols = kept
	clear(r.index)
	for i, c := range r.cols {
		r.index[c] = i
	}
}

func (r *jsonReader) Columns() []string { return r.cols }
func (r *jsonReader) Format() Format    { return r.format }
func (r *jsonReader) Close() error      { return nil }

func (r *jsonReader) Next() (*Record, error) {
	if r.err != nil {
		return nil, r.err
	}
	raw, err := r.rows.next()
	if err != nil {
		r.err = err
		return nil, err
	}
	for i := range r.rec.Values {
		r.rec.Values[i] = ""
		r.rec.Null[i] = true
	}
	err = r.rows.flatten(raw, func(name string, val []byte, kind valueKind) error {
		i, ok := r.index[name]
		if !ok {
			return nil // the file changed between the passes
		}
		switch kind {
		case kindNull:
			r.rec.Values[i], r.rec.Null[i] = "", true
		case kindString:
			r.rec.Values[i], r.rec.Null[i] = decodeJSONString(val), false
		case kindArray:
			var b bytes.Buffer
			if json.Compact(&b, val) != nil {
				b.Reset()
				b.Write(val)
			}
			r.rec.Values[i], r.rec.Null[i] = validUTF8(b.Bytes()), false
		default:
			r.rec.Values[i], r.rec.Null[i] = string(val), false
		}
		return nil
	})
	if err != nil {
		r.err = err
		return nil, err
	}
	return &r.rec, nil
}

// jsonRows yields the raw bytes of each top-level row.
type jsonRows struct {
	f        File
	format   Format
	opt      Options
	base     int64 // bytes skipped before the decoder's input (a BOM)
	src      *rowLimitReader
	dec      *json.Decoder
	open     bool // the array's '[' was consumed
	rowStart int64
	done     bool
	row      int
	raw      json.RawMessage
}

func newJSONRows(f File, format Format, opt Options) (*jsonRows, error) {
	var bom [3]byte
	n, _ := f.ReadAt(bom[:], 0)
	base := int64(0)
	if n == 3 && bytes.Equal(bom[:], utf8BOM) {
		base = 3
	}
	if _, err := f.Seek(base, io.SeekStart); err != nil {
		return nil, fmt.Errorf("rewinding file: %w", err)
	}
	// A row may hold MaxColumns fields of MaxFieldBytes each, but never
	// more than 256 MiB.
	limit := min(int64(opt.MaxColumns)*int64(opt.MaxFieldBytes), 256<<20)
	src := &rowLimitReader{r: bufio.NewReaderSize(f, 64<<10), limit: limit}
	it := &jsonRows{f: f, format: format, opt: opt, base: base, src: src}
	it.dec = json.NewDecoder(src)
	src.dec = it.dec
	return it, nil
}

// rowLimitReader fails reads once the value being decoded grows past limit.
type rowLimitReader struct {
	r     io.Reader
	dec   *json.Decoder
	limit int64
	n     int64
}

func (l *rowLimitReader) Read(p []byte) (int, error) {
	if l.dec != nil && l.n-l.dec.InputOffset() > l.limit {
		return 0, unsupportedf("a single row is larger than the %s limit", humanBytes(int(l.limit)))
	}
	n, err := l.r.Read(p)
	l.n += int64(n)
	return n, err
}

func (it *jsonRows) next() ([]byte, error) {
	if it.done {
		return nil, io.EOF
	}
	if it.format == FormatJSON {
		if !it.open {
			tok, err := it.dec.Token()
			if err == io.EOF {
				it.done = true
				return nil, io.EOF
			}
			if err != nil {
				return nil, it.syntaxError(err)
			}
			if d, ok := tok.(json.Delim); !ok || d != '[' {
				return nil, malformedf("line %d: expected a JSON array of objects", it.lineAt(0))
			}
			it.open = true
		}
		if !it.dec.More() {
			if _, err := it.dec.Token(); err != nil { // the closing ']'
				return nil, it.syntaxError(err)
			}
			if _, err := it.dec.Token(); err != io.EOF {
				return nil, malformedf("line %d: unexpected data after the end of the top-level array", it.lineAt(it.dec.InputOffset()-1))
			}
			it.done = true
			return nil, io.EOF
		}
	}
	start := it.dec.InputOffset()
	it.rowStart = start
	it.raw = it.raw[:0]
	if err := it.dec.Decode(&it.raw); err != nil {
		if err == io.EOF {
			it.done = true
			return nil, io.EOF
		}
		it.row++
		return nil, it.syntaxError(err)
	}
	it.row++
	if it.raw[0] != '{' {
		return nil, malformedf("%s: expected a JSON object, found %s", it.where(start), describeJSON(it.raw))
	}
	return it.raw, nil
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

func (it *jsonRows) syntaxError(err error) error {
	if errors.Is(err, ErrUnsupported) || errors.Is(err, ErrMalformed) {
		var fe *fileError
		if errors.As(err, &fe) {
			return newFileError(fe.kind, "%s: %s", it.where(it.dec.InputOffset()), fe.msg)
		}
		return err
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := it.lineAt(se.Offset - 1)
		if it.format == FormatJSON && it.row > 0 {
			return malformedf("row %d (line %d): invalid JSON: %s", it.row, line, se.Error())
		}
		return malformedf("line %d: invalid JSON: %s", line, se.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
		return malformedf("%s: the file ends in the middle of a JSON value", it.where(it.dec.InputOffset()))
	}
	return fmt.Errorf("%s: reading file: %w", it.where(it.dec.InputOffset()), err)
}

// lineAt returns the 1-based line of the first significant byte at or
// after off (relative to the decoder's input). It rereads the file, which
// is fine because it only runs when reporting an error.
func (it *jsonRows) lineAt(off int64) int {
	if off < 0 {
		off = 0
	}
	line := 1
	buf := make([]byte, 64<<10)
	pos := it.base
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

func describeJSON(raw []byte) string {
	switch raw[0] {
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

type valueKind int

const (
	kindNull valueKind = iota
	kindString
	kindArray
	kindLiteral // number, true, false, or an empty object "{}"
)

// flatten walks one validated JSON object and calls emit for each leaf.
// Nested objects become dotted names; arrays are passed whole.
func (it *jsonRows) flatten(raw []byte, emit func(name string, val []byte, kind valueKind) error) error {
	p := flatParser{data: raw, emit: emit, max: it.opt.MaxFieldBytes, it: it}
	return p.object("", 0)
}

type flatParser struct {
	data []byte
	i    int
	emit func(string, []byte, valueKind) error
	max  int
	it   *jsonRows
}

func (p *flatParser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// str returns the raw bytes of the string at p.i, quotes included.
func (p *flatParser) str() []byte {
	start := p.i
	p.i++
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case '\\':
			p.i += 2
			continue
		case '"':
			p.i++
			return p.data[start:p.i]
		}
		p.i++
	}
	return p.data[start:]
}

// skip moves past the value at p.i.
func (p *flatParser) skip() {
	depth := 0
	for p.i < len(p.data) {
		switch c := p.data[p.i]; c {
		case '"':
			p.str()
			if depth == 0 {
				return
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return
			}
			depth--
			if depth == 0 {
				p.i++
				return
			}
		case ',', ' ', '\t', '\r', '\n', ':':
			if depth == 0 {
				return
			}
		}
		p.i++
	}
}

const maxJSONDepth = 1000

func (p *flatParser) object(prefix string, depth int) error {
	if depth > maxJSONDepth {
		return malformedf("%s: objects are nested more than %d levels deep", p.it.where(p.it.rowStart), maxJSONDepth)
	}
	p.i++ // '{'
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		if prefix != "" {
			return p.emit(prefix, []byte("{}"), kindLiteral)
		}
		return nil
	}
	for p.i < len(p.data) {
		p.ws()
		key := decodeJSONString(p.str())
		p.ws()
		p.i++ // ':'
		p.ws()
		name := key
		if prefix != "" {
			name = prefix + "." + key
		}
		start := p.i
		var err error
		switch p.data[p.i] {
		case '{':
			err = p.object(name, depth+1)
		case '[':
			p.skip()
			err = p.leaf(name, p.data[start:p.i], kindArray)
		case '"':
			err = p.leaf(name, p.str(), kindString)
		case 'n':
			p.skip()
			err = p.emit(name, nil, kindNull)
		default:
			p.skip()
			err = p.leaf(name, p.data[start:p.i], kindLiteral)
		}
		if err != nil {
			return err
		}
		p.ws()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			continue
		}
		p.i++ // '}'
		return nil
	}
	return nil
}

func (p *flatParser) leaf(name string, val []byte, kind valueKind) error {
	if len(val) > p.max+2 {
		return unsupportedf("%s: the value of %q is larger than the %s limit", p.it.where(p.it.rowStart), name, humanBytes(p.max))
	}
	return p.emit(name, val, kind)
}

// decodeJSONString turns a quoted JSON string into Go text.
func decodeJSONString(q []byte) string {
	if len(q) >= 2 && bytes.IndexByte(q, '\\') < 0 {
		return validUTF8(q[1 : len(q)-1])
	}
	var s string
	if err := json.Unmarshal(q, &s); err != nil {
		return validUTF8(bytes.Trim(q, `"`))
	}
	return s
}

func validUTF8(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}
