// Package storedfile reads a file DQS stored (an upload, or a corrected
// copy) back the way its analysis reads it: copied from blob storage to a
// local spool file (Parquet needs random access, and a local copy reads
// at disk speed), and opened as records with the dialect its job and its
// upload declared (null tokens, CSV options). The analysis, the
// corrections and the suggestions all go through it, so the rows a fix is
// computed on are the rows the profile counted.
package storedfile

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/blob"
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
	sr := io.NewSectionReader(l.File, 0, l.Size)
	r, err := readers.Open(sr, l.Name, readers.Options{CSV: d.CSV, MemoryBudget: memoryBudget})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", analysis.ErrBadInput, err)
	}
	return r, nil
}
