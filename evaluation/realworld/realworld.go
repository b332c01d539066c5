// Package realworld is a labelled corpus of columns shaped like the public
// exports people upload: Kaggle-style customer lists, HR records, vehicle
// listings with VINs, payment-card test data, school and salary tables,
// web-server logs, network inventories, travel bookings and bank
// statements. Headers are written as those files write them ("Unnamed: 0",
// "Card Number", "E-mail Address", "SEX", "DOB"), values carry the
// placeholders and mixed case of real exports, and most tables hold
// non-personal decoys (order numbers, SKUs, product URLs, status codes,
// prices, years, zip-like store codes, hex digests, version strings).
//
// # How columns are labelled
//
// A column's label is the label of the value kind its generator emits,
// fixed in kinds.go next to the generator and never taken from the
// classifier. The rules, in words:
//
//   - a column is labelled by what a person reading it would call its
//     values: VINs are vin (with or without a valid check digit, since
//     only North American VINs must carry one), card numbers are
//     payment_card (also the 16-digit test numbers that fail Luhn), M/F
//     under Sex is gender, age bands (18-24, 65+) are age, street names
//     without a house number are street_address, national-format phone
//     numbers (fictional 555 ones included) are phone;
//   - a column of person names is person_name even when some rows are
//     organisations (a customer Name column of 85% people);
//   - passport, driver's licence and bank account numbers are labelled so
//     only under a header that says so (their formats are not their own);
//   - URLs are url whatever they point at (listing pages, avatars,
//     referrers): the label is non-personal;
//   - codes that identify things rather than people (orders, SKUs, store
//     codes, booking references, routing numbers, a CRM's running account
//     numbers, hashes) are identifier; enumerations are category; measures
//     are number; amounts are money.
//
// Generate builds the corpus from a fixed seed; testdata/corpus.jsonl is
// the committed copy that Corpus returns and the tests compare with
// Generate (regenerate with `go run ./cmd/dqs-eval -regenerate`). It is
// scored with evaluation/columns' evaluator against the same targets.
//
// The corpus was written from the list of misses, without running
// the classifier on it. Measured first with the new labels known but without
// their detectors and fixes: macro F1 0.618 over its 19 personal labels, no
// false positive among 138 non-personal columns, 35 of 35 confident
// predictions right. With the detectors, the first runs still missed
// airline SURNAME/GIVEN names and three timestamp layouts (form exports,
// access logs), and took a Shopify "Handle" column of product slugs for
// usernames; those were fixed, so the classifier has been tuned on this
// corpus since and its figures here flatter it. README.md keeps them.
package realworld

import (
	"bytes"
	_ "embed"
	"os"

	"github.com/dqs/dqs/evaluation/columns"
)

//go:embed testdata/corpus.jsonl
var committed []byte

// Corpus returns the committed corpus (testdata/corpus.jsonl).
func Corpus() ([]columns.Case, error) { return columns.Decode(bytes.NewReader(committed)) }

// Generate builds the corpus: every column of every table, in order. It is
// deterministic.
func Generate() []columns.Case {
	var cases []columns.Case
	seen := map[string]bool{}
	for _, t := range tables() {
		for _, c := range t.cols {
			cs := t.build(c)
			if seen[cs.ID] {
				panic("realworld: duplicate case id " + cs.ID)
			}
			seen[cs.ID] = true
			cases = append(cases, cs)
		}
	}
	return cases
}

// WriteCorpus generates the corpus and writes it to path as JSON Lines.
func WriteCorpus(path string) error {
	var buf bytes.Buffer
	if err := columns.Encode(&buf, Generate()); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
