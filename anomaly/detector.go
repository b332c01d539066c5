package anomaly

import (
	"math"
	"slices"
	"time"
)

const (
	// WarmUp is the number of past values a series needs before its values
	// are judged: fewer cannot tell noise from change.
	WarmUp = 8
	// Window is the number of past values a baseline reads: six weeks of
	// daily scans.
	Window = 42
	// AdaptAfter is the number of consecutive values on one side of where
	// the series was before them, the first of them flagged, after which
	// they are the series' new normal: flagged values, and the values of a
	// series that follows its last value that stayed where it moved (see
	// regimeStart).
	AdaptAfter = 3
	// lookback bounds the history read for one judgement, so that a
	// judgement costs the same however long the series: six weeks of
	// hourly scans.
	lookback = 1200
	// seasonalPeriods is how many periods a series must span before a
	// weekly (daily) pattern is looked for: each weekday seen twice.
	seasonalPeriods = 2
	// seasonalWeeks bounds the history a weekly pattern reads.
	seasonalWeeks = 6
	// seasonalGain is how much of the spread a pattern must explain to be
	// used: its residuals' spread at most this share of the plain one.
	seasonalGain = 0.6
	// maxRunChecks bounds the runs of flagged values looked at for a new
	// level, latest first: a series that had this many runs that were no
	// level shift has no usable one.
	maxRunChecks = 8
	// runReference is how many trained values before a run of flagged
	// ones say where the series was: a run on one side of their median is
	// a new level.
	runReference = 3
	// sdShare is the share of the window's standard deviation the spread
	// is at least.
	sdShare = 0.9
	// trendGain is how much of a level's spread its trend must explain to
	// be followed: the detrended spread at most this share of the plain
	// one.
	trendGain = 0.7
	// trendDays is the least span of a window whose trend a level follows.
	trendDays = 14
	// trendDrift is how far, in detrended spreads, a level's trend must
	// carry it across the window to be followed: noise has a slope too.
	trendDrift = 4
	// seasonalShift is how many of its spreads a weekday's level must be
	// from the plain baseline's to be a level of its own.
	seasonalShift = 3
	// day and week are the periods of the patterns looked for.
	day  = 24 * time.Hour
	week = 7 * day
	// madToSD turns a MAD into a standard deviation for normal noise.
	madToSD = 1.4826
	// meanAbsToSD turns a mean absolute deviation into one (√(π/2)).
	meanAbsToSD = 1.2533
)

// Evaluate judges current against history, the series' earlier points,
// oldest first (later ones are ignored: a value is judged only on what came
// before it).
func Evaluate(history []Point, current Point, opt Options) Verdict {
	if opt.Sensitivity == "" {
		opt.Sensitivity = Medium
	}
	k := opt.Sensitivity.Threshold()
	v := Verdict{At: current.At, Value: current.Value, Sensitivity: opt.Sensitivity, Threshold: k, Change: math.NaN()}
	cut := len(history)
	for cut > 0 && !history[cut-1].At.Before(current.At) {
		cut--
	}
	history = finite(history[max(0, cut-lookback):cut])
	if math.IsNaN(current.Value) || math.IsInf(current.Value, 0) {
		// Not a measurement (a scan records finite values only): nothing
		// to judge.
		v.WarmingUp = true
		return v
	}
	start := regimeStart(history)
	regime, prior := trainingSets(history, start)
	if len(regime) < WarmUp && (len(prior) < WarmUp || len(regime) < AdaptAfter) {
		v.WarmingUp = true
		return v
	}
	// A pattern is learnt from the whole history, not only the regime: a
	// daily cycle's rises, flagged before the cycle was seen, would
	// otherwise start a new regime each day and hide the cycle for ever.
	var since time.Time // when the new level began; zero for none
	if start > 0 {
		since = history[start].At
	}
	young := len(prior) >= WarmUp && len(regime) < 2*WarmUp
	widen := k // a short window's spread is less certain (shortWindow)
	if young {
		widen = 0 // it borrows the old level's instead
	}
	b, f := baseline(regime, unconfirmed(history), since, current.At, widen, opt)
	var old Baseline
	if young {
		// A new level learnt from a few values borrows the old level's
		// noise until it has its own.
		old, _ = baseline(prior, unconfirmed(history[:start]), time.Time{}, current.At, k, opt)
		b.Spread = max(b.Spread, old.Spread)
	}
	v.Baseline = b
	v.Score = (current.Value - b.Center) / b.Spread
	v.Low, v.High = clampBand(b.Center-k*b.Spread, b.Center+k*b.Spread, opt.Scale)
	if b.Center != 0 {
		v.Change = (current.Value - b.Center) / math.Abs(b.Center)
	}
	v.Anomalous = math.Abs(v.Score) >= k
	if v.Anomalous && !b.Seasonal && !f.persists && likeLastWeek(regime, current, b.Center, k*b.Spread) {
		// Before a weekly pattern can be learnt (two weeks), a value like
		// the same weekday's a week or two before, which was as far from
		// the baseline, is its second sighting, not an anomaly: the second
		// weekend of a new series. (A series that follows its last value
		// has no level for a weekday to depart from: a week ago it was
		// elsewhere.)
		v.Anomalous = false
	}
	if v.Anomalous && !math.IsNaN(f.moved) && math.Abs(current.Value-f.moved) < k*b.Spread {
		// A series that follows its last value, whose last value was
		// flagged: read as a move rather than an outlier, it forecasts
		// this value. An anomaly is what neither reading explains; the
		// move was flagged once, and the level it moved to is no new
		// anomaly.
		v.Anomalous = false
	}
	if v.Anomalous {
		// Any series whose latest values are a flagged move and values
		// that stayed where it moved: a value at that level continues the
		// move, which was flagged once (after AdaptAfter values it is the
		// new level: see regimeStart). One incident, one alert.
		if m := movedTo(unconfirmed(history), b.Center); math.Abs(current.Value-m) < k*b.Spread {
			v.Anomalous = false
		}
	}
	if v.Anomalous && young && math.Abs(current.Value-old.Center) < k*old.Spread {
		// Back at the old level while the new one is young: the change
		// was undone, which is no anomaly.
		v.Anomalous = false
	}
	return v
}

// Replay judges each point of series on the points before it, as if each
// were a new scan, and returns the verdicts in order. A point judged
// anomalous is flagged for the judgements after it, unless its State
// already says what a user made of it.
func Replay(series []Point, opt Options) []Verdict {
	points := slices.Clone(series)
	out := make([]Verdict, len(points))
	for i := range points {
		out[i] = Evaluate(points[:i], points[i], opt)
		if out[i].Anomalous && points[i].State == Normal {
			points[i].State = Flagged
		}
	}
	return out
}

// likeLastWeek reports whether current is within tol of the median of the
// trainable values one or two weeks before it (at the same time of the
// week, give or take half the series' cadence, at most twelve hours), and
// that median at least tol from center: a sighting of the same departure.
// (An ordinary value a week before says nothing of a pattern.)
func likeLastWeek(points []Point, current Point, center, tol float64) bool {
	slack := min(cadence(points)/2, 12*time.Hour)
	var same []float64
	for _, p := range points {
		ago := current.At.Sub(p.At)
		for _, w := range []time.Duration{week, 2 * week} {
			if ago >= w-slack && ago <= w+slack {
				same = append(same, p.Value)
			}
		}
	}
	if len(same) == 0 {
		return false
	}
	m := median(same)
	return math.Abs(current.Value-m) < tol && math.Abs(m-center) >= tol
}

// trainingSets splits history into the values the baseline learns from
// (regime) and, when the series moved to a new level at start
// (regimeStart), the values of the level before it (prior). Flagged and
// confirmed values are left out, but for the run of flagged values that
// starts the new regime. Each set keeps its last Window values, or the
// last seasonalWeeks weeks of them when that is more.
func trainingSets(history []Point, start int) (regime, prior []Point) {
	run := 0 // the run that starts the regime
	if start > 0 {
		run = runLength(history, start)
	}
	for i := start; i < len(history); i++ {
		p := history[i]
		if p.State == Normal || p.State == Expected || (p.State == Flagged && i < start+run) {
			regime = append(regime, p)
		}
	}
	if start > 0 {
		prior = trainable(history[:start])
	}
	return recent(regime), recent(prior)
}

// regimeStart is the index where the latest new level began: the first
// value of the latest run of AdaptAfter or more values that stayed on one
// side of where the series was just before it (the median of the last
// runReference trainable values: the median of the whole window is no
// reference for a series that trends or wanders, whose sudden fall may
// start above it), among the last maxRunChecks such runs; 0 when there is
// none. A run is consecutive flagged values, all on one side, and the
// trained values right after them that are at least half the first one's
// step from where the series was, on its side (a series that follows its
// last value is not flagged again for staying where it moved: see
// Evaluate).
func regimeStart(history []Point) int {
	checked := 0
	for end := len(history); end > 0 && checked < maxRunChecks; {
		i := end - 1
		for i >= 0 && history[i].State != Flagged {
			i--
		}
		if i < 0 {
			return 0
		}
		j := i
		for j > 0 && history[j-1].State == Flagged {
			j--
		}
		ref := trainableBefore(history, j, runReference)
		if oneSided(history[j:i+1], ref) {
			n := i - j + 1 + stayed(history[i+1:], history[j].Value, median(values(ref)))
			if n >= AdaptAfter {
				return j
			}
		}
		if i-j+1 >= AdaptAfter {
			checked++
		}
		end = j
	}
	return 0
}

// movedTo is the level history moved to at its latest flagged values
// when every value since stayed there (at least half the step from ref to
// the first flagged one, on its side: see stayed): the median of the
// flagged values and those after them. NaN when the latest values are no
// such move.
func movedTo(history []Point, ref float64) float64 {
	i := len(history) - 1
	for i >= 0 && history[i].State != Flagged {
		i--
	}
	if i < 0 {
		return math.NaN()
	}
	j := i
	for j > 0 && history[j-1].State == Flagged && (history[j-1].Value-ref)*(history[i].Value-ref) > 0 {
		j--
	}
	if after := history[i+1:]; stayed(after, history[j].Value, ref) < len(after) {
		return math.NaN()
	}
	return median(values(history[j:]))
}

// stayed is how many trained values at the start of after stayed at least
// half the step from ref to first on first's side of ref.
func stayed(after []Point, first, ref float64) int {
	step := first - ref
	n := 0
	for _, p := range after {
		if (p.State != Normal && p.State != Expected) || (p.Value-ref)*math.Copysign(1, step) < math.Abs(step)/2 {
			break
		}
		n++
	}
	return n
}

// runLength is the number of consecutive flagged values from start.
func runLength(history []Point, start int) int {
	n := 0
	for start+n < len(history) && history[start+n].State == Flagged {
		n++
	}
	return n
}

// trainableBefore is the last n normal and expected values before index
// j, latest first.
func trainableBefore(history []Point, j, n int) []Point {
	var out []Point
	for i := j - 1; i >= 0 && len(out) < n; i-- {
		if p := history[i]; p.State == Normal || p.State == Expected {
			out = append(out, p)
		}
	}
	return out
}

// oneSided reports whether every value of run is above the median of
// before, or every one below it.
func oneSided(run, before []Point) bool {
	if len(before) == 0 {
		return false
	}
	m := median(values(before))
	above, below := 0, 0
	for _, p := range run {
		switch {
		case p.Value > m:
			above++
		case p.Value < m:
			below++
		}
	}
	return above == len(run) || below == len(run)
}

// finite leaves out values that are not finite numbers, which would
// poison every median.
func finite(points []Point) []Point {
	for _, p := range points {
		if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
			return slices.DeleteFunc(slices.Clone(points), func(p Point) bool { return math.IsNaN(p.Value) || math.IsInf(p.Value, 0) })
		}
	}
	return points
}

// trainable keeps the normal and expected values.
func trainable(points []Point) []Point {
	var out []Point
	for _, p := range points {
		if p.State == Normal || p.State == Expected {
			out = append(out, p)
		}
	}
	return out
}

// recent keeps the last Window points, or those of the last seasonalWeeks
// weeks when they are more (a weekly pattern of a series scanned several
// times a day needs them).
func recent(points []Point) []Point {
	if len(points) <= Window {
		return points
	}
	from := points[len(points)-1].At.Add(-seasonalWeeks * 7 * 24 * time.Hour)
	i := len(points) - Window
	for i > 0 && !points[i-1].At.Before(from) {
		i--
	}
	return points[i:]
}

// unconfirmed leaves out the values users confirmed as anomalies.
func unconfirmed(points []Point) []Point {
	if !slices.ContainsFunc(points, func(p Point) bool { return p.State == Confirmed }) {
		return points // no copy for the common case
	}
	return slices.DeleteFunc(slices.Clone(points), func(p Point) bool { return p.State == Confirmed })
}

// baseline is the expected value at t learnt from points, with its spread.
// A weekly pattern is looked for in every value of the regime, flagged
// ones included (all): a pattern recurs, so a weekend dip flagged before
// three weeks were seen belongs to it, while a one-off spike is one value
// of its weekday's several and moves no median.
//
// since is when the series moved to a new level (zero when it did not):
// the pattern is learnt from the values before it moved by the level's
// change, so that the pattern of the old level is not the forecast of the
// new one.
//
// widen is the threshold the spread of a window shorter than Window is
// widened for (shortWindow); 0 for none.
func baseline(points, all []Point, since, t time.Time, widen float64, opt Options) (b Baseline, f forecast) {
	f.moved = math.NaN()
	scale := opt.Scale
	window := points[max(0, len(points)-Window):]
	vals := values(window)
	b = Baseline{N: len(window), WindowStart: window[0].At, WindowEnd: window[len(window)-1].At}
	b.Mean, b.StdDev = meanSD(vals)
	res := resolution(vals)
	b.Median = median(vals)
	b.MAD = mad(vals, b.Median)
	// The MAD overlooks structure in a minority of the window (a daily
	// cycle's peaks, a weekend): a share of the standard deviation of the
	// (trained, so unflagged) window bounds the spread from below.
	b.Center, b.Spread = b.Median, max(madToSD*b.MAD, sdShare*b.StdDev)
	span := days(window[len(window)-1].At.Sub(window[0].At))
	if len(window) >= WarmUp && (scale == Count || (scale == Level && span >= trendDays)) {
		// Tables grow, and a column's mean may drift: follow the trend of
		// the window (Theil-Sen), always for a count; for a level when it
		// explains much of the spread and carries it several spreads
		// over weeks (over hours, a "trend" is part of a daily cycle). A
		// share does not: a slow decay of conformance is what should be
		// caught.
		slope := theilSen(window)
		shifted := make([]float64, len(window))
		for i, p := range window {
			shifted[i] = p.Value + slope*days(t.Sub(p.At))
		}
		c := median(shifted)
		sp := madToSD * mad(shifted, c)
		if isFinite(slope, c, sp) && (scale == Count || (sp < trendGain*b.Spread && math.Abs(slope)*span > trendDrift*sp)) {
			b.Center, b.Spread, b.Trend = c, sp, slope
		}
	}
	if scale != Share && len(window) >= 2*WarmUp {
		// A series that wanders (a random walk, the weather, a smooth
		// curve) stays near where it just was: its deviations from the
		// median (or trend) persist from one value to the next. Then the
		// last value says much about the next one, and the spread of the
		// deviations is the wrong yardstick twice over: too wide for a
		// one-value jump, too narrow for a level that has wandered off.
		// Shares do not follow it, as they do not follow a trend.
		if phi, sp, ok := persistence(window, b.Center, b.Trend, t); ok {
			step := cadence(window)
			last := window[len(window)-1]
			if latest := all[max(0, len(all)-1)]; len(all) > 0 && latest.At.After(last.At) && latest.State == Flagged {
				f.moved = ahead(latest, b.Center, b.Trend, phi, step, t)
			}
			if c := ahead(last, b.Center, b.Trend, phi, step, t); isFinite(c) {
				b.Center, b.Spread, f.persists = c, sp, true
			}
		}
	}
	// The pattern is used when it explains most of the spread, or when the
	// point's weekday sits at a level of its own (a weekend dip is a
	// minority of the values, which a median and MAD overlook).
	learn := recent(all)
	if scale == Count {
		learn = shift(learn, t, b.Trend)
	}
	if c, s, ok := seasonal(learn, since, t); ok {
		s = max(s, floor(c, res, opt))
		if s < seasonalGain*b.Spread || math.Abs(c-b.Center) > seasonalShift*s {
			b.Center, b.Spread, b.Seasonal, b.Trend = c, s, true, 0
			f = forecast{moved: math.NaN()} // the pattern, not the last value, forecasts t
		}
	}
	if !b.Seasonal && scale != Share {
		// (A pattern's spread is that of many forecasts, over weeks.)
		b.Spread *= shortWindow(b.N, widen)
	}
	b.Spread = max(b.Spread, floor(b.Center, res, opt))
	return b, f
}

// forecast is how a baseline was made, beyond what Baseline says.
type forecast struct {
	// persists is set when the baseline follows the series' last trained
	// value (see persistence).
	persists bool
	// moved is the same forecast from the series' last value when that
	// one was flagged (read as a move, not an outlier); NaN otherwise.
	moved float64
}

// persistence is the lag-1 autocorrelation (phi, in [0, 1]) of the
// window's deviations from its baseline (center at t, following slope per
// day), and the spread of the one-step forecasts it makes over the window
// (see ahead), bounded below as the plain baseline's is. ok is false
// unless the deviations are positively autocorrelated beyond chance: the
// lag-1 autocorrelation of n values of white noise is within 2/√n of 0
// 95 times in 100.
func persistence(window []Point, center, slope float64, t time.Time) (phi, spread float64, ok bool) {
	dev := make([]float64, len(window))
	for i, p := range window {
		dev[i] = p.Value + slope*days(t.Sub(p.At)) - center
	}
	// The autocorrelation of the deviations clipped at three robust
	// spreads (a spike the baseline did not flag is one value, not a
	// wander), in units of the clip so that no square overflows.
	clip := 3 * madToSD * mad(dev, 0)
	if !(clip > 0) || !isFinite(clip) || !isFinite(dev...) {
		return 0, 0, false
	}
	unit := func(d float64) float64 { return min(max(d/clip, -1), 1) }
	var num, den float64
	for i, d := range dev {
		den += unit(d) * unit(d)
		if i > 0 {
			num += unit(d) * unit(dev[i-1])
		}
	}
	if den == 0 || num/den <= 2/math.Sqrt(float64(len(dev))) {
		return 0, 0, false
	}
	// The estimate from n values is biased low by about (1+3φ)/n
	// (Kendall): corrected, a series that wanders is not pulled back to
	// its window's median faster than it goes.
	phi = num / den
	phi = min(phi+(1+3*phi)/float64(len(dev)), 1)
	errs := make([]float64, len(dev)-1)
	for i := 1; i < len(dev); i++ {
		errs[i-1] = dev[i] - phi*dev[i-1]
	}
	// As for the plain baseline, at least sdShare of the errors' standard
	// deviation (from zero: the forecasts' own): the values are trained
	// ones, and a MAD overlooks a minority of large steps.
	spread = max(errorSpread(errs), sdShare*rms(errs))
	if !isFinite(spread) {
		return 0, 0, false
	}
	return phi, spread, true
}

// ahead is the AR(1) forecast at t from the point p: the baseline (center
// at t, following slope per day) plus p's deviation from it, times phi
// once per cadence (step) between p and t.
func ahead(p Point, center, slope, phi float64, step time.Duration, t time.Time) float64 {
	steps := 1.0
	if step > 0 {
		steps = max(1, math.Round(float64(t.Sub(p.At))/float64(step)))
	}
	return center + math.Pow(phi, steps)*(p.Value+slope*days(t.Sub(p.At))-center)
}

// shift moves each value along a trend (per day) to where it would be at
// t, so that a growing table's weekly pattern is learnt from its shape,
// not its growth.
func shift(points []Point, t time.Time, slope float64) []Point {
	if slope == 0 {
		return points
	}
	out := slices.Clone(points)
	for i := range out {
		out[i].Value += slope * days(t.Sub(out[i].At))
	}
	return out
}

// seasonal is the weekly pattern's (or, for a series scanned more than
// four times a day, the daily pattern's) expected value at t and its
// spread: the median of the last four values at the same phase, and the
// spread of such forecasts over the points (see phasePattern). ok is false
// when the series spans less than two periods, is scanned less than twice
// a period, or t's phase has fewer than two values. since is when the
// series moved to a new level (zero for none).
func seasonal(points []Point, since, t time.Time) (center, spread float64, ok bool) {
	if len(points) < WarmUp {
		return 0, 0, false
	}
	step := cadence(points)
	if step <= 0 {
		return 0, 0, false
	}
	best := math.Inf(1)
	for _, period := range []time.Duration{week, day} {
		if period == day && step > 6*time.Hour {
			continue
		}
		c, s, found := phasePattern(points, since, t, period, step)
		if found && s < best {
			center, spread, best, ok = c, s, s, true
		}
	}
	return center, spread, ok
}

// phasePattern looks for a pattern of period in points, in slots: as many
// a period as scans (period/step, rounded, so that scans a few seconds late
// still fall in their weekday), at least two. There is a pattern when
// values a period apart differ much less than consecutive values do (a
// weekend dip makes Friday to Saturday a big step and Saturday to Saturday
// a small one; noise moves both alike, and a new level since since is
// taken out first: see levelChange). The center is the median of the last
// four values at t's phase; the spread, that of such forecasts over the
// points (errorSpread).
func phasePattern(points []Point, since, t time.Time, period, step time.Duration) (center, spread float64, ok bool) {
	n := int64(math.Round(float64(period) / float64(step)))
	if n < 2 || t.Sub(points[0].At) < seasonalPeriods*period-step/2 {
		return 0, 0, false
	}
	width := period / time.Duration(n)
	slotOf := func(p Point) int64 {
		phase := t.Sub(p.At) % period
		if phase < 0 {
			phase += period
		}
		return int64(math.Round(float64(phase)/float64(width))) % n
	}
	if d := levelChange(points, since, slotOf); d != 0 {
		// The values before the new level are moved by its change: a
		// level shift moves the whole pattern, and left as it is, it
		// would make values a period apart differ at every phase.
		points = slices.Clone(points)
		for i := range points {
			if points[i].At.Before(since) {
				points[i].Value += d
			}
		}
	}
	slots := map[int64][]Point{}
	for _, p := range points {
		slots[slotOf(p)] = append(slots[slotOf(p)], p)
	}
	here := slots[0]
	if len(here) < 2 {
		return 0, 0, false
	}
	var apart, next []float64
	for _, ps := range slots {
		for i := 1; i < len(ps); i++ {
			apart = append(apart, math.Abs(ps[i].Value-ps[i-1].Value))
		}
	}
	for i := 1; i < len(points); i++ {
		next = append(next, math.Abs(points[i].Value-points[i-1].Value))
	}
	if len(apart) < WarmUp {
		return 0, 0, false
	}
	// Means, not medians: a weekend is two days in seven, which a median
	// of the consecutive steps overlooks.
	meanApart, _ := meanSD(apart)
	meanNext, _ := meanSD(next)
	if !(meanApart < seasonalGain*meanNext) {
		return 0, 0, false
	}
	// The spread is that of the pattern's own forecasts: each value
	// against the median of the (up to four) values before it at its
	// phase, as t's value is judged; measured from zero, not from the
	// errors' median, since the center is not corrected for their bias
	// (the last four values of a phase lag a drifting series).
	var errs []float64
	for _, ps := range slots {
		for i := 1; i < len(ps); i++ {
			errs = append(errs, ps[i].Value-median(values(ps[max(0, i-4):i])))
		}
	}
	// The median of the last four values at the phase, flagged ones
	// included: one past incident among them does not move it, and a
	// phase's new level is its center after three periods. (Leaving the
	// flagged values out pins the phase to the trained ones, however old
	// or spoilt by an incident that was missed, and flags it every period
	// after.)
	return median(values(here[max(0, len(here)-4):])), errorSpread(errs), true
}

// errorSpread is the standard deviation of forecast errors, robustly:
// 1.4826 MAD from zero, or 1.2533 times the mean absolute error when that
// is more (both are the standard deviation of normal errors; the MAD of
// values recorded to a coarse resolution is 0 when most errors are, which
// the mean is not).
func errorSpread(errs []float64) float64 {
	var sum float64
	for _, e := range errs {
		sum += math.Abs(e)
	}
	return max(madToSD*mad(errs, 0), meanAbsToSD*sum/float64(len(errs)))
}

// levelChange is how far the series moved at since (0 when since is
// zero): the median, over the phases (slotOf) seen on both sides of it,
// of the first value from since on minus the last value before it, which
// a pattern does not move.
func levelChange(points []Point, since time.Time, slotOf func(Point) int64) float64 {
	if since.IsZero() {
		return 0
	}
	before, after := map[int64]float64{}, map[int64]float64{}
	for _, p := range points {
		slot := slotOf(p)
		if p.At.Before(since) {
			before[slot] = p.Value
		} else if _, ok := after[slot]; !ok {
			after[slot] = p.Value
		}
	}
	var steps []float64
	for slot, v := range after {
		if b, ok := before[slot]; ok {
			steps = append(steps, v-b)
		}
	}
	if d := median(steps); len(steps) > 0 && isFinite(d) {
		return d
	}
	return 0
}

// cadence is the median time between consecutive points.
func cadence(points []Point) time.Duration {
	if len(points) < 2 {
		return 0
	}
	gaps := make([]float64, len(points)-1)
	for i := 1; i < len(points); i++ {
		gaps[i-1] = float64(points[i].At.Sub(points[i-1].At))
	}
	return time.Duration(median(gaps))
}

// floor is the least spread a baseline has, so that a flat series does not
// alert on noise: for a share, 0.2 percentage points, or its sampling
// noise over opt.Rows rows when that is more (sqrt(p(1-p)/rows): a null
// rate over a few hundred rows moves by whole rows); for a count, 0.5% of
// it, its Poisson noise (sqrt of it) when more, and at least 1; for a
// level, half the resolution its values are recorded at (res, the least
// step between two of the window's values: a value recorded to 0.1 is
// uncertain by 0.05), or 1% of it when the window never moved (res 0:
// nothing is known of its noise). A share of a level's value is no bound
// on its noise: the zero of a temperature or a pressure is arbitrary, and
// 1% of an air pressure is a hundred times its noise.
func floor(center, res float64, opt Options) float64 {
	switch opt.Scale {
	case Share:
		f := 0.002
		if p := min(max(center, 0), 1); opt.Rows > 0 {
			f = max(f, math.Sqrt(p*(1-p)/float64(opt.Rows)))
		}
		return f
	case Count:
		return max(1, 0.005*math.Abs(center), math.Sqrt(math.Abs(center)))
	}
	if res == 0 {
		return max(1e-9, 0.01*math.Abs(center))
	}
	return max(1e-9, res/2)
}

// resolution is the least positive difference between two of vals; 0
// when they are all equal.
func resolution(vals []float64) float64 {
	s := slices.Sorted(slices.Values(vals))
	res := 0.0
	for i := 1; i < len(s); i++ {
		if d := s[i] - s[i-1]; d > 0 && (res == 0 || d < res) {
			res = d
		}
	}
	return res
}

// clampBand keeps the band within what the scale allows.
func clampBand(lo, hi float64, scale Scale) (float64, float64) {
	switch scale {
	case Share:
		return min(max(lo, 0), 1), min(max(hi, 0), 1)
	case Count:
		return max(0, lo), max(0, hi)
	}
	return lo, hi
}

// theilSen is the median of the slopes (per day) between every pair of
// points at different times.
func theilSen(points []Point) float64 {
	var slopes []float64
	for i := range points {
		for j := i + 1; j < len(points); j++ {
			if dt := days(points[j].At.Sub(points[i].At)); dt > 0 {
				slopes = append(slopes, (points[j].Value-points[i].Value)/dt)
			}
		}
	}
	if len(slopes) == 0 {
		return 0
	}
	return median(slopes)
}

func days(d time.Duration) float64 { return d.Hours() / 24 }

func values(points []Point) []float64 {
	out := make([]float64, len(points))
	for i, p := range points {
		out[i] = p.Value
	}
	return out
}

// median of vs (not changed); NaN for none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// medianWithout is the median of sorted (ascending) without its element at
// index r, in constant time.
func medianWithout(sorted []float64, r int) float64 {
	at := func(k int) float64 { // the k-th of the others
		if k >= r {
			k++
		}
		return sorted[k]
	}
	n := len(sorted) - 1
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}

// mad is the median absolute deviation of vs from m.
func mad(vs []float64, m float64) float64 {
	d := make([]float64, len(vs))
	for i, v := range vs {
		d[i] = math.Abs(v - m)
	}
	return median(d)
}

// meanSD is the mean and the sample standard deviation of vs (summed in
// units of the largest deviation, so that squares of huge values do not
// overflow).
func meanSD(vs []float64) (mean, sd float64) {
	for _, v := range vs {
		mean += v / float64(len(vs))
	}
	if len(vs) < 2 {
		return mean, 0
	}
	dev := make([]float64, len(vs))
	for i, v := range vs {
		dev[i] = v - mean
	}
	return mean, rms(dev) * math.Sqrt(float64(len(vs))/float64(len(vs)-1))
}

// rms is the root mean square of vs, in units of the largest of them.
func rms(vs []float64) float64 {
	top := 0.0
	for _, v := range vs {
		top = max(top, math.Abs(v))
	}
	if top == 0 || math.IsInf(top, 0) || math.IsNaN(top) {
		return top
	}
	var ss float64
	for _, v := range vs {
		ss += (v / top) * (v / top)
	}
	return top * math.Sqrt(ss/float64(len(vs)))
}

// isFinite reports whether every one of vs is a finite number.
func isFinite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
