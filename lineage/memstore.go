package lineage

import (
	"context"
	"sync"
	"time"

	"github.com/dqs/dqs/errs"
)

// MemStore is an in-memory Store with indexed adjacency (out- and in-lists
// per node), for tests and benchmarks. It is safe for concurrent use.
type MemStore struct {
	mu   sync.RWMutex
	orgs map[string]*memOrg
	// wmu serialises AddEdge: the check and the insert of one edge happen
	// with no other edge added in between (see Engine.CheckEdge).
	wmu sync.Mutex
}

type memOrg struct {
	nodes map[string]Node
	edges []Edge
	out   map[string][]int32 // node id → indexes in edges of its out-edges
	in    map[string][]int32
}

// NewMemStore returns an empty store.
func NewMemStore() *MemStore { return &MemStore{orgs: map[string]*memOrg{}} }

func (m *MemStore) org(orgID string) *memOrg {
	o := m.orgs[orgID]
	if o == nil {
		o = &memOrg{nodes: map[string]Node{}, out: map[string][]int32{}, in: map[string][]int32{}}
		m.orgs[orgID] = o
	}
	return o
}

// PutNode stores (or replaces) a node of organisation orgID after
// Node.Validate. A node id already used by another organisation is refused.
func (m *MemStore) PutNode(orgID string, n Node) error {
	if err := n.Validate(); err != nil {
		return err
	}
	n.ID, _ = ParseID("id", n.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, o := range m.orgs {
		if _, taken := o.nodes[n.ID]; taken && id != orgID {
			return errs.Conflict("node id already in use")
		}
	}
	m.org(orgID).nodes[n.ID] = n
	return nil
}

// PutEdge stores an edge as it is, with no check but that both ends are
// nodes of orgID (404 otherwise): for loading graphs that are known to be
// valid. Use AddEdge to add an edge a user asked for.
func (m *MemStore) PutEdge(orgID string, e Edge) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := m.org(orgID)
	if _, ok := o.nodes[e.Source]; !ok {
		return errs.NotFound("lineage node")
	}
	if _, ok := o.nodes[e.Target]; !ok {
		return errs.NotFound("lineage node")
	}
	i := int32(len(o.edges))
	o.edges = append(o.edges, e)
	o.out[e.Source] = append(o.out[e.Source], i)
	o.in[e.Target] = append(o.in[e.Target], i)
	return nil
}

// AddEdge checks the edge from → to with eng's limits (CheckEdge) and adds
// it, one AddEdge at a time, so that concurrent additions cannot close a
// cycle together. eng.Store must be m (nil eng: default limits).
func (m *MemStore) AddEdge(ctx context.Context, eng *Engine, orgID, from, to string, now time.Time) (Edge, error) {
	if eng == nil {
		eng = &Engine{Store: m}
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if err := eng.CheckEdge(ctx, orgID, from, to); err != nil {
		return Edge{}, err
	}
	from, _ = ParseID("source_node_id", from)
	to, _ = ParseID("target_node_id", to)
	e := NewEdge(from, to, now)
	return e, m.PutEdge(orgID, e)
}

// Graph returns a copy of organisation orgID's whole graph (for tests; the
// engine never calls it).
func (m *MemStore) Graph(orgID string) Graph {
	m.mu.RLock()
	defer m.mu.RUnlock()
	g := Graph{Nodes: []Node{}, Edges: []Edge{}}
	if o := m.orgs[orgID]; o != nil {
		for _, n := range o.nodes {
			g.Nodes = append(g.Nodes, n)
		}
		g.Edges = append(g.Edges, o.edges...)
	}
	return g
}

// Neighbours implements Store.
func (m *MemStore) Neighbours(ctx context.Context, orgID string, ids []string, dir Direction) ([]Edge, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	o := m.orgs[orgID]
	if o == nil {
		return nil, nil
	}
	n := 0
	for _, id := range ids {
		if dir != DirUpstream {
			n += len(o.out[id])
		}
		if dir != DirDownstream {
			n += len(o.in[id])
		}
	}
	out := make([]Edge, 0, n)
	// With DirBoth an edge between two of ids is both an out-edge and an
	// in-edge: take it as an out-edge only.
	var asked map[string]struct{}
	if dir == DirBoth {
		asked = make(map[string]struct{}, len(ids))
		for _, id := range ids {
			asked[id] = struct{}{}
		}
	}
	for _, id := range ids {
		if dir != DirUpstream {
			for _, i := range o.out[id] {
				out = append(out, o.edges[i])
			}
		}
		if dir != DirDownstream {
			for _, i := range o.in[id] {
				if asked != nil {
					if _, dup := asked[o.edges[i].Source]; dup {
						continue
					}
				}
				out = append(out, o.edges[i])
			}
		}
	}
	return out, nil
}

// Nodes implements Store.
func (m *MemStore) Nodes(ctx context.Context, orgID string, ids []string) ([]Node, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	o := m.orgs[orgID]
	if o == nil {
		return nil, nil
	}
	out := make([]Node, 0, len(ids))
	for _, id := range ids {
		if n, ok := o.nodes[id]; ok {
			out = append(out, n)
		}
	}
	return out, nil
}

// Snapshot returns a store holding g as organisation orgID's graph, built
// at once and without Node.Validate: for a copy of a graph another store
// already holds, which it has checked (the service's in-memory copies of
// large graphs). An edge with an end that is not among g's nodes is left
// out, as a SQL store's walks would never reach it. The store is not
// meant to change afterwards.
func Snapshot(orgID string, g Graph) *MemStore {
	o := &memOrg{
		nodes: make(map[string]Node, len(g.Nodes)),
		edges: make([]Edge, 0, len(g.Edges)),
		out:   make(map[string][]int32, len(g.Nodes)),
		in:    make(map[string][]int32, len(g.Nodes)),
	}
	for _, n := range g.Nodes {
		o.nodes[n.ID] = n
	}
	for _, e := range g.Edges {
		src, okS := o.nodes[e.Source]
		dst, okT := o.nodes[e.Target]
		if !okS || !okT {
			continue
		}
		// The ends share their nodes' id strings: a third less memory
		// than an edge's own copies of them.
		e.Source, e.Target = src.ID, dst.ID
		i := int32(len(o.edges))
		o.edges = append(o.edges, e)
		o.out[e.Source] = append(o.out[e.Source], i)
		o.in[e.Target] = append(o.in[e.Target], i)
	}
	return &MemStore{orgs: map[string]*memOrg{orgID: o}}
}
