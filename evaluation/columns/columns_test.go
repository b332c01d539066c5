package columns

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dqs/dqs/classify"
)

const regenerateHint = "regenerate it with `go run ./cmd/dqs-eval -regenerate`"

// TestCommittedCorpusIsGenerated: the committed corpus is exactly what
// Generate produces, so the data in the repository and the code that
// describes it cannot drift apart.
func TestCommittedCorpusIsGenerated(t *testing.T) {
	var fresh bytes.Buffer
	if err := Encode(&fresh, Generate()); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(fresh.Bytes(), committed) {
		return
	}
	got := strings.Split(string(committed), "\n")
	want := strings.Split(fresh.String(), "\n")
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			j := 0
			for j < len(g) && j < len(w) && g[j] == w[j] {
				j++
			}
			t.Fatalf("testdata/corpus.jsonl differs from Generate() at line %d, byte %d: committed …%q…, generated …%q…; %s",
				i+1, j, around(g, j), around(w, j), regenerateHint)
		}
	}
}

// around returns up to 40 bytes of s on either side of i.
func around(s string, i int) string { return s[max(0, i-40):min(len(s), i+40)] }

// TestGenerateIsDeterministic: two runs give the same corpus (no map order,
// clock or global random source leaks in).
func TestGenerateIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := Encode(&a, Generate()); err != nil {
		t.Fatal(err)
	}
	if err := Encode(&b, Generate()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("two calls of Generate() differ")
	}
}

// TestCorpusShape checks what the corpus promises: every label, unique ids,
// small and large columns, nulls, and a size that stays reviewable.
func TestCorpusShape(t *testing.T) {
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	if len(committed) > 4<<20 {
		t.Errorf("corpus is %d bytes, keep it under 4 MiB", len(committed))
	}
	labels := map[string]int{}
	ids := map[string]bool{}
	small, large, withNulls := 0, 0, 0
	for _, c := range cases {
		if ids[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		ids[c.ID] = true
		labels[c.Label]++
		if c.Name == "" || c.Locale == "" {
			t.Errorf("%s: empty name or locale", c.ID)
		}
		switch n := len(c.Values); {
		case n >= 15 && n <= 30:
			small++
		case n >= 100 && n <= 1000:
			large++
		default:
			t.Errorf("%s: %d values, want 15–30 or 100–1000", c.ID, n)
		}
		for _, v := range c.Values {
			if v == nil {
				withNulls++
				break
			}
		}
	}
	want := []string{
		"email", "phone", "payment_card", "iban", "national_id_us_ssn", "national_id_se_personnummer",
		"national_id_fi_hetu", "national_id_no_fodselsnummer", "national_id_dk_cpr", "ip_address", "person_name",
		"street_address", "postal_code", "date_of_birth", "gender", "age", "geolocation", "password", "password_hash",
		"secret", "health", "religion", "ethnicity", "sexual_orientation", "political_opinion", "biometric",
		"trade_union", "identifier", "category", "number", "money", "datetime", "date", "boolean", "free_text",
	}
	for _, l := range want {
		min := 4
		if classify.CategoryOf(l) == classify.CategoryNone {
			min = 8
		}
		if labels[l] < min {
			t.Errorf("label %s has %d columns, want ≥ %d", l, labels[l], min)
		}
	}
	if len(labels) != len(want) {
		t.Errorf("corpus has %d labels, want the %d listed", len(labels), len(want))
	}
	if small < len(cases)/10 || large < len(cases)/2 {
		t.Errorf("%d small and %d large columns of %d: want some small, most large", small, large, len(cases))
	}
	if withNulls < len(cases)/2 {
		t.Errorf("only %d of %d columns have null cells", withNulls, len(cases))
	}
}

// TestTargets: the classifier meets every target on the committed corpus.
func TestTargets(t *testing.T) {
	cases, err := Corpus()
	if err != nil {
		t.Fatal(err)
	}
	r := Evaluate(cases)
	if f := r.Failures(); len(f) > 0 {
		var b strings.Builder
		r.Print(&b)
		t.Log("\n" + b.String())
		t.Fatalf("targets missed:\n  %s", strings.Join(f, "\n  "))
	}
}
