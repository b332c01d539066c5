// Package lineagesvc is the service of the lineage graph: the graph and
// neighbourhoods an organisation reads, the edges its users add and
// remove, and the blast radius of a table (what it feeds) for anomalies
// and contract violations. The walks are the engine's (package lineage)
// over the SQL store (models.Lineage); the automatic nodes and edges are
// written by the stores with what they stand for.
package lineagesvc

import (
	"context"
	"errors"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
)

// Bounds of an organisation's whole graph in one answer: a larger graph
// is cut (Graph.Truncated) and read by neighbourhoods.
const (
	MaxGraphNodes = 5_000
	MaxGraphEdges = 20_000
)

// BlastLimit bounds the nodes a blast radius lists (the nearest first).
const BlastLimit = 100

// Service reads and edits the organisations' lineage graphs.
type Service struct {
	Stores *models.Stores
	// Limits bound the engine's walks (zero: the engine's defaults).
	Limits lineage.Limits
}

// engine is the engine for the walks of organisation orgID's graph, on
// the process's in-memory copy of it when that is current
// (models.Lineage.Walker), on SQL otherwise.
func (s *Service) engine(ctx context.Context, orgID string) (*lineage.Engine, error) {
	st, err := s.Stores.Lineage.Walker(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return &lineage.Engine{Store: st, Limits: s.Limits}, nil
}

// Graph is an organisation's graph, cut at MaxGraphNodes nodes and
// MaxGraphEdges edges, with the totals.
type Graph struct {
	lineage.Graph
	Truncated  bool  `json:"truncated"`
	TotalNodes int64 `json:"total_nodes"`
	TotalEdges int64 `json:"total_edges"`
}

// Graph returns the organisation's whole graph, as far as the bounds go.
func (s *Service) Graph(ctx context.Context, orgID string) (*Graph, error) {
	g, truncated, err := s.Stores.Lineage.Graph(ctx, orgID, MaxGraphNodes, MaxGraphEdges)
	if err != nil {
		return nil, err
	}
	nodes, edges, err := s.Stores.Lineage.Counts(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return &Graph{Graph: g, Truncated: truncated, TotalNodes: nodes, TotalEdges: edges}, nil
}

// Neighbourhood returns the nodes within depth of node following dir, with
// the hidden-neighbour counts of its frontier (lineage.Engine.Neighbourhood).
func (s *Service) Neighbourhood(ctx context.Context, orgID, node string, dir lineage.Direction, depth int) (*lineage.Subgraph, error) {
	eng, err := s.engine(ctx, orgID)
	if err != nil {
		return nil, err
	}
	return eng.Neighbourhood(ctx, orgID, node, dir, depth)
}

// AddEdge adds the edge from → to that actor (a user's or an API key's
// id) asked for: 400 for a bad id, a self-loop or a cycle (naming its
// path), 404 for a node that is missing or another organisation's, 409 for
// an edge already there.
func (s *Service) AddEdge(ctx context.Context, orgID, actor, from, to string) (lineage.Edge, error) {
	if actor == "" {
		return lineage.Edge{}, errors.New("lineage: an added edge needs its actor")
	}
	return s.Stores.Lineage.AddEdge(ctx, orgID, from, to, actor, time.Now(), s.Limits)
}

// DeleteEdge removes an edge a user added (models.Lineage.DeleteEdge).
func (s *Service) DeleteEdge(ctx context.Context, orgID, id string) error {
	return s.Stores.Lineage.DeleteEdge(ctx, orgID, id)
}

// TableDownstream is the blast radius of table of source sourceID: the
// nodes it feeds, nearest first, at most BlastLimit. A table that has no
// node yet feeds nothing.
func (s *Service) TableDownstream(ctx context.Context, orgID string, sourceID int64, table string) (*lineage.BlastRadius, error) {
	none := &lineage.BlastRadius{Nodes: []lineage.Reached{}}
	n, err := s.Stores.Lineage.TableNode(ctx, orgID, sourceID, table)
	if errors.Is(err, errs.ErrNotFound) {
		return none, nil
	}
	if err != nil {
		return nil, err
	}
	eng, err := s.engine(ctx, orgID)
	if err != nil {
		return nil, err
	}
	br, err := eng.Downstream(ctx, orgID, []string{n.ID}, BlastLimit)
	if errors.Is(err, errs.ErrNotFound) { // the node went meanwhile, with its source
		return none, nil
	}
	return br, err
}
