package analysis

import (
	"strings"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
)

// Dialect is what a user says about how a file is written, where the
// engine would otherwise use its defaults. The zero value uses them all.
type Dialect struct {
	// NullTokens are the values that count as nulls; nil means
	// profile.DefaultNulls, and an empty set none.
	NullTokens *profile.NullTokens
	// CSV overrides what the CSV reader sniffs (delimiter, quote, header
	// line, encoding); nil, or a zero field, leaves it to sniffing. Files
	// of other formats ignore it.
	CSV *readers.CSVOptions
}

// CSVDialect is how a CSV file was read, sniffed or given, in the words
// the API and the CLI take (readers.ParseCSVOptions): what is shown can be
// given back as it is, to read the file the same way.
type CSVDialect struct {
	Delimiter string `json:"delimiter"`
	// Quote is null when the file was read without quoting.
	Quote *string `json:"quote"`
	// HeaderLine is the 1-based line of the header, null when the file
	// has none (its columns are then col_1, col_2, ...).
	HeaderLine *int   `json:"header_line"`
	Encoding   string `json:"encoding"`
}

// readAs describes how the reader r read its file: where the records of a
// wrapped JSON document were found, and a CSV file's dialect (nil for
// other formats). Call it once the rows are read: a CSV file sniffed as
// UTF-8 turns out Windows-1252 when its first non-ASCII text comes late.
func readAs(r readers.Reader) (recordsPath string, csv *CSVDialect) {
	recordsPath, _ = readers.RecordsPathOf(r)
	d, ok := readers.DialectOf(r)
	if !ok {
		return recordsPath, nil
	}
	csv = &CSVDialect{Delimiter: string(d.Delimiter), Encoding: strings.ToLower(d.Encoding)}
	if d.Quote != 0 {
		q := string(d.Quote)
		csv.Quote = &q
	}
	if d.HasHeader {
		line := d.SkipLines + 1
		csv.HeaderLine = &line
	}
	return recordsPath, csv
}

// WithNullTokens is the dialect whose null tokens are tokens: nil for the
// defaults, empty for none. The error says which token is unusable.
func WithNullTokens(tokens []string) (Dialect, error) {
	if tokens == nil {
		return Dialect{}, nil
	}
	set, err := profile.NewNullTokens(tokens)
	if err != nil {
		return Dialect{}, err
	}
	return Dialect{NullTokens: set}, nil
}
