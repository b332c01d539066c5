package suggest

import (
	"fmt"
	"strings"
	"time"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/quality"
)

// Dates: a column whose dates are written in several layouts (2024-03-15,
// 15/03/2024, March 15, 2024) is rewritten in ISO 8601 by format_fix
// date_iso, given the layouts the pass found as input_formats (Go layouts,
// which the step accepts as they are).
//
// Layouts that read one way only (year first, month names, 8-digit
// compact dates in a column of dates) are right on every value they read:
// dateConfidence. Slash, dot and dash dates with the year last read day
// first or month first; a value whose day is over 12 (25/03/2024) reads
// one way only and is evidence of its column's order, one that reads both
// ways (03/04/2024) is ambiguous. The step lists both layouts, the
// column's order first, so that values reading one way only are read
// that way, and ambiguous ones are read in the column's order: right with
// the probability, by Laplace's rule of succession, that the next value
// follows the order k of the n evidence values followed,
// (k + 1) / (n + 2) — 0.5 with no evidence, 0.95 from 18 values of one
// order and none of the other. A family whose ambiguous values are read
// less surely than dateCertain gets a step of its own, with that
// confidence, after the step of the sure layouts.
//
// Two-digit years (03/04/24) are left alone: the century is a guess.

const (
	dateConfidence        = 0.97
	dateCompactConfidence = 0.95
	dateCertain           = 0.95
	// dateColumnShare of a column's values must read as dates.
	dateColumnShare = 0.9
)

// unambiguousLayouts read one way only, tried in this order.
var unambiguousLayouts = [...]struct{ layout, readable string }{
	{"2006-1-2", "YYYY-M-D"}, {"2006/1/2", "YYYY/M/D"}, {"2006.1.2", "YYYY.M.D"},
	{"Jan 2, 2006", "Mon D, YYYY"}, {"January 2, 2006", "Month D, YYYY"},
	{"Jan 2 2006", "Mon D YYYY"}, {"January 2 2006", "Month D YYYY"},
	{"2 Jan 2006", "D Mon YYYY"}, {"2 January 2006", "D Month YYYY"},
	{"2-Jan-2006", "D-Mon-YYYY"}, {"2. January 2006", "D. Month YYYY"},
}

// orderFamilies are the layouts with the year last, day first and month
// first.
var orderFamilies = [...]struct {
	sep                  byte
	dayFirst, monthFirst string
	readableD, readableM string
}{
	{'/', "2/1/2006", "1/2/2006", "DD/MM/YYYY", "MM/DD/YYYY"},
	{'.', "2.1.2006", "1.2.2006", "DD.MM.YYYY", "MM.DD.YYYY"},
	{'-', "2-1-2006", "1-2-2006", "DD-MM-YYYY", "MM-DD-YYYY"},
}

const (
	compactLayout = "20060102"
	isoLayout     = "2006-01-02"
)

// orderCount counts one order family's values.
type orderCount struct {
	dayOnly, monthOnly int64 // read one way only
	same               int64 // read both ways to the same date (05/05/2024)
	ambiguous          int64 // read both ways to different dates
	ex, ambEx          string
}

func (o *orderCount) total() int64 { return o.dayOnly + o.monthOnly + o.same + o.ambiguous }

// dateScan counts a column's values by layout.
type dateScan struct {
	values, iso, unread, compact int64
	fixed                        [len(unambiguousLayouts)]int64
	fixedEx                      [len(unambiguousLayouts)]string
	order                        [len(orderFamilies)]orderCount
	compactEx                    string
}

func (d *dateScan) add(v string) {
	d.values++
	if len(v) < 6 || len(v) > 30 {
		d.unread++
		return
	}
	if _, err := time.Parse(isoLayout, v); err == nil {
		d.iso++
		return
	}
	if len(v) == 8 && allDigits(v) {
		if t, err := time.Parse(compactLayout, v); err == nil && t.Year() >= 1900 && t.Year() <= 2100 {
			d.compact++
			d.compactEx = firstOf(d.compactEx, v)
			return
		}
		d.unread++
		return
	}
	if f := orderFamily(v); f >= 0 {
		fam := orderFamilies[f]
		o := &d.order[f]
		td, errD := time.Parse(fam.dayFirst, v)
		tm, errM := time.Parse(fam.monthFirst, v)
		switch {
		case errD == nil && errM == nil && td.Equal(tm):
			o.same++
		case errD == nil && errM == nil:
			o.ambiguous++
			o.ambEx = firstOf(o.ambEx, v)
		case errD == nil:
			o.dayOnly++
		case errM == nil:
			o.monthOnly++
		default:
			d.unread++
			return
		}
		o.ex = firstOf(o.ex, v)
		return
	}
	for i, l := range unambiguousLayouts {
		if _, err := time.Parse(l.layout, v); err == nil {
			d.fixed[i]++
			d.fixedEx[i] = firstOf(d.fixedEx[i], v)
			return
		}
	}
	d.unread++
}

// orderFamily is the family of a date of one or two digits, a separator,
// one or two digits, the same separator and four digits; -1 otherwise.
func orderFamily(v string) int {
	i := digitsAt(v, 0)
	if i < 1 || i > 2 || i >= len(v) {
		return -1
	}
	sep := v[i]
	j := i + 1 + digitsAt(v, i+1)
	if j-i-1 < 1 || j-i-1 > 2 || j >= len(v) || v[j] != sep {
		return -1
	}
	if k := digitsAt(v, j+1); k != 4 || j+1+k != len(v) {
		return -1
	}
	for f, fam := range orderFamilies {
		if fam.sep == sep {
			return f
		}
	}
	return -1
}

// digitsAt is the number of ASCII digits of v from i on.
func digitsAt(v string, i int) int {
	n := 0
	for i+n < len(v) && v[i+n] >= '0' && v[i+n] <= '9' {
		n++
	}
	return n
}

func allDigits(v string) bool { return v != "" && digitsAt(v, 0) == len(v) }

func firstOf(have, v string) string {
	if have != "" {
		return have
	}
	return strings.Clone(v)
}

// dateGroup is one date_iso step in the making.
type dateGroup struct {
	formats []string
	parts   []string // "DD/MM/YYYY (12, e.g. 25/03/2024)"
	changes int64
	conf    float64
	why     []string
}

func (g *dateGroup) add(formats []string, part string, n int64, conf float64, why string) {
	g.formats = append(g.formats, formats...)
	g.parts = append(g.parts, part)
	g.changes += n
	if g.conf == 0 || conf < g.conf {
		g.conf = conf
	}
	if why != "" {
		g.why = append(g.why, why)
	}
}

// dateRule proposes format_fix date_iso for a date column written in
// several layouts.
func (s *scan) dateRule(c *column) []Suggestion {
	d := c.dates
	if d == nil || d.values == 0 {
		return nil
	}
	read := d.values - d.unread
	if float64(read) < dateColumnShare*float64(d.values) {
		return nil // not a column of dates (datetimes, free text)
	}
	layouts := 0
	if d.iso > 0 {
		layouts++
	}
	if d.compact > 0 {
		layouts++
	}
	for i := range d.fixed {
		if d.fixed[i] > 0 {
			layouts++
		}
	}
	for i := range d.order {
		if d.order[i].total() > 0 {
			layouts++
		}
	}
	if layouts < 2 {
		return nil // one layout throughout is a convention, not an inconsistency
	}
	sure := &dateGroup{}
	var unsure []*dateGroup
	for i, l := range unambiguousLayouts {
		if n := d.fixed[i]; n > 0 {
			sure.add([]string{l.layout}, fmt.Sprintf("%s (%d, e.g. %s)", l.readable, n, c.show(d.fixedEx[i])), n, dateConfidence, "")
		}
	}
	if d.compact > 0 {
		sure.add([]string{compactLayout}, fmt.Sprintf("YYYYMMDD (%d, e.g. %s)", d.compact, c.show(d.compactEx)), d.compact, dateCompactConfidence,
			"8-digit dates are dates only because the rest of the column is")
	}
	for i, fam := range orderFamilies {
		o := d.order[i]
		if o.total() == 0 {
			continue
		}
		dayFirst := o.dayOnly >= o.monthOnly
		first, second, readable := fam.dayFirst, fam.monthFirst, fam.readableD
		k := o.dayOnly
		if !dayFirst {
			first, second, readable, k = fam.monthFirst, fam.dayFirst, fam.readableM, o.monthOnly
		}
		n := o.dayOnly + o.monthOnly
		conf, why := dateConfidence, ""
		if o.ambiguous > 0 {
			conf = min(dateConfidence, succession(k, n))
			why = fmt.Sprintf("%d dates such as %s read both day first and month first; %d of the %d dates that read one way only read %s, so they are read so",
				o.ambiguous, c.show(o.ambEx), k, n, readable)
		}
		part := fmt.Sprintf("%s (%d, e.g. %s)", readable, o.total(), c.show(o.ex))
		g := sure
		if conf < dateCertain {
			g = &dateGroup{}
			unsure = append(unsure, g)
		}
		g.add([]string{first, second}, part, o.total(), conf, why)
	}
	issue := s.issueOf(c, quality.KindInconsistentFormat)
	var out []Suggestion
	for _, g := range append([]*dateGroup{sure}, unsure...) {
		if g.changes == 0 {
			continue
		}
		why := "each of these layouts reads a date one way only"
		if len(g.why) > 0 {
			why = strings.Join(g.why, "; ")
		}
		unread := ""
		if d.unread > 0 {
			unread = fmt.Sprintf(" %d values no layout reads (two-digit years, times, text) are left as they are.", d.unread)
		}
		out = append(out, Suggestion{
			Engine: EngineRule, CorrectionType: corrections.TypeFormatFix, Column: c.name, Strategy: corrections.StrategyDateISO,
			Params: map[string]any{"input_formats": g.formats}, Confidence: g.conf, Changes: g.changes, Issue: issue,
			Explanation: fmt.Sprintf("%s of %q are not written as YYYY-MM-DD like %d others: %s. The step rewrites them as YYYY-MM-DD.%s Confidence %.2f: %s.",
				share(g.changes, d.values, "dates"), c.name, d.iso, strings.Join(g.parts, ", "), unread, g.conf, why),
		})
	}
	return out
}
