package readers

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Regression tests for dialect sniffing, one per rule the dialect
// evaluation (evaluation/dialects) needed. TestCSVSniffing in csv_test.go
// covers the basics.
func TestSniffRealWorldShapes(t *testing.T) {
	cases := []struct {
		name    string
		data    string
		dialect CSVDialect
		cols    []string
		rows    int
	}{
		{"Excel sep= directive names the delimiter and is skipped",
			"sep=;\r\nname;amount\r\nx;1,5\r\ny;2,5\r\n",
			CSVDialect{';', '"', true, EncodingUTF8, 1}, []string{"name", "amount"}, 2},
		{"sep= directive with a tab",
			"sep=\t\nid\tnote\n1\ta, b\n2\tc; d\n",
			CSVDialect{'\t', '"', true, EncodingUTF8, 1}, []string{"id", "note"}, 2},
		{"Excel-padded title and blank line above the header",
			"Sales report Q3 2026;;;\r\n;;;\r\nregion;q1;q2;q3\r\nNorth;1;2;3\r\nSouth;4;5;6\r\n",
			CSVDialect{';', '"', true, EncodingUTF8, 2}, []string{"region", "q1", "q2", "q3"}, 2},
		{"key/value metadata above a table, World Bank style",
			"\"Data Source\",\"WDI\"\n\n\"Last Updated\",\"2026-01-30\"\n\n\"Country\",\"Code\",\"2021\",\"2022\"\n\"Aruba\",\"ABW\",\"1.5\",\"\"\n\"Chad\",\"TCD\",\"2.5\",\"3.5\"\n",
			CSVDialect{',', '"', true, EncodingUTF8, 4}, []string{"Country", "Code", "2021", "2022"}, 2},
		{"two key/value lines above a one-row table",
			"Report;Sales\nPeriod;Q3 2026\nid;name;amount;date\n1;a;1,5;2026-01-01\n",
			CSVDialect{';', '"', true, EncodingUTF8, 2}, []string{"id", "name", "amount", "date"}, 1},
		{"years as column names",
			"Country,2023,2024,2025\nNorway,1.5,2.5,3.5\nSweden,4.5,5.5,6.5\n",
			CSVDialect{',', '"', true, EncodingUTF8, 0}, []string{"Country", "2023", "2024", "2025"}, 2},
		{"headerless words recurring in a column",
			"North,Widget\nSouth,Gadget\nNorth,Gadget\n",
			CSVDialect{',', '"', false, EncodingUTF8, 0}, []string{"col_1", "col_2"}, 3},
		{"never quoted, with literal double quotes",
			"id\tproduct\tnote\n1\tMonitor 27\"\t\"Rush\" order\n2\tPipe 3/4\"\tSaid \"thanks\"\n",
			CSVDialect{'\t', 0, true, EncodingUTF8, 0}, []string{"id", "product", "note"}, 2},
		{"inch marks only",
			"id,size\n1,27\"\n2,32\"\n",
			CSVDialect{',', 0, true, EncodingUTF8, 0}, []string{"id", "size"}, 2},
		{"single quotes with literal double quotes",
			"id,name,note\n1,'Smith, J',\"Rush\" order\n2,'Doe, A',ok\n",
			CSVDialect{',', '\'', true, EncodingUTF8, 0}, []string{"id", "name", "note"}, 2},
		{"a double quote in a title only",
			"Report \"draft\"\nid,name\n1,a\n2,b\n",
			CSVDialect{',', '"', true, EncodingUTF8, 1}, []string{"id", "name"}, 2},
		{"trailing delimiter on data lines with decimal commas",
			"id;temp;hum\n1;12,5;40,1;\n2;13,5;41,2;\n3;14,5;42,3;\n",
			CSVDialect{';', '"', true, EncodingUTF8, 0}, []string{"id", "temp", "hum"}, 3},
		{"one decimal comma per row and titles with a comma",
			"Report, Q3 2026\nStock list, all sites\nrank;player;club;rating\n1;Anna;Oslo;9,5\n2;Bob;Lyon;8,5\n3;Cleo;Köln;7,5\n",
			CSVDialect{';', '"', true, EncodingUTF8, 2}, []string{"rank", "player", "club", "rating"}, 3},
		{"decimal commas in headerless rows",
			"2026-01-01T08:00:00Z;12,345;45,678\n2026-01-01T08:01:00Z;13,345;46,678\n2026-01-01T08:02:00Z;14,345;47,678\n",
			CSVDialect{';', '"', false, EncodingUTF8, 0}, []string{"col_1", "col_2", "col_3"}, 3},
		{"column named # below a title",
			"Top scorers\n#,Player,Goals\n1,Anna,30\n2,Bob,25\n",
			CSVDialect{',', '"', true, EncodingUTF8, 1}, []string{"#", "Player", "Goals"}, 2},
		{"column named # with trailing delimiters on data lines",
			"#,Player,Goals\n1,Anna,30,\n2,Bob,25,\n",
			CSVDialect{',', '"', true, EncodingUTF8, 0}, []string{"#", "Player", "Goals"}, 2},
		{"multi-line quoted fields under titles",
			"Report, Q3 2026\nTickets\nReport\tSales\nid\tbody\tseen\tstatus\n" +
				"1\t\"Hi, \"\"it broke\"\", again.\nSteps: open, save.\nThanks, Zoë\nSteps: open, save.\"\t2026-01-01\topen\n" +
				"2\t\"Invoice paid twice, €49,90.\nSteps: open, save.\n\nThanks, Zoë\nCan't log in.\"\t2026-01-02\tclosed",
			CSVDialect{'\t', '"', true, EncodingUTF8, 3}, []string{"id", "body", "seen", "status"}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := SniffCSV([]byte(c.data)); got != c.dialect {
				t.Errorf("SniffCSV = %+v, want %+v", got, c.dialect)
			}
			res := readBytes([]byte(c.data), "upload.csv", Options{})
			if res.err != nil {
				t.Fatal(res.err)
			}
			if !reflect.DeepEqual(res.cols, c.cols) || len(res.rows) != c.rows {
				t.Errorf("columns %q and %d rows, want %q and %d", res.cols, len(res.rows), c.cols, c.rows)
			}
		})
	}
}

// A malformed quoted field keeps '"' (the reader reports where) and does
// not hide the delimiter.
func TestSniffMalformedQuoteKeepsDelimiter(t *testing.T) {
	got := SniffCSV([]byte("a;b;c\n1;\"x\"y;2\n3;4;5\n"))
	want := CSVDialect{';', '"', true, EncodingUTF8, 0}
	if got != want {
		t.Fatalf("SniffCSV = %+v, want %+v", got, want)
	}
}

// The sniff window may end inside a quoted multi-line field.
func TestSniffWindowEndsInsideQuotedField(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("id;body;status\r\n")
	rows := 0
	for ; b.Len() < sniffSize+20<<10; rows++ {
		fmt.Fprintf(&b, "%d;\"%s\";open\r\n", rows+1, strings.Repeat("Steps: open, click; wait.\n", 40))
	}
	data := b.Bytes()
	got := sniffCSV(data[:sniffSize], false, nil).CSVDialect
	want := CSVDialect{';', '"', true, EncodingUTF8, 0}
	if got != want {
		t.Fatalf("sniffCSV = %+v, want %+v", got, want)
	}
	res := readBytes(data, "big.csv", Options{})
	if res.err != nil || len(res.rows) != rows {
		t.Fatalf("read %d rows (err %v), want %d", len(res.rows), res.err, rows)
	}
}

func TestIsNumber(t *testing.T) {
	for s, want := range map[string]bool{
		"12": true, "-12.5": true, "1,234.5": true, "1.234,5": true, "1.234.567,89": true,
		"1 234,5": true, "-12,50 €": true, "$1,000": true, "12 %": true, "1.5E-3": true, "0,5": true,
		"1,2,3": false, "12,34,56": false, "5;2": false, "1,5;2,5": false, "Q1 2025": false,
		"A-0001": false, "": false, ",5": false, "NaN": false, "Inf": false, "1e": false,
	} {
		if got := isNumber(s); got != want {
			t.Errorf("isNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestCellClass(t *testing.T) {
	for s, want := range map[string]cellClass{
		"": cellEmpty, " ": cellEmpty, "2024": cellYear, "1999": cellYear, "2500": cellNumber,
		"12,5": cellNumber, "01.03.2026": cellDate, "2026-03-01T10:00:00Z": cellDate, "Q1 2025": cellText,
	} {
		if got := cellClassOf(s); got != want {
			t.Errorf("cellClassOf(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestQuoteMarks(t *testing.T) {
	cases := []struct {
		text        string
		open, stray int
	}{
		{"a,\"b, c\",\"say \"\"hi\"\"\"\n\"\",x\n", 3, 0},
		{"1,Monitor 27\"\n2,5'10\" tall\n", 0, 2},
		{"1,\"x\"y\n", 1, 1},
		{"1,\"Rush\" order,27\"\n", 1, 2},
	}
	for _, c := range cases {
		if open, stray := quoteMarks([]byte(c.text), ',', '"'); open != c.open || stray != c.stray {
			t.Errorf("quoteMarks(%q) = %d, %d; want %d, %d", c.text, open, stray, c.open, c.stray)
		}
	}
}
