package main

// -compare-duckdb: do dqs's figures agree with DuckDB's exact ones?
//
// For each bench file, dqs-bench runs `dqs profile --json FILE`, then
// scripts/duckdb-figures.mjs on the same file (exact figures in DuckDB, and
// the rank range in DuckDB's exact order of each quartile dqs reported),
// and compares column by column. A figure agrees when it is within the
// error the engine documents for it (profile.Column):
//
//   rows, missing, nulls   equal counts (so equal shares).
//   min, max               equal: numbers as numbers, dates and datetimes
//                          as instants (DuckDB renders DATE, TIMESTAMP and
//                          TIMESTAMPTZ each its own way), strings byte-wise.
//   mean, stddev           within 1e-9 relative (both are exact; only the
//                          order of the floating-point sums differs).
//   p25, p50, p75          lower quantiles, the value at rank
//                          max(1, ceil(q·n)): equal to DuckDB's value at that
//                          rank while dqs says distinct_exact; past that,
//                          dqs's value must be one of the column's and its
//                          rank range in DuckDB's order must come within
//                          0.5% of n of that rank (the KLL bound).
//   distinct               equal while distinct_exact; past that within 3%
//                          of DuckDB's count(DISTINCT): HyperLogLog at
//                          precision 14 has ~0.8% standard error, 3% is
//                          about four of them. DuckDB's own
//                          approx_count_distinct error is shown beside it,
//                          for context only.
//
// How dqs's reading maps to DuckDB's (also in docs/benchmarks.md):
//
//   - The column's kind is dqs's inferred type: integer and float columns are
//     compared as numbers (DuckDB: TRY_CAST(col AS DOUBLE), so a phone
//     number "+4420…" that DuckDB keeps as VARCHAR is the number dqs reads),
//     date and datetime as instants (TRY_CAST(col AS TIMESTAMPTZ) in UTC; a
//     dqs date is midnight UTC, a datetime without offset is UTC), string as
//     text. Boolean and all-empty columns get only counts and distinct.
//   - Nulls. dqs counts format nulls and null tokens (profile.DefaultNullTokens,
//     sent to DuckDB, matched after trimming ASCII whitespace and folding
//     case) as nulls, and blank values (empty or ASCII whitespace) as empty.
//     DuckDB's NULLs are the format's nulls, plus, in CSV, every empty
//     field, which dqs reads as an empty value. So "missing" compares dqs's
//     nulls+empty with DuckDB's NULLs + blank values + null tokens in every
//     format, and "nulls" compares dqs's nulls with DuckDB's NULLs + null
//     tokens in JSON Lines and Parquet only: in CSV, DuckDB cannot tell an
//     empty field from a null.
//   - Distinct. dqs counts distinct non-null values, blank ones included;
//     DuckDB counts distinct non-NULL values of its own types, null tokens
//     left out, plus one in CSV when there are NULLs (the empty field is
//     one value to dqs). DuckDB's typed value and dqs's text are one to one
//     in the bench files (amounts always have two decimals, scores are
//     written canonically), so the two counts count the same thing.
//   - Masked values. dqs shows min and max of a personal column masked
//     (quality.Mask: all but the last two characters become '*'); they are
//     compared with DuckDB's value masked the same way, which checks only
//     the length and the last two characters. DuckDB's dates are rendered
//     as YYYY-MM-DD and datetimes as RFC 3339 for that: the bench files
//     write them so.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dqs/dqs/profile"
	"github.com/dqs/dqs/quality"
)

// dqsFile is the part of `dqs profile --json` output that is compared.
type dqsFile struct {
	Format   string      `json:"format"`
	RowCount int64       `json:"row_count"`
	Columns  []dqsColumn `json:"columns"`
}

type dqsColumn struct {
	Name           string             `json:"name"`
	Nulls          int64              `json:"nulls"`
	Empty          int64              `json:"empty"`
	Distinct       int64              `json:"distinct"`
	DistinctExact  bool               `json:"distinct_exact"`
	InferredType   string             `json:"inferred_type"`
	Min            *string            `json:"min"`
	Max            *string            `json:"max"`
	Mean           *float64           `json:"mean"`
	StdDev         *float64           `json:"stddev"`
	Quantiles      map[string]float64 `json:"quantiles"`
	Classification struct {
		GDPRCategory string `json:"gdpr_category"`
	} `json:"classification"`
}

// masked says whether dqs shows the column's values masked: any personal
// category (analysis.maskPersonal).
func (c *dqsColumn) masked() bool {
	return c.Classification.GDPRCategory != "" && c.Classification.GDPRCategory != "none"
}

// duckSpec is what duckdb-figures.mjs reads.
type duckSpec struct {
	Format     string        `json:"format"`
	Path       string        `json:"path"`
	NullTokens []string      `json:"null_tokens"`
	Columns    []duckSpecCol `json:"columns"`
}

type duckSpecCol struct {
	Name   string             `json:"name"`
	Kind   string             `json:"kind"`
	Probes map[string]float64 `json:"probes,omitempty"`
}

// duckFile is what duckdb-figures.mjs prints.
type duckFile struct {
	Version string       `json:"duckdb_version"`
	Rows    int64        `json:"rows"`
	Columns []duckColumn `json:"columns"`
}

type duckColumn struct {
	Name           string                  `json:"name"`
	Missing        bool                    `json:"missing"` // DuckDB has no such column
	Type           string                  `json:"duckdb_type"`
	Nulls          int64                   `json:"nulls"`
	Blank          int64                   `json:"blank"`
	Tokens         int64                   `json:"tokens"`
	Distinct       int64                   `json:"distinct"`
	ApproxDistinct int64                   `json:"approx_distinct"`
	MinNum         *float64                `json:"min_num"`
	MaxNum         *float64                `json:"max_num"`
	MinUS          *int64                  `json:"min_us"`
	MaxUS          *int64                  `json:"max_us"`
	MinText        *string                 `json:"min_text"`
	MaxText        *string                 `json:"max_text"`
	Mean           *float64                `json:"mean"`
	StdDev         *float64                `json:"stddev"`
	N              int64                   `json:"n"` // values that read as numbers
	Quantiles      map[string]duckQuantile `json:"quantiles"`
}

type duckQuantile struct {
	Rank     int64   `json:"rank"`
	Value    float64 `json:"value"`
	Below    *int64  `json:"below"`     // values < dqs's quartile
	NotAbove *int64  `json:"not_above"` // values <= dqs's quartile
}

// The documented bounds (profile.Column).
const (
	momentTolerance   = 1e-9  // relative, mean and stddev
	rankTolerance     = 0.005 // of n, KLL quantiles
	distinctTolerance = 0.03  // relative, HyperLogLog
)

var quartiles = []string{"p25", "p50", "p75"}

// kindOf is how a column of this inferred type is compared.
func kindOf(inferredType string) string {
	switch inferredType {
	case "integer", "float":
		return "number"
	case "date", "datetime":
		return "temporal"
	}
	return "string"
}

// check is one figure of one column, compared.
type check struct {
	format, column, figure string
	dqs, duck              string
	ok                     bool
	note                   string
}

// specFor asks DuckDB for the figures of dqs's columns, read as dqs read
// them, with dqs's quartiles to rank.
func specFor(format, path string, p *dqsFile) duckSpec {
	s := duckSpec{Format: format, Path: path, NullTokens: profile.DefaultNullTokens}
	for _, c := range p.Columns {
		sc := duckSpecCol{Name: c.Name, Kind: kindOf(c.InferredType)}
		for _, q := range quartiles {
			if v, ok := c.Quantiles[q]; ok {
				if sc.Probes == nil {
					sc.Probes = map[string]float64{}
				}
				sc.Probes[q] = v
			}
		}
		s.Columns = append(s.Columns, sc)
	}
	return s
}

// compareFile compares dqs's profile of a file in format with DuckDB's
// figures for it.
func compareFile(format string, p *dqsFile, d *duckFile) []check {
	out := []check{countCheck(format, "", "rows", p.RowCount, d.Rows)}
	byName := make(map[string]*duckColumn, len(d.Columns))
	for i := range d.Columns {
		byName[d.Columns[i].Name] = &d.Columns[i]
	}
	for i := range p.Columns {
		c := &p.Columns[i]
		dc := byName[c.Name]
		if dc == nil || dc.Missing {
			out = append(out, check{format: format, column: c.Name, figure: "column", dqs: "present", duck: "missing"})
			continue
		}
		out = append(out, compareColumn(format, p.RowCount, c, dc)...)
	}
	return out
}

// compareColumn compares one column; rows is dqs's row count, the whole
// of the null shares.
func compareColumn(format string, rows int64, c *dqsColumn, d *duckColumn) []check {
	add := func(figure, dqs, duck string, ok bool, note string) check {
		return check{format: format, column: c.Name, figure: figure, dqs: dqs, duck: duck, ok: ok, note: note}
	}
	var out []check
	missing := countCheck(format, c.Name, "missing", c.Nulls+c.Empty, d.Nulls+d.Blank+d.Tokens)
	missing.dqs, missing.duck = withShare(c.Nulls+c.Empty, rows), withShare(d.Nulls+d.Blank+d.Tokens, rows)
	if format == "csv" {
		missing.note = "nulls+empty vs NULL (incl. empty fields)+blank+tokens"
	} else {
		missing.note = "nulls+empty vs NULL+blank+tokens"
	}
	out = append(out, missing)
	if format != "csv" {
		n := countCheck(format, c.Name, "nulls", c.Nulls, d.Nulls+d.Tokens)
		n.dqs, n.duck = withShare(c.Nulls, rows), withShare(d.Nulls+d.Tokens, rows)
		n.note = "nulls vs NULL+tokens"
		out = append(out, n)
	}

	kind := kindOf(c.InferredType)
	if c.InferredType != "boolean" && c.InferredType != "" {
		out = append(out,
			extremeCheck(format, kind, "min", c, c.Min, d.MinNum, d.MinUS, d.MinText),
			extremeCheck(format, kind, "max", c, c.Max, d.MaxNum, d.MaxUS, d.MaxText))
	}
	if kind == "number" {
		out = append(out,
			momentCheck(format, c.Name, "mean", c.Mean, d.Mean),
			momentCheck(format, c.Name, "stddev", c.StdDev, d.StdDev))
		for _, q := range quartiles {
			ours, have := c.Quantiles[q]
			dq, dhave := d.Quantiles[q]
			if !have || !dhave {
				out = append(out, add(q, present(have), present(dhave), false, "missing on one side"))
				continue
			}
			ok, note := quantileAgrees(c.DistinctExact, ours, dq, d.N)
			out = append(out, add(q, fmtFloat(ours), fmtFloat(dq.Value), ok, note))
		}
	}

	// An empty CSV field is a NULL to DuckDB and one more value, "", to dqs.
	exact, approx := d.Distinct, d.ApproxDistinct
	if format == "csv" && d.Nulls > 0 {
		exact++
		approx++
	}
	var ok bool
	var note string
	if c.DistinctExact {
		ok, note = c.Distinct == exact, "exact"
	} else {
		ok = math.Abs(float64(c.Distinct-exact)) <= distinctTolerance*float64(exact)
		note = fmt.Sprintf("estimate %s; DuckDB's approx_count_distinct %d (%s)",
			relErr(c.Distinct, exact), approx, relErr(approx, exact))
	}
	out = append(out, add("distinct", strconv.FormatInt(c.Distinct, 10), strconv.FormatInt(exact, 10), ok, note))
	return out
}

func countCheck(format, column, figure string, dqs, duck int64) check {
	return check{format: format, column: column, figure: figure,
		dqs: strconv.FormatInt(dqs, 10), duck: strconv.FormatInt(duck, 10), ok: dqs == duck}
}

func momentCheck(format, column, figure string, dqs, duck *float64) check {
	ch := check{format: format, column: column, figure: figure, dqs: fmtPtr(dqs), duck: fmtPtr(duck)}
	if dqs == nil || duck == nil {
		ch.note = "missing on one side"
		return ch
	}
	diff := math.Abs(*dqs - *duck)
	ch.ok = diff <= momentTolerance*math.Max(math.Abs(*dqs), math.Abs(*duck))
	if diff != 0 {
		ch.note = fmt.Sprintf("relative difference %.1e", diff/math.Max(math.Abs(*dqs), math.Abs(*duck)))
	}
	return ch
}

// extremeCheck compares dqs's min or max (text) with DuckDB's, read as the
// column's kind: num for numbers, us for instants, text for strings.
func extremeCheck(format, kind, figure string, c *dqsColumn, ours *string, num *float64, us *int64, text *string) check {
	ch := check{format: format, column: c.Name, figure: figure, dqs: deref(ours)}
	// theirs renders DuckDB's value as dqs writes it, for display and masks.
	var theirs string
	switch {
	case kind == "number" && num != nil:
		theirs = fmtFloat(*num)
	case kind == "temporal" && us != nil:
		t := time.UnixMicro(*us).UTC()
		if c.InferredType == "date" {
			theirs = t.Format(time.DateOnly)
		} else {
			theirs = t.Format(time.RFC3339Nano)
		}
	case kind == "string" && text != nil:
		theirs = *text
	default:
		ch.duck = "none"
		ch.ok = ours == nil
		return ch
	}
	ch.duck = theirs
	if ours == nil {
		return ch
	}
	if c.masked() {
		ch.ok = *ours == quality.Mask(theirs)
		ch.note = "masked by dqs: compared masked"
		return ch
	}
	switch kind {
	case "number":
		v, err := strconv.ParseFloat(*ours, 64)
		ch.ok = err == nil && v == *num
	case "temporal":
		t, err := parseInstant(*ours)
		ch.ok = err == nil && t.UnixMicro() == *us
		if err != nil {
			ch.note = err.Error()
		} else {
			ch.note = "as instants"
		}
	default:
		ch.ok = *ours == theirs
	}
	return ch
}

// instantLayouts are the ways a date or datetime min/max can be written
// that these comparisons read; a value without an offset is UTC, as in
// DuckDB with TimeZone UTC.
var instantLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999", time.DateOnly}

func parseInstant(s string) (time.Time, error) {
	for _, l := range instantLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q reads as no instant", s)
}

// quantileAgrees applies the documented bound of a lower quantile: exact
// while the column is exact, otherwise a rank within rankTolerance·n.
func quantileAgrees(exact bool, ours float64, d duckQuantile, n int64) (bool, string) {
	if exact {
		return ours == d.Value, fmt.Sprintf("exact, rank %d", d.Rank)
	}
	if d.Below == nil || d.NotAbove == nil {
		return false, "DuckDB did not rank dqs's value"
	}
	lo, hi := *d.Below+1, *d.NotAbove // ranks dqs's value holds in the exact order
	if hi < lo {
		return false, "dqs's value is not one of the column's"
	}
	var off int64
	switch {
	case d.Rank < lo:
		off = lo - d.Rank
	case d.Rank > hi:
		off = d.Rank - hi
	}
	ranks := fmt.Sprintf("ranks %d-%d", lo, hi)
	if lo == hi {
		ranks = fmt.Sprintf("rank %d", lo)
	}
	note := fmt.Sprintf("%s for %d: off by %.3f%% of n", ranks, d.Rank, 100*float64(off)/float64(n))
	return float64(off) <= rankTolerance*float64(n), note
}

func relErr(est, exact int64) string {
	if exact == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.2f%%", 100*float64(est-exact)/float64(exact))
}

// fmtFloat writes numbers as dqs does, without exponents, so that the two
// columns of the table read alike.
func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// withShare is a count and its share of the rows: equal counts are equal
// shares.
func withShare(n, rows int64) string {
	if rows <= 0 {
		return strconv.FormatInt(n, 10)
	}
	return fmt.Sprintf("%d (%.3f%%)", n, 100*float64(n)/float64(rows))
}

func fmtPtr(f *float64) string {
	if f == nil {
		return "none"
	}
	return fmtFloat(*f)
}

func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

func present(ok bool) string {
	if ok {
		return "present"
	}
	return "missing"
}

// compareDuckDB runs both engines on each format's file and prints the
// comparison; it fails when any figure disagrees or either engine fails.
func compareDuckDB(stdout, stderr io.Writer, dir, bin, node, script string, formats []string) int {
	var all []check
	status := 0
	for _, f := range formats {
		checks, version, err := compareOne(f, filepath.Join(dir, fileNames[f]), bin, node, script)
		if err != nil {
			fmt.Fprintf(stderr, "dqs-bench: %s: %v\n", f, err)
			status = 1
			continue
		}
		if version != "" && len(all) == 0 {
			fmt.Fprintf(stdout, "duckdb: %s\n", version)
		}
		all = append(all, checks...)
	}
	if printChecks(stdout, all) > 0 {
		status = 1
	}
	return status
}

func compareOne(format, path, bin, node, script string) ([]check, string, error) {
	out, err := runCmd(bin, "profile", "--json", path)
	if err != nil {
		return nil, "", fmt.Errorf("dqs profile: %w", err)
	}
	var files []dqsFile
	if err := json.Unmarshal(out, &files); err != nil || len(files) != 1 {
		return nil, "", fmt.Errorf("dqs profile: want one file's profile: %v", err)
	}
	p := &files[0]

	spec, err := json.Marshal(specFor(format, path, p))
	if err != nil {
		return nil, "", err
	}
	tmp, err := os.CreateTemp("", "dqs-duckdb-spec-*.json")
	if err != nil {
		return nil, "", err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(spec)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, "", err
	}
	out, err = runCmd(node, script, tmp.Name())
	if err != nil {
		return nil, "", fmt.Errorf("DuckDB: %w", err)
	}
	var d duckFile
	if err := json.Unmarshal(out, &d); err != nil {
		return nil, "", fmt.Errorf("DuckDB: bad output: %v", err)
	}
	return compareFile(format, p, &d), d.Version, nil
}

func runCmd(name string, args ...string) ([]byte, error) {
	var out, errBuf bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &errBuf
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errBuf.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		return nil, errors.Join(err, errors.New(msg))
	}
	return out.Bytes(), nil
}

// printChecks prints the table and a summary per format, and returns how
// many figures disagree.
func printChecks(w io.Writer, checks []check) int {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FORMAT\tCOLUMN\tFIGURE\tDQS\tDUCKDB\tAGREE\tNOTE")
	type tally struct{ n, bad int }
	var order []string
	tallies := map[string]*tally{}
	bad := 0
	for _, c := range checks {
		agree := "yes"
		if !c.ok {
			agree = "NO"
			bad++
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.format, c.column, c.figure, clip(c.dqs), clip(c.duck), agree, c.note)
		t := tallies[c.format]
		if t == nil {
			t = &tally{}
			tallies[c.format] = t
			order = append(order, c.format)
		}
		t.n++
		if !c.ok {
			t.bad++
		}
	}
	tw.Flush()
	for _, f := range order {
		t := tallies[f]
		fmt.Fprintf(w, "%s: %d figures, %d agree, %d disagree\n", f, t.n, t.n-t.bad, t.bad)
	}
	if bad == 0 {
		fmt.Fprintf(w, "all %d figures agree within the documented bounds\n", len(checks))
	} else {
		fmt.Fprintf(w, "%d of %d figures disagree\n", bad, len(checks))
	}
	return bad
}

// clip keeps long strings (notes min/max) to one table cell's width.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:39]) + "…"
	}
	return s
}
