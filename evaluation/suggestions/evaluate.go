package suggestions

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/readers"
	"github.com/dqs/dqs/records"
	"github.com/dqs/dqs/suggest"
)

// Threshold is the default trust threshold: the steps applied on their
// own are those at least this confident.
const Threshold = 0.8

// The targets.
const (
	TargetPrecision = 0.95 // of the steps at Threshold or above
	TargetRecall    = 0.7  // of the dirty cells and rows, by those steps
)

//go:embed testdata
var corpus embed.FS

// Evaluate runs the suggestion engine over the committed corpus: for each
// file, the analysis of the dirty file as the service analyses an upload,
// Suggest, the steps applied with corrections.Apply, and every cell
// compared with the clean file, once for the steps at Threshold or above
// and once for every suggestion.
func Evaluate() (Report, error) {
	fsys, err := fs.Sub(corpus, "testdata")
	if err != nil {
		return Report{}, err
	}
	return evaluateFS(fsys)
}

func evaluateFS(fsys fs.FS) (Report, error) {
	raw, err := fs.ReadFile(fsys, manifestName)
	if err != nil {
		return Report{}, err
	}
	var m Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		return Report{}, fmt.Errorf("%s: %w", manifestName, err)
	}
	rep := Report{Threshold: Threshold, Trusted: newScores(), All: newScores()}
	for _, e := range m.Files {
		fr, err := evaluateFile(fsys, e, &rep)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", e.Dirty, err)
		}
		rep.Files = append(rep.Files, fr)
	}
	return rep, nil
}

// file is one corpus file read for the evaluation.
type file struct {
	entry     FileEntry
	data      []byte
	dirty     *rows
	clean     *rows
	cleanOf   []int // dirty row → clean row; -1 for an injected duplicate
	duplicate []bool
	kindOf    map[[2]int]string
}

func evaluateFile(fsys fs.FS, e FileEntry, rep *Report) (FileResult, error) {
	f, err := load(fsys, e)
	if err != nil {
		return FileResult{}, err
	}
	ctx := context.Background()
	res, err := analysis.Run(ctx, bytes.NewReader(f.data), e.Dirty, int64(len(f.data)), analysis.Dialect{}, analysis.Limits{}, nil)
	if err != nil {
		return FileResult{}, err
	}
	all, err := suggest.Suggest(ctx, res, f.open, suggest.Options{})
	if err != nil {
		return FileResult{}, err
	}
	var trusted []suggest.Suggestion
	for _, s := range all {
		if s.Confidence >= Threshold {
			trusted = append(trusted, s)
		}
	}
	fr := FileResult{Name: e.Dirty, Note: e.Note, Suggestions: all, Trusted: len(trusted)}
	if fr.TrustedScore, err = f.score(ctx, trusted, rep.Trusted); err != nil {
		return fr, err
	}
	if fr.AllScore, err = f.score(ctx, all, rep.All); err != nil {
		return fr, err
	}
	return fr, nil
}

func (f *file) open() (records.Reader, error) {
	return readers.Open(bytes.NewReader(f.data), f.entry.Dirty, readers.Options{})
}

// load reads a file pair and lines the dirty rows up with the clean ones.
func load(fsys fs.FS, e FileEntry) (*file, error) {
	f := &file{entry: e, kindOf: map[[2]int]string{}}
	var err error
	if f.data, err = fs.ReadFile(fsys, e.Dirty); err != nil {
		return nil, err
	}
	cleanData, err := fs.ReadFile(fsys, e.Clean)
	if err != nil {
		return nil, err
	}
	r, err := f.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if f.dirty, err = readAll(r); err != nil {
		return nil, err
	}
	cr, err := readers.Open(bytes.NewReader(cleanData), e.Clean, readers.Options{})
	if err != nil {
		return nil, err
	}
	defer cr.Close()
	if f.clean, err = readAll(cr); err != nil {
		return nil, err
	}
	f.duplicate = make([]bool, len(f.dirty.values))
	for _, i := range e.Duplicates {
		if i < 0 || i >= len(f.duplicate) {
			return nil, fmt.Errorf("duplicate row %d out of the file", i)
		}
		f.duplicate[i] = true
	}
	f.cleanOf = make([]int, len(f.dirty.values))
	next := 0
	for i := range f.cleanOf {
		f.cleanOf[i] = -1
		if !f.duplicate[i] {
			f.cleanOf[i] = next
			next++
		}
	}
	if next != len(f.clean.values) || len(f.dirty.cols) != len(f.clean.cols) {
		return nil, fmt.Errorf("%d rows and %d columns besides the duplicates, the clean file %d and %d",
			next, len(f.dirty.cols), len(f.clean.values), len(f.clean.cols))
	}
	for kind, cells := range e.Cells {
		for _, c := range cells {
			f.kindOf[c] = kind
		}
	}
	// Every dirty cell is listed, and every listed cell is dirty: the
	// files and the manifest agree (a reader that trimmed values would
	// make them disagree).
	for i, ci := range f.cleanOf {
		if ci < 0 {
			continue
		}
		for c := range f.dirty.cols {
			_, listed := f.kindOf[[2]int{i, c}]
			if dirty := f.dirty.text(i, c) != f.clean.text(ci, c); dirty != listed {
				return nil, fmt.Errorf("row %d column %q: dirty %v but listed %v (%q, clean %q)", i, f.dirty.cols[c], dirty, listed,
					f.dirty.text(i, c), f.clean.text(ci, c))
			}
		}
	}
	return f, nil
}

// stepKey names a step's correction type and strategy: "format_fix/trim",
// "custom".
func stepKey(s suggest.Suggestion) string {
	if s.Strategy == "" {
		return s.CorrectionType
	}
	return s.CorrectionType + "/" + s.Strategy
}

// score applies steps to the dirty file and scores the result into sc; it
// returns the file's own figures.
func (f *file) score(ctx context.Context, steps []suggest.Suggestion, sc *Scores) (Counts, error) {
	var pipe corrections.Pipeline
	for i, s := range steps {
		st := s.Step()
		st.ID = fmt.Sprintf("s%d", i+1)
		pipe = append(pipe, st)
		sc.Steps[stepKey(s)]++
	}
	// The pipeline as a user would run it, over the file itself.
	in, err := f.open()
	if err != nil {
		return Counts{}, err
	}
	defer in.Close()
	w := &memWriter{}
	if _, err := corrections.Apply(ctx, in, w, pipe, corrections.Options{Reopen: f.open}); err != nil {
		return Counts{}, err
	}
	final := &w.t
	// The same steps one at a time, to know which changed what.
	cur := f.dirty
	kept := make([]int, len(f.dirty.values)) // current row → dirty row
	for i := range kept {
		kept[i] = i
	}
	removedBy := map[int]string{}    // dirty row → step key
	changedBy := map[[2]int]string{} // dirty cell → last step key
	for k, st := range pipe {
		w := &memWriter{}
		if _, err := corrections.Apply(ctx, cur.reader(), w, corrections.Pipeline{st}, corrections.Options{Reopen: func() (records.Reader, error) { return cur.reader(), nil }}); err != nil {
			return Counts{}, err
		}
		next := &w.t
		// Rows keep their order; a removed row is one the output skips.
		// A step that keeps every row changes cells in place; one that
		// removes rows (dedupe) changes none of those it keeps.
		sameCount := len(next.values) == len(cur.values)
		var nextKept []int
		j := 0
		for i := range cur.values {
			if j < len(next.values) && (sameCount || cur.equalRow(i, next, j)) {
				for c := range cur.cols {
					if cur.values[i][c] != next.values[j][c] || cur.nulls[i][c] != next.nulls[j][c] {
						changedBy[[2]int{kept[i], c}] = stepKey(steps[k])
					}
				}
				nextKept = append(nextKept, kept[i])
				j++
				continue
			}
			removedBy[kept[i]] = stepKey(steps[k])
		}
		if j != len(next.values) {
			return Counts{}, fmt.Errorf("step %d (%s): cannot line its %d rows up with the %d it read", k+1, stepKey(steps[k]), len(next.values), len(cur.values))
		}
		cur, kept = next, nextKept
	}
	if len(cur.values) != len(final.values) {
		return Counts{}, fmt.Errorf("the pipeline left %d rows, the steps one at a time %d", len(final.values), len(cur.values))
	}
	for i := range cur.values {
		if !cur.equalRow(i, final, i) {
			return Counts{}, fmt.Errorf("row %d differs between the pipeline and the steps one at a time", i+1)
		}
	}
	var fc Counts
	at := 0 // row of final
	for i := range f.dirty.values {
		if key, removed := removedBy[i]; removed {
			if f.duplicate[i] {
				sc.TP[key]++
				fc.TP++
				sc.Fixed[KindDuplicate]++
			} else {
				sc.FP[key]++
				fc.FP++
				for c := range f.dirty.cols {
					if kind, ok := f.kindOf[[2]int{i, c}]; ok {
						sc.Dirty[kind]++
						fc.FN++
					}
				}
			}
			if f.duplicate[i] {
				sc.Dirty[KindDuplicate]++
			}
			continue
		}
		row := at
		at++
		if f.duplicate[i] {
			sc.Dirty[KindDuplicate]++
			fc.FN++
			continue
		}
		ci := f.cleanOf[i]
		for c := range f.dirty.cols {
			d, v, cl := f.dirty.text(i, c), final.text(row, c), f.clean.text(ci, c)
			if v != d {
				key := changedBy[[2]int{i, c}]
				if v == cl {
					sc.TP[key]++
					fc.TP++
				} else {
					sc.FP[key]++
					fc.FP++
					sc.addExample(key, f.dirty.cols[c], d, v, cl)
				}
			}
			if kind, dirty := f.kindOf[[2]int{i, c}]; dirty {
				sc.Dirty[kind]++
				if v == cl {
					sc.Fixed[kind]++
				} else {
					fc.FN++
				}
			}
		}
	}
	return fc, nil
}
