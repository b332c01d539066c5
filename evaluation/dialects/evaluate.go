package dialects

import (
	"bytes"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/dqs/dqs/readers"
)

// Target is the share of corpus files whose dialect and row count must be
// detected fully right.
const Target = 0.95

//go:embed testdata
var corpus embed.FS

// Observed is what the reader detected for one file.
type Observed struct {
	Delimiter rune
	Quote     rune
	HasHeader bool
	SkipLines int
	Encoding  string
	RowCount  int // -1 when reading failed
	Columns   int
}

// Result pairs a file's expected dialect with what the reader returned.
type Result struct {
	Want Entry
	Got  Observed
	Err  error // from Open or Next; the file then counts as wrong
}

// Report is the outcome of one evaluation run.
type Report struct {
	Results []Result
}

// attribute is one thing the evaluation checks on every file.
type attribute struct {
	name string
	// target marks the attributes that make a file "fully right".
	target bool
	right  func(want Entry, got Observed) bool
	show   func(e Entry) string
}

var attributes = []attribute{
	{"delimiter", true, func(w Entry, g Observed) bool { return w.Delimiter == g.Delimiter },
		func(e Entry) string { return char(e.Delimiter) }},
	{"quote", true, func(w Entry, g Observed) bool { return w.Quote == g.Quote },
		func(e Entry) string { return char(e.Quote) }},
	{"header", true, func(w Entry, g Observed) bool { return w.HasHeader == g.HasHeader },
		func(e Entry) string { return fmt.Sprint(e.HasHeader) }},
	{"skip lines", true, func(w Entry, g Observed) bool { return w.SkipLines == g.SkipLines },
		func(e Entry) string { return fmt.Sprint(e.SkipLines) }},
	{"encoding", true, func(w Entry, g Observed) bool { return w.Encoding == g.Encoding },
		func(e Entry) string { return e.Encoding }},
	{"row count", true, func(w Entry, g Observed) bool { return w.RowCount == g.RowCount },
		func(e Entry) string { return fmt.Sprint(e.RowCount) }},
	// Columns follow from the rest; they are shown, not part of the target.
	{"columns", false, func(w Entry, g Observed) bool { return w.Columns == g.Columns },
		func(e Entry) string { return fmt.Sprint(e.Columns) }},
}

// asEntry puts observed values where attribute.show can print them.
func (o Observed) asEntry() Entry {
	return Entry{Delimiter: o.Delimiter, Quote: o.Quote, HasHeader: o.HasHeader, SkipLines: o.SkipLines,
		Encoding: o.Encoding, RowCount: o.RowCount, Columns: o.Columns}
}

func char(r rune) string {
	switch r {
	case 0:
		return "none"
	case '\t':
		return "tab"
	}
	return fmt.Sprintf("%q", r)
}

// Evaluate runs the reader over the committed corpus.
func Evaluate() (*Report, error) {
	fsys, err := fs.Sub(corpus, "testdata")
	if err != nil {
		return nil, err
	}
	return evaluateFS(fsys)
}

// evaluateFS runs the reader over the corpus in fsys (a manifest and its
// files).
func evaluateFS(fsys fs.FS) (*Report, error) {
	m, err := readManifest(fsys)
	if err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, want := range m.Files {
		data, err := fs.ReadFile(fsys, want.File)
		if err != nil {
			return nil, fmt.Errorf("corpus file listed in the manifest: %w", err)
		}
		got, err := observe(data, want.File)
		rep.Results = append(rep.Results, Result{Want: want, Got: got, Err: err})
	}
	return rep, nil
}

// observe reads one file through the public API as a user's upload would
// be read. The dialect is taken after the rows, so a reader that learns
// more past its sniff window (an encoding, say) is credited for it.
func observe(data []byte, name string) (Observed, error) {
	got := Observed{RowCount: -1}
	r, err := readers.Open(bytes.NewReader(data), name, readers.Options{})
	if err != nil {
		return got, err
	}
	defer r.Close()
	rows, readErr := countRows(r)
	d, ok := readers.DialectOf(r)
	if !ok {
		return got, fmt.Errorf("opened as %s, not CSV", r.Format())
	}
	got.Delimiter, got.Quote, got.HasHeader, got.SkipLines, got.Encoding = d.Delimiter, d.Quote, d.HasHeader, d.SkipLines, d.Encoding
	got.Columns = len(r.Columns())
	if readErr != nil {
		return got, readErr
	}
	got.RowCount = rows
	return got, nil
}

// countRows reads r to the end.
func countRows(r readers.Reader) (int, error) {
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// Right reports whether every target attribute was detected right.
func (res Result) Right() bool {
	for _, a := range attributes {
		if a.target && !a.right(res.Want, res.Got) {
			return false
		}
	}
	return true
}

// wrong lists "attribute want X got Y" for each attribute that differs.
func (res Result) wrong() []string {
	var out []string
	got := res.Got.asEntry()
	for _, a := range attributes {
		if !a.right(res.Want, res.Got) {
			out = append(out, fmt.Sprintf("%s want %s got %s", a.name, a.show(res.Want), a.show(got)))
		}
	}
	if res.Err != nil {
		out = append(out, "error: "+res.Err.Error())
	}
	return out
}

// Share is the fraction of files fully right (0 for an empty report).
func (r *Report) Share() float64 {
	if len(r.Results) == 0 {
		return 0
	}
	return float64(r.count(Result.Right)) / float64(len(r.Results))
}

// count is the number of results for which right holds.
func (r *Report) count(right func(Result) bool) int {
	n := 0
	for _, res := range r.Results {
		if right(res) {
			n++
		}
	}
	return n
}

// maxListed caps the wrong files Print lists.
const maxListed = 25

// Print writes the summary: the share fully right against the target, the
// share right per attribute, and the files that were wrong.
func (r *Report) Print(w io.Writer) {
	n := len(r.Results)
	fmt.Fprintf(w, "CSV dialect detection on %d files\n", n)
	fmt.Fprintf(w, "  %-12s %s  (target ≥ %.0f%%)\n", "fully right", r.ratio(r.count(Result.Right)), Target*100)
	for _, a := range attributes {
		suffix := ""
		if !a.target {
			suffix = "  (not part of the target)"
		}
		fmt.Fprintf(w, "  %-12s %s%s\n", a.name, r.ratio(r.count(func(res Result) bool { return a.right(res.Want, res.Got) })), suffix)
	}
	var wrong []Result
	for _, res := range r.Results {
		if !res.Right() {
			wrong = append(wrong, res)
		}
	}
	if len(wrong) == 0 {
		return
	}
	fmt.Fprintf(w, "Wrong files (%d):\n", len(wrong))
	for i, res := range wrong {
		if i == maxListed {
			fmt.Fprintf(w, "  … and %d more\n", len(wrong)-maxListed)
			break
		}
		fmt.Fprintf(w, "  %s (%s)\n    %s\n", res.Want.File, res.Want.Note, strings.Join(res.wrong(), "; "))
	}
}

// ratio formats right out of all results as "n/N pct%".
func (r *Report) ratio(right int) string {
	n := len(r.Results)
	pct := 0.0
	if n > 0 {
		pct = float64(right) * 100 / float64(n)
	}
	return fmt.Sprintf("%4d/%-4d %5.1f%%", right, n, pct)
}

// Failures lists the unmet targets; it is empty when the share of files
// fully right reaches Target.
func (r *Report) Failures() []string {
	if len(r.Results) == 0 {
		return []string{"CSV dialect detection: the corpus is empty"}
	}
	if share := r.Share(); share < Target {
		return []string{fmt.Sprintf("CSV dialect detection: %.1f%% of %d files fully right, below the %.0f%% target",
			share*100, len(r.Results), Target*100)}
	}
	return nil
}
