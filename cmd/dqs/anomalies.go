package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/anomaly"
)

const (
	// anomaliesMaxRows bounds the rows `dqs anomalies` reads (missed scans
	// included), so that its memory is bounded whatever the input.
	anomaliesMaxRows = 1_000_000
	// anomaliesMaxLine bounds one line of its input, in bytes.
	anomaliesMaxLine = 64 << 10
)

// anomaliesUsage is the synopsis of `dqs anomalies`.
const anomaliesUsage = "Usage: dqs anomalies [--sensitivity low|medium|high] [--metric NAME] [--json] FILE.csv\n\n" +
	"Replays a timestamp,value series (FILE - for standard input) through the anomaly\n" +
	"detector, each row judged as a new scan on the rows before it, and prints the\n" +
	"values it would have flagged. A header line is optional; an empty value is a\n" +
	"missed scan. Timestamps are RFC 3339, YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS] (UTC)."

// anomalySeries is a series read from a file.
type anomalySeries struct {
	points []anomaly.Point
	// missed is the number of rows with no value (missed scans).
	missed int
}

// anomaliesFile replays a metric's history from a CSV file through the
// anomaly detector, as if each row were a new scan, and prints the values
// it flags: a line each and a summary, or one JSON object with --json.
func anomaliesFile(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("anomalies", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sensitivity := fs.String("sensitivity", string(anomaly.Medium), "how far outside its baseline a value must be: low, medium or high")
	metric := fs.String("metric", "value", "the metric the series is of, which sets its scale (null_rate, row_count, mean…)")
	asJSON := fs.Bool("json", false, "print the flagged values as one JSON object")
	fs.Usage = func() {
		fmt.Fprintln(stderr, anomaliesUsage)
		fs.PrintDefaults()
	}
	// Flags may come after the file too: parse again after each argument,
	// until a "--" ends the flags.
	var files []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return 2
		}
		if used := len(args) - fs.NArg(); used > 0 && args[used-1] == "--" {
			files = append(files, fs.Args()...)
			break
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	s, err := anomaly.ParseSensitivity(*sensitivity)
	if err != nil {
		fmt.Fprintf(stderr, "dqs anomalies: --sensitivity: %v\n", err)
		return 2
	}
	if strings.TrimSpace(*metric) == "" {
		fmt.Fprintln(stderr, "dqs anomalies: --metric is empty")
		return 2
	}
	if len(files) != 1 {
		if len(files) > 1 {
			fmt.Fprintf(stderr, "dqs anomalies: one file expected, got %d\n", len(files))
		}
		fs.Usage()
		return 2
	}
	path := files[0]
	series, err := readSeriesFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "dqs anomalies: %s: %v\n", displayPath(path), err)
		return 1
	}
	verdicts := anomaly.Replay(series.points, anomaly.Options{Sensitivity: s, Scale: anomaly.ScaleOf(*metric)})
	rep := anomalyReport{Sensitivity: string(s), Metric: *metric, Points: len(verdicts), Flagged: []flaggedPoint{}}
	for _, v := range verdicts {
		if !v.WarmingUp {
			rep.Judged++
		}
		if v.Anomalous {
			rep.Flagged = append(rep.Flagged, newFlaggedPoint(*metric, v))
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = printAnomalies(stdout, rep, series.missed)
	}
	if err != nil {
		fmt.Fprintf(stderr, "dqs anomalies: %v\n", err)
		return 1
	}
	return 0
}

func displayPath(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// anomalyReport is the output of `dqs anomalies --json`.
type anomalyReport struct {
	Sensitivity string `json:"sensitivity"`
	Metric      string `json:"metric"`
	// Points is the number of values read (missed scans not counted).
	Points int `json:"points"`
	// Judged is the number of values judged: not warming up.
	Judged  int            `json:"judged"`
	Flagged []flaggedPoint `json:"flagged"`
}

// flaggedPoint is one flagged value. Numbers that are not finite (the
// change from a zero baseline; a spread that overflowed on huge values)
// are null.
type flaggedPoint struct {
	Timestamp   string          `json:"timestamp"`
	Value       jsonNumber      `json:"value"`
	Low         jsonNumber      `json:"low"`
	High        jsonNumber      `json:"high"`
	Score       jsonNumber      `json:"score"`
	Change      jsonNumber      `json:"change"`
	Explanation string          `json:"explanation"`
	Baseline    flaggedBaseline `json:"baseline"`
}

// flaggedBaseline is anomaly.Baseline with its times in RFC 3339 UTC and
// its non-finite numbers null.
type flaggedBaseline struct {
	Center      jsonNumber `json:"center"`
	Spread      jsonNumber `json:"spread"`
	Mean        jsonNumber `json:"mean"`
	StdDev      jsonNumber `json:"stddev"`
	Median      jsonNumber `json:"median"`
	MAD         jsonNumber `json:"mad"`
	N           int        `json:"n"`
	WindowStart string     `json:"window_start"`
	WindowEnd   string     `json:"window_end"`
	Seasonal    bool       `json:"seasonal"`
	Trend       jsonNumber `json:"trend"`
}

// jsonNumber is a float64 that encodes NaN and ±Inf as null, which JSON
// cannot otherwise carry.
type jsonNumber float64

func (n jsonNumber) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func newFlaggedPoint(metric string, v anomaly.Verdict) flaggedPoint {
	b := v.Baseline
	return flaggedPoint{
		Timestamp:   formatTime(v.At),
		Value:       jsonNumber(v.Value),
		Low:         jsonNumber(v.Low),
		High:        jsonNumber(v.High),
		Score:       jsonNumber(v.Score),
		Change:      jsonNumber(v.Change),
		Explanation: anomaly.Finding{Metric: metric, Verdict: v}.Explain(),
		Baseline: flaggedBaseline{
			Center: jsonNumber(b.Center), Spread: jsonNumber(b.Spread),
			Mean: jsonNumber(b.Mean), StdDev: jsonNumber(b.StdDev),
			Median: jsonNumber(b.Median), MAD: jsonNumber(b.MAD),
			N:           b.N,
			WindowStart: formatTime(b.WindowStart), WindowEnd: formatTime(b.WindowEnd),
			Seasonal: b.Seasonal, Trend: jsonNumber(b.Trend),
		},
	}
}

// printAnomalies writes a line per flagged value, then the summary.
func printAnomalies(w io.Writer, rep anomalyReport, missed int) error {
	bw := bufio.NewWriter(w)
	for _, f := range rep.Flagged {
		fmt.Fprintf(bw, "%s  value %s  expected %s to %s  score %s  %s\n", f.Timestamp, fmtNum(float64(f.Value)),
			fmtNum(float64(f.Low)), fmtNum(float64(f.High)), fmtScore(float64(f.Score)), f.Explanation)
	}
	fmt.Fprintf(bw, "%d points, %d judged (not warming up), %d flagged; sensitivity %s, metric %s", rep.Points, rep.Judged,
		len(rep.Flagged), rep.Sensitivity, rep.Metric)
	if missed > 0 {
		fmt.Fprintf(bw, "; %d missed %s skipped", missed, plural(missed, "scan", "scans"))
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// fmtNum prints a value with up to six significant digits, as the
// explanations do (whole numbers in full).
func fmtNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func fmtScore(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

func readSeriesFile(path string) (anomalySeries, error) {
	if path == "-" {
		return readSeries(os.Stdin)
	}
	f, err := os.Open(path)
	if err != nil {
		return anomalySeries{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return anomalySeries{}, err
	}
	if st.IsDir() {
		return anomalySeries{}, errors.New("is a directory")
	}
	return readSeries(f)
}

// readSeries reads a timestamp,value series: an optional header, then a
// row per scan in time order; an empty value is a missed scan, skipped.
// Errors name the line.
func readSeries(r io.Reader) (anomalySeries, error) {
	var out anomalySeries
	sc := bufio.NewScanner(r)
	// A line is at most anomaliesMaxLine bytes, its line ending apart.
	sc.Buffer(make([]byte, 0, 64<<10), anomaliesMaxLine+2)
	line, rows := 0, 0
	first := true
	var prev time.Time
	prevLine := 0 // the line of the previous row; 0 before the first
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if line == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff"))
		}
		if len(text) > anomaliesMaxLine {
			return out, fmt.Errorf("line %d: longer than %d KiB", line, anomaliesMaxLine>>10)
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue // blank lines are no rows, as in encoding/csv
		}
		fields, err := splitRow(text)
		if err != nil {
			return out, fmt.Errorf("line %d: not CSV: %v", line, err)
		}
		if len(fields) != 2 {
			return out, fmt.Errorf("line %d: %d columns, want 2 (timestamp,value)", line, len(fields))
		}
		ts, val := strings.TrimSpace(fields[0]), strings.TrimSpace(fields[1])
		at, tsErr := parseTimestamp(ts)
		if first {
			first = false
			if tsErr != nil && !isNumber(val) {
				// The first line is a header when its value is not a
				// number and its timestamp not a timestamp (a valid
				// timestamp with a bad value is a bad row, not a header).
				continue
			}
		}
		rows++
		if rows > anomaliesMaxRows {
			return out, fmt.Errorf("line %d: more than %d rows", line, anomaliesMaxRows)
		}
		if tsErr != nil {
			return out, fmt.Errorf("line %d: %v", line, tsErr)
		}
		if prevLine > 0 && !at.After(prev) {
			what := "before"
			if at.Equal(prev) {
				what = "the same as"
			}
			return out, fmt.Errorf("line %d: timestamp %s is %s that of line %d; rows must be in time order, one per timestamp",
				line, ts, what, prevLine)
		}
		prev, prevLine = at, line
		if val == "" {
			out.missed++
			continue
		}
		v, err := parseValue(val)
		if err != nil {
			return out, fmt.Errorf("line %d: %v", line, err)
		}
		out.points = append(out.points, anomaly.Point{At: at, Value: v})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return out, fmt.Errorf("line %d: longer than %d KiB", line+1, anomaliesMaxLine>>10)
		}
		return out, err
	}
	return out, nil
}

// splitRow splits one CSV line into its fields; quoted fields are read as
// encoding/csv reads them (a record may not span lines here).
func splitRow(text []byte) ([]string, error) {
	if bytes.IndexByte(text, '"') < 0 {
		return strings.Split(string(text), ","), nil
	}
	cr := csv.NewReader(bytes.NewReader(text))
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = false
	rec, err := cr.Read()
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, err
	}
	if _, err := cr.Read(); err != io.EOF {
		return nil, errors.New("a quoted field spans lines")
	}
	return rec, nil
}

// timestampLayouts are the forms a timestamp may take besides RFC 3339;
// they have no zone and are read as UTC.
var timestampLayouts = []string{time.DateOnly, "2006-01-02 15:04", time.DateTime}

func parseTimestamp(s string) (time.Time, error) {
	var t time.Time
	var err error
	if strings.ContainsAny(s, "Tt") {
		// RFC 3339 allows a lower-case t and z, which time.Parse does not.
		if len(s) > 10 && s[10] == 't' {
			s = s[:10] + "T" + s[11:]
		}
		if strings.HasSuffix(s, "z") {
			s = s[:len(s)-1] + "Z"
		}
		t, err = time.Parse(time.RFC3339Nano, s)
	} else {
		err = errors.New("no layout")
		for _, layout := range timestampLayouts {
			if t, err = time.Parse(layout, s); err == nil {
				break
			}
		}
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("timestamp %q is not RFC 3339, YYYY-MM-DD or YYYY-MM-DD HH:MM[:SS]", truncate(s))
	}
	if y := t.UTC().Year(); y < 1 || y > 9999 {
		return time.Time{}, fmt.Errorf("timestamp %q is outside the years 0001 to 9999 (UTC)", truncate(s))
	}
	return t.UTC(), nil
}

// isNumber reports whether s is a plain decimal number: an optional sign,
// digits with an optional decimal point, an optional exponent.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i, digits = i+1, digits+1
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, digits = i+1, digits+1
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i, exp = i+1, exp+1
		}
		if exp == 0 {
			return false
		}
	}
	return i == len(s)
}

func parseValue(s string) (float64, error) {
	if !isNumber(s) {
		switch strings.ToLower(strings.TrimLeft(s, "+-")) {
		case "nan", "inf", "infinity":
			return 0, fmt.Errorf("value %q is not a finite number", truncate(s))
		}
		return 0, fmt.Errorf("value %q is not a number", truncate(s))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("value %q is out of range", truncate(s))
	}
	return v, nil
}

// truncate keeps an error message on one short line whatever the input.
func truncate(s string) string {
	const n = 40
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
