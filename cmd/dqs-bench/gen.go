package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Data generation.
//
// One pass over a seeded generator writes the same rows to bench.csv,
// bench.jsonl and bench.parquet, streaming: only the current Parquet row
// group (rowGroupRows rows) is ever held in memory. Files are written under
// temporary names and renamed into place; the manifest is written last, so
// an interrupted run is regenerated next time.

const (
	// genVersion changes whenever the generated data would change (columns,
	// value distributions, seed, file layout); older caches are regenerated.
	genVersion   = 1
	seed1, seed2 = 0x6471732d62656e63, 0x68 // "dqs-benc", "h"
	rowGroupRows = 128 * 1024
	manifestName = "bench.manifest.json"
)

var fileNames = map[string]string{
	"csv":     "bench.csv",
	"jsonl":   "bench.jsonl",
	"parquet": "bench.parquet",
}

var columns = []string{
	"id", "email", "first_name", "last_name", "phone", "birth_date", "country", "city",
	"postal_code", "amount", "created_at", "status", "score", "notes",
}

type manifest struct {
	Version int   `json:"version"`
	Rows    int64 `json:"rows"`
}

// row is one generated record. Dates are kept as numbers so that every
// writer formats the same value.
type row struct {
	id        int64
	email     string
	first     string
	last      string
	phone     string
	birthDays int32 // days since 1970-01-01
	country   string
	city      string
	postal    string
	cents     int64 // amount in hundredths
	createdAt int64 // Unix seconds, UTC
	status    string
	score     float64 // four decimal places at most
	notes     string
}

func (r *row) birthDate() string {
	return time.Unix(int64(r.birthDays)*86400, 0).UTC().Format(time.DateOnly)
}

func (r *row) created() string {
	return time.Unix(r.createdAt, 0).UTC().Format(time.RFC3339)
}

func (r *row) amount() string {
	return strconv.FormatInt(r.cents/100, 10) + "." + fmt.Sprintf("%02d", r.cents%100)
}

func (r *row) scoreText() string {
	return strconv.FormatFloat(r.score, 'f', -1, 64)
}

type country struct {
	iso, dial string
	digits    int
	cities    []string
	postal    string // pattern: 9 = digit, A = upper-case letter, anything else literal
}

var countries = []country{
	{iso: "US", dial: "1", digits: 10, cities: []string{"New York", "Chicago", "Austin", "Seattle", "Denver", "Boston"}, postal: "99999"},
	{iso: "GB", dial: "44", digits: 10, cities: []string{"London", "Manchester", "Leeds", "Bristol", "Glasgow"}, postal: "AA9 9AA"},
	{iso: "DE", dial: "49", digits: 11, cities: []string{"Berlin", "München", "Hamburg", "Köln", "Leipzig"}, postal: "99999"},
	{iso: "FR", dial: "33", digits: 9, cities: []string{"Paris", "Lyon", "Marseille", "Toulouse", "Nantes"}, postal: "99999"},
	{iso: "IN", dial: "91", digits: 10, cities: []string{"Mumbai", "Delhi", "Bengaluru", "Chennai", "Pune"}, postal: "999999"},
	{iso: "BR", dial: "55", digits: 11, cities: []string{"São Paulo", "Rio de Janeiro", "Curitiba", "Recife"}, postal: "99999-999"},
	{iso: "JP", dial: "81", digits: 10, cities: []string{"Tokyo", "Osaka", "Nagoya", "Sapporo", "Fukuoka"}, postal: "999-9999"},
	{iso: "CA", dial: "1", digits: 10, cities: []string{"Toronto", "Vancouver", "Montréal", "Calgary"}, postal: "A9A 9A9"},
	{iso: "AU", dial: "61", digits: 9, cities: []string{"Sydney", "Melbourne", "Brisbane", "Perth"}, postal: "9999"},
	{iso: "NL", dial: "31", digits: 9, cities: []string{"Amsterdam", "Rotterdam", "Utrecht", "Eindhoven"}, postal: "9999 AA"},
}

var (
	firstNames = []string{
		"James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
		"William", "Barbara", "Richard", "Susan", "Joseph", "Jessica", "Thomas", "Sarah", "Charles", "Karen",
		"Lucas", "Emma", "Hugo", "Louise", "Jonas", "Mia", "Felix", "Hannah", "Arjun", "Priya",
		"Rahul", "Ananya", "Mateus", "Beatriz", "Gabriel", "Julia", "Haruto", "Yui", "Sota", "Hina",
		"Liam", "Olivia", "Noah", "Charlotte", "Daan", "Sophie", "Sem", "Julia", "Oliver", "Amelia",
	}
	lastNames = []string{
		"Smith", "Johnson", "Williams", "Brown", "Jones", "Garcia", "Miller", "Davis", "Rodriguez", "Martinez",
		"Taylor", "Wilson", "Anderson", "Thomas", "Moore", "Martin", "Jackson", "Thompson", "White", "Harris",
		"Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Dubois", "Bernard", "Lefebvre", "Moreau", "Laurent",
		"Sharma", "Patel", "Iyer", "Reddy", "Nair", "Silva", "Santos", "Oliveira", "Souza", "Pereira",
		"Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "de Jong", "Jansen", "de Vries", "van Dijk", "Bakker",
	}
	// asciiLast are lastNames spelled for an e-mail address.
	asciiLast = func() []string {
		r := strings.NewReplacer("ü", "ue", "ö", "oe", " ", "")
		out := make([]string, len(lastNames))
		for i, n := range lastNames {
			out[i] = strings.ToLower(r.Replace(n))
		}
		return out
	}()
	domains  = []string{"gmail.com", "yahoo.com", "outlook.com", "example.org", "mail.de", "orange.fr", "corp.example.com", "uol.com.br", "hotmail.co.uk", "student.uni-example.edu.au", "customers.example.net"}
	statuses = []string{"active", "active", "active", "active", "pending", "pending", "inactive", "suspended", "closed"}
	words    = []string{
		"customer", "requested", "a", "refund", "for", "order", "delivery", "was", "late", "called", "support",
		"twice", "prefers", "email", "contact", "address", "changed", "VIP", "account", "flagged", "review",
		"payment", "failed", "retry", "scheduled", "next", "week", "the", "and", "no", "issues", "reported,",
		"follow-up", "needed;", "see", "ticket", "#4821", "asked", "about", "pricing", "discount", "applied",
		"\"urgent\"", "left", "voicemail", "moved", "to", "new", "plan", "renewal", "due", "in", "March",
	}
	birthFrom   = int32(time.Date(1940, 1, 1, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	birthSpan   = int32(time.Date(2007, 12, 31, 0, 0, 0, 0, time.UTC).Unix()/86400) - birthFrom
	createdFrom = time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	createdSpan = time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC).Unix() - createdFrom
)

// generator yields the same sequence of rows for the same seed.
type generator struct {
	rng *rand.Rand
	id  int64
	buf []byte
}

func newGenerator() *generator {
	return &generator{rng: rand.New(rand.NewPCG(seed1, seed2))}
}

func (g *generator) pick(s []string) string { return s[g.rng.IntN(len(s))] }

func (g *generator) digits(b []byte, n int) []byte {
	for range n {
		b = append(b, byte('0'+g.rng.IntN(10)))
	}
	return b
}

func (g *generator) next(r *row) {
	g.id++
	rng := g.rng
	r.id = g.id
	fi, li := rng.IntN(len(firstNames)), rng.IntN(len(lastNames))
	r.first, r.last = firstNames[fi], lastNames[li]

	b := g.buf[:0]
	b = append(b, strings.ToLower(r.first)...)
	switch rng.IntN(3) {
	case 0:
		b = append(b, '.')
	case 1:
		b = append(b, '_')
	}
	b = append(b, asciiLast[li]...)
	b = strconv.AppendInt(b, int64(rng.IntN(10000)), 10)
	b = append(b, '@')
	b = append(b, g.pick(domains)...)
	r.email = string(b)

	c := &countries[rng.IntN(len(countries))]
	r.country = c.iso
	r.city = g.pick(c.cities)
	b = append(b[:0], '+')
	b = append(b, c.dial...)
	b = append(b, byte('1'+rng.IntN(9))) // no leading zero after the country code
	b = g.digits(b, c.digits-1)
	r.phone = string(b)

	b = b[:0]
	for i := 0; i < len(c.postal); i++ {
		switch ch := c.postal[i]; ch {
		case '9':
			b = append(b, byte('0'+rng.IntN(10)))
		case 'A':
			b = append(b, byte('A'+rng.IntN(26)))
		default:
			b = append(b, ch)
		}
	}
	r.postal = string(b)

	r.birthDays = birthFrom + rng.Int32N(birthSpan+1)
	r.cents = rng.Int64N(50_000_00) + 1 // 0.01 … 50000.00
	r.createdAt = createdFrom + rng.Int64N(createdSpan)
	r.status = g.pick(statuses)
	r.score = float64(rng.IntN(1_000_001)) / 10000 // 0 … 100, four decimals

	if rng.IntN(100) < 10 {
		r.notes = ""
	} else {
		n := 20 + max(rng.IntN(61), rng.IntN(61)) // 20 … 80 characters, mostly long
		b = b[:0]
		for len(b) < n {
			if len(b) > 0 {
				b = append(b, ' ')
			}
			b = append(b, g.pick(words)...)
		}
		b = b[:n]
		if b[n-1] == ' ' {
			b[n-1] = '.'
		}
		r.notes = string(b)
	}
	g.buf = b
}

// ensureData generates the files in dir unless they exist with a manifest
// for the same rows and version. It reports whether it generated them.
func ensureData(dir string, rows int64, log io.Writer) (bool, error) {
	if haveData(dir, rows) {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	os.Remove(filepath.Join(dir, manifestName))
	fmt.Fprintf(log, "generating %d rows into %s (once; the files are kept for later runs)…\n", rows, dir)
	start := time.Now()
	if err := generate(dir, rows); err != nil {
		return false, err
	}
	m, _ := json.Marshal(manifest{Version: genVersion, Rows: rows})
	if err := os.WriteFile(filepath.Join(dir, manifestName), append(m, '\n'), 0o644); err != nil {
		return false, err
	}
	fmt.Fprintf(log, "generated in %.1fs\n", time.Since(start).Seconds())
	return true, nil
}

func haveData(dir string, rows int64) bool {
	b, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return false
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil || m.Version != genVersion || m.Rows != rows {
		return false
	}
	for _, name := range fileNames {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || !st.Mode().IsRegular() {
			return false
		}
	}
	return true
}

var parquetSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "email", Type: arrow.BinaryTypes.String},
	{Name: "first_name", Type: arrow.BinaryTypes.String},
	{Name: "last_name", Type: arrow.BinaryTypes.String},
	{Name: "phone", Type: arrow.BinaryTypes.String},
	{Name: "birth_date", Type: arrow.FixedWidthTypes.Date32},
	{Name: "country", Type: arrow.BinaryTypes.String},
	{Name: "city", Type: arrow.BinaryTypes.String},
	{Name: "postal_code", Type: arrow.BinaryTypes.String},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64},
	{Name: "created_at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
	{Name: "status", Type: arrow.BinaryTypes.String},
	{Name: "score", Type: arrow.PrimitiveTypes.Float64},
	{Name: "notes", Type: arrow.BinaryTypes.String},
}, nil)

// sink is one output file being written under a temporary name.
type sink struct {
	f    *os.File
	w    *bufio.Writer
	tmp  string
	path string
}

func newSink(path string) (*sink, error) {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return nil, err
	}
	return &sink{f: f, w: bufio.NewWriterSize(f, 1<<20), tmp: tmp, path: path}, nil
}

func (s *sink) finish() error {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(s.tmp, s.path)
	}
	return err
}

func (s *sink) abort() {
	s.f.Close()
	os.Remove(s.tmp)
}

func generate(dir string, rows int64) (err error) {
	var sinks []*sink
	defer func() {
		if err != nil {
			for _, s := range sinks {
				s.abort()
			}
		}
	}()
	for _, f := range []string{"csv", "jsonl", "parquet"} {
		s, err := newSink(filepath.Join(dir, fileNames[f]))
		if err != nil {
			return err
		}
		sinks = append(sinks, s)
	}
	csvOut, jsonOut, pqOut := sinks[0], sinks[1], sinks[2]

	cw := csv.NewWriter(csvOut.w)
	if err := cw.Write(columns); err != nil {
		return err
	}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(rowGroupRows),
		parquet.WithDictionaryDefault(true),
	)
	pw, err := pqarrow.NewFileWriter(parquetSchema, pqOut.w, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	rb := array.NewRecordBuilder(memory.DefaultAllocator, parquetSchema)
	defer rb.Release()
	flush := func() error {
		rec := rb.NewRecordBatch()
		defer rec.Release()
		if rec.NumRows() == 0 {
			return nil
		}
		return pw.Write(rec) // one row group per batch
	}

	g := newGenerator()
	var r row
	rec := make([]string, len(columns))
	var jb []byte
	for i := int64(0); i < rows; i++ {
		g.next(&r)

		rec[0] = strconv.FormatInt(r.id, 10)
		rec[1], rec[2], rec[3], rec[4] = r.email, r.first, r.last, r.phone
		rec[5] = r.birthDate()
		rec[6], rec[7], rec[8] = r.country, r.city, r.postal
		rec[9] = r.amount()
		rec[10] = r.created()
		rec[11] = r.status
		rec[12] = r.scoreText()
		rec[13] = r.notes
		if err := cw.Write(rec); err != nil {
			return err
		}

		jb = appendJSONRow(jb[:0], rec)
		if _, err := jsonOut.w.Write(jb); err != nil {
			return err
		}

		rb.Field(0).(*array.Int64Builder).Append(r.id)
		rb.Field(1).(*array.StringBuilder).Append(r.email)
		rb.Field(2).(*array.StringBuilder).Append(r.first)
		rb.Field(3).(*array.StringBuilder).Append(r.last)
		rb.Field(4).(*array.StringBuilder).Append(r.phone)
		rb.Field(5).(*array.Date32Builder).Append(arrow.Date32(r.birthDays))
		rb.Field(6).(*array.StringBuilder).Append(r.country)
		rb.Field(7).(*array.StringBuilder).Append(r.city)
		rb.Field(8).(*array.StringBuilder).Append(r.postal)
		rb.Field(9).(*array.Float64Builder).Append(float64(r.cents) / 100)
		rb.Field(10).(*array.TimestampBuilder).Append(arrow.Timestamp(r.createdAt * 1_000_000))
		rb.Field(11).(*array.StringBuilder).Append(r.status)
		rb.Field(12).(*array.Float64Builder).Append(r.score)
		rb.Field(13).(*array.StringBuilder).Append(r.notes)
		if (i+1)%rowGroupRows == 0 {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	if err := pw.Close(); err != nil { // writes the footer (a bufio.Writer is no io.Closer, so the file stays open)
		return err
	}
	for _, s := range sinks {
		if err := s.finish(); err != nil {
			return err
		}
	}
	return nil
}

// numericColumns are written to JSON as numbers, the rest as strings.
var numericColumns = map[int]bool{0: true, 9: true, 12: true}

// appendJSONRow appends one JSON object and a newline; numbers are written
// with the same text as in the CSV file.
func appendJSONRow(b []byte, rec []string) []byte {
	b = append(b, '{')
	for i, v := range rec {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, columns[i])
		b = append(b, ':')
		if numericColumns[i] {
			b = append(b, v...)
		} else {
			b = appendJSONString(b, v)
		}
	}
	return append(b, '}', '\n')
}

func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
