package lineage

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
)

var (
	benchOnce  sync.Once
	benchStore *MemStore
	benchIDs   []string
	benchErr   error
)

// benchGraph is the graph of cmd/dqs-lineagebench: 100,000 nodes, 300,000
// edges, 25 layers, seed 1.
func benchGraph(b *testing.B) (*MemStore, []string) {
	benchOnce.Do(func() {
		benchStore, benchIDs, benchErr = Synthesize(SynthConfig{Org: "bench", Nodes: 100_000, Edges: 300_000, Layers: 25, Seed: 1})
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchStore, benchIDs
}

// BenchmarkNeighbourhood times depth-5 neighbourhoods of random nodes of
// the 100,000-node graph, with the default limits.
func BenchmarkNeighbourhood(b *testing.B) {
	s, ids := benchGraph(b)
	ctx := context.Background()
	for _, dir := range []Direction{DirBoth, DirDownstream, DirUpstream} {
		b.Run(string(dir), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(7, 7))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Neighbourhood(ctx, s, "bench", ids[rng.IntN(len(ids))], dir, 5); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCheckEdge times the cycle check of random edges of the same graph.
func BenchmarkCheckEdge(b *testing.B) {
	s, ids := benchGraph(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(8, 8))
	b.ReportAllocs()
	for b.Loop() {
		_ = CheckEdge(ctx, s, "bench", ids[rng.IntN(len(ids))], ids[rng.IntN(len(ids))])
	}
}
