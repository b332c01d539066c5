package standardize

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// zipCity is 50 zip codes of 100 rows each, 98 holding the zip's city and
// 2 another city, with a few unsupported zips; wrong lists the broken
// rows as fixes would.
func zipCity() (pairs []PairCount, wrong []DependencyFix) {
	r := rand.New(rand.NewPCG(3, 4))
	cities := []string{"Stockholm", "Göteborg", "Malmö", "Uppsala", "Lund", "Umeå", "Luleå"}
	for z := range 50 {
		zip := fmt.Sprintf("%05d", 10000+z*37)
		city := cities[z%len(cities)]
		pairs = append(pairs, PairCount{zip, city, 98})
		other := cities[(z+1+r.IntN(len(cities)-1))%len(cities)]
		if z%2 == 0 { // two wrong rows of one city
			pairs = append(pairs, PairCount{zip, other, 2})
			wrong = append(wrong, DependencyFix{Determinant: zip, From: other, To: city, Rows: 2})
		} else { // or of two (typo and other city)
			pairs = append(pairs, PairCount{zip, city + "x", 1}, PairCount{zip, other, 1})
			wrong = append(wrong, DependencyFix{Determinant: zip, From: city + "x", To: city, Rows: 1},
				DependencyFix{Determinant: zip, From: other, To: city, Rows: 1})
		}
	}
	// Zips with too few rows to trust: never fixed.
	pairs = append(pairs, PairCount{"99901", "Kiruna", 3}, PairCount{"99901", "Gällivare", 1})
	slices.SortFunc(wrong, func(a, b DependencyFix) int {
		if a.Determinant != b.Determinant {
			return cmpString(a.Determinant, b.Determinant)
		}
		return cmpString(a.From, b.From)
	})
	return pairs, wrong
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestDependencyZipCity(t *testing.T) {
	pairs, wrong := zipCity()
	r := rand.New(rand.NewPCG(5, 6))
	r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
	strength, ok := Dependency(pairs)
	if !ok || strength != 0.98 {
		t.Fatalf("Dependency = %v, %v; want 0.98, true", strength, ok)
	}
	fixes, err := DependencyFixes(pairs)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for i := range fixes {
		if i == 0 {
			want = wilsonLower(98, 100)
		}
		if c := fixes[i].Confidence; c != want || !(c > 0.9 && c < 1) {
			t.Errorf("confidence %v, want %v", c, want)
		}
		fixes[i].Confidence = 0
	}
	if !reflect.DeepEqual(fixes, wrong) {
		t.Errorf("got %d fixes, want %d:\n got %v\nwant %v", len(fixes), len(wrong), fixes, wrong)
	}
}

func TestDependencyNot(t *testing.T) {
	// Each zip split 50/50 between two cities.
	var half []PairCount
	for z := range 40 {
		zip := fmt.Sprintf("%05d", z)
		half = append(half, PairCount{zip, "A" + zip, 50}, PairCount{zip, "B" + zip, 50})
	}
	// A constant dependent with 2% noise: every row "SE".
	var constant []PairCount
	for z := range 40 {
		zip := fmt.Sprintf("%05d", z)
		constant = append(constant, PairCount{zip, "SE", 98}, PairCount{zip, "Sweden", 2})
	}
	// A unique determinant (an id column): no determinant has 5 rows.
	var unique []PairCount
	for i := range 1000 {
		unique = append(unique, PairCount{fmt.Sprint(i), fmt.Sprint(i % 7), 1})
	}
	// A single supported determinant.
	single := []PairCount{{"1", "x", 100}, {"1", "y", 1}}
	for name, pairs := range map[string][]PairCount{"50/50": half, "constant": constant, "unique": unique, "single": single} {
		s, ok := Dependency(pairs)
		if ok {
			t.Errorf("%s: Dependency = %v, true; want false", name, s)
		}
		if fixes, err := DependencyFixes(pairs); err != nil || len(fixes) != 0 {
			t.Errorf("%s: fixes %v, %v", name, fixes, err)
		}
	}
	if s, _ := Dependency(half); s != 0.5 {
		t.Errorf("50/50 strength %v", s)
	}
}

// TestDependencySplitDeterminant: in a dependency, a determinant whose
// rows are split (a zip spanning two towns, 80/20) is not fixed.
func TestDependencySplitDeterminant(t *testing.T) {
	pairs, _ := zipCity()
	pairs = append(pairs, PairCount{"55555", "Borås", 80}, PairCount{"55555", "Ulricehamn", 20})
	fixes, err := DependencyFixes(pairs)
	if err != nil || len(fixes) == 0 {
		t.Fatal(fixes, err)
	}
	for _, f := range fixes {
		if f.Determinant == "55555" {
			t.Errorf("split determinant fixed: %+v", f)
		}
	}
}

func TestDependencyBounds(t *testing.T) {
	pairs, _ := zipCity()
	o := DependencyOptions{MaxPairs: 10}
	if _, err := o.Fixes(pairs); !errors.Is(err, ErrTooManyPairs) {
		t.Errorf("err %v, want ErrTooManyPairs", err)
	}
	if s, ok := o.Dependency(pairs); ok || s != 0 {
		t.Errorf("Dependency over the bound = %v, %v", s, ok)
	}
	// Repeated pairs add up; zero and negative counts are ignored.
	rep := append(slices.Clone(pairs), PairCount{"10000", "Stockholm", 0}, PairCount{"10000", "Nowhere", -5})
	a, _ := Dependency(rep)
	b, _ := Dependency(pairs)
	if a != b {
		t.Errorf("%v != %v", a, b)
	}
}

func TestPairCounter(t *testing.T) {
	c := NewPairCounter(2)
	for _, p := range [][2]string{{"1", "a"}, {"1", "a"}, {"2", "b"}, {"3", "c"}, {"1", "a"}, {"3", "c"}} {
		c.Add(p[0], p[1], 1)
	}
	want := []PairCount{{"1", "a", 3}, {"2", "b", 1}}
	if !reflect.DeepEqual(c.Pairs(), want) || c.Dropped() != 2 {
		t.Errorf("pairs %v dropped %d", c.Pairs(), c.Dropped())
	}
}
