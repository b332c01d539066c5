package analysis

import (
	"context"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
	"github.com/dqs/dqs/records"
)

// StreamOptions are what AnalyzeRecords needs beyond the rows.
type StreamOptions struct {
	// NullTokens are the values that count as nulls; nil means
	// profile.DefaultNulls, and an empty set none (as Dialect's).
	NullTokens *profile.NullTokens
	// Limits bound the memory of the analysis as they bound Run's: it
	// reserves Limits' FileMemory from Limits.Pool before it reads, the
	// reader's half of it standing for what the caller's reader holds.
	Limits Limits
	// Progress, when set, receives the stage and the share of the stream
	// read after every batch of rows, even when the share is unknown
	// (then 0 until the profiling is done), so that a caller can
	// heartbeat on it. The share is Read()/Size when Read is set, the rows
	// read over Rows when Rows is, and unknown otherwise.
	Progress Progress
	// Rows is how many rows the stream is expected to hold; 0 when
	// unknown. A guess will do: it sizes the profiler's set of row hashes
	// (profile.Options.Rows) and, without Read, measures progress.
	Rows int64
	// Read, when set, says how much of the stream has been read, in the
	// unit of Size: the bytes of an object streamed from a bucket over its
	// length. It is called on the goroutine that reads the stream.
	Read func() int64
	Size int64
}

// AnalyzeRecords analyses the rows of r: it profiles them in the batch
// pipeline (profileParallel), classifies every column and scores quality,
// exactly as Run does a file, which it is the second half of: Run opens
// the file and hands its reader here. r may be any source of rows, a
// connector's as well as a file's; AnalyzeRecords does not close it.
//
// An error of r that wraps records.ErrMalformed or records.ErrUnsupported
// is returned wrapped in ErrBadInput, any other wrapped to say it came
// from reading r (errors.Is finds both). Cancelling ctx stops the analysis after
// the batch in hand; a Next that blocks (a stream waiting on the network)
// is not interrupted, so r should honour ctx itself, as rows queried with
// ctx do.
func AnalyzeRecords(ctx context.Context, r records.Reader, opt StreamOptions) (*Result, error) {
	progress := opt.Progress
	if progress == nil {
		progress = func(string, float64) {}
	}
	lim := opt.Limits
	release, err := lim.reserve(ctx, lim.fileMemory(), func() { progress(StageParsing, 0) })
	if err != nil {
		return nil, err
	}
	defer release()
	read := opt.Read
	if read == nil {
		read = func() int64 { return 0 }
	}
	popt := profile.Options{Rows: opt.Rows, MemoryBudget: lim.profileBudget(), NullTokens: opt.NullTokens}
	p, err := profileRecords(ctx, r, popt, defaultWorkers(), read, func(read, rows int64) error {
		if opt.Read != nil {
			progress(StageProfiling, fraction(read, opt.Size))
		} else {
			progress(StageProfiling, fraction(rows, opt.Rows))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	progress(StageClassifying, 1)
	if err := checkNotEmpty(p); err != nil {
		return nil, err
	}
	res := &Result{Format: string(r.Format()), RowCount: p.RowCount, DuplicateRows: p.DuplicateRows, DuplicateRowsEstimated: p.DuplicateRowsEstimated, Columns: make([]Column, len(p.Columns))}
	res.RecordsPath, res.CSV = readAs(r)
	// What is masked: any personal label, whatever its confidence (as for
	// the top values below).
	meaning := make(map[string]quality.Meaning, len(p.Columns))
	for i, cls := range classifyColumns(p.Columns) {
		c := p.Columns[i]
		meaning[c.Name] = quality.Meaning{Personal: cls.Category != classify.CategoryNone, Label: cls.Label, Conformance: cls.Conformance}
		res.Columns[i] = Column{Column: c, Classification: cls}
	}
	progress(StageScoring, 1)
	res.Quality = quality.Assess(p, func(col string) quality.Meaning { return meaning[col] })
	for i := range res.Columns {
		// The sample served classification and stays in the engine; the
		// values shown of personal columns are masked like issue examples.
		c := &res.Columns[i]
		c.Sample = nil
		// Masking errs on the side of privacy: any personal label counts,
		// whatever its confidence.
		if c.Classification.Category != classify.CategoryNone {
			maskPersonal(&c.Column)
		}
	}
	return res, nil
}

// profileRecords profiles r in the batch pipeline (see profileParallel)
// and returns the profile of the columns r keeps (records.GrowingReader).
func profileRecords(ctx context.Context, r records.Reader, opt profile.Options, workers int, read func() int64, progress func(read, rows int64) error) (*profile.Profile, error) {
	p, err := profileParallel(ctx, r, opt, workers, read, progress)
	if err != nil {
		return nil, err
	}
	res := p.Result()
	if g, ok := r.(records.GrowingReader); ok {
		res.Columns = keepColumns(res.Columns, g.Kept())
	}
	return res, nil
}
