package readers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dqs/dqs/internal/hostile"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"
)

func TestCSVSpectrum(t *testing.T) {
	dir := fixturesDir(t, "csv-spectrum")
	files, err := filepath.Glob(filepath.Join(dir, "csvs", "*.csv"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no csv-spectrum files in %s (%v)", dir, err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".csv")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "json", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var want []map[string]string
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			res := readFileTimeout(t, path, timeLimit)
			if res.err != nil {
				t.Fatal(res.err)
			}
			got := []map[string]string{}
			for _, row := range res.rows {
				m := map[string]string{}
				for i, c := range res.cols {
					if row[i] == nullMark {
						t.Fatalf("column %s is null; CSV cells are never null here", c)
					}
					m[c] = row[i]
				}
				got = append(got, m)
			}
			if len(want) == 0 {
				want = []map[string]string{}
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("rows differ\n got %q\nwant %q", got, want)
			}
		})
	}
}

func utf16LE(s string, bom bool) []byte {
	var b []byte
	if bom {
		b = append(b, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return b
}

func utf16BE(s string) []byte {
	b := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return b
}

func TestCSVSniffing(t *testing.T) {
	N := nullMark
	cases := []struct {
		name    string
		data    []byte
		dialect CSVDialect
		cols    []string
		rows    [][]string
	}{
		{"comma", []byte("a,b,c\nx,1,2\ny,3,4\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b", "c"}, [][]string{{"x", "1", "2"}, {"y", "3", "4"}}},
		{"semicolon with decimal commas", []byte("name;price;qty\nApple;1,50;3\nPear;2,25;10\n"),
			CSVDialect{';', '"', true, EncodingUTF8, 0},
			[]string{"name", "price", "qty"}, [][]string{{"Apple", "1,50", "3"}, {"Pear", "2,25", "10"}}},
		{"tab with commas in text", []byte("id\tnote\n1\thello, world\n2\tone, two, three\n"),
			CSVDialect{'\t', '"', true, EncodingUTF8, 0},
			[]string{"id", "note"}, [][]string{{"1", "hello, world"}, {"2", "one, two, three"}}},
		{"pipe", []byte("a|b|c\n1|2|3\n4|5|6\n"),
			CSVDialect{'|', '"', true, EncodingUTF8, 0},
			[]string{"a", "b", "c"}, [][]string{{"1", "2", "3"}, {"4", "5", "6"}}},
		{"double quotes", []byte("id,comment\n1,\"hello, world\"\n2,\"say \"\"hi\"\"\"\n3,\"multi\nline\"\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"id", "comment"}, [][]string{{"1", "hello, world"}, {"2", `say "hi"`}, {"3", "multi\nline"}}},
		{"single quotes", []byte("id,name\n1,'Smith, J'\n2,'Doe, A'\n3,'O''Neil, B'\n"),
			CSVDialect{',', '\'', true, EncodingUTF8, 0},
			[]string{"id", "name"}, [][]string{{"1", "Smith, J"}, {"2", "Doe, A"}, {"3", "O'Neil, B"}}},
		{"apostrophes are not quotes", []byte("id,name\n1,O'Neil\n2,D'Arcy\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"id", "name"}, [][]string{{"1", "O'Neil"}, {"2", "D'Arcy"}}},
		{"UTF-8 BOM", []byte("\xEF\xBB\xBFname,city\nJosé,Zürich\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"name", "city"}, [][]string{{"José", "Zürich"}}},
		{"UTF-16LE BOM", utf16LE("name;city\r\nJosé;Zürich\r\nLi;北京\r\n", true),
			CSVDialect{';', '"', true, EncodingUTF16LE, 0},
			[]string{"name", "city"}, [][]string{{"José", "Zürich"}, {"Li", "北京"}}},
		{"UTF-16BE BOM", utf16BE("a,b\n1,é\n"),
			CSVDialect{',', '"', true, EncodingUTF16BE, 0},
			[]string{"a", "b"}, [][]string{{"1", "é"}}},
		{"UTF-16LE without BOM", utf16LE("a,b\n1,2\n", false),
			CSVDialect{',', '"', true, EncodingUTF16LE, 0},
			[]string{"a", "b"}, [][]string{{"1", "2"}}},
		{"Latin-1", []byte("name,city\nJos\xe9,Z\xfcrich\nAndr\xe9,Montr\xe9al\n"),
			CSVDialect{',', '"', true, EncodingWindows1252, 0},
			[]string{"name", "city"}, [][]string{{"José", "Zürich"}, {"André", "Montréal"}}},
		{"Windows-1252 euro sign", []byte("item;price\nbook;\x8010\n"),
			CSVDialect{';', '"', true, EncodingWindows1252, 0},
			[]string{"item", "price"}, [][]string{{"book", "€10"}}},
		{"CRLF", []byte("a,b\r\n1,2\r\n3,4\r\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}},
		{"CR only", []byte("a,b\r1,2\r3,4\r"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}},
		{"CRLF inside quotes is kept", []byte("a,b\r\n\"x\r\ny\",2\r\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b"}, [][]string{{"x\r\ny", "2"}}},
		{"title and comment above header", []byte("Quarterly sales report\n# exported 2024-01-01, by tool\nregion,amount,year\nnorth,10,2023\nsouth,20,2023\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 2},
			[]string{"region", "amount", "year"}, [][]string{{"north", "10", "2023"}, {"south", "20", "2023"}}},
		{"comments and blank lines above header", []byte("# source: x\n#\n\nregion;amount\nnorth;10\n"),
			CSVDialect{';', '"', true, EncodingUTF8, 3},
			[]string{"region", "amount"}, [][]string{{"north", "10"}}},
		{"commented-out header", []byte("#id,score\n1,10\n2,20\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"#id", "score"}, [][]string{{"1", "10"}, {"2", "20"}}},
		{"no header numeric data", []byte("1,2.5,3\n4,5.5,6\n7,8.5,9\n"),
			CSVDialect{',', '"', false, EncodingUTF8, 0},
			[]string{"col_1", "col_2", "col_3"}, [][]string{{"1", "2.5", "3"}, {"4", "5.5", "6"}, {"7", "8.5", "9"}}},
		{"no header with dates", []byte("2024-01-01,5\n2024-01-02,7\n"),
			CSVDialect{',', '"', false, EncodingUTF8, 0},
			[]string{"col_1", "col_2"}, [][]string{{"2024-01-01", "5"}, {"2024-01-02", "7"}}},
		{"ragged rows are padded with nulls", []byte("a,b,c\n1,2\n3,4,5\n6\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b", "c"}, [][]string{{"1", "2", N}, {"3", "4", "5"}, {"6", N, N}}},
		{"empty cells are empty strings", []byte("a,b,c\n,,\n\"\",x,\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b", "c"}, [][]string{{"", "", ""}, {"", "x", ""}}},
		{"trailing delimiter tolerated", []byte("a,b\n1,2,\n3,4,\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}},
		{"duplicate and empty header names", []byte("id,name,name,\n1,a,b,c\n"),
			CSVDialect{',', '"', false, EncodingUTF8, 0},
			[]string{"col_1", "col_2", "col_3", "col_4"}, [][]string{{"id", "name", "name", ""}, {"1", "a", "b", "c"}}},
		{"header with spaces and blank cell", []byte(" id , name ,\n1,a,x\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"id", "name", "col_3"}, [][]string{{"1", "a", "x"}}},
		{"single column", []byte("name\nAnn\nBob\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"name"}, [][]string{{"Ann"}, {"Bob"}}},
		{"no final newline", []byte("a,b\n1,2"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b"}, [][]string{{"1", "2"}}},
		{"header only", []byte("a,b,c\n"),
			CSVDialect{',', '"', true, EncodingUTF8, 0},
			[]string{"a", "b", "c"}, nil},
		{"empty file", []byte(""),
			CSVDialect{',', '"', false, EncodingUTF8, 0},
			[]string{}, nil},
		{"only blank lines", []byte("\n\r\n\n"),
			CSVDialect{',', '"', false, EncodingUTF8, 0},
			[]string{}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SniffCSV(c.data); got != c.dialect {
				t.Errorf("SniffCSV = %+v, want %+v", got, c.dialect)
			}
			res := readBytes(c.data, "upload.csv", Options{})
			if res.err != nil {
				t.Fatal(res.err)
			}
			if res.cols == nil {
				res.cols = []string{}
			}
			if !reflect.DeepEqual(res.cols, c.cols) {
				t.Errorf("columns %q, want %q", res.cols, c.cols)
			}
			if !reflect.DeepEqual(res.rows, c.rows) {
				t.Errorf("rows %q, want %q", res.rows, c.rows)
			}
			if d, ok := DialectOf(res.reader); !ok || d != c.dialect {
				t.Errorf("reader dialect %+v, want %+v", d, c.dialect)
			}
		})
	}
}

func TestCSVInvalidUTF8BeyondSampleIsRepaired(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("name,n\n")
	for b.Len() < sniffSize+100 {
		b.WriteString("plain ascii,1\n")
	}
	b.WriteString("Jos\xe9,2\n")
	res := readBytes(b.Bytes(), "x.csv", Options{})
	if res.err != nil {
		t.Fatal(res.err)
	}
	last := res.rows[len(res.rows)-1]
	if last[0] != "José" {
		t.Fatalf("last row %q, want José", last)
	}
}

func TestCSVErrors(t *testing.T) {
	cases := []struct {
		name    string
		data    string
		opt     Options
		kind    error
		message string
	}{
		{"extra fields", "a,b\n1,2\n1,2,3\n", Options{}, ErrMalformed, "line 3: row has 3 fields but the table has 2 columns"},
		{"unterminated quote", "a,b\n1,2\n3,\"open\n4,5\n", Options{}, ErrMalformed, "line 3: quoted field 2 is never closed"},
		{"text after closing quote", "a,b\n1,\"x\"y\n", Options{}, ErrMalformed, "line 2: unexpected 'y' after the closing quote of field 2"},
		{"field too large", "a,b\n1," + strings.Repeat("x", 2000) + "\n", Options{MaxFieldBytes: 1000}, ErrUnsupported, "line 2: field 2 is larger than the 1000 bytes limit"},
		{"too many columns", "a,b,c,d\n1,2,3,4\n", Options{MaxColumns: 3}, ErrUnsupported, "more than 3 fields"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := readBytes([]byte(c.data), "x.csv", c.opt)
			if !errors.Is(res.err, c.kind) {
				t.Fatalf("err = %v, want %v", res.err, c.kind)
			}
			if !strings.Contains(res.err.Error(), c.message) {
				t.Fatalf("err = %q, want it to contain %q", res.err, c.message)
			}
		})
	}
}

func TestCSVRecordIsReused(t *testing.T) {
	r, err := Open(bytes.NewReader([]byte("a,b\n1,2\n3,4\n")), "x.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := r.Next()
	v := r1.Values[0]
	r2, _ := r.Next()
	if r1 != r2 {
		t.Fatal("Next should reuse its Record")
	}
	if v != "1" || r2.Values[0] != "3" {
		t.Fatalf("values %q then %q", v, r2.Values[0])
	}
}

var (
	benchOnce sync.Once
	benchCSV  []byte
)

// benchData builds about 50 MB of CSV with quoted, numeric and text cells.
func benchData() []byte {
	benchOnce.Do(func() {
		var b bytes.Buffer
		b.Grow(51 << 20)
		b.WriteString("id,name,city,amount,created,comment\n")
		cities := []string{"Oslo", "Zürich", "São Paulo", "New York", "Kraków"}
		for i := 0; b.Len() < 50<<20; i++ {
			fmt.Fprintf(&b, "%d,user_%d,%s,%d.%02d,2024-01-%02d,", i, i, cities[i%len(cities)], i%9973, i%100, i%28+1)
			if i%3 == 0 {
				b.WriteString("\"said \"\"hello, world\"\" twice\"\n")
			} else {
				b.WriteString("plain comment text\n")
			}
		}
		benchCSV = b.Bytes()
	})
	return benchCSV
}

func BenchmarkCSV(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := Open(bytes.NewReader(data), "bench.csv", Options{})
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		for {
			_, err := r.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					b.Fatal(err)
				}
				break
			}
			rows++
		}
		if rows < 100000 {
			b.Fatalf("only %d rows", rows)
		}
	}
}

// FuzzCSV: any input ends in rows or an error with a sentinel, within the
// budget, and NextBatch gives what Next gives, however the file is read.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "\"x\"\"y\",z\r\n", "a;b\r1;2", "#c\nt\na|b\n1|2", "\xff\xfea\x00,\x00b\x00", "'a','b'\n'1','2'\n"} {
		f.Add([]byte(s))
	}
	seedFiles(f, "csv-spectrum/csvs", ".csv", 16<<10)
	seedFiles(f, "vega-datasets", ".csv", 16<<10)
	seedFiles(f, "vega-datasets", ".tsv", 16<<10)
	f.Add(hostile.WideCSV(300, 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		opt := Options{MaxFieldBytes: 1 << 16, MemoryBudget: fuzzBudget}
		res := readBytes(data, "f.csv", opt)
		checkSentinel(t, "Next", res.err)
		checkBatchesMatch(t, data, "f.csv", opt, res)

		// The same bytes with a dialect given, drawn from the first ones.
		opt.CSV = fuzzCSVOptions(data)
		res = readBytes(data, "f.csv", opt)
		checkSentinel(t, "Next with CSVOptions", res.err)
		checkBatchesMatch(t, data, "f.csv", opt, res)
	})
}

// fuzzCSVOptions draws a dialect, valid or not, from the first bytes of
// data.
func fuzzCSVOptions(data []byte) *CSVOptions {
	var b [4]byte
	copy(b[:], data)
	return &CSVOptions{
		Delimiter: b[0] % 0x81,
		Quote:     []byte{0, '"', '\'', NoQuote, b[1] % 0x81}[b[1]%5],
		Header:    int(b[2]%8) - 1,
		Encoding:  append(csvEncodings, "", "x")[int(b[3])%(len(csvEncodings)+2)],
	}
}

// FuzzSniffCSV: the dialect sniffer takes any sample, whole or cut, and
// answers a delimiter it can split by and a quote it knows.
func FuzzSniffCSV(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "sep=;\na;b\n", "#x\n#y\na\tb\n1\t2", "\"a\"\"b\",c\r\n1,2\r\n", "\xef\xbb\xbfa|b\n"} {
		f.Add([]byte(s))
	}
	seedFiles(f, "csv-spectrum/csvs", ".csv", 16<<10)
	f.Fuzz(func(t *testing.T, data []byte) {
		force := fuzzCSVOptions(data)
		if force.validate() != nil {
			force = nil
		}
		for _, complete := range []bool{true, false} {
			sn := sniffCSV(data, complete, force)
			if force != nil && (force.Delimiter != 0 && sn.Delimiter != rune(force.Delimiter) || force.Header > 0 && (!sn.HasHeader || sn.SkipLines != force.Header-1)) {
				t.Fatalf("forced %+v, sniffed %+v", *force, sn.CSVDialect)
			}
			if sn.Delimiter == 0 || sn.Delimiter == '\n' || sn.Delimiter == '\r' || sn.Delimiter == sn.Quote {
				t.Fatalf("delimiter %q, quote %q", sn.Delimiter, sn.Quote)
			}
			if sn.SkipLines < 0 || sn.width < 0 || sn.bomLen < 0 || sn.bomLen > len(data) {
				t.Fatalf("skip %d, width %d, BOM %d of %d bytes", sn.SkipLines, sn.width, sn.bomLen, len(data))
			}
		}
	})
}

func TestPlainRunFindsTheFirstFieldEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab,;\t\n\r\x00\x80\xff\x2b\x0a\x0d")
	for _, delim := range []byte{',', ';', '\t', '|'} {
		s := newCSVScanner(strings.NewReader(""), delim, '"', 1<<20, 100)
		for range 5000 {
			chunk := make([]byte, r.IntN(40))
			for i := range chunk {
				if r.IntN(4) == 0 {
					chunk[i] = alphabet[r.IntN(len(alphabet))]
				} else {
					chunk[i] = byte(r.IntN(256))
				}
			}
			want := 0
			for want < len(chunk) && chunk[want] != delim && chunk[want] != '\n' && chunk[want] != '\r' {
				want++
			}
			if got := s.plainRun(chunk); got != want {
				t.Fatalf("delim %q, chunk %q: plainRun = %d, want %d", delim, chunk, got, want)
			}
		}
	}
}
