package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/transform"

	"github.com/dqs/dqs/columnar"
)

// csvReader streams rows of a delimited text file.
type csvReader struct {
	dialect CSVDialect
	utf8    bool
	// fixedEncoding: the encoding was given (Options.CSV), so invalid
	// UTF-8 is replaced rather than taken for another encoding.
	fixedEncoding bool
	sc            *csvScanner
	cols          []string
	rec           Record
	done          bool
	err           error
}

func openCSV(f File, opt Options) (Reader, error) {
	if err := seekStart(f); err != nil {
		return nil, err
	}
	sample, complete, err := readSniffSample(f, min(maxSniffSample, opt.recordLimit()/4))
	if err != nil {
		return nil, err
	}
	sn := sniffCSV(sample, complete, opt.CSV)

	var src io.Reader = io.MultiReader(bytes.NewReader(sample[sn.bomLen:]), f)
	if sn.Encoding != EncodingUTF8 {
		src = transform.NewReader(src, decoderFor(sn.Encoding).Transformer)
	}
	r := &csvReader{dialect: sn.CSVDialect, utf8: sn.Encoding == EncodingUTF8, fixedEncoding: opt.CSV != nil && opt.CSV.Encoding != ""}
	r.sc = newCSVScanner(src, byte(sn.Delimiter), byte(sn.Quote), opt.MaxFieldBytes, opt.MaxColumns)
	r.sc.maxRecord = max(2*opt.MaxFieldBytes, int(min(64<<20, opt.recordLimit())))
	if err := r.sc.skipLines(sn.SkipLines); err != nil {
		return nil, fmt.Errorf("reading file: %w", err)
	}
	if sn.HasHeader {
		err := r.sc.readRecord()
		switch {
		case err == io.EOF:
			r.done = true
		case err != nil:
			return nil, err
		default:
			names := make([]string, r.sc.fieldCount())
			for i := range names {
				names[i] = strings.TrimSpace(r.text(r.sc.field(i)))
			}
			r.cols = uniqueNames(names)
		}
	} else {
		if !complete && bytes.IndexAny(sample, "\r\n") < 0 {
			// Not one whole line in the largest sample: sn.width counts the
			// fields of its start only.
			return nil, unsupportedf("the first line is longer than %s: a header or row that long is not supported", humanBytes(len(sample)))
		}
		if sn.width > opt.MaxColumns {
			return nil, unsupportedf("the file has %d columns, more than the limit of %d", sn.width, opt.MaxColumns)
		}
		r.cols = make([]string, sn.width)
		for i := range r.cols {
			r.cols[i] = fmt.Sprintf("col_%d", i+1)
		}
	}
	if len(r.cols) == 0 {
		r.done = true
	}
	r.rec.Values = make([]string, len(r.cols))
	r.rec.Null = make([]bool, len(r.cols))
	return r, nil
}

// maxSniffSample bounds the sample the dialect is sniffed from. It is
// sniffSize unless the file's first lines are longer: a header of 10,000
// columns takes a few hundred KiB, and a sniffer that sees part of it takes
// the rest of the file for rows of another width. Sniffing takes several
// times the sample's size in memory (a string per field, per candidate
// dialect), so a first line longer than this is refused.
const maxSniffSample = 4 << 20

// sniffLines is how many whole lines a sample needs before it stops growing.
const sniffLines = 3

// readSniffSample reads the start of f: sniffSize bytes, or more, doubling
// up to limit, until it holds sniffLines line breaks. complete reports that
// it holds the whole file.
func readSniffSample(f io.Reader, limit int64) (sample []byte, complete bool, err error) {
	sample = make([]byte, 0, min(sniffSize, limit))
	for {
		n, err := io.ReadFull(f, sample[len(sample):cap(sample)])
		sample = sample[:len(sample)+n]
		switch {
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return sample, true, nil
		case err != nil:
			return nil, false, fmt.Errorf("reading file: %w", err)
		}
		if int64(len(sample)) >= limit || bytes.Count(sample, []byte{'\n'})+bytes.Count(sample, []byte{'\r'}) >= sniffLines {
			return sample, false, nil
		}
		grown := make([]byte, len(sample), min(int64(2*len(sample)), limit))
		sample = grown[:copy(grown, sample)]
	}
}

// Dialect returns what was sniffed.
func (r *csvReader) Dialect() CSVDialect { return r.dialect }

// DialectOf returns the sniffed dialect of a CSV reader returned by Open,
// for reports; ok is false for other formats.
func DialectOf(r Reader) (d CSVDialect, ok bool) {
	if c, isCSV := r.(*csvReader); isCSV {
		return c.dialect, true
	}
	return CSVDialect{}, false
}

func (r *csvReader) Columns() []string { return r.cols }
func (r *csvReader) Format() Format    { return FormatCSV }
func (r *csvReader) Close() error      { return nil }

// text converts field bytes to a string, repairing invalid UTF-8 in a file
// sniffed as UTF-8 by reading that field as Windows-1252.
func (r *csvReader) text(b []byte) string {
	if r.utf8 && !utf8.Valid(b) {
		if out, err := charmap.Windows1252.NewDecoder().Bytes(b); err == nil && !r.fixedEncoding {
			// The sample looked like UTF-8 but the file is not: its first
			// non-ASCII text came after the sniffed window.
			r.dialect.Encoding = EncodingWindows1252
			return string(out)
		}
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(b)
}

func (r *csvReader) Next() (*Record, error) {
	n, err := r.scan()
	if err != nil {
		return nil, err
	}
	sc := r.sc
	valid := !r.utf8 || utf8.Valid(sc.rec)
	var all string
	if valid {
		all = string(sc.rec) // one allocation per row; fields share it
	}
	start := 0
	for i := 0; i < n; i++ {
		end := sc.ends[i]
		switch {
		case end == start:
			r.rec.Values[i] = ""
		case valid:
			r.rec.Values[i] = all[start:end]
		default:
			r.rec.Values[i] = r.text(sc.rec[start:end])
		}
		r.rec.Null[i] = false
		start = end
	}
	for i := n; i < len(r.cols); i++ {
		r.rec.Values[i] = ""
		r.rec.Null[i] = true
	}
	return &r.rec, nil
}

// NextBatch appends rows to b, copying each field's bytes straight from the
// scanner into its column.
func (r *csvReader) NextBatch(b *columnar.Batch) error {
	start := b.Rows
	for !b.Full() {
		n, err := r.scan()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		sc := r.sc
		valid := !r.utf8 || utf8.Valid(sc.rec)
		from := 0
		for i := 0; i < n; i++ {
			end := sc.ends[i]
			if valid {
				b.Cols[i].Append(sc.rec[from:end])
			} else {
				b.Cols[i].AppendString(r.text(sc.rec[from:end]))
			}
			from = end
		}
		for i := n; i < len(r.cols); i++ {
			b.Cols[i].AppendNull()
		}
		b.Rows++
	}
	if b.Rows == start {
		return io.EOF
	}
	return nil
}

// scan reads the next record into the scanner and returns how many of its
// fields belong to columns (a short row's missing fields are nulls).
func (r *csvReader) scan() (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.done {
		return 0, io.EOF
	}
	sc := r.sc
	if err := sc.readRecord(); err != nil {
		if errors.Is(err, io.EOF) {
			r.done = true
			return 0, io.EOF
		}
		if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
			err = fmt.Errorf("line %d: reading file: %w", sc.recLine, err)
		}
		r.err = err
		return 0, err
	}
	n := sc.fieldCount()
	if n > len(r.cols) {
		// Trailing empty fields (a trailing delimiter) are tolerated.
		for i := len(r.cols); i < n; i++ {
			if len(sc.field(i)) > 0 {
				r.err = malformedf("line %d: row has %d fields but the table has %d columns", sc.recLine, n, len(r.cols))
				return 0, r.err
			}
		}
		n = len(r.cols)
	}
	return n, nil
}
