package standardize

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// handWritten is the example of the brief: case, whitespace, accent and
// punctuation variants, a typo, look-alike real values, numbers, and
// Chinese.
var handWritten = []ValueCount{
	{"Stockholm", 1000}, {"stockholm ", 40}, {"STOCKHOLM", 12}, {"Stokholm", 7},
	{"Göteborg", 500}, {"Goteborg", 20},
	{"New York", 300}, {"new york", 10},
	{"NY", 200}, {"N.Y.", 15},
	{"Paris", 100}, {"Parts", 90}, // look alike, both frequent: two values
	{"Apt 12", 50}, {"Apt 13", 3}, // different digits
	{"北京市", 60}, {"北京市 ", 3}, {"北京", 5}, {"南京市", 30}, // short: formatting only
	{"Zhang Wei 张伟", 40}, {"zhang wei  张伟", 2},
}

func TestClusterHandWritten(t *testing.T) {
	got, st := Cluster(handWritten, Options{})
	f := func(r float64) float64 { return math.Log(r) / (1 + math.Log(r)) }
	want := []Mapping{
		{"stockholm ", "Stockholm", 40, 1000, MethodFingerprint, 0, f(1000.0 / 40)},
		{"STOCKHOLM", "Stockholm", 12, 1000, MethodFingerprint, 0, f(1000.0 / 12)},
		{"Stokholm", "Stockholm", 7, 1000, MethodNearestNeighbour, 1, f(1000.0/7) * (1 - 1.0/9)},
		{"Goteborg", "Göteborg", 20, 500, MethodFingerprint, 0, f(500.0 / 20)},
		{"new york", "New York", 10, 300, MethodFingerprint, 0, f(300.0 / 10)},
		{"N.Y.", "NY", 15, 200, MethodFingerprint, 0, f(200.0 / 15)},
		{"北京市 ", "北京市", 3, 60, MethodFingerprint, 0, f(60.0 / 3)},
		{"zhang wei  张伟", "Zhang Wei 张伟", 2, 40, MethodFingerprint, 0, f(40.0 / 2)},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d mappings, want %d:\n%s", len(got), len(want), dump(got))
	}
	for i := range want {
		g, w := got[i], want[i]
		if math.Abs(g.Confidence-w.Confidence) > 1e-12 {
			t.Errorf("%q: confidence %v, want %v", g.Variant, g.Confidence, w.Confidence)
		}
		g.Confidence, w.Confidence = 0, 0
		if g != w {
			t.Errorf("mapping %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
	if st.Values != len(handWritten) || st.Mappings != len(want) {
		t.Errorf("stats %+v", st)
	}
}

// TestConfidenceOrder checks the order the formula gives: at one ratio a
// formatting variant outranks a typo, and a more dominant canonical value
// raises the confidence.
func TestConfidenceOrder(t *testing.T) {
	ms, _ := Cluster(handWritten, Options{})
	conf := map[string]float64{}
	for _, m := range ms {
		conf[m.Variant] = m.Confidence
	}
	// STOCKHOLM (ratio 83) > "stockholm " (25, same fingerprint) > Stokholm
	// (143, one edit in nine).
	if !(conf["STOCKHOLM"] > conf["stockholm "] && conf["stockholm "] > conf["Stokholm"]) {
		t.Errorf("confidences out of order: %v", conf)
	}
	ms, _ = Cluster([]ValueCount{{"Kalmarsund", 500}, {"kalmarsund", 10}, {"Kalmarsnd", 10}}, Options{})
	if len(ms) != 2 || ms[0].Variant != "Kalmarsnd" || ms[1].Variant != "kalmarsund" {
		t.Fatalf("got\n%s", dump(ms))
	}
	if !(ms[1].Confidence > ms[0].Confidence) {
		t.Errorf("case variant %v not above typo %v at the same ratio", ms[1].Confidence, ms[0].Confidence)
	}
	for _, m := range ms {
		if !(m.Confidence > 0 && m.Confidence < 1) {
			t.Errorf("confidence %v outside (0,1)", m.Confidence)
		}
	}
}

func TestClusterGuards(t *testing.T) {
	cases := []struct {
		name string
		in   []ValueCount
		want map[string]string // variant → canonical; nil: no mapping
	}{
		{"ratio at R", []ValueCount{{"Uppsala", 30}, {"uppsala", 10}}, map[string]string{"uppsala": "Uppsala"}},
		{"ratio below R", []ValueCount{{"Uppsala", 29}, {"uppsala", 10}}, nil},
		{"look-alikes both frequent", []ValueCount{{"Paris", 100}, {"Parts", 90}}, nil},
		{"variant of the closer real value", []ValueCount{{"Paris", 100}, {"Parts", 90}, {"parts ", 5}},
			map[string]string{"parts ": "Parts"}},
		{"apartment numbers", []ValueCount{{"Apt 12", 50}, {"Apt 13", 3}, {"apt 12", 4}},
			map[string]string{"apt 12": "Apt 12"}},
		{"dates", []ValueCount{{"2024-01-02", 100}, {"2024-01-03", 2}, {"2024-02-01", 2}}, nil},
		{"zip codes", []ValueCount{{"11122", 100}, {"11123", 2}, {"111 22", 5}},
			map[string]string{"111 22": "11122"}},
		{"digits in order", []ValueCount{{"Box 12 34", 100}, {"Box 34 12", 2}}, nil},
		{"short codes", []ValueCount{{"NY", 200}, {"NJ", 10}, {"USD", 100}, {"USB", 3}}, nil},
		{"short CJK", []ValueCount{{"北京", 200}, {"南京", 10}, {"北京市", 3}}, nil},
		{"word order", []ValueCount{{"Smith, John", 40}, {"John Smith", 5}}, map[string]string{"John Smith": "Smith, John"}},
		{"spaces inside a word", []ValueCount{{"Stockholm", 40}, {"Stock holm", 5}}, map[string]string{"Stock holm": "Stockholm"}},
		{"typo chain to the dominant value", []ValueCount{{"Stockholm", 1000}, {"Stokholm", 50}, {"Stokhlm", 2}},
			map[string]string{"Stokholm": "Stockholm", "Stokhlm": "Stockholm"}},
		{"two edits from 8 runes", []ValueCount{{"Göteborgs", 100}, {"Gotebrogs", 3}}, map[string]string{"Gotebrogs": "Göteborgs"}},
		{"one edit below 8 runes", []ValueCount{{"Malmö", 100}, {"Malmo ", 3}, {"Malmx", 3}, {"Mamlö", 3}},
			map[string]string{"Malmo ": "Malmö", "Malmx": "Malmö"}},
		{"nulls are not spellings", []ValueCount{{"", 100}, {" ", 10}, {"--", 10}, {"N/A", 50}, {"n/a", 5}, {"x", 0}, {"X", -3}},
			map[string]string{"n/a": "N/A"}},
		{"repeated input values add up", []ValueCount{{"Lund", 10}, {"LUND", 4}, {"Lund", 5}}, map[string]string{"LUND": "Lund"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms, _ := Cluster(c.in, Options{})
			got := StepMapping(ms)
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v\n%s", got, c.want, dump(ms))
			}
			checkMappings(t, c.in, ms, DefaultMinRatio)
		})
	}
}

func TestRepeatedValueCounts(t *testing.T) {
	ms, _ := Cluster([]ValueCount{{"Lund", 10}, {"LUND", 4}, {"Lund", 5}}, Options{})
	if len(ms) != 1 || ms[0].CanonicalCount != 15 || ms[0].VariantCount != 4 {
		t.Errorf("got\n%s", dump(ms))
	}
	// Counts saturate instead of wrapping.
	ms, _ = Cluster([]ValueCount{{"Lund", math.MaxInt64}, {"LUND", 4}, {"Lund", math.MaxInt64}}, Options{})
	if len(ms) != 1 || ms[0].CanonicalCount != math.MaxInt64 {
		t.Errorf("got\n%s", dump(ms))
	}
}

func TestClusterOptions(t *testing.T) {
	in := []ValueCount{{"Stockholm", 1000}, {"Stock holm", 5}, {"Stokholm", 7}, {"STOCKHOLM", 12}}
	cases := []struct {
		opt  Options
		want []string // variants mapped
	}{
		{Options{}, []string{"STOCKHOLM", "Stokholm", "Stock holm"}},
		{Options{SkipNGram: true}, []string{"STOCKHOLM", "Stokholm"}},
		{Options{SkipNeighbour: true}, []string{"STOCKHOLM", "Stock holm"}},
		{Options{SkipNGram: true, SkipNeighbour: true}, []string{"STOCKHOLM"}},
		{Options{MinRatio: 100}, []string{"Stokholm", "Stock holm"}}, // STOCKHOLM: 83×
		{Options{MinRatio: 150}, []string{"Stock holm"}},
	}
	for _, c := range cases {
		ms, _ := Cluster(in, c.opt)
		var got []string
		for _, m := range ms {
			got = append(got, m.Variant)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: got %q, want %q", c.opt, got, c.want)
		}
	}
}

// TestClusterDeterministic: the input order does not change the output.
func TestClusterDeterministic(t *testing.T) {
	in := newGen(3).column(20_000, 2_000, 1_500)
	want, _ := Cluster(in, Options{})
	r := rand.New(rand.NewPCG(1, 2))
	for range 3 {
		sh := append([]ValueCount(nil), in...)
		r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		got, _ := Cluster(sh, Options{})
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("shuffled input gives other mappings (%d vs %d)", len(got), len(want))
		}
	}
	if len(want) == 0 {
		t.Fatal("no mappings on a generated column")
	}
	checkMappings(t, in, want, DefaultMinRatio)
}

func TestStepMapping(t *testing.T) {
	ms, _ := Cluster(handWritten, Options{})
	got := StepMapping(ms)
	if len(got) != len(ms) || got["N.Y."] != "NY" || got["stockholm "] != "Stockholm" {
		t.Errorf("got %v", got)
	}
}

func TestFingerprint(t *testing.T) {
	cases := map[string]string{
		"  Stockholm ":        "stockholm",
		"STOCKHOLM":           "stockholm",
		"N.Y.":                "ny",
		"Göteborg":            "goteborg",
		"Smith, John":         "john smith",
		"john  smith smith":   "john smith",
		"São Paulo":           "paulo sao",
		"Øresund Æble Straße": "aeble oresund strasse",
		"Łódź":                "lodz",
		"Ｔｏｋｙｏ":               "tokyo",
		"e\u0301clair":        "eclair", // decomposed accent
		"zero\u200bwidth":     "zerowidth",
		"北京市 ":                "北京市",
		"서울 Seoul":            "seoul 서울",
		"Москва":              "москва",
		"a\tb\nc":             "a b c",
		"2024-01-02":          "20240102",
		"¿Qué?":               "que",
		"--":                  "",
	}
	for in, want := range cases {
		if got := Fingerprint(in); got != want {
			t.Errorf("Fingerprint(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNGramFingerprint(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{"Stock holm", 2, "ckhokhlmocolstto"},
		{"Stockholm", 2, "ckhokhlmocolstto"},
		{"Paris", 2, "arispari"},
		{"abab", 2, "abba"},
		{"a", 2, "a"},
		{"N.Y.", 2, "ny"},
		{"Göteborg", 3, "borebogotorgoteteb"},
		{"北京市", 2, "京市北京"},
	}
	for _, c := range cases {
		if got := NGramFingerprint(c.in, c.n); got != c.want {
			t.Errorf("NGramFingerprint(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// TestNGramPaths checks the bitmap path for ASCII bigrams against the
// plain definition (sorted unique n-grams of the compact form) on
// generated values, and the other paths too.
func TestNGramPaths(t *testing.T) {
	g := newGen(5)
	var k keyer
	for range 3000 {
		v := g.variant(g.company(g.r.IntN(1000)))
		if g.r.IntN(3) == 0 {
			v = g.email()
		}
		if g.r.IntN(4) == 0 {
			v = g.city(g.r.IntN(500))
		}
		k.run(v)
		rs := []rune(string(k.compact))
		for _, n := range []int{1, 2, 3, 9} {
			var want string
			if len(rs) < n {
				want = string(rs)
			} else {
				set := map[string]bool{}
				for i := 0; i+n <= len(rs); i++ {
					set[string(rs[i:i+n])] = true
				}
				want = joinSorted(set)
			}
			if got := NGramFingerprint(v, n); got != want {
				t.Fatalf("NGramFingerprint(%q, %d) = %q, want %q", v, n, got, want)
			}
		}
	}
}
