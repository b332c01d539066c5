package analysis

import (
	"context"
	"errors"
	"io"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
)

// PrescanRows is how many rows a prescan reads, at most: its cost must not
// grow with the file (it runs inside an upload request). A wide file is
// read for fewer rows, prescanCells cells at most, and any file for a
// thirty-second of the prescan's budget of text at most.
const PrescanRows = 2000

// prescanCells bounds the cells a prescan reads: 20 rows of a file of
// 10,000 columns.
const prescanCells = 200_000

// PrescanColumn is what a prescan says of one column.
type PrescanColumn struct {
	Name           string          `json:"name"`
	InferredType   string          `json:"inferred_type"`
	Classification classify.Result `json:"classification"`
}

// PrescanResult is a quick look at the head of a file.
type PrescanResult struct {
	Format               string          `json:"format"`
	Columns              []PrescanColumn `json:"columns"`
	RowsScanned          int64           `json:"rows_scanned"`
	RowEstimate          int64           `json:"row_estimate"`
	ContainsPersonalData bool            `json:"contains_personal_data"`
	// RecordsPath and CSV say how the head was read, as in Result: a user
	// trying a dialect sees what it gives before uploading.
	RecordsPath string      `json:"records_path,omitempty"`
	CSV         *CSVDialect `json:"csv,omitempty"`
	// PasswordColumns name the columns that hold plaintext passwords; such
	// a file is refused.
	PasswordColumns []string `json:"password_columns,omitempty"`
}

// Prescan reads the head of f (see PrescanRows) within lim and classifies
// its columns. The row estimate scales the rows read by the share of the
// file they used.
func Prescan(ctx context.Context, f readers.File, name string, size int64, d Dialect, lim Limits) (*PrescanResult, error) {
	release, err := lim.reserve(ctx, lim.PrescanMemory(), func() {})
	if err != nil {
		return nil, err
	}
	defer release()
	sc, err := scanHead(f, name, d, PrescanRows, lim.PrescanMemory())
	if err != nil {
		return nil, err
	}
	r, prof, rows, rowBytes := sc.reader, sc.profiler, sc.rows, sc.rowBytes
	p := prof.Result()
	if g, ok := r.(readers.GrowingReader); ok && sc.eof {
		p.Columns = keepColumns(p.Columns, g.Kept())
	}
	out := &PrescanResult{Format: string(r.Format()), RowsScanned: rows, RowEstimate: rows, Columns: make([]PrescanColumn, len(p.Columns))}
	out.RecordsPath, out.CSV = readAs(r)
	switch {
	case sc.eof || r.Format() == readers.FormatParquet:
		// All rows were read, or the reader read a row group it knows.
	case r.Format() == readers.FormatCSV && rowBytes > 0:
		// Readers buffer ahead, so bytes read say little; the text of the
		// rows says how long a row is.
		out.RowEstimate = int64(float64(size) / (float64(rowBytes) / float64(rows)))
	case sc.counter.bytesRead() > 0:
		out.RowEstimate = int64(float64(rows) * float64(size) / float64(sc.counter.bytesRead()))
	}
	for i, cls := range classifyColumns(p.Columns) {
		c := p.Columns[i]
		out.Columns[i] = PrescanColumn{Name: c.Name, InferredType: c.InferredType, Classification: cls}
		if classify.IsPersonal(cls) {
			out.ContainsPersonalData = true
		}
		if cls.Label == classify.LabelPassword {
			out.PasswordColumns = append(out.PasswordColumns, c.Name)
		}
	}
	return out, nil
}

// headScan is what reading the head of a file gathered.
type headScan struct {
	reader   readers.Reader
	profiler *profile.Profiler
	counter  *countingFile
	rows     int64
	rowBytes int64 // text length of the rows read, delimiters included
	eof      bool
}

// scanHead opens f and profiles its first limit rows, row by row, within
// budget: three quarters for the reader; at most prescanCells cells (fewer
// rows when the file is wide) and a thirty-second of the budget of text. A
// JSON file is read in one pass (its columns are the keys of the rows read,
// not of the whole file, which a first pass would read). The reader is
// closed when scanHead returns.
func scanHead(f readers.File, name string, d Dialect, limit, budget int64) (*headScan, error) {
	s := &headScan{counter: &countingFile{File: f}}
	r, err := readers.Open(s.counter, name, readers.Options{MemoryBudget: budget / 4 * 3, OnePass: true, CSV: d.CSV})
	if err != nil {
		return nil, badInput(err)
	}
	defer r.Close()
	s.reader = r
	// The profiler's state grows with what it is given (a few KiB a column
	// to start with, then with the values read), which the bounds below
	// keep small: it needs no sizes of its own.
	s.profiler = profile.New(r.Columns(), profile.Options{NullTokens: d.NullTokens})
	cells := int64(0)
	for s.rows < limit && cells+int64(len(r.Columns())) <= prescanCells && s.rowBytes < budget/32 {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			s.eof = true
			break
		}
		if errors.Is(err, readers.ErrTooWideToGrow) {
			break // a row of too many new keys at once: the prescan shows the rows before it
		}
		if err != nil {
			return nil, badInput(err)
		}
		if n := len(r.Columns()); n > s.profiler.Columns() {
			s.profiler.AppendColumns(r.Columns()[s.profiler.Columns():n])
		}
		cells += int64(len(rec.Values))
		s.profiler.Add(rec.Values, rec.Null)
		s.rows++
		for _, v := range rec.Values {
			s.rowBytes += int64(len(v)) + 1
		}
	}
	return s, nil
}
