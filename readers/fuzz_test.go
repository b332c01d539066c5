package readers

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/metadata"

	"github.com/dqs/dqs/internal/hostile"
)

// Fuzz targets of the readers of untrusted bytes. `make fuzz` runs each for
// a set time under a hard memory limit, so that an input that makes a reader
// allocate without bound crashes the fuzzer instead of passing; `go test`
// replays the seeds and every crasher kept in testdata/fuzz.
//
// Inputs are read with a small budget (fuzzBudget), as a worker reads
// uploads with a budget of its own.

const fuzzBudget = 32 << 20

// seedFiles adds the fixture files under dir (relative to the shared
// fixtures) whose name ends in ext and that are at most maxBytes long.
func seedFiles(f *testing.F, dir, ext string, maxBytes int64) {
	root := fixturesDir(f, dir)
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || filepath.Ext(p) != ext || info.Size() > maxBytes {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(data)
		}
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
}

// checkSentinel fails t when err is an error without ErrMalformed or
// ErrUnsupported: every problem of a file must say which it is.
func checkSentinel(t *testing.T, name string, err error) {
	t.Helper()
	if err != nil && !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnsupported) {
		t.Fatalf("%s: error without a sentinel: %v", name, err)
	}
}

// FuzzParquet: any bytes end in rows or an error with a sentinel, within
// the budget, and NextBatch (the direct path, which hands over to Arrow on
// anything it does not decode) gives exactly the rows and the error Next
// (Arrow) gives: the same rows, or both refuse alike.
func FuzzParquet(f *testing.F) {
	seedFiles(f, "parquet-testing/data", ".parquet", 32<<10)
	seedFiles(f, "parquet-testing/bad_data", ".parquet", 32<<10)
	for _, data := range [][]byte{
		hostile.LyingNumChildren(1<<31 - 1), hostile.ArrowSchemaChildren(1 << 30), hostile.LyingValueCount(1 << 30),
		hostile.LyingPageSize(4, 1<<30), hostile.CompressionBomb(3, 100, 1<<10), hostile.DictionaryBomb(2, 1000, 1000),
		hostile.LyingCodec(hostile.CodecZstd, hostile.ZstdLyingFrame(1<<40)), hostile.LyingCodec(hostile.CodecSnappy, hostile.SnappyLyingLength(1<<31)),
		hostile.SchemaTree([]int32{2, 1, 0, 0}), hostile.WideParquet(20),
	} {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := Options{MemoryBudget: fuzzBudget}
		want := readBytes(data, "f.parquet", opt)
		checkSentinel(t, "Next", want.err)
		got := readBatches(bytes.NewReader(data), "f.parquet", opt)
		if !sameResult(got, want) {
			t.Fatalf("NextBatch:\n got %s\nwant %s (Next)", describeResult(got), describeResult(want))
		}
	})
}

// FuzzParquetFooter: the footer check never panics, its output is a
// footer it leaves as it is, and arrow-go parses that output without a
// panic escaping (readFooter guards the parse).
func FuzzParquetFooter(f *testing.F) {
	for _, data := range [][]byte{hostile.LyingNumChildren(5), hostile.ArrowSchemaChildren(3), hostile.SchemaTree([]int32{2, 1, 0, 0}), hostile.WideParquet(3)} {
		n := len(data) - 8
		size := int(uint32(data[n]) | uint32(data[n+1])<<8 | uint32(data[n+2])<<16 | uint32(data[n+3])<<24)
		f.Add(data[n-size : n])
	}
	f.Fuzz(func(t *testing.T, meta []byte) {
		clean, chunks, err := cleanFooter(meta)
		if err != nil {
			return
		}
		again, chunksAgain, err := cleanFooter(clean)
		if err != nil || !bytes.Equal(again, clean) || chunksAgain != chunks {
			t.Fatalf("a clean footer changed when cleaned again (%v)", err)
		}
		_ = guard("footer", func() error {
			_, err := metadata.NewFileMetaData(clean, nil)
			return err
		})
	})
}
