package standardize

import (
	"sync"
	"testing"
)

var bench1M = sync.OnceValue(func() []ValueCount {
	return newGen(1).column(1_000_000, 200_000, 150_000)
})

// BenchmarkCluster1M clusters one million distinct values (cities with
// typos and case, whitespace and accent variants, companies, e-mails). The
// target is under 5 s on one core: run with GOMAXPROCS=1.
func BenchmarkCluster1M(b *testing.B) {
	values := bench1M()
	b.ReportAllocs()
	b.ResetTimer()
	var st Stats
	for b.Loop() {
		_, st = Cluster(values, Options{})
	}
	b.ReportMetric(float64(len(values))*float64(b.N)/b.Elapsed().Seconds(), "values/s")
	b.ReportMetric(float64(st.Mappings), "mappings")
	b.ReportMetric(float64(st.Comparisons), "comparisons")
	b.ReportMetric(float64(st.SkippedBlocks), "skipped-blocks")
	b.Logf("%+v", st)
}
