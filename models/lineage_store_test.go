package models_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// --- helpers ---------------------------------------------------------------

// lineageSynth builds a seeded random layered DAG for orgID in a MemStore
// and, with the same ids, in the SQL store.
func lineageSynth(t *testing.T, s *models.Stores, orgID string, nodes, edges, layers int, seed uint64) (*lineage.MemStore, []string) {
	t.Helper()
	mem, ids, err := lineage.Synthesize(lineage.SynthConfig{Org: orgID, Nodes: nodes, Edges: edges, Layers: layers, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Lineage.Import(context.Background(), orgID, mem.Graph(orgID), 0); err != nil {
		t.Fatalf("import: %v", err)
	}
	return mem, ids
}

// lineageNode is EnsureNode that must succeed; the node's name is its ref.
func lineageNode(t *testing.T, s *models.Stores, orgID string, typ lineage.NodeType, ref string) lineage.Node {
	t.Helper()
	n, err := s.Lineage.EnsureNode(context.Background(), orgID, typ, ref, ref)
	if err != nil {
		t.Fatalf("ensure node %s %s: %v", typ, ref, err)
	}
	return n
}

// lineageJSON is v as JSON, so answers of the two stores compare exactly
// (times included) whatever their time.Location.
func lineageJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// lineageEdgeNames lists the organisation's edges as sorted "from>to"
// names, and checks Graph returned every node and edge.
func lineageEdgeNames(t *testing.T, s *models.Stores, orgID string) []string {
	t.Helper()
	g, truncated, err := s.Lineage.Graph(context.Background(), orgID, 10_000, 10_000)
	if err != nil || truncated {
		t.Fatalf("graph: truncated %v, %v", truncated, err)
	}
	name := map[string]string{}
	for _, n := range g.Nodes {
		name[n.ID] = n.Name
	}
	out := []string{}
	for _, e := range g.Edges {
		out = append(out, name[e.Source]+">"+name[e.Target])
	}
	slices.Sort(out)
	return out
}

// lineageAcyclic fails the test if the organisation's graph has a cycle
// (Kahn's algorithm over Graph).
func lineageAcyclic(t *testing.T, s *models.Stores, orgID string) {
	t.Helper()
	g, truncated, err := s.Lineage.Graph(context.Background(), orgID, 10_000, 10_000)
	if err != nil || truncated {
		t.Fatalf("graph: truncated %v, %v", truncated, err)
	}
	indeg := map[string]int{}
	out := map[string][]string{}
	for _, e := range g.Edges {
		indeg[e.Target]++
		out[e.Source] = append(out[e.Source], e.Target)
	}
	var queue []string
	for _, n := range g.Nodes {
		if indeg[n.ID] == 0 {
			queue = append(queue, n.ID)
		}
	}
	done := 0
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		done++
		for _, w := range out[v] {
			if indeg[w]--; indeg[w] == 0 {
				queue = append(queue, w)
			}
		}
	}
	if done != len(g.Nodes) {
		t.Fatalf("the graph has a cycle: %d of %d nodes sort topologically", done, len(g.Nodes))
	}
}

func sortedEdges(es []lineage.Edge) []lineage.Edge {
	es = slices.Clone(es)
	slices.SortFunc(es, func(a, b lineage.Edge) int { return strings.Compare(a.ID, b.ID) })
	return es
}

func sortedNodes(ns []lineage.Node) []lineage.Node {
	ns = slices.Clone(ns)
	slices.SortFunc(ns, func(a, b lineage.Node) int { return strings.Compare(a.ID, b.ID) })
	return ns
}

// --- tests -----------------------------------------------------------------

// TestLineageStoreMatchesMemStore: the SQL store answers the engine as
// lineage.MemStore does over the same random DAG: raw Neighbours and Nodes
// (unknown and other organisations' ids among those asked, and more ids
// than one statement takes), neighbourhoods of every direction and several
// depths with the default limits and with small ones (batching and
// truncation), blast radii, and the verdict of cycle checks.
func TestLineageStoreMatchesMemStore(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		mem, ids := lineageSynth(t, s, org.ID, 300, 900, 6, 11)
		_, otherIDs := lineageSynth(t, s, other.ID, 60, 150, 3, 12)
		rng := rand.New(rand.NewPCG(3, 4))
		pick := func() string { return ids[rng.IntN(len(ids))] }

		// Raw answers, compared as sets (the order is free).
		for i := range 40 {
			var ask []string
			for range 1 + rng.IntN(40) {
				switch rng.IntN(6) {
				case 0:
					ask = append(ask, uuid.NewString())
				case 1:
					ask = append(ask, otherIDs[rng.IntN(len(otherIDs))])
				default:
					ask = append(ask, pick())
				}
			}
			// The engine never asks for an id twice (MemStore would
			// answer twice).
			slices.Sort(ask)
			ask = slices.Compact(ask)
			dir := []lineage.Direction{lineage.DirDownstream, lineage.DirUpstream, lineage.DirBoth}[i%3]
			want, _ := mem.Neighbours(ctx, org.ID, ask, dir)
			got, err := s.Lineage.Neighbours(ctx, org.ID, ask, dir)
			if err != nil {
				t.Fatal(err)
			}
			if w, g := lineageJSON(t, sortedEdges(want)), lineageJSON(t, sortedEdges(got)); w != g {
				t.Fatalf("Neighbours(%s) of %d ids:\n got %s\nwant %s", dir, len(ask), g, w)
			}
			wantN, _ := mem.Nodes(ctx, org.ID, ask)
			gotN, err := s.Lineage.Nodes(ctx, org.ID, ask)
			if err != nil {
				t.Fatal(err)
			}
			if w, g := lineageJSON(t, sortedNodes(wantN)), lineageJSON(t, sortedNodes(gotN)); w != g {
				t.Fatalf("Nodes:\n got %s\nwant %s", g, w)
			}
		}
		// Every node among 12,000 ids: several statements, each edge once.
		many := make([]string, 0, 12_000)
		for len(many) < 12_000-len(ids) {
			many = append(many, uuid.NewString())
		}
		for i, id := range ids {
			many = slices.Insert(many, (i*37)%len(many), id)
		}
		for _, dir := range []lineage.Direction{lineage.DirBoth, lineage.DirUpstream} {
			got, err := s.Lineage.Neighbours(ctx, org.ID, many, dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 900 {
				t.Fatalf("Neighbours(%s) of every node = %d edges, want each of the 900 once", dir, len(got))
			}
			want, _ := mem.Neighbours(ctx, org.ID, many, dir)
			if w, g := lineageJSON(t, sortedEdges(want)), lineageJSON(t, sortedEdges(got)); w != g {
				t.Fatalf("Neighbours(%s) of every node differ", dir)
			}
		}
		if got, err := s.Lineage.Neighbours(ctx, org.ID, otherIDs, lineage.DirBoth); err != nil || len(got) != 0 {
			t.Fatalf("another organisation's ids gave %d edges, %v", len(got), err)
		}
		if got, err := s.Lineage.Nodes(ctx, org.ID, otherIDs); err != nil || len(got) != 0 {
			t.Fatalf("another organisation's ids gave %d nodes, %v", len(got), err)
		}

		// The engine over both stores.
		var shown, truncated int
		for _, lim := range []lineage.Limits{{}, {Batch: 7, MaxNodes: 40, MaxEdges: 120}} {
			memEng := &lineage.Engine{Store: mem, Limits: lim}
			sqlEng := &lineage.Engine{Store: s.Lineage, Limits: lim}
			for range 20 {
				node := pick()
				for _, dir := range []lineage.Direction{lineage.DirDownstream, lineage.DirUpstream, lineage.DirBoth} {
					for _, depth := range []int{1, 2, 3, 5} {
						want, err := memEng.Neighbourhood(ctx, org.ID, node, dir, depth)
						if err != nil {
							t.Fatal(err)
						}
						got, err := sqlEng.Neighbourhood(ctx, org.ID, node, dir, depth)
						if err != nil {
							t.Fatal(err)
						}
						if w, g := lineageJSON(t, want), lineageJSON(t, got); w != g {
							t.Fatalf("Neighbourhood(%s, %s, %d) with %+v:\n got %s\nwant %s", node, dir, depth, lim, g, w)
						}
						shown += len(got.Nodes)
						if got.Truncated {
							truncated++
						}
					}
				}
			}
			for range 20 {
				starts := []string{pick()}
				for range rng.IntN(3) {
					starts = append(starts, pick())
				}
				for _, limit := range []int{5, 100, 0} {
					want, err := memEng.Downstream(ctx, org.ID, starts, limit)
					if err != nil {
						t.Fatal(err)
					}
					got, err := sqlEng.Downstream(ctx, org.ID, starts, limit)
					if err != nil {
						t.Fatal(err)
					}
					if w, g := lineageJSON(t, want), lineageJSON(t, got); w != g {
						t.Fatalf("Downstream(%v, %d) with %+v:\n got %s\nwant %s", starts, limit, lim, g, w)
					}
				}
			}
		}
		// Guard against a vacuous comparison: the walks reached real
		// neighbourhoods, some of them over the small limits.
		t.Logf("%d nodes shown, %d neighbourhoods truncated", shown, truncated)
		if shown < 5000 || truncated < 20 {
			t.Fatalf("the neighbourhoods compared are too small: %d nodes shown, %d truncated", shown, truncated)
		}

		// Cycle checks agree on the verdict (the path found may differ with
		// the order of the answers; the SQL one must be a real path).
		var cycles int
		for range 150 {
			from, to := pick(), pick()
			want := lineage.CheckEdge(ctx, mem, org.ID, from, to)
			got := lineage.CheckEdge(ctx, s.Lineage, org.ID, from, to)
			if errs.Public(want).Status != errs.Public(got).Status || (want == nil) != (got == nil) {
				t.Fatalf("CheckEdge(%s, %s) = %v, MemStore says %v", from, to, got, want)
			}
			var ce *lineage.CycleError
			if errors.As(got, &ce) {
				cycles++
				if ce.Path[0] != to || ce.Path[len(ce.Path)-1] != from {
					t.Fatalf("cycle path %v does not run from %s to %s", ce.Path, to, from)
				}
				for i := 0; i+1 < len(ce.Path); i++ {
					out, _ := mem.Neighbours(ctx, org.ID, ce.Path[i:i+1], lineage.DirDownstream)
					if !slices.ContainsFunc(out, func(e lineage.Edge) bool { return e.Target == ce.Path[i+1] }) {
						t.Fatalf("cycle path %v: no edge %s → %s", ce.Path, ce.Path[i], ce.Path[i+1])
					}
				}
			}
		}
		if cycles == 0 {
			t.Fatal("no random edge would close a cycle: the comparison proves nothing")
		}
	})
}

// TestLineageOrgIsolation: another organisation's nodes are invisible to
// every call: nothing from Neighbours and Nodes, 404 from NodeByRef,
// AddEdge and EnsureEdge, and neither Graph nor the deletions cross over.
func TestLineageOrgIsolation(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		a, b := newOrg(t, s, "A"), newOrg(t, s, "B")
		a1, a2 := lineageNode(t, s, a.ID, lineage.TypeSource, "1"), lineageNode(t, s, a.ID, lineage.TypeTable, "1/t")
		b1, b2 := lineageNode(t, s, b.ID, lineage.TypeSource, "1"), lineageNode(t, s, b.ID, lineage.TypeTable, "1/t")
		lineageNode(t, s, a.ID, lineage.TypeReport, "only-a")
		if a1.ID == b1.ID || a2.ID == b2.ID {
			t.Fatal("two organisations share a node")
		}
		if err := s.Lineage.EnsureEdge(ctx, a.ID, a1.ID, a2.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Lineage.AddEdge(ctx, b.ID, b1.ID, b2.ID, "u", testNow(), lineage.Limits{}); err != nil {
			t.Fatal(err)
		}

		if es, err := s.Lineage.Neighbours(ctx, b.ID, []string{a1.ID, a2.ID}, lineage.DirBoth); err != nil || len(es) != 0 {
			t.Fatalf("B sees A's edges: %v %v", es, err)
		}
		if ns, err := s.Lineage.Nodes(ctx, b.ID, []string{a1.ID, a2.ID}); err != nil || len(ns) != 0 {
			t.Fatalf("B sees A's nodes: %v %v", ns, err)
		}
		_, err := s.Lineage.NodeByRef(ctx, b.ID, lineage.TypeReport, "only-a")
		wantErr(t, err, errs.ErrNotFound)
		_, err = s.Lineage.AddEdge(ctx, b.ID, b2.ID, a1.ID, "u", testNow(), lineage.Limits{})
		wantErr(t, err, errs.ErrNotFound)
		_, err = s.Lineage.AddEdge(ctx, b.ID, a2.ID, a1.ID, "u", testNow(), lineage.Limits{})
		wantErr(t, err, errs.ErrNotFound)
		wantErr(t, s.Lineage.EnsureEdge(ctx, b.ID, b2.ID, a1.ID), errs.ErrNotFound)
		_, err = lineage.Neighbourhood(ctx, s.Lineage, b.ID, a1.ID, lineage.DirBoth, 1)
		wantErr(t, err, errs.ErrNotFound)

		if got := lineageEdgeNames(t, s, b.ID); !slices.Equal(got, []string{"1>1/t"}) {
			t.Fatalf("B's graph = %v", got)
		}
		if n, e, err := s.Lineage.Counts(ctx, a.ID); err != nil || n != 3 || e != 1 {
			t.Fatalf("A's counts = %d nodes %d edges, %v; want 3, 1", n, e, err)
		}
		if err := s.Lineage.DeleteByRefs(ctx, b.ID, lineage.TypeSource, []string{"1"}); err != nil {
			t.Fatal(err)
		}
		if err := s.Lineage.DeleteByRefPrefix(ctx, b.ID, lineage.TypeTable, "1/"); err != nil {
			t.Fatal(err)
		}
		if n, e, err := s.Lineage.Counts(ctx, b.ID); err != nil || n != 0 || e != 0 {
			t.Fatalf("B's counts after deleting = %d nodes %d edges, %v; want 0, 0", n, e, err)
		}
		if n, e, err := s.Lineage.Counts(ctx, a.ID); err != nil || n != 3 || e != 1 {
			t.Fatalf("A's counts after B deleted = %d nodes %d edges, %v; want 3, 1", n, e, err)
		}
	})
}

// TestLineageEnsureNode: one node per (type, ref), renamed when its name
// changes, names cut to 1024 bytes on a character boundary; concurrent
// callers, with or without their own transactions, get the same row.
func TestLineageEnsureNode(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		first, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeSource, "42", "warehouse")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := uuid.Parse(first.ID); err != nil || first.Type != lineage.TypeSource || first.Name != "warehouse" || first.RefID != "42" {
			t.Fatalf("created %+v, %v", first, err)
		}
		again, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeSource, "42", "warehouse")
		if err != nil || again != first {
			t.Fatalf("again = %+v, %v; want %+v", again, err, first)
		}
		renamed, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeSource, "42", "lake")
		if err != nil || renamed.ID != first.ID || renamed.Name != "lake" {
			t.Fatalf("renamed = %+v, %v", renamed, err)
		}
		if got, err := s.Lineage.NodeByRef(ctx, org.ID, lineage.TypeSource, "42"); err != nil || got != renamed {
			t.Fatalf("NodeByRef = %+v, %v; want %+v", got, err, renamed)
		}
		table, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeTable, "42", "t")
		if err != nil || table.ID == first.ID {
			t.Fatalf("the same ref of another type = %+v, %v; want a node of its own", table, err)
		}
		_, err = s.Lineage.NodeByRef(ctx, org.ID, lineage.TypeFile, "42")
		wantErr(t, err, errs.ErrNotFound)

		long := strings.Repeat("a", 1023) + "é" // 1025 bytes: the é straddles the cut
		cut, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeTable, "42/"+long, long)
		if err != nil || cut.Name != strings.Repeat("a", 1023) || cut.RefID != "42/"+long {
			t.Fatalf("long name = %d bytes %q…, %v; want 1023 bytes", len(cut.Name), cut.Name[:min(8, len(cut.Name))], err)
		}
		exact := strings.Repeat("é", 512) // 1024 bytes: kept whole
		if n, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeTable, "exact", exact); err != nil || n.Name != exact {
			t.Fatalf("1024-byte name = %d bytes, %v", len(n.Name), err)
		}
		if _, err := s.Lineage.EnsureNode(ctx, org.ID, "view", "x", "x"); errs.Public(err).Status != 400 {
			t.Fatalf("bad type: %v", err)
		}
		if _, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeTable, "", "x"); err == nil {
			t.Fatal("an empty ref was accepted")
		}
		if _, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeTable, "x", " "); errs.Public(err).Status != 400 {
			t.Fatalf("blank name: %v", err)
		}

		// Concurrent callers, then concurrent transactions that also link
		// the node (EnsureEdge).
		for _, inTx := range []bool{false, true} {
			ref := fmt.Sprintf("race-%v", inTx)
			const n = 12
			got := make([]lineage.Node, n)
			errc := make([]error, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					if !inTx {
						got[i], errc[i] = s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeTable, ref, "race")
						return
					}
					errc[i] = db.WithTx(ctx, func(ctx context.Context) error {
						var err error
						if got[i], err = s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeTable, ref, "race"); err != nil {
							return err
						}
						return s.Lineage.EnsureEdge(ctx, org.ID, first.ID, got[i].ID)
					})
				}()
			}
			close(start)
			wg.Wait()
			for i := range n {
				if errc[i] != nil || got[i].ID != got[0].ID {
					t.Fatalf("in tx %v: caller %d got %+v, %v; caller 0 got %+v", inTx, i, got[i], errc[i], got[0])
				}
			}
			if c := countRows(t, db, &models.LineageNode{}, "org_id = ? AND type = ? AND ref_id = ?", org.ID, "table", ref); c != 1 {
				t.Fatalf("in tx %v: %d rows for one ref", inTx, c)
			}
		}
		if c := countRows(t, db, &models.LineageEdge{}, "org_id = ?", org.ID); c != 1 {
			t.Fatalf("%d edges after racing EnsureEdge, want 1", c)
		}
	})
}

// TestLineageAddEdge: a user's edge is stored with its author and time;
// a cycle is a 400 naming the path, a duplicate (of a user's or an
// automatic edge) a 409 carrying the existing edge, an unknown node a 404,
// a malformed id or a self-loop a 400; the limits reach the engine;
// EnsureEdge is idempotent.
func TestLineageAddEdge(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		a, b := lineageNode(t, s, org.ID, lineage.TypeSource, "a"), lineageNode(t, s, org.ID, lineage.TypeTable, "b")
		c, d := lineageNode(t, s, org.ID, lineage.TypePipeline, "c"), lineageNode(t, s, org.ID, lineage.TypeReport, "d")
		now := testNow()
		add := func(from, to string) (lineage.Edge, error) {
			return s.Lineage.AddEdge(ctx, org.ID, from, to, "user-1", now, lineage.Limits{})
		}
		ab, err := s.Lineage.AddEdge(ctx, org.ID, strings.ToUpper(a.ID), b.ID, "user-1", now, lineage.Limits{})
		if err != nil || ab.Source != a.ID || ab.Target != b.ID || !ab.CreatedAt.Equal(now) {
			t.Fatalf("a→b = %+v, %v", ab, err)
		}
		var row models.LineageEdge
		if err := db.Gorm.Where("id = ?", ab.ID).Take(&row).Error; err != nil || row.OrgID != org.ID || row.CreatedBy != "user-1" {
			t.Fatalf("stored a→b = %+v, %v", row, err)
		}
		if _, err := add(b.ID, c.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := add(c.ID, d.ID); err != nil {
			t.Fatal(err)
		}

		_, err = add(d.ID, a.ID)
		wantErr(t, err, errs.ErrBadRequest)
		var ce *lineage.CycleError
		if !errors.As(err, &ce) || !slices.Equal(ce.Path, []string{a.ID, b.ID, c.ID, d.ID}) {
			t.Fatalf("cycle error = %#v", err)
		}
		if msg, want := errs.Public(err).Message, `the edge "d" → "a" would close a cycle: the path "a" → "b" → "c" → "d" already exists`; msg != want {
			t.Fatalf("cycle message = %q, want %q", msg, want)
		}

		_, err = add(a.ID, b.ID)
		wantErr(t, err, errs.ErrConflict)
		var de *lineage.DuplicateEdgeError
		if !errors.As(err, &de) || de.Existing.ID != ab.ID {
			t.Fatalf("duplicate error = %#v, want one carrying %s", err, ab.ID)
		}
		if err := s.Lineage.EnsureEdge(ctx, org.ID, a.ID, d.ID); err != nil {
			t.Fatal(err)
		}
		if err := s.Lineage.EnsureEdge(ctx, org.ID, strings.ToUpper(a.ID), d.ID); err != nil {
			t.Fatalf("EnsureEdge again: %v", err)
		}
		_, err = add(a.ID, d.ID)
		wantErr(t, err, errs.ErrConflict)

		_, err = add(a.ID, uuid.NewString())
		wantErr(t, err, errs.ErrNotFound)
		_, err = add(uuid.NewString(), a.ID)
		wantErr(t, err, errs.ErrNotFound)
		_, err = add("not-a-uuid", a.ID)
		wantErr(t, err, errs.ErrBadRequest)
		_, err = add(a.ID, a.ID)
		wantErr(t, err, errs.ErrBadRequest)
		wantErr(t, s.Lineage.EnsureEdge(ctx, org.ID, a.ID, uuid.NewString()), errs.ErrNotFound)
		wantErr(t, s.Lineage.EnsureEdge(ctx, org.ID, a.ID, a.ID), errs.ErrBadRequest)

		// A check that must reach two nodes, allowed one.
		x := lineageNode(t, s, org.ID, lineage.TypeReport, "x")
		_, err = s.Lineage.AddEdge(ctx, org.ID, d.ID, x.ID, "user-1", now, lineage.Limits{MaxVisited: 1})
		wantErr(t, err, errs.ErrLimitExceeded)

		if got, want := lineageEdgeNames(t, s, org.ID), []string{"a>b", "a>d", "b>c", "c>d"}; !slices.Equal(got, want) {
			t.Fatalf("edges = %v, want %v", got, want)
		}
		if c := countRows(t, db, &models.LineageEdge{}, "org_id = ? AND created_by = ?", org.ID, ""); c != 1 {
			t.Fatalf("%d automatic edges, want 1 (a→d)", c)
		}
	})
}

// TestLineageAddEdgeRace: concurrent AddEdge calls cannot close a cycle
// together: of a→b and b→a exactly one succeeds, of the three edges of a
// triangle exactly two, of one edge asked six times exactly one; the graph
// stays acyclic. Several rounds, on both databases.
func TestLineageAddEdgeRace(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		// race runs the edges at once and returns their errors.
		race := func(edges [][2]string) []error {
			out := make([]error, len(edges))
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i, e := range edges {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					_, out[i] = s.Lineage.AddEdge(ctx, org.ID, e[0], e[1], "user-1", testNow(), lineage.Limits{})
				}()
			}
			close(start)
			wg.Wait()
			return out
		}
		// tally counts successes and fails on anything but want.
		tally := func(errs []error, want func(error) bool) int {
			t.Helper()
			ok := 0
			for _, err := range errs {
				switch {
				case err == nil:
					ok++
				case !want(err):
					t.Fatalf("unexpected error: %v", err)
				}
			}
			return ok
		}
		isCycle := func(err error) bool { var ce *lineage.CycleError; return errors.As(err, &ce) }
		isDup := func(err error) bool { var de *lineage.DuplicateEdgeError; return errors.As(err, &de) }
		for round := range 8 {
			n := func(name string) string {
				return lineageNode(t, s, org.ID, lineage.TypeTable, fmt.Sprintf("%s%d", name, round)).ID
			}
			a, b := n("a"), n("b")
			if ok := tally(race([][2]string{{a, b}, {b, a}}), isCycle); ok != 1 {
				t.Fatalf("round %d: %d of a→b, b→a succeeded, want 1", round, ok)
			}
			x, y, z := n("x"), n("y"), n("z")
			if ok := tally(race([][2]string{{x, y}, {y, z}, {z, x}}), isCycle); ok != 2 {
				t.Fatalf("round %d: %d of a triangle's edges succeeded, want 2", round, ok)
			}
			p, q := n("p"), n("q")
			if ok := tally(race([][2]string{{p, q}, {p, q}, {p, q}, {p, q}, {p, q}, {p, q}}), isDup); ok != 1 {
				t.Fatalf("round %d: %d of six identical edges succeeded, want 1", round, ok)
			}
		}
		if _, e, err := s.Lineage.Counts(ctx, org.ID); err != nil || e != 8*(1+2+1) {
			t.Fatalf("%d edges, %v; want %d", e, err, 8*4)
		}
		lineageAcyclic(t, s, org.ID)
	})
}

// TestLineageGraph: the whole graph in a stable order (nodes by type, sources
// and tables first, name
// in byte order, id; edges by creation, id), cut to at most maxNodes nodes
// and maxEdges edges, edges only between the nodes returned, truncated
// exactly when something was left out.
func TestLineageGraph(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, empty := newOrg(t, s, "Acme"), newOrg(t, s, "Empty")
		nodes := map[string]lineage.Node{}
		for _, spec := range []struct {
			t    lineage.NodeType
			name string
		}{{lineage.TypeTable, "b"}, {lineage.TypeTable, "B"}, {lineage.TypeTable, "a"}, {lineage.TypeSource, "z"},
			{lineage.TypeReport, "m"}, {lineage.TypePipeline, "p"}} {
			nodes[spec.name] = lineageNode(t, s, org.ID, spec.t, spec.name)
		}
		// Sources, tables, pipelines, reports; byte order puts "B" before "a".
		wantOrder := []string{"z", "B", "a", "b", "p", "m"}
		t0 := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
		var made []lineage.Edge
		for i, e := range []struct {
			from, to string
			at       int
		}{{"z", "B", 3}, {"z", "a", 1}, {"p", "m", 2}, {"B", "m", 0}, {"a", "b", 2}} {
			ed, err := s.Lineage.AddEdge(ctx, org.ID, nodes[e.from].ID, nodes[e.to].ID, "u", t0.Add(time.Duration(e.at)*time.Minute), lineage.Limits{})
			if err != nil {
				t.Fatalf("edge %d: %v", i, err)
			}
			made = append(made, ed)
		}
		// By creation, then id for the two made at minute 2.
		wantEdges := []lineage.Edge{made[3], made[1], made[2], made[4], made[0]}
		if strings.Compare(made[4].ID, made[2].ID) < 0 {
			wantEdges[2], wantEdges[3] = made[4], made[2]
		}

		names := func(g lineage.Graph) []string {
			var out []string
			for _, n := range g.Nodes {
				out = append(out, n.Name)
			}
			return out
		}
		for _, c := range []struct {
			maxNodes, maxEdges int
			nodes              []string
			edges              []lineage.Edge
			truncated          bool
		}{
			{100, 100, wantOrder, wantEdges, false},
			{6, 5, wantOrder, wantEdges, false},
			{6, 4, wantOrder, wantEdges[:4], true},
			{5, 100, wantOrder[:5], []lineage.Edge{made[1], made[4], made[0]}, true},
			{4, 1, wantOrder[:4], []lineage.Edge{made[1]}, true},
			{2, 100, wantOrder[:2], []lineage.Edge{made[0]}, true},
			{0, 0, nil, nil, true},
		} {
			g, truncated, err := s.Lineage.Graph(ctx, org.ID, c.maxNodes, c.maxEdges)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(g), c.nodes) || truncated != c.truncated {
				t.Fatalf("Graph(%d, %d) nodes = %v truncated %v, want %v %v", c.maxNodes, c.maxEdges, names(g), truncated, c.nodes, c.truncated)
			}
			if w, gotE := lineageJSON(t, append([]lineage.Edge{}, c.edges...)), lineageJSON(t, g.Edges); w != gotE {
				t.Fatalf("Graph(%d, %d) edges:\n got %s\nwant %s", c.maxNodes, c.maxEdges, gotE, w)
			}
		}
		g, truncated, err := s.Lineage.Graph(ctx, empty.ID, 10, 10)
		if err != nil || truncated || len(g.Nodes) != 0 || len(g.Edges) != 0 || g.Nodes == nil || g.Edges == nil {
			t.Fatalf("empty graph = %+v, %v, %v", g, truncated, err)
		}
	})
}

// TestLineageDeleteByRefs: deleting a source's node and its tables' nodes
// (by ref prefix, compared exactly: case, and LIKE's wildcards, count)
// removes every edge touching them and nothing else, joins the caller's
// transaction (rolled back with it), and leaves other organisations alone.
func TestLineageDeleteByRefs(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		build := func(orgID string) {
			n := map[string]lineage.Node{}
			for _, ref := range []string{"7", "70"} {
				n[ref] = lineageNode(t, s, orgID, lineage.TypeSource, ref)
			}
			for _, ref := range []string{"7/orders", "7/users", "70/x", "s/one", "S/two", "_/a", "x/b"} {
				n[ref] = lineageNode(t, s, orgID, lineage.TypeTable, ref)
			}
			n["r"] = lineageNode(t, s, orgID, lineage.TypeReport, "r")
			for _, e := range [][2]string{{"7", "7/orders"}, {"7", "7/users"}, {"70", "70/x"}} {
				if err := s.Lineage.EnsureEdge(ctx, orgID, n[e[0]].ID, n[e[1]].ID); err != nil {
					t.Fatal(err)
				}
			}
			for _, e := range [][2]string{{"7/orders", "r"}, {"70/x", "r"}, {"s/one", "r"}, {"S/two", "r"}, {"_/a", "x/b"}} {
				if _, err := s.Lineage.AddEdge(ctx, orgID, n[e[0]].ID, n[e[1]].ID, "u", testNow(), lineage.Limits{}); err != nil {
					t.Fatal(err)
				}
			}
		}
		build(org.ID)
		build(other.ID)
		all := lineageEdgeNames(t, s, org.ID)
		deleteSource := func(ctx context.Context) error {
			if err := s.Lineage.DeleteByRefs(ctx, org.ID, lineage.TypeSource, []string{"7", "nope"}); err != nil {
				return err
			}
			return s.Lineage.DeleteByRefPrefix(ctx, org.ID, lineage.TypeTable, "7/")
		}

		rollback := errors.New("rollback")
		if err := db.WithTx(ctx, func(ctx context.Context) error {
			if err := deleteSource(ctx); err != nil {
				return err
			}
			return rollback
		}); !errors.Is(err, rollback) {
			t.Fatal(err)
		}
		if got := lineageEdgeNames(t, s, org.ID); !slices.Equal(got, all) {
			t.Fatalf("a rolled-back deletion left %v, want %v", got, all)
		}

		if err := db.WithTx(ctx, deleteSource); err != nil {
			t.Fatal(err)
		}
		want := []string{"70/x>r", "70>70/x", "S/two>r", "_/a>x/b", "s/one>r"}
		if got := lineageEdgeNames(t, s, org.ID); !slices.Equal(got, want) {
			t.Fatalf("edges after deleting source 7 = %v, want %v", got, want)
		}
		if n, e, err := s.Lineage.Counts(ctx, org.ID); err != nil || n != 7 || e != 5 {
			t.Fatalf("counts = %d nodes %d edges, %v; want 7, 5", n, e, err)
		}
		for _, ref := range []string{"7/orders", "7/users"} {
			_, err := s.Lineage.NodeByRef(ctx, org.ID, lineage.TypeTable, ref)
			wantErr(t, err, errs.ErrNotFound)
		}

		if err := s.Lineage.DeleteByRefPrefix(ctx, org.ID, lineage.TypeTable, "s/"); err != nil {
			t.Fatal(err)
		}
		if err := s.Lineage.DeleteByRefPrefix(ctx, org.ID, lineage.TypeTable, "_/"); err != nil {
			t.Fatal(err)
		}
		if got, want := lineageEdgeNames(t, s, org.ID), []string{"70/x>r", "70>70/x", "S/two>r"}; !slices.Equal(got, want) {
			t.Fatalf("edges after deleting s/ and _/ = %v, want %v", got, want)
		}
		if _, err := s.Lineage.NodeByRef(ctx, org.ID, lineage.TypeTable, "x/b"); err != nil {
			t.Fatalf("prefix _/ took x/b: %v", err)
		}
		if err := s.Lineage.DeleteByRefPrefix(ctx, org.ID, lineage.TypeTable, ""); err == nil {
			t.Fatal("an empty prefix was accepted")
		}
		if n, e, err := s.Lineage.Counts(ctx, other.ID); err != nil || n != 10 || e != 8 {
			t.Fatalf("the other organisation's counts = %d nodes %d edges, %v; want 10, 8", n, e, err)
		}
	})
}
