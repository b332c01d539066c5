package corrections

import (
	"fmt"
	"strings"
	"time"

	"github.com/ncruces/go-strftime"
)

// date_iso writes dates as ISO 8601 (2006-01-02), read with the layouts of
// input_formats, or else with those the profiler reads as dates (package
// profile, doc.go): 2006-01-02, 2006/01/02, 02.01.2006 (day first), and
// slash dates 02/01/2006 or 01/02/2006. A slash date that reads only one
// way is read so; one that reads both ways (03/04/2024) is read day first,
// as the profiler reads a column where nothing tells, unless month_first
// is set (the profile's Column.Notation then starts with "month first").
// A value already in ISO form is left as it is; one no layout reads is
// left as it is and counted as unfixed. Days and months have two digits,
// as the profiler's dates: 3/4/2024 needs the layout 2/1/2006.

const isoDate = "2006-01-02"

var profilerDateLayouts = []string{isoDate, "2006/01/02", "02.01.2006"}

const (
	dayFirstLayout   = "02/01/2006"
	monthFirstLayout = "01/02/2006"
	maxDateFormats   = 20
	maxLayoutBytes   = 64
)

func dateFix(p *params) (func(*engine) cellFix, error) {
	formats, err := p.list("input_formats", maxDateFormats)
	if err != nil {
		return nil, err
	}
	monthFirst, err := p.boolean("month_first")
	if err != nil {
		return nil, err
	}
	layouts := append([]string(nil), profilerDateLayouts...)
	switch {
	case len(formats) > 0 && monthFirst:
		return nil, p.errorf("month_first", "applies to the profiler's layouts, not to input_formats (whose layouts say which comes first)")
	case len(formats) > 0:
		layouts = []string{isoDate}
		for _, f := range formats {
			l, err := dateLayout(f)
			if err != nil {
				return nil, p.errorf("input_formats", "%s", err.Error())
			}
			layouts = append(layouts, l)
		}
	case monthFirst:
		layouts = append(layouts, monthFirstLayout, dayFirstLayout)
	default:
		layouts = append(layouts, dayFirstLayout, monthFirstLayout)
	}
	fix := func(v string) (string, bool, error) {
		s := strings.TrimSpace(v)
		for _, l := range layouts {
			if t, err := time.Parse(l, s); err == nil {
				return t.Format(isoDate), true, nil
			}
		}
		return v, false, nil
	}
	return func(*engine) cellFix { return fix }, nil
}

// dateLayout turns a format of input_formats into a Go layout: a strftime
// format (%d/%m/%Y) when it holds a '%', else a Go layout (02/01/2006). It
// must read a whole date: a date written with it reads back the same.
func dateLayout(f string) (string, error) {
	if len(f) > maxLayoutBytes {
		return "", fmt.Errorf("a date format has at most %d bytes", maxLayoutBytes)
	}
	layout := f
	if strings.Contains(f, "%") {
		var err error
		if layout, err = strftime.Layout(f); err != nil {
			return "", fmt.Errorf("cannot read the date format %q: %v", f, err)
		}
	}
	// The 29th of November: a day no month number could be taken for.
	ref := time.Date(2013, time.November, 29, 0, 0, 0, 0, time.UTC)
	back, err := time.Parse(layout, ref.Format(layout))
	if err != nil || back.Year() != ref.Year() || back.Month() != ref.Month() || back.Day() != ref.Day() {
		return "", fmt.Errorf("the date format %q does not read a whole date (year, month and day): use a Go layout such as 02/01/2006 or a strftime one such as %%d/%%m/%%Y", f)
	}
	return layout, nil
}
