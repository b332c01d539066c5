package columnar

import (
	"math"
	"math/rand"
	"strconv"
	"testing"
)

// AppendFloat64 must write every float64 exactly as strconv's shortest
// 'g' does, whichever path it takes.
func TestAppendFloat64MatchesStrconv(t *testing.T) {
	check := func(v float64) {
		t.Helper()
		got := AppendFloat64(nil, v)
		if want := strconv.FormatFloat(v, 'g', -1, 64); string(got) != want {
			t.Fatalf("AppendFloat64(%b) = %q, want %q", v, got, want)
		}
	}
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 0.2, 0.3, 1e-4, 1e-5, 9.999e-5, 0.0001234,
		999999, 999999.5, 999999.9999999999, 1e6, 1e6 - 1e-10, 123456.789, 31260.06, 1.5e300, 5e-324,
		math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 1 << 50, 1<<53 + 1, 0.1 + 0.2, 100, 1200, 1e5} {
		check(v)
		check(-v)
		check(math.Nextafter(v, math.Inf(1)))
		check(math.Nextafter(v, math.Inf(-1)))
	}
	rng := rand.New(rand.NewSource(7))
	for i := 0; i < 500_000; i++ {
		var v float64
		switch i % 5 {
		case 0: // decimals as written by people: few digits, a few places
			places := rng.Intn(10)
			v = float64(rng.Int63n(int64(pow10u[rng.Intn(12)]))) / pow10f[places]
		case 1: // any magnitude in the range written without an exponent
			v = math.Pow(10, rng.Float64()*12-6) * rng.Float64()
		case 2: // any bits
			v = math.Float64frombits(rng.Uint64())
		case 3: // neighbours of short decimals
			v = float64(rng.Int63n(1e8)) / 100
			for range rng.Intn(3) {
				v = math.Nextafter(v, math.Inf(1))
			}
		default: // results of arithmetic
			v = float64(rng.Int63n(1e6)) * 0.01 * float64(rng.Intn(7)+1) / 3
		}
		if rng.Intn(2) == 0 {
			v = -v
		}
		check(v)
	}
}

func BenchmarkAppendFloat64(b *testing.B) {
	vals := make([]float64, 1024)
	rng := rand.New(rand.NewSource(1))
	for i := range vals {
		vals[i] = float64(rng.Int63n(10_000_000)) / 100
	}
	var buf []byte
	for i := 0; i < b.N; i++ {
		buf = AppendFloat64(buf[:0], vals[i%len(vals)])
	}
}
