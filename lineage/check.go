package lineage

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dqs/dqs/errs"
)

// CycleError refuses an edge From → To that would close a cycle: Path is a
// path already in the graph from To back to From (ids, To first, From
// last). It unwraps to a 400 whose message names the path by node names,
// bounded in length (MaxPathInMessage nodes, each name cut to
// maxNameInMessage characters).
type CycleError struct {
	From, To string
	Path     []string
	err      *errs.Error
}

func (e *CycleError) Error() string { return e.err.Error() }

// Unwrap returns the public 400.
func (e *CycleError) Unwrap() error { return e.err }

// DuplicateEdgeError refuses an edge From → To that already exists; Existing
// is that edge, so a handler that prefers idempotency may return it instead
// of the 409 this unwraps to.
type DuplicateEdgeError struct {
	Existing Edge
	err      *errs.Error
}

func (e *DuplicateEdgeError) Error() string { return e.err.Error() }

// Unwrap returns the public 409.
func (e *DuplicateEdgeError) Unwrap() error { return e.err }

// MaxPathInMessage is the most nodes a cycle message names; a longer path
// shows its first and last nodes around "… (N more) …".
const MaxPathInMessage = 8

const maxNameInMessage = 40

// CheckEdge checks the edge from → to of organisation orgID before it is
// added, with the default limits; see Engine.CheckEdge.
func CheckEdge(ctx context.Context, s Store, orgID, from, to string) error {
	return (&Engine{Store: s}).CheckEdge(ctx, orgID, from, to)
}

// CheckEdge checks the edge from → to of organisation orgID before it is
// added. It returns nil if the edge may be added, or:
//   - 400 if an id is not a UUID, or from == to (a self-loop);
//   - 404 if either node is unknown or another organisation's (the same
//     message for both cases);
//   - *DuplicateEdgeError (409 conflict) if the edge already exists: adding
//     an edge twice is refused, not silently merged;
//   - *CycleError (400) if a path to ⇝ from exists, naming it;
//   - 409 limit_exceeded if the search reached more than Limits.MaxVisited
//     nodes without an answer.
//
// The search is bidirectional: downstream from `to` and upstream from
// `from`, level by level, expanding whichever frontier is smaller, so an
// edge out of a node with few ancestors (or into one with few descendants)
// costs a few queries whatever the size of the graph. The check and the
// insert must be serialised per organisation by the caller (one writer at a
// time, as MemStore.AddEdge does), otherwise two concurrent edges could
// together close a cycle neither closes alone.
func (e *Engine) CheckEdge(ctx context.Context, orgID, from, to string) error {
	var err error
	if from, err = ParseID("source_node_id", from); err != nil {
		return err
	}
	if to, err = ParseID("target_node_id", to); err != nil {
		return err
	}
	if from == to {
		return errs.BadRequest("an edge cannot connect a node to itself")
	}
	found, err := e.nodes(ctx, orgID, []string{from, to})
	if err != nil {
		return err
	}
	if _, ok := found[from]; !ok {
		return errs.NotFound("lineage node")
	}
	if _, ok := found[to]; !ok {
		return errs.NotFound("lineage node")
	}
	var dup *Edge
	err = e.eachNeighbours(ctx, orgID, []string{from}, DirDownstream, func(es []Edge) bool {
		for i := range es {
			if dup == nil && es[i].Source == from && es[i].Target == to {
				dup = &es[i]
			}
		}
		return dup == nil
	})
	if err != nil {
		return err
	}
	if dup != nil {
		return &DuplicateEdgeError{Existing: *dup, err: errs.Conflict(
			"the edge %s → %s already exists (id %s)", quoteName(found[from]), quoteName(found[to]), dup.ID)}
	}
	path, err := e.findPath(ctx, orgID, to, from)
	if err != nil || path == nil {
		return err
	}
	return e.cycleError(ctx, orgID, from, to, path, found)
}

// findPath returns a path src ⇝ dst (ids, src first) or nil if there is
// none, by a bidirectional BFS bounded by Limits.MaxVisited.
func (e *Engine) findPath(ctx context.Context, orgID, src, dst string) ([]string, error) {
	budget := e.Limits.withDefaults().MaxVisited
	// fwd[v] is v's predecessor on a path src ⇝ v; bwd[v] is v's successor
	// on a path v ⇝ dst. The roots map to "".
	fwd := map[string]string{src: ""}
	bwd := map[string]string{dst: ""}
	fFront, bFront := []string{src}, []string{dst}
	for len(fFront) > 0 && len(bFront) > 0 {
		// Expand the smaller frontier (on a tie, the side that has reached
		// fewer nodes): a side with nothing left proves there is no path.
		forward := len(fFront) < len(bFront) || len(fFront) == len(bFront) && len(fwd) <= len(bwd)
		front, dir, mine, other := fFront, DirDownstream, fwd, bwd
		if !forward {
			front, dir, mine, other = bFront, DirUpstream, bwd, fwd
		}
		var next []string
		var meet string
		err := e.eachNeighbours(ctx, orgID, front, dir, func(es []Edge) bool {
			for _, ed := range es {
				// from is the node already reached, to the new one.
				from, to := ed.Source, ed.Target
				if !forward {
					from, to = ed.Target, ed.Source
				}
				if _, seen := mine[to]; seen {
					continue
				}
				if _, reached := mine[from]; !reached {
					continue // not an edge of the frontier: ignore
				}
				mine[to] = from
				if _, ok := other[to]; ok {
					meet = to
					return false
				}
				next = append(next, to)
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		if meet != "" {
			return joinPath(fwd, bwd, meet), nil
		}
		if len(fwd)+len(bwd) > budget {
			return nil, errs.LimitExceeded(
				"the lineage graph is too large to check this edge for cycles (more than %d nodes reached)", budget)
		}
		if forward {
			fFront = next
		} else {
			bFront = next
		}
	}
	return nil, nil
}

// joinPath builds src ⇝ meet ⇝ dst from the two predecessor maps.
func joinPath(fwd, bwd map[string]string, meet string) []string {
	var head []string
	for v := meet; v != ""; v = fwd[v] {
		head = append(head, v)
	}
	for i, j := 0, len(head)-1; i < j; i, j = i+1, j-1 {
		head[i], head[j] = head[j], head[i]
	}
	for v := bwd[meet]; v != ""; v = bwd[v] {
		head = append(head, v)
	}
	return head
}

// cycleError names the path to ⇝ from by node names, bounded.
func (e *Engine) cycleError(ctx context.Context, orgID, from, to string, path []string, known map[string]Node) error {
	shown := path
	more := 0
	if len(path) > MaxPathInMessage {
		head, tail := MaxPathInMessage/2, MaxPathInMessage-MaxPathInMessage/2-1
		shown = append(append([]string{}, path[:head]...), path[len(path)-tail:]...)
		more = len(path) - head - tail
	}
	var missing []string
	for _, id := range shown {
		if _, ok := known[id]; !ok {
			missing = append(missing, id)
		}
	}
	names, err := e.nodes(ctx, orgID, missing)
	if err != nil {
		return err
	}
	name := func(id string) string {
		if n, ok := known[id]; ok {
			return quoteName(n)
		}
		if n, ok := names[id]; ok {
			return quoteName(n)
		}
		return id
	}
	parts := make([]string, 0, len(shown)+1)
	for i, id := range shown {
		if more > 0 && i == MaxPathInMessage/2 {
			parts = append(parts, fmt.Sprintf("… (%d more) …", more))
		}
		parts = append(parts, name(id))
	}
	p := append([]string(nil), path...)
	return &CycleError{From: from, To: to, Path: p, err: errs.BadRequest(
		"the edge %s → %s would close a cycle: the path %s already exists",
		name(from), name(to), strings.Join(parts, " → "))}
}

// quoteName quotes a node's name, cut to maxNameInMessage characters; a
// node without a name is shown by its id.
func quoteName(n Node) string {
	s := n.Name
	if s == "" {
		return n.ID
	}
	if utf8.RuneCountInString(s) > maxNameInMessage {
		r := []rune(s)
		s = string(r[:maxNameInMessage-1]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
