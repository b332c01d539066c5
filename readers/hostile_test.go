package readers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/dqs/dqs/columnar"
	"github.com/dqs/dqs/internal/hostile"
	"github.com/dqs/dqs/internal/memtest"
)

// The files an attacker would upload, each read with a budget in a process
// of its own (internal/memtest), through Next and through FillBatch: the
// reader must refuse or read it with a clear outcome, and the process's
// memory must stay within the budget and some slack. Before
// the budget and the checks behind it, the first of them ended the process
// (an out-of-memory error no recover catches), and the bombs took from 4
// to 16 GiB from files of a few KB.

const hostileBudget = 256 << 20

// A child process may take its budget and 128 MiB more: garbage the
// collector has not reclaimed yet, the file itself and the test binary. Its
// soft memory limit is half way, as the service sets one (config
// DQS_MEMORY_BUDGET).
const hostileSlack = 128 << 20

type hostileCase struct {
	name string
	file func() []byte
	ext  string
	want string // in the outcome of both reads: an error's text, or "rows N"
	kind error  // the error's sentinel (nil when rows are read)
}

var hostileCases = []hostileCase{
	{"lying_num_children", func() []byte { return hostile.LyingNumChildren(1<<31 - 1) }, "parquet",
		"declares 2147483647 children, but only 1 elements follow it", ErrMalformed},
	{"huge_footer", func() []byte {
		return hostile.ParquetFile{Rows: 0, KeyValues: [][2]string{{"k", strings.Repeat("v", 20<<20)}}}.Bytes()
	}, "parquet", "the footer holds 20.0 MiB of metadata, more than the 16 MiB limit", ErrUnsupported},
	{"wide_parquet", func() []byte { return hostile.WideParquet(9_999) }, "parquet", "rows 1", nil},
	{"arrow_schema_children", func() []byte { return hostile.ArrowSchemaChildren(1 << 30) }, "parquet",
		"rows 1", nil},
	{"lying_value_count", func() []byte { return hostile.LyingValueCount(1<<31 - 1) }, "parquet",
		"parquet: row", ErrMalformed},
	{"lying_page_size", func() []byte { return hostile.LyingPageSize(16, 256<<20) }, "parquet",
		"holds 256 MiB uncompressed, more than the 64 MiB limit", ErrUnsupported},
	{"lying_page_sizes_summed", func() []byte { return hostile.LyingPageSize(16, 14<<20) }, "parquet",
		"row group 1 holds pages that need more than", ErrUnsupported},
	{"compression_bomb", func() []byte { return hostile.CompressionBomb(16, 250, 64<<10) }, "parquet",
		"row group 1 holds pages that need more than", ErrUnsupported},
	{"zstd_lying_frame", func() []byte { return hostile.LyingCodec(hostile.CodecZstd, hostile.ZstdLyingFrame(32<<30)) }, "parquet",
		"holds more than its page declares", ErrMalformed},
	{"snappy_lying_length", func() []byte { return hostile.LyingCodec(hostile.CodecSnappy, hostile.SnappyLyingLength(1<<32-1)) }, "parquet",
		"holds more than its page declares", ErrMalformed},
	{"dictionary_bomb", func() []byte { return hostile.DictionaryBomb(4, 100_000, 1<<20-100) }, "parquet",
		"needs more memory at once than its 256 MiB budget", ErrUnsupported},
	// The second review's: each took from 1 to 48 GiB, most of them from
	// files under a few KB.
	{"plain_list", func() []byte { return hostile.PlainList(200_000_000) }, "parquet",
		"the value is larger than the 1 MiB limit", ErrUnsupported},
	{"plain_dictionary_bomb", func() []byte { return hostile.PlainDictionaryBomb(2048, 3_000_000) }, "parquet",
		"the value is larger than the 1 MiB limit", ErrUnsupported},
	{"decimal_scale", func() []byte { return hostile.DecimalScale(1<<31-1, 1) }, "parquet",
		"is a decimal of precision 2147483647", ErrUnsupported},
	{"struct_field_name", func() []byte { return hostile.StructFieldName(100_000, 3000) }, "parquet",
		"a value is larger than the 1 MiB limit", ErrUnsupported},
	{"dictionary_count_claim", func() []byte { return hostile.DictionaryCountClaim(1<<31-1, 1<<31-2, 1) }, "parquet",
		"the dictionary page declares 2147483647 values", ErrMalformed},
	{"long_path", func() []byte { return hostile.LongPath(60, 60_000, 300) }, "parquet",
		"path is too long", ErrUnsupported},
	{"staggered_pages", func() []byte { return hostile.StaggeredPages(200, 16, 1_000_000) }, "parquet",
		"rows 3200", nil},
	{"big_page_headers", func() []byte { return hostile.BigPageHeaders(500, 3_000_000, 2000) }, "parquet",
		"header is longer than the 256 KiB limit", ErrUnsupported},
	{"many_row_groups", func() []byte { return hostile.ManyRowGroups(129_000) }, "parquet",
		"more than the 65536 its metadata may take in memory", ErrUnsupported},
	{"wide_csv", func() []byte { return hostile.WideCSV(10_000, 200) }, "csv",
		"rows 200", nil},
	{"many_column_csv", func() []byte { return hostile.WideCSV(20_000, 1) }, "csv",
		"more than 10000 fields in one row", ErrUnsupported},
	{"million_column_csv", func() []byte { return hostile.WideCSV(1_000_000, 1) }, "csv",
		"the first line is longer than 4 MiB", ErrUnsupported},
	{"million_short_columns", func() []byte {
		line := strings.Repeat("a,", 999_999) + "a\n"
		return []byte(line + line)
	}, "csv", "the file has 1000000 columns, more than the limit of 10000", ErrUnsupported},
	{"endless_first_line", func() []byte { return bytes.Repeat([]byte("a,"), 10<<20) }, "csv",
		"the first line is longer than 4 MiB", ErrUnsupported},
	{"deep_json", func() []byte { return hostile.DeepJSON(1_000_000) }, "json",
		"exceeded max depth", ErrMalformed},
	{"long_json_key", func() []byte { return []byte(`[{"` + strings.Repeat("k", 1<<20) + `": 1}]`) }, "json",
		"limit for a column name", ErrUnsupported},
	{"huge_json_row", func() []byte {
		return []byte(`[{"a": "` + strings.Repeat("x", 1<<20-10) + `", "b": [` + strings.Repeat(`"`+strings.Repeat("y", 1000)+`",`, 30_000) + `0]}]`)
	}, "json", "a single row is larger than the 16 MiB limit", ErrUnsupported},
}

// hostileOutcome reads data through Next, or through FillBatch when
// batches is true.
func hostileOutcome(data []byte, name string, budget int64, batches bool) string {
	r, err := Open(bytes.NewReader(data), name, Options{MemoryBudget: budget})
	if err != nil {
		return describeOutcome(0, err)
	}
	defer r.Close()
	return describeOutcome(countRows(r, batches, nil))
}

// countRows reads r to its end or first error, through Next, or through
// FillBatch when batches is true, calling each (when set) after every read,
// and returns the rows read and the error that ended it (io.EOF at the end).
func countRows(r Reader, batches bool, each func()) (int, error) {
	b := columnar.NewBatch(len(r.Columns()))
	rows := 0
	for {
		var err error
		if batches {
			b.Reset()
			if err = FillBatch(r, b); err == nil {
				rows += b.Rows
			}
		} else if _, err = r.Next(); err == nil {
			rows++
		}
		if each != nil {
			each()
		}
		if err != nil {
			return rows, err
		}
	}
}

// hostileReads are the two ways of reading a file, each measured in a
// process of its own.
var hostileReads = map[string]bool{"next": false, "batches": true}

func describeOutcome(rows int, err error) string {
	if errors.Is(err, io.EOF) {
		return fmt.Sprintf("rows %d", rows)
	}
	kind := "no sentinel"
	switch {
	case errors.Is(err, ErrMalformed):
		kind = "malformed"
	case errors.Is(err, ErrUnsupported):
		kind = "unsupported"
	}
	return fmt.Sprintf("%s: %v", kind, err)
}

func TestMain(m *testing.M) {
	cases := memtest.Cases{}
	for _, c := range hostileCases {
		for read, batches := range hostileReads {
			cases[c.name+"/"+read] = func() string { return hostileOutcome(c.file(), "attack."+c.ext, hostileBudget, batches) }
		}
	}
	memtest.Main(cases)
	os.Exit(m.Run())
}

func TestHostileFiles(t *testing.T) {
	for _, c := range hostileCases {
		kind := "rows"
		switch c.kind {
		case ErrMalformed:
			kind = "malformed: "
		case ErrUnsupported:
			kind = "unsupported: "
		}
		for read := range hostileReads {
			t.Run(c.name+"/"+read, func(t *testing.T) {
				peak := uint64(hostileBudget + hostileSlack)
				res := memtest.Measure(t, c.name+"/"+read, hostileBudget+hostileSlack/2)
				t.Logf("peak %d MiB: %s", res.Peak>>20, res.Output)
				if !strings.HasPrefix(res.Output, kind) || !strings.Contains(res.Output, c.want) {
					t.Errorf("outcome %q, want %s… containing %q", res.Output, kind, c.want)
				}
				if res.Peak > peak {
					t.Errorf("the process took %d MiB, more than %d MiB", res.Peak>>20, peak>>20)
				}
			})
		}
	}
}
