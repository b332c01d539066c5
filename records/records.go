// Package records holds the types a source of rows speaks to the engine
// in: a Reader of string Records, and the errors it reports a bad source
// with. The file decoders (package readers) are such sources; so may be an
// object streamed from a bucket or the rows of a SQL sample, which is why
// the types live here and not in readers: a connector implements them
// without importing the decoders (arrow, parquet) it does not need.
//
// The package imports the standard library only (TestImportsStayLight).
package records

import "errors"

// Format names what a Reader decodes: a file format of package readers
// ("csv", "json", "jsonl", "parquet"), or a name a connector chooses for
// its source (say "sql"). The analysis reports it as it is.
type Format string

// Record is one row. The reader may reuse it (and its slices) between Next
// calls, so callers must copy what they keep. Values and Null always have
// len(Columns()) entries; Values[i] is "" when Null[i] is true.
type Record struct {
	Values []string
	Null   []bool
}

// Reader streams the rows of one source.
type Reader interface {
	// Columns returns the column names, in source order. Flattened nested
	// fields use dotted names (a.b.c).
	Columns() []string
	// Next returns the next row, or io.EOF after the last one. Any other
	// error is a user-facing message naming the row or line, wrapping
	// ErrMalformed or ErrUnsupported when the source itself is at fault.
	Next() (*Record, error)
	Format() Format
	Close() error
}

// GrowingReader is a reader whose columns may grow while it is read (a
// JSON reader opened with readers.Options.OnePass). Before the first row,
// Columns lists the columns known so far; a later row with a new column
// appends it to Columns, and rows from then on (Next's, or a batch a
// readers.BatchReader fills) have a cell for it, the rows before it holding
// nulls. A column once listed keeps its place, so indices stay valid.
type GrowingReader interface {
	Reader
	// Kept reports, once the reader has returned io.EOF, which of Columns
	// are the source's columns, i.e. those a reader that knew every column
	// up front would list: a JSON reader drops the keys that are only ever
	// null while their dotted children hold values elsewhere. After any
	// other error it means nothing.
	Kept() []bool
}

// The errors of a source at fault. A reader wraps them (errors.Is finds
// them) in a message saying what is wrong; the analysis then reports the
// input as one that cannot be analysed, which retrying will not change.
var (
	// ErrUnsupported marks input that is well-formed as far as we can
	// tell but uses something the reader does not handle (a codec,
	// encryption, or a size beyond the configured limits).
	ErrUnsupported = errors.New("unsupported file")
	// ErrMalformed marks input that is corrupt or does not follow its
	// format.
	ErrMalformed = errors.New("malformed file")
)
