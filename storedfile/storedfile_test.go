package storedfile_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"testing"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/local"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/internal/emulators"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
	"github.com/dqs/dqs/storedfile"
)

// stores are the blob drivers DQS stores files in, each real: the local
// filesystem, an S3-compatible server and a GCS emulator in process,
// driven by the official SDKs.
func stores(t *testing.T) map[string]blob.Store {
	l, err := local.New(t.TempDir(), []byte("0123456789abcdef0123456789abcdef"), "http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]blob.Store{
		"local": l,
		"s3":    emulators.StartS3(t).Store(t, "files"),
		"gcs":   emulators.StartGCS(t, emulators.GCSOptions{}).Store(t, "files"),
	}
}

// file writes rows rows of three columns in format, Parquet in row groups
// of 2,000 rows.
func file(t *testing.T, format records.Format, rows int) []byte {
	var buf bytes.Buffer
	w, err := corrections.NewWriter(format, &buf, corrections.WriterOptions{RowGroupRows: 2_000})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader([]string{"id", "name", "note"}); err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rec := &records.Record{Values: []string{fmt.Sprint(i), fmt.Sprintf("name %d", i%977), "a note of some length, row " + fmt.Sprint(i)}, Null: make([]bool, 3)}
		if i%10 == 3 {
			rec.Values[2], rec.Null[2] = "", true
		}
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// head reads the first n records of r.
func head(t *testing.T, r records.Reader, n int) [][]string {
	t.Helper()
	defer r.Close()
	var out [][]string
	for len(out) < n {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(rec.Values))
		for i, v := range rec.Values {
			if rec.Null[i] {
				v = "<null>"
			}
			row[i] = v
		}
		out = append(out, row)
	}
	return out
}

// TestRemoteReadsWhatADownloadReads: on every driver and format, the
// first rows of a stored file read where it is stored are those of a
// downloaded copy, and reading them moves a small part of a large CSV or
// Parquet file (a JSON array is read whole for its columns first).
func TestRemoteReadsWhatADownloadReads(t *testing.T) {
	ctx := context.Background()
	const rows, want = 120_000, 100
	contents := map[records.Format][]byte{}
	for _, f := range []records.Format{readers.FormatCSV, readers.FormatJSONL, readers.FormatJSON, readers.FormatParquet} {
		contents[f] = file(t, f, rows)
	}
	for name, store := range stores(t) {
		for format, content := range contents {
			t.Run(name+"/"+string(format), func(t *testing.T) {
				key, fileName := "org/"+string(format), "data."+string(format)
				if _, err := store.Put(ctx, key, bytes.NewReader(content), "application/octet-stream"); err != nil {
					t.Fatal(err)
				}
				local, err := storedfile.Download(ctx, store, nil, key, fileName, nil)
				if err != nil {
					t.Fatal(err)
				}
				defer local.Close()
				lr, err := local.Open(analysis.Dialect{}, 0)
				if err != nil {
					t.Fatal(err)
				}
				downloaded := head(t, lr, want)

				remote, err := storedfile.OpenRemote(ctx, store, key, fileName)
				if err != nil {
					t.Fatal(err)
				}
				defer remote.Close()
				if remote.Size != int64(len(content)) {
					t.Fatalf("size %d, want %d", remote.Size, len(content))
				}
				rr, err := remote.Open(analysis.Dialect{}, 0)
				if err != nil {
					t.Fatal(err)
				}
				got := head(t, rr, want)
				if len(got) != want || !reflect.DeepEqual(got, downloaded) {
					t.Fatalf("remote rows %d (first %v), downloaded %d (first %v)", len(got), got[:min(2, len(got))], len(downloaded), downloaded[:min(2, len(downloaded))])
				}
				json := format == readers.FormatJSON || format == readers.FormatJSONL
				if !json && remote.BytesRead() > remote.Size/5 {
					t.Errorf("reading %d rows moved %d of %d bytes", want, remote.BytesRead(), remote.Size)
				}
				// OpenHead reads CSV and Parquet by ranges; JSON, which the
				// readers read whole for its columns first, from a copy.
				src, err := storedfile.OpenHead(ctx, store, nil, key, fileName)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				if _, isCopy := src.(*storedfile.Local); isCopy != json {
					t.Errorf("OpenHead gave %T for %s", src, format)
				}
				hr, err := src.Open(analysis.Dialect{}, 0)
				if err != nil {
					t.Fatal(err)
				}
				if got := head(t, hr, want); !reflect.DeepEqual(got, downloaded) {
					t.Errorf("OpenHead's rows differ from the download's")
				}
				// A second reader starts from the first row again.
				again, err := remote.Open(analysis.Dialect{}, 0)
				if err != nil {
					t.Fatal(err)
				}
				if first := head(t, again, 1); !reflect.DeepEqual(first, downloaded[:1]) {
					t.Errorf("second reader's first row %v, want %v", first, downloaded[:1])
				}
			})
		}
		t.Run(name+"/missing", func(t *testing.T) {
			if _, err := storedfile.OpenRemote(ctx, store, "org/none.csv", "none.csv"); !errors.Is(err, blob.ErrNotFound) {
				t.Errorf("a missing file: %v, want blob.ErrNotFound in the chain", err)
			}
		})
	}
}
