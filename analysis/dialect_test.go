package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/dqs/dqs/readers"
)

func ptr[T any](v T) *T { return &v }

// semicolonTable is a table of ';' whose values hold commas, under a title
// line: sniffing alone finds the header on line 2 too, but every option
// set below must give the same table.
const semicolonTable = "Export of 2026-11-26, all regions\nid;city;amount\n1;Paris, FR;1,50\n2;Rome, IT;2,50\n3;Oslo, NO;3,75\n4;Lund, SE;4,00\n"

func columnNames(res *Result) []string {
	names := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		names[i] = c.Name
	}
	return names
}

// TestRunReadsTheGivenCSVDialect: the options of a dialect reach the
// reader, and the result says what was read, given or sniffed.
func TestRunReadsTheGivenCSVDialect(t *testing.T) {
	for _, tc := range []struct {
		name    string
		data    string
		opt     *readers.CSVOptions
		columns []string
		rows    int64
		csv     CSVDialect
	}{
		{"sniffed", semicolonTable, nil, []string{"id", "city", "amount"}, 4,
			CSVDialect{Delimiter: ";", Quote: ptr(`"`), HeaderLine: ptr(2), Encoding: "utf-8"}},
		{"given", semicolonTable, &readers.CSVOptions{Delimiter: ';', Header: 2}, []string{"id", "city", "amount"}, 4,
			CSVDialect{Delimiter: ";", Quote: ptr(`"`), HeaderLine: ptr(2), Encoding: "utf-8"}},
		// A comma where sniffing takes the semicolon: the file is read as
		// told.
		{"comma over the sniffed semicolon", "id;city\n1;Paris\n2;Rome\n", &readers.CSVOptions{Delimiter: ','}, []string{"id;city"}, 2,
			CSVDialect{Delimiter: ",", Quote: ptr(`"`), HeaderLine: ptr(1), Encoding: "utf-8"}},
		{"no header", "1|a\n2|b\n3|c\n", &readers.CSVOptions{Header: readers.HeaderNone}, []string{"col_1", "col_2"}, 3,
			CSVDialect{Delimiter: "|", Quote: ptr(`"`), Encoding: "utf-8"}},
		// Without quoting, a quote is text: the field is not joined to the
		// next one.
		{"no quoting", "name,size\n\"big,2\n\"small,1\n", &readers.CSVOptions{Quote: readers.NoQuote}, []string{"name", "size"}, 2,
			CSVDialect{Delimiter: ",", HeaderLine: ptr(1), Encoding: "utf-8"}},
		{"latin-1", "name,city\nZoé,Malmö\nÅsa,Göteborg\n", &readers.CSVOptions{Encoding: readers.EncodingWindows1252}, []string{"name", "city"}, 2,
			CSVDialect{Delimiter: ",", Quote: ptr(`"`), HeaderLine: ptr(1), Encoding: "windows-1252"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			res, err := Run(context.Background(), bytes.NewReader(data), "t.csv", int64(len(data)), Dialect{CSV: tc.opt}, Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := columnNames(res); !reflect.DeepEqual(got, tc.columns) || res.RowCount != tc.rows {
				t.Errorf("columns %q and %d rows, want %q and %d", got, res.RowCount, tc.columns, tc.rows)
			}
			if res.CSV == nil || !reflect.DeepEqual(*res.CSV, tc.csv) {
				t.Errorf("csv = %s, want %s", jsonOf(t, res.CSV), jsonOf(t, tc.csv))
			}
			if res.RecordsPath != "" {
				t.Errorf("records_path of a CSV file = %q", res.RecordsPath)
			}
		})
	}
	// Latin-1 read as such: the values are text, not replacement marks.
	data := []byte("word,n\ncaf\xe9,1\ncr\xe8me,2\n")
	res, err := Run(context.Background(), bytes.NewReader(data), "t.csv", int64(len(data)), Dialect{CSV: &readers.CSVOptions{Encoding: readers.EncodingWindows1252}}, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lo, hi := res.Columns[0].Min, res.Columns[0].Max; lo == nil || hi == nil || *lo != "café" || *hi != "crème" {
		t.Errorf("windows-1252 words read as %v", res.Columns[0].TopValues)
	}
}

// TestRunReportsTheEncodingFoundLate: a file that looked like UTF-8 in the
// sniffed window and is Windows-1252 further on says so: the dialect is
// taken once the rows are read.
func TestRunReportsTheEncodingFoundLate(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,city\n")
	for i := 0; b.Len() < 200<<10; i++ {
		fmt.Fprintf(&b, "%d,Paris\n", i)
	}
	b.WriteString("999999,Malm\xf6\n")
	data := []byte(b.String())
	res, err := Run(context.Background(), bytes.NewReader(data), "t.csv", int64(len(data)), Dialect{}, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.CSV == nil || res.CSV.Encoding != "windows-1252" {
		t.Errorf("csv = %s, want the encoding windows-1252", jsonOf(t, res.CSV))
	}
}

// TestRunSaysWhereWrappedRecordsWere: the records of a JSON export wrapped
// in an object are the rows, and the result names their array; other
// files have no records_path, and no csv unless they are CSV.
func TestRunSaysWhereWrappedRecordsWere(t *testing.T) {
	for _, tc := range []struct {
		name, data, path string
		rows             int64
	}{
		{"t.json", `{"response": {"total": 2, "items": [{"id": 1, "city": "Paris"}, {"id": 2, "city": "Rome"}]}}`, "response.items", 2},
		{"t.json", `{"data": [{"id": 1}, {"id": 2}, {"id": 3}], "links": [{"next": "p2"}]}`, "data", 3},
		{"t.json", `[{"id": 1}, {"id": 2}]`, "", 2},
		{"t.jsonl", "{\"id\": 1}\n{\"id\": 2}\n", "", 2},
	} {
		data := []byte(tc.data)
		res, err := Run(context.Background(), bytes.NewReader(data), tc.name, int64(len(data)), Dialect{}, Limits{}, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.data, err)
		}
		if res.RecordsPath != tc.path || res.RowCount != tc.rows || res.CSV != nil {
			t.Errorf("%s: records_path %q, %d rows, csv %v; want %q, %d, none", tc.data, res.RecordsPath, res.RowCount, res.CSV, tc.path, tc.rows)
		}
		raw := jsonOf(t, res)
		if strings.Contains(raw, `"csv"`) || strings.Contains(raw, `"records_path"`) != (tc.path != "") {
			t.Errorf("%s: JSON %s", tc.data, raw)
		}
	}
}

// TestResultJSONShowsTheDialect: the JSON of a CSV result carries the
// dialect under names a user can give back.
func TestResultJSONShowsTheDialect(t *testing.T) {
	data := []byte("a\tb\n1\t2\n3\t4\n")
	res, err := Run(context.Background(), bytes.NewReader(data), "t.tsv", int64(len(data)), Dialect{}, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		CSV map[string]any `json:"csv"`
	}
	if err := json.Unmarshal([]byte(jsonOf(t, res)), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"delimiter": "\t", "quote": `"`, "header_line": float64(1), "encoding": "utf-8"}
	if !reflect.DeepEqual(got.CSV, want) {
		t.Errorf("csv = %v, want %v", got.CSV, want)
	}
}

// TestPrescanReadsTheGivenCSVDialect: the prescan that guards uploads
// reads with the same dialect as the analysis, and says which.
func TestPrescanReadsTheGivenCSVDialect(t *testing.T) {
	data := []byte("user;password\nanna;Summer2024!\nmikko;hunter2xx\nola;Pa55word#1\n")
	for _, tc := range []struct {
		opt     *readers.CSVOptions
		columns []string
		csv     CSVDialect
	}{
		{nil, []string{"user", "password"}, CSVDialect{Delimiter: ";", Quote: ptr(`"`), HeaderLine: ptr(1), Encoding: "utf-8"}},
		{&readers.CSVOptions{Delimiter: '|'}, []string{"user;password"}, CSVDialect{Delimiter: "|", Quote: ptr(`"`), HeaderLine: ptr(1), Encoding: "utf-8"}},
		{&readers.CSVOptions{Header: readers.HeaderNone}, []string{"col_1", "col_2"}, CSVDialect{Delimiter: ";", Quote: ptr(`"`), Encoding: "utf-8"}},
	} {
		res, err := Prescan(context.Background(), bytes.NewReader(data), "t.csv", int64(len(data)), Dialect{CSV: tc.opt}, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range res.Columns {
			names = append(names, c.Name)
		}
		if !reflect.DeepEqual(names, tc.columns) || res.CSV == nil || !reflect.DeepEqual(*res.CSV, tc.csv) {
			t.Errorf("options %+v: columns %q, csv %s; want %q, %s", tc.opt, names, jsonOf(t, res.CSV), tc.columns, jsonOf(t, tc.csv))
		}
	}
	wrapped := []byte(`{"results": [{"id": 1}, {"id": 2}]}`)
	res, err := Prescan(context.Background(), bytes.NewReader(wrapped), "t.json", int64(len(wrapped)), Dialect{}, Limits{})
	if err != nil || res.RecordsPath != "results" || res.RowsScanned != 2 || res.CSV != nil {
		t.Errorf("wrapped JSON prescan = %+v, %v", res, err)
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}
