package corrections

import (
	"fmt"
	"io"

	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// Writer writes the corrected rows in a file format. Write takes a whole
// record, not only its values, so that a null stays a null in the formats
// that have them (JSON, Parquet); CSV writes it as an empty field. The
// record is the caller's again once Write returns.
type Writer interface {
	WriteHeader(cols []string) error
	Write(rec *records.Record) error
	// Close writes what is buffered and what ends the file (a JSON array's
	// bracket, a Parquet footer). It does not close the io.Writer.
	Close() error
}

// WriterOptions tune NewWriter. Zero values take the defaults.
type WriterOptions struct {
	// Delimiter separates CSV fields (default ','); see WriterOptionsFor.
	Delimiter rune
	// RowGroupRows and RowGroupBytes bound a Parquet row group, which the
	// writer holds in memory before it writes it: by rows (default 65,536)
	// and by the bytes of its values (default 32 MiB).
	RowGroupRows  int
	RowGroupBytes int64
}

// Defaults of WriterOptions.
const (
	DefaultRowGroupRows  = 1 << 16
	DefaultRowGroupBytes = 32 << 20
)

// WriterOptionsFor are the options that write a file like the one r reads:
// a CSV file's sniffed delimiter.
func WriterOptionsFor(r records.Reader) WriterOptions {
	var o WriterOptions
	if d, ok := readers.DialectOf(r); ok {
		o.Delimiter = d.Delimiter
	}
	return o
}

// NewWriter returns a writer of format to w:
//
//   - csv: RFC 4180 (CRLF line ends, fields quoted when they hold the
//     delimiter, a quote, a line break or leading or trailing space), in
//     UTF-8 whatever the input's encoding, a header line first.
//   - jsonl: one object a line; json: an array of objects, streamed. Keys
//     are the column names as the readers flattened them (a.b for a nested
//     b), values JSON strings, as the readers read every value as text,
//     and nulls null. (A JSON file without rows names no columns.)
//   - parquet: a column of nullable strings (UTF8) for each column, Snappy
//     compressed, a row group for every RowGroupRows rows or RowGroupBytes
//     bytes.
func NewWriter(format records.Format, w io.Writer, opt WriterOptions) (Writer, error) {
	if opt.RowGroupRows <= 0 {
		opt.RowGroupRows = DefaultRowGroupRows
	}
	if opt.RowGroupBytes <= 0 {
		opt.RowGroupBytes = DefaultRowGroupBytes
	}
	switch format {
	case readers.FormatCSV:
		return newCSVWriter(w, opt.Delimiter)
	case readers.FormatJSONL:
		return newJSONWriter(w, false), nil
	case readers.FormatJSON:
		return newJSONWriter(w, true), nil
	case readers.FormatParquet:
		return newParquetWriter(w, opt), nil
	}
	return nil, fmt.Errorf("cannot write the format %q: csv, json, jsonl or parquet", format)
}
