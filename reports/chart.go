package reports

import (
	"strconv"
)

// Charts are drawn with fpdf's vector primitives (lines, rectangles,
// text): no image library, no browser, and they stay sharp at any zoom.

// bar is one bar of a horizontal bar chart: its label, its value, the
// value as printed at the bar's end, and its colour.
type bar struct {
	label  string
	value  float64
	text   string
	colour rgb
}

const (
	barRow    = 6.0
	barHeight = 4.2
	barLabel  = 58.0 // width of the label column
	barValue  = 18.0 // width of the value column

	chartHeight = 58.0
	chartAxis   = 10.0 // width of the y axis labels
	chartFoot   = 6.0  // height of the x axis labels
	// chartDots is the most points drawn with a marker; beyond it the
	// markers merge into a thick line.
	chartDots = 60
)

// barChart draws bars scaled to top, the value of a full-width bar. Each
// bar is a row of its own, so a long chart runs onto the next page rather
// than off this one.
func (d *doc) barChart(bars []bar, top float64) {
	if len(bars) == 0 {
		return
	}
	if top <= 0 {
		top = 1
	}
	plot := d.width() - barLabel - barValue
	d.font("", cellSize)
	for _, b := range bars {
		d.ensure(barRow)
		y := d.pdf.GetY()
		d.colour(colourText)
		d.pdf.SetXY(marginLeft, y)
		d.pdf.CellFormat(barLabel, barRow, d.fit(d.txt(b.label), barLabel), "", 0, "R", false, 0, "")
		x := marginLeft + barLabel
		by := y + (barRow-barHeight)/2
		d.pdf.SetFillColor(colourHead.r, colourHead.g, colourHead.b)
		d.pdf.Rect(x, by, plot, barHeight, "F")
		if w := plot * min(1, max(0, b.value/top)); w > 0 {
			d.pdf.SetFillColor(b.colour.r, b.colour.g, b.colour.b)
			d.pdf.Rect(x, by, w, barHeight, "F")
		}
		d.pdf.SetXY(x+plot, y)
		d.pdf.CellFormat(barValue, barRow, d.fit(d.txt(b.text), barValue), "", 0, "L", false, 0, "")
		d.pdf.SetXY(marginLeft, y+barRow)
	}
	d.pdf.Ln(3)
	d.body()
}

// scoreBars are bars of 0-100 scores coloured by band.
func scoreBars(labels []string, scores []float64) []bar {
	out := make([]bar, len(labels))
	for i, l := range labels {
		out[i] = bar{label: l, value: scores[i], text: score1(scores[i]), colour: scoreColour(scores[i])}
	}
	return out
}

// lineChart draws 0-100 scores over time. Points are placed by date
// when their dates differ, evenly otherwise; values outside 0-100 are
// drawn at the nearest edge. Fewer than two points make no line: the
// caller says so in words instead.
func (d *doc) lineChart(pts []ScorePoint) {
	if len(pts) < 2 {
		return
	}
	d.ensure(chartHeight + 4)
	x0 := marginLeft + chartAxis
	y0 := d.pdf.GetY() + 2
	w := d.width() - chartAxis - 4
	h := chartHeight - chartFoot - 4
	yOf := func(v float64) float64 { return y0 + h*(1-clamp(v)/100) }

	d.font("", 7)
	d.colour(colourMuted)
	for v := 0; v <= 100; v += 25 {
		y := yOf(float64(v))
		d.hairline(x0, y, x0+w, y)
		d.pdf.SetXY(marginLeft, y-1.5)
		d.pdf.CellFormat(chartAxis-1, 3, strconv.Itoa(v), "", 0, "R", false, 0, "")
	}

	xs := xPositions(pts, x0, w)
	d.axisLabels(pts, xs, y0+h+1)

	d.pdf.SetDrawColor(colourAccent.r, colourAccent.g, colourAccent.b)
	d.pdf.SetFillColor(colourAccent.r, colourAccent.g, colourAccent.b)
	d.pdf.SetLineWidth(0.5)
	for i := 1; i < len(pts); i++ {
		d.pdf.Line(xs[i-1], yOf(pts[i-1].Score), xs[i], yOf(pts[i].Score))
	}
	if len(pts) <= chartDots {
		for i, p := range pts {
			d.pdf.Circle(xs[i], yOf(p.Score), 0.7, "F")
		}
	}
	d.pdf.SetLineWidth(0.2)
	d.pdf.SetXY(marginLeft, y0+chartHeight)
	d.body()
}

// axisLabels prints the dates of the first and last points under the
// x axis (and the middle one when there is room for it).
func (d *doc) axisLabels(pts []ScorePoint, xs []float64, y float64) {
	const lw = 20.0
	last := len(pts) - 1
	d.pdf.SetXY(xs[0], y)
	d.pdf.CellFormat(lw, 3, day(pts[0].At), "", 0, "L", false, 0, "")
	d.pdf.SetXY(xs[last]-lw, y)
	d.pdf.CellFormat(lw, 3, day(pts[last].At), "", 0, "R", false, 0, "")
	if mid := last / 2; mid > 0 && xs[mid]-xs[0] > lw && xs[last]-xs[mid] > lw {
		d.pdf.SetXY(xs[mid]-lw/2, y)
		d.pdf.CellFormat(lw, 3, day(pts[mid].At), "", 0, "C", false, 0, "")
	}
}

// xPositions places points across w from x0: by date when the dates span
// some time, else evenly by index. Dates are taken as Unix seconds in
// float64, which, unlike time.Duration, does not saturate over centuries.
func xPositions(pts []ScorePoint, x0, w float64) []float64 {
	lo, hi := float64(pts[0].At.Unix()), float64(pts[0].At.Unix())
	for _, p := range pts {
		lo, hi = min(lo, float64(p.At.Unix())), max(hi, float64(p.At.Unix()))
	}
	xs := make([]float64, len(pts))
	for i, p := range pts {
		f := float64(i) / float64(len(pts)-1)
		if hi > lo {
			f = (float64(p.At.Unix()) - lo) / (hi - lo)
		}
		xs[i] = x0 + w*f
	}
	return xs
}
