package lineage

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"
)

// SynthConfig describes a synthetic layered DAG (Synthesize), for tests
// and benchmarks.
type SynthConfig struct {
	Org    string
	Nodes  int
	Edges  int
	Layers int // at least 2
	Seed   uint64
}

// Synthesize builds a seeded random layered DAG in a new MemStore and
// returns it with its node ids (layer by layer). Layer 0 holds sources,
// layer 1 tables, the last layer reports, the others a mix of tables,
// files and pipelines. Each edge goes into a node of a later layer chosen
// uniformly (fan-in about Edges/Nodes), from the previous layer 70% of the
// time and otherwise from one of the four before it; the source is drawn
// with a cubed uniform, so a few nodes of each layer have a fan-out of
// hundreds (hubs, like a source with many tables) and most a handful.
// Duplicate pairs are redrawn, so the graph has exactly Edges edges
// (Edges must leave room for that).
func Synthesize(cfg SynthConfig) (*MemStore, []string, error) {
	if cfg.Layers < 2 || cfg.Nodes < 2*cfg.Layers || cfg.Edges < 0 {
		return nil, nil, fmt.Errorf("lineage: bad synthetic graph %+v", cfg)
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15))
	s := NewMemStore()
	ids := make([]string, cfg.Nodes)
	layerOf := make([]int, cfg.Nodes)
	per := cfg.Nodes / cfg.Layers
	start := make([]int, cfg.Layers+1) // layer l is [start[l], start[l+1])
	for l := 0; l <= cfg.Layers; l++ {
		start[l] = min(l*per, cfg.Nodes)
	}
	start[cfg.Layers] = cfg.Nodes
	mixed := []NodeType{TypeTable, TypeFile, TypePipeline}
	for l := 0; l < cfg.Layers; l++ {
		for i := start[l]; i < start[l+1]; i++ {
			var t NodeType
			switch {
			case l == 0:
				t = TypeSource
			case l == 1:
				t = TypeTable
			case l == cfg.Layers-1:
				t = TypeReport
			default:
				t = mixed[rng.IntN(len(mixed))]
			}
			ids[i] = synthID(rng)
			layerOf[i] = l
			if err := s.PutNode(cfg.Org, Node{ID: ids[i], Type: t, Name: fmt.Sprintf("%s_%d", t, i), RefID: synthID(rng)}); err != nil {
				return nil, nil, err
			}
		}
	}
	seen := make(map[uint64]struct{}, cfg.Edges)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for n, tries := 0, 0; n < cfg.Edges; tries++ {
		if tries > 20*cfg.Edges+1000 {
			return nil, nil, fmt.Errorf("lineage: synthetic graph too dense for %d edges", cfg.Edges)
		}
		t := start[1] + rng.IntN(cfg.Nodes-start[1])
		lt := layerOf[t]
		ls := lt - 1
		if lt > 1 && rng.IntN(10) >= 7 {
			ls = max(0, lt-2-rng.IntN(4))
		}
		u := rng.Float64()
		size := start[ls+1] - start[ls]
		src := start[ls] + int(u*u*u*float64(size))
		key := uint64(src)<<32 | uint64(t)
		if _, dup := seen[key]; dup {
			continue
		}
		seen[key] = struct{}{}
		e := Edge{ID: synthID(rng), Source: ids[src], Target: ids[t], CreatedAt: base.Add(time.Duration(n) * time.Second)}
		if err := s.PutEdge(cfg.Org, e); err != nil {
			return nil, nil, err
		}
		n++
	}
	return s, ids, nil
}

// synthID draws a version-4 UUID from rng, so that a seed gives the same
// graph every time.
func synthID(rng *rand.Rand) string {
	var u uuid.UUID
	a, b := rng.Uint64(), rng.Uint64()
	for i := 0; i < 8; i++ {
		u[i], u[8+i] = byte(a>>(8*i)), byte(b>>(8*i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}
