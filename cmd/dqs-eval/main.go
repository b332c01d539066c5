// Command dqs-eval measures how right the engine is: every figure of the
// profile against an oracle on 238 files (evaluation/figures: the share of
// figures equal to the oracle's, per file family and figure), the
// classification of columns (per-label precision, recall and F1, the
// false-positive rate on columns without personal data, and a calibration
// table of confidence against accuracy) on the labelled corpus in
// evaluation/columns and, reported apart, on the real-world-shaped corpus in
// evaluation/realworld, and the CSV dialect detection (delimiter, quote,
// header, lines above the header, encoding, row count) on the corpus of
// files in evaluation/dialects, the correction suggestions (precision and
// recall of the steps at the trust threshold, per correction type and
// overall, and of every suggestion for information) on the dirty files
// and their clean versions in evaluation/suggestions, and the anomaly
// detector (recall, precision, false alerts per 100 scans and detection
// delay per kind and sensitivity, beside a plain z-score) on the labelled
// series of evaluation/anomalies. It exits with status 1 when a target is
// missed.
//
//	go run ./cmd/dqs-eval             print the reports
//	go run ./cmd/dqs-eval -figures=false  leave the oracle comparison out (it reads the shared fixtures)
//	go run ./cmd/dqs-eval -suggestions=false  leave the correction suggestions out
//	go run ./cmd/dqs-eval -anomalies=false  leave the anomaly detection out
//	go run ./cmd/dqs-eval -only-anomalies   run the anomaly detection alone
//	go run ./cmd/dqs-eval -regenerate rewrite the corpora from their generators
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dqs/dqs/evaluation/anomalies"
	"github.com/dqs/dqs/evaluation/columns"
	"github.com/dqs/dqs/evaluation/dialects"
	"github.com/dqs/dqs/evaluation/figures"
	"github.com/dqs/dqs/evaluation/realworld"
	"github.com/dqs/dqs/evaluation/suggestions"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dqs-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	regenerate := fs.Bool("regenerate", false, "rewrite the committed corpora from their generators (run from the repository root)")
	root := fs.String("root", ".", "repository root, for -regenerate")
	withFigures := fs.Bool("figures", true, "compare every profile figure with the oracle on the shared fixtures and generated files")
	withSuggestions := fs.Bool("suggestions", true, "score the correction suggestions on the dirty files and their clean versions")
	withAnomalies := fs.Bool("anomalies", true, "score the anomaly detector on the labelled synthetic series and the real-world ones from the shared fixtures")
	onlyAnomalies := fs.Bool("only-anomalies", false, "run the anomaly section alone")
	fixtures := fs.String("fixtures", fixturesDefault(), "the shared fixtures folder (default $DQS_FIXTURES, else ../shared/fixtures)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *regenerate {
		if err := regenerateAll(*root); err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, "corpora regenerated; review the diff and commit it")
		return 0
	}

	var missed []string
	if *onlyAnomalies {
		*withFigures, *withAnomalies = false, true
	}
	if *withFigures {
		m, err := reportFigures(*fixtures, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		missed = append(missed, m...)
	}
	for _, s := range []struct {
		title  string
		corpus func() ([]columns.Case, error)
	}{
		{"Column classification", columns.Corpus},
		{"Column classification, real-world-shaped corpus (evaluation/realworld)", realworld.Corpus},
	} {
		if *onlyAnomalies {
			break
		}
		cases, err := s.corpus()
		if err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "== %s (%d labelled columns)\n\n", s.title, len(cases))
		r := columns.Evaluate(cases)
		r.Print(stdout)
		fmt.Fprintln(stdout)
		for _, f := range r.Failures() {
			missed = append(missed, s.title+": "+f)
		}
	}

	if !*onlyAnomalies {
		fmt.Fprintf(stdout, "== CSV dialect detection\n\n")
		dia, err := dialects.Evaluate()
		if err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		dia.Print(stdout)
		missed = append(missed, dia.Failures()...)
	}

	if *withSuggestions && !*onlyAnomalies {
		fmt.Fprintf(stdout, "\n== Correction suggestions (evaluation/suggestions)\n\n")
		rep, err := suggestions.Evaluate()
		if err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		rep.Print(stdout)
		missed = append(missed, rep.Failures()...)
	}

	if *withAnomalies {
		fmt.Fprintf(stdout, "\n== Anomaly detection (evaluation/anomalies)\n\n")
		rep, err := anomalies.Evaluate(*fixtures)
		if err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		rep.Print(stdout)
		missed = append(missed, rep.Failures()...)
	}

	if len(missed) > 0 {
		fmt.Fprintln(stdout, "\nTargets missed:")
		for _, m := range missed {
			fmt.Fprintf(stdout, "  - %s\n", m)
		}
		return 1
	}
	fmt.Fprintln(stdout, "\nAll targets met.")
	return 0
}

// regenerateAll rewrites every committed corpus under root.
func regenerateAll(root string) error {
	if err := columns.WriteCorpus(filepath.Join(root, "evaluation", "columns", "testdata", "corpus.jsonl")); err != nil {
		return err
	}
	if err := realworld.WriteCorpus(filepath.Join(root, "evaluation", "realworld", "testdata", "corpus.jsonl")); err != nil {
		return err
	}
	if err := dialects.Generate(filepath.Join(root, "evaluation", "dialects", "testdata")); err != nil {
		return err
	}
	return suggestions.WriteCorpus(filepath.Join(root, "evaluation", "suggestions", "testdata"))
}

// fixturesDefault is $DQS_FIXTURES, else the shared folder beside the
// repository.
func fixturesDefault() string {
	if d := os.Getenv("DQS_FIXTURES"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "fixtures")
}

// reportFigures prints the oracle agreement table; every figure must agree.
func reportFigures(fixtures string, stdout io.Writer) (missed []string, err error) {
	if _, err := os.Stat(fixtures); err != nil {
		return nil, fmt.Errorf("the shared fixtures are needed for the oracle comparison (-fixtures, or -figures=false): %w", err)
	}
	scratch, err := os.MkdirTemp("", "dqs-eval-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	fmt.Fprintf(stdout, "== Profile figures against the oracle (evaluation/figures)\n\n")
	rep, err := figures.Evaluate(context.Background(), fixtures, scratch)
	if err != nil {
		return nil, err
	}
	rep.Print(stdout)
	fmt.Fprintln(stdout)
	if compared, agreed := rep.Figures(); agreed < compared {
		missed = append(missed, fmt.Sprintf("profile figures: %d of %d differ from the oracle (target: none)", compared-agreed, compared))
	}
	if rep.Files < 200 {
		missed = append(missed, fmt.Sprintf("profile figures: %d files, fewer than 200", rep.Files))
	}
	return missed, nil
}
