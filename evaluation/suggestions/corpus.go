package suggestions

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Seed seeds the corpus generator: the same seed, the same files.
const Seed = 20261127

// The dirt kinds injected (Manifest cells), each with the step that
// should fix it (expected).
const (
	KindWhitespace = "whitespace"
	KindCase       = "case"
	KindTypo       = "typo"      // a misspelling: a typo of the value, or another spelling of it
	KindDate       = "date"      // a date in another layout
	KindEmail      = "email"     // an e-mail address in upper case or with spaces
	KindPhone      = "phone"     // a phone number in another format than E.164
	KindDecimal    = "decimal"   // a number with a decimal comma
	KindNull       = "null"      // a lost number
	KindViolation  = "violation" // a dependent value that breaks its dependency (a city not its zip's)
	KindDuplicate  = "duplicate" // an exact copy of an earlier row
)

// expected is the correction type and strategy meant to fix each kind.
var expected = map[string]string{
	KindWhitespace: "format_fix/trim", KindCase: "format_fix/standardize", KindTypo: "format_fix/standardize",
	KindDate: "format_fix/date_iso", KindEmail: "format_fix/email_normalize", KindPhone: "format_fix/phone_e164",
	KindDecimal: "format_fix/decimal_point", KindNull: "null_fill/median", KindViolation: "custom",
	KindDuplicate: "dedupe/exact",
}

// Manifest lists the corpus files and where their dirt is.
type Manifest struct {
	Files []FileEntry `json:"files"`
}

// FileEntry is one dirty file and its clean version. Rows count from 0,
// in the dirty file; Duplicates are the rows injected as copies of an
// earlier row (the clean file has no row for them: the other dirty rows
// are the clean rows in order). Cells are the dirty cells by kind, as
// [dirty row, column] pairs.
type FileEntry struct {
	Dirty      string              `json:"dirty"`
	Clean      string              `json:"clean"`
	Note       string              `json:"note"`
	Duplicates []int               `json:"duplicates,omitempty"`
	Cells      map[string][][2]int `json:"cells"`
}

// table is one generated file: its clean rows and the dirt put into a
// copy of them.
type table struct {
	name, note string
	format     string // "csv", "jsonl"
	delim      rune
	cols       []string
	clean      [][]string
	dirty      [][]string
	kind       map[[2]int]string // (clean row, column) → dirt kind
	dups       []int             // clean rows copied, in order of injection
	r          *rand.Rand
}

func newTable(r *rand.Rand, name, note string, cols ...string) *table {
	return &table{name: name, note: note, format: "csv", delim: ',', cols: cols, kind: map[[2]int]string{}, r: r}
}

// add appends a clean row.
func (t *table) add(row ...string) {
	if len(row) != len(t.cols) {
		panic(fmt.Sprintf("%s: row of %d values for %d columns", t.name, len(row), len(t.cols)))
	}
	t.clean = append(t.clean, row)
}

func (t *table) col(name string) int {
	i := slices.Index(t.cols, name)
	if i < 0 {
		panic(t.name + ": no column " + name)
	}
	return i
}

// dirt rewrites, in about share of the rows, the column's value by f
// (which reports false when it cannot dirty that value), recording the
// cell as of kind. A cell is dirtied once at most.
func (t *table) dirt(column string, share float64, kind string, f func(v string) (string, bool)) {
	if t.dirty == nil {
		t.dirty = make([][]string, len(t.clean))
		for i, row := range t.clean {
			t.dirty[i] = slices.Clone(row)
		}
	}
	c := t.col(column)
	for i := range t.dirty {
		if t.r.Float64() >= share {
			continue
		}
		k := [2]int{i, c}
		if _, done := t.kind[k]; done || t.clean[i][c] == "" {
			continue
		}
		v, ok := f(t.dirty[i][c])
		if !ok || v == t.dirty[i][c] {
			continue
		}
		t.dirty[i][c] = v
		t.kind[k] = kind
	}
}

// duplicate injects n copies of random rows.
func (t *table) duplicate(n int) {
	for range n {
		t.dups = append(t.dups, t.r.IntN(len(t.clean)))
	}
}

// render writes the dirty and clean files and the manifest entry.
func (t *table) render() (dirty, clean []byte, e FileEntry, err error) {
	if t.dirty == nil {
		t.dirt(t.cols[0], 0, "", nil)
	}
	// Clean rows must be distinct: dedupe would be right to remove a copy.
	seen := map[string]bool{}
	for _, row := range t.clean {
		k := strings.Join(row, "\x00")
		if seen[k] {
			return nil, nil, e, fmt.Errorf("%s: two clean rows are equal: %q", t.name, row)
		}
		seen[k] = true
	}
	// Dirty order: each copy goes a few rows after its original, as a
	// re-sent form or an export run over a window twice.
	type out struct {
		row []string
		src int // clean row
		dup bool
	}
	rows := make([]out, 0, len(t.clean)+len(t.dups))
	after := map[int][]int{} // clean row → copies to place after it
	for _, src := range t.dups {
		at := min(len(t.clean)-1, src+1+t.r.IntN(20))
		after[at] = append(after[at], src)
	}
	for i := range t.clean {
		rows = append(rows, out{t.dirty[i], i, false})
		for _, src := range after[i] {
			rows = append(rows, out{t.dirty[src], src, true})
		}
	}
	e = FileEntry{Dirty: t.name + ".dirty." + t.format, Clean: t.name + ".clean." + t.format, Note: t.note, Cells: map[string][][2]int{}}
	at := make([]int, len(t.clean)) // clean row → dirty row
	var dirtyRows [][]string
	for i, o := range rows {
		if o.dup {
			e.Duplicates = append(e.Duplicates, i)
		} else {
			at[o.src] = i
		}
		dirtyRows = append(dirtyRows, o.row)
	}
	if len(t.dups) > 0 {
		e.Cells[KindDuplicate] = nil // rows, listed in Duplicates
	}
	keys := make([][2]int, 0, len(t.kind))
	for k := range t.kind {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for _, k := range keys {
		kind := t.kind[k]
		e.Cells[kind] = append(e.Cells[kind], [2]int{at[k[0]], k[1]})
	}
	if dirty, err = t.encode(dirtyRows); err != nil {
		return nil, nil, e, err
	}
	if clean, err = t.encode(t.clean); err != nil {
		return nil, nil, e, err
	}
	return dirty, clean, e, nil
}

// encode writes rows in the table's format. Empty values are nulls.
func (t *table) encode(rows [][]string) ([]byte, error) {
	var b bytes.Buffer
	switch t.format {
	case "jsonl":
		for _, row := range rows {
			b.WriteByte('{')
			for i, v := range row {
				if i > 0 {
					b.WriteByte(',')
				}
				k, _ := json.Marshal(t.cols[i])
				b.Write(k)
				b.WriteByte(':')
				if v == "" {
					b.WriteString("null")
					continue
				}
				j, err := json.Marshal(v)
				if err != nil {
					return nil, err
				}
				b.Write(j)
			}
			b.WriteString("}\n")
		}
	default:
		w := csv.NewWriter(&b)
		w.Comma = t.delim
		if err := w.Write(t.cols); err != nil {
			return nil, err
		}
		for _, row := range rows {
			if err := w.Write(row); err != nil {
				return nil, err
			}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// build generates every table of the corpus.
func build(seed uint64) (files map[string][]byte, m Manifest, err error) {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	files = map[string][]byte{}
	for _, gen := range generators {
		t := gen(r)
		dirty, clean, e, err := t.render()
		if err != nil {
			return nil, m, err
		}
		files[e.Dirty], files[e.Clean] = dirty, clean
		m.Files = append(m.Files, e)
	}
	raw, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		return nil, m, err
	}
	files[manifestName] = append(compactPairs(raw), '\n')
	return files, m, nil
}

// compactPairs writes each [row, column] pair of the indented manifest on
// one line, which keeps the file small and readable.
func compactPairs(raw []byte) []byte {
	var out bytes.Buffer
	lines := strings.Split(string(raw), "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "[" && i+3 < len(lines) && strings.TrimSpace(lines[i+3]) != "" &&
			strings.HasPrefix(strings.TrimSpace(lines[i+3]), "]") && isNumber(lines[i+1]) && isNumber(lines[i+2]) {
			out.WriteString(strings.TrimSuffix(l, "[") + "[" + strings.TrimSpace(lines[i+1]) + strings.TrimSpace(lines[i+2]) + strings.TrimSpace(lines[i+3]))
			out.WriteByte('\n')
			i += 3
			continue
		}
		out.WriteString(l)
		out.WriteByte('\n')
	}
	return bytes.TrimRight(out.Bytes(), "\n")
}

func isNumber(l string) bool {
	l = strings.TrimSuffix(strings.TrimSpace(l), ",")
	if l == "" {
		return false
	}
	for _, c := range l {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

const manifestName = "manifest.json"

// WriteCorpus writes the corpus (dirty and clean files, manifest.json)
// into dir, creating it; files of earlier corpora are removed.
func WriteCorpus(dir string) error {
	files, _, err := build(Seed)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range old {
		if _, keep := files[e.Name()]; !keep && !e.IsDir() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	for _, name := range sortedNames(files) {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sortedNames(files map[string][]byte) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
