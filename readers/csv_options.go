package readers

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// CSVOptions tells the CSV reader what sniffing would otherwise infer, for
// files it guesses wrong. Zero fields are still sniffed, around the ones
// set: a given delimiter still has its quote and header sniffed.
type CSVOptions struct {
	// Delimiter separates fields; 0 sniffs it. It is an ASCII byte other
	// than a line break, and not the quote.
	Delimiter byte
	// Quote encloses fields that hold delimiters, quotes or line breaks;
	// 0 sniffs it, NoQuote reads the file without quoting (every quote
	// character is literal text).
	Quote byte
	// Header is HeaderAuto (sniff), HeaderNone or the 1-based line number
	// of the header, the lines above which are skipped. With HeaderNone
	// the first record is a row and the columns are named col_1, col_2,
	// ...; what sniffing finds above the table (a sep= line, comments,
	// titles) is still skipped: give the header's line to skip exactly.
	Header int
	// Encoding is "" (sniff) or one of EncodingUTF8, EncodingUTF16LE,
	// EncodingUTF16BE, EncodingWindows1252.
	Encoding string
}

// NoQuote as CSVOptions.Quote reads a file without quoting. The byte 0xFF
// never occurs in UTF-8, the text the reader splits, so it cannot be a
// real quote character.
const NoQuote byte = 0xFF

// Values of CSVOptions.Header besides a line number.
const (
	HeaderAuto = 0
	HeaderNone = -1
)

// maxHeaderLine bounds the header's line number: the lines above it must
// lie in the sample the dialect is sniffed from (at least sniffLines of
// them are read), and no real export has a longer preamble.
const maxHeaderLine = 1000

var csvEncodings = []string{EncodingUTF8, EncodingUTF16LE, EncodingUTF16BE, EncodingWindows1252}

// validate checks o (nil is valid: everything is sniffed). Its errors wrap
// ErrUnsupported.
func (o *CSVOptions) validate() error {
	if o == nil {
		return nil
	}
	for _, c := range []struct {
		name string
		b    byte
	}{{"delimiter", o.Delimiter}, {"quote", o.Quote}} {
		if c.b != 0 && c.b != NoQuote && (c.b >= utf8.RuneSelf || c.b == '\n' || c.b == '\r') {
			return unsupportedf("the CSV %s %q is not supported: use an ASCII character other than a line break", c.name, c.b)
		}
	}
	switch {
	case o.Delimiter == NoQuote:
		return unsupportedf("the CSV delimiter %q is not supported: use an ASCII character other than a line break", o.Delimiter)
	case o.Delimiter != 0 && o.Delimiter == o.Quote:
		return unsupportedf("the CSV delimiter and quote are both %q: they must differ", o.Delimiter)
	case o.Header < HeaderNone || o.Header > maxHeaderLine:
		return unsupportedf("the CSV header line %d is not supported: use a line from 1 to %d, or none", o.Header, maxHeaderLine)
	case o.Encoding != "" && !slices.Contains(csvEncodings, o.Encoding):
		return unsupportedf("the CSV encoding %q is not supported: use one of %s", o.Encoding, strings.Join(csvEncodings, ", "))
	}
	return nil
}

// bomLength is the length of enc's byte order mark at the start of
// sample, or 0 when there is none.
func bomLength(sample []byte, enc string) int {
	var bom []byte
	switch enc {
	case EncodingUTF8:
		bom = utf8BOM
	case EncodingUTF16LE:
		bom = []byte{0xFF, 0xFE}
	case EncodingUTF16BE:
		bom = []byte{0xFE, 0xFF}
	}
	if len(bom) > 0 && bytes.HasPrefix(sample, bom) {
		return len(bom)
	}
	return 0
}

// delimiterNames are the names ParseCSVOptions takes for delimiters that
// are awkward to type.
var delimiterNames = map[string]byte{"tab": '\t', "comma": ',', "semicolon": ';', "pipe": '|', "space": ' '}

// encodingNames maps the names users give encodings, lower-cased, to the
// reader's. Latin-1 is read as Windows-1252, its superset in practice.
var encodingNames = map[string]string{
	"utf-8": EncodingUTF8, "utf8": EncodingUTF8,
	"utf-16le": EncodingUTF16LE, "utf16le": EncodingUTF16LE,
	"utf-16be": EncodingUTF16BE, "utf16be": EncodingUTF16BE,
	"windows-1252": EncodingWindows1252, "cp1252": EncodingWindows1252,
	"latin-1": EncodingWindows1252, "latin1": EncodingWindows1252, "iso-8859-1": EncodingWindows1252,
}

// ParseCSVOptions parses the user-facing spelling of a CSV dialect, as the
// API and the CLI take it; an empty string or "auto" leaves a part to
// sniffing, and all four empty give nil. delimiter is one character or
// tab, comma, semicolon, pipe or space; quote is one character or none;
// header is none or the line number of the header; encoding is utf-8,
// utf-16le, utf-16be, windows-1252 (cp1252) or latin-1 (iso-8859-1). Its
// errors are sentences to show the user as they are.
func ParseCSVOptions(delimiter, quote, header, encoding string) (*CSVOptions, error) {
	var o CSVOptions
	var err error
	if o.Delimiter, err = parseCSVChar("delimiter", delimiter, delimiterNames); err != nil {
		return nil, err
	}
	if o.Quote, err = parseCSVChar("quote", quote, map[string]byte{"none": NoQuote}); err != nil {
		return nil, err
	}
	if o.Header, err = parseHeader(header); err != nil {
		return nil, err
	}
	if o.Encoding, err = parseEncoding(encoding); err != nil {
		return nil, err
	}
	if o == (CSVOptions{}) {
		return nil, nil
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	return &o, nil
}

// isAuto reports whether s leaves a part of the dialect to sniffing.
func isAuto(s string) bool {
	s = strings.TrimSpace(s)
	return s == "" || strings.EqualFold(s, "auto")
}

// parseCSVChar parses a delimiter or quote: one ASCII character, or a
// name from names. Spaces around a name are trimmed; a lone space or tab
// is taken as it is.
func parseCSVChar(what, s string, names map[string]byte) (byte, error) {
	if len(s) == 1 {
		if s[0] >= utf8.RuneSelf || s[0] == '\n' || s[0] == '\r' {
			return 0, fmt.Errorf("the %s %q is not supported: use an ASCII character other than a line break", what, s)
		}
		return s[0], nil
	}
	if isAuto(s) {
		return 0, nil
	}
	if b, ok := names[strings.ToLower(strings.TrimSpace(s))]; ok {
		return b, nil
	}
	known := make([]string, 0, len(names))
	for n := range names {
		known = append(known, n)
	}
	slices.Sort(known)
	return 0, fmt.Errorf("the %s %q is not one character: give a single character, auto, or one of %s", what, s, strings.Join(known, ", "))
}

func parseHeader(s string) (int, error) {
	s = strings.TrimSpace(s)
	switch {
	case isAuto(s):
		return HeaderAuto, nil
	case strings.EqualFold(s, "none"):
		return HeaderNone, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > maxHeaderLine {
		return 0, fmt.Errorf("the header %q is not understood: give auto, none, or the line number of the header (1 to %d)", s, maxHeaderLine)
	}
	return n, nil
}

func parseEncoding(s string) (string, error) {
	if isAuto(s) {
		return "", nil
	}
	if enc, ok := encodingNames[strings.ToLower(strings.TrimSpace(s))]; ok {
		return enc, nil
	}
	return "", fmt.Errorf("the encoding %q is not supported: give auto, utf-8, utf-16le, utf-16be, windows-1252 or latin-1", s)
}
