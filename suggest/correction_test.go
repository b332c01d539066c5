package suggest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/dqs/dqs/corrections"
)

// zipRows are addresses: each zip in one city, two zips in each city
// (zip 11122 on rows 0, 12, 24…, 41103 on rows 1, 13…), with typos and
// violations put in by the caller.
func zipRows(n int, dirty func(i int, zip, city string) string) [][]string {
	zips := []string{"11122", "41103", "21119", "75220", "72211", "70210", "11352", "41263", "21422", "75320", "72212", "70211"}
	return repeat(n, func(i int) []string {
		k := i % len(zips)
		return []string{fmt.Sprintf("A%05d", i), fmt.Sprintf("Storgatan %d", i), zips[k], dirty(i, zips[k], cities[k%len(cities)])}
	})
}

func TestClusterTypos(t *testing.T) {
	f := csvFile(t, []string{"id", "street", "zip", "city"}, zipRows(600, func(i int, _, city string) string {
		switch i {
		case 6:
			return "Stokholm"
		case 13:
			return "Göteborrg"
		}
		return city
	}))
	ss := f.suggest(t, Options{})
	var got []Suggestion
	for _, s := range find(ss, "city", corrections.StrategyStandardize) {
		if s.Engine == EngineCorrection {
			got = append(got, s)
		}
	}
	if len(got) != 1 {
		t.Fatalf("cluster steps = %+v", ss)
	}
	m := got[0].Params["mapping"].(map[string]any)
	if m["Stokholm"] != "Stockholm" || m["Göteborrg"] != "Göteborg" || got[0].Changes != 2 {
		t.Errorf("mapping = %v, changes %d", m, got[0].Changes)
	}
	// The standardize package's F(r)·S: a typo of a value 100 times as
	// frequent, one edit in nine letters.
	if c := got[0].Confidence; c < 0.5 || c > 0.8 {
		t.Errorf("confidence %.2f", c)
	}
}

// People's names are not a vocabulary: Jon and John are two people.
func TestNamesAreNotClustered(t *testing.T) {
	names := []string{"John", "John", "John", "John", "Jon", "Katherine", "Katherine", "Katherine", "Catherine"}
	f := csvFile(t, []string{"id", "first_name"}, repeat(450, func(i int) []string {
		return []string{fmt.Sprint(i), names[i%len(names)]}
	}))
	for _, s := range f.suggest(t, Options{}) {
		if s.Column == "first_name" && s.Engine == EngineCorrection {
			t.Errorf("names clustered: %+v", s)
		}
	}
}

func TestDependencyFixesTheDependent(t *testing.T) {
	f := csvFile(t, []string{"id", "street", "zip", "city"}, zipRows(600, func(i int, zip, city string) string {
		switch i {
		case 12: // zip 11122
			return "Malmö"
		case 25: // zip 41103
			return "STOCKHOLM" // a violation in another case
		}
		return city
	}))
	ss := f.suggest(t, Options{})
	var dep []Suggestion
	for _, s := range ss {
		if s.CorrectionType == corrections.TypeCustom {
			dep = append(dep, s)
		}
	}
	if len(dep) != 1 || dep[0].Column != "city" || dep[0].Engine != EngineCorrection || dep[0].Changes != 2 {
		t.Fatalf("dependency steps = %+v", dep)
	}
	if c := dep[0].Confidence; c < 0.8 {
		t.Errorf("confidence %.2f for 49 of 50 rows", c)
	}
	if !strings.Contains(dep[0].Explanation, `"zip" determines "city"`) {
		t.Errorf("explanation: %s", dep[0].Explanation)
	}
	// Alone, and after the other steps: right either way.
	for _, steps := range [][]Suggestion{dep, ss} {
		out := f.apply(t, steps)
		if out[12][3] != "Stockholm" || out[25][3] != "Göteborg" {
			t.Errorf("rows 12, 25: %q %q", out[12][3], out[25][3])
		}
	}
}

// A determinant value that is itself what another dependency would fix
// (a city that is not its zip's, determining the region) may be the wrong
// cell: the region fix is not trusted.
func TestSuspectDeterminant(t *testing.T) {
	regions := map[string]string{"Stockholm": "Stockholm", "Göteborg": "Västra Götaland", "Malmö": "Skåne",
		"Uppsala": "Uppsala", "Västerås": "Västmanland", "Örebro": "Örebro"}
	rows := zipRows(600, func(i int, zip, city string) string { return city })
	for i := range rows {
		rows[i] = append(rows[i], regions[rows[i][3]])
	}
	rows[12][3] = "Malmö" // zip 11122 is Stockholm: the region stays Stockholm's
	check := func(rows [][]string) {
		t.Helper()
		f := csvFile(t, []string{"id", "street", "zip", "city", "region"}, rows)
		for _, s := range f.suggest(t, Options{}) {
			if s.CorrectionType == corrections.TypeCustom && s.Column == "region" && s.Confidence >= 0.8 {
				t.Errorf("region fixed at %.2f: %s", s.Confidence, s.Explanation)
			}
		}
	}
	check(rows)
	// Three wrong cities in one zip's 50 rows: too many for the zip's
	// fix, still a reason to doubt the city.
	rows[24][3], rows[36][3] = "Malmö", "Malmö"
	check(rows)
}

func TestDependencyExpressionQuotes(t *testing.T) {
	fixes := []*depFix{{keys: []string{`a"b` + pairSep + "x\\y", "é\n" + pairSep + "ü"}}}
	fixes[0].To = `to "quoted"`
	src := dependencyExpression(`col "a"`, "col\tb", fixes)
	cols := []string{`col "a"`, "col\tb"}
	step := corrections.Step{Type: corrections.TypeCustom, Column: "col\tb", Params: map[string]any{"expression": src}}
	if err := step.Validate(cols); err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	in := &memReader{cols: cols, rows: [][]string{{`a"b`, "x\\y"}, {"é\n", "ü"}, {"a", "b"}}}
	w := &rowsWriter{}
	if _, err := corrections.Apply(context.Background(), in, w, corrections.Pipeline{step}, corrections.Options{}); err != nil {
		t.Fatal(err)
	}
	want := []string{`to "quoted"`, `to "quoted"`, "b"}
	for i, row := range w.rows {
		if row[1] != want[i] {
			t.Errorf("row %d: %q, want %q", i, row[1], want[i])
		}
	}
}

func TestChunkFixesStaysWithinTheExpressionBounds(t *testing.T) {
	var fixes []*depFix
	for i := range 350 {
		f := &depFix{keys: []string{fmt.Sprintf("%05d%scity number %d", i, pairSep, i)}}
		f.To, f.Rows = fmt.Sprintf("canonical city %d", i), int64(i%7)
		fixes = append(fixes, f)
	}
	chunks := chunkFixes(fixes)
	n := 0
	for _, c := range chunks {
		n += len(c)
		src := dependencyExpression("zip", "city", c)
		step := corrections.Step{Type: corrections.TypeCustom, Column: "city", Params: map[string]any{"expression": src}}
		if err := step.Validate([]string{"zip", "city"}); err != nil {
			t.Fatalf("chunk of %d: %v", len(c), err)
		}
	}
	if n != len(fixes) || len(chunks) < 2 {
		t.Errorf("%d fixes in %d chunks", n, len(chunks))
	}
}
