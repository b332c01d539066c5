package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// seriesRow is one row of a test series; a NaN-free value, or missed.
type seriesRow struct {
	at     time.Time
	value  float64
	missed bool
}

// dailySeries is n daily values around 100 with small uniform noise
// (±amp), from 2024-01-01, deterministic for seed.
func dailySeries(n int, amp float64, seed uint64) []seriesRow {
	r := rand.New(rand.NewPCG(seed, 7))
	start := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	rows := make([]seriesRow, n)
	for i := range rows {
		rows[i] = seriesRow{at: start.AddDate(0, 0, i), value: 100 + amp*(2*r.Float64()-1)}
	}
	return rows
}

// seriesCSV writes rows as CSV, with a header when header is set.
func seriesCSV(rows []seriesRow, header bool) string {
	var b strings.Builder
	if header {
		b.WriteString("timestamp,value\n")
	}
	for _, r := range rows {
		if r.missed {
			fmt.Fprintf(&b, "%s,\n", r.at.Format(time.DateOnly))
			continue
		}
		fmt.Fprintf(&b, "%s,%s\n", r.at.Format(time.DateOnly), strconv.FormatFloat(r.value, 'f', -1, 64))
	}
	return b.String()
}

// anomaliesOutput is the parsed --json output.
type anomaliesOutput struct {
	Sensitivity string `json:"sensitivity"`
	Metric      string `json:"metric"`
	Points      int    `json:"points"`
	Judged      int    `json:"judged"`
	Flagged     []struct {
		Timestamp   string   `json:"timestamp"`
		Value       float64  `json:"value"`
		Low         float64  `json:"low"`
		High        float64  `json:"high"`
		Score       float64  `json:"score"`
		Change      *float64 `json:"change"`
		Explanation string   `json:"explanation"`
		Baseline    struct {
			Center *float64 `json:"center"`
			Median *float64 `json:"median"`
			Spread *float64 `json:"spread"`
			N      int      `json:"n"`
		} `json:"baseline"`
	} `json:"flagged"`
}

// anomaliesJSON runs dqs anomalies --json with args and parses its output.
func anomaliesJSON(t *testing.T, args ...string) anomaliesOutput {
	t.Helper()
	code, out, errOut := runCmd(t, append([]string{"anomalies", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res anomaliesOutput
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("output %q: %v", out, err)
	}
	return res
}

// anomaliesText runs dqs anomalies with args and returns its flagged lines
// and its summary line.
func anomaliesText(t *testing.T, args ...string) (flagged []string, summary string) {
	t.Helper()
	code, out, errOut := runCmd(t, append([]string{"anomalies"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr: %q", errOut)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// timestampsOf is the timestamp that starts each flagged line.
func timestampsOf(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i], _, _ = strings.Cut(l, " ")
	}
	return out
}

// TestAnomaliesFlagsSpike: one spike in a clean daily series is the one
// value flagged, with a band around the series' level.
func TestAnomaliesFlagsSpike(t *testing.T) {
	rows := dailySeries(40, 1, 1)
	const spike = 30
	rows[spike].value = 130
	path := writeFile(t, "series.csv", seriesCSV(rows, true))

	flagged, summary := anomaliesText(t, path)
	want := rows[spike].at.Format(time.RFC3339)
	if got := timestampsOf(flagged); !slices.Equal(got, []string{want}) {
		t.Fatalf("flagged %q, want [%s]:\n%s", got, want, strings.Join(flagged, "\n"))
	}
	for _, part := range []string{"value 130", "score ", "value was 130 on 2024-01-31 00:00 UTC, above the expected band", "Sensitivity medium"} {
		if !strings.Contains(flagged[0], part) {
			t.Errorf("flagged line lacks %q: %s", part, flagged[0])
		}
	}
	if wantSummary := "40 points, 32 judged (not warming up), 1 flagged; sensitivity medium, metric value"; summary != wantSummary {
		t.Errorf("summary %q, want %q", summary, wantSummary)
	}

	res := anomaliesJSON(t, path)
	if res.Points != 40 || res.Judged != 32 || res.Sensitivity != "medium" || res.Metric != "value" || len(res.Flagged) != 1 {
		t.Fatalf("json: %+v", res)
	}
	f := res.Flagged[0]
	var vals []float64
	for _, r := range rows[:spike] {
		vals = append(vals, r.value)
	}
	slices.Sort(vals)
	median := (vals[len(vals)/2-1] + vals[len(vals)/2]) / 2
	if f.Timestamp != want || f.Value != 130 || f.Score < 4.5 {
		t.Errorf("flagged %+v", f)
	}
	if !(f.Low <= median && median <= f.High) || (f.Low <= 130 && 130 <= f.High) {
		t.Errorf("band %g to %g: should hold the median %g and not the spike 130", f.Low, f.High, median)
	}
	if f.Baseline.Median == nil || *f.Baseline.Median < median-0.01 || *f.Baseline.Median > median+0.01 || f.Baseline.N != spike {
		t.Errorf("baseline %+v, want the median %g of %d values", f.Baseline, median, spike)
	}
	if f.Change == nil || *f.Change < 0.25 {
		t.Errorf("change %v", f.Change)
	}
}

// TestAnomaliesNoLookAhead: whether a value is flagged depends only on
// the values before it, so a file cut after it says the same of it.
func TestAnomaliesNoLookAhead(t *testing.T) {
	rows := dailySeries(45, 3, 2)
	rows[12].value = 150 // a spike
	rows[20].missed = true
	for i := 28; i < 45; i++ { // a lasting shift, adapted to after a few
		rows[i].value += 40
	}
	full, _ := anomaliesText(t, writeFile(t, "full.csv", seriesCSV(rows, true)))
	if len(full) < 2 {
		t.Fatalf("want several flagged values, got %q", full)
	}
	dir := t.TempDir()
	for i := range rows {
		path := filepath.Join(dir, fmt.Sprintf("upto%d.csv", i))
		if err := os.WriteFile(path, []byte(seriesCSV(rows[:i+1], i%2 == 0)), 0o600); err != nil {
			t.Fatal(err)
		}
		got, _ := anomaliesText(t, path)
		var want []string
		for _, l := range full {
			if ts, _, _ := strings.Cut(l, " "); ts <= rows[i].at.Format(time.RFC3339) {
				want = append(want, l)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("file cut after row %d flags:\n%s\nthe whole file flags up to there:\n%s", i, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestAnomaliesHeader: a header line is optional, and read as one only
// when its value is not a number.
func TestAnomaliesHeader(t *testing.T) {
	rows := dailySeries(30, 1, 3)
	rows[25].value = 80
	body := seriesCSV(rows, false)
	_, want := runCmdOut(t, "anomalies", writeFile(t, "plain.csv", body))
	if !strings.Contains(want, "2024-01-26T00:00:00Z") || !strings.Contains(want, "30 points") {
		t.Fatalf("no header: %s", want)
	}
	for name, b := range map[string]string{
		"header":              "timestamp,value\n" + body,
		"other header":        "day , null_rate\n" + body,
		"quoted header":       "\"when\",\"how many\"\n" + body,
		"BOM and CRLF":        "\ufefftimestamp,value\r\n" + strings.ReplaceAll(body, "\n", "\r\n"),
		"blank lines":         "\n" + strings.ReplaceAll(body, "\n", "\n\n"),
		"header, empty value": "ts,\n" + body,
	} {
		if _, got := runCmdOut(t, "anomalies", writeFile(t, "h.csv", b)); got != want {
			t.Errorf("%s: output\n%s\nwant\n%s", name, got, want)
		}
	}
}

// runCmdOut runs dqs, wants exit 0 and returns stderr and stdout.
func runCmdOut(t *testing.T, args ...string) (errOut, out string) {
	t.Helper()
	code, out, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, errOut)
	}
	return errOut, out
}

// TestAnomaliesTimestampForms: RFC 3339 with any offset, a date, or a
// date and time taken as UTC; printed in RFC 3339 UTC.
func TestAnomaliesTimestampForms(t *testing.T) {
	var b strings.Builder
	b.WriteString("2024-01-01,10\n2024-01-01 06:00,10.1\n2024-01-01 12:00:30,9.9\n")
	at := time.Date(2024, 1, 1, 18, 0, 0, 0, time.UTC)
	for i := range 10 {
		fmt.Fprintf(&b, "%s,%g\n", at.In(time.FixedZone("", 2*3600)).Format(time.RFC3339Nano), 10+0.1*float64(i%3-1))
		at = at.Add(6 * time.Hour)
	}
	fmt.Fprintf(&b, "%s,20\n", at.Add(500*time.Millisecond).In(time.FixedZone("", -5*3600)).Format(time.RFC3339Nano))
	fmt.Fprintf(&b, "%s,10\n", strings.Replace(at.Add(time.Hour).Format(time.RFC3339), "T", "t", 1))
	flagged, summary := anomaliesText(t, writeFile(t, "forms.csv", b.String()))
	if got := timestampsOf(flagged); !slices.Equal(got, []string{"2024-01-04T06:00:00.5Z"}) {
		t.Errorf("flagged %q, want the 20 at 2024-01-04T06:00:00.5Z", got)
	}
	if !strings.HasPrefix(summary, "15 points, ") {
		t.Errorf("summary %q", summary)
	}
}

// TestAnomaliesBadInput: each kind of bad input is one line on stderr
// that names its line, and exit status 1; bad usage is status 2.
func TestAnomaliesBadInput(t *testing.T) {
	good := "timestamp,value\n2024-01-01,1\n2024-01-02,2\n"
	for _, tc := range []struct {
		name, body, want string
	}{
		{"not CSV", good + "2024-01-03,\"3\n2024-01-04,4\n", "line 4: not CSV"},
		{"stray quote", good + "2024-01-03,3\"\"\n", "line 4: not CSV"},
		{"three columns", good + "2024-01-03,3,4\n", "line 4: 3 columns, want 2"},
		{"one column", good + "2024-01-03\n", "line 4: 1 columns, want 2"},
		{"header of three columns", "a,b,c\n2024-01-01,1\n", "line 1: 3 columns"},
		{"bad timestamp", good + "2024-02-30,3\n", `line 4: timestamp "2024-02-30" is not RFC 3339`},
		{"a word for a timestamp", good + "tomorrow,3\n", `line 4: timestamp "tomorrow"`},
		{"timestamp without zone", good + "2024-01-03T00:00:00,3\n", "line 4: timestamp"},
		{"first line bad timestamp", "01/02/2024,1\n", "line 1: timestamp"},
		{"bad number", good + "2024-01-03,12abc\n", `line 4: value "12abc" is not a number`},
		{"first line bad number", "2024-01-01,abc\n2024-01-02,2\n", `line 1: value "abc" is not a number`},
		{"hex number", good + "2024-01-03,0x10\n", "line 4: value"},
		{"thousands separator", good + "2024-01-03,\"1,000\"\n", `line 4: value "1,000" is not a number`},
		{"NaN", good + "2024-01-03,NaN\n", `line 4: value "NaN" is not a finite number`},
		{"Inf", good + "2024-01-03,+Inf\n", "line 4: value \"+Inf\" is not a finite number"},
		{"-Infinity", good + "2024-01-03,-Infinity\n", "line 4: value \"-Infinity\" is not a finite number"},
		{"overflow", good + "2024-01-03,1e400\n", "line 4: value \"1e400\" is out of range"},
		{"out of order", good + "2024-01-01 12:00,3\n", "line 4: timestamp 2024-01-01 12:00 is before that of line 3"},
		{"duplicate", good + "2024-01-02T00:00:00Z,3\n", "line 4: timestamp 2024-01-02T00:00:00Z is the same as that of line 3"},
		{"duplicate of a missed scan", good + "2024-01-03,\n2024-01-03,3\n", "line 5: timestamp 2024-01-03 is the same as that of line 4"},
		{"long line", good + "2024-01-03," + strings.Repeat("1", 70<<10) + "\n", "line 4: longer than 64 KiB"},
		{"long last line", good + strings.Repeat(" ", 65<<10), "line 4: longer than 64 KiB"},
		{"binary", good + "\x00\x01\x02,\xff\n", `line 4: timestamp "\x00\x01\x02"`},
	} {
		code, out, errOut := runCmd(t, "anomalies", writeFile(t, "bad.csv", tc.body))
		if code != 1 || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 || out != "" {
			t.Errorf("%s: exit %d, stderr %q, stdout %q; want 1 and one line with %q", tc.name, code, errOut, out, tc.want)
		}
	}

	// A line of exactly 64 KiB is allowed (here a header, being no number).
	okLong := strings.Repeat("h", 64<<10-2) + ",v\n2024-01-01,1\n"
	if code, _, errOut := runCmd(t, "anomalies", writeFile(t, "ok.csv", okLong)); code != 0 {
		t.Errorf("a 64 KiB line: exit %d, %s", code, errOut)
	}

	path := writeFile(t, "good.csv", good)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "Usage: dqs anomalies"},
		{[]string{path, path}, "one file expected, got 2"},
		{[]string{"--sensitivity", "extreme", path}, `sensitivity "extreme" is not low, medium or high`},
		{[]string{"--metric", "", path}, "--metric is empty"},
		{[]string{"--window", "3", path}, "flag provided but not defined"},
		{[]string{path, "--bogus"}, "flag provided but not defined"},
	} {
		code, _, errOut := runCmd(t, append([]string{"anomalies"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%q: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	if code, _, errOut := runCmd(t, "anomalies", "--", "--json"); code != 1 || !strings.Contains(errOut, "dqs anomalies: --json: ") {
		t.Errorf("a file named --json after --: exit %d, %q", code, errOut)
	}
	missing := filepath.Join(t.TempDir(), "missing.csv")
	if code, _, errOut := runCmd(t, "anomalies", missing); code != 1 || !strings.Contains(errOut, "missing.csv") {
		t.Errorf("a missing file: exit %d, %q", code, errOut)
	}
	if code, _, errOut := runCmd(t, "anomalies", t.TempDir()); code != 1 || !strings.Contains(errOut, "is a directory") {
		t.Errorf("a directory: exit %d, %q", code, errOut)
	}
}

// TestAnomaliesRowLimit: a million rows are read, one more is refused.
func TestAnomaliesRowLimit(t *testing.T) {
	write := func(n int) string {
		var b strings.Builder
		b.Grow(n * 22)
		b.WriteString("timestamp,value\n")
		at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range n {
			// Missed scans but for a few values, so that the replay is quick.
			if i%100000 == 0 {
				fmt.Fprintf(&b, "%s,%d\n", at.Format(time.RFC3339), i)
			} else {
				fmt.Fprintf(&b, "%s,\n", at.Format(time.RFC3339))
			}
			at = at.Add(time.Second)
		}
		return writeFile(t, "rows.csv", b.String())
	}
	_, summary := anomaliesText(t, write(1_000_000))
	if want := "10 points, 2 judged (not warming up), 0 flagged; sensitivity medium, metric value; 999990 missed scans skipped"; summary != want {
		t.Errorf("summary %q, want %q", summary, want)
	}
	code, out, errOut := runCmd(t, "anomalies", write(1_000_001))
	if code != 1 || out != "" || !strings.Contains(errOut, "line 1000002: more than 1000000 rows") {
		t.Errorf("1000001 rows: exit %d, %q", code, errOut)
	}
}

// TestAnomaliesStdin: - reads standard input.
func TestAnomaliesStdin(t *testing.T) {
	rows := dailySeries(40, 1, 4)
	rows[33].value = 70
	path := writeFile(t, "series.csv", seriesCSV(rows, true))
	_, want := runCmdOut(t, "anomalies", "--sensitivity", "high", path)

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	_, got := runCmdOut(t, "anomalies", "-", "--sensitivity", "high")
	if got != want || !strings.Contains(got, "2024-02-03T00:00:00Z") {
		t.Errorf("from stdin:\n%s\nfrom the file:\n%s", got, want)
	}

	bad, err := os.Open(writeFile(t, "bad.csv", "2024-01-01,1\n2024-01-01,2\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	os.Stdin = bad
	if code, _, errOut := runCmd(t, "anomalies", "-"); code != 1 || !strings.HasPrefix(errOut, "dqs anomalies: standard input: line 2: ") {
		t.Errorf("bad stdin: exit %d, %q", code, errOut)
	}
}

// noisySeries is daily values with heavy-tailed noise and a few spikes and
// dips, for the sensitivities to differ on.
func noisySeries() []seriesRow {
	r := rand.New(rand.NewPCG(5, 11))
	rows := dailySeries(120, 0, 5)
	for i := range rows {
		rows[i].value += 3 * r.NormFloat64()
		if r.IntN(8) == 0 {
			rows[i].value += 12 * r.NormFloat64()
		}
	}
	rows[50].value, rows[90].value = 160, 40
	return rows
}

// TestAnomaliesJSONMatchesText: --json flags what the text does.
func TestAnomaliesJSONMatchesText(t *testing.T) {
	path := writeFile(t, "noisy.csv", seriesCSV(noisySeries(), true))
	for _, s := range []string{"low", "medium", "high"} {
		flagged, summary := anomaliesText(t, "--sensitivity", s, path)
		res := anomaliesJSON(t, path, "--sensitivity", s)
		var got []string
		for i, f := range res.Flagged {
			got = append(got, f.Timestamp)
			if i < len(flagged) && !strings.HasSuffix(flagged[i], "  "+f.Explanation) {
				t.Errorf("%s: text line %q does not end with the explanation %q", s, flagged[i], f.Explanation)
			}
		}
		if want := timestampsOf(flagged); !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: json flags %q, text %q", s, got, want)
		}
		if wantSummary := fmt.Sprintf("%d points, %d judged (not warming up), %d flagged; sensitivity %s, metric value",
			res.Points, res.Judged, len(res.Flagged), s); summary != wantSummary || res.Sensitivity != s {
			t.Errorf("%s: summary %q, json %d/%d/%d", s, summary, res.Points, res.Judged, len(res.Flagged))
		}
	}
}

// TestAnomaliesSensitivities: a higher sensitivity flags at least what a
// lower one does.
func TestAnomaliesSensitivities(t *testing.T) {
	path := writeFile(t, "noisy.csv", seriesCSV(noisySeries(), false))
	flags := map[string][]string{}
	for _, s := range []string{"low", "medium", "high"} {
		lines, _ := anomaliesText(t, "--sensitivity", s, path)
		flags[s] = timestampsOf(lines)
	}
	t.Logf("low %d, medium %d, high %d flagged", len(flags["low"]), len(flags["medium"]), len(flags["high"]))
	for _, pair := range [][2]string{{"low", "medium"}, {"medium", "high"}} {
		lower, higher := flags[pair[0]], flags[pair[1]]
		for _, ts := range lower {
			if !slices.Contains(higher, ts) {
				t.Errorf("%s flags %s, %s does not", pair[0], ts, pair[1])
			}
		}
	}
	if len(flags["high"]) <= len(flags["medium"]) {
		t.Errorf("high flags %d, medium %d: want more on a noisy series", len(flags["high"]), len(flags["medium"]))
	}
	if !slices.Contains(flags["low"], "2024-02-20T00:00:00Z") || !slices.Contains(flags["low"], "2024-03-31T00:00:00Z") {
		t.Errorf("low misses the spike or the dip: %q", flags["low"])
	}
}

// TestAnomaliesMetricScale: --metric picks the scale, so a null rate's band
// stays within [0, 1] and has the share's floor; the explanation names it.
func TestAnomaliesMetricScale(t *testing.T) {
	rows := dailySeries(30, 0, 6)
	for i := range rows {
		rows[i].value = 0.01 + 0.0001*float64(i%3)
	}
	rows[29].value = 0.5
	path := writeFile(t, "nulls.csv", seriesCSV(rows, true))
	res := anomaliesJSON(t, "--metric", "null_rate", path)
	if res.Metric != "null_rate" || len(res.Flagged) != 1 {
		t.Fatalf("json: %+v", res)
	}
	f := res.Flagged[0]
	// The share's floor is 0.002, so the band is 0.0101 ± 4.5 × 0.002.
	if math.Abs(f.Low-0.0011) > 1e-9 || math.Abs(f.High-0.0191) > 1e-9 || !strings.HasPrefix(f.Explanation, "null_rate was 0.5 ") {
		t.Errorf("null_rate: band %g to %g, %q", f.Low, f.High, f.Explanation)
	}
	// As a level (the default) the floor is 1% of the center: a change
	// of 0.0011 on 0.0101 is flagged, which it is not as a share.
	rows[29].value = 0.0112
	path = writeFile(t, "nulls.csv", seriesCSV(rows, true))
	if res := anomaliesJSON(t, "--metric", "null_rate", path); len(res.Flagged) != 0 {
		t.Errorf("null_rate flags %+v", res.Flagged)
	}
	if res := anomaliesJSON(t, path); len(res.Flagged) != 1 {
		t.Errorf("value flags %+v", res.Flagged)
	}
}

// TestAnomaliesNonFiniteJSON: numbers JSON cannot carry (the change from
// a zero baseline, a spread that overflowed) are null, and the output
// still parses.
func TestAnomaliesNonFiniteJSON(t *testing.T) {
	rows := dailySeries(12, 0, 7)
	for i := range rows {
		rows[i].value = 0
	}
	rows[11].value = 5
	res := anomaliesJSON(t, writeFile(t, "zeros.csv", seriesCSV(rows, false)))
	if len(res.Flagged) != 1 || res.Flagged[0].Change != nil || !strings.Contains(res.Flagged[0].Explanation, "from zero") {
		t.Errorf("zeros: %+v", res.Flagged)
	}
	var b strings.Builder
	for i := range 12 {
		v := "1e308"
		if i%2 == 1 {
			v = "-1.7e308"
		}
		fmt.Fprintf(&b, "2024-01-%02d,%s\n", i+1, v)
	}
	body := b.String() + "2024-01-13,1.7e308\n"
	anomaliesJSON(t, writeFile(t, "huge.csv", body))
	if code, _, errOut := runCmd(t, "anomalies", writeFile(t, "huge.csv", body)); code != 0 {
		t.Errorf("huge values, text: exit %d, %s", code, errOut)
	}
}

// FuzzAnomaliesCSV: any input is read or refused with status 1, never a
// panic; what is read prints valid JSON.
func FuzzAnomaliesCSV(f *testing.F) {
	rows := dailySeries(20, 1, 8)
	rows[15].value = 200
	rows[5].missed = true
	f.Add([]byte(seriesCSV(rows, true)), false)
	f.Add([]byte(seriesCSV(rows, false)), true)
	f.Add([]byte("timestamp,value\n2024-01-01,1\n2024-01-01,2\n"), false)
	f.Add([]byte("2024-01-01T00:00:00+14:00,1e308\n2024-01-02 10:00,-1e308\n2024-01-03 10:00:01,\"2\"\n"), true)
	f.Add([]byte("\ufeffa,b\r\n0000-01-01T00:00:00+01:00,NaN\n"), false)
	f.Add([]byte("x,\"\n\"\n"), true)
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		path := filepath.Join(t.TempDir(), "f.csv")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		args := []string{"anomalies", path}
		if asJSON {
			args = []string{"anomalies", "--json", "--metric", "row_count", path}
		}
		code, out, errOut := runCmd(t, args...)
		switch code {
		case 0:
			if errOut != "" {
				t.Errorf("exit 0 with stderr %q", errOut)
			}
			if asJSON && !json.Valid([]byte(out)) {
				t.Errorf("invalid JSON: %q", out)
			}
		case 1:
			if out != "" || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "line ") {
				t.Errorf("exit 1: stdout %q, stderr %q", out, errOut)
			}
		default:
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
}
