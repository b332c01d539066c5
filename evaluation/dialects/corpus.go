package dialects

import "fmt"

// Seed fixes the corpus. Changing it rewrites every generated file.
const Seed = 20260301

// randomCases is how many files are drawn at random on top of the
// hand-written scenarios.
const randomCases = 140

const (
	lf   = "\n"
	crlf = "\r\n"
	cr   = "\r"
)

// base is the plainest file: a comma-separated UTF-8 table with a header,
// minimal double quoting and LF line ends. Scenarios change what they test.
func base(slug string, sc schema, rows int) spec {
	return spec{slug: slug, schema: sc, rows: rows, header: true, delim: ',', quote: '"', style: quoteMinimal, eol: lf, enc: encUTF8, ext: "csv"}
}

// with returns s changed by f, so a scenario reads as a list of edits.
func (s spec) with(f func(*spec)) spec {
	f(&s)
	return s
}

func semicolonEU(s *spec) { s.delim, s.european = ';', true }
func tsv(s *spec)         { s.delim, s.ext = '\t', "tsv" }
func pipe(s *spec)        { s.delim, s.ext = '|', "txt" }
func excel(s *spec)       { s.eol = crlf }
func unquoted(s *spec)    { s.style = quoteNever }
func singleQ(s *spec)     { s.quote = '\'' }
func noHeader(s *spec)    { s.header = false }

// scenarios are hand-written files, one per shape the product issue names.
func scenarios() []spec {
	return []spec{
		base("plain-comma", sales, 40),
		base("excel-crlf-bom", sales, 60).with(func(s *spec) { excel(s); s.enc = encUTF8BOM }),
		base("excel-eu-semicolon", sales, 80).with(func(s *spec) { semicolonEU(s); excel(s) }),
		base("excel-eu-bookings-1252", bookings, 120).with(func(s *spec) { semicolonEU(s); excel(s); s.enc = encWindows1252 }),
		base("eu-bookings-sep-line", bookings, 50).with(func(s *spec) { semicolonEU(s); excel(s); s.pre = []preamble{preSep} }),
		base("sep-line-comma", customers, 30).with(func(s *spec) { excel(s); s.pre = []preamble{preSep} }),
		base("sep-line-tab", events, 30).with(func(s *spec) { tsv(s); s.pre = []preamble{preSep} }),
		base("tab-commas-in-text", events, 70).with(tsv),
		base("tab-unquoted-literal-quotes", catalog, 90).with(func(s *spec) { tsv(s); unquoted(s) }),
		base("pipe-unquoted", customers, 45).with(func(s *spec) { pipe(s); unquoted(s) }),
		base("pipe-quoted", events, 45).with(pipe),
		base("single-quotes", customers, 35).with(singleQ),
		base("single-quotes-all", sales, 25).with(func(s *spec) { singleQ(s); s.style = quoteAll }),
		base("quote-all", customers, 30).with(func(s *spec) { s.style = quoteAll }),
		base("quote-nonnumeric", sales, 30).with(func(s *spec) { s.style = quoteNonNumeric }),
		base("embedded-newlines", customers, 50).with(excel),
		base("embedded-newlines-cr", customers, 50).with(func(s *spec) { s.eol = cr }),
		base("old-mac-cr", sensors, 40).with(func(s *spec) { s.eol = cr }),
		base("comments-above-header", sensors, 30).with(func(s *spec) { s.pre = []preamble{preComment, preComment} }),
		base("comments-and-blank", sales, 30).with(func(s *spec) { s.pre = []preamble{preComment, preComment, preBlank} }),
		base("title-above-header", sales, 30).with(func(s *spec) { s.pre = []preamble{preTitle} }),
		base("title-export-blank", sales, 30).with(func(s *spec) { s.pre = []preamble{preTitle, preExported, preBlank} }),
		base("title-eu", bookings, 30).with(func(s *spec) { semicolonEU(s); s.pre = []preamble{preTitle, preBlank} }),
		base("excel-padded-title", quarterly, 20).with(func(s *spec) { excel(s); s.pre = []preamble{prePaddedTitle, prePaddedBlank} }),
		base("excel-padded-title-eu", bookings, 20).with(func(s *spec) { semicolonEU(s); excel(s); s.pre = []preamble{prePaddedTitle, prePaddedBlank} }),
		base("quoted-title", sales, 25).with(func(s *spec) { s.pre = []preamble{preQuotedTitle, preBlank} }),
		base("key-value-metadata", sales, 40).with(func(s *spec) { s.pre = []preamble{preKeyValue, preKeyValue, preBlank} }),
		base("blank-lines-above", customers, 20).with(func(s *spec) { s.pre = []preamble{preBlank, preBlank} }),
		base("headerless-numeric", sensors, 50).with(noHeader),
		base("headerless-numeric-semicolon", sensors, 50).with(func(s *spec) { semicolonEU(s); noHeader(s) }),
		base("headerless-numeric-tab", metrics(8), 60).with(func(s *spec) { tsv(s); noHeader(s) }),
		base("headerless-events", events, 40).with(noHeader),
		base("headerless-with-title", sensors, 40).with(func(s *spec) { noHeader(s); s.pre = []preamble{preExported} }),
		base("year-columns-header", yearly(2015, 2025), 30),
		base("world-bank-wide", yearly(1960, 2024), 25).with(func(s *spec) { s.style = quoteAll; s.pre = []preamble{preKeyValue, preBlank, preKeyValue, preBlank} }),
		base("quarter-header", quarterly, 15),
		base("numbered-sensor-header", numberedSensors, 40),
		base("wide-80-columns", metrics(80), 30),
		base("wide-60-semicolon", metrics(60), 30).with(semicolonEU),
		base("large-comma", sales, 1500),
		base("large-eu-1252", bookings, 2500).with(func(s *spec) { semicolonEU(s); excel(s); s.enc = encWindows1252 }),
		base("large-tab-utf16", events, 1200).with(func(s *spec) { tsv(s); s.enc = encUTF16LE }),
		base("large-multiline", customers, 1400).with(excel),
		base("utf16le-bom", customers, 30).with(func(s *spec) { tsv(s); excel(s); s.enc = encUTF16LE }),
		base("utf16be-bom", sales, 30).with(func(s *spec) { semicolonEU(s); s.enc = encUTF16BE }),
		base("utf16le-no-bom", sensors, 30).with(func(s *spec) { s.enc = encUTF16LENoBOM }),
		base("windows-1252-accents", customers, 40).with(func(s *spec) { s.enc = encWindows1252 }),
		base("windows-1252-euro", catalog, 40).with(func(s *spec) { semicolonEU(s); s.enc = encWindows1252 }),
		base("header-only", sales, 0),
		base("one-row", customers, 1),
		base("two-rows-semicolon", catalog, 2).with(semicolonEU),
		base("headerless-one-row", sensors, 1).with(noHeader),
		base("single-column-header", emails, 25),
		base("single-column-names", names, 12),
		base("single-column-ids", ids, 30).with(noHeader),
		base("single-column-amounts", amounts, 20),
		base("trailing-delimiter-all", sales, 30).with(func(s *spec) { s.trailing = trailAll }),
		base("trailing-delimiter-data", sensors, 30).with(func(s *spec) { s.trailing = trailData; semicolonEU(s) }),
		base("ragged-tail", sales, 30).with(func(s *spec) { s.ragged = 3 }),
		base("no-final-newline", catalog, 20).with(func(s *spec) { s.ending = endNone }),
		base("trailing-blank-line", catalog, 20).with(func(s *spec) { s.ending = endBlankLine; excel(s) }),
		base("survey-wide", survey, 60),
		base("narrow-two-columns", catalog, 30).with(func(s *spec) { s.keepCols = 2 }),
		base("raw-title-with-comma", sales, 30).with(func(s *spec) { s.pre = []preamble{preRawTitle, preBlank} }),
		base("hash-named-column", leaderboard, 40),
		base("hash-named-column-title", leaderboard, 40).with(func(s *spec) { semicolonEU(s); s.pre = []preamble{preTitle} }),
		base("headerless-customers", customers, 40).with(noHeader),
		base("headerless-quarterly", quarterly, 25).with(func(s *spec) { noHeader(s); tsv(s) }),
		base("tickets-multiline", tickets, 30).with(excel),
		base("large-tickets-window-cut", tickets, 120).with(excel),
		base("large-tickets-single-quote", tickets, 110).with(func(s *spec) { singleQ(s); semicolonEU(s) }),
		// The first 64 KiB are ASCII: only the rest shows windows-1252.
		base("large-1252-late-accents", lateAccents, 3200).with(func(s *spec) { semicolonEU(s); excel(s); s.enc = encWindows1252 }),
	}
}

// randomSpec draws a file the way real exports vary: mostly commas and
// minimal quoting, a fair share of European, tab and pipe files, some
// preambles, line ends and encodings.
func randomSpec(r *rng, i int) spec {
	schemas := []schema{sales, customers, sensors, numberedSensors, bookings, yearly(2018, 2025), quarterly, metrics(12), catalog, events, survey, emails, ids, tickets, leaderboard}
	s := base(fmt.Sprintf("random-%03d", i), pick(r, schemas), 0)
	s.rows = [...]int{r.between(1, 4), r.between(5, 120), r.between(121, 400), r.between(700, 1500)}[r.weighted(10, 65, 15, 10)]
	if s.schema.longRows {
		s.rows = max(1, s.rows/10)
	}
	if s.schema.typed && r.chance(25) {
		// A headerless one-liner shows no table shape to sniff.
		s.header, s.rows = false, max(s.rows, 3)
	}
	single := s.schema.singleColumn()
	switch {
	case single:
	case r.chance(25):
		semicolonEU(&s)
	default:
		switch r.weighted(55, 10, 22, 13) {
		case 1:
			s.delim = ';'
		case 2:
			tsv(&s)
			if r.chance(30) {
				s.ext = "txt"
			}
		case 3:
			pipe(&s)
		}
	}
	switch r.weighted(55, 10, 10, 25) {
	case 1:
		s.style = quoteAll
	case 2:
		s.style = quoteNonNumeric
	case 3:
		s.style = quoteNever
	}
	if s.style != quoteNever && r.chance(15) {
		s.quote = '\''
	}
	s.eol = [...]string{lf, crlf, cr}[r.weighted(50, 40, 10)]
	s.enc = []encoding{encUTF8, encUTF8BOM, encUTF16LE, encUTF16BE, encWindows1252}[r.weighted(50, 15, 10, 5, 20)]
	s.pre = randomPreamble(r, single)
	if !single {
		s.trailing = trailing(r.weighted(85, 8, 7))
		if r.chance(10) {
			s.ragged = r.between(1, 3)
		}
	}
	s.ending = ending(r.weighted(70, 20, 10))
	return s
}

func randomPreamble(r *rng, single bool) []preamble {
	if single || r.chance(55) {
		return nil
	}
	var pre []preamble
	if r.chance(10) {
		pre = append(pre, preSep)
	}
	kinds := []preamble{preComment, preTitle, preExported, preBlank, prePaddedTitle, prePaddedBlank, preKeyValue, preQuotedTitle, preRawTitle}
	for n := r.between(1, 3); n > 0; n-- {
		pre = append(pre, pick(r, kinds))
	}
	return pre
}

// rareDelimiterScenarios are files split at delimiters few exports use.
// They come after the random cases, so that adding them renamed no
// earlier file (a file's values are drawn from its name).
func rareDelimiterScenarios() []spec {
	rare := func(d byte) func(*spec) { return func(s *spec) { s.delim, s.ext = d, "txt" } }
	return []spec{
		base("at-sign", sales, 30).with(rare('@')),
		base("at-sign-emails-quoted", customers, 30).with(rare('@')),
		base("tilde", catalog, 40).with(func(s *spec) { rare('~')(s); excel(s) }),
		base("caret-headerless", sensors, 30).with(func(s *spec) { rare('^')(s); noHeader(s) }),
		base("hash", sales, 25).with(rare('#')),
		base("bang", customers, 25).with(func(s *spec) { rare('!')(s); unquoted(s) }),
		base("colon-quoted-times", events, 30).with(rare(':')),
		base("colon-utf16", sales, 30).with(func(s *spec) { rare(':')(s); s.enc = encUTF16LE }),
	}
}

// specs is the corpus in file order: the scenarios, then random cases
// drawn from seed, then the rare delimiters.
func specs(seed uint64, random int) []spec {
	all := scenarios()
	r := newRNG(seed, "random")
	for i := range random {
		all = append(all, randomSpec(r, i))
	}
	return append(all, rareDelimiterScenarios()...)
}

func fileName(i int, s spec) string {
	return fmt.Sprintf("%03d-%s.%s", i+1, s.slug, s.ext)
}
