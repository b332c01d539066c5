// Command dqs-eval measures how well the engine recognises what files hold:
// the classification of columns (per-label precision, recall and F1, the
// false-positive rate on columns without personal data, and a calibration
// table of confidence against accuracy) on the labelled corpus in
// evaluation/columns, and the CSV dialect detection (delimiter, quote,
// header, lines above the header, encoding, row count) on the corpus of
// files in evaluation/dialects. It exits with status 1 when a target is
// missed.
//
//	go run ./cmd/dqs-eval             print both reports
//	go run ./cmd/dqs-eval -regenerate rewrite both corpora from their generators
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/dqs/dqs/evaluation/columns"
	"github.com/dqs/dqs/evaluation/dialects"
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
		if err := columns.WriteCorpus(filepath.Join(*root, "evaluation", "columns", "testdata", "corpus.jsonl")); err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		if err := dialects.Generate(filepath.Join(*root, "evaluation", "dialects", "testdata")); err != nil {
			fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
			return 1
		}
		fmt.Fprintln(stdout, "corpora regenerated; review the diff and commit it")
		return 0
	}

	cases, err := columns.Corpus()
	if err != nil {
		fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "== Column classification (%d labelled columns)\n\n", len(cases))
	cls := columns.Evaluate(cases)
	cls.Print(stdout)

	fmt.Fprintf(stdout, "\n== CSV dialect detection\n\n")
	dia, err := dialects.Evaluate()
	if err != nil {
		fmt.Fprintf(stderr, "dqs-eval: %v\n", err)
		return 1
	}
	dia.Print(stdout)

	missed := append(cls.Failures(), dia.Failures()...)
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
