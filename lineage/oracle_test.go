package lineage

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
)

// The oracle works on the full edge list, with the most direct code: a
// recursive DFS that scans every edge at every step.

type oracle struct {
	ids   []string
	edges []Edge
}

// steps returns the neighbours of v following dir, one per edge.
func (o *oracle) steps(v string, dir Direction) []string {
	var out []string
	for _, e := range o.edges {
		if dir != DirUpstream && e.Source == v {
			out = append(out, e.Target)
		}
		if dir != DirDownstream && e.Target == v {
			out = append(out, e.Source)
		}
	}
	return out
}

// within returns every node reachable from v in at most depth steps, with
// its shortest distance: a DFS that revisits a node only when it reaches it
// with more steps left than before.
func (o *oracle) within(v string, dir Direction, depth int) map[string]int {
	left := map[string]int{}
	var dfs func(u string, rest int)
	dfs = func(u string, rest int) {
		if r, ok := left[u]; ok && r >= rest {
			return
		}
		left[u] = rest
		if rest == 0 {
			return
		}
		for _, w := range o.steps(u, dir) {
			dfs(w, rest-1)
		}
	}
	dfs(v, depth)
	dist := map[string]int{}
	for u, r := range left {
		dist[u] = depth - r
	}
	return dist
}

// reaches reports whether a path of at least one edge leads from a to b.
func (o *oracle) reaches(a, b string) bool {
	seen := map[string]bool{}
	var dfs func(u string) bool
	dfs = func(u string) bool {
		for _, w := range o.steps(u, DirDownstream) {
			if w == b {
				return true
			}
			if !seen[w] {
				seen[w] = true
				if dfs(w) {
					return true
				}
			}
		}
		return false
	}
	return dfs(a)
}

func (o *oracle) hasEdge(a, b string) bool {
	for _, e := range o.edges {
		if e.Source == a && e.Target == b {
			return true
		}
	}
	return false
}

// shapes of random graphs: each returns edges over n nodes as index pairs
// (i < j, so acyclic).
type shape struct {
	name string
	gen  func(r *rand.Rand, n int) [][2]int
}

var shapes = []shape{
	{"random-dag", func(r *rand.Rand, n int) [][2]int {
		var es [][2]int
		for range 2 * n {
			i, j := r.IntN(n), r.IntN(n)
			if i != j {
				es = append(es, [2]int{min(i, j), max(i, j)})
			}
		}
		return es
	}},
	{"diamonds", func(r *rand.Rand, n int) [][2]int {
		var es [][2]int
		for i := 0; i+3 < n; i += 3 { // i → i+1, i+2 → i+3, and shortcuts
			es = append(es, [2]int{i, i + 1}, [2]int{i, i + 2}, [2]int{i + 1, i + 3}, [2]int{i + 2, i + 3})
			if r.IntN(3) == 0 && i+6 < n {
				es = append(es, [2]int{i, i + 6})
			}
		}
		return es
	}},
	{"long-chain", func(r *rand.Rand, n int) [][2]int {
		var es [][2]int
		for i := 0; i+1 < n; i++ {
			es = append(es, [2]int{i, i + 1})
		}
		for range n / 10 {
			i := r.IntN(n - 1)
			es = append(es, [2]int{i, i + 1 + r.IntN(n-1-i)})
		}
		return es
	}},
	{"wide-fans", func(r *rand.Rand, n int) [][2]int {
		var es [][2]int
		hubs := []int{0, n / 3, 2 * n / 3}
		for _, h := range hubs {
			for j := h + 1; j < n; j++ {
				if r.IntN(2) == 0 {
					es = append(es, [2]int{h, j})
				}
			}
		}
		for j := 1; j < n-1; j++ { // fan-in into the sinks
			if r.IntN(4) == 0 {
				es = append(es, [2]int{j, n - 1})
			}
		}
		return es
	}},
	{"layered", func(r *rand.Rand, n int) [][2]int {
		var es [][2]int
		w := 1 + n/8
		for j := w; j < n; j++ {
			for range 1 + r.IntN(3) {
				lo := (j/w - 1) * w
				es = append(es, [2]int{lo + r.IntN(w), j})
			}
		}
		return es
	}},
	{"forest", func(r *rand.Rand, n int) [][2]int {
		var es [][2]int
		for j := 1; j < n; j++ {
			if r.IntN(5) != 0 {
				es = append(es, [2]int{r.IntN(j), j})
			}
		}
		return es
	}},
}

const org = "org-a"

// build loads a random graph of the shape into a MemStore (org-a, with a
// decoy organisation holding a copy under other ids) and returns the
// oracle. Node numbers are shuffled so that ids do not follow the order.
func build(t testing.TB, sh shape, r *rand.Rand, n int) (*MemStore, *oracle) {
	t.Helper()
	s := NewMemStore()
	o := &oracle{}
	for i := range n {
		id := synthID(r)
		o.ids = append(o.ids, id)
		if err := s.PutNode(org, Node{ID: id, Type: NodeTypes[i%len(NodeTypes)], Name: fmt.Sprintf("n%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	perm := r.Perm(n)
	seen := map[[2]int]bool{}
	for k, p := range sh.gen(r, n) {
		if seen[p] {
			continue
		}
		seen[p] = true
		e := Edge{ID: synthID(r), Source: o.ids[perm[p[0]]], Target: o.ids[perm[p[1]]], CreatedAt: time.Unix(int64(k), 0).UTC()}
		// Keep the graph acyclic under the permutation: orient by the
		// generator's order, which perm preserves as a relabelling.
		o.edges = append(o.edges, e)
		if err := s.PutEdge(org, e); err != nil {
			t.Fatal(err)
		}
	}
	// Another organisation: same shape, different ids, linked nowhere.
	decoy := make([]string, n)
	for i := range decoy {
		decoy[i] = synthID(r)
		_ = s.PutNode("org-b", Node{ID: decoy[i], Type: TypeTable, Name: "decoy"})
	}
	for _, e := range o.edges[:len(o.edges)/2] {
		_ = s.PutEdge("org-b", Edge{ID: synthID(r), Source: decoy[index(o.ids, e.Source)], Target: decoy[index(o.ids, e.Target)]})
	}
	return s, o
}

func index(ids []string, id string) int { return slices.Index(ids, id) }

var dirs = []Direction{DirUpstream, DirDownstream, DirBoth}

// TestNeighbourhoodOracle compares Neighbourhood with the oracle: node set
// and depths, the edges among the nodes, the hidden counts of every node,
// on every shape, seed, direction, depth and batch size.
func TestNeighbourhoodOracle(t *testing.T) {
	ctx := context.Background()
	for _, sh := range shapes {
		for seed := range uint64(12) {
			r := rand.New(rand.NewPCG(seed, 99))
			n := 20 + r.IntN(100)
			s, o := build(t, sh, r, n)
			for q := range 8 {
				centre := o.ids[r.IntN(n)]
				dir := dirs[q%3]
				depth := 1 + r.IntN(7)
				eng := &Engine{Store: s, Limits: Limits{Batch: []int{1, 2, 3, 7, 500}[r.IntN(5)], MaxNodes: n + 1, MaxEdges: 1 << 30}}
				g, err := eng.Neighbourhood(ctx, org, centre, dir, depth)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s seed %d centre %d %s depth %d batch %d", sh.name, seed, index(o.ids, centre), dir, depth, eng.Limits.Batch)
				checkSubgraph(t, name, o, g, centre, dir, depth)
			}
		}
	}
}

// checkSubgraph checks g against the oracle's depth-`depth` neighbourhood.
func checkSubgraph(t *testing.T, name string, o *oracle, g *Subgraph, centre string, dir Direction, depth int) {
	t.Helper()
	want := o.within(centre, dir, depth)
	got := map[string]int{}
	for _, n := range g.Nodes {
		got[n.ID] = n.Depth
	}
	if len(got) != len(g.Nodes) {
		t.Fatalf("%s: a node twice", name)
	}
	if !mapsEqual(got, want) {
		t.Fatalf("%s: nodes %v, oracle %v", name, got, want)
	}
	if !slices.IsSortedFunc(g.Nodes, func(a, b NeighbourNode) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.ID, b.ID))
	}) {
		t.Fatalf("%s: nodes not in (depth, id) order", name)
	}
	var wantEdges, gotEdges []string
	for _, e := range o.edges {
		_, a := want[e.Source]
		_, b := want[e.Target]
		if a && b {
			wantEdges = append(wantEdges, e.ID)
		}
	}
	for _, e := range g.Edges {
		gotEdges = append(gotEdges, e.ID)
	}
	slices.Sort(wantEdges)
	slices.Sort(gotEdges)
	if !slices.Equal(gotEdges, wantEdges) {
		t.Fatalf("%s: %d edges, oracle %d", name, len(gotEdges), len(wantEdges))
	}
	for _, n := range g.Nodes {
		hidden := map[string]bool{}
		for _, v := range o.steps(n.ID, dir) {
			if _, shown := want[v]; !shown {
				hidden[v] = true
			}
		}
		if n.Hidden != len(hidden) {
			t.Fatalf("%s: node %d (depth %d) hidden %d, oracle %d", name, index(o.ids, n.ID), n.Depth, n.Hidden, len(hidden))
		}
	}
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestNeighbourhoodTruncatedOracle: with small MaxNodes/MaxEdges the
// answer is the oracle's neighbourhood at the depth it reports, with exact
// hidden counts, and the bounds hold.
func TestNeighbourhoodTruncatedOracle(t *testing.T) {
	ctx := context.Background()
	for _, sh := range shapes {
		for seed := range uint64(10) {
			r := rand.New(rand.NewPCG(seed, 7))
			n := 30 + r.IntN(90)
			s, o := build(t, sh, r, n)
			for q := range 10 {
				centre := o.ids[r.IntN(n)]
				dir := dirs[q%3]
				depth := 1 + r.IntN(8)
				lim := Limits{Batch: 1 + r.IntN(6), MaxNodes: 1 + r.IntN(n/2), MaxEdges: 1 + r.IntN(2*n)}
				g, err := (&Engine{Store: s, Limits: lim}).Neighbourhood(ctx, org, centre, dir, depth)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s seed %d q %d %s depth %d limits %+v", sh.name, seed, q, dir, depth, lim)
				checkSubgraph(t, name, o, g, centre, dir, g.Depth)
				full := o.within(centre, dir, depth)
				if !g.Truncated {
					if g.Depth != depth || len(g.Nodes) != len(full) {
						t.Fatalf("%s: not truncated but depth %d, %d nodes of %d", name, g.Depth, len(g.Nodes), len(full))
					}
				} else if g.Depth >= depth || len(o.within(centre, dir, g.Depth+1)) == len(g.Nodes) {
					t.Fatalf("%s: truncated at depth %d with nothing hidden", name, g.Depth)
				}
				if len(g.Nodes) > lim.MaxNodes && g.Depth > 0 {
					t.Fatalf("%s: %d nodes over MaxNodes", name, len(g.Nodes))
				}
			}
		}
	}
}

// TestDownstreamOracle compares the blast radius with the oracle, with and
// without truncation.
func TestDownstreamOracle(t *testing.T) {
	ctx := context.Background()
	for _, sh := range shapes {
		for seed := range uint64(12) {
			r := rand.New(rand.NewPCG(seed, 3))
			n := 20 + r.IntN(100)
			s, o := build(t, sh, r, n)
			for q := range 8 {
				var starts []string
				for range 1 + r.IntN(4) {
					starts = append(starts, o.ids[r.IntN(n)])
				}
				// want: nodes reachable by ≥ 1 edge, shortest distance.
				want := map[string]int{}
				for _, st := range starts {
					for _, v := range o.steps(st, DirDownstream) {
						for u, d := range o.within(v, DirDownstream, n) {
							if old, ok := want[u]; !ok || d+1 < old {
								want[u] = d + 1
							}
						}
					}
				}
				type nd struct {
					id string
					d  int
				}
				var order []nd
				for id, d := range want {
					order = append(order, nd{id, d})
				}
				slices.SortFunc(order, func(a, b nd) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.id, b.id)) })
				limit := len(order) + 5
				if q%2 == 1 {
					limit = 1 + r.IntN(max(1, len(order)))
				}
				br, err := (&Engine{Store: s, Limits: Limits{Batch: 1 + r.IntN(4)}}).Downstream(ctx, org, starts, limit)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("%s seed %d q %d limit %d", sh.name, seed, q, limit)
				wantN := min(limit, len(order))
				if len(br.Nodes) != wantN || br.Truncated != (len(order) > limit) {
					t.Fatalf("%s: %d nodes truncated %v, oracle %d of %d", name, len(br.Nodes), br.Truncated, wantN, len(order))
				}
				for i, x := range br.Nodes {
					if x.ID != order[i].id || x.Depth != order[i].d {
						t.Fatalf("%s: node %d is %s@%d, oracle %s@%d", name, i, x.ID, x.Depth, order[i].id, order[i].d)
					}
				}
			}
		}
	}
}

// TestCheckEdgeOracle builds graphs edge by edge through AddEdge with
// random pairs, comparing every verdict with the oracle; the graph stays
// acyclic and every cycle error names a real path to ⇝ from.
func TestCheckEdgeOracle(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(25) {
		r := rand.New(rand.NewPCG(seed, 5))
		n := 10 + r.IntN(60)
		s := NewMemStore()
		o := &oracle{}
		for i := range n {
			id := synthID(r)
			o.ids = append(o.ids, id)
			if err := s.PutNode(org, Node{ID: id, Type: TypeTable, Name: fmt.Sprintf("n%d", i)}); err != nil {
				t.Fatal(err)
			}
		}
		eng := &Engine{Store: s, Limits: Limits{Batch: 1 + r.IntN(5)}}
		for range 6 * n {
			from, to := o.ids[r.IntN(n)], o.ids[r.IntN(n)]
			e, err := s.AddEdge(ctx, eng, org, from, to, time.Now())
			var ce *CycleError
			var de *DuplicateEdgeError
			switch {
			case from == to:
				if !errors.Is(err, errs.ErrBadRequest) || errors.As(err, &ce) {
					t.Fatalf("seed %d: self-loop: %v", seed, err)
				}
			case o.hasEdge(from, to):
				if !errors.As(err, &de) || de.Existing.Source != from || de.Existing.Target != to || errs.Public(err).Status != 409 {
					t.Fatalf("seed %d: duplicate: %v", seed, err)
				}
			case o.reaches(to, from):
				if !errors.As(err, &ce) || errs.Public(err).Status != 400 {
					t.Fatalf("seed %d: cycle not refused: %v", seed, err)
				}
				p := ce.Path
				if p[0] != to || p[len(p)-1] != from {
					t.Fatalf("seed %d: path %v does not go from to to from", seed, p)
				}
				for i := 0; i+1 < len(p); i++ {
					if !o.hasEdge(p[i], p[i+1]) {
						t.Fatalf("seed %d: path step %d is not an edge", seed, i)
					}
				}
			default:
				if err != nil {
					t.Fatalf("seed %d: edge refused: %v", seed, err)
				}
				o.edges = append(o.edges, e)
			}
		}
		for _, id := range o.ids {
			if o.reaches(id, id) {
				t.Fatalf("seed %d: the graph has a cycle", seed)
			}
		}
	}
}
