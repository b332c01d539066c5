// Package lineage is the engine of the lineage graph: nodes (sources,
// tables, files, reports, pipelines) and the directed edges between them,
// which must stay acyclic.
//
// The engine never loads an organisation's whole graph. Every walk
// (Neighbourhood, Downstream, the cycle check of CheckEdge) goes level by
// level through the small Store interface: one Neighbours call per BFS
// level with the frontier's ids (split into batches of Limits.Batch ids,
// one IN list each), then one Nodes call per batch for the nodes it
// returns. Every walk is bounded: a neighbourhood by its depth (at most
// MaxDepth) and Limits.MaxNodes, a blast radius by its limit, a cycle check
// by Limits.MaxVisited.
//
// Errors are the service's public errors (package errs) or wrap one, so
// the API maps them to a status: a malformed id, a self-loop, a cycle or a
// bad depth is 400, an unknown node (or another organisation's, with the
// same message) is 404, a duplicate edge 409 (conflict) and a walk over its
// budget 409 (limit_exceeded). Errors of the Store are passed through
// wrapped (500 at the API).
package lineage

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dqs/dqs/errs"
	"github.com/google/uuid"
)

// NodeType is the kind of thing a node stands for.
type NodeType string

// The node types of the contract.
const (
	TypeSource   NodeType = "source"
	TypeTable    NodeType = "table"
	TypeFile     NodeType = "file"
	TypeReport   NodeType = "report"
	TypePipeline NodeType = "pipeline"
)

// NodeTypes lists the valid node types in the contract's order.
var NodeTypes = []NodeType{TypeSource, TypeTable, TypeFile, TypeReport, TypePipeline}

// Valid reports whether t is one of NodeTypes.
func (t NodeType) Valid() bool {
	switch t {
	case TypeSource, TypeTable, TypeFile, TypeReport, TypePipeline:
		return true
	}
	return false
}

// ParseNodeType parses a node type exactly as the API spells it
// (lower case); anything else is a 400 naming the valid values.
func ParseNodeType(s string) (NodeType, error) {
	t := NodeType(s)
	if !t.Valid() {
		return "", errs.BadRequest("type must be one of source, table, file, report, pipeline")
	}
	return t, nil
}

// MaxNameLen bounds a node's name and ref_id, in characters.
const MaxNameLen = 255

// Node is a vertex of the lineage graph. ID is a UUID; RefID is the id of
// the source, table, file, report or pipeline it stands for (empty for a
// node a user created on its own).
type Node struct {
	ID    string   `json:"id"`
	Type  NodeType `json:"type"`
	Name  string   `json:"name"`
	RefID string   `json:"ref_id"`
}

// Validate checks a node before it is stored: a UUID id, a valid type, a
// non-empty name of at most MaxNameLen characters, a ref_id of at most
// MaxNameLen characters.
func (n Node) Validate() error {
	if _, err := ParseID("id", n.ID); err != nil {
		return err
	}
	if !n.Type.Valid() {
		return errs.BadRequest("type must be one of source, table, file, report, pipeline")
	}
	if strings.TrimSpace(n.Name) == "" {
		return errs.BadRequest("name is required")
	}
	if utf8.RuneCountInString(n.Name) > MaxNameLen {
		return errs.BadRequest("name must be at most %d characters", MaxNameLen)
	}
	if utf8.RuneCountInString(n.RefID) > MaxNameLen {
		return errs.BadRequest("ref_id must be at most %d characters", MaxNameLen)
	}
	return nil
}

// NewNode returns a node with a fresh random UUID, validated.
func NewNode(t NodeType, name, refID string) (Node, error) {
	n := Node{ID: uuid.NewString(), Type: t, Name: name, RefID: refID}
	return n, n.Validate()
}

// Edge is a directed edge Source → Target (data flows from Source to
// Target). ID is a UUID.
type Edge struct {
	ID        string    `json:"id"`
	Source    string    `json:"source_node_id"`
	Target    string    `json:"target_node_id"`
	CreatedAt time.Time `json:"created_at"`
}

// NewEdge returns an edge from → to with a fresh random UUID. It does not
// check the edge: call CheckEdge first.
func NewEdge(from, to string, now time.Time) Edge {
	return Edge{ID: uuid.NewString(), Source: from, Target: to, CreatedAt: now.UTC()}
}

// Graph is an organisation's graph as the API returns it.
type Graph struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
}

// Direction is the way a walk follows edges.
type Direction string

// The directions of the API's `direction` parameter. DirDownstream follows
// edges Source → Target (what a node feeds), DirUpstream Target → Source
// (what feeds it), DirBoth either.
const (
	DirUpstream   Direction = "upstream"
	DirDownstream Direction = "downstream"
	DirBoth       Direction = "both"
)

// ParseDirection parses the `direction` parameter; the empty string is
// DirBoth, the default.
func ParseDirection(s string) (Direction, error) {
	switch d := Direction(s); d {
	case "":
		return DirBoth, nil
	case DirUpstream, DirDownstream, DirBoth:
		return d, nil
	}
	return "", errs.BadRequest("direction must be one of upstream, downstream, both")
}

// Valid reports whether d is one of the three directions (not empty).
func (d Direction) Valid() bool {
	return d == DirUpstream || d == DirDownstream || d == DirBoth
}

// The depth of a neighbourhood: DefaultDepth when the parameter is absent,
// at most MaxDepth.
const (
	DefaultDepth = 1
	MaxDepth     = 50
)

// ParseDepth parses the `depth` parameter: absent is DefaultDepth; it must
// otherwise be an integer from 1 to MaxDepth (an explicit 0 is a 400).
func ParseDepth(s string) (int, error) {
	if s == "" {
		return DefaultDepth, nil
	}
	d, err := strconv.Atoi(s)
	if err != nil || d < 1 || d > MaxDepth {
		return 0, errs.BadRequest("depth must be an integer from 1 to %d", MaxDepth)
	}
	return d, nil
}

// checkDepth normalises the engine's depth argument: 0 (the Go zero value,
// "not given") is DefaultDepth, negative or above MaxDepth is a 400.
func checkDepth(d int) (int, error) {
	switch {
	case d == 0:
		return DefaultDepth, nil
	case d < 0 || d > MaxDepth:
		return 0, errs.BadRequest("depth must be an integer from 1 to %d", MaxDepth)
	}
	return d, nil
}

// ParseID parses a node or edge id: it must be a UUID (400 naming field
// otherwise); it returns the canonical lower-case form the store holds.
func ParseID(field, s string) (string, error) {
	u, err := uuid.Parse(s)
	if err != nil {
		return "", errs.BadRequest("%s must be a UUID", field)
	}
	return u.String(), nil
}
