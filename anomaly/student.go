package anomaly

import (
	"math"
	"sync"
)

// fullWindow is the least number of values whose spread the thresholds
// take at its word: as many as a new level needs to have its own noise
// (see Evaluate).
const fullWindow = Window

// shortWindow is how much wider the band of a baseline learnt from n
// values is than that of one learnt from fullWindow values, at threshold
// k: the prediction interval of a new value from n values is Student's t
// with n-1 degrees of freedom times √(1+1/n), at the tail probability a
// threshold of k spreads has for normal noise, and a spread estimated
// from few values may be far too small. 1 for n of fullWindow or more.
func shortWindow(n int, k float64) float64 {
	if n >= fullWindow || n < 2 || k <= 0 {
		return 1
	}
	key := shortKey{n, k}
	if f, ok := shortCache.Load(key); ok {
		return f.(float64)
	}
	tail := 0.5 * math.Erfc(k/math.Sqrt2) // one-sided, normal
	f := studentQuantile(tail, float64(n-1)) * math.Sqrt(1+1/float64(n)) /
		(studentQuantile(tail, fullWindow-1) * math.Sqrt(1+1.0/fullWindow))
	f = max(f, 1)
	shortCache.Store(key, f)
	return f
}

type shortKey struct {
	n int
	k float64
}

var shortCache sync.Map

// studentQuantile is the t such that a Student's t variable with df
// degrees of freedom exceeds it with probability tail (bisection on its
// survival function, to a relative 1e-9).
func studentQuantile(tail, df float64) float64 {
	lo, hi := 0.0, 1.0
	for studentTail(hi, df) > tail {
		lo, hi = hi, 2*hi
		if hi > 1e12 {
			return hi
		}
	}
	for hi-lo > 1e-9*hi {
		mid := (lo + hi) / 2
		if studentTail(mid, df) > tail {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentTail is P(T > t) for t >= 0: half the regularized incomplete
// beta function I_x(df/2, 1/2) at x = df/(df+t²).
func studentTail(t, df float64) float64 {
	return 0.5 * incompleteBeta(df/(df+t*t), df/2, 0.5)
}

// incompleteBeta is the regularized incomplete beta function I_x(a, b),
// by its continued fraction (modified Lentz), on the side where it
// converges fast.
func incompleteBeta(x, a, b float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(x, a, b) / a
	}
	return 1 - front*betaFraction(1-x, b, a)/b
}

func betaFraction(x, a, b float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-14 {
			break
		}
	}
	return h
}
