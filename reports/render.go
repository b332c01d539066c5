package reports

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/go-pdf/fpdf"
)

// ErrInvalidInput wraps every error Render returns for an Input it cannot
// lay out (unknown kind or level, no generation date), so the service can
// answer 400 rather than 500.
var ErrInvalidInput = errors.New("reports: invalid input")

// Page geometry, in millimetres (A4 portrait).
const (
	marginLeft   = 18.0
	marginRight  = 18.0
	marginTop    = 22.0
	marginBottom = 20.0

	bodySize  = 9.5 // points
	bodyLine  = 5.0
	cellSize  = 8.5
	cellLine  = 4.0
	cellPad   = 1.2 // vertical padding of a table row
	labelWide = 42.0

	// maxTextBytes bounds any one string taken from the Input: text is
	// wrapped, but a hostile megabyte of it would still cost pages and
	// time for nothing a reader wants.
	maxTextBytes = 4000
	// maxCellLines bounds a table row's height so that one long name
	// cannot push a row past the height of a page.
	maxCellLines = 8

	// pagesAlias stands for the page count until fpdf knows it. It holds
	// control characters, which plain never lets through from the data,
	// so no dataset name can be mistaken for it (fpdf's usual "{nb}"
	// would turn a column named "{nb}" into the page count).
	pagesAlias = "\x01nb\x01"

	notCompleted = "To be completed by the controller"
)

type rgb struct{ r, g, b int }

var (
	colourText   = rgb{33, 37, 41}
	colourMuted  = rgb{108, 117, 125}
	colourAccent = rgb{31, 78, 121}
	colourRule   = rgb{206, 212, 218}
	colourHead   = rgb{233, 236, 239}
	colourGood   = rgb{46, 125, 50}
	colourFair   = rgb{230, 145, 0}
	colourPoor   = rgb{198, 40, 40}
)

// doc is one report being laid out: the fpdf document, its cp1252
// translator and the (sanitised) input.
type doc struct {
	pdf *fpdf.Fpdf
	tr  func(string) string
	in  Input
}

// Render lays out in as the PDF of its Kind at its Level. The same Input
// gives the same bytes: every date in the file comes from in.GeneratedAt.
func Render(in Input) (out []byte, err error) {
	if err := validate(in); err != nil {
		return nil, err
	}
	// fpdf is third-party layout code fed with arbitrary names; a report
	// that cannot be drawn must fail the one request, not the process.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("reports: rendering %s: %v", in.Kind, r)
		}
	}()
	d := newDoc(sanitize(in))
	d.cover()
	switch in.Kind {
	case GDPRCompliance:
		d.gdpr()
	case ExecutiveSummary:
		d.executive()
	case AIReadiness:
		d.readiness()
	}
	// Output returns fpdf's accumulated error (pdf.Error()) when any
	// drawing call failed, and writes nothing then.
	var buf bytes.Buffer
	if err := d.pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("reports: rendering %s: %w", in.Kind, err)
	}
	return buf.Bytes(), nil
}

func validate(in Input) error {
	switch in.Kind {
	case GDPRCompliance, ExecutiveSummary, AIReadiness:
	default:
		return fmt.Errorf("%w: unknown report kind %q", ErrInvalidInput, in.Kind)
	}
	if in.Level != Basic && in.Level != Advanced {
		return fmt.Errorf("%w: unknown report level %q", ErrInvalidInput, in.Level)
	}
	// fpdf stamps the clock's time when the date is zero, which would
	// make two renders of one Input differ.
	if in.GeneratedAt.IsZero() {
		return fmt.Errorf("%w: no generation date", ErrInvalidInput)
	}
	return nil
}

func newDoc(in Input) *doc {
	pdf := fpdf.New("P", "mm", "A4", "")
	at := in.GeneratedAt.UTC()
	pdf.SetCreationDate(at)
	pdf.SetModificationDate(at)
	pdf.SetCatalogSort(true)
	pdf.SetMargins(marginLeft, marginTop, marginRight)
	pdf.SetAutoPageBreak(true, marginBottom)
	pdf.AliasNbPages(pagesAlias)
	d := &doc{pdf: pdf, tr: pdf.UnicodeTranslatorFromDescriptor(""), in: in}
	pdf.SetTitle(in.Kind.Title(), true)
	pdf.SetAuthor(plain(in.Organization), true)
	pdf.SetCreator("DQS", true)
	pdf.SetHeaderFuncMode(d.header, true)
	pdf.SetFooterFunc(d.footer)
	d.body()
	pdf.AddPage()
	return d
}

// sanitize returns a copy of in whose numbers are in range: NaN and
// infinities read as 0, scores are held to 0-100, rates and confidences
// to 0-1. No "NaN" or 300-digit score is printed, no chart coordinate is
// undefined, and the computations of readiness.go and recommend.go
// (which compare scores, and NaN compares false) see sane figures.
func sanitize(in Input) Input {
	out := in
	out.Datasets = make([]Dataset, len(in.Datasets))
	for i, ds := range in.Datasets {
		out.Datasets[i] = sanitizeDataset(ds)
	}
	out.Trend = sanitizePoints(in.Trend)
	out.GradeHistory = make([]GradePoint, len(in.GradeHistory))
	for i, g := range in.GradeHistory {
		g.Score = score100(g.Score)
		out.GradeHistory[i] = g
	}
	if in.Readiness != nil {
		a := sanitizeAssessment(*in.Readiness)
		out.Readiness = &a
	}
	if in.Certificate != nil {
		c := *in.Certificate
		c.Score = score100(c.Score)
		out.Certificate = &c
	}
	return out
}

func sanitizeDataset(ds Dataset) Dataset {
	ds.Score = score100(ds.Score)
	ds.Dimensions = Dimensions{score100(ds.Dimensions.Completeness), score100(ds.Dimensions.Validity),
		score100(ds.Dimensions.Uniqueness), score100(ds.Dimensions.Consistency)}
	if ds.PreviousScore != nil {
		p := score100(*ds.PreviousScore)
		ds.PreviousScore = &p
	}
	ds.History = sanitizePoints(ds.History)
	cols := make([]Column, len(ds.Columns))
	for i, c := range ds.Columns {
		c.Confidence, c.NullRate, c.Score = fraction(c.Confidence), fraction(c.NullRate), score100(c.Score)
		cols[i] = c
	}
	ds.Columns = cols
	return ds
}

func sanitizeAssessment(a Assessment) Assessment {
	a.Score = score100(a.Score)
	a.Dimensions = sanitizeDimensions(a.Dimensions)
	sets := make([]DatasetReadiness, len(a.Datasets))
	for i, r := range a.Datasets {
		r.Score = score100(r.Score)
		r.Dimensions = sanitizeDimensions(r.Dimensions)
		sets[i] = r
	}
	a.Datasets = sets
	recs := make([]Recommendation, len(a.Recommendations))
	for i, r := range a.Recommendations {
		r.Impact = score100(r.Impact)
		recs[i] = r
	}
	a.Recommendations = recs
	return a
}

func sanitizeDimensions(dims []DimensionScore) []DimensionScore {
	out := make([]DimensionScore, len(dims))
	for i, s := range dims {
		s.Score, s.Weight = score100(s.Score), fraction(s.Weight)
		out[i] = s
	}
	return out
}

func sanitizePoints(pts []ScorePoint) []ScorePoint {
	out := make([]ScorePoint, len(pts))
	for i, p := range pts {
		out[i] = ScorePoint{At: p.At, Score: score100(p.Score)}
	}
	return out
}

func finite(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0
	}
	return v
}

// score100 is a 0-100 score, finite and in range.
func score100(v float64) float64 { return clamp(finite(v)) }

// fraction is a 0-1 rate or confidence, finite and in range.
func fraction(v float64) float64 { return math.Max(0, math.Min(1, finite(v))) }

// plain makes a string from the Input safe to lay out: valid UTF-8,
// control characters as spaces (a name must not lay itself out) and cut
// at maxTextBytes.
func plain(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= maxTextBytes {
		return s
	}
	cut := maxTextBytes - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// txt turns a UTF-8 string into the cp1252 bytes the core fonts print:
// plain, then a character cp1252 lacks becomes '?'. Every string printed
// goes through txt exactly once: the drawing helpers below take UTF-8 and
// call it themselves.
func (d *doc) txt(s string) string {
	s = plain(s)
	enc := []byte(d.tr(s))
	// fpdf's translator writes one byte per rune and '.' for a rune it
	// cannot map; a real '.' is ASCII, so any other rune that came out as
	// '.' was unmapped.
	i := 0
	for _, r := range s {
		if i < len(enc) && enc[i] == '.' && r != '.' {
			enc[i] = '?'
		}
		i++
	}
	return string(enc)
}

// Fonts and colours.

func (d *doc) font(style string, size float64) { d.pdf.SetFont("Helvetica", style, size) }

func (d *doc) colour(c rgb) { d.pdf.SetTextColor(c.r, c.g, c.b) }

func (d *doc) body() {
	d.font("", bodySize)
	d.colour(colourText)
}

func (d *doc) width() float64 {
	w, _ := d.pdf.GetPageSize()
	return w - marginLeft - marginRight
}

func (d *doc) bottom() float64 {
	_, h := d.pdf.GetPageSize()
	return h - marginBottom
}

// ensure starts a new page unless h millimetres are left on this one, so
// that a heading is not orphaned and a chart is not cut.
func (d *doc) ensure(h float64) {
	if d.pdf.GetY()+h > d.bottom() {
		d.pdf.AddPage()
	}
}

// fit cuts s (cp1252) with "..." so that it fits w millimetres in the
// current font, cell margins included.
func (d *doc) fit(s string, w float64) string {
	avail := w - 2*d.pdf.GetCellMargin()
	if d.pdf.GetStringWidth(s) <= avail {
		return s
	}
	for len(s) > 0 && d.pdf.GetStringWidth(s+"...") > avail {
		s = s[:len(s)-1]
	}
	return s + "..."
}

// wrap splits s (cp1252) into lines of at most w millimetres in the
// current font, at most limit lines, the last cut with "..." when the
// text is longer.
func (d *doc) wrap(s string, w float64, limit int) []string {
	raw := d.pdf.SplitLines([]byte(s), w)
	if len(raw) == 0 {
		return []string{""}
	}
	lines := make([]string, 0, min(len(raw), limit))
	for _, l := range raw {
		if len(lines) == limit {
			lines[limit-1] = d.fit(lines[limit-1]+" ...", w)
			break
		}
		lines = append(lines, string(l))
	}
	return lines
}

// Page furniture.

func (d *doc) header() {
	w := d.width() / 2
	d.font("", 8)
	d.colour(colourMuted)
	d.pdf.SetXY(marginLeft, 9)
	d.pdf.CellFormat(w, 4, d.fit(d.txt(d.in.Kind.Title()), w), "", 0, "L", false, 0, "")
	d.pdf.CellFormat(w, 4, d.fit(d.txt(d.in.Organization), w), "", 0, "R", false, 0, "")
	d.rule(14.5)
}

func (d *doc) footer() {
	_, h := d.pdf.GetPageSize()
	d.rule(h - 15)
	d.font("", 7.5)
	d.colour(colourMuted)
	w := d.width()
	d.pdf.SetXY(marginLeft, h-13.5)
	left := d.txt("Report " + d.in.ReportID + " · generated " + stamp(d.in.GeneratedAt))
	d.pdf.CellFormat(w*0.75, 4, d.fit(left, w*0.75), "", 0, "L", false, 0, "")
	// Not through txt, which would blank the alias's control characters.
	d.pdf.CellFormat(w*0.25, 4, fmt.Sprintf("Page %d of %s", d.pdf.PageNo(), pagesAlias), "", 0, "R", false, 0, "")
}

// rule draws a hairline across the text width.
func (d *doc) rule(y float64) { d.hairline(marginLeft, y, marginLeft+d.width(), y) }

func (d *doc) hairline(x1, y1, x2, y2 float64) {
	d.pdf.SetDrawColor(colourRule.r, colourRule.g, colourRule.b)
	d.pdf.SetLineWidth(0.2)
	d.pdf.Line(x1, y1, x2, y2)
}

// cover is the block every report opens with.
func (d *doc) cover() {
	d.font("B", 22)
	d.colour(colourAccent)
	d.pdf.MultiCell(0, 10, d.txt(d.in.Kind.Title()), "", "L", false)
	if sub := subtitle(d.in.Kind); sub != "" {
		d.font("", 12)
		d.colour(colourMuted)
		d.pdf.MultiCell(0, 6, d.txt(sub), "", "L", false)
	}
	d.pdf.Ln(4)
	d.kv("Organisation", orDash(d.in.Organization))
	d.kv("Generated", stamp(d.in.GeneratedAt))
	d.kv("Period", period(d.in.From, d.in.To))
	d.kv("Level", levelName(d.in.Level))
	d.kv("Report ID", orDash(d.in.ReportID))
	if n := int64(len(d.in.Datasets)); d.in.DatasetsInScope > n {
		d.kv("Datasets", fmt.Sprintf("the %d most recently analysed of %d in scope", n, d.in.DatasetsInScope))
	}
	d.pdf.Ln(2)
	d.rule(d.pdf.GetY())
	d.pdf.Ln(2)
}

func subtitle(k Kind) string {
	switch k {
	case GDPRCompliance:
		return "Record of processing activities under GDPR Article 30(1)"
	case ExecutiveSummary:
		return "Data quality across the organisation"
	case AIReadiness:
		return "Fitness of the data to train or feed a machine-learning model"
	}
	return ""
}

// Text blocks.

// heading starts a section, with a bookmark in the PDF's outline.
func (d *doc) heading(s string) {
	d.pdf.Ln(3)
	d.ensure(30)
	t := d.txt(s)
	d.pdf.Bookmark(t, 0, -1)
	d.font("B", 13)
	d.colour(colourAccent)
	d.pdf.MultiCell(0, 7, t, "", "L", false)
	d.rule(d.pdf.GetY() + 0.5)
	d.pdf.Ln(2.5)
	d.body()
}

func (d *doc) subheading(s string) {
	d.pdf.Ln(1.5)
	d.ensure(22)
	t := d.txt(s)
	d.pdf.Bookmark(t, 1, -1)
	d.font("B", 10.5)
	d.colour(colourText)
	d.pdf.MultiCell(0, 5.5, t, "", "L", false)
	d.pdf.Ln(1)
	d.body()
}

func (d *doc) para(s string) {
	d.body()
	d.pdf.MultiCell(0, bodyLine, d.txt(s), "", "L", false)
	d.pdf.Ln(1.5)
}

// note is a muted remark, such as why a table is empty.
func (d *doc) note(s string) {
	d.font("I", bodySize)
	d.colour(colourMuted)
	d.pdf.MultiCell(0, bodyLine, d.txt(s), "", "L", false)
	d.pdf.Ln(1.5)
	d.body()
}

func (d *doc) bullets(items []string) {
	d.body()
	for _, s := range items {
		d.pdf.SetX(marginLeft + 2)
		d.pdf.CellFormat(4, bodyLine, d.txt("•"), "", 0, "L", false, 0, "")
		d.pdf.MultiCell(0, bodyLine, d.txt(s), "", "L", false)
	}
	d.pdf.Ln(1.5)
}

// kv prints a label and its value on one line, the value wrapped.
func (d *doc) kv(label, value string) {
	d.label(label)
	d.body()
	d.pdf.MultiCell(0, bodyLine, d.txt(value), "", "L", false)
}

// kvMono is kv with the value in Courier: a hash must read unambiguously
// (no 0/O, 1/l confusion) when copied by hand.
func (d *doc) kvMono(label, value string) {
	d.label(label)
	d.pdf.SetFont("Courier", "", 9)
	d.colour(colourText)
	d.pdf.MultiCell(0, bodyLine, d.txt(value), "", "L", false)
	d.body()
}

func (d *doc) label(s string) {
	d.ensure(bodyLine)
	d.font("B", bodySize)
	d.colour(colourMuted)
	d.pdf.CellFormat(labelWide, bodyLine, d.fit(d.txt(s), labelWide), "", 0, "L", false, 0, "")
}

// big prints a headline figure and what it is.
func (d *doc) big(figure, caption string) {
	d.ensure(20)
	d.font("B", 30)
	d.colour(colourAccent)
	d.pdf.MultiCell(0, 13, d.txt(figure), "", "L", false)
	d.font("", 10)
	d.colour(colourMuted)
	d.pdf.MultiCell(0, bodyLine, d.txt(caption), "", "L", false)
	d.pdf.Ln(2)
	d.body()
}

// field is a labelled empty box for what only the controller knows: DQS
// leaves it visibly blank rather than invent an answer.
func (d *doc) field(label string) {
	const boxH = 16.0
	d.ensure(bodyLine*2 + boxH)
	d.font("B", bodySize)
	d.colour(colourText)
	d.pdf.MultiCell(0, bodyLine, d.txt(label), "", "L", false)
	y := d.pdf.GetY() + 0.5
	d.pdf.SetDrawColor(colourMuted.r, colourMuted.g, colourMuted.b)
	d.pdf.SetLineWidth(0.3)
	d.pdf.Rect(marginLeft, y, d.width(), boxH, "D")
	d.font("I", 8.5)
	d.colour(colourMuted)
	d.pdf.SetXY(marginLeft, y+1)
	d.pdf.CellFormat(d.width(), cellLine, d.txt(notCompleted), "", 0, "L", false, 0, "")
	d.pdf.SetXY(marginLeft, y+boxH+3)
	d.body()
}

// Tables.

// col is a table column: its heading, its share of the text width (the
// shares are normalised, so any subset of columns adds up) and whether it
// holds numbers, which align right.
type col struct {
	head  string
	share float64
	num   bool
}

// table is a table to draw; empty is the note printed instead when it has
// no rows, and lines bounds the lines of a cell (maxCellLines if 0).
type table struct {
	cols  []col
	rows  [][]string
	empty string
	lines int
}

// table draws t, repeating its heading row on each page it runs onto.
// Cells wrap; a cell longer than its line budget ends with "...".
func (d *doc) table(t table) {
	if len(t.rows) == 0 {
		d.note(t.empty)
		return
	}
	widths := d.widths(t.cols)
	d.tableHead(t.cols, widths)
	lines := t.lines
	if lines == 0 {
		lines = maxCellLines
	}
	d.font("", cellSize)
	for _, row := range t.rows {
		cells := make([][]string, len(t.cols))
		n := 1
		for i := range t.cols {
			text := ""
			if i < len(row) {
				text = d.txt(row[i])
			}
			cells[i] = d.wrap(text, widths[i], lines)
			n = max(n, len(cells[i]))
		}
		h := float64(n)*cellLine + 2*cellPad
		if d.pdf.GetY()+h > d.bottom() {
			d.pdf.AddPage()
			d.tableHead(t.cols, widths)
			d.font("", cellSize)
		}
		d.tableRow(t.cols, widths, cells, h)
	}
	d.pdf.Ln(3)
	d.body()
}

func (d *doc) widths(cols []col) []float64 {
	var sum float64
	for _, c := range cols {
		sum += c.share
	}
	out := make([]float64, len(cols))
	for i, c := range cols {
		out[i] = d.width() * c.share / sum
	}
	return out
}

func (d *doc) tableHead(cols []col, widths []float64) {
	d.font("B", cellSize)
	cells := make([][]string, len(cols))
	n := 1
	for i, c := range cols {
		cells[i] = d.wrap(d.txt(c.head), widths[i], 3)
		n = max(n, len(cells[i]))
	}
	h := float64(n)*cellLine + 2*cellPad
	// A heading row alone at the foot of a page is useless: keep it with
	// at least one row.
	d.ensure(h + cellLine + 2*cellPad)
	d.pdf.SetFillColor(colourHead.r, colourHead.g, colourHead.b)
	d.pdf.Rect(marginLeft, d.pdf.GetY(), d.width(), h, "F")
	d.tableRow(cols, widths, cells, h)
}

func (d *doc) tableRow(cols []col, widths []float64, cells [][]string, h float64) {
	d.colour(colourText)
	x, y := marginLeft, d.pdf.GetY()
	for i, lines := range cells {
		align := "L"
		if cols[i].num {
			align = "R"
		}
		for j, l := range lines {
			d.pdf.SetXY(x, y+cellPad+float64(j)*cellLine)
			d.pdf.CellFormat(widths[i], cellLine, l, "", 0, align, false, 0, "")
		}
		x += widths[i]
	}
	d.rule(y + h)
	d.pdf.SetXY(marginLeft, y+h)
}

// Shared sections.

// recommendations prints ranked steps, the first limit of them (all if
// limit <= 0).
func (d *doc) recommendations(recs []Recommendation, limit int) {
	shown := recs
	if limit > 0 && len(recs) > limit {
		shown = recs[:limit]
		d.note(fmt.Sprintf("The %d steps of highest impact of %d; the advanced report lists them all.", limit, len(recs)))
	}
	rows := make([][]string, len(shown))
	for i, r := range shown {
		rows[i] = []string{strconv.Itoa(i + 1), r.Dataset, r.Action, r.Why, score1(r.Impact)}
	}
	d.table(table{cols: []col{{"#", 0.05, true}, {"Dataset", 0.18, false}, {"Action", 0.37, false},
		{"Why", 0.30, false}, {"Impact (points)", 0.10, true}},
		rows: rows, empty: "No recommendation: no issue or personal data calls for a step."})
}

// columnField is one column of a per-column table.
type columnField struct {
	col
	value func(Column) string
}

var (
	fieldName       = columnField{col{"Column", 0.26, false}, func(c Column) string { return c.Name }}
	fieldType       = columnField{col{"Type", 0.11, false}, func(c Column) string { return orDash(c.Type) }}
	fieldClass      = columnField{col{"Classification", 0.17, false}, func(c Column) string { return orDash(c.Classification) }}
	fieldCategory   = columnField{col{"Category", 0.14, false}, func(c Column) string { return orDash(c.Category) }}
	fieldConfidence = columnField{col{"Confidence", 0.11, true}, func(c Column) string { return fmt.Sprintf("%.2f", c.Confidence) }}
	fieldNullRate   = columnField{col{"Null rate", 0.10, true}, func(c Column) string { return percent(c.NullRate) }}
	fieldDistinct   = columnField{col{"Distinct", 0.11, true}, func(c Column) string { return count(c.Distinct) }}
	fieldScore      = columnField{col{"Score", 0.09, true}, func(c Column) string { return score1(c.Score) }}
)

// columnTable prints a dataset's columns with the given fields.
func (d *doc) columnTable(cols []Column, fields ...columnField) {
	heads := make([]col, len(fields))
	for i, f := range fields {
		heads[i] = f.col
	}
	rows := make([][]string, len(cols))
	for i, c := range cols {
		row := make([]string, len(fields))
		for j, f := range fields {
			row[j] = f.value(c)
		}
		rows[i] = row
	}
	d.table(table{cols: heads, rows: rows, empty: "No column was profiled."})
}

// datasetFacts prints what every per-dataset section opens with.
func (d *doc) datasetFacts(ds Dataset) {
	d.kv("Kind", orDash(string(ds.Kind)))
	d.kv("Location", orDash(ds.Location))
	d.kv("Analysed", stamp(ds.AnalysedAt))
	d.kv("Rows", count(ds.Rows))
	d.kv("Quality score", score1(ds.Score))
	d.pdf.Ln(2)
}

// Formatting.

func score1(v float64) string { return strconv.FormatFloat(finite(v), 'f', 1, 64) }

func percent(share float64) string { return score1(100*share) + "%" }

func signed(v float64) string {
	if v > 0 {
		return "+" + score1(v)
	}
	return score1(v)
}

// count prints n with thousands separators.
func count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "n/a"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

func day(t time.Time) string {
	if t.IsZero() {
		return "n/a"
	}
	return t.UTC().Format("2006-01-02")
}

func period(from, to *time.Time) string {
	switch {
	// To is exclusive; the last day covered is the one before it.
	case from != nil && to != nil:
		return day(*from) + " to " + day(to.Add(-time.Nanosecond))
	case from != nil:
		return "from " + day(*from)
	case to != nil:
		return "up to " + day(to.Add(-time.Nanosecond))
	}
	return "all analyses"
}

func levelName(l Level) string {
	if l == Advanced {
		return "Advanced"
	}
	return "Basic"
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// capital upper-cases the first letter of a dimension key for a label.
func capital(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// scoreColour bands a 0-100 score like the grades: good from 80, fair
// from 60, poor below.
func scoreColour(v float64) rgb {
	switch {
	case v >= 80:
		return colourGood
	case v >= 60:
		return colourFair
	}
	return colourPoor
}
