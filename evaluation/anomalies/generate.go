package anomalies

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"

	"github.com/dqs/dqs/anomaly"
)

// Seed fixes the synthetic suite; change it only on purpose (the numbers
// in the report change with it).
const Seed uint64 = 0x0da7_a9a1_17e5

// shiftWindow is how many scans of a level shift are labelled: the change
// itself and the scans that confirm it; later values are the new normal.
const shiftWindow = 3

// Window is a labelled anomaly: scan indices Start to End, both included.
type Window struct{ Start, End int }

func (w Window) contains(i int) bool { return i >= w.Start && i <= w.End }

// Series is one labelled metric series.
type Series struct {
	Name    string
	Kind    string // the row it is reported in
	Metric  string
	Scale   anomaly.Scale
	Points  []anomaly.Point
	Windows []Window
	// Rows is the table size a share was measured over; 0 for others.
	Rows int64
}

// Kinds of the synthetic suite, in report order, with how many
// generators' runs each gets (a correlated run makes a table of four
// series).
var Kinds = []struct {
	Name  string
	Runs  int
	build func(g *gen) []Series
}{
	{"null_spike", 30, nullSpike},
	{"row_count_drop", 30, rowCountDrop},
	{"distinct_collapse", 30, distinctCollapse},
	{"slow_conformance_decay", 30, conformanceDecay},
	{"level_shift", 30, levelShift},
	{"weekly_seasonality", 30, weeklySeasonality},
	{"correlated", 10, correlated},
	{"repeat_incident", 30, repeatIncident},
	{"clean", 45, clean},
}

// Generate is the synthetic suite: the same series for the same Seed.
func Generate() []Series {
	var out []Series
	for _, k := range Kinds {
		for i := range k.Runs {
			name := fmt.Sprintf("%s/%02d", k.Name, i)
			built := k.build(newGen(name))
			for j, s := range built {
				s.Name, s.Kind, s.Scale = name+"/"+s.Metric, k.Name, anomaly.ScaleOf(s.Metric)
				if len(built) > 1 {
					s.Name += fmt.Sprint("/", j)
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// gen draws one run's numbers: its own PCG stream, derived from Seed and
// the run's name, so adding a run leaves the others unchanged.
type gen struct{ r *rand.Rand }

func newGen(name string) *gen {
	h := fnv.New64a()
	h.Write([]byte(name))
	return &gen{rand.New(rand.NewPCG(Seed, h.Sum64()))}
}

func (g *gen) uniform(lo, hi float64) float64 { return lo + (hi-lo)*g.r.Float64() }

// logUniform spreads draws evenly over orders of magnitude (table sizes).
func (g *gen) logUniform(lo, hi float64) float64 {
	return math.Exp(g.uniform(math.Log(lo), math.Log(hi)))
}

func (g *gen) intIn(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *gen) chance(p float64) bool { return g.r.Float64() < p }

func (g *gen) sign() float64 {
	if g.chance(0.5) {
		return -1
	}
	return 1
}

// schedule is n scan times: daily, or every 6 hours for one run in six;
// a few minutes late at random, as schedulers are; and for one run in
// three some scans missed (an outage, a paused job).
func (g *gen) schedule(n int) []time.Time {
	step := 24 * time.Hour
	if g.chance(1.0 / 6) {
		step = 6 * time.Hour
	}
	return g.scheduleEvery(n, step)
}

func (g *gen) scheduleEvery(n int, step time.Duration) []time.Time {
	miss := 0.0
	if g.chance(1.0 / 3) {
		miss = g.uniform(0.02, 0.08)
	}
	t := time.Date(2024, 1, 1, 2, 0, 0, 0, time.UTC).AddDate(0, 0, g.intIn(0, 6))
	out := make([]time.Time, 0, n)
	for len(out) < n {
		if !g.chance(miss) {
			out = append(out, t.Add(time.Duration(g.intIn(0, 600))*time.Second))
		}
		t = t.Add(step)
	}
	return out
}

// share is the share of rows, out of n, that have a property of
// probability p: a binomial draw (its normal approximation, rounded to
// whole rows), so a small table is noisier than a big one.
func (g *gen) share(p float64, n int) float64 {
	if p <= 0 || p >= 1 {
		return min(max(p, 0), 1)
	}
	k := math.Round(float64(n)*p + g.r.NormFloat64()*math.Sqrt(float64(n)*p*(1-p)))
	return min(max(k, 0), float64(n)) / float64(n)
}

// shareSD is the noise of share(p, n).
func shareSD(p float64, n int) float64 { return math.Sqrt(p * (1 - p) / float64(n)) }

// shares draws share(p[i], n) for every scan.
func (g *gen) shares(p []float64, n int) []float64 {
	out := make([]float64, len(p))
	for i := range p {
		out[i] = g.share(p[i], n)
	}
	return out
}

func constant(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func weekend(t time.Time) bool { return t.Weekday() == time.Saturday || t.Weekday() == time.Sunday }

// growing is the row count of a table loaded by appends: many rows a
// weekday, a share of that on weekends, the day's volume noisy. A scan
// every 6 hours sees a quarter day of appends.
func (g *gen) growing(times []time.Time) []float64 {
	rows := math.Round(g.logUniform(2e4, 5e7))
	daily := rows * g.logUniform(0.0005, 0.015)
	wkend, noise := g.uniform(0.2, 0.6), g.uniform(0.05, 0.3)
	out := make([]float64, len(times))
	for i, t := range times {
		if i > 0 {
			rate := daily * (1 + noise*g.r.NormFloat64())
			if weekend(t) {
				rate *= wkend
			}
			rows += math.Round(max(rate, 0) * t.Sub(times[i-1]).Hours() / 24)
		}
		out[i] = rows
	}
	return out
}

// partition is the row count of the day's partition (or of a table
// rewritten daily): a weekday volume, a share of it on weekends, noise.
func (g *gen) partition(times []time.Time, noise float64) (vals []float64, wkend float64) {
	volume := g.logUniform(1e3, 1e7)
	wkend = g.uniform(0.2, 0.5)
	vals = make([]float64, len(times))
	for i, t := range times {
		v := volume
		if weekend(t) {
			v *= wkend
		}
		vals[i] = math.Round(v * (1 + noise*g.r.NormFloat64()))
	}
	return vals, wkend
}

// level is a numeric column's mean measured on a sample: a center and a
// relative sampling noise.
func (g *gen) level(n int, noise float64) (vals []float64, center float64) {
	center = g.logUniform(1, 1e5)
	vals = make([]float64, n)
	for i := range vals {
		vals[i] = center * (1 + noise*g.r.NormFloat64())
	}
	return vals, center
}

// nullRate is a null_rate series: a base rate and the table's row count;
// one run in five never has a null.
func (g *gen) nullRate() (p float64, rows int) {
	rows = int(g.logUniform(500, 2e5))
	if g.chance(0.2) {
		return 0, rows
	}
	return g.uniform(0.02, 0.15), rows
}

// at is an anomaly's first scan: late enough for any baseline to be
// full (five weeks of daily scans), early enough to leave room after it.
func (g *gen) at(n, length int) int {
	return g.intIn(max(35, n/4), n-length-8)
}

// series builds a Series from its times and values.
// shareSeries is a share's series measured over rows rows, which the
// detector is told (as a scan tells it the table's row count).
func shareSeries(metric string, times []time.Time, vals []float64, rows int, windows ...Window) Series {
	s := series(metric, times, vals, windows...)
	s.Rows = int64(rows)
	return s
}

func series(metric string, times []time.Time, vals []float64, windows ...Window) Series {
	pts := make([]anomaly.Point, len(times))
	for i := range times {
		pts[i] = anomaly.Point{At: times[i], Value: vals[i]}
	}
	return Series{Metric: metric, Points: pts, Windows: windows}
}

// spikeDelta is how far a null spike goes: a few to tens of percentage
// points, and always well clear of the series' noise.
func (g *gen) spikeDelta(p float64, rows int) float64 {
	return min(max(g.uniform(0.03, 0.3), 10*shareSD(p, rows), 0.01), 1-p)
}

// nullSpikes is a null_rate series with spikes of length scans at
// starts: the same spike each time (a repeat of one failure).
func (g *gen) nullSpikes(n int, starts []int, length int) Series {
	times := g.schedule(n)
	p, rows := g.nullRate()
	delta := g.spikeDelta(p, rows)
	ps := constant(n, p)
	var ws []Window
	for _, s := range starts {
		w := Window{s, s + length - 1}
		for i := w.Start; i <= w.End; i++ {
			ps[i] = p + delta
		}
		ws = append(ws, w)
	}
	return shareSeries("null_rate", times, g.shares(ps, rows), rows, ws...)
}

func nullSpike(g *gen) []Series {
	n, length := g.intIn(60, 400), g.intIn(1, 3)
	return []Series{g.nullSpikes(n, []int{g.at(n, length)}, length)}
}

// drops is a growing table's row count with broken loads at starts, each
// keeping a share of the rows for length scans; the scan after is
// repaired.
func (g *gen) drops(times []time.Time, starts []int, length int) Series {
	vals := g.growing(times)
	keep := 1 - g.uniform(0.2, 0.9)
	var ws []Window
	for _, s := range starts {
		w := Window{s, s + length - 1}
		for i := w.Start; i <= w.End; i++ {
			vals[i] = math.Round(vals[i] * keep)
		}
		ws = append(ws, w)
	}
	return series("row_count", times, vals, ws...)
}

func rowCountDrop(g *gen) []Series {
	n, length := g.intIn(60, 400), 1
	if g.chance(0.4) {
		length = g.intIn(2, 5)
	}
	return []Series{g.drops(g.schedule(n), []int{g.at(n, length)}, length)}
}

// distinctCollapse: the distinct count of a column follows the table's
// rows (an id column, or one that saturates at its cardinality), then a
// bad join or a default value collapses it for a few scans.
func distinctCollapse(g *gen) []Series {
	n, length := g.intIn(60, 400), g.intIn(1, 4)
	times := g.schedule(n)
	rows := g.growing(times)
	card := rows[0] * g.logUniform(0.001, 5)
	vals := make([]float64, n)
	for i, r := range rows {
		vals[i] = math.Round(card * (1 - math.Exp(-r/card)))
	}
	w := Window{g.at(n, length), 0}
	w.End = w.Start + length - 1
	keep := g.uniform(0.01, 0.5)
	for i := w.Start; i <= w.End; i++ {
		vals[i] = math.Max(1, math.Round(vals[i]*keep))
	}
	return []Series{series("distinct_count", times, vals, w)}
}

// conformanceDecay: format_conformance drifts down over 10 to 30 scans
// (a producer slowly switching formats), then is repaired.
func conformanceDecay(g *gen) []Series {
	n, ramp := g.intIn(80, 400), g.intIn(10, 30)
	times := g.schedule(n)
	c, rows := g.uniform(0.97, 1), int(g.logUniform(1e3, 2e5))
	drop := max(g.uniform(0.03, 0.15), 15*shareSD(1-c, rows))
	w := Window{g.at(n, ramp), 0}
	w.End = w.Start + ramp - 1
	bad := constant(n, 1-c)
	for i := w.Start; i <= w.End; i++ {
		bad[i] += drop * float64(i-w.Start+1) / float64(ramp)
	}
	vals := g.shares(bad, rows)
	for i := range vals {
		vals[i] = 1 - vals[i]
	}
	return []Series{shareSeries("format_conformance", times, vals, rows, w)}
}

// levelShift: a deliberate, permanent change: a unit or pricing change
// moves a mean, a new optional field raises a null rate, a backfill or a
// purge moves a row count that then keeps growing.
func levelShift(g *gen) []Series {
	n := g.intIn(80, 400)
	times := g.schedule(n)
	at := g.at(n, 30)
	w := Window{at, at + shiftWindow - 1}
	var s Series
	switch g.r.IntN(3) {
	case 0:
		noise := g.logUniform(0.002, 0.03)
		vals, _ := g.level(n, noise)
		f := 1 + g.sign()*max(g.uniform(0.1, 0.5), 10*noise)
		for i := at; i < n; i++ {
			vals[i] *= f
		}
		s = series("mean", times, vals, w)
	case 1:
		p, rows := g.nullRate()
		ps := constant(n, p)
		delta := g.spikeDelta(p, rows)
		for i := at; i < n; i++ {
			ps[i] += delta
		}
		s = shareSeries("null_rate", times, g.shares(ps, rows), rows, w)
	default:
		vals := g.growing(times)
		f := 1 + g.uniform(0.2, 1)
		if g.chance(0.5) {
			f = 1 - g.uniform(0.2, 0.6)
		}
		for i := at; i < n; i++ {
			vals[i] = math.Round(vals[i] * f)
		}
		s = series("row_count", times, vals, w)
	}
	return []Series{s}
}

// weeklySeasonality: a daily partition's row count, or a null rate that is
// higher on weekends (rows keyed by hand on weekdays, by a batch on
// weekends), with one scan at the other part of the week's level: normal
// on another weekday, anomalous on its own.
func weeklySeasonality(g *gen) []Series {
	n := g.intIn(60, 300)
	times := g.scheduleEvery(n, 24*time.Hour)
	at := g.at(n, 1)
	w := Window{at, at}
	if g.chance(0.5) {
		vals, wkend := g.partition(times, g.uniform(0.02, 0.06))
		f := wkend
		if weekend(times[at]) {
			f = 1 / wkend
		}
		vals[at] = math.Round(vals[at] * f)
		return []Series{series("row_count", times, vals, w)}
	}
	rows := int(g.logUniform(2e3, 2e5))
	weekday, weekendRate := g.uniform(0.01, 0.05), g.uniform(0.12, 0.3)
	ps := make([]float64, n)
	for i, t := range times {
		ps[i] = weekday
		if weekend(t) != (i == at) {
			ps[i] = weekendRate
		}
	}
	return []Series{shareSeries("null_rate", times, g.shares(ps, rows), rows, w)}
}

// correlated: one broken load of a table, seen by its row count and by
// three of its columns' null rates in the same scans.
func correlated(g *gen) []Series {
	n, length := g.intIn(60, 400), g.intIn(1, 2)
	times := g.schedule(n)
	at := g.at(n, length)
	out := []Series{g.drops(times, []int{at}, length)}
	for range 3 {
		p, _ := g.nullRate()
		rows := int(out[0].Points[0].Value)
		ps := constant(n, p)
		delta := g.spikeDelta(p, rows)
		for i := at; i < at+length; i++ {
			ps[i] += delta
		}
		out = append(out, shareSeries("null_rate", times, g.shares(ps, rows), rows, Window{at, at + length - 1}))
	}
	return out
}

// repeatIncident: the same failure twice, two to four weeks apart, within
// any 30-scan baseline of the first: a detector that trains on the first
// does not see the second.
func repeatIncident(g *gen) []Series {
	n := g.intIn(100, 400)
	first := g.intIn(35, n-40)
	second := first + g.intIn(14, min(28, n-first-8))
	if g.chance(0.5) {
		return []Series{g.nullSpikes(n, []int{first, second}, 1)}
	}
	return []Series{g.drops(g.schedule(n), []int{first, second}, 1)}
}

// clean: long series without an anomaly, any alert on them false: flat
// ones that never move (a column never null, a lookup table, a rule
// always met), volatile ones (small tables, noisy means, daily
// partitions) and ordinary ones.
func clean(g *gen) []Series {
	n := g.intIn(200, 400)
	times := g.schedule(n)
	switch g.r.IntN(8) {
	case 0:
		return []Series{series("null_rate", times, constant(n, 0))}
	case 1:
		return []Series{series("row_count", times, constant(n, math.Round(g.logUniform(10, 1e5))))}
	case 2:
		return []Series{series("format_conformance", times, constant(n, 1))}
	case 3:
		// A small table: a few hundred rows make a null rate jumpy.
		p, rows := g.uniform(0.02, 0.15), g.intIn(100, 400)
		return []Series{shareSeries("null_rate", times, g.shares(constant(n, p), rows), rows)}
	case 4:
		vals, _ := g.level(n, g.uniform(0.05, 0.15))
		return []Series{series("mean", times, vals)}
	case 5:
		daily := g.scheduleEvery(n, 24*time.Hour)
		vals, _ := g.partition(daily, g.uniform(0.05, 0.12))
		return []Series{series("row_count", daily, vals)}
	case 6:
		return []Series{series("row_count", times, g.growing(times))}
	}
	p, rows := g.nullRate()
	return []Series{shareSeries("null_rate", times, g.shares(constant(n, p), rows), rows)}
}
