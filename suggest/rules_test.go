package suggest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/quality"
)

var cities = []string{"Stockholm", "Göteborg", "Malmö", "Uppsala", "Västerås", "Örebro"}

func TestTrimPaddedValues(t *testing.T) {
	f := csvFile(t, []string{"id", "city"}, repeat(200, func(i int) []string {
		c := cities[i%len(cities)]
		switch i {
		case 7:
			c += " "
		case 9:
			c = "\u00a0" + c
		}
		return []string{fmt.Sprint(i), c}
	}))
	ss := f.suggest(t, Options{})
	trims := find(ss, "city", corrections.StrategyTrim)
	if len(trims) != 1 || trims[0].Changes != 2 || trims[0].Confidence < 0.9 {
		t.Fatalf("trim = %+v", trims)
	}
	if len(find(ss, "id", corrections.StrategyTrim)) != 0 {
		t.Error("trim proposed for a column without padding")
	}
	out := f.apply(t, trims)
	if out[7][1] != cities[7%len(cities)] || out[9][1] != cities[9%len(cities)] {
		t.Errorf("after trim: %q, %q", out[7][1], out[9][1])
	}
}

func TestCaseGroupsMapToTheDominantSpelling(t *testing.T) {
	f := csvFile(t, []string{"id", "city", "surname"}, repeat(300, func(i int) []string {
		c := cities[i%len(cities)]
		switch i {
		case 10, 11:
			c = strings.ToUpper(c)
		case 12:
			c = strings.ToLower(c)
		}
		// Two real spellings, about as common: nothing to map.
		s := []string{"MacDonald", "Macdonald"}[i%2]
		return []string{fmt.Sprint(i), c, s}
	}))
	ss := f.suggest(t, Options{})
	maps := find(ss, "city", corrections.StrategyStandardize)
	if len(maps) == 0 || maps[0].Engine != EngineRule {
		t.Fatalf("no case mapping: %+v", ss)
	}
	m := maps[0]
	if m.Issue != quality.KindInconsistentCase || m.Confidence < 0.8 {
		t.Errorf("issue %q, confidence %v", m.Issue, m.Confidence)
	}
	mapping := m.Params["mapping"].(map[string]any)
	if mapping["VÄSTERÅS"] != "Västerås" || mapping["ÖREBRO"] != "Örebro" || mapping["stockholm"] != "Stockholm" {
		t.Errorf("mapping = %v", mapping)
	}
	if len(find(ss, "surname", corrections.StrategyStandardize)) != 0 {
		t.Error("two spellings as common as each other were mapped")
	}
	out := f.apply(t, ss)
	for _, i := range []int{10, 11, 12} {
		if want := cities[i%len(cities)]; out[i][1] != want {
			t.Errorf("row %d: %q, want %q", i, out[i][1], want)
		}
	}
}

func TestStyleOf(t *testing.T) {
	for v, want := range map[string]caseStyle{
		"paris": styleLower, "PARIS": styleUpper, "Paris": styleTitle, "New York": styleTitle, "Saint-Étienne": styleTitle,
		"O'Brien": styleTitle, "MacDonald": styleMixed, "iPhone": styleMixed, "123": styleNone, "": styleNone,
	} {
		if got := styleOf(v); got != want {
			t.Errorf("styleOf(%q) = %v, want %v", v, got, want)
		}
	}
}

// An internal capital is written on purpose: "MacDonald" beside a more
// common "Macdonald" is another family.
func TestInternalCapitalsAreNotSlips(t *testing.T) {
	f := csvFile(t, []string{"id", "surname"}, repeat(300, func(i int) []string {
		s := []string{"Smith", "Jones", "Macdonald", "Berg", "Novak"}[i%5]
		if i == 3 {
			s = "MacDonald"
		}
		return []string{fmt.Sprint(i), s}
	}))
	for _, s := range find(f.suggest(t, Options{}), "surname", corrections.StrategyStandardize) {
		if s.Params["mapping"].(map[string]any)["MacDonald"] != nil {
			t.Errorf("MacDonald mapped at %.2f", s.Confidence)
		}
	}
}

func dateRows(n int, other func(i int) string) [][]string {
	return repeat(n, func(i int) []string {
		d := fmt.Sprintf("2024-%02d-%02d", i%12+1, i%28+1)
		if o := other(i); o != "" {
			d = o
		}
		return []string{fmt.Sprint(i), d}
	})
}

func TestDatesDayFirstWithEvidence(t *testing.T) {
	f := csvFile(t, []string{"id", "signup_date"}, dateRows(300, func(i int) string {
		if i%6 == 0 {
			return fmt.Sprintf("%02d/%02d/2024", i%28+1, i%12+1) // day first
		}
		if i%25 == 1 {
			return fmt.Sprintf("%d %s 2024", i%28+1, []string{"Jan", "Feb", "Mar"}[i%3])
		}
		return ""
	}))
	ss := find(f.suggest(t, Options{}), "signup_date", corrections.StrategyDateISO)
	if len(ss) == 0 {
		t.Fatal("no date_iso")
	}
	for _, s := range ss {
		if s.Issue != quality.KindInconsistentFormat {
			t.Errorf("issue %q", s.Issue)
		}
		formats := s.Params["input_formats"].([]string)
		if i, j := slices.Index(formats, "2/1/2006"), slices.Index(formats, "1/2/2006"); i >= 0 && (j < 0 || j < i) {
			t.Errorf("day first should come first: %v", formats)
		}
	}
	out := f.apply(t, ss)
	if out[6][1] != "2024-07-07" || out[12][1] != "2024-01-13" {
		t.Errorf("rows 6, 12: %q %q", out[6][1], out[12][1])
	}
	if out[1][1] != "2024-02-02" {
		t.Errorf("row 1: %q", out[1][1])
	}
}

// Slash dates from two locales in one column: the ambiguous ones cannot
// be read surely, and their step stays under the trust threshold.
func TestDatesFromTwoLocalesAreNotTrusted(t *testing.T) {
	f := csvFile(t, []string{"id", "date"}, dateRows(300, func(i int) string {
		switch {
		case i%7 == 0:
			return fmt.Sprintf("%02d/%02d/2024", i%28+1, i%12+1) // day first
		case i%9 == 0:
			return fmt.Sprintf("%02d/%02d/2024", i%12+1, i%28+1) // month first
		}
		return ""
	}))
	ss := find(f.suggest(t, Options{}), "date", corrections.StrategyDateISO)
	if len(ss) == 0 {
		t.Fatal("no date_iso")
	}
	for _, s := range ss {
		if s.Confidence >= 0.8 {
			t.Errorf("confidence %.2f for dates of two locales: %s", s.Confidence, s.Explanation)
		}
	}
}

func TestDatesInOneLayoutAreAConvention(t *testing.T) {
	f := csvFile(t, []string{"id", "date"}, dateRows(100, func(i int) string {
		return fmt.Sprintf("%02d.%02d.2024", i%28+1, i%12+1)
	}))
	if ss := find(f.suggest(t, Options{}), "date", corrections.StrategyDateISO); len(ss) != 0 {
		t.Errorf("date_iso for a column in one layout: %+v", ss)
	}
}

func TestEmailNormalize(t *testing.T) {
	f := csvFile(t, []string{"id", "email"}, repeat(200, func(i int) []string {
		e := fmt.Sprintf("person.%d@example.com", i)
		switch i {
		case 5:
			e = strings.ToUpper(e)
		case 6:
			e = " Person.6@Example.com"
		}
		return []string{fmt.Sprint(i), e}
	}))
	ss := f.suggest(t, Options{})
	em := find(ss, "email", corrections.StrategyEmailNormalize)
	if len(em) != 1 || em[0].Changes != 2 || em[0].Confidence < 0.9 {
		t.Fatalf("email_normalize = %+v", em)
	}
	if len(find(ss, "email", corrections.StrategyTrim)) != 0 {
		t.Error("trim beside email_normalize, which trims")
	}
	if strings.Contains(em[0].Explanation, "Person.6") {
		t.Errorf("the explanation shows a personal value: %s", em[0].Explanation)
	}
	out := f.apply(t, em)
	if out[5][1] != "person.5@example.com" || out[6][1] != "person.6@example.com" {
		t.Errorf("rows 5, 6: %q %q", out[5][1], out[6][1])
	}
}

func TestPhoneRegionOnlyWhenEvident(t *testing.T) {
	rows := repeat(200, func(i int) []string {
		n := fmt.Sprintf("+4670%07d", 1234567+i*7919)
		switch i % 4 {
		case 1:
			n = fmt.Sprintf("+46 70 %03d %02d %02d", (1234567+i*7919)/10000%1000, (1234567+i*7919)/100%100, (1234567+i*7919)%100)
		case 2:
			n = fmt.Sprintf("070-%07d", 1234567+i*7919)
		}
		return []string{fmt.Sprint(i), n}
	})
	f := csvFile(t, []string{"id", "phone"}, rows)
	ss := find(f.suggest(t, Options{}), "phone", corrections.StrategyPhoneE164)
	if len(ss) != 2 {
		t.Fatalf("phone steps = %+v", ss)
	}
	if ss[0].Params["default_region"] != nil || ss[1].Params["default_region"] != "SE" {
		t.Errorf("regions: %v, %v", ss[0].Params, ss[1].Params)
	}
	out := f.apply(t, ss)
	if out[1][1] != fmt.Sprintf("+4670%07d", 1234567+1*7919) || out[2][1] != fmt.Sprintf("+4670%07d", 1234567+2*7919) {
		t.Errorf("rows 1, 2: %q %q", out[1][1], out[2][1])
	}

	// Without a number giving its code, the region is not evident.
	for i := range rows {
		rows[i][1] = fmt.Sprintf("070-%07d", 1234567+i*7919)
		if i%2 == 0 {
			rows[i][1] = fmt.Sprintf("070 %07d", 1234567+i*7919)
		}
	}
	f = csvFile(t, []string{"id", "phone"}, rows)
	for _, s := range find(f.suggest(t, Options{}), "phone", corrections.StrategyPhoneE164) {
		if s.Params["default_region"] != nil {
			t.Errorf("region guessed without evidence: %+v", s)
		}
	}
}

func TestDecimalComma(t *testing.T) {
	f := csvFile(t, []string{"id", "amount"}, repeat(200, func(i int) []string {
		a := fmt.Sprintf("%d.%02d", 10+i, i%100)
		if i%10 == 0 {
			a = fmt.Sprintf("%d,%02d", 10+i, i%100)
		}
		return []string{fmt.Sprint(i), a}
	}))
	ss := find(f.suggest(t, Options{}), "amount", corrections.StrategyDecimalPoint)
	if len(ss) != 1 || ss[0].Confidence < 0.9 || ss[0].Changes != 20 {
		t.Fatalf("decimal_point = %+v", ss)
	}
	out := f.apply(t, ss)
	if out[10][1] != "20.10" || out[11][1] != "21.11" {
		t.Errorf("rows 10, 11: %q %q", out[10][1], out[11][1])
	}
}

// Weights with three decimals read differently with a decimal comma
// ("1.250" would become 1250): a few commas do not make the step trusted.
func TestDecimalCommaAmongThreeDecimals(t *testing.T) {
	f := csvFile(t, []string{"id", "weight_kg"}, repeat(200, func(i int) []string {
		w := fmt.Sprintf("%d.%03d", i%5, 100+i*37%900)
		if i%20 == 0 {
			w = fmt.Sprintf("0,%03d", 100+i)
		}
		return []string{fmt.Sprint(i), w}
	}))
	for _, s := range find(f.suggest(t, Options{}), "weight_kg", corrections.StrategyDecimalPoint) {
		if s.Confidence >= 0.5 {
			t.Errorf("decimal_point at %.2f would rewrite 1.250 as 1250: %s", s.Confidence, s.Explanation)
		}
	}
}

func TestDuplicateRows(t *testing.T) {
	rows := repeat(200, func(i int) []string {
		return []string{fmt.Sprintf("C%04d", i), cities[i%len(cities)], fmt.Sprint(i * 3)}
	})
	rows = append(rows, rows[5], rows[17])
	f := csvFile(t, []string{"id", "city", "amount"}, rows)
	ss := f.suggest(t, Options{})
	if len(ss) == 0 || ss[0].CorrectionType != corrections.TypeDedupe {
		t.Fatalf("the dedupe step does not come first: %+v", ss)
	}
	d := ss[0]
	if d.Column != "" || d.Issue != quality.KindDuplicateRows || d.Changes != 2 || d.Confidence < 0.9 {
		t.Errorf("dedupe = %+v", d)
	}
	if out := f.apply(t, ss[:1]); len(out) != 200 {
		t.Errorf("%d rows after dedupe", len(out))
	}

	// An identifier repeated with the rest of its row: a copy.
	keyed := repeat(300, func(i int) []string { return []string{fmt.Sprintf("K%d", i), []string{"a", "b"}[i%2]} })
	keyed = append(keyed, keyed[9])
	f = csvFile(t, []string{"key", "kind"}, keyed)
	if d := f.suggest(t, Options{}); len(d) == 0 || d[0].CorrectionType != corrections.TypeDedupe || d[0].Confidence < 0.9 {
		t.Errorf("dedupe of a repeated key: %+v", d)
	}

	// Narrow rows of few values coincide by chance: less sure.
	narrow := repeat(300, func(i int) []string { return []string{[]string{"a", "b", "c"}[i%3], fmt.Sprint(i % 7)} })
	f = csvFile(t, []string{"kind", "n"}, narrow)
	for _, s := range f.suggest(t, Options{}) {
		if s.CorrectionType == corrections.TypeDedupe && s.Confidence >= 0.8 {
			t.Errorf("dedupe of 21 possible rows at %.2f", s.Confidence)
		}
	}
}

func TestNullFillMedianIsAGuess(t *testing.T) {
	f := csvFile(t, []string{"id", "amount"}, repeat(200, func(i int) []string {
		a := fmt.Sprint(100 + i*13%97)
		if i%14 == 0 {
			a = ""
		}
		return []string{fmt.Sprint(i), a}
	}))
	ss := find(f.suggest(t, Options{}), "amount", corrections.StrategyMedian)
	if len(ss) != 1 || ss[0].Issue != quality.KindMissingValues {
		t.Fatalf("null_fill = %+v", ss)
	}
	if c := ss[0].Confidence; c < 0.3 || c >= 0.8 {
		t.Errorf("confidence %.2f: a fill is a guess", c)
	}
	if out := f.apply(t, ss); out[0][1] == "" {
		t.Error("not filled")
	}
}

func TestNoSuggestionsForACleanFile(t *testing.T) {
	f := csvFile(t, []string{"id", "name", "city", "joined"}, repeat(200, func(i int) []string {
		return []string{fmt.Sprint(i), []string{"Jon", "John", "Katherine", "Catherine", "Anna", "Ana"}[i%6] + fmt.Sprintf(" %c.", 'A'+i%26),
			cities[i%len(cities)], fmt.Sprintf("2024-%02d-%02d", i%12+1, i%28+1)}
	}))
	if ss := f.suggest(t, Options{}); len(ss) != 0 {
		t.Errorf("suggestions for a clean file: %+v", ss)
	}
}
