package readers

import (
	"bytes"
	"io"
	"slices"
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

// delimiterCandidates are the delimiters most files use; the sniffer
// tries them all and keeps the one that reads the sample best.
var delimiterCandidates = []byte{',', ';', '\t', '|'}

// rareDelimiters are single-byte delimiters some exports use. They also
// occur in ordinary values (times, e-mail addresses, hashtags), so one is
// chosen only on strong evidence; see preferRare.
var rareDelimiters = []byte{'@', '~', '^', '#', '!', ':'}

// SniffCSV infers the dialect of a CSV sample (the first 64 KiB of a file;
// a shorter sample is taken to be the whole file).
func SniffCSV(sample []byte) CSVDialect {
	return sniffCSV(sample, len(sample) < sniffSize, nil).CSVDialect
}

// sniffCSV infers the dialect of sample. What force sets (nil: nothing)
// is taken as given and the rest is inferred around it, so that a forced
// delimiter still gets its header and width sniffed.
func sniffCSV(sample []byte, complete bool, force *CSVOptions) csvSniff {
	if force == nil {
		force = &CSVOptions{}
	}
	enc, bomLen := detectEncoding(sample, complete)
	if force.Encoding != "" {
		enc, bomLen = force.Encoding, bomLength(sample, force.Encoding)
	}
	out := csvSniff{CSVDialect: CSVDialect{Delimiter: ',', Quote: '"', Encoding: enc}, bomLen: bomLen}
	text := decodeSample(sample[bomLen:], enc, complete)
	if !complete {
		// Drop the last, probably cut, line.
		if i := bytes.LastIndexAny(text, "\r\n"); i >= 0 {
			text = text[:i+1]
		}
	}
	lines := splitLines(text)

	candidates, skip := delimiterCandidates, 0
	d, directive := sepDirective(lines)
	if directive {
		candidates, skip = []byte{d}, 1
	}
	if force.Delimiter != 0 {
		candidates = []byte{force.Delimiter}
	}
	if candidates = without(candidates, force.Quote); len(candidates) == 0 {
		// A given quote took the sep= line's delimiter: sniff another.
		candidates = without(delimiterCandidates, force.Quote)
	}
	comments, lastComment := 0, -1
	if force.Header > 0 {
		// The header's line is known: nothing above it is sniffed.
		skip = force.Header - 1
	} else {
		comments, lastComment = leadingComments(lines[skip:])
		skip += comments
	}
	body := afterLines(text, skip)
	best := chooseDialect(body, candidates, force.Quote, complete)
	if !directive && force.Delimiter == 0 {
		best = preferRare(body, best, force.Quote, complete)
	}
	out.Delimiter, out.Quote = rune(best.delim), rune(best.quote)

	if force.Header > 0 {
		// Every record below the given header is a row.
		out.HasHeader, out.SkipLines = true, skip
		out.width = widest(best.rows)
		return out
	}
	table := best.rows[best.titles:]
	if len(table) == 0 {
		return out
	}
	out.width = widest(table)
	out.SkipLines = skip + best.skipLines
	if force.Header == HeaderNone {
		return out
	}
	out.HasHeader = isHeader(table[0].fields, table[1:])
	if !out.HasHeader && comments > 0 && lastComment == comments-1 && best.titles == 0 && best.skipLines == 0 {
		out.HasHeader = commentedHeader(lines[skip-1], best, table)
		if out.HasHeader {
			out.SkipLines--
		}
	}
	return out
}

// without returns delims without c, in a new slice when it holds c.
func without(delims []byte, c byte) []byte {
	if bytes.IndexByte(delims, c) < 0 {
		return delims
	}
	out := make([]byte, 0, len(delims))
	for _, d := range delims {
		if d != c {
			out = append(out, d)
		}
	}
	return out
}

// widest is the largest field count of rows.
func widest(rows []sampleRecord) int {
	n := 0
	for _, r := range rows {
		n = max(n, len(r.fields))
	}
	return n
}

// commentedHeader reports whether line, a comment right above the first
// row ("#id,name"), is a commented-out header of table.
func commentedHeader(line []byte, best dialectScore, table []sampleRecord) bool {
	hdr := parseSampleRecords(line, best.delim, best.quote, true, 1)
	return len(hdr) == 1 && fitsWidth(hdr[0].fields, best.mode) && isHeader(hdr[0].fields, table)
}

// sepDirective recognises Excel's "sep=;" first line, which names the
// delimiter and is not part of the table.
func sepDirective(lines [][]byte) (byte, bool) {
	if len(lines) == 0 {
		return 0, false
	}
	l := bytes.TrimRight(lines[0], "\r\n")
	if len(l) == 5 && strings.EqualFold(string(l[:4]), "sep=") && l[4] != '"' && l[4] != '\'' && (l[4] == '\t' || l[4] >= 0x20 && l[4] != 0x7f) {
		// Quotes and control characters other than tab are no delimiter
		// (a fuzzer found "sep=\x00"): such a line is read as data.
		return l[4], true
	}
	return 0, false
}

// leadingComments counts the blank and '#' comment lines at the top, and
// returns the index of the last comment among them (-1 if none).
func leadingComments(lines [][]byte) (n, lastComment int) {
	lastComment = -1
	for n < len(lines) {
		l := strings.TrimSpace(string(lines[n]))
		if l != "" && !strings.HasPrefix(l, "#") {
			break
		}
		if l != "" {
			lastComment = n
		}
		n++
	}
	return n, lastComment
}

// chooseDialect scores each candidate delimiter, with the quote that suits
// it best (or quote, when it is not 0: see CSVOptions.Quote), and returns
// the best.
func chooseDialect(body, candidates []byte, quote byte, complete bool) dialectScore {
	var best dialectScore
	for i, d := range candidates {
		sc := quotedScore(body, d, quote, complete)
		sc.order = i
		if i == 0 || sc.better(best) {
			best = sc
		}
	}
	if best.mode <= 1 {
		// Single-column data: no delimiter ever splits a line, so there is
		// no table width to tell titles from rows.
		best = quotedScore(body, candidates[0], quote, complete)
		best.titles, best.skipLines = 0, 0
		if len(best.rows) > 0 {
			best.skipLines = best.rows[0].line - 1
		}
	}
	return best
}

// quotedScore scores delim with the given quote, or with the one that
// suits it best when quote is 0 (sniff).
func quotedScore(body []byte, delim, quote byte, complete bool) dialectScore {
	switch quote {
	case 0:
		return bestQuote(body, delim, complete)
	case NoQuote:
		return scoreDialect(body, delim, 0, complete)
	}
	return scoreDialect(body, delim, quote, complete)
}

// preferRare returns the best reading of body at a rare delimiter instead
// of common, the best at the common ones, when the evidence for it is
// strong: the sample parses, every line has the same number of fields,
// more than one, with no title above them, no line read whole is a value
// that holds the delimiter itself (a time, an e-mail address, a URL), and
// the common delimiters give no table or a narrower one. A tie keeps the
// common delimiter: "id@amount / 1@1,5" stays comma-separated, as it
// always was.
func preferRare(body []byte, common dialectScore, quote byte, complete bool) dialectScore {
	var best dialectScore
	found := false
	first := body
	if i := bytes.IndexAny(body, "\r\n"); i >= 0 {
		first = body[:i]
	}
	for i, d := range rareDelimiters {
		if d == quote || bytes.IndexByte(first, d) < 0 {
			// A consistent reading splits the first line too (but for a
			// header whose first field holds a line break: then the
			// common reading stays). This keeps most files from being
			// parsed six more times.
			continue
		}
		sc := quotedScore(body, d, quote, complete)
		sc.order = i
		if consistentRare(sc) && (!found || sc.better(best)) {
			best, found = sc, true
		}
	}
	if !found || (common.mode > 1 && best.mode <= common.mode) {
		return common
	}
	return best
}

// consistentRare reports whether sc, a reading at a rare delimiter, splits
// every line of the sample alike into more than one field.
func consistentRare(sc dialectScore) bool {
	if sc.failed || sc.mode < 2 || sc.titles > 0 || sc.skipLines > 0 || sc.misfit > 0 || len(sc.rows) == 0 {
		return false
	}
	for _, r := range sc.rows {
		if len(r.fields) != sc.mode || holdsDelimiter(strings.Join(r.fields, string(sc.delim))) {
			return false
		}
	}
	return true
}

// holdsDelimiter reports whether line, read as one value, is a kind of
// value that has a rare delimiter in it: a date or time (12:30:05), an
// e-mail address (ann@example.com) or a URL (https://example.com). A file
// of such lines is one column, not a table split at ':' or '@'.
func holdsDelimiter(line string) bool {
	t := strings.TrimSpace(line)
	if cellClassOf(t) == cellDate || strings.Contains(t, "://") {
		return true
	}
	return isEmailAddress(t)
}

// isEmailAddress reports whether t looks like local@domain.tld: one '@',
// no spaces or common delimiters, and a domain with a dot and a letter
// (so that "1@2.5", a row of a two-column table, is not one).
func isEmailAddress(t string) bool {
	at := strings.IndexByte(t, '@')
	if at <= 0 || strings.Count(t, "@") != 1 || strings.ContainsAny(t, " ,;\t") {
		return false
	}
	domain := t[at+1:]
	return strings.Contains(domain, ".") && strings.ContainsFunc(domain, isASCIILetter)
}

type sampleRecord struct {
	line   int // where the record starts
	lines  int // physical lines it spans, blank lines after it included
	fields []string
}

// dialectScore is how well one delimiter and quote read the sample.
type dialectScore struct {
	delim, quote byte
	order        int
	rows         []sampleRecord
	failed       bool // a parse error before the end of the sample
	titles       int  // leading records that are not part of the table
	skipLines    int  // physical lines before the first table record
	mode         int  // the table width: the field count most records fit
	// misfit counts the sample's lines, titles included, that are not in
	// records fitting mode, of lines in all. Counting all records keeps a
	// wrong delimiter from winning by calling the header a title; counting
	// lines keeps it from winning by splitting quoted multi-line fields
	// into many short records, and lines a failed parse never reached
	// count against it.
	misfit, lines int
	// typed is the share of non-empty cells below the first table row
	// that are numbers or dates.
	typed float64
}

// fitTolerance is how many more misfit lines still count as about as
// consistent: a few title lines, or a wrong delimiter that happens to split
// every row alike (one decimal comma per row) and misses only the header.
func fitTolerance(lines int) int { return max(3, lines/20) }

// typedMargin is how much larger a share of typed cells must be to decide
// between about as consistent readings.
const typedMargin = 0.1

// better reports whether a reads the sample better than b: a real table
// first, then the lines that fit it. Between near ties the cells decide:
// the right delimiter splits numbers and dates out cleanly ("1,5;2,5" at
// ';') and gives the wider table, where the wrong one glues fields
// together ("1;Anna;40;9" and "5" at ',').
func (a dialectScore) better(b dialectScore) bool {
	if (a.mode > 1) != (b.mode > 1) {
		return a.mode > 1
	}
	if d := a.misfit - b.misfit; d > fitTolerance(a.lines) || -d > fitTolerance(a.lines) {
		return d < 0
	}
	if d := a.typed - b.typed; d > typedMargin || -d > typedMargin {
		return d > 0
	}
	if a.mode != b.mode {
		return a.mode > b.mode
	}
	if a.misfit != b.misfit {
		return a.misfit < b.misfit
	}
	if a.titles != b.titles {
		return a.titles < b.titles
	}
	return a.order < b.order
}

// bestQuote scores delim with the quote that reads body best. A quote
// character counts when fields open with it and the sample then parses;
// between the double and the single quote the one with fewer misfit lines
// wins, then the more used one, the double quote first. With neither, a
// double quote left in the table (titles aside) is literal, so the file is
// read without quoting; a table without any keeps the RFC 4180 default
// '"', which then reads the same.
//
// When '"' opens fields but the sample does not parse, the file is either
// malformed or unquoted with literal quotes. RFC 4180 text has no quote
// inside an unquoted field, so stray quotes at least as many as the fields
// opened with one mean literal quotes (read unquoted); fewer, or a single
// bad field like 1,"x"y, mean a malformed file that keeps '"' so the
// reader reports where.
func bestQuote(body []byte, delim byte, complete bool) dialectScore {
	var best, malformed dialectScore
	bestOpenings, malformedOpenings := 0, 0
	for _, q := range []byte{'"', '\''} {
		if q == delim {
			continue // a delimiter given as a quote character
		}
		open, stray := quoteMarks(body, delim, q)
		if open == 0 {
			continue
		}
		sc := scoreDialect(body, delim, q, complete)
		switch {
		case sc.failed && q == '"' && (stray < open || (stray == open && open < 2)):
			malformed, malformedOpenings = sc, open
		case sc.failed:
		case bestOpenings == 0 || sc.misfit < best.misfit || (sc.misfit == best.misfit && open > bestOpenings):
			best, bestOpenings = sc, open
		}
	}
	switch {
	case bestOpenings > 0:
		return best
	case malformedOpenings > 0:
		// The parse stopped at the bad field; when that was early, the
		// table's shape shows better read without quoting.
		if plain := scoreDialect(body, delim, 0, complete); plain.misfit <= malformed.misfit {
			plain.quote = '"'
			return plain
		}
		return malformed
	}
	sc := scoreDialect(body, delim, 0, complete)
	if delim != '"' && bytes.IndexByte(afterLines(body, sc.skipLines), '"') < 0 {
		sc.quote = '"' // reads the table the same
	}
	return sc
}

// quoteMarks counts, for quote character q, the runs of q that open a
// field (at the start of a line or right after delim), and the stray ones
// RFC 4180 text does not have: an odd run inside a field (text on both
// sides, as in 5'10" tall), or closing runs (before a delimiter or line
// end) beyond the fields opened, as in 27". Inside a quoted field quotes
// come doubled, and every quoted field that closes also opened.
func quoteMarks(body []byte, delim, q byte) (open, stray int) {
	boundary := func(c byte) bool { return c == delim || c == '\n' || c == '\r' }
	closing := 0
	for i := 0; i < len(body); i++ {
		if body[i] != q {
			continue
		}
		j := i
		for j+1 < len(body) && body[j+1] == q {
			j++
		}
		odd := (j-i)%2 == 0
		atEnd := j+1 == len(body) || boundary(body[j+1])
		switch {
		case i == 0 || boundary(body[i-1]):
			open++
		case odd && atEnd:
			closing++
		case odd:
			stray++
		}
		i = j
	}
	// Each opening closes once, properly or with a lone quote (1,"x"y);
	// closings beyond that are stray.
	unclosed := max(open-stray, 0)
	return open, stray + max(closing-unclosed, 0)
}

func scoreDialect(body []byte, delim, quote byte, complete bool) dialectScore {
	sc := dialectScore{delim: delim, quote: quote, lines: countLines(body)}
	sc.misfit = sc.lines
	sc.rows, sc.failed = parseSample(body, delim, quote, complete, 2000)
	sc.titles = countTitles(sc.rows)
	table := sc.rows[sc.titles:]
	if len(table) == 0 {
		return sc
	}
	sc.skipLines = table[0].line - 1
	var fits int
	sc.mode, fits = tableWidth(table)
	sc.misfit -= fits
	sc.typed = typedShare(table[1:])
	return sc
}

// typedShare is the share of non-empty cells in the first rows that read
// as numbers or dates. Callers leave out the first table row, which may be
// a header.
func typedShare(rows []sampleRecord) float64 {
	typed, filled := 0, 0
	for _, r := range rows[:min(len(rows), headerVoteRows)] {
		for _, f := range r.fields {
			switch cellClassOf(f) {
			case cellEmpty:
			case cellText:
				filled++
			default:
				filled++
				typed++
			}
		}
	}
	if filled == 0 {
		return 0
	}
	return float64(typed) / float64(filled)
}

// countTitles counts the leading records that are titles, notes, blank or
// key/value lines above the table: records much narrower than the table
// (padded with empty fields or not), and narrower lines starting with '#'.
func countTitles(rows []sampleRecord) int {
	width := commonWidth(rows)
	t := 0
	for t < len(rows) && isPreamble(rows[t].fields, width) {
		t++
	}
	if t == len(rows) {
		return 0
	}
	return t
}

func isPreamble(fields []string, width int) bool {
	n := filledWidth(fields)
	if strings.HasPrefix(fields[0], "#") {
		// A comment, unless it is as wide as the table: then it is a
		// header with a column named "#".
		return n < width
	}
	// One filled field is a title; two are a key/value pair only when the
	// table is clearly wider, not a sparse first row of a narrow table.
	return n < width && (n <= 1 || (n == 2 && width >= 4))
}

// commonWidth is the most common filled width among the records of the
// sample's second half with at least two filled fields (the table's
// rows), or 1 when there are none; ties go to the wider. The second half
// is all table even when a short table sits under several title or
// key/value lines. Filled widths ignore trailing delimiters, which some
// exporters put on data lines only.
func commonWidth(rows []sampleRecord) int {
	counts := map[int]int{}
	for _, r := range rows[len(rows)/2:] {
		if n := filledWidth(r.fields); n >= 2 {
			counts[n]++
		}
	}
	width := 1
	for n, c := range counts {
		if c > counts[width] || (c == counts[width] && n > width) {
			width = n
		}
	}
	return width
}

// fitsWidth reports whether a record has n fields, or more whose extra
// ones are empty (a trailing delimiter).
func fitsWidth(fields []string, n int) bool {
	return len(fields) >= n && filledWidth(fields) <= n
}

// filledWidth is the number of fields up to the last non-empty one.
func filledWidth(fields []string) int {
	n := len(fields)
	for n > 0 && strings.TrimSpace(fields[n-1]) == "" {
		n--
	}
	return n
}

// countLines counts the lines of text, a last unterminated one included.
func countLines(text []byte) int {
	n := 0
	for i, c := range text {
		if c == '\n' || (c == '\r' && (i+1 == len(text) || text[i+1] != '\n')) {
			n++
		}
	}
	if len(text) > 0 && text[len(text)-1] != '\n' && text[len(text)-1] != '\r' {
		n++
	}
	return n
}

// tableWidth returns the field count that most of the table's lines fit,
// and how many lines fit it. A record fits n when it has n fields, or more
// whose extra ones are empty (a trailing delimiter). Ties go to the
// narrower count, which a header without the trailing delimiter fits.
func tableWidth(table []sampleRecord) (width, fits int) {
	// A record fits every n from its filled width to its field count:
	// add its lines over that range with a difference array.
	widest := 0
	for _, r := range table {
		widest = max(widest, len(r.fields))
	}
	diff := make([]int, widest+2)
	for _, r := range table {
		diff[filledWidth(r.fields)] += r.lines
		diff[len(r.fields)+1] -= r.lines
	}
	f := 0
	for n := 0; n <= widest; n++ {
		f += diff[n]
		if f > fits {
			width, fits = n, f
		}
	}
	return width, fits
}

// parseSample parses up to limit records of text. A parse error ends the
// sample and marks it failed, except an unterminated quote near the end
// of an incomplete sample: the cut may have split a quoted field.
func parseSample(text []byte, delim, quote byte, complete bool, limit int) (rows []sampleRecord, failed bool) {
	s := newCSVScannerSize(bytes.NewReader(text), delim, quote, 1<<30, 1<<20, min(len(text)+1, 256<<10))
	defer func() { setSpans(rows, s.line) }()
	for len(rows) < limit {
		err := s.readRecord()
		if err == io.EOF {
			break
		}
		if err != nil {
			cut := !complete && s.pos >= s.end && s.line-s.recLine < 100
			return rows, !cut
		}
		rec := sampleRecord{line: s.recLine, fields: make([]string, s.fieldCount())}
		for i := range rec.fields {
			rec.fields[i] = string(s.field(i))
		}
		rows = append(rows, rec)
	}
	return rows, false
}

// setSpans sets each record's line span from where the next one starts;
// the last one ends at end.
func setSpans(rows []sampleRecord, end int) {
	for i := range rows {
		next := end
		if i+1 < len(rows) {
			next = rows[i+1].line
		}
		rows[i].lines = max(next-rows[i].line, 1)
	}
}

// parseSampleRecords parses up to limit records of text, ignoring errors.
func parseSampleRecords(text []byte, delim, quote byte, complete bool, limit int) []sampleRecord {
	rows, _ := parseSample(text, delim, quote, complete, limit)
	return rows
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

// afterLines returns text without its first n lines.
func afterLines(text []byte, n int) []byte {
	for ; n > 0 && len(text) > 0; n-- {
		i := bytes.IndexAny(text, "\r\n")
		if i < 0 {
			return nil
		}
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
	return text
}

// isHeader decides whether first names the columns of the rows below it.
// Each column votes: a label above typed values (text over numbers or
// dates, a year over other numbers, as in "Country,2023,2024") says
// header; a value of the column's own type, or a text that recurs below
// it, says data. Without votes, first is a header when it is all text.
// Names must be distinct either way.
func isHeader(first []string, rows []sampleRecord) bool {
	if !distinctNames(first) {
		return false
	}
	votes := 0
	for j, label := range first {
		votes += columnVote(strings.TrimSpace(label), columnValues(rows, j))
	}
	if votes != 0 {
		return votes > 0
	}
	return looksLikeHeader(first)
}

// headerVoteRows bounds the rows a header vote looks at.
const headerVoteRows = 200

// columnValues returns the non-empty values of column j.
func columnValues(rows []sampleRecord, j int) []string {
	var out []string
	for _, r := range rows[:min(len(rows), headerVoteRows)] {
		if j < len(r.fields) {
			if v := strings.TrimSpace(r.fields[j]); v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

func columnVote(label string, values []string) int {
	top := cellClassOf(label)
	if top == cellEmpty || len(values) == 0 {
		return 0
	}
	if top == cellText && slices.Contains(values, label) {
		return -1
	}
	col, ok := dominantClass(values)
	switch {
	case !ok:
		return 0
	case top == cellText:
		if col != cellText {
			return 1
		}
		return 0
	case top == cellYear && col == cellNumber:
		return 1
	case top.numeric() && col.numeric(), top == col:
		return -1
	}
	return 0
}

// dominantClass is the class of at least 60% of values, if one is.
func dominantClass(values []string) (cellClass, bool) {
	var counts [cellDate + 1]int
	for _, v := range values {
		counts[cellClassOf(v)]++
	}
	for c, n := range counts {
		if n*10 >= len(values)*6 {
			return cellClass(c), true
		}
	}
	return cellEmpty, false
}

// distinctNames reports whether first could name columns: mostly
// non-empty, and no name used twice.
func distinctNames(first []string) bool {
	seen := map[string]bool{}
	for _, f := range first {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if seen[f] {
			return false
		}
		seen[f] = true
	}
	return len(seen) > 0 && len(seen)*2 >= len(first)
}

// looksLikeHeader reports whether first reads as column names: non-empty,
// distinct and with no numbers or dates.
func looksLikeHeader(first []string) bool {
	if !distinctNames(first) {
		return false
	}
	for _, f := range first {
		if looksTyped(f) {
			return false
		}
	}
	return true
}

// cellClass is the type a sample value reads as.
type cellClass int

const (
	cellEmpty cellClass = iota
	cellText
	cellNumber
	cellYear // a four-digit integer from 1800 to 2199
	cellDate
)

func (c cellClass) numeric() bool { return c == cellNumber || c == cellYear }

var dateLayouts = []string{
	"2006-01-02", "2006/01/02", "01/02/2006", "02/01/2006", "02.01.2006", "2006-01-02 15:04:05",
	"2006-01-02T15:04:05", time.RFC3339, time.RFC3339Nano, "15:04:05", "15:04",
}

func cellClassOf(s string) cellClass {
	t := strings.TrimSpace(s)
	switch {
	case t == "":
		return cellEmpty
	case len(t) == 4 && t >= "1800" && t <= "2199" && isDigits(t):
		return cellYear
	case isNumber(t):
		return cellNumber
	case t[0] >= '0' && t[0] <= '9' && isDate(t):
		return cellDate
	}
	return cellText
}

// looksTyped reports whether s is a number or a date/time.
func looksTyped(s string) bool {
	c := cellClassOf(s)
	return c != cellEmpty && c != cellText
}

func isDate(t string) bool {
	// Skip time.Parse, whose failures allocate, for what cannot be a date.
	if len(t) > len(time.RFC3339Nano) || strings.Trim(t, "0123456789-/.:+TZ ") != "" {
		return false
	}
	for _, l := range dateLayouts {
		if _, err := time.Parse(l, t); err == nil {
			return true
		}
	}
	return false
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// isNumber accepts numbers as exports write them: a sign, a currency
// symbol or percent sign, an exponent, and either '.' or ',' as the
// decimal mark with the other (or a space) grouping thousands: 1,234.5,
// 1.234,5, 1 234,5, -12,50 €, 12 %, 1.5E-3. Groups after the first have
// three digits, so "1,2,3" is not a number.
func isNumber(s string) bool {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	t = strings.TrimSpace(strings.Trim(t, "$€£¥"))
	t = strings.TrimLeft(t, "+-")
	if i := strings.IndexAny(t, "eE"); i > 0 {
		exp := strings.TrimLeft(t[i+1:], "+-")
		if !isDigits(exp) {
			return false
		}
		t = t[:i]
	}
	if strings.HasPrefix(t, ",") {
		return false // ",5" is more often a fragment than a half
	}
	intPart, frac, group := splitNumber(t)
	if frac != "" && !isDigits(frac) {
		return false
	}
	if strings.Contains(intPart, " ") {
		if group != 0 {
			return false
		}
		group = ' '
	}
	return (intPart != "" || frac != "") && validGroups(intPart, group)
}

// splitNumber splits t at its decimal mark and returns the grouping mark:
// with both '.' and ',' the later one is decimal; a mark used once is
// decimal; a mark used more than once groups thousands.
func splitNumber(t string) (intPart, frac string, group byte) {
	dots, commas := strings.Count(t, "."), strings.Count(t, ",")
	switch {
	case dots > 0 && commas > 0:
		d := max(strings.LastIndexByte(t, '.'), strings.LastIndexByte(t, ','))
		group = ','
		if t[d] == ',' {
			group = '.'
		}
		return t[:d], t[d+1:], group
	case dots+commas == 1:
		d := strings.IndexAny(t, ".,")
		return t[:d], t[d+1:], 0
	case dots > 1:
		return t, "", '.'
	case commas > 1:
		return t, "", ','
	}
	return t, "", 0
}

// validGroups reports whether digits, grouped by group (0 for none), form
// an integer part: 1234, or 1,234,567 with three digits after each mark.
func validGroups(digits string, group byte) bool {
	if group == 0 {
		return digits == "" || isDigits(digits)
	}
	parts := strings.Split(digits, string(group))
	if len(parts[0]) < 1 || len(parts[0]) > 3 || !isDigits(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 || !isDigits(p) {
			return false
		}
	}
	return true
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

func isASCIILetter(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }
