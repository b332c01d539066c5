package lineage

import (
	"context"
	"slices"

	"github.com/dqs/dqs/errs"
)

// Reached is a node of a blast radius: Depth is the length of the shortest
// path to it from one of the starting nodes.
type Reached struct {
	Node
	Depth int `json:"depth"`
}

// BlastRadius is what lies downstream of some nodes: ordered by depth then
// id; Truncated when more nodes are reachable than the limit allowed.
type BlastRadius struct {
	Nodes     []Reached `json:"nodes"`
	Truncated bool      `json:"truncated"`
}

// Limits of Downstream.
const (
	DefaultDownstreamLimit = 1000
	MaxDownstreamLimit     = 100_000
)

// Downstream returns the blast radius of nodes with the default limits; see
// Engine.Downstream.
func Downstream(ctx context.Context, s Store, orgID string, nodes []string, limit int) (*BlastRadius, error) {
	return (&Engine{Store: s}).Downstream(ctx, orgID, nodes, limit)
}

// Downstream returns the blast radius of nodes (an anomaly's or a contract
// violation's): every node reachable from one of them by a path of at least
// one edge, a starting node included if another one reaches it. At most
// limit nodes are returned, the nearest first (by depth, then id), with
// Truncated set if there are more; limit ≤ 0 is DefaultDownstreamLimit, a
// limit above MaxDownstreamLimit is lowered to it. An unknown starting node
// (or another organisation's) is a 404. No starting node, no blast radius.
func (e *Engine) Downstream(ctx context.Context, orgID string, nodes []string, limit int) (*BlastRadius, error) {
	if limit <= 0 {
		limit = DefaultDownstreamLimit
	}
	limit = min(limit, MaxDownstreamLimit)
	starts := make([]string, 0, len(nodes))
	expanded := map[string]struct{}{}
	for _, id := range nodes {
		id, err := ParseID("node", id)
		if err != nil {
			return nil, err
		}
		if _, dup := expanded[id]; !dup {
			expanded[id] = struct{}{}
			starts = append(starts, id)
		}
	}
	br := &BlastRadius{Nodes: []Reached{}}
	if len(starts) == 0 {
		return br, nil
	}
	found, err := e.nodes(ctx, orgID, starts)
	if err != nil {
		return nil, err
	}
	for _, id := range starts {
		if _, ok := found[id]; !ok {
			return nil, errs.NotFound("lineage node")
		}
	}

	dist := map[string]int{}
	var order []string
	frontier := starts
	for level := 1; len(frontier) > 0; level++ {
		var fresh []string
		err := e.eachNeighbours(ctx, orgID, frontier, DirDownstream, func(es []Edge) bool {
			for _, ed := range es {
				if _, from := expanded[ed.Source]; !from {
					continue
				}
				if _, ok := dist[ed.Target]; ok {
					continue
				}
				dist[ed.Target] = level
				fresh = append(fresh, ed.Target)
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(fresh)
		if room := limit - len(order); len(fresh) > room {
			for _, id := range fresh[room:] {
				delete(dist, id)
			}
			fresh = fresh[:room]
			br.Truncated = true
		}
		order = append(order, fresh...)
		if br.Truncated {
			break
		}
		frontier = frontier[:0:0]
		for _, id := range fresh {
			if _, done := expanded[id]; !done {
				expanded[id] = struct{}{}
				frontier = append(frontier, id)
			}
		}
	}

	rest := make([]string, 0, len(order))
	for _, id := range order {
		if _, ok := found[id]; !ok {
			rest = append(rest, id)
		}
	}
	more, err := e.nodes(ctx, orgID, rest)
	if err != nil {
		return nil, err
	}
	br.Nodes = make([]Reached, 0, len(order))
	for _, id := range order {
		n, ok := found[id]
		if !ok {
			if n, ok = more[id]; !ok {
				continue
			}
		}
		br.Nodes = append(br.Nodes, Reached{Node: n, Depth: dist[id]})
	}
	return br, nil
}
