package profile

import (
	"sync"
	"testing"
)

var benchTable = sync.OnceValue(func() table { return genTable(200_000, 1) })

// BenchmarkProfile profiles 200,000 generated rows × 14 mixed columns per
// iteration (the throughput counts the bytes of the non-null values).
func BenchmarkProfile(b *testing.B) {
	tb := benchTable()
	b.SetBytes(tb.bytes)
	b.ReportAllocs()
	for b.Loop() {
		p := New(benchColumns, Options{Seed: 1})
		for i := range tb.rows {
			p.Add(tb.rows[i], tb.nulls[i])
		}
		_ = p.Result()
	}
	b.ReportMetric(float64(len(tb.rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkAdd measures one row in steady state (allocs/op should be 0).
func BenchmarkAdd(b *testing.B) {
	tb := benchTable()
	p := New(benchColumns, Options{Seed: 1})
	for i := range tb.rows {
		p.Add(tb.rows[i], tb.nulls[i])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.Add(tb.rows[i], tb.nulls[i])
		if i++; i == len(tb.rows) {
			i = 0
		}
	}
}

// BenchmarkProfileBatches profiles the same rows the way the engine does:
// a Profiler per batch of 32,768 rows, merged in order into the total.
func BenchmarkProfileBatches(b *testing.B) {
	tb := benchTable()
	const batch = 32 << 10
	b.SetBytes(tb.bytes)
	b.ReportAllocs()
	for b.Loop() {
		total := New(benchColumns, Options{})
		for lo := 0; lo < len(tb.rows); lo += batch {
			p := New(benchColumns, Options{Seed: int64(lo)})
			for i := lo; i < min(lo+batch, len(tb.rows)); i++ {
				p.Add(tb.rows[i], tb.nulls[i])
			}
			if err := total.Merge(p); err != nil {
				b.Fatal(err)
			}
		}
		_ = total.Result()
	}
	b.ReportMetric(float64(len(tb.rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
