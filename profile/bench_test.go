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

// BenchmarkAddColumns profiles the same rows the way the engine does:
// batches of 32,768 rows, column by column (AddColumn), then the rows'
// hashes (AddRows), on one goroutine.
func BenchmarkAddColumns(b *testing.B) {
	tb := benchTable()
	const batch = 32 << 10
	hashes := make([][]uint64, len(benchColumns))
	for i := range hashes {
		hashes[i] = make([]uint64, batch)
	}
	b.SetBytes(tb.bytes)
	b.ReportAllocs()
	for b.Loop() {
		p := New(benchColumns, Options{Seed: 1})
		for lo := 0; lo < len(tb.rows); lo += batch {
			n := min(batch, len(tb.rows)-lo)
			for i := range benchColumns {
				p.AddColumn(i, n, func(r int) (string, bool) { return tb.rows[lo+r][i], tb.nulls[lo+r][i] }, hashes[i])
			}
			p.AddRows(n, hashes)
		}
		_ = p.Result()
	}
	b.ReportMetric(float64(len(tb.rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
