package models

import (
	"encoding/json"
	"strings"
)

// CSVDialect is how an uploader said a CSV file is written, in the words
// they gave (readers.ParseCSVOptions reads them): kept as given, so that
// the file shows what was asked and a later analysis parses the same
// words. An empty word is left to sniffing.
type CSVDialect struct {
	Delimiter string `json:"delimiter,omitempty"`
	Quote     string `json:"quote,omitempty"`
	Header    string `json:"header,omitempty"`
	Encoding  string `json:"encoding,omitempty"`
}

// NewCSVDialect keeps the words of a dialect, trimmed of the spaces
// around a longer word (" semicolon ") that the parser ignores too; a
// single character, a space or tab delimiter included, is kept as it is.
func NewCSVDialect(delimiter, quote, header, encoding string) CSVDialect {
	trim := func(s string) string {
		if len(s) == 1 {
			return s
		}
		return strings.TrimSpace(s)
	}
	return CSVDialect{Delimiter: trim(delimiter), Quote: trim(quote), Header: trim(header), Encoding: trim(encoding)}
}

// EncodeCSVDialect is how a dialect is stored: nil (sniffed) or a zero one
// as NULL, any other as its JSON object.
func EncodeCSVDialect(d *CSVDialect) *string {
	if d == nil || *d == (CSVDialect{}) {
		return nil
	}
	raw, _ := json.Marshal(d) // four strings always encode
	s := string(raw)
	return &s
}

// CSVDialectWords is the dialect the file was uploaded with: nil when it
// is sniffed, for NULL, an empty value or one that is not a dialect's JSON.
func (f *File) CSVDialectWords() *CSVDialect {
	if f.CSVDialect == nil || *f.CSVDialect == "" {
		return nil
	}
	var d CSVDialect
	if err := json.Unmarshal([]byte(*f.CSVDialect), &d); err != nil || d == (CSVDialect{}) {
		return nil
	}
	return &d
}
