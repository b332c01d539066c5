package figures

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Generated files for the comparison with the oracle, shaped like the exports users
// upload: customer lists, HR records, orders and logs, with the mess they
// carry (placeholder nulls, blank cells, mixed date formats, decimal
// commas, padded codes, long text, accents, numbers beyond int64, columns
// past the profiler's exact bounds), in every format. Seeded: the same
// files every run.

// genColumn makes the value of one column for row r (null when ok is
// false).
type genColumn struct {
	name string
	make func(rng *rand.Rand, r int) (v string, ok bool)
}

var (
	firstNames = []string{"Anna", "Björn", "Chloé", "Dmitri", "Émile", "Fatima", "Grace", "Hiroshi", "Ines", "José", "Kwame", "Lena", "O'Brien", "Zoë"}
	lastNames  = []string{"Svensson", "Müller", "Dubois", "Ivanov", "García", "Nguyen", "Smith-Jones", "de la Cruz", "O'Neil", "Kowalski"}
	cities     = []string{"Stockholm", "Zürich", "São Paulo", "New York", "Kraków", "Malmö", "Paris", "Reykjavík"}
	statuses   = []string{"active", "Active", "ACTIVE", "inactive", "pending", "N/A", "NULL", "-", ""}
	grades     = []string{"Very Good", "Good", "Fair", "Poor", "Excellent"}
)

// grouped writes n with sep between its groups of three digits.
func grouped(n int64, sep string) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + sep + s[i:]
	}
	return s
}

// maybe returns v, or a null, a blank or a placeholder now and then.
func maybe(rng *rand.Rand, v string) (string, bool) {
	switch rng.IntN(40) {
	case 0:
		return "", false
	case 1:
		return "", true
	case 2:
		return "NULL", true
	case 3:
		return "   ", true
	}
	return v, true
}

var genColumns = []genColumn{
	{"Unnamed: 0", func(_ *rand.Rand, r int) (string, bool) { return fmt.Sprint(r), true }},
	{"customer_id", func(rng *rand.Rand, r int) (string, bool) { return fmt.Sprintf("C%06d", rng.IntN(500_000)), true }},
	{"name", func(rng *rand.Rand, _ int) (string, bool) {
		return maybe(rng, firstNames[rng.IntN(len(firstNames))]+" "+lastNames[rng.IntN(len(lastNames))])
	}},
	{"email", func(rng *rand.Rand, r int) (string, bool) {
		return maybe(rng, fmt.Sprintf("user%d@example%d.com", rng.IntN(5000), rng.IntN(3)))
	}},
	{"age", func(rng *rand.Rand, _ int) (string, bool) { return maybe(rng, fmt.Sprint(16+rng.IntN(70))) }},
	{"salary", func(rng *rand.Rand, _ int) (string, bool) {
		return maybe(rng, fmt.Sprintf("%.2f", 20000+rng.Float64()*150000))
	}},
	{"amount_eu", func(rng *rand.Rand, _ int) (string, bool) {
		return maybe(rng, strings.Replace(fmt.Sprintf("%.2f", rng.Float64()*5000), ".", ",", 1))
	}},
	{"revenue", func(rng *rand.Rand, _ int) (string, bool) {
		// US exports: comma thousands, a dollar sign now and then.
		cents := rng.Int64N(500_000_000)
		v := grouped(cents/100, ",") + fmt.Sprintf(".%02d", cents%100)
		switch rng.IntN(5) {
		case 0:
			v = "$" + v
		case 1:
			v = grouped(cents/100, ",") // 1,234: two-way, read as the rest
		}
		return maybe(rng, v)
	}},
	{"umsatz", func(rng *rand.Rand, _ int) (string, bool) {
		// German exports: dot thousands, decimal comma, a euro sign now and then.
		cents := rng.Int64N(500_000_000)
		v := grouped(cents/100, ".") + fmt.Sprintf(",%02d", cents%100)
		switch rng.IntN(6) {
		case 0:
			v += " €"
		case 1:
			v = grouped(cents/100, ".") // 1.234: two-way, read as the rest
		case 2:
			v = grouped(cents/100, "\u00a0") + fmt.Sprintf(",%02d", cents%100) // no-break space thousands
		}
		return maybe(rng, v)
	}},
	{"share", func(rng *rand.Rand, _ int) (string, bool) {
		x := rng.IntN(1000)
		return maybe(rng, []string{fmt.Sprintf("%d.%d%%", x/10, x%10), fmt.Sprintf("%d,%d %%", x/10, x%10)}[rng.IntN(2)])
	}},
	{"zip", func(rng *rand.Rand, _ int) (string, bool) { return maybe(rng, fmt.Sprintf("%05d", rng.IntN(99999))) }},
	{"signup", func(rng *rand.Rand, _ int) (string, bool) {
		d := time.Date(2015+rng.IntN(10), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
		layouts := []string{"2006-01-02", "2006-01-02", "02/01/2006", "01/02/2006", "2006/01/02", "2.1.2006"}
		return maybe(rng, d.Format(layouts[rng.IntN(len(layouts))]))
	}},
	{"geburtsdatum", func(rng *rand.Rand, _ int) (string, bool) {
		// German exports: dotted dates, day first, with an impossible day now and then.
		if rng.IntN(40) == 0 {
			return "31.02.1990", true
		}
		d := time.Date(1940+rng.IntN(60), time.Month(1+rng.IntN(12)), 1+rng.IntN(28), 0, 0, 0, 0, time.UTC)
		return maybe(rng, d.Format("02.01.2006"))
	}},
	{"last_seen", func(rng *rand.Rand, _ int) (string, bool) {
		t := time.Unix(1.5e9+rng.Int64N(2e8), rng.Int64N(1e9)).UTC()
		layouts := []string{time.RFC3339, time.RFC3339Nano, "2006-01-02 15:04:05", "2006-01-02T15:04:05-07:00"}
		return maybe(rng, t.Format(layouts[rng.IntN(len(layouts))]))
	}},
	{"visited", func(rng *rand.Rand, _ int) (string, bool) {
		// Spreadsheet exports: m/d/yy h:mm, sometimes with seconds and AM/PM.
		t := time.Unix(1.2e9+rng.Int64N(6e8), 0).UTC()
		layouts := []string{"1/2/06 15:04", "1/2/06 15:04", "01/02/2006 15:04:05", "1/2/2006 3:04 PM"}
		return maybe(rng, t.Format(layouts[rng.IntN(len(layouts))]))
	}},
	{"active", func(rng *rand.Rand, _ int) (string, bool) {
		return []string{"true", "false", "TRUE", "yes", "no", "1", "0"}[rng.IntN(7)], true
	}},
	{"status", func(rng *rand.Rand, _ int) (string, bool) { return statuses[rng.IntN(len(statuses))], true }},
	{"grade", func(rng *rand.Rand, _ int) (string, bool) { return maybe(rng, grades[rng.IntN(len(grades))]) }},
	{"city", func(rng *rand.Rand, _ int) (string, bool) { return maybe(rng, cities[rng.IntN(len(cities))]) }},
	{"order_no", func(rng *rand.Rand, r int) (string, bool) { return fmt.Sprint(1_000_000 + r*7 + rng.IntN(7)), true }},
	{"big", func(rng *rand.Rand, _ int) (string, bool) {
		return maybe(rng, fmt.Sprintf("%d%09d", 9_000_000_000+rng.IntN(999_999_999), rng.IntN(1e9)))
	}},
	{"ratio", func(rng *rand.Rand, _ int) (string, bool) {
		return maybe(rng, []string{"1e-7", "2.5E3", "-0.0", "0.5", "+3", ".5", "5.", "1e400", "007"}[rng.IntN(9)])
	}},
	{"notes", func(rng *rand.Rand, _ int) (string, bool) {
		words := []string{"late", "payment", "called", "about", "refund", "naïve", "façade", "日本", "ok", "\"quoted\"", "comma, inside"}
		n := rng.IntN(12)
		var b []string
		for range n {
			b = append(b, words[rng.IntN(len(words))])
		}
		return maybe(rng, strings.Join(b, " "))
	}},
	{"long_text", func(rng *rand.Rand, _ int) (string, bool) {
		return maybe(rng, strings.Repeat(string(rune('a'+rng.IntN(26))), 300+rng.IntN(400)))
	}},
	{"uuid", func(rng *rand.Rand, _ int) (string, bool) {
		return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1)), true
	}},
}

// genTable picks columns and rows for file k.
func genTable(k int) (cols []genColumn, rows [][]string, nulls [][]bool) {
	rng := rand.New(rand.NewPCG(uint64(k), 7))
	for _, c := range genColumns {
		if rng.IntN(3) > 0 {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		cols = genColumns[:3]
	}
	n := 1 + rng.IntN(1500)
	if k%17 == 0 {
		n = 12_000 + rng.IntN(3000) // past the exact distinct bound for ids
	}
	for r := range n {
		row, null := make([]string, len(cols)), make([]bool, len(cols))
		for i, c := range cols {
			v, ok := c.make(rng, r)
			row[i], null[i] = v, !ok
		}
		rows = append(rows, row)
		nulls = append(nulls, null)
		if rng.IntN(50) == 0 && r > 0 { // a duplicate row now and then
			rows = append(rows, rows[r-1])
			nulls = append(nulls, nulls[r-1])
		}
	}
	return cols, rows, nulls
}

// writeGenerated writes count generated files into dir, cycling through
// CSV, JSON Lines, a JSON array and Parquet, and returns their paths.
func writeGenerated(dir string, count int) ([]string, error) {
	var paths []string
	for k := range count {
		cols, rows, nulls := genTable(k)
		var data []byte
		var ext string
		switch k % 4 {
		case 0:
			ext, data = ".csv", genCSV(cols, rows, nulls, []rune{',', ';', '\t', '|'}[k/4%4])
		case 1:
			ext, data = ".jsonl", genJSON(cols, rows, nulls, false)
		case 2:
			ext, data = ".json", genJSON(cols, rows, nulls, true)
		default:
			var err error
			ext = ".parquet"
			if data, err = genParquet(cols, rows, nulls); err != nil {
				return nil, err
			}
		}
		p := filepath.Join(dir, fmt.Sprintf("gen%03d%s", k, ext))
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}

func genCSV(cols []genColumn, rows [][]string, nulls [][]bool, delim rune) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Comma = delim
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = c.name
	}
	w.Write(head)
	for r, row := range rows {
		out := append([]string(nil), row...)
		for i := range out {
			if nulls[r][i] {
				out[i] = "" // CSV has no null: an empty cell
			}
		}
		w.Write(out)
	}
	w.Flush()
	return b.Bytes()
}

func genJSON(cols []genColumn, rows [][]string, nulls [][]bool, array bool) []byte {
	var b bytes.Buffer
	if array {
		b.WriteString("[\n")
	}
	for r, row := range rows {
		obj := map[string]any{}
		for i, c := range cols {
			switch {
			case nulls[r][i] && r%3 == 0:
				// absent: null too
			case nulls[r][i]:
				obj[c.name] = nil
			default:
				obj[c.name] = row[i]
			}
		}
		line, _ := json.Marshal(obj)
		b.Write(line)
		if array && r < len(rows)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	if array {
		b.WriteString("]\n")
	}
	return b.Bytes()
}

// genParquet writes the table with typed columns where the values allow:
// an integer column as int64, a decimal one as float64, the rest as
// strings (placeholders then stay strings, as in real files).
func genParquet(cols []genColumn, rows [][]string, nulls [][]bool) ([]byte, error) {
	fields := make([]arrow.Field, len(cols))
	kinds := make([]arrow.DataType, len(cols))
	for i, c := range cols {
		kinds[i] = arrow.PrimitiveTypes.Int64
		for r, row := range rows {
			if nulls[r][i] {
				continue
			}
			if _, ok := oracleInt(row[i]); !ok && kinds[i] == arrow.PrimitiveTypes.Int64 {
				kinds[i] = arrow.PrimitiveTypes.Float64
			}
			if f, ok := oracleFloat(row[i]); (!ok || math.IsNaN(f)) && kinds[i] != arrow.BinaryTypes.String {
				kinds[i] = arrow.BinaryTypes.String
			}
		}
		fields[i] = arrow.Field{Name: c.name, Type: kinds[i], Nullable: true}
	}
	sc := arrow.NewSchema(fields, nil)
	var out bytes.Buffer
	w, err := pqarrow.NewFileWriter(sc, &out, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(4000)), pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer rb.Release()
	for r, row := range rows {
		for i := range cols {
			fb := rb.Field(i)
			if nulls[r][i] {
				fb.AppendNull()
				continue
			}
			switch b := fb.(type) {
			case *array.Int64Builder:
				v, _ := oracleInt(row[i])
				b.Append(v)
			case *array.Float64Builder:
				v, _ := oracleFloat(row[i])
				b.Append(v)
			case *array.StringBuilder:
				b.Append(row[i])
			}
		}
	}
	rec := rb.NewRecordBatch()
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
