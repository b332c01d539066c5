package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/local"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/spool"
	"go.temporal.io/sdk/testsuite"
)

// deletedWhileOpening is the real local store, except that opening an
// object first runs onOpen: a user's DELETE /jobs/{id}/files landing
// between the activity reading the file row and opening its object.
type deletedWhileOpening struct {
	blob.Store
	onOpen func(key string)
}

func (d deletedWhileOpening) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	if d.onOpen != nil {
		d.onOpen(key)
	}
	return d.Store.Open(ctx, key)
}

func storedFile(t *testing.T, f *fixture, store blob.Store) (*models.Job, *models.File) {
	return storedCSV(t, f, store, "a,b\n1,2\n", nil)
}

// storedCSV stores a job with one file p.csv of content, uploaded with
// the CSV dialect csvDialect (as stored: nil when sniffed).
func storedCSV(t *testing.T, f *fixture, store blob.Store, content string, csvDialect *string) (*models.Job, *models.File) {
	t.Helper()
	ctx := context.Background()
	j := &models.Job{RetentionMode: "short_term", RetentionDays: 3, Filenames: `["p.csv"]`, CreatedAt: time.Now().UTC()}
	if err := f.stores.Jobs.Create(ctx, f.org.ID, j); err != nil {
		t.Fatal(err)
	}
	key, _ := blob.OrgKey(f.org.ID, "uploads", j.ID, "x")
	if _, err := store.Put(ctx, key, bytes.NewBufferString(content), "text/csv"); err != nil {
		t.Fatal(err)
	}
	file := &models.File{JobID: j.ID, FileName: "p.csv", StorageKey: key, SizeBytes: int64(len(content)), CSVDialect: csvDialect, CreatedAt: time.Now().UTC()}
	if err := f.stores.Files.Create(ctx, f.org.ID, file); err != nil {
		t.Fatal(err)
	}
	return j, file
}

// TestAnalyzeFileWhoseRawFileWasDeleted: a file whose raw file is deleted
// before or during its analysis is marked failed with a clear message,
// not retried; an object missing while its key is still recorded is a
// storage fault and is retried.
func TestAnalyzeFileWhoseRawFileWasDeleted(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name       string
		clearKey   bool
		wantFailed bool
	}{
		{"deleted by a user meanwhile", true, true},
		{"missing object, key still recorded", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			disk := localStore(t)
			j, file := storedFile(t, f, disk)
			f.acts.Blobs = deletedWhileOpening{Store: disk, onOpen: func(key string) {
				disk.Delete(ctx, key)
				if tc.clearKey {
					if _, err := f.stores.Jobs.MarkFilesDeleted(ctx, f.org.ID, j.ID, []string{key}, time.Now()); err != nil {
						t.Errorf("mark: %v", err)
					}
				}
			}}

			err := f.acts.AnalyzeFile(ctx, FileRef{OrgID: f.org.ID, JobID: j.ID, FileID: file.ID, Total: 1})

			got, gerr := f.stores.Files.Get(ctx, f.org.ID, file.ID)
			if gerr != nil {
				t.Fatal(gerr)
			}
			if tc.wantFailed {
				if err != nil || got.Status != models.FileFailed || got.Error != msgRawFileDeleted {
					t.Fatalf("AnalyzeFile = %v; file = %s %q, want failed with %q", err, got.Status, got.Error, msgRawFileDeleted)
				}
				return
			}
			if err == nil || got.Status == models.FileFailed {
				t.Fatalf("AnalyzeFile = %v, file %s; want a retryable error and the file not failed", err, got.Status)
			}
		})
	}
}

// spoolWatch is the real local store, except that the first read of an
// object lists the spool: the download is then writing its copy there.
type spoolWatch struct {
	blob.Store
	dir  string
	seen *[]string
}

func (s spoolWatch) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	rc, err := s.Store.Open(ctx, key)
	if err != nil {
		return nil, err
	}
	return &listOnRead{ReadCloser: rc, w: s}, nil
}

type listOnRead struct {
	io.ReadCloser
	w    spoolWatch
	done bool
}

func (l *listOnRead) Read(p []byte) (int, error) {
	if !l.done {
		l.done = true
		entries, _ := os.ReadDir(l.w.dir)
		for _, e := range entries {
			*l.w.seen = append(*l.w.seen, e.Name())
		}
	}
	return l.ReadCloser.Read(p)
}

// The stored file is downloaded into the process's spool directory, which
// the next process sweeps if this one crashes, and removed once analysed.
func TestAnalyzeFileDownloadsIntoTheSpool(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	disk, sp := localStore(t), openSpool(t, f)
	j, file := storedFile(t, f, disk)
	var during []string
	f.acts.Blobs, f.acts.Spool = spoolWatch{Store: disk, dir: sp.Path(), seen: &during}, sp
	// In an activity's context, which the download heartbeats through.
	env := new(testsuite.WorkflowTestSuite).NewTestActivityEnvironment()
	env.RegisterActivity(f.acts)
	if _, err := env.ExecuteActivity(f.acts.AnalyzeFile, FileRef{OrgID: f.org.ID, JobID: j.ID, FileID: file.ID, Total: 1}); err != nil {
		t.Fatal(err)
	}
	if len(during) != 1 || !strings.HasPrefix(during[0], "stored-") {
		t.Fatalf("the spool during the download held %q: want one stored-* file", during)
	}
	if entries, _ := os.ReadDir(sp.Path()); len(entries) != 0 {
		t.Fatalf("%d files left in the spool", len(entries))
	}
	got, _ := f.stores.Files.Get(ctx, f.org.ID, file.ID)
	if got.Status != models.FileCompleted {
		t.Fatalf("file %s %q", got.Status, got.Error)
	}
}

// TestAnalyzeFileReadsTheFilesCSVDialect: the dialect stored with a file
// is the one the analysis reads it in, and the stored profile says which
// was read; words that no longer parse fail the file, not the job.
func TestAnalyzeFileReadsTheFilesCSVDialect(t *testing.T) {
	const content = "id;city\n1;Paris\n2;Rome\n"
	for _, tc := range []struct {
		name    string
		stored  *string
		columns int
		csv     string // the profile's csv, as JSON
		failed  string // the file's error, when it fails
	}{
		{"sniffed", nil, 2, `{"delimiter":";","quote":"\"","header_line":1,"encoding":"utf-8"}`, ""},
		{"given", models.EncodeCSVDialect(&models.CSVDialect{Delimiter: "comma", Header: "none"}), 1,
			`{"delimiter":",","quote":"\"","header_line":null,"encoding":"utf-8"}`, ""},
		{"unusable words", models.EncodeCSVDialect(&models.CSVDialect{Delimiter: "ab"}), 0, "", "the file's CSV dialect cannot be used: the delimiter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t)
			disk, sp := localStore(t), openSpool(t, f)
			f.acts.Blobs, f.acts.Spool = disk, sp
			j, file := storedCSV(t, f, disk, content, tc.stored)
			env := new(testsuite.WorkflowTestSuite).NewTestActivityEnvironment()
			env.RegisterActivity(f.acts)
			if _, err := env.ExecuteActivity(f.acts.AnalyzeFile, FileRef{OrgID: f.org.ID, JobID: j.ID, FileID: file.ID, Total: 1}); err != nil {
				t.Fatal(err)
			}
			got, err := f.stores.Files.Get(ctx, f.org.ID, file.ID)
			if err != nil {
				t.Fatal(err)
			}
			if tc.failed != "" {
				if got.Status != models.FileFailed || !strings.HasPrefix(got.Error, tc.failed) {
					t.Fatalf("file %s %q, want failed with %q", got.Status, got.Error, tc.failed)
				}
				return
			}
			var prof struct {
				CSV json.RawMessage `json:"csv"`
			}
			if err := json.Unmarshal([]byte(got.Profile), &prof); err != nil {
				t.Fatal(err)
			}
			if got.Status != models.FileCompleted || got.ColumnCount != tc.columns || string(prof.CSV) != tc.csv {
				t.Errorf("file %s %q, %d columns, csv %s; want completed, %d columns, csv %s", got.Status, got.Error, got.ColumnCount, prof.CSV, tc.columns, tc.csv)
			}
		})
	}
}

// localStore is a blob store in a temporary directory.
func localStore(t *testing.T) *local.Store {
	t.Helper()
	disk, err := local.New(t.TempDir(), bytes.Repeat([]byte("k"), 32), "http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	return disk
}

// openSpool is a spool in a temporary directory, closed with the test.
func openSpool(t *testing.T, f *fixture) *spool.Dir {
	t.Helper()
	sp, err := spool.Open(t.TempDir(), f.acts.Logger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	return sp
}
