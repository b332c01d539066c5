package readers

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Each override of CSVOptions, on a file sniffing alone reads otherwise.
func TestCSVOptionsOverrideSniffing(t *testing.T) {
	cases := []struct {
		name    string
		data    string
		opt     CSVOptions
		wrong   bool // sniffing alone reads other columns or rows
		cols    []string
		rows    [][]string
		dialect CSVDialect
	}{
		{"delimiter", "id@amount\n1@1,5\n2@2,5\n", CSVOptions{Delimiter: '@'},
			true, []string{"id", "amount"}, [][]string{{"1", "1,5"}, {"2", "2,5"}},
			CSVDialect{'@', '"', true, EncodingUTF8, 0}},
		{"named delimiter space", "a b\n1 2\n", CSVOptions{Delimiter: ' '},
			true, []string{"a", "b"}, [][]string{{"1", "2"}}, CSVDialect{' ', '"', true, EncodingUTF8, 0}},
		{"no quoting", "id,size,note\n1,\"big,x\n2,\"small,y\n", CSVOptions{Quote: NoQuote},
			true, []string{"id", "size", "note"}, [][]string{{"1", "\"big", "x"}, {"2", "\"small", "y"}},
			CSVDialect{',', 0, true, EncodingUTF8, 0}},
		{"single quote", "a,b\n'x,y',1\n'z,w',2\n", CSVOptions{Quote: '\''},
			false, []string{"a", "b"}, [][]string{{"x,y", "1"}, {"z,w", "2"}}, CSVDialect{',', '\'', true, EncodingUTF8, 0}},
		{"a quote that is a common delimiter", "a,b\n;x,y;,1\n;z;,2\n", CSVOptions{Quote: ';'},
			true, []string{"a", "b"}, [][]string{{"x,y", "1"}, {"z", "2"}}, CSVDialect{',', ';', true, EncodingUTF8, 0}},
		{"the double quote as delimiter", "a\"b\n1\"2\n3\"4\n", CSVOptions{Delimiter: '"'},
			true, []string{"a", "b"}, [][]string{{"1", "2"}, {"3", "4"}}, CSVDialect{'"', 0, true, EncodingUTF8, 0}},
		{"no header", "name,city\nAnn,Oslo\nBob,Rome\n", CSVOptions{Header: HeaderNone},
			true, []string{"col_1", "col_2"}, [][]string{{"name", "city"}, {"Ann", "Oslo"}, {"Bob", "Rome"}},
			CSVDialect{',', '"', false, EncodingUTF8, 0}},
		{"header on line 3", "x,y\n1,2\nid,v\n3,4\n5,6\n", CSVOptions{Header: 3},
			true, []string{"id", "v"}, [][]string{{"3", "4"}, {"5", "6"}}, CSVDialect{',', '"', true, EncodingUTF8, 2}},
		{"header line with a delimiter", "Report\n\nid;v\n1;2\n", CSVOptions{Header: 3, Delimiter: ';'},
			false, []string{"id", "v"}, [][]string{{"1", "2"}}, CSVDialect{';', '"', true, EncodingUTF8, 2}},
		// Valid UTF-8 that is in fact windows-1252 text: "Ã©" is C3 A9.
		{"windows-1252", "name\nCaf\xc3\xa9\n", CSVOptions{Encoding: EncodingWindows1252},
			true, []string{"name"}, [][]string{{"CafÃ©"}}, CSVDialect{',', '"', true, EncodingWindows1252, 0}},
		{"UTF-16LE without a byte order mark", string(utf16LE("k,v\n1,2\n", false)), CSVOptions{Encoding: EncodingUTF16LE, Delimiter: ','},
			false, []string{"k", "v"}, [][]string{{"1", "2"}}, CSVDialect{',', '"', true, EncodingUTF16LE, 0}},
		{"UTF-16BE byte order mark skipped", string(utf16BE("k,v\n1,2\n")), CSVOptions{Encoding: EncodingUTF16BE},
			false, []string{"k", "v"}, [][]string{{"1", "2"}}, CSVDialect{',', '"', true, EncodingUTF16BE, 0}},
		// Given UTF-8, bad bytes become U+FFFD instead of windows-1252 text.
		{"UTF-8 kept for invalid bytes", "name\nCaf\xe9\n", CSVOptions{Encoding: EncodingUTF8},
			true, []string{"name"}, [][]string{{"Caf\uFFFD"}}, CSVDialect{',', '"', true, EncodingUTF8, 0}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.wrong {
				if res := readBytes([]byte(c.data), "f.csv", Options{}); reflect.DeepEqual(res.cols, c.cols) && reflect.DeepEqual(res.rows, c.rows) {
					t.Fatalf("sniffing alone already reads %q %q", res.cols, res.rows)
				}
			}
			opt := c.opt
			res := readBytes([]byte(c.data), "f.csv", Options{CSV: &opt})
			if res.err != nil {
				t.Fatal(res.err)
			}
			if !reflect.DeepEqual(res.cols, c.cols) || !reflect.DeepEqual(res.rows, c.rows) {
				t.Errorf("got %q %q\nwant %q %q", res.cols, res.rows, c.cols, c.rows)
			}
			if d, _ := DialectOf(res.reader); d != c.dialect {
				t.Errorf("dialect %+v, want %+v", d, c.dialect)
			}
			checkBatchesMatch(t, []byte(c.data), "f.csv", Options{CSV: &opt}, res)
		})
	}
}

func TestCSVOptionsInvalid(t *testing.T) {
	cases := []struct {
		opt  CSVOptions
		want string
	}{
		{CSVOptions{Encoding: "ebcdic"}, `the CSV encoding "ebcdic" is not supported: use one of UTF-8, UTF-16LE, UTF-16BE, windows-1252`},
		{CSVOptions{Delimiter: ';', Quote: ';'}, `the CSV delimiter and quote are both ';': they must differ`},
		{CSVOptions{Delimiter: '\n'}, `the CSV delimiter '\n' is not supported: use an ASCII character other than a line break`},
		{CSVOptions{Quote: 0xA7}, `the CSV quote '§' is not supported: use an ASCII character other than a line break`},
		{CSVOptions{Delimiter: NoQuote}, `the CSV delimiter 'ÿ' is not supported: use an ASCII character other than a line break`},
		{CSVOptions{Header: -2}, `the CSV header line -2 is not supported: use a line from 1 to 1000, or none`},
	}
	for _, c := range cases {
		for _, name := range []string{"f.csv", "f.json"} {
			opt := c.opt
			_, err := Open(strings.NewReader("a,b\n1,2\n"), name, Options{CSV: &opt})
			if !errors.Is(err, ErrUnsupported) || err.Error() != c.want {
				t.Errorf("%s %+v: err %v, want %q (ErrUnsupported)", name, c.opt, err, c.want)
			}
		}
	}
}

func TestParseCSVOptions(t *testing.T) {
	cases := []struct {
		delim, quote, header, enc string
		want                      *CSVOptions
		err                       string
	}{
		{"", "", "", "", nil, ""},
		{"auto", "AUTO", "auto", "auto", nil, ""},
		{"tab", "", "", "", &CSVOptions{Delimiter: '\t'}, ""},
		{"Semicolon", "'", "none", "latin-1", &CSVOptions{Delimiter: ';', Quote: '\'', Header: HeaderNone, Encoding: EncodingWindows1252}, ""},
		{"comma", "none", "3", "UTF-16LE", &CSVOptions{Delimiter: ',', Quote: NoQuote, Header: 3, Encoding: EncodingUTF16LE}, ""},
		{"pipe", "", "1", "utf8", &CSVOptions{Delimiter: '|', Header: 1, Encoding: EncodingUTF8}, ""},
		{"space", "", "", "cp1252", &CSVOptions{Delimiter: ' ', Encoding: EncodingWindows1252}, ""},
		{" ", "", "", "utf-16be", &CSVOptions{Delimiter: ' ', Encoding: EncodingUTF16BE}, ""},
		{"@", "", "", "", &CSVOptions{Delimiter: '@'}, ""},
		{"::", "", "", "", nil, `the delimiter "::" is not one character: give a single character, auto, or one of comma, pipe, semicolon, space, tab`},
		{"§", "", "", "", nil, `the delimiter "§" is not one character: give a single character, auto, or one of comma, pipe, semicolon, space, tab`},
		{"\n", "", "", "", nil, `the delimiter "\n" is not supported: use an ASCII character other than a line break`},
		{"", "nope", "", "", nil, `the quote "nope" is not one character: give a single character, auto, or one of none`},
		{"", "", "0", "", nil, `the header "0" is not understood: give auto, none, or the line number of the header (1 to 1000)`},
		{"", "", "first", "", nil, `the header "first" is not understood: give auto, none, or the line number of the header (1 to 1000)`},
		{"", "", "", "ebcdic", nil, `the encoding "ebcdic" is not supported: give auto, utf-8, utf-16le, utf-16be, windows-1252 or latin-1`},
		{";", ";", "", "", nil, `the CSV delimiter and quote are both ';': they must differ`},
	}
	for _, c := range cases {
		got, err := ParseCSVOptions(c.delim, c.quote, c.header, c.enc)
		switch {
		case c.err != "" && (err == nil || err.Error() != c.err):
			t.Errorf("ParseCSVOptions(%q, %q, %q, %q) err %v, want %q", c.delim, c.quote, c.header, c.enc, err, c.err)
		case c.err == "" && (err != nil || !reflect.DeepEqual(got, c.want)):
			t.Errorf("ParseCSVOptions(%q, %q, %q, %q) = %+v, %v; want %+v", c.delim, c.quote, c.header, c.enc, got, err, c.want)
		}
	}
}
