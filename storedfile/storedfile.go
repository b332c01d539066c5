// Package storedfile reads a file DQS stored (an upload, or a corrected
// copy) back the way its analysis reads it: copied from blob storage to a
// local spool file (Parquet needs random access, and a local copy reads
// at disk speed), or, for a reader that needs only part of it, read where
// it is stored by ranges (Remote); and opened as records with the dialect
// its job and its upload declared (null tokens, CSV options). The analysis, the
// corrections and the suggestions all go through it, so the rows a fix is
// computed on are the rows the profile counted.
package storedfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
	"github.com/dqs/dqs/spool"
)

// Local is a stored file copied to the spool. Close removes the copy.
type Local struct {
	*os.File
	// Name is the file's name (its extension tells the format).
	Name string
	// Size is its size in bytes.
	Size int64
}

// Close closes and removes the local copy.
func (l *Local) Close() error {
	err := l.File.Close()
	os.Remove(l.File.Name())
	return err
}

// Download copies the object at key to a temporary file of dir (the
// system's temporary directory when dir is nil), positioned at its
// start. onRead, when not nil, is told the bytes copied so far as the copy
// goes on (an activity heartbeats with it). blob.ErrNotFound is kept in
// the error's chain.
func Download(ctx context.Context, blobs blob.Store, dir *spool.Dir, key, name string, onRead func(int64)) (*Local, error) {
	rc, err := blobs.Open(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("open stored file: %w", err)
	}
	defer rc.Close()
	var tmp *os.File
	if dir != nil {
		tmp, err = dir.CreateTemp("stored-*")
	} else {
		tmp, err = os.CreateTemp("", "stored-*")
	}
	if err != nil {
		return nil, err
	}
	l := &Local{File: tmp, Name: name}
	var src io.Reader = rc
	if onRead != nil {
		src = &progressReader{r: rc, report: onRead}
	}
	if l.Size, err = io.Copy(tmp, src); err != nil {
		l.Close()
		return nil, fmt.Errorf("download stored file: %w", err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// progressReader reports the bytes read so far after every read.
type progressReader struct {
	r      io.Reader
	read   int64
	report func(int64)
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.read += int64(n)
	p.report(p.read)
	return n, err
}

// DialectError is a dialect stored with a job or a file that cannot be
// used (a list stored by hand, a rule that changed): the file cannot be
// read as declared, and retrying will not change that.
type DialectError struct{ Message string }

func (e *DialectError) Error() string { return e.Message }

// Dialect is how file f of job j is read: the job's null tokens and the
// CSV dialect its uploader gave (nil fields are sniffed).
func Dialect(j *models.Job, f *models.File) (analysis.Dialect, error) {
	d, err := analysis.WithNullTokens(j.NullTokenList())
	if err != nil { // checked when the job was created
		return d, &DialectError{"the job's null_tokens cannot be used: " + err.Error()}
	}
	if w := f.CSVDialectWords(); w != nil {
		// The words were parsed when the file was uploaded; they are
		// stored as given, so they are parsed again here.
		if d.CSV, err = readers.ParseCSVOptions(w.Delimiter, w.Quote, w.Header, w.Encoding); err != nil {
			return d, &DialectError{"the file's CSV dialect cannot be used: " + err.Error()}
		}
	}
	return d, nil
}

// Open opens l's rows from the first, read in dialect d within the
// reader's memory budget (0: the readers' default). A JSON file is read
// for its columns first (not OnePass): a column whose key first appears
// late in the file is one the analysis found, and a step on it must find
// it from the first row. Every call reads the
// file again from its start (independent readers over one file: a
// ReaderAt is safe for that), so steps that need a second pass can use
// it as their Reopen. The error of a file that cannot be read as records
// matches analysis.ErrBadInput.
func (l *Local) Open(d analysis.Dialect, memoryBudget int64) (records.Reader, error) {
	// A section of the file's true size: Parquet finds its footer from
	// the end.
	return openRecords(io.NewSectionReader(l.File, 0, l.Size), l.Name, d, memoryBudget)
}

// openRecords opens f's rows as Local.Open says.
func openRecords(f readers.File, name string, d analysis.Dialect, memoryBudget int64) (records.Reader, error) {
	r, err := readers.Open(f, name, readers.Options{CSV: d.CSV, MemoryBudget: memoryBudget})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", analysis.ErrBadInput, err)
	}
	return r, nil
}

// Remote is a stored file read where it is stored, by ranges
// (blob.Store.OpenRange), never copied: for readers that need only part
// of it, such as a preview's first rows (the head of a CSV file, the
// footer and first row group of a Parquet one), which a Download would
// make wait for the whole file. Close ends its reads.
type Remote struct {
	// Name is the file's name (its extension tells the format).
	Name string
	// Size is its size in bytes, as stored.
	Size int64

	ctx   context.Context
	blobs blob.Store
	key   string
	mu    sync.Mutex
	files []*connectors.RemoteFile
}

// OpenRemote is the stored file at key, named name, read by ranges with
// ctx. blob.ErrNotFound is kept in the error's chain.
func OpenRemote(ctx context.Context, blobs blob.Store, key, name string) (*Remote, error) {
	info, err := blobs.Stat(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("open stored file: %w", err)
	}
	return &Remote{Name: name, Size: info.Size, ctx: ctx, blobs: blobs, key: key}, nil
}

// Open opens the file's rows as Local.Open does, each call over a stream
// of its own (one ranged read for a CSV file read in order).
func (r *Remote) Open(d analysis.Dialect, memoryBudget int64) (records.Reader, error) {
	f := connectors.NewRemoteFile(r.ctx, blobRanges{r.blobs}, r.key, r.Size)
	r.mu.Lock()
	r.files = append(r.files, f)
	r.mu.Unlock()
	return openRecords(f, r.Name, d, memoryBudget)
}

// BytesRead is the number of bytes the reads of Open moved from the
// store so far.
func (r *Remote) BytesRead() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, f := range r.files {
		n += f.BytesRead()
	}
	return n
}

// Close ends every read Open started.
func (r *Remote) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for _, f := range r.files {
		errs = append(errs, f.Close())
	}
	r.files = nil
	return errors.Join(errs...)
}

// Source is a stored file opened for its rows: a Local copy or a Remote.
type Source interface {
	Open(d analysis.Dialect, memoryBudget int64) (records.Reader, error)
	Close() error
}

// OpenHead opens the stored file at key, named name, for a reader of its
// first rows: where it is stored (Remote) when its format is read from the
// start (CSV) or by parts (Parquet), and copied to dir first (Download)
// when it is JSON, which the readers read whole for its columns before
// they give a row (by ranges, that would move more than the file).
func OpenHead(ctx context.Context, blobs blob.Store, dir *spool.Dir, key, name string) (Source, error) {
	remote, err := OpenRemote(ctx, blobs, key, name)
	if err != nil {
		return nil, err
	}
	f := connectors.NewRemoteFile(ctx, blobRanges{blobs}, key, remote.Size)
	format, err := readers.DetectFormat(f, name)
	f.Close()
	if err != nil || (format != readers.FormatJSON && format != readers.FormatJSONL) {
		return remote, nil // a format error is the rows' to tell, as for a copy
	}
	return Download(ctx, blobs, dir, key, name, nil)
}

// blobRanges reads a blob store's objects by ranges, for RemoteFile.
type blobRanges struct{ blobs blob.Store }

func (b blobRanges) Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	return b.blobs.OpenRange(ctx, key, offset, length)
}
