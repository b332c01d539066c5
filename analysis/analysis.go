// Package analysis runs the engine on one file or stream of records: read
// (any format), profile in a single pass, classify every column, score
// quality. It is pure Go — the AnalyzeFile activity and `dqs profile` both
// call Run, so the server and the command line give the same answers; Run
// opens the file and analyses its rows with AnalyzeRecords, the entry
// point of any other source of rows (records.Reader).
package analysis

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
)

// Stages of an analysis, as the progress messages name them.
const (
	StageParsing     = "parsing"
	StageProfiling   = "profiling"
	StageClassifying = "classifying"
	StageScoring     = "scoring"
)

// Progress receives the stage and the share of the file read (0..1).
type Progress func(stage string, fraction float64)

// Column is one column's profile and classification.
type Column struct {
	profile.Column
	Classification classify.Result `json:"classification"`
}

// Result is the analysis of one file.
type Result struct {
	Format        string `json:"format"`
	RowCount      int64  `json:"row_count"`
	DuplicateRows int64  `json:"duplicate_rows"`
	// DuplicateRowsEstimated: DuplicateRows is an estimate (over 1,000,000
	// distinct rows).
	DuplicateRowsEstimated bool `json:"duplicate_rows_estimated,omitempty"`
	// RecordsPath is where the rows of a JSON document wrapping them in an
	// object were found ("results", "response.items"), so that a user can
	// tell them from the rest of the document; empty when not wrapped.
	RecordsPath string `json:"records_path,omitempty"`
	// CSV is the dialect a CSV file was read in, sniffed or given, so
	// that a user sees what DQS read; nil for other formats.
	CSV     *CSVDialect    `json:"csv,omitempty"`
	Columns []Column       `json:"columns"`
	Quality quality.Report `json:"quality"`
}

// ErrBadInput marks a file that cannot be analysed as it is (malformed or
// unsupported): retrying will not help, and the message says why.
var ErrBadInput = errors.New("file cannot be analysed")

// Run analyses f (name gives the format by its extension, size the
// progress denominator), written in dialect d, within lim.
func Run(ctx context.Context, f readers.File, name string, size int64, d Dialect, lim Limits, progress Progress) (*Result, error) {
	// One pass: a JSON file is not read twice to find its columns first.
	return run(ctx, f, name, size, d, lim, progress, readers.Options{OnePass: true})
}

func run(ctx context.Context, f readers.File, name string, size int64, d Dialect, lim Limits, progress Progress, opt readers.Options) (*Result, error) {
	if progress == nil {
		progress = func(string, float64) {}
	}
	progress = monotonic(progress)
	release, err := lim.reserve(ctx, lim.fileMemory(), func() { progress(StageParsing, 0) })
	if err != nil {
		return nil, err
	}
	defer release()
	opt.MemoryBudget = lim.readerBudget()
	res, err := analyse(ctx, f, name, size, d, lim, progress, opt)
	if errors.Is(err, readers.ErrTooWideToGrow) && opt.OnePass {
		// Rare: a row brought too many new columns at once to one pass.
		opt.OnePass = false
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return analyse(ctx, f, name, size, d, lim, progress, opt)
	}
	return res, err
}

// monotonic passes on progress that never goes back: an analysis started
// over reports the share it had reached until it passes it.
func monotonic(progress Progress) Progress {
	var last float64
	return func(stage string, fraction float64) {
		last = max(last, fraction)
		progress(stage, last)
	}
}

// analyse opens f and analyses its rows with AnalyzeRecords. The memory
// is run's to reserve, before the file is opened and across a retry:
// AnalyzeRecords is given the limits without the pool, so that it does not
// take the memory a second time.
func analyse(ctx context.Context, f readers.File, name string, size int64, d Dialect, lim Limits, progress Progress, opt readers.Options) (*Result, error) {
	progress(StageParsing, 0)
	counter := &countingFile{File: f}
	opt.CSV = d.CSV
	r, err := readers.Open(counter, name, opt)
	if err != nil {
		return nil, badInput(err)
	}
	defer r.Close()
	return AnalyzeRecords(ctx, r, StreamOptions{
		NullTokens: d.NullTokens,
		Limits:     Limits{FileMemory: lim.FileMemory},
		Progress:   progress,
		Rows:       size / bytesPerRowGuess,
		Read:       counter.bytesRead,
		Size:       size,
	})
}

// keepColumns returns the columns whose kept is true.
func keepColumns(cols []profile.Column, kept []bool) []profile.Column {
	out := cols[:0]
	for i, c := range cols {
		if kept[i] {
			out = append(out, c)
		}
	}
	return out
}

// badInput marks err as bad input when the source is at fault
// (records.ErrMalformed, records.ErrUnsupported), keeping its message,
// which names the row or line for the user.
func badInput(err error) error {
	if sourceAtFault(err) {
		return fmt.Errorf("%w: %w", ErrBadInput, err)
	}
	return err
}

func sourceAtFault(err error) bool {
	return errors.Is(err, records.ErrMalformed) || errors.Is(err, records.ErrUnsupported)
}

// readError is what a failed read of r's rows returns: bad input when the
// source is at fault; any other error (the network under a stream, the
// disk under a file), which may pass on a retry, wrapped to say where it
// came from, since its own message (say "connection reset by peer") does
// not.
func readError(r records.Reader, err error) error {
	if sourceAtFault(err) {
		return badInput(err)
	}
	return fmt.Errorf("reading the %s rows: %w", r.Format(), err)
}

// checkNotEmpty refuses a file without rows: its profile would be a
// perfect score of nothing. (A header alone is a file without rows.)
func checkNotEmpty(p *profile.Profile) error {
	switch {
	case len(p.Columns) == 0 && p.RowCount == 0:
		return fmt.Errorf("%w: the file is empty: it holds no columns and no rows", ErrBadInput)
	case p.RowCount == 0:
		return fmt.Errorf("%w: the file holds no rows, only the names of its %d columns", ErrBadInput, len(p.Columns))
	case len(p.Columns) == 0:
		return fmt.Errorf("%w: the file holds no columns", ErrBadInput)
	}
	return nil
}

// checkColumns refuses a file of more columns than a profiler fits in
// budget bytes (see profile.CheckBudget).
func checkColumns(columns int, budget int64) error {
	if err := profile.CheckBudget(columns, budget); err != nil {
		return fmt.Errorf("%w: %v; raise DQS_FILE_MEMORY_BUDGET or split the file", ErrBadInput, err)
	}
	return nil
}

func fraction(read, size int64) float64 {
	if size <= 0 {
		return 0
	}
	return min(float64(read)/float64(size), 1)
}

// bytesPerRowGuess turns a file's size into a guess of its rows for the
// profiler (profile.Options.Rows), generous on purpose: tables seldom have
// rows under 64 bytes (the benchmark's take 88 in Parquet, 197 in CSV). A
// guess too long costs memory the set would not have taken (16 MiB at most,
// what a million distinct rows take); one too short, the set's growth as
// without a guess.
const bytesPerRowGuess = 64

// countingFile counts the bytes read through it (for progress).
type countingFile struct {
	readers.File
	read int64
}

func (c *countingFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.read += int64(n)
	return n, err
}

// bytesRead is called by the goroutine that reads through c.
func (c *countingFile) bytesRead() int64 { return c.read }

// maskPersonal masks the raw values a profile shows of a personal column.
func maskPersonal(c *profile.Column) {
	for i := range c.TopValues {
		c.TopValues[i].Value = quality.Mask(c.TopValues[i].Value)
	}
	for _, v := range []*string{c.Min, c.Max} {
		if v != nil {
			*v = quality.Mask(*v)
		}
	}
}
