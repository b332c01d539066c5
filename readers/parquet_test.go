package readers

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Files in parquet-testing/data that must fail, and why.
var parquetMustFail = map[string]struct {
	kind    error
	message string
}{
	// Deliberately corrupt (fixtures README).
	"datapage_v1-corrupt-checksum.parquet":           {ErrMalformed, "checksum mismatch"},
	"rle-dict-uncompressed-corrupt-checksum.parquet": {ErrMalformed, "checksum mismatch"},
	"nation.dict-malformed.parquet":                  {ErrMalformed, "runs past the end of the column chunk"},
	// Valid, but its 1 GiB string values exceed the memory limits.
	"large_string_map.brotli.parquet": {ErrUnsupported, "more than the 128 MiB limit"},
}

// Files in parquet-testing/bad_data that are valid after all: the file
// was added to reproduce an arrow-go crash on a legitimate all-zero column
// (dictionary indices with bit width 0), so readers must read it.
var badDataReadable = map[string]int{
	"ARROW-GH-43605.parquet": 21186,
}

func parquetFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".parquet") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no parquet files under %s (%v)", dir, err)
	}
	sort.Strings(files)
	return files
}

func TestParquetTestingData(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	for _, path := range parquetFiles(t, dir) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			res := readFileTimeout(t, path, timeLimit)
			if want, ok := parquetMustFail[name]; ok {
				if !errors.Is(res.err, want.kind) || !strings.Contains(res.err.Error(), want.message) {
					t.Fatalf("err = %v, want %v containing %q", res.err, want.kind, want.message)
				}
				return
			}
			if res.err != nil {
				t.Fatal(res.err)
			}
			if res.format != FormatParquet {
				t.Fatalf("format %s", res.format)
			}
			md := res.reader.(*parquetReader).pf.MetaData()
			want := int64(0)
			for rg := 0; rg < md.NumRowGroups(); rg++ {
				want += md.RowGroup(rg).NumRows()
			}
			if int64(len(res.rows)) != want {
				t.Fatalf("read %d rows, the row groups hold %d", len(res.rows), want)
			}
			if len(res.cols) == 0 {
				t.Fatal("no columns")
			}
			expect := strings.TrimSuffix(path, ".parquet") + "_expect.csv"
			if _, err := os.Stat(expect); err == nil {
				compareExpectCSV(t, expect, res)
			}
		})
	}
}

// compareExpectCSV compares rows with an *_expect.csv by position (its
// header names differ slightly); an empty expected cell is a null.
func compareExpectCSV(t *testing.T, path string, res readResult) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header, want := recs[0], recs[1:]
	if len(header) != len(res.cols) {
		t.Fatalf("%d columns, %s has %d", len(res.cols), filepath.Base(path), len(header))
	}
	if len(want) != len(res.rows) {
		t.Fatalf("%d rows, %s has %d", len(res.rows), filepath.Base(path), len(want))
	}
	bad := 0
	for i, row := range want {
		for j, w := range row {
			got := res.rows[i][j]
			if w == "" && (got == nullMark || got == "") {
				continue
			}
			if got != w {
				if bad++; bad <= 5 {
					t.Errorf("row %d column %s: got %q, want %q", i+1, res.cols[j], got, w)
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d values differ from %s", bad, filepath.Base(path))
	}
}

func TestParquetBadData(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/bad_data")
	for _, path := range parquetFiles(t, dir) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			res := readFileTimeout(t, path, timeLimit)
			if n, ok := badDataReadable[name]; ok {
				if res.err != nil || len(res.rows) != n {
					t.Fatalf("read %d rows, err %v; want %d rows", len(res.rows), res.err, n)
				}
				return
			}
			if res.err == nil {
				t.Fatalf("read %d rows without error; want an error", len(res.rows))
			}
			if !errors.Is(res.err, ErrMalformed) && !errors.Is(res.err, ErrUnsupported) {
				t.Fatalf("err = %v does not match ErrMalformed or ErrUnsupported", res.err)
			}
			t.Logf("rejected: %v", res.err)
		})
	}
}

func TestParquetShreddedVariantNeverCrashes(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/shredded_variant")
	read, failed := 0, 0
	for _, path := range parquetFiles(t, dir) {
		res := readFileTimeout(t, path, timeLimit)
		if res.err != nil {
			failed++
			if !errors.Is(res.err, ErrMalformed) && !errors.Is(res.err, ErrUnsupported) {
				t.Errorf("%s: err = %v does not match ErrMalformed or ErrUnsupported", filepath.Base(path), res.err)
			}
			continue
		}
		read++
	}
	t.Logf("%d files read, %d rejected", read, failed)
}

func TestParquetAllTypesPlain(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	res := readFileTimeout(t, filepath.Join(dir, "alltypes_plain.parquet"), timeLimit)
	if res.err != nil {
		t.Fatal(res.err)
	}
	wantCols := []string{"id", "bool_col", "tinyint_col", "smallint_col", "int_col", "bigint_col",
		"float_col", "double_col", "date_string_col", "string_col", "timestamp_col"}
	if !reflect.DeepEqual(res.cols, wantCols) {
		t.Fatalf("columns %q, want %q", res.cols, wantCols)
	}
	if len(res.rows) != 8 {
		t.Fatalf("%d rows, want 8", len(res.rows))
	}
	wantFirst := []string{"4", "true", "0", "0", "0", "0", "0", "0", "03/01/09", "0", "2009-03-01T00:00:00Z"}
	if !reflect.DeepEqual(res.rows[0], wantFirst) {
		t.Fatalf("first row %q, want %q", res.rows[0], wantFirst)
	}
	wantSecond := []string{"5", "false", "1", "1", "1", "10", "1.1", "10.1", "03/01/09", "1", "2009-03-01T00:01:00Z"}
	if !reflect.DeepEqual(res.rows[1], wantSecond) {
		t.Fatalf("second row %q, want %q", res.rows[1], wantSecond)
	}
	var ids []string
	for _, r := range res.rows {
		ids = append(ids, r[0])
	}
	if got := strings.Join(ids, ","); got != "4,5,6,7,2,3,0,1" {
		t.Fatalf("ids %s", got)
	}
}

func TestParquetNestedValues(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	cases := []struct {
		file string
		cols []string
		row  int
		want []string
	}{
		{"nested_lists.snappy.parquet", []string{"a", "b"}, 0, []string{`[[["a","b"],["c"]],[null,["d"]]]`, "1"}},
		{"nested_maps.snappy.parquet", []string{"a", "b", "c"}, 0, []string{`{"a":{"1":true,"2":false}}`, "1", "1"}},
		{"list_columns.parquet", []string{"int64_list", "utf8_list"}, 0, []string{"[1,2,3]", `["abc","efg","hij"]`}},
		{"nulls.snappy.parquet", []string{"b_struct.b_c_int"}, 0, []string{nullMark}},
		{"null_list.parquet", []string{"emptylist"}, 0, []string{"[]"}},
		{"int32_decimal.parquet", []string{"value"}, 23, []string{"24.00"}},
		{"byte_array_decimal.parquet", []string{"value"}, 1, []string{"2.00"}},
		{"int96_from_spark.parquet", []string{"a"}, 0, []string{"2024-01-01T20:34:56.123456Z"}},
		{"unknown-logical-type.parquet", []string{"column with known type", "column with unknown type"}, 0, []string{"known string 1", "unknown string 1"}},
		{"incorrect_map_schema.parquet", []string{"my_map.key_value.key", "my_map.key_value.value"}, 0, []string{`["parent","name"]`, `["another","report"]`}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			res := readFileTimeout(t, filepath.Join(dir, c.file), timeLimit)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if !reflect.DeepEqual(res.cols, c.cols) {
				t.Fatalf("columns %q, want %q", res.cols, c.cols)
			}
			if got := res.rows[c.row]; !reflect.DeepEqual(got, c.want) {
				t.Fatalf("row %d = %q, want %q", c.row, got, c.want)
			}
		})
	}
}

// TestParquetPlainReaderAgrees reads every flat file (no repeated fields)
// with both the Arrow path and the plain column path; they must agree.
func TestParquetPlainReaderAgrees(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	compared := 0
	for _, path := range parquetFiles(t, dir) {
		if _, bad := parquetMustFail[filepath.Base(path)]; bad {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := readParquetWith(data, false)
		if a.err != nil {
			t.Errorf("%s: %v", filepath.Base(path), a.err)
			continue
		}
		pr := a.reader.(*parquetReader)
		if pr.arrow == nil {
			continue // already read by the plain path
		}
		flat := true
		sc := pr.pf.MetaData().Schema
		for c := 0; c < sc.NumColumns(); c++ {
			flat = flat && sc.Column(c).MaxRepetitionLevel() == 0
		}
		if !flat {
			continue
		}
		p := readParquetWith(data, true)
		if p.err != nil {
			t.Errorf("%s: plain reader: %v", filepath.Base(path), p.err)
			continue
		}
		compared++
		if !reflect.DeepEqual(a.cols, p.cols) {
			t.Errorf("%s: columns %q vs %q", filepath.Base(path), a.cols, p.cols)
			continue
		}
		if len(a.rows) != len(p.rows) {
			t.Errorf("%s: %d vs %d rows", filepath.Base(path), len(a.rows), len(p.rows))
			continue
		}
	rows:
		for i := range a.rows {
			for j := range a.rows[i] {
				if a.rows[i][j] != p.rows[i][j] {
					t.Errorf("%s: row %d column %s: arrow %q, plain %q", filepath.Base(path), i+1, a.cols[j], a.rows[i][j], p.rows[i][j])
					break rows
				}
			}
		}
	}
	if compared < 10 {
		t.Fatalf("only %d files compared", compared)
	}
}

func readParquetWith(data []byte, plain bool) readResult {
	var res readResult
	r, err := openParquetWith(bytes.NewReader(data), Options{}.withDefaults(), plain)
	if err != nil {
		res.err = err
		return res
	}
	res.reader = r
	res.cols = r.Columns()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.err = err
			return res
		}
		row := make([]string, len(rec.Values))
		for i, v := range rec.Values {
			if rec.Null[i] {
				v = nullMark
			}
			row[i] = v
		}
		res.rows = append(res.rows, row)
	}
}

func TestParquetTruncated(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	data, err := os.ReadFile(filepath.Join(dir, "alltypes_plain.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 3, 8, 100, len(data) / 2, len(data) - 1} {
		res := readBytes(data[:n], "x.parquet", Options{})
		if !errors.Is(res.err, ErrMalformed) {
			t.Errorf("first %d bytes: err = %v, want ErrMalformed", n, res.err)
		}
	}
}

func TestParquetLimits(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	f := filepath.Join(dir, "nested_structs.rust.parquet")
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	res := readBytes(data, "x.parquet", Options{MaxColumns: 100})
	if !errors.Is(res.err, ErrUnsupported) || !strings.Contains(res.err.Error(), "more than the limit of 100") {
		t.Errorf("MaxColumns: err = %v", res.err)
	}
	data, err = os.ReadFile(filepath.Join(dir, "binary_truncated_min_max.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	res = readBytes(data, "x.parquet", Options{MaxFieldBytes: 5})
	if !errors.Is(res.err, ErrUnsupported) || !strings.Contains(res.err.Error(), "row 1") {
		t.Errorf("MaxFieldBytes: err = %v", res.err)
	}
}

// TestParquetCorruptedBytes flips random bytes in real files: every read
// must end in rows or an error, never a panic or a hang.
func TestParquetCorruptedBytes(t *testing.T) {
	dir := fixturesDir(t, "parquet-testing/data")
	files := []string{"alltypes_plain.parquet", "nested_structs.rust.parquet", "nullable.impala.parquet",
		"datapage_v2.snappy.parquet", "delta_byte_array.parquet", "nested_maps.snappy.parquet"}
	rounds := 60
	if testing.Short() {
		rounds = 10
	}
	if n, err := strconv.Atoi(os.Getenv("DQS_PARQUET_FUZZ_ROUNDS")); err == nil && n > 0 {
		rounds = n
	}
	rng := rand.New(rand.NewSource(1))
	for _, name := range files {
		orig, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		outcomes := map[string]int{}
		for round := 0; round < rounds; round++ {
			data := append([]byte(nil), orig...)
			for k := 0; k < 1+rng.Intn(8); k++ {
				// Mostly hit the footer, where offsets and sizes live.
				pos := rng.Intn(len(data) - 8)
				if rng.Intn(2) == 0 {
					footer := int(uint32(data[len(data)-8]) | uint32(data[len(data)-7])<<8 | uint32(data[len(data)-6])<<16)
					if footer > 0 && footer < len(data)-8 {
						pos = len(data) - 8 - 1 - rng.Intn(footer)
					}
				}
				data[pos] = byte(rng.Intn(256))
			}
			done := make(chan readResult, 1)
			go func() {
				defer func() {
					if p := recover(); p != nil {
						done <- readResult{err: fmt.Errorf("PANIC: %v", p)}
					}
				}()
				done <- readBytes(data, name, Options{})
			}()
			select {
			case res := <-done:
				switch {
				case res.err != nil && strings.HasPrefix(res.err.Error(), "PANIC"):
					t.Fatalf("%s round %d: %v", name, round, res.err)
				case res.err == nil:
					outcomes["read"]++
				case errors.Is(res.err, ErrMalformed) || errors.Is(res.err, ErrUnsupported):
					outcomes["rejected"]++
				default:
					t.Errorf("%s round %d: error without a sentinel: %v", name, round, res.err)
				}
			case <-time.After(timeLimit):
				t.Fatalf("%s round %d: hang", name, round)
			}
		}
		t.Logf("%s: %v", name, outcomes)
	}
}
