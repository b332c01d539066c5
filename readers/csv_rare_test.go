package readers

import (
	"reflect"
	"testing"
)

// Rare delimiters are chosen only when every line splits alike; values
// that hold one (times, e-mail addresses, URLs) stay one column.
func TestSniffRareDelimiters(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		delim rune
		cols  []string
		rows  [][]string
	}{
		{"at sign", "a@b@c\n1@2@3\n4@5@6\n", '@', []string{"a", "b", "c"}, [][]string{{"1", "2", "3"}, {"4", "5", "6"}}},
		{"tilde", "id~name\r\n1~Ann\r\n2~Bob\r\n", '~', []string{"id", "name"}, [][]string{{"1", "Ann"}, {"2", "Bob"}}},
		{"caret without a header", "1^2.5^x\n2^3.5^y\n3^4.5^z\n", '^', []string{"col_1", "col_2", "col_3"},
			[][]string{{"1", "2.5", "x"}, {"2", "3.5", "y"}, {"3", "4.5", "z"}}},
		{"hash", "sku#qty\nA-1#3\nB-2#4\n", '#', []string{"sku", "qty"}, [][]string{{"A-1", "3"}, {"B-2", "4"}}},
		{"exclamation mark", "k!v\nx!1\ny!2\n", '!', []string{"k", "v"}, [][]string{{"x", "1"}, {"y", "2"}}},
		{"colon with a quoted time", "name:at\nAnn:\"12:30\"\nBob:\"13:45\"\n", ':', []string{"name", "at"},
			[][]string{{"Ann", "12:30"}, {"Bob", "13:45"}}},
		{"quoted e-mail addresses split at @", "id@email\n1@\"ann@example.com\"\n2@\"bob@example.org\"\n", '@', []string{"id", "email"},
			[][]string{{"1", "ann@example.com"}, {"2", "bob@example.org"}}},
		{"a wider table than the common delimiter's", "id@name@amount\n1@a@1,5\n2@b@2,5\n", '@', []string{"id", "name", "amount"},
			[][]string{{"1", "a", "1,5"}, {"2", "b", "2,5"}}},

		// Not enough evidence: the common reading stays.
		{"e-mail addresses are one column", "email\nann@example.com\nbob@example.org\n", ',', []string{"email"},
			[][]string{{"ann@example.com"}, {"bob@example.org"}}},
		{"e-mail addresses without a header", "ann@example.com\nbob@example.org\ncleo@example.net\n", ',', []string{"ann@example.com"},
			[][]string{{"bob@example.org"}, {"cleo@example.net"}}},
		{"times are one column", "12:30\n13:45\n14:00\n", ',', []string{"col_1"}, [][]string{{"12:30"}, {"13:45"}, {"14:00"}}},
		{"URLs are one column", "url\nhttps://a.example/x\nhttps://b.example/y\n", ',', []string{"url"},
			[][]string{{"https://a.example/x"}, {"https://b.example/y"}}},
		{"uneven field counts", "a@b\n1@2@3\n4@5\n", ',', []string{"a@b"}, [][]string{{"1@2@3"}, {"4@5"}}},
		// The comma reads the first line as a title above a two-column table.
		{"a tie keeps the common delimiter", "id@amount\n1@1,5\n2@2,5\n", ',', []string{"col_1", "col_2"},
			[][]string{{"1@1", "5"}, {"2@2", "5"}}},
		{"a title line is not split alike", "Report: Q3\nid,at\n1,12:30\n2,13:45\n", ',', []string{"id", "at"},
			[][]string{{"1", "12:30"}, {"2", "13:45"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SniffCSV([]byte(c.data)).Delimiter; got != c.delim {
				t.Errorf("delimiter %q, want %q", got, c.delim)
			}
			res := readBytes([]byte(c.data), "upload.csv", Options{})
			if res.err != nil {
				t.Fatal(res.err)
			}
			if !reflect.DeepEqual(res.cols, c.cols) || !reflect.DeepEqual(res.rows, c.rows) {
				t.Errorf("got %q %q\nwant %q %q", res.cols, res.rows, c.cols, c.rows)
			}
		})
	}
}
