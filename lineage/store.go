package lineage

import (
	"context"
	"fmt"
)

// Store is what the engine needs of the storage: two look-ups by id, both
// scoped to one organisation. A SQL implementation answers each call with
// one query and an IN list (the engine never passes more than
// Limits.Batch ids), on indexes (org, source_node_id) and
// (org, target_node_id) for Neighbours and the primary key for Nodes.
type Store interface {
	// Neighbours returns the edges of organisation orgID whose Source is
	// in ids (DirDownstream), whose Target is in ids (DirUpstream), or
	// either (DirBoth); each edge at most once, in any order. Ids that are
	// unknown or another organisation's contribute nothing.
	Neighbours(ctx context.Context, orgID string, ids []string, dir Direction) ([]Edge, error)
	// Nodes returns the nodes of organisation orgID among ids, in any
	// order; unknown ids and other organisations' nodes are left out.
	Nodes(ctx context.Context, orgID string, ids []string) ([]Node, error)
}

// Limits bound the engine's work. A zero field takes its default.
type Limits struct {
	// Batch is the most ids passed to one Store call (the IN list).
	// Default 500.
	Batch int
	// MaxVisited bounds the nodes a cycle check (CheckEdge) may reach,
	// both searches together; beyond it the edge is refused with a
	// limit_exceeded error rather than risk a cycle. Default 250,000.
	MaxVisited int
	// MaxNodes bounds the nodes of one neighbourhood. A level that would
	// take it above the bound is not shown: the neighbourhood stops at the
	// last complete level (Subgraph.Truncated, Subgraph.Depth) and its
	// frontier carries hidden-neighbour counts, so the client expands from
	// there. Default 5,000 (more than a graph view can show legibly).
	MaxNodes int
	// MaxEdges bounds the edges one neighbourhood reads from the store
	// (the answers of all its levels, including the frontier's edges read
	// for its hidden counts): the level whose answer would go above it is
	// not shown (see Engine.Neighbourhood). Default 50,000.
	MaxEdges int
}

// Defaults of Limits.
const (
	DefaultBatch      = 500
	DefaultMaxVisited = 250_000
	DefaultMaxNodes   = 5_000
	DefaultMaxEdges   = 50_000
)

func (l Limits) withDefaults() Limits {
	if l.Batch <= 0 {
		l.Batch = DefaultBatch
	}
	if l.MaxVisited <= 0 {
		l.MaxVisited = DefaultMaxVisited
	}
	if l.MaxNodes <= 0 {
		l.MaxNodes = DefaultMaxNodes
	}
	if l.MaxEdges <= 0 {
		l.MaxEdges = DefaultMaxEdges
	}
	return l
}

// Engine runs the walks against a Store with its Limits. The package-level
// functions use an Engine with the default limits.
type Engine struct {
	Store  Store
	Limits Limits
}

// eachNeighbours calls Store.Neighbours once per batch of ids and passes
// each answer to fn. With DirBoth an edge between ids of two batches comes
// back twice: callers dedupe.
// fn returns false to stop (no more calls).
func (e *Engine) eachNeighbours(ctx context.Context, orgID string, ids []string, dir Direction, fn func([]Edge) bool) error {
	batch := e.Limits.withDefaults().Batch
	for start := 0; start < len(ids); start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		es, err := e.Store.Neighbours(ctx, orgID, ids[start:min(start+batch, len(ids))], dir)
		if err != nil {
			return fmt.Errorf("lineage: neighbours: %w", err)
		}
		if !fn(es) {
			return nil
		}
	}
	return nil
}

// eachNodes calls Store.Nodes once per batch of ids and passes each answer
// to fn.
func (e *Engine) eachNodes(ctx context.Context, orgID string, ids []string, fn func([]Node)) error {
	batch := e.Limits.withDefaults().Batch
	for start := 0; start < len(ids); start += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		ns, err := e.Store.Nodes(ctx, orgID, ids[start:min(start+batch, len(ids))])
		if err != nil {
			return fmt.Errorf("lineage: nodes: %w", err)
		}
		fn(ns)
	}
	return nil
}

// nodes looks ids up (eachNodes) and indexes the answer.
func (e *Engine) nodes(ctx context.Context, orgID string, ids []string) (map[string]Node, error) {
	out := make(map[string]Node, len(ids))
	err := e.eachNodes(ctx, orgID, ids, func(ns []Node) {
		for _, n := range ns {
			out[n.ID] = n
		}
	})
	return out, err
}
