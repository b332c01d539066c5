// Package readers turns uploaded data files (CSV, JSON, JSON Lines and
// Parquet) into a uniform stream of string records for profiling.
//
// Every reader yields rows as strings plus a null mask, reuses one Record
// between calls to Next, reads with bounded memory, and reports problems in
// the file as errors that wrap ErrMalformed or ErrUnsupported, never as
// panics.
package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dqs/dqs/records"
)

// The record and reader types are those of package records, where a
// source of rows that is not a file (a connector) finds them without
// importing the decoders here; the aliases keep this package's names.
type (
	Format        = records.Format
	Record        = records.Record
	Reader        = records.Reader
	GrowingReader = records.GrowingReader
)

// The formats this package decodes.
const (
	FormatCSV     Format = "csv"
	FormatJSON    Format = "json"
	FormatJSONL   Format = "jsonl"
	FormatParquet Format = "parquet"
)

// File is what Open needs: Parquet reads its footer via ReaderAt and Seek;
// CSV and JSON stream through Read (JSON seeks back to the start once).
type File interface {
	io.Reader
	io.ReaderAt
	io.Seeker
}

// Options bounds the resources a reader may use.
type Options struct {
	// MaxColumns is the largest number of columns accepted (default 10000).
	MaxColumns int
	// MaxFieldBytes is the largest single value accepted, in bytes
	// (default 1 MiB).
	MaxFieldBytes int
	// MemoryBudget is the most memory, in bytes, the reader may hold at
	// once for what the file itself sizes (default DefaultMemoryBudget):
	// Parquet metadata, pages and record batches, a CSV record, a JSON row.
	// The limits below derive from it; a file that would need more is
	// refused with ErrUnsupported before the memory is taken.
	MemoryBudget int64
	// OnePass lets a JSON reader find its columns while it reads the
	// values instead of in a first pass over the whole file, which saves
	// reading the file twice; the reader is then a GrowingReader. Other
	// formats ignore it.
	OnePass bool
	// CSV, when set, overrides what sniffing infers about a CSV file; its
	// zero fields are still sniffed. Open refuses invalid values with
	// ErrUnsupported, whatever the format. Other formats ignore it.
	CSV *CSVOptions
}

const (
	DefaultMaxColumns    = 10000
	DefaultMaxFieldBytes = 1 << 20
	DefaultMemoryBudget  = 512 << 20
	// MinMemoryBudget is the smallest budget a reader takes: what a field
	// of the default size and its record need with room to spare.
	MinMemoryBudget = 16 << 20
)

func (o Options) withDefaults() Options {
	if o.MaxColumns <= 0 {
		o.MaxColumns = DefaultMaxColumns
	}
	if o.MaxFieldBytes <= 0 {
		o.MaxFieldBytes = DefaultMaxFieldBytes
	}
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = DefaultMemoryBudget
	}
	o.MemoryBudget = max(o.MemoryBudget, MinMemoryBudget)
	return o
}

// The limits a reader derives from its memory budget.

// footerLimit bounds a Parquet footer. arrow-go's parsed metadata takes
// several times the bytes of the footer (measured: TestFooterMemory).
func (o Options) footerLimit() int64 { return o.MemoryBudget / 16 }

// chunkLimit bounds the column chunks (row groups × columns) of a Parquet
// file, whose parsed metadata may take a quarter of the budget.
func (o Options) chunkLimit() int64 { return o.MemoryBudget / 4 / chunkMetadataBytes }

// pageLimit bounds one Parquet page, compressed or not.
func (o Options) pageLimit() int64 { return min(maxUncompressedPage, o.MemoryBudget/4) }

// pagesLimit bounds the Parquet pages a row group holds at once, read side
// by side: three quarters of the budget, the rest for record batches.
func (o Options) pagesLimit() int64 { return o.MemoryBudget / 4 * 3 }

// recordLimit bounds one CSV record or JSON row, and the text of one batch
// past its usual bounds (a window of the direct Parquet path), in bytes:
// the reader holds a row while the batch takes a copy of its values, a
// JSON file is read by two passes at once (keyScout), and a caller may hold
// several batches.
func (o Options) recordLimit() int64 { return o.MemoryBudget / 16 }

var (
	// ErrUnsupported marks files that are well-formed as far as we can tell
	// but use something this package does not handle (a codec, encryption,
	// or a size beyond the configured limits). Retrying will not help.
	ErrUnsupported = records.ErrUnsupported
	// ErrTooWideToGrow is what a one-pass reader (Options.OnePass) returns
	// when a row brings so many new columns at once that widening the batch
	// in hand, nulls for its earlier rows included, would pass twice its
	// cell bound (columnar.MaxCells). The caller opens the file again
	// without OnePass: two passes know every column before the first batch.
	ErrTooWideToGrow = errors.New("one pass: too many new columns at once; read the file in two passes")
	// ErrMalformed marks files that are corrupt or do not follow their
	// format. Retrying will not help.
	ErrMalformed = records.ErrMalformed
)

// fileError carries a user-facing message while matching a sentinel with
// errors.Is; the message does not repeat the sentinel's text.
type fileError struct {
	kind  error
	msg   string
	cause error
}

func (e *fileError) Error() string { return e.msg }

func (e *fileError) Is(target error) bool { return target == e.kind }

func (e *fileError) Unwrap() error { return e.cause }

func malformedf(format string, args ...any) error {
	return newFileError(ErrMalformed, format, args...)
}

func unsupportedf(format string, args ...any) error {
	return newFileError(ErrUnsupported, format, args...)
}

func newFileError(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &fileError{kind: kind, msg: err.Error(), cause: errors.Unwrap(err)}
}

// sniffSize is how much of the file is inspected for format and dialect.
const sniffSize = 64 << 10

// Open detects the format from the file name's extension and, failing that,
// from the content (the PAR1 magic, a leading '[' or '{', else CSV), and
// returns a reader positioned at the first row. A file with the Parquet
// magic at both ends is read as Parquet whatever its name says. A JSON
// document that is a single object wrapping an array of records is read
// as that array (FormatJSON; see RecordsPathOf).
func Open(f File, name string, opt Options) (Reader, error) {
	opt = opt.withDefaults()
	if err := opt.CSV.validate(); err != nil {
		return nil, err
	}
	format, err := detectFormat(f, name)
	if err != nil {
		return nil, err
	}
	switch format {
	case FormatParquet:
		return openParquet(f, opt)
	case FormatJSON, FormatJSONL:
		return openJSON(f, format, opt)
	default:
		return openCSV(f, opt)
	}
}

// ErrCompressed marks a compressed file (by its name or its first bytes),
// which readers do not decompress; it is an ErrUnsupported.
var ErrCompressed = &fileError{kind: ErrUnsupported, msg: "compressed files are not supported"}

// compressions are the magic numbers of compressed files, and their names.
var compressions = []struct {
	magic []byte
	name  string
}{
	{[]byte{0x1f, 0x8b}, "gzip"},
	{[]byte("PK\x03\x04"), "zip"},
	{[]byte{0x28, 0xb5, 0x2f, 0xfd}, "zstd"},
	{[]byte{0xfd, '7', 'z', 'X', 'Z', 0}, "xz"},
	{[]byte("BZh"), "bzip2"},
}

// compressedAs names the compression of a file called name that starts
// with head, or is "" for none. (A bzip2 stream's "BZh" is followed by its
// block size, 1 to 9, and the block magic 0x314159265359.)
func compressedAs(head []byte, name string) string {
	switch ext := strings.ToLower(filepath.Ext(name)); ext {
	case ".gz", ".zip", ".bz2", ".xz", ".zst":
		return ext[1:]
	}
	for _, c := range compressions {
		if !bytes.HasPrefix(head, c.magic) {
			continue
		}
		if c.name == "bzip2" && (len(head) < 10 || head[3] < '1' || head[3] > '9' || string(head[4:10]) != "\x31\x41\x59\x26\x53\x59") {
			continue
		}
		return c.name
	}
	return ""
}

func detectFormat(f File, name string) (Format, error) {
	ext := strings.ToLower(filepath.Ext(name))
	head := make([]byte, 512)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("reading %s: %w", name, err)
	}
	head = head[:n]
	if kind := compressedAs(head, name); kind != "" {
		return "", &fileError{kind: ErrUnsupported, cause: ErrCompressed,
			msg: fmt.Sprintf("%s is compressed (%s); compressed files are not supported: upload the uncompressed file", name, kind)}
	}
	if bytes.HasPrefix(head, []byte("PAR1")) && ext != ".parquet" {
		// A Parquet file under another name (PAR1 at both ends) is still
		// Parquet; no text file looks like that.
		if size, err := f.Seek(0, io.SeekEnd); err == nil && size >= 12 {
			var tail [4]byte
			if _, err := f.ReadAt(tail[:], size-4); err == nil && string(tail[:]) == "PAR1" {
				return FormatParquet, nil
			}
		}
	}
	switch ext {
	case ".parquet", ".pq", ".parq":
		return FormatParquet, nil
	case ".jsonl", ".ndjson":
		return FormatJSONL, nil
	case ".csv", ".tsv", ".tab", ".psv", ".txt":
		return FormatCSV, nil
	}
	if bytes.HasPrefix(head, []byte("PAR1")) {
		return FormatParquet, nil
	}
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(head, utf8BOM), " \t\r\n")
	if ext == ".json" {
		// A .json file may hold an array or a stream of objects.
		if len(trimmed) > 0 && trimmed[0] == '[' {
			return FormatJSON, nil
		}
		return FormatJSONL, nil
	}
	if len(trimmed) > 0 {
		switch trimmed[0] {
		case '[':
			return FormatJSON, nil
		case '{':
			return FormatJSONL, nil
		}
	}
	return FormatCSV, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// seekStart rewinds f to the beginning.
func seekStart(f File) error {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("rewinding file: %w", err)
	}
	return nil
}

// uniqueNames makes column names non-empty and distinct: empty names become
// col_N (1-based position) and repeats get a _2, _3... suffix.
func uniqueNames(names []string) []string {
	out := make([]string, len(names))
	seen := make(map[string]bool, len(names))
	next := make(map[string]int) // next suffix to try per base name
	for i, n := range names {
		if n == "" {
			n = fmt.Sprintf("col_%d", i+1)
		}
		if seen[n] {
			base, k := n, max(next[n], 2)
			for n = fmt.Sprintf("%s_%d", base, k); seen[n]; n = fmt.Sprintf("%s_%d", base, k) {
				k++
			}
			next[base] = k + 1
		}
		seen[n] = true
		out[i] = n
	}
	return out
}
