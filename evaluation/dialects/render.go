package dialects

import (
	"strings"
	"unicode/utf16"

	"golang.org/x/text/encoding/charmap"

	"github.com/dqs/dqs/readers"
)

// quoteStyle is when a writer quotes a field, after Python's csv module.
type quoteStyle int

const (
	quoteMinimal    quoteStyle = iota // only fields that need it (RFC 4180, Excel)
	quoteAll                          // every field
	quoteNonNumeric                   // every field that is not a number
	quoteNever                        // never; delimiters and line breaks in values become spaces
)

// writer renders records in one dialect and remembers whether it quoted.
type writer struct {
	delim  byte
	quote  byte
	style  quoteStyle
	eol    string
	quoted bool
}

func (w *writer) field(s string) string {
	if w.style == quoteNever {
		return strings.NewReplacer(string(w.delim), " ", "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	}
	if !w.needsQuotes(s) {
		return s
	}
	w.quoted = true
	q := string(w.quote)
	return q + strings.ReplaceAll(s, q, q+q) + q
}

func (w *writer) needsQuotes(s string) bool {
	switch w.style {
	case quoteAll:
		return true
	case quoteNonNumeric:
		if !isNumeric(s) {
			return true
		}
	}
	return strings.ContainsAny(s, string(w.delim)+string(w.quote)+"\r\n")
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

// record renders one line, terminator included.
func (w *writer) record(fields []string) string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = w.field(f)
	}
	return strings.Join(out, string(w.delim)) + w.eol
}

// encoding is how the text becomes bytes.
type encoding int

const (
	encUTF8 encoding = iota
	encUTF8BOM
	encUTF16LE
	encUTF16BE
	encUTF16LENoBOM
	encWindows1252
)

func (e encoding) String() string {
	return [...]string{"UTF-8", "UTF-8 with BOM", "UTF-16LE with BOM", "UTF-16BE with BOM", "UTF-16LE without BOM", "windows-1252"}[e]
}

// readerName is the name readers.CSVDialect reports for e.
func (e encoding) readerName() string {
	switch e {
	case encUTF16LE, encUTF16LENoBOM:
		return readers.EncodingUTF16LE
	case encUTF16BE:
		return readers.EncodingUTF16BE
	case encWindows1252:
		return readers.EncodingWindows1252
	}
	return readers.EncodingUTF8
}

// effective is the encoding text truly has in e: ASCII text written as
// windows-1252 is byte for byte UTF-8.
func (e encoding) effective(text string) encoding {
	if e == encWindows1252 && isASCII(text) {
		return encUTF8
	}
	return e
}

func (e encoding) encode(text string) ([]byte, error) {
	switch e {
	case encUTF8BOM:
		return append([]byte{0xEF, 0xBB, 0xBF}, text...), nil
	case encUTF16LE:
		return append([]byte{0xFF, 0xFE}, utf16Bytes(text, false)...), nil
	case encUTF16LENoBOM:
		return utf16Bytes(text, false), nil
	case encUTF16BE:
		return append([]byte{0xFE, 0xFF}, utf16Bytes(text, true)...), nil
	case encWindows1252:
		return charmap.Windows1252.NewEncoder().Bytes([]byte(text))
	}
	return []byte(text), nil
}

func utf16Bytes(s string, bigEndian bool) []byte {
	units := utf16.Encode([]rune(s))
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
