package profile

import (
	"sync"
	"testing"

	"github.com/dqs/dqs/columnar"
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
// batches of rows held column by column (AddColumn), then the rows' hashes
// (AddRows), on one goroutine.
func BenchmarkAddColumns(b *testing.B) {
	tb := benchTable()
	batches := tb.batches(columnar.MaxRows)
	hashes := make([][]uint64, len(benchColumns))
	for i := range hashes {
		hashes[i] = make([]uint64, columnar.MaxRows)
	}
	b.SetBytes(tb.bytes)
	b.ReportAllocs()
	for b.Loop() {
		p := New(benchColumns, Options{Seed: 1})
		for _, bt := range batches {
			for i := range benchColumns {
				p.AddColumn(i, &bt.Cols[i], hashes[i])
			}
			p.AddRows(bt.Rows, hashes)
		}
		_ = p.Result()
	}
	b.ReportMetric(float64(len(tb.rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkAddRows measures chaining the cell hashes of a batch of 14
// columns into row hashes and counting duplicates (per row).
func BenchmarkAddRows(b *testing.B) {
	const rows = columnar.MaxRows
	hashes := make([][]uint64, len(benchColumns))
	seed := uint64(1)
	for i := range hashes {
		hashes[i] = make([]uint64, rows)
		for r := range hashes[i] {
			seed = mix(seed + 1)
			hashes[i][r] = seed
		}
	}
	p := New(benchColumns, Options{Seed: 1})
	b.ReportAllocs()
	for b.Loop() {
		p.AddRows(rows, hashes)
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
