// Package figures checks every figure of the engine's profile against an
// oracle: each file of the shared fixtures (Parquet conformance files, the
// real-world data files of vega-datasets, CSV conformance files) and of 80
// generated files shaped like real exports (corpus.go) is read row by row
// and profiled by the oracle (oracle.go), and profiled by the engine the way
// an analysis does (analysis.ProfileFile: the batch pipeline, typed Parquet
// columns as values). Exact figures must be equal; the mean and standard
// deviation within 1e-9 (the engine adds in one pass, the oracle exactly);
// quantiles past a column's exact phase within 0.5% of rank.
//
// The package test fails on any disagreement, and `make eval` prints the
// agreement table per file family and figure (Report.Print).
package figures

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/readers"
)

// Families of files, in the order the report lists them.
var families = []struct{ name, dir string }{
	{"parquet-testing", "parquet-testing/data"},
	{"vega-datasets", "vega-datasets"},
	{"csv-spectrum", "csv-spectrum/csvs"},
	{"generated", ""},
}

// GeneratedFiles is how many export-shaped files are generated.
const GeneratedFiles = 80

// tally counts, per figure, how many were compared and how many agreed,
// and keeps the first disagreements' descriptions.
type tally struct {
	compared, agreed map[string]int
	mismatches       *[]string
}

func newTally(mismatches *[]string) *tally {
	return &tally{compared: map[string]int{}, agreed: map[string]int{}, mismatches: mismatches}
}

// maxMismatches bounds what a report keeps: the first ones tell the story.
const maxMismatches = 200

func (t *tally) record(figure string, ok bool, describe func() string) {
	t.compared[figure]++
	if ok {
		t.agreed[figure]++
		return
	}
	if len(*t.mismatches) < maxMismatches {
		*t.mismatches = append(*t.mismatches, describe())
	}
}

// Report is the outcome of one evaluation.
type Report struct {
	Files    int // files in the corpus
	Compared int // files both readers read (the rest both refused)
	// Tallies per family: figure -> compared and agreed.
	Tallies map[string]*tally
	// Mismatches describe the first disagreements (at most 200).
	Mismatches []string
}

// Figures is the number of figures compared, Agreed how many agreed.
func (r *Report) Figures() (compared, agreed int) {
	for _, t := range r.Tallies {
		for f, n := range t.compared {
			compared += n
			agreed += t.agreed[f]
		}
	}
	return compared, agreed
}

// Evaluate compares the engine with the oracle on the fixture files under
// fixtures and on the generated files, written into scratch.
func Evaluate(ctx context.Context, fixtures, scratch string) (*Report, error) {
	rep := &Report{Tallies: map[string]*tally{}}
	for _, fam := range families {
		rep.Tallies[fam.name] = newTally(&rep.Mismatches)
	}
	for _, fam := range families {
		var files []string
		var err error
		if fam.dir == "" {
			files, err = writeGenerated(scratch, GeneratedFiles)
		} else {
			files, err = fixtureFiles(filepath.Join(fixtures, fam.dir))
		}
		if err != nil {
			return nil, err
		}
		for _, path := range files {
			rep.Files++
			name := strings.TrimPrefix(path, fixtures+string(filepath.Separator))
			if fam.dir == "" {
				name = filepath.Base(path)
			}
			compared, err := compareFile(ctx, rep.Tallies[fam.name], path, name)
			if err != nil {
				return nil, err
			}
			if compared {
				rep.Compared++
			}
		}
	}
	return rep, nil
}

// fixtureFiles lists the data files under dir, sorted.
func fixtureFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		switch filepath.Ext(p) {
		case ".parquet", ".csv", ".tsv", ".json":
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// compareFile tallies one file's figures; compared is false when both
// readers refuse the file (which is agreement, not a figure).
func compareFile(ctx context.Context, tl *tally, path, name string) (compared bool, err error) {
	cols, cells, rows, oerr := oracleRows(path)
	got, eerr := engineProfile(ctx, path)
	if oerr != nil || eerr != nil {
		tl.record("file read or refused by both", (oerr == nil) == (eerr == nil), func() string {
			return fmt.Sprintf("%s: the reference reader says %v, the analysis %v", name, oerr, eerr)
		})
		return false, nil
	}
	tl.record("row count", got.RowCount == int64(len(rows)), func() string {
		return fmt.Sprintf("%s: %d rows, want %d", name, got.RowCount, len(rows))
	})
	if got.RowCount != int64(len(rows)) {
		return true, nil
	}
	if !got.DuplicateRowsEstimated {
		want := oracleDuplicateRows(rows)
		tl.record("duplicate rows", got.DuplicateRows == want, func() string {
			return fmt.Sprintf("%s: %d duplicate rows, want %d", name, got.DuplicateRows, want)
		})
	}
	tl.record("column count", len(got.Columns) == len(cols), func() string {
		return fmt.Sprintf("%s: %d columns, want %d", name, len(got.Columns), len(cols))
	})
	if len(got.Columns) != len(cols) {
		return true, nil
	}
	for i, c := range got.Columns {
		compareColumn(tl, name, c, oracleProfile(cols[i], cells[i], 10, 10_000))
	}
	return true, ctx.Err()
}

// oracleRows reads every row of the file through Next, the reference
// reader, as columns of cells.
func oracleRows(path string) (cols []string, cells [][]oracleCell, rows [][]oracleCell, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	r, err := readers.Open(f, filepath.Base(path), readers.Options{})
	if err != nil {
		return nil, nil, nil, err
	}
	defer r.Close()
	cols = r.Columns()
	cells = make([][]oracleCell, len(cols))
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return cols, cells, rows, nil
		}
		if err != nil {
			return nil, nil, nil, err
		}
		row := make([]oracleCell, len(cols))
		for i := range cols {
			row[i] = oracleCell{value: rec.Values[i], null: rec.Null[i]}
			cells[i] = append(cells[i], row[i])
		}
		rows = append(rows, row)
	}
}

// engineProfile profiles the file as an analysis does.
func engineProfile(ctx context.Context, path string) (*profile.Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return analysis.ProfileFile(ctx, f, filepath.Base(path), profile.Options{}, 2)
}

// Print writes the agreement table: per family and figure, the figures
// compared and the share equal to the oracle (within its bound for the
// mean, standard deviation and sketched quantiles).
func (r *Report) Print(w io.Writer) {
	compared, agreed := r.Figures()
	fmt.Fprintf(w, "%d files (%d read by both readers, the rest refused by both), %d figures, %d equal to the oracle (%s)\n",
		r.Files, r.Compared, compared, agreed, share(agreed, compared))
	fmt.Fprintf(w, "Equal means equal, but for the mean and standard deviation (within 1e-9, relative) and quantiles past a column's exact phase (within 0.5%% of rank).\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FAMILY\tFIGURE\tCOMPARED\tAGREE\t")
	for _, fam := range families {
		t := r.Tallies[fam.name]
		var names []string
		for f := range t.compared {
			names = append(names, f)
		}
		slices.Sort(names)
		for _, f := range names {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t\n", fam.name, f, t.compared[f], share(t.agreed[f], t.compared[f]))
		}
	}
	tw.Flush()
	if len(r.Mismatches) > 0 {
		fmt.Fprintf(w, "\nDisagreements (first %d):\n", len(r.Mismatches))
		for _, m := range r.Mismatches {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
}

func share(part, whole int) string {
	if whole == 0 {
		return "-"
	}
	if part == whole {
		return "100%"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(part)/float64(whole))
}
