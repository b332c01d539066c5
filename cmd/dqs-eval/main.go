// Command dqs-eval measures how well the engine recognises what files hold:
// the classification of columns (per-label precision, recall and F1, the
// false-positive rate on columns without personal data, and a calibration
// table of confidence against accuracy) on the labelled corpus in
// evaluation/columns and, reported apart, on the real-world-shaped corpus in
// evaluation/realworld, and the CSV dialect detection (delimiter, quote,
// header, lines above the header, encoding, row count) on the corpus of
// files in evaluation/dialects. It exits with status 1 when a target is
// missed.
//
//	go run ./cmd/dqs-eval             print the reports
//	go run ./cmd/dqs-eval -regenerate rewrite the corpora from their generators
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dqs/dqs/evaluation/columns"
	"github.com/dqs/dqs/evaluation/dialects"
	"github.com/dqs/dqs/evaluation/realworld"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("dqs-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	regenerate := fs.Bool("regenerate", false, "rewrite the committed corpora from their generators (run from the repository root)")
	root := fs.String("root", ".", "repository root, for -regenerate")
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
	for _, s := range []struct {
		title  string
		corpus func() ([]columns.Case, error)
	}{
		{"Column classification", columns.Corpus},
		{"Column classification, real-world-shaped corpus (evaluation/realworld)", realworld.Corpus},
	} {
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

	fmt.Fprintf(stdout, "== CSV dialect detection\n\n")
	dia, err := dialects.Evaluate()
	if err != nil {
		fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
		return 1
	}
	dia.Print(stdout)
	missed = append(missed, dia.Failures()...)

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
	return dialects.Generate(filepath.Join(root, "evaluation", "dialects", "testdata"))
}
