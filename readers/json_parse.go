package readers

import (
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"strconv"
)

// jsonParser checks one top-level JSON value in a single pass, with the
// rules and the wording of encoding/json's scanner, and flattens a row
// object as it goes: it hands its sink one leaf per scalar, array or empty
// object, named by the dotted path of its keys. Values are not decoded
// here: the sink gets their bytes.
type jsonParser struct {
	data  []byte // the input window the value is parsed from
	final bool   // the input ends where data ends
	i     int    // next byte of data
	depth int    // open objects and arrays, counted as encoding/json does

	maxField int  // the largest value, in bytes, quotes excluded
	first    byte // the first byte of the top-level value
	sink     leafSink

	// The dotted name of the current key: data[key.start:key.end] for a
	// plain top-level key, which is most of them, else name.
	key    span
	keyRaw bool
	name   []byte

	// problem is why the row cannot be flattened: a value over the size
	// limit, objects nested too deep (a *flattenProblem), or an error from
	// the sink. It is reported only after the whole row passed the syntax
	// checks, as encoding/json checked every row before it was flattened;
	// no leaf goes to the sink after it.
	problem error
}

// leafSink takes the leaves of rows. Each attempt at parsing a row starts
// with begin and ends with abort unless the row is good.
type leafSink interface {
	begin()
	// leaf takes a value, data[val.start:val.end] with its quotes, named
	// name. Both are valid until the next call. An error becomes the row's
	// problem.
	leaf(name []byte, kind valueKind, data []byte, val span, flags uint8) error
	// abort undoes what the attempt did: the row failed or is parsed again.
	abort()
}

type valueKind uint8

const (
	kindNull valueKind = iota
	kindString
	kindArray
	kindLiteral     // a number, true or false: kept as written
	kindEmptyObject // {} below the top level: rendered as "{}"
)

// Flags of a string leaf, found while checking it, that decide how much
// work rendering it takes.
const (
	flagEscaped = 1 << iota // holds a backslash escape
	flagHigh                // holds a byte >= 0x80, so its UTF-8 needs checking
)

type span struct{ start, end int }

type flattenProblem struct {
	tooDeep bool
	name    string // the key whose value is too large
}

func (f *flattenProblem) Error() string { return "json: the row cannot be flattened" }

// maxJSONDepth bounds the nesting of objects that become dotted names;
// maxScanDepth is encoding/json's bound on any nesting.
const (
	maxJSONDepth = 1000
	maxScanDepth = 10000
)

var (
	// errNeedMore: the value goes on past the window, which is not the end
	// of the input. The caller reads more and parses the value again.
	errNeedMore = errors.New("json: the value goes on past the buffered input")
	// errTruncated: the input ends inside the value.
	errTruncated = errors.New("json: the input ends inside a value")
)

// jsonSyntaxError is a syntax error at data[pos], worded as encoding/json
// words it.
type jsonSyntaxError struct {
	msg string
	pos int
}

func (e *jsonSyntaxError) Error() string { return e.msg }

// start begins an attempt at parsing the value at the start of data.
func (p *jsonParser) start(data []byte, final bool) {
	p.data, p.final, p.i, p.depth, p.first = data, final, 0, 0, 0
	p.name, p.keyRaw, p.problem = p.name[:0], false, nil
	if p.sink != nil {
		p.sink.begin()
	}
}

// abort tells the sink the attempt failed.
func (p *jsonParser) abort() {
	if p.sink != nil {
		p.sink.abort()
	}
}

// row parses the next top-level value, after any whitespace: an object is
// flattened into the sink, anything else only checked (the caller rejects
// it). It returns io.EOF when only whitespace is left.
func (p *jsonParser) row() error {
	p.skipSpace()
	if p.i == len(p.data) {
		if p.final {
			return io.EOF
		}
		return errNeedMore
	}
	p.first = p.data[p.i]
	if p.first == '{' {
		return p.object(0, 0, true)
	}
	return p.value()
}

// value checks the value starting at data[i] without flattening it.
func (p *jsonParser) value() error {
	switch c := p.data[p.i]; c {
	case '{':
		return p.object(0, 0, false)
	case '[':
		return p.array()
	case '"':
		_, err := p.str()
		return err
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	default:
		if c == '-' || isDigit(c) {
			return p.number()
		}
		return p.invalid(p.i, "looking for beginning of value")
	}
}

// object parses the object at data[i]. When flat, its members become leaves
// named below p.name[:prefix]; objDepth is its depth among the flattened
// objects, 0 for the row itself.
func (p *jsonParser) object(prefix, objDepth int, flat bool) error {
	if err := p.push(); err != nil {
		return err
	}
	if flat && objDepth > maxJSONDepth && p.problem == nil {
		p.problem = &flattenProblem{tooDeep: true}
	}
	p.i++
	c, err := p.peek()
	if err != nil {
		return err
	}
	if c == '}' {
		p.i++
		p.depth--
		if flat && prefix > 0 {
			p.leaf(kindEmptyObject, p.i, 0)
		}
		return nil
	}
	for {
		if c != '"' {
			return p.invalid(p.i, "looking for beginning of object key string")
		}
		keyStart := p.i
		flags, err := p.str()
		if err != nil {
			return err
		}
		if flat {
			p.setName(prefix, span{keyStart + 1, p.i - 1}, flags)
		}
		if c, err = p.peek(); err != nil {
			return err
		}
		if c != ':' {
			return p.invalid(p.i, "after object key")
		}
		p.i++
		if c, err = p.peek(); err != nil {
			return err
		}
		if err := p.member(c, objDepth, flat); err != nil {
			return err
		}
		done, err := p.separator('}', "after object key:value pair")
		if done || err != nil {
			return err
		}
		c = p.data[p.i]
	}
}

// member parses the value of the current key, which starts with c, and
// hands it to the sink when flat. Nested objects are flattened further;
// arrays stay whole.
func (p *jsonParser) member(c byte, objDepth int, flat bool) error {
	start := p.i
	kind, flags := kindLiteral, uint8(0)
	var err error
	switch c {
	case '{':
		return p.object(p.prefix(), objDepth+1, flat)
	case '[':
		kind, err = kindArray, p.array()
	case '"':
		kind = kindString
		flags, err = p.str()
	case 'n':
		kind, err = kindNull, p.literal("null")
	default:
		err = p.value()
	}
	if err == nil && flat {
		p.leaf(kind, start, flags)
	}
	return err
}

// setName makes key, the contents of a key string, the current key below
// p.name[:prefix]. Keys are decoded as string values are; a top-level key
// "" is no prefix.
func (p *jsonParser) setName(prefix int, key span, flags uint8) {
	if prefix == 0 && flags == 0 {
		p.key, p.keyRaw = key, true
		return
	}
	p.keyRaw = false
	p.name = p.name[:prefix]
	if prefix > 0 {
		p.name = append(p.name, '.')
	}
	p.name = appendJSONText(p.name, p.data[key.start:key.end], flags)
}

// prefix makes the current name the prefix of a nested object's keys.
func (p *jsonParser) prefix() int {
	if p.keyRaw {
		p.name = append(p.name[:0], p.data[p.key.start:p.key.end]...)
		p.keyRaw = false
	}
	return len(p.name)
}

// leaf hands the value data[start:i] to the sink under the current name,
// unless the row already has a problem or the value is too large.
func (p *jsonParser) leaf(kind valueKind, start int, flags uint8) {
	if p.problem != nil {
		return
	}
	name := p.name
	if p.keyRaw {
		name = p.data[p.key.start:p.key.end]
	}
	if (kind == kindString || kind == kindArray || kind == kindLiteral) && p.i-start > p.maxField+2 {
		p.problem = &flattenProblem{name: string(name)}
		return
	}
	p.problem = p.sink.leaf(name, kind, p.data, span{start, p.i}, flags)
}

// array checks the array at data[i].
func (p *jsonParser) array() error {
	if err := p.push(); err != nil {
		return err
	}
	p.i++
	c, err := p.peek()
	if err != nil {
		return err
	}
	if c == ']' {
		p.i++
		p.depth--
		return nil
	}
	for {
		if err := p.value(); err != nil {
			return err
		}
		if done, err := p.separator(']', "after array element"); done || err != nil {
			return err
		}
	}
}

// separator reads what follows an object member or an array element: a
// comma, after which it also skips to the next byte (there must be one), or
// the closing byte, which ends the container (done).
func (p *jsonParser) separator(closing byte, after string) (done bool, err error) {
	c, err := p.peek()
	if err != nil {
		return false, err
	}
	switch c {
	case ',':
		p.i++
		_, err = p.peek()
		return false, err
	case closing:
		p.i++
		p.depth--
		return true, nil
	}
	return false, p.invalid(p.i, after)
}

// push enters the object or array at data[i].
func (p *jsonParser) push() error {
	p.depth++
	if p.depth > maxScanDepth {
		return p.invalid(p.i, "exceeded max depth")
	}
	return nil
}

// strSpecial marks the bytes that end the plain run of a string: the
// closing quote, a backslash, and control characters (errors).
var strSpecial = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str checks the string at data[i] and moves past it. It looks at eight
// bytes at a time while they hold no quote, backslash or control character.
func (p *jsonParser) str() (flags uint8, err error) {
	d := p.data
	i := p.i + 1
	var high uint64 // bytes ORed together: is any >= 0x80?
	for {
		for ; i+8 <= len(d); i += 8 {
			w := binary.LittleEndian.Uint64(d[i:])
			// The lowest flagged byte is exact: the tests only go wrong
			// above a byte that matches.
			if m := hasZeroByte(w^(ones*'"')) | hasZeroByte(w^(ones*'\\')) | hasByteBelow(w, 0x20); m != 0 {
				n := bits.TrailingZeros64(m) &^ 7
				high |= w & (1<<n - 1)
				i += n / 8
				break
			}
			high |= w
		}
		for ; i < len(d) && !strSpecial[d[i]]; i++ {
			high |= uint64(d[i])
		}
		if i == len(d) {
			return 0, p.more()
		}
		switch d[i] {
		case '"':
			p.i = i + 1
			if high&(ones*0x80) != 0 {
				flags |= flagHigh
			}
			return flags, nil
		case '\\':
			flags |= flagEscaped
			if i, err = p.escape(i); err != nil {
				return 0, err
			}
		default:
			return 0, p.invalid(i, "in string literal")
		}
	}
}

// escape checks the escape sequence at d[i] (a backslash) and returns the
// index after it.
func (p *jsonParser) escape(i int) (int, error) {
	d := p.data
	i++
	if i == len(d) {
		return 0, p.more()
	}
	switch d[i] {
	case 'b', 'f', 'n', 'r', 't', '\\', '/', '"':
		return i + 1, nil
	case 'u':
		for k := i + 1; k <= i+4; k++ {
			if k == len(d) {
				return 0, p.more()
			}
			if !isHexDigit(d[k]) {
				return 0, p.invalid(k, `in \u hexadecimal character escape`)
			}
		}
		return i + 5, nil
	}
	return 0, p.invalid(i, "in string escape code")
}

// number checks the number at data[i], which starts with '-' or a digit.
// A number may end the input, so at the end of a final window it is
// complete when its digits are.
func (p *jsonParser) number() error {
	d, i := p.data, p.i
	if d[i] == '-' {
		i++
		if i == len(d) {
			return p.more()
		}
		if !isDigit(d[i]) {
			return p.invalid(i, "in numeric literal")
		}
	}
	if d[i] == '0' {
		i++
	} else {
		i = skipDigits(d, i+1)
	}
	if i < len(d) && d[i] == '.' {
		if i++; i == len(d) {
			return p.more()
		}
		if !isDigit(d[i]) {
			return p.invalid(i, "after decimal point in numeric literal")
		}
		i = skipDigits(d, i+1)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i == len(d) {
			return p.more()
		}
		if !isDigit(d[i]) {
			return p.invalid(i, "in exponent of numeric literal")
		}
		i = skipDigits(d, i+1)
	}
	if i == len(d) && !p.final {
		return errNeedMore // more digits may follow
	}
	p.i = i
	return nil
}

func skipDigits(d []byte, i int) int {
	for i < len(d) && isDigit(d[i]) {
		i++
	}
	return i
}

// literal checks that word (true, false or null) is at data[i].
func (p *jsonParser) literal(word string) error {
	if end := p.i + len(word); end <= len(p.data) && string(p.data[p.i:end]) == word {
		p.i = end
		return nil
	}
	for k := 1; k < len(word); k++ {
		i := p.i + k
		if i == len(p.data) {
			return p.more()
		}
		if p.data[i] != word[k] {
			return p.invalid(i, "in literal "+word+" (expecting "+quoteChar(word[k])+")")
		}
	}
	p.i += len(word)
	return nil
}

// peek skips whitespace and returns the next byte.
func (p *jsonParser) peek() (byte, error) {
	p.skipSpace()
	if p.i == len(p.data) {
		return 0, p.more()
	}
	return p.data[p.i], nil
}

func (p *jsonParser) skipSpace() {
	for p.i < len(p.data) && isJSONSpace(p.data[p.i]) {
		p.i++
	}
}

// more is the error for a value that runs to the end of the window.
func (p *jsonParser) more() error {
	if p.final {
		return errTruncated
	}
	return errNeedMore
}

func (p *jsonParser) invalid(i int, context string) error {
	return &jsonSyntaxError{msg: "invalid character " + quoteChar(p.data[i]) + " " + context, pos: i}
}

func isJSONSpace(c byte) bool {
	return c <= ' ' && (c == ' ' || c == '\t' || c == '\r' || c == '\n')
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// quoteChar formats c for a message as encoding/json does.
func quoteChar(c byte) string {
	if c == '\'' {
		return `'\''`
	}
	if c == '"' {
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}
