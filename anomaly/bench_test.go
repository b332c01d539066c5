package anomaly

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkReplay replays a year of six-hourly scans of a noisy series
// (1,460 judgements), the cost of `dqs anomalies` per point.
func BenchmarkReplay(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	series := make([]Point, 1460)
	for i := range series {
		series[i] = Point{At: day0.Add(time.Duration(i) * 6 * time.Hour), Value: 100 + r.NormFloat64()}
	}
	b.ResetTimer()
	for range b.N {
		Replay(series, Options{Scale: Level})
	}
}
