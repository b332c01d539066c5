package lineage

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
)

// named builds a graph of named nodes in org from "a>b" specs and returns
// the ids by name.
func named(t *testing.T, s *MemStore, orgID string, names []string, edges ...string) map[string]string {
	t.Helper()
	r := rand.New(rand.NewPCG(rand.Uint64(), 1))
	ids := map[string]string{}
	for _, n := range names {
		ids[n] = synthID(r)
		if err := s.PutNode(orgID, Node{ID: ids[n], Type: TypeTable, Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edges {
		a, b, _ := strings.Cut(e, ">")
		if err := s.PutEdge(orgID, Edge{ID: synthID(r), Source: ids[a], Target: ids[b]}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

func status(err error) int { return errs.Public(err).Status }

func TestParseNodeType(t *testing.T) {
	for _, tt := range NodeTypes {
		if got, err := ParseNodeType(string(tt)); err != nil || got != tt {
			t.Errorf("%s: %v %v", tt, got, err)
		}
	}
	for _, bad := range []string{"", "Table", "dataset", " source"} {
		if _, err := ParseNodeType(bad); status(err) != 400 {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseDirection(t *testing.T) {
	for in, want := range map[string]Direction{"": DirBoth, "both": DirBoth, "upstream": DirUpstream, "downstream": DirDownstream} {
		if got, err := ParseDirection(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"up", "Both", "sideways"} {
		if _, err := ParseDirection(bad); status(err) != 400 {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseDepth(t *testing.T) {
	for in, want := range map[string]int{"": 1, "1": 1, "5": 5, "50": 50} {
		if got, err := ParseDepth(in); err != nil || got != want {
			t.Errorf("%q: %v %v", in, got, err)
		}
	}
	for _, bad := range []string{"0", "51", "-1", "x", "1.5"} {
		if _, err := ParseDepth(bad); status(err) != 400 {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestNodeValidate(t *testing.T) {
	n, err := NewNode(TypeReport, "weekly", "")
	if err != nil {
		t.Fatal(err)
	}
	bad := []Node{
		{ID: "x", Type: TypeTable, Name: "a"},
		{ID: n.ID, Type: "view", Name: "a"},
		{ID: n.ID, Type: TypeTable, Name: "  "},
		{ID: n.ID, Type: TypeTable, Name: strings.Repeat("é", MaxNameLen+1)},
	}
	for _, b := range bad {
		if status(b.Validate()) != 400 {
			t.Errorf("%+v accepted", b)
		}
	}
	if id, err := ParseID("node", strings.ToUpper(n.ID)); err != nil || id != n.ID {
		t.Errorf("ParseID does not canonicalise: %v %v", id, err)
	}
}

func TestNeighbourhoodDepthBounds(t *testing.T) {
	s := NewMemStore()
	ids := named(t, s, org, []string{"a", "b", "c"}, "a>b", "b>c")
	ctx := context.Background()
	zero, err := Neighbourhood(ctx, s, org, ids["a"], DirDownstream, 0)
	if err != nil || zero.Depth != 1 || len(zero.Nodes) != 2 || zero.Nodes[1].Hidden != 1 {
		t.Fatalf("depth 0 is not the default 1: %+v %v", zero, err)
	}
	if _, err := Neighbourhood(ctx, s, org, ids["a"], DirDownstream, MaxDepth); err != nil {
		t.Fatal(err)
	}
	for _, d := range []int{-1, MaxDepth + 1, 1000} {
		if _, err := Neighbourhood(ctx, s, org, ids["a"], DirDownstream, d); status(err) != 400 {
			t.Errorf("depth %d: %v", d, err)
		}
	}
	if _, err := Neighbourhood(ctx, s, org, ids["a"], "sideways", 1); status(err) != 400 {
		t.Errorf("bad direction: %v", err)
	}
	if g, err := Neighbourhood(ctx, s, org, ids["b"], "", 1); err != nil || g.Direction != DirBoth || len(g.Nodes) != 3 {
		t.Errorf("empty direction is not both: %+v %v", g, err)
	}
}

func TestNeighbourhoodBothDirections(t *testing.T) {
	s := NewMemStore()
	// x → a → m → d → y, with u → m (another parent) and m → e (a sibling).
	ids := named(t, s, org, []string{"x", "a", "m", "d", "y", "u", "e"}, "x>a", "a>m", "m>d", "d>y", "u>m", "m>e")
	ctx := context.Background()
	depths := func(g *Subgraph) string {
		var parts []string
		for _, n := range g.Nodes {
			parts = append(parts, fmt.Sprintf("%s%d/%d", n.Name, n.Depth, n.Hidden))
		}
		return strings.Join(parts, " ")
	}
	for _, c := range []struct {
		dir  Direction
		want string
	}{
		// name, depth, hidden; same-depth nodes are in id order, so compare as sets below.
		{DirDownstream, "m0/0 d1/1 e1/0"},
		{DirUpstream, "m0/0 a1/1 u1/0"},
		{DirBoth, "m0/0 a1/1 d1/1 e1/0 u1/0"},
	} {
		g, err := Neighbourhood(ctx, s, org, ids["m"], c.dir, 1)
		if err != nil {
			t.Fatal(err)
		}
		if got := depths(g); !sameWords(got, c.want) {
			t.Errorf("%s: %s, want %s", c.dir, got, c.want)
		}
	}
}

func sameWords(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	if len(x) != len(y) {
		return false
	}
	m := map[string]int{}
	for _, w := range x {
		m[w]++
	}
	for _, w := range y {
		m[w]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

func TestNotFoundAndOrganisations(t *testing.T) {
	s := NewMemStore()
	a := named(t, s, org, []string{"a", "b"}, "a>b")
	other := named(t, s, "org-b", []string{"p", "q"}, "p>q")
	ctx := context.Background()
	unknown := "0b7c1f1e-9d2a-4c1e-8f00-000000000000"
	var msgs []string
	for _, id := range []string{unknown, other["p"]} {
		_, err := Neighbourhood(ctx, s, org, id, DirBoth, 1)
		if status(err) != 404 {
			t.Fatalf("%s: %v", id, err)
		}
		msgs = append(msgs, err.Error())
		if _, err := Downstream(ctx, s, org, []string{a["a"], id}, 10); status(err) != 404 {
			t.Fatalf("downstream %s: %v", id, err)
		}
		for _, pair := range [][2]string{{a["a"], id}, {id, a["b"]}} {
			if err := CheckEdge(ctx, s, org, pair[0], pair[1]); status(err) != 404 {
				t.Fatalf("check %v: %v", pair, err)
			}
			msgs = append(msgs, err.Error())
		}
	}
	for _, m := range msgs[1:] {
		if m != msgs[0] {
			t.Errorf("unknown and another organisation's node differ: %q vs %q", m, msgs[0])
		}
	}
	if _, err := Neighbourhood(ctx, s, org, "not-a-uuid", DirBoth, 1); status(err) != 400 {
		t.Errorf("malformed id: %v", err)
	}
	if err := CheckEdge(ctx, s, org, "nope", a["b"]); status(err) != 400 || !strings.Contains(err.Error(), "source_node_id") {
		t.Errorf("malformed source: %v", err)
	}
	// The other organisation's graph never leaks into org's answers.
	g, _ := Neighbourhood(ctx, s, org, a["a"], DirBoth, 50)
	if len(g.Nodes) != 2 || len(g.Edges) != 1 {
		t.Errorf("org's graph: %+v", g)
	}
}

func TestCheckEdgeErrors(t *testing.T) {
	s := NewMemStore()
	ids := named(t, s, org, []string{"a", "b", "c", "d"}, "a>b", "b>c")
	ctx := context.Background()
	if err := CheckEdge(ctx, s, org, ids["a"], ids["a"]); status(err) != 400 || !strings.Contains(err.Error(), "itself") {
		t.Errorf("self-loop: %v", err)
	}
	err := CheckEdge(ctx, s, org, ids["a"], ids["b"])
	var de *DuplicateEdgeError
	if !errors.As(err, &de) || status(err) != 409 || !errors.Is(err, errs.ErrConflict) || !strings.Contains(err.Error(), de.Existing.ID) {
		t.Errorf("duplicate: %v", err)
	}
	err = CheckEdge(ctx, s, org, ids["c"], ids["a"])
	var ce *CycleError
	if !errors.As(err, &ce) || !errors.Is(err, errs.ErrBadRequest) {
		t.Fatalf("cycle: %v", err)
	}
	want := `the edge "c" → "a" would close a cycle: the path "a" → "b" → "c" already exists`
	if errs.Public(err).Message != want {
		t.Errorf("message %q, want %q", errs.Public(err).Message, want)
	}
	if len(ce.Path) != 3 || ce.Path[0] != ids["a"] || ce.Path[2] != ids["c"] {
		t.Errorf("path %v", ce.Path)
	}
	// The reverse edge of an existing one is a 2-cycle.
	if err := CheckEdge(ctx, s, org, ids["b"], ids["a"]); !errors.As(err, &ce) || len(ce.Path) != 2 {
		t.Errorf("2-cycle: %v", err)
	}
	for _, ok := range [][2]string{{"a", "c"}, {"d", "a"}, {"c", "d"}} {
		if err := CheckEdge(ctx, s, org, ids[ok[0]], ids[ok[1]]); err != nil {
			t.Errorf("%v refused: %v", ok, err)
		}
	}
}

// TestCycleMessageBounded: a cycle through a long chain names its first and
// last nodes and how many are left out, with long names cut.
func TestCycleMessageBounded(t *testing.T) {
	s := NewMemStore()
	var names, edges []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("step_%03d_%s", i, strings.Repeat("x", 60)))
		if i > 0 {
			edges = append(edges, names[i-1]+">"+names[i])
		}
	}
	ids := named(t, s, org, names, edges...)
	err := CheckEdge(context.Background(), s, org, ids[names[99]], ids[names[0]])
	var ce *CycleError
	if !errors.As(err, &ce) || len(ce.Path) != 100 {
		t.Fatalf("%v", err)
	}
	msg := errs.Public(err).Message
	if !strings.Contains(msg, "… (93 more) …") || !strings.Contains(msg, "step_000") || !strings.Contains(msg, "step_099") ||
		strings.Contains(msg, "step_050") || len(msg) > 1000 || strings.Contains(msg, strings.Repeat("x", 41)) {
		t.Errorf("message (%d bytes): %s", len(msg), msg)
	}
}

// TestCheckEdgeBudget: a search over MaxVisited nodes stops with a
// limit_exceeded error instead of walking on.
func TestCheckEdgeBudget(t *testing.T) {
	s := NewMemStore()
	var names, edges []string
	for i := range 200 {
		names = append(names, fmt.Sprintf("n%d", i))
	}
	for i := 1; i < 100; i++ { // two chains: 0..99 and 100..199
		edges = append(edges, names[i-1]+">"+names[i], names[99+i]+">"+names[100+i])
	}
	ids := named(t, s, org, names, edges...)
	eng := &Engine{Store: s, Limits: Limits{MaxVisited: 50}}
	// n99 → n100 joins the chains: the two searches each walk a chain.
	err := eng.CheckEdge(context.Background(), org, ids["n99"], ids["n100"])
	if !errors.Is(err, errs.ErrLimitExceeded) {
		t.Fatalf("over budget: %v", err)
	}
	if err := (&Engine{Store: s}).CheckEdge(context.Background(), org, ids["n99"], ids["n100"]); err != nil {
		t.Fatalf("within the default budget: %v", err)
	}
	// A cheap check is not affected by the size elsewhere: n0 has no
	// ancestors, so the backward search ends at once.
	calls := &countingStore{Store: s}
	if err := (&Engine{Store: calls, Limits: Limits{MaxVisited: 5}}).CheckEdge(context.Background(), org, ids["n0"], ids["n150"]); err != nil {
		t.Fatalf("edge out of a root: %v", err)
	}
	if calls.neighbours > 3 {
		t.Errorf("%d Neighbours calls for an edge out of a root", calls.neighbours)
	}
}

type countingStore struct {
	Store
	mu         sync.Mutex
	neighbours int
	nodes      int
	maxIDs     int
	asked      [][]string
}

func (c *countingStore) Neighbours(ctx context.Context, orgID string, ids []string, dir Direction) ([]Edge, error) {
	c.mu.Lock()
	c.neighbours++
	c.maxIDs = max(c.maxIDs, len(ids))
	c.asked = append(c.asked, append([]string(nil), ids...))
	c.mu.Unlock()
	return c.Store.Neighbours(ctx, orgID, ids, dir)
}

func (c *countingStore) Nodes(ctx context.Context, orgID string, ids []string) ([]Node, error) {
	c.mu.Lock()
	c.nodes++
	c.maxIDs = max(c.maxIDs, len(ids))
	c.mu.Unlock()
	return c.Store.Nodes(ctx, orgID, ids)
}

// TestLevelByLevel: a neighbourhood asks the store one Neighbours call per
// level (plus the frontier's), only for the frontier, in batches of at most
// Limits.Batch ids.
func TestLevelByLevel(t *testing.T) {
	s, ids, err := Synthesize(SynthConfig{Org: org, Nodes: 3000, Edges: 9000, Layers: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := &countingStore{Store: s}
	g, err := (&Engine{Store: c, Limits: Limits{MaxNodes: 10_000, MaxEdges: 1 << 30}}).Neighbourhood(ctx, org, ids[0], DirDownstream, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, ids := range c.asked {
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("node %s asked twice", id)
			}
			seen[id] = true
		}
	}
	levels := map[int]int{}
	for _, n := range g.Nodes {
		levels[n.Depth]++
	}
	wantCalls := 0
	for d := 0; d <= 3; d++ {
		wantCalls += (levels[d] + DefaultBatch - 1) / DefaultBatch
	}
	if c.neighbours != wantCalls || c.maxIDs > DefaultBatch || len(seen) != len(g.Nodes) {
		t.Errorf("%d Neighbours calls (want %d), up to %d ids, %d asked for %d nodes", c.neighbours, wantCalls, c.maxIDs, len(seen), len(g.Nodes))
	}
	c2 := &countingStore{Store: s}
	if _, err := (&Engine{Store: c2, Limits: Limits{Batch: 7}}).Downstream(ctx, org, ids[:3], 500); err != nil {
		t.Fatal(err)
	}
	if c2.maxIDs > 7 {
		t.Errorf("batch of %d ids", c2.maxIDs)
	}
}

func TestCancelled(t *testing.T) {
	s, ids, err := Synthesize(SynthConfig{Org: org, Nodes: 1000, Edges: 3000, Layers: 5, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Neighbourhood(ctx, s, org, ids[0], DirBoth, 5); !errors.Is(err, context.Canceled) {
		t.Errorf("neighbourhood: %v", err)
	}
	if _, err := Downstream(ctx, s, org, ids[:1], 10); !errors.Is(err, context.Canceled) {
		t.Errorf("downstream: %v", err)
	}
	if err := CheckEdge(ctx, s, org, ids[0], ids[1]); !errors.Is(err, context.Canceled) {
		t.Errorf("check: %v", err)
	}
}

func TestDownstreamDetails(t *testing.T) {
	s := NewMemStore()
	ids := named(t, s, org, []string{"a", "b", "c", "z"}, "a>b", "b>c")
	ctx := context.Background()
	br, err := Downstream(ctx, s, org, []string{ids["a"], ids["b"], ids["a"]}, 0)
	if err != nil || len(br.Nodes) != 2 || br.Truncated {
		t.Fatalf("%+v %v", br, err)
	}
	// b is a start and downstream of a: listed at depth 1.
	if got := fmt.Sprintf("%s%d %s%d", br.Nodes[0].Name, br.Nodes[0].Depth, br.Nodes[1].Name, br.Nodes[1].Depth); !sameWords(got, "b1 c1") {
		t.Errorf("%+v", br.Nodes)
	}
	if br, _ := Downstream(ctx, s, org, []string{ids["z"]}, 5); len(br.Nodes) != 0 || br.Nodes == nil {
		t.Errorf("isolated node: %+v", br)
	}
	if br, _ := Downstream(ctx, s, org, nil, 5); len(br.Nodes) != 0 {
		t.Errorf("no start: %+v", br)
	}
	if br, _ := Downstream(ctx, s, org, []string{ids["a"]}, 1); len(br.Nodes) != 1 || !br.Truncated {
		t.Errorf("limit 1: %+v", br)
	}
}

// TestAddEdgeConcurrent adds random edges from many goroutines: AddEdge
// serialises check and insert, so the graph stays acyclic.
func TestAddEdgeConcurrent(t *testing.T) {
	s := NewMemStore()
	var names []string
	for i := range 30 {
		names = append(names, fmt.Sprintf("n%d", i))
	}
	ids := named(t, s, org, names)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for range 200 {
				_, _ = s.AddEdge(context.Background(), nil, org, ids[names[r.IntN(30)]], ids[names[r.IntN(30)]], time.Now())
			}
		}()
	}
	wg.Wait()
	g := s.Graph(org)
	o := &oracle{edges: g.Edges}
	for _, id := range ids {
		if o.reaches(id, id) {
			t.Fatal("cycle after concurrent AddEdge")
		}
	}
	if len(g.Edges) == 0 {
		t.Fatal("no edge added")
	}
}

func TestSynthesize(t *testing.T) {
	cfg := SynthConfig{Org: org, Nodes: 2000, Edges: 6000, Layers: 8, Seed: 9}
	a, ida, err := Synthesize(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, idb, _ := Synthesize(cfg)
	ga, gb := a.Graph(org), b.Graph(org)
	if len(ga.Edges) != 6000 || len(ga.Nodes) != 2000 || ida[17] != idb[17] || ga.Edges[100] != gb.Edges[100] {
		t.Fatal("not deterministic or wrong size")
	}
	o := &oracle{edges: ga.Edges}
	for _, id := range ida[:50] {
		if o.reaches(id, id) {
			t.Fatal("synthetic graph has a cycle")
		}
	}
}
