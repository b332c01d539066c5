package quality

import (
	"math"
	"strconv"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// outliersMean reports whether an outlier means something in a column of
// this label: in a measure (an amount, an age, a count, a number not
// otherwise known), not in an identifier, a code, a category, a date or a
// postal code, whose far values are just other labels.
func outliersMean(label string) bool {
	switch label {
	case "", classify.LabelNumber, classify.LabelMoney, classify.LabelAge, classify.LabelUnknown:
		return true
	}
	return false
}

// outlierFinding is what the outlier check found in a column.
type outlierFinding struct {
	count     int64
	estimated bool
	examples  []string
	lo, hi    float64
}

// outliers finds the numbers below lo = p01 − 3×IQR or above hi = p99 +
// 3×IQR, ne being the column's non-empty values; ok is false when the rule
// does not apply: no quartiles, or no spread between them (IQR 0), where
// every value off the middle would count. The count is exact, from the
// column's tails, while each tail holds every number beyond its bound;
// otherwise it is estimated from the sample (and at least what the tails
// hold).
func outliers(c *profile.Column, ne int64) (f outlierFinding, ok bool) {
	q := c.Quantiles
	p01, ok1 := q["p01"]
	p25, ok2 := q["p25"]
	p75, ok3 := q["p75"]
	p99, ok4 := q["p99"]
	iqr := p75 - p25
	if !ok1 || !ok2 || !ok3 || !ok4 || !(iqr > 0) {
		return f, false
	}
	f.lo, f.hi = p01-3*iqr, p99+3*iqr
	if math.IsNaN(f.lo) || math.IsNaN(f.hi) || math.IsInf(iqr, 0) {
		return f, false
	}
	below := func(x float64) bool { return x < f.lo }
	above := func(x float64) bool { return x > f.hi }
	if t := c.Tails; t != nil {
		nLow, exactLow := beyond(t.Low, below)
		nHigh, exactHigh := beyond(t.High, above)
		f.count = nLow + nHigh
		if exactLow && exactHigh {
			f.examples = tailExamples(c, t, below, above)
			return f, true
		}
	}
	n, ex := sampleBeyond(c.Sample, f.lo, f.hi)
	count, est := scaled(n, len(c.Sample), ne)
	f.count, f.estimated, f.examples = max(f.count, count), est, ex
	return f, true
}

// beyond counts the numbers of tail (most extreme first) that are far out,
// and says whether that is all of them: the tail is not full, or its last
// number is not far out.
func beyond(tail []profile.TailValue, far func(float64) bool) (n int64, all bool) {
	for _, v := range tail {
		if !far(v.X) {
			return n, true
		}
		n += v.Count
	}
	return n, len(tail) < profile.TailSize
}

// tailExamples are the most extreme far-out numbers, from the top and the
// bottom in turn, written as the column's numbers are (integers without a
// point).
func tailExamples(c *profile.Column, t *profile.Tails, below, above func(float64) bool) []string {
	var ex []string
	for i := 0; i < profile.TailSize && len(ex) < maxExamples; i++ {
		if i < len(t.High) && above(t.High[i].X) {
			ex = addExample(ex, numberText(c, t.High[i].X))
		}
		if i < len(t.Low) && below(t.Low[i].X) {
			ex = addExample(ex, numberText(c, t.Low[i].X))
		}
	}
	return ex
}

func numberText(c *profile.Column, x float64) string {
	if c.InferredType == profile.TypeInteger && x == math.Trunc(x) && math.Abs(x) < 1<<63 {
		return strconv.FormatInt(int64(x), 10)
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// sampleBeyond counts the sampled numbers beyond [lo, hi], with examples.
func sampleBeyond(sample []string, lo, hi float64) (n int, ex []string) {
	for _, v := range sample {
		if !profile.ParsesAs(profile.TypeFloat, v) { // no inf, nan, hex
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			continue
		}
		if f < lo || f > hi {
			n++
			ex = addExample(ex, v)
		}
	}
	return n, ex
}
