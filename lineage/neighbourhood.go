package lineage

import (
	"cmp"
	"context"
	"slices"

	"github.com/dqs/dqs/errs"
)

// NeighbourNode is a node of a neighbourhood: Depth is its distance from
// the centre (0 for the centre) following the requested direction(s);
// Hidden counts its neighbours in the requested direction(s) that are not
// in the neighbourhood. Only the frontier (the nodes at the last depth
// shown) can have hidden neighbours: a neighbourhood centred on such a node
// shows them. Hidden counts edges to nodes not shown, which is the number
// of such neighbours since the graph has no parallel edges (CheckEdge
// refuses duplicates; the SQL table should have a unique index on
// (org, source_node_id, target_node_id)) and no 2-cycles.
type NeighbourNode struct {
	Node
	Depth  int `json:"depth"`
	Hidden int `json:"hidden_neighbours"`
}

// Subgraph is a neighbourhood: the nodes within Depth of the centre in the
// requested direction, and every edge between two of them (whatever its
// direction: with DirDownstream an edge between two descendants is shown
// too). Nodes are ordered by depth then id, edges by their source's then
// their target's position in Nodes.
type Subgraph struct {
	Center    string          `json:"node"`
	Direction Direction       `json:"direction"`
	Depth     int             `json:"depth"`
	Truncated bool            `json:"truncated"`
	Nodes     []NeighbourNode `json:"nodes"`
	Edges     []Edge          `json:"edges"`
}

// Neighbourhood returns the neighbourhood of a node with the default
// limits; see Engine.Neighbourhood.
func Neighbourhood(ctx context.Context, s Store, orgID, node string, dir Direction, depth int) (*Subgraph, error) {
	return (&Engine{Store: s}).Neighbourhood(ctx, orgID, node, dir, depth)
}

// Neighbourhood returns the nodes within depth steps of node following dir
// ("" is DirBoth), the edges among them, and each frontier node's count of
// hidden neighbours. depth 0 is DefaultDepth; a negative depth or one above
// MaxDepth is a 400; an unknown node (or another organisation's) is a 404.
//
// The work is bounded. If a level would take the neighbourhood above
// Limits.MaxNodes, or reading the edges of a level's frontier would take the
// edges read above Limits.MaxEdges, the neighbourhood stops at the last
// level it can show with exact counts: Truncated is set, Depth is that
// level (smaller than asked), and its nodes carry the hidden counts, so the
// client expands from them. A centre with more neighbours than MaxNodes is
// shown alone, with its count (the centre's own edges are always read).
//
// Cost: one Neighbours call per level (per batch of ids), the last one for
// the frontier's counts, and one Nodes call per batch of the result; memory
// in proportion to the nodes shown and the edges read.
func (e *Engine) Neighbourhood(ctx context.Context, orgID, node string, dir Direction, depth int) (*Subgraph, error) {
	var err error
	if node, err = ParseID("node", node); err != nil {
		return nil, err
	}
	if dir == "" {
		dir = DirBoth
	}
	if !dir.Valid() {
		return nil, errs.BadRequest("direction must be one of upstream, downstream, both")
	}
	if depth, err = checkDepth(depth); err != nil {
		return nil, err
	}
	lim := e.Limits.withDefaults()
	centre, err := e.nodes(ctx, orgID, []string{node})
	if err != nil {
		return nil, err
	}
	if _, ok := centre[node]; !ok {
		return nil, errs.NotFound("lineage node")
	}

	index := make(map[string]int32, min(2*lim.MaxNodes, 1<<16))
	index[node] = 0
	w := &walk{index: index, ids: []string{node}, dist: []int32{0}, hidden: []int32{0}, shown: 1, dir: dir}
	frontier := []string{node}
	shown, truncated := depth, false
	read := 0                   // edges read from the store
	prevKept, prevShown := 0, 0 // the previous level's start in kept, and shown before it
	for level := 0; len(frontier) > 0; level++ {
		w.lv, w.last = int32(level), level == depth
		keptFrom, newFrom := len(w.kept), len(w.ids)
		over := false
		err := e.eachNeighbours(ctx, orgID, frontier, dir, func(es []Edge) bool {
			read += len(es)
			if level > 0 && read > lim.MaxEdges {
				over = true
				return false
			}
			for i := range es {
				w.visit(&es[i])
			}
			return true
		})
		if err != nil {
			return nil, err
		}
		if over {
			// This level's answer is too large to read: show the levels
			// before it, with the previous level as the frontier (its
			// answer, read whole, gives its hidden counts).
			w.kept, w.ends = w.kept[:keptFrom], w.ends[:2*keptFrom]
			w.shown, w.lv = prevShown, int32(level-1)
			w.hide(prevKept)
			shown, truncated = level-1, true
			break
		}
		fresh := len(w.ids) - newFrom
		if w.last || fresh == 0 {
			break
		}
		if w.shown+fresh > lim.MaxNodes {
			shown, truncated = level, true
			w.hide(keptFrom)
			break
		}
		prevKept, prevShown = keptFrom, w.shown
		w.shown += fresh
		w.renumber(newFrom, keptFrom)
		frontier = append(frontier[:0:0], w.ids[newFrom:]...)
	}

	// Fetch the nodes shown and place them by number.
	nodes := make([]Node, w.shown)
	have := make([]bool, w.shown)
	err = e.eachNodes(ctx, orgID, w.ids[:w.shown], func(ns []Node) {
		for _, n := range ns {
			if i, ok := w.index[n.ID]; ok && int(i) < w.shown {
				nodes[i], have[i] = n, true
			}
		}
	})
	if err != nil {
		return nil, err
	}
	g := &Subgraph{Center: node, Direction: dir, Depth: shown, Truncated: truncated,
		Nodes: make([]NeighbourNode, 0, w.shown)}
	pos := make([]int32, w.shown) // number → position in g.Nodes, -1 if missing
	for i := range nodes {
		if !have[i] {
			pos[i] = -1 // the end of a dangling edge: not shown
			continue
		}
		pos[i] = int32(len(g.Nodes))
		g.Nodes = append(g.Nodes, NeighbourNode{Node: nodes[i], Depth: int(w.dist[i]), Hidden: int(w.hidden[i])})
	}
	type keyed struct {
		key uint64
		k   int32
	}
	order := make([]keyed, 0, len(w.kept))
	for k := range w.kept {
		a, b := pos[w.ends[2*k]], pos[w.ends[2*k+1]]
		if a >= 0 && b >= 0 {
			order = append(order, keyed{uint64(a)<<32 | uint64(b), int32(k)})
		}
	}
	slices.SortFunc(order, func(x, y keyed) int { return cmp.Compare(x.key, y.key) })
	g.Edges = make([]Edge, len(order))
	for i, o := range order {
		g.Edges[i] = *w.kept[o.k]
	}
	return g, nil
}

// walk is the state of a neighbourhood. Nodes are numbered as they are
// reached; numbers below shown are in the neighbourhood, in order of depth
// then id (each level is renumbered once complete). Nodes reached by the
// level being expanded get numbers from shown on, provisionally.
type walk struct {
	index  map[string]int32
	ids    []string
	dist   []int32
	hidden []int32
	shown  int
	kept   []*Edge // edges with both ends in the neighbourhood (or provisional), in the store's answers
	ends   []int32 // the numbers of their ends, two per edge
	dir    Direction
	lv     int32 // the level being expanded
	last   bool  // it is the last: its new ends are not numbered, only counted
	same   map[string]struct{}
}

func (w *walk) add(id string) int32 {
	i := int32(len(w.ids))
	w.index[id] = i
	w.ids = append(w.ids, id)
	w.dist = append(w.dist, w.lv+1)
	w.hidden = append(w.hidden, 0)
	return i
}

func (w *walk) onFrontier(i int32, ok bool) bool {
	return ok && int(i) < w.shown && w.dist[i] == w.lv
}

// visit takes one edge of the frontier's answer.
func (w *walk) visit(ed *Edge) {
	a, okA := w.index[ed.Source]
	b, okB := w.index[ed.Target]
	fromA := w.dir != DirUpstream && w.onFrontier(a, okA)
	fromB := w.dir != DirDownstream && w.onFrontier(b, okB)
	if !fromA && !fromB {
		return // not an edge of the frontier in this direction
	}
	if w.last {
		if okA && okB && int(a) < w.shown && int(b) < w.shown {
			w.keep(ed, a, b)
		} else if fromA {
			w.hidden[a]++
		} else {
			w.hidden[b]++
		}
		return
	}
	if !okA {
		a = w.add(ed.Source)
	}
	if !okB {
		b = w.add(ed.Target)
	}
	w.keep(ed, a, b)
}

// keep records an edge of the neighbourhood once. With DirBoth an edge is
// answered again when its other end is expanded: it is kept from the end
// expanded first, and an edge within one level (which may come back in
// another batch) is deduplicated by id. With one direction each edge is
// answered once.
func (w *walk) keep(ed *Edge, a, b int32) {
	if w.dir == DirBoth {
		da, db := w.dist[a], w.dist[b]
		if da < w.lv || db < w.lv {
			return
		}
		if da == w.lv && db == w.lv {
			if w.same == nil {
				w.same = map[string]struct{}{}
			}
			if _, dup := w.same[ed.ID]; dup {
				return
			}
			w.same[ed.ID] = struct{}{}
		}
	}
	w.kept = append(w.kept, ed)
	w.ends = append(w.ends, a, b)
}

// hide drops the edges kept from k on whose other end is not shown (the
// level that did not fit), counting them on their frontier end.
func (w *walk) hide(k int) {
	out := k
	for ; k < len(w.kept); k++ {
		a, b := w.ends[2*k], w.ends[2*k+1]
		switch {
		case int(a) < w.shown && int(b) < w.shown:
			w.kept[out] = w.kept[k]
			w.ends[2*out], w.ends[2*out+1] = a, b
			out++
		case int(a) < w.shown:
			w.hidden[a]++
		default:
			w.hidden[b]++
		}
	}
	w.kept, w.ends = w.kept[:out], w.ends[:2*out]
}

// renumber sorts the level numbered from lo by id, so that the numbering
// follows (depth, id), and updates the ends of the edges kept from k on.
func (w *walk) renumber(lo, k int) {
	lvl := w.ids[lo:]
	old := append([]string(nil), lvl...)
	slices.Sort(lvl)
	for j, id := range lvl {
		w.index[id] = int32(lo + j)
	}
	perm := make([]int32, len(old))
	for j, id := range old {
		perm[j] = w.index[id]
	}
	for j := 2 * k; j < len(w.ends); j++ {
		if p := w.ends[j]; int(p) >= lo {
			w.ends[j] = perm[int(p)-lo]
		}
	}
}
