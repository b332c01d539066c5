package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/readers"
)

// profileMemoryLimit is the soft heap limit `dqs profile` runs under unless
// GOMEMLIMIT says otherwise: near it the garbage collector works harder
// instead of letting the heap grow to twice what is live, which keeps the
// process's peak RSS under 256 MB on a file of any size (README,
// Benchmarks). The engine's live memory is well below it.
const profileMemoryLimit = 160 << 20

// profileFiles runs the analysis engine on local files, with no server or
// database: a readable table per file, or the API's JSON with --json.
func profileFiles(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("profile", flag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the analysis as JSON (the shape of a file's profile in the API)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile (pprof) of the run to this file")
	var dialect analysis.Dialect
	fs.Func("null-tokens", "comma-separated values that count as nulls, instead of the defaults (\"\" for none)", func(v string) error {
		tokens := []string{}
		if v != "" {
			tokens = strings.Split(v, ",")
		}
		d, err := analysis.WithNullTokens(tokens)
		dialect.NullTokens = d.NullTokens
		return err
	})
	// The CSV dialect, in the words the API's query takes; parsed once all
	// four are known, as they are checked together (a delimiter that is
	// also the quote).
	delimiter := fs.String("delimiter", "", "CSV delimiter: one character, or tab, comma, semicolon, pipe or space (default: sniffed)")
	quote := fs.String("quote", "", "CSV quote character, or none to read quotes as text (default: sniffed)")
	header := fs.String("header", "", "line number of the CSV header, the lines above skipped, or none (default: sniffed)")
	encoding := fs.String("encoding", "", "CSV encoding: utf-8, utf-16le, utf-16be, windows-1252 or latin-1 (default: sniffed)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: dqs profile [--json] [--null-tokens LIST] [--delimiter C] [--quote C] [--header N] [--encoding E] FILE...\n\nProfiles, classifies and scores CSV, JSON, JSON Lines and Parquet files locally.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	csv, err := readers.ParseCSVOptions(*delimiter, *quote, *header, *encoding)
	if err != nil {
		fmt.Fprintf(stderr, "dqs profile: %v\n", err)
		return 2
	}
	dialect.CSV = csv
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(profileMemoryLimit)
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "dqs profile: %v\n", err)
			return 1
		}
		defer stop()
	}
	status := 0
	var results []fileResult
	for _, path := range fs.Args() {
		res, err := profileFile(ctx, path, dialect)
		if err != nil {
			fmt.Fprintf(stderr, "dqs profile: %s: %v\n", path, err)
			status = 1
			continue
		}
		if *asJSON {
			results = append(results, fileResult{File: path, Result: res})
			continue
		}
		printProfile(stdout, path, res)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(results); err != nil {
			return 1
		}
	}
	return status
}

// startCPUProfile profiles the process into path until the returned stop
// is called: the engine's hot spots, for `go tool pprof`.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

type fileResult struct {
	File string `json:"file"`
	*analysis.Result
}

func profileFile(ctx context.Context, path string, d analysis.Dialect) (*analysis.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, errors.New("is a directory")
	}
	return analysis.Run(ctx, f, filepath.Base(path), st.Size(), d, analysis.Limits{}, nil)
}

func printProfile(w io.Writer, path string, r *analysis.Result) {
	fmt.Fprintf(w, "%s: %s, %d rows, %d columns, %d duplicate rows, quality %.1f/100 (completeness %.1f, validity %.1f, uniqueness %.1f, consistency %.1f)\n",
		path, r.Format, r.RowCount, len(r.Columns), r.DuplicateRows, r.Quality.Score,
		r.Quality.Dimensions.Completeness, r.Quality.Dimensions.Validity, r.Quality.Dimensions.Uniqueness, r.Quality.Dimensions.Consistency)
	if line := readAsLine(r); line != "" {
		fmt.Fprintln(w, line)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COLUMN\tTYPE\tCLASSIFICATION\tGDPR\tCONFIDENCE\tNULLS\tDISTINCT\tFORMAT OK")
	for _, c := range r.Columns {
		nulls := 0.0
		if c.Count > 0 {
			nulls = 100 * float64(c.Nulls+c.Empty) / float64(c.Count)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f\t%.1f%%\t%d\t%.1f%%\n", c.Name, c.InferredType, c.Classification.Label,
			c.Classification.Category, c.Classification.Confidence, nulls, c.Distinct, 100*c.FormatConformance)
	}
	tw.Flush()
	for _, is := range r.Quality.Issues {
		fmt.Fprintf(w, "  %s %s: %s\n", is.Severity, is.Kind, is.Message)
		if len(is.Examples) > 0 {
			fmt.Fprintf(w, "    examples: %s\n", strings.Join(quoteAll(is.Examples), ", "))
		}
	}
	fmt.Fprintln(w)
}

// readAsLine says in one line how the file was read, when the reader
// chose: where a wrapped JSON document's records were, or the CSV dialect
// (sniffed or given), so that a wrong guess is seen and can be overridden
// with the flags.
func readAsLine(r *analysis.Result) string {
	switch {
	case r.RecordsPath != "":
		return fmt.Sprintf("  records read from the array at %q", r.RecordsPath)
	case r.CSV == nil:
		return ""
	}
	quote, header := "no quoting", "no header"
	if r.CSV.Quote != nil {
		quote = "quote " + strconv.Quote(*r.CSV.Quote)
	}
	if r.CSV.HeaderLine != nil {
		header = fmt.Sprintf("header on line %d", *r.CSV.HeaderLine)
	}
	return fmt.Sprintf("  read as CSV: delimiter %s, %s, %s, encoding %s", strconv.Quote(r.CSV.Delimiter), quote, header, r.CSV.Encoding)
}

func quoteAll(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.Quote(v)
	}
	return out
}
