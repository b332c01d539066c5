package realworld

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/evaluation/columns"
)

func encoded(t *testing.T, cases []columns.Case) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := columns.Encode(&b, cases); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestCommittedCorpusIsGenerated: testdata/corpus.jsonl is exactly what
// Generate writes, so the labelling rules in the code and the data agree.
func TestCommittedCorpusIsGenerated(t *testing.T) {
	fresh := encoded(t, Generate())
	if bytes.Equal(fresh, committed) {
		return
	}
	got, want := strings.Split(string(committed), "\n"), strings.Split(string(fresh), "\n")
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("testdata/corpus.jsonl line %d differs from Generate() (case %.60s…); regenerate it with `go run ./cmd/dqs-eval -regenerate`", i+1, want[i])
		}
	}
	t.Fatalf("testdata/corpus.jsonl has %d lines, Generate() %d; regenerate it", len(got), len(want))
}

func TestGenerateIsDeterministic(t *testing.T) {
	if !bytes.Equal(encoded(t, Generate()), encoded(t, Generate())) {
		t.Fatal("two calls of Generate() differ")
	}
}

// TestCorpusShape checks what the corpus promises: its size, the new labels,
// the misses the issue lists, and non-personal decoys.
func TestCorpusShape(t *testing.T) {
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 150 {
		t.Errorf("%d columns, want at least 150", len(cases))
	}
	if len(committed) >= 2<<20 {
		t.Errorf("corpus is %d bytes, keep it under 2 MiB", len(committed))
	}
	labels := map[string]int{}
	nonPersonal := 0
	for _, c := range cases {
		labels[c.Label]++
		if classify.CategoryOf(c.Label) == classify.CategoryNone {
			nonPersonal++
		}
	}
	for _, l := range []string{classify.LabelVIN, classify.LabelPassport, classify.LabelDriverLic, classify.LabelMAC,
		classify.LabelURL, classify.LabelUsername, classify.LabelBankAccount, classify.LabelPaymentCard,
		classify.LabelGender, classify.LabelAge, classify.LabelPersonName, classify.LabelPhone, classify.LabelStreet} {
		if labels[l] < 2 {
			t.Errorf("label %s has %d columns, want ≥ 2", l, labels[l])
		}
	}
	if nonPersonal < len(cases)/2 {
		t.Errorf("%d of %d columns are non-personal, want most to be decoys", nonPersonal, len(cases))
	}
	for _, h := range []string{"Unnamed: 0", "Card Number", "E-mail Address", "SEX", "DOB", "VIN", "Sex"} {
		if !hasHeader(cases, h) {
			t.Errorf("no column headed %q", h)
		}
	}
}

func hasHeader(cases []columns.Case, h string) bool {
	for _, c := range cases {
		if c.Name == h {
			return true
		}
	}
	return false
}

// TestTargets: the classifier meets the product's targets on this corpus.
func TestTargets(t *testing.T) {
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	r := columns.Evaluate(cases)
	if f := r.Failures(); len(f) > 0 {
		var b strings.Builder
		r.Print(&b)
		t.Log("\n" + b.String())
		t.Fatalf("targets missed:\n  %s", strings.Join(f, "\n  "))
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Unnamed: 0": "unnamed-0", "Annual Income (k$)": "annual-income-k", "E-mail Address": "e-mail-address", "Stock #": "stock",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}
