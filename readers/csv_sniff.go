package readers

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

// Encodings reported in CSVDialect.Encoding.
const (
	EncodingUTF8        = "UTF-8"
	EncodingUTF16LE     = "UTF-16LE"
	EncodingUTF16BE     = "UTF-16BE"
	EncodingWindows1252 = "windows-1252"
)

// CSVDialect is what SniffCSV infers about a delimited text file.
type CSVDialect struct {
	Delimiter rune
	Quote     rune // 0 when the file is read without quoting
	HasHeader bool
	Encoding  string // one of the Encoding* constants
	// SkipLines is the number of physical lines (comments, titles, blank
	// lines) before the header or, without a header, the first row.
	SkipLines int
}

// csvSniff is a dialect plus what the reader needs beyond it.
type csvSniff struct {
	CSVDialect
	bomLen int
	// width is the widest table row seen in the sample; it sizes the
	// generated column names when there is no header.
	width int
}

var delimiterCandidates = []byte{',', ';', '\t', '|'}

// SniffCSV infers the dialect of a CSV sample (the first 64 KiB of a file;
// a shorter sample is taken to be the whole file).
func SniffCSV(sample []byte) CSVDialect {
	return sniffCSV(sample, len(sample) < sniffSize).CSVDialect
}

func sniffCSV(sample []byte, complete bool) csvSniff {
	enc, bomLen := detectEncoding(sample, complete)
	out := csvSniff{CSVDialect: CSVDialect{Delimiter: ',', Quote: '"', Encoding: enc}, bomLen: bomLen}
	text := decodeSample(sample[bomLen:], enc, complete)
	if !complete {
		// Drop the last, probably cut, line.
		if i := bytes.LastIndexAny(text, "\r\n"); i >= 0 {
			text = text[:i+1]
		}
	}
	lines := splitLines(text)
	quote := detectQuote(lines)
	out.Quote = rune(quote)

	// Leading blank and '#' comment lines.
	comments, lastComment := 0, -1
	for comments < len(lines) {
		l := strings.TrimSpace(string(lines[comments]))
		if l != "" && !strings.HasPrefix(l, "#") {
			break
		}
		if l != "" {
			lastComment = comments
		}
		comments++
	}
	body := joinLines(text, lines, comments)

	best := delimScore{}
	for i, d := range delimiterCandidates {
		sc := scoreDelimiter(body, d, quote, complete)
		sc.order = i
		if i == 0 || sc.better(best) {
			best = sc
		}
	}
	if best.mode <= 1 {
		// Single-column data: no delimiter ever splits a line.
		best = scoreDelimiter(body, ',', quote, complete)
		best.titles, best.skipLines = 0, 0
		if len(best.rows) > 0 {
			best.skipLines = best.rows[0].line - 1
		}
	}
	out.Delimiter = rune(best.delim)
	table := best.rows[best.titles:]
	out.SkipLines = comments + best.skipLines
	for _, r := range table {
		out.width = max(out.width, len(r.fields))
	}
	if len(table) == 0 {
		out.SkipLines = 0
		return out
	}
	out.HasHeader = looksLikeHeader(table[0].fields)

	// "#id,name" right above numeric rows is a commented-out header.
	if !out.HasHeader && lastComment >= 0 && lastComment == comments-1 && best.titles == 0 && best.skipLines == 0 {
		hdr := parseSampleRecords(lines[lastComment], best.delim, quote, true, 1)
		if len(hdr) == 1 && len(hdr[0].fields) == best.mode && looksLikeHeader(hdr[0].fields) {
			out.HasHeader = true
			out.SkipLines--
		}
	}
	return out
}

type sampleRecord struct {
	line   int
	fields []string
}

type delimScore struct {
	delim       byte
	order       int
	rows        []sampleRecord
	titles      int // leading single-field records (title lines)
	skipLines   int // physical lines before the first table record
	mode        int // most common field count in the table
	consistency float64
}

func (a delimScore) better(b delimScore) bool {
	if (a.mode > 1) != (b.mode > 1) {
		return a.mode > 1
	}
	if a.consistency != b.consistency {
		return a.consistency > b.consistency
	}
	if a.titles != b.titles {
		return a.titles < b.titles
	}
	if a.mode != b.mode {
		return a.mode > b.mode
	}
	return a.order < b.order
}

func scoreDelimiter(body []byte, delim, quote byte, complete bool) delimScore {
	sc := delimScore{delim: delim}
	sc.rows = parseSampleRecords(body, delim, quote, complete, 2000)
	rows := sc.rows
	// Title lines: single-field records above a multi-field table.
	t := 0
	for t < len(rows) && (len(rows[t].fields) == 1 || strings.HasPrefix(rows[t].fields[0], "#")) {
		t++
	}
	if t == len(rows) {
		t = 0
	}
	sc.titles = t
	table := rows[t:]
	if len(table) > 0 {
		sc.skipLines = table[0].line - 1
	}
	counts := map[int]int{}
	for _, r := range table {
		counts[len(r.fields)]++
	}
	for n, c := range counts {
		if c > counts[sc.mode] || (c == counts[sc.mode] && n > sc.mode) {
			sc.mode = n
		}
	}
	if len(table) > 0 {
		sc.consistency = float64(counts[sc.mode]) / float64(len(table))
	}
	return sc
}

// parseSampleRecords parses up to limit records of text. A parse error
// ends the sample; an unterminated quote at the end of an incomplete
// sample is expected and ignored.
func parseSampleRecords(text []byte, delim, quote byte, complete bool, limit int) []sampleRecord {
	s := newCSVScannerSize(bytes.NewReader(text), delim, quote, 1<<30, 1<<20, min(len(text)+1, 256<<10))
	var out []sampleRecord
	for len(out) < limit {
		if err := s.readRecord(); err != nil {
			break
		}
		rec := sampleRecord{line: s.recLine, fields: make([]string, s.fieldCount())}
		for i := range rec.fields {
			rec.fields[i] = string(s.field(i))
		}
		out = append(out, rec)
	}
	return out
}

// splitLines splits text after each line terminator (\n, \r\n or \r),
// keeping the terminators.
func splitLines(text []byte) [][]byte {
	var lines [][]byte
	for len(text) > 0 {
		i := bytes.IndexAny(text, "\r\n")
		if i < 0 {
			lines = append(lines, text)
			break
		}
		j := i + 1
		if text[i] == '\r' && j < len(text) && text[j] == '\n' {
			j++
		}
		lines = append(lines, text[:j])
		text = text[j:]
	}
	return lines
}

// joinLines returns text from line n on.
func joinLines(text []byte, lines [][]byte, n int) []byte {
	off := 0
	for _, l := range lines[:n] {
		off += len(l)
	}
	return text[off:]
}

// detectQuote returns '\” when single quotes clearly delimit fields and
// double quotes never do, else '"'.
func detectQuote(lines [][]byte) byte {
	var open, close [2]int // [0] = '"', [1] = '\''
	isSep := func(c byte) bool { return c == ',' || c == ';' || c == '\t' || c == '|' }
	for _, l := range lines {
		l = bytes.TrimRight(l, "\r\n")
		for i, c := range l {
			k := -1
			switch c {
			case '"':
				k = 0
			case '\'':
				k = 1
			}
			if k < 0 {
				continue
			}
			if i == 0 || isSep(l[i-1]) {
				open[k]++
			}
			if i == len(l)-1 || isSep(l[i+1]) {
				close[k]++
			}
		}
	}
	if open[0]+close[0] == 0 && open[1] >= 2 && close[1] >= 2 {
		return '\''
	}
	return '"'
}

// looksLikeHeader reports whether first reads as column names: non-empty,
// distinct and with no numbers or dates.
func looksLikeHeader(first []string) bool {
	seen := map[string]bool{}
	nonEmpty := 0
	for _, f := range first {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if looksTyped(f) || seen[f] {
			return false
		}
		seen[f] = true
		nonEmpty++
	}
	if nonEmpty == 0 || nonEmpty*2 < len(first) {
		return false
	}
	return true
}

var dateLayouts = []string{
	"2006-01-02", "2006/01/02", "01/02/2006", "02/01/2006", "02.01.2006", "2006-01-02 15:04:05",
	"2006-01-02T15:04:05", time.RFC3339, time.RFC3339Nano, "15:04:05", "15:04",
}

// looksTyped reports whether s is a number or a date/time.
func looksTyped(s string) bool {
	t := strings.TrimSpace(s)
	t = strings.TrimSuffix(t, "%")
	t = strings.TrimLeft(t, "$€£¥")
	if t == "" {
		return false
	}
	if _, err := strconv.ParseFloat(t, 64); err == nil {
		return true
	}
	if _, err := strconv.ParseFloat(strings.ReplaceAll(t, ",", ""), 64); err == nil && strings.Contains(t, ",") && t[0] != ',' {
		return true // 1,234.5
	}
	if c := t[0]; c >= '0' && c <= '9' {
		for _, l := range dateLayouts {
			if _, err := time.Parse(l, t); err == nil {
				return true
			}
		}
	}
	return false
}

// detectEncoding picks the encoding from a BOM, a UTF-16 byte pattern,
// UTF-8 validity, or falls back to Windows-1252.
func detectEncoding(sample []byte, complete bool) (string, int) {
	switch {
	case bytes.HasPrefix(sample, utf8BOM):
		return EncodingUTF8, 3
	case bytes.HasPrefix(sample, []byte{0xFF, 0xFE}):
		return EncodingUTF16LE, 2
	case bytes.HasPrefix(sample, []byte{0xFE, 0xFF}):
		return EncodingUTF16BE, 2
	}
	if n := min(len(sample), 4096) &^ 1; n >= 4 {
		var zeroEven, zeroOdd int
		for i := 0; i < n; i += 2 {
			if sample[i] == 0 {
				zeroEven++
			}
			if sample[i+1] == 0 {
				zeroOdd++
			}
		}
		pairs := n / 2
		if zeroOdd*10 > pairs*4 && zeroEven*20 < pairs {
			return EncodingUTF16LE, 0
		}
		if zeroEven*10 > pairs*4 && zeroOdd*20 < pairs {
			return EncodingUTF16BE, 0
		}
	}
	check := sample
	if !complete {
		check = trimPartialRune(check)
	}
	if utf8.Valid(check) {
		return EncodingUTF8, 0
	}
	return EncodingWindows1252, 0
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return b[:i]
			}
			break
		}
	}
	return b
}

func decodeSample(b []byte, enc string, complete bool) []byte {
	switch enc {
	case EncodingUTF8:
		return b
	case EncodingUTF16LE, EncodingUTF16BE:
		if len(b)%2 == 1 {
			b = b[:len(b)-1]
		}
	}
	out, _, err := transform.Bytes(decoderFor(enc).Transformer, b)
	if err != nil {
		return b
	}
	if !complete {
		out = trimPartialRune(out)
	}
	return out
}

type byteDecoder struct {
	transform.Transformer
}

func decoderFor(enc string) byteDecoder {
	switch enc {
	case EncodingUTF16LE:
		return byteDecoder{unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM).NewDecoder()}
	case EncodingUTF16BE:
		return byteDecoder{unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM).NewDecoder()}
	case EncodingWindows1252:
		return byteDecoder{charmap.Windows1252.NewDecoder()}
	}
	return byteDecoder{transform.Nop}
}
