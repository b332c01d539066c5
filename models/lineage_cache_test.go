package models_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// walker returns the store Walker gives for orgID and whether it is the
// in-memory copy.
func walker(t *testing.T, db *models.DB, orgID string) (lineage.Store, bool) {
	t.Helper()
	st, err := models.NewStores(db).Lineage.Walker(context.Background(), orgID)
	if err != nil {
		t.Fatal(err)
	}
	_, isCopy := st.(*lineage.MemStore)
	return st, isCopy
}

// copyOf has the process load its copy of orgID's graph and returns it.
func copyOf(t *testing.T, db *models.DB, orgID string) lineage.Store {
	t.Helper()
	if _, isCopy := walker(t, db, orgID); !isCopy {
		models.WaitLineageLoads(db)
	}
	st, isCopy := walker(t, db, orgID)
	if !isCopy {
		t.Fatal("no in-memory copy of the graph after its load")
	}
	return st
}

// sameWalks checks that neighbourhoods and blast radii on the copy equal
// those on SQL, for random nodes of ids.
func sameWalks(t *testing.T, db *models.DB, orgID string, copy lineage.Store, ids []string, seed uint64) {
	t.Helper()
	ctx := context.Background()
	sql := &lineage.Engine{Store: models.NewStores(db).Lineage, Limits: lineage.Limits{MaxNodes: 150, MaxEdges: 400}}
	mem := &lineage.Engine{Store: copy, Limits: sql.Limits}
	rng := rand.New(rand.NewPCG(seed, 9))
	for i := range 30 {
		id := ids[rng.IntN(len(ids))]
		dir := []lineage.Direction{lineage.DirBoth, lineage.DirDownstream, lineage.DirUpstream}[i%3]
		depth := 1 + rng.IntN(6)
		want, err := sql.Neighbourhood(ctx, orgID, id, dir, depth)
		if err != nil {
			t.Fatal(err)
		}
		got, err := mem.Neighbourhood(ctx, orgID, id, dir, depth)
		if err != nil {
			t.Fatal(err)
		}
		if w, g := lineageJSON(t, want), lineageJSON(t, got); w != g {
			t.Fatalf("neighbourhood %s depth %d of %s on the copy:\n got %s\nwant %s", dir, depth, id, g, w)
		}
		starts := []string{id, ids[rng.IntN(len(ids))]}
		wantBR, err := sql.Downstream(ctx, orgID, starts, 50)
		if err != nil {
			t.Fatal(err)
		}
		gotBR, err := mem.Downstream(ctx, orgID, starts, 50)
		if err != nil {
			t.Fatal(err)
		}
		if w, g := lineageJSON(t, wantBR), lineageJSON(t, gotBR); w != g {
			t.Fatalf("blast radius of %v on the copy:\n got %s\nwant %s", starts, g, w)
		}
	}
}

// TestLineageWalkerCopyFollowsEveryChange holds the in-memory copies of
// graphs to the stored graph: a copy answers the walks exactly as SQL
// does; after every kind of write it is no longer used (the walks read
// SQL) until a copy of the new graph is loaded; a write that changes
// nothing, a rolled-back write and another organisation's write keep it.
func TestLineageWalkerCopyFollowsEveryChange(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org, other := newOrg(t, s, "Acme"), newOrg(t, s, "Other")
		models.SetLineageReloadGap(db, 0)
		_, ids := lineageSynth(t, s, org.ID, 300, 900, 6, 21)
		lineageSynth(t, s, other.ID, 40, 90, 3, 22)

		sameWalks(t, db, org.ID, copyOf(t, db, org.ID), ids, 1)

		// stale checks that the write just made retired the copy, then
		// that the next copy has it (check) and walks as SQL does.
		stale := func(what string, check func(copy lineage.Store) error) {
			t.Helper()
			if _, isCopy := walker(t, db, org.ID); isCopy {
				t.Fatalf("after %s the old copy was still used", what)
			}
			c := copyOf(t, db, org.ID)
			if err := check(c); err != nil {
				t.Fatalf("the copy loaded after %s: %v", what, err)
			}
			sameWalks(t, db, org.ID, c, ids, uint64(len(what)))
		}
		kept := func(what string) {
			t.Helper()
			if _, isCopy := walker(t, db, org.ID); !isCopy {
				t.Fatalf("after %s the copy was dropped", what)
			}
		}
		hasNode := func(id, name string) func(lineage.Store) error {
			return func(c lineage.Store) error {
				ns, err := c.Nodes(ctx, org.ID, []string{id})
				if err != nil {
					return err
				}
				if name == "" && len(ns) != 0 {
					return errors.New("a deleted node is still there")
				}
				if name != "" && (len(ns) != 1 || ns[0].Name != name) {
					return errors.New("the node is missing or has its old name")
				}
				return nil
			}
		}
		edges := func(id string, dir lineage.Direction, want int) func(lineage.Store) error {
			return func(c lineage.Store) error {
				es, err := c.Neighbours(ctx, org.ID, []string{id}, dir)
				if err != nil {
					return err
				}
				if len(es) != want {
					return errors.New("the node's edges are not the stored ones")
				}
				return nil
			}
		}

		src := lineageNode(t, s, org.ID, lineage.TypeSource, "7")
		stale("a new node", hasNode(src.ID, "7"))
		if _, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeSource, "7", "orders db"); err != nil {
			t.Fatal(err)
		}
		stale("a renamed node", hasNode(src.ID, "orders db"))
		if _, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeSource, "7", "orders db"); err != nil {
			t.Fatal(err)
		}
		kept("a node ensured as it was")

		tbl := lineageNode(t, s, org.ID, lineage.TypeTable, "7/orders")
		copyOf(t, db, org.ID)
		if err := s.Lineage.EnsureEdge(ctx, org.ID, src.ID, tbl.ID); err != nil {
			t.Fatal(err)
		}
		stale("an automatic edge", edges(src.ID, lineage.DirDownstream, 1))
		if err := s.Lineage.EnsureEdge(ctx, org.ID, src.ID, tbl.ID); err != nil {
			t.Fatal(err)
		}
		kept("an automatic edge ensured again")

		e, err := s.Lineage.AddEdge(ctx, org.ID, tbl.ID, ids[0], "u", testNow(), lineage.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		stale("an added edge", edges(tbl.ID, lineage.DirDownstream, 1))

		rollback := errors.New("rollback")
		err = db.WithTx(ctx, func(ctx context.Context) error {
			if _, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeReport, "r1", "r1"); err != nil {
				return err
			}
			// On PostgreSQL another connection still sees the graph
			// of the copy (SQLite's one connection is the
			// transaction's until it ends).
			if db.Dialect == models.Postgres {
				if _, isCopy := walker(t, db, org.ID); !isCopy {
					return errors.New("another connection's walker dropped the copy before the commit")
				}
			}
			st, err := s.Lineage.Walker(ctx, org.ID)
			if err != nil {
				return err
			}
			if _, isCopy := st.(*lineage.MemStore); isCopy {
				return errors.New("a walker within a transaction got the copy, which cannot see the transaction's writes")
			}
			return rollback
		})
		if !errors.Is(err, rollback) {
			t.Fatal(err)
		}
		kept("a rolled-back write")

		if err := s.Lineage.DeleteEdge(ctx, org.ID, e.ID); err != nil {
			t.Fatal(err)
		}
		stale("a deleted edge", edges(tbl.ID, lineage.DirDownstream, 0))

		if _, err := s.Lineage.EnsureNode(ctx, other.ID, lineage.TypeSource, "9", "9"); err != nil {
			t.Fatal(err)
		}
		kept("another organisation's write")

		if err := s.Lineage.DeleteByRefPrefix(ctx, org.ID, lineage.TypeTable, "7/"); err != nil {
			t.Fatal(err)
		}
		stale("deleted tables", hasNode(tbl.ID, ""))
		if err := s.Lineage.DeleteByRefs(ctx, org.ID, lineage.TypeSource, []string{"nope"}); err != nil {
			t.Fatal(err)
		}
		kept("a deletion of nothing")
		if err := s.Lineage.DeleteByRefs(ctx, org.ID, lineage.TypeSource, []string{"7"}); err != nil {
			t.Fatal(err)
		}
		stale("a deleted source", hasNode(src.ID, ""))

		more, _, err := lineage.Synthesize(lineage.SynthConfig{Org: org.ID, Nodes: 20, Edges: 30, Layers: 2, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		g := more.Graph(org.ID)
		if err := s.Lineage.Import(ctx, org.ID, g, 0); err != nil {
			t.Fatal(err)
		}
		stale("an import", hasNode(g.Nodes[0].ID, g.Nodes[0].Name))
	})
}

// TestLineageWalkerCopyBounds holds the copies to DQS_LINEAGE_CACHE: a
// graph larger than the bound is never copied (its walks read SQL), the
// least recently used copy makes room for a new one, a graph is not
// reloaded before the gap after its last load (its walks read SQL
// meanwhile), and 0 turns the copies off.
func TestLineageWalkerCopyBounds(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		big, a, b := newOrg(t, s, "Big"), newOrg(t, s, "A"), newOrg(t, s, "B")
		bigMem, _ := lineageSynth(t, s, big.ID, 300, 900, 6, 31)
		aMem, _ := lineageSynth(t, s, a.ID, 40, 90, 3, 32)
		bMem, _ := lineageSynth(t, s, b.ID, 100, 250, 4, 33)
		aSize, bSize := models.LineageGraphBytes(aMem.Graph(a.ID)), models.LineageGraphBytes(bMem.Graph(b.ID))
		limit := aSize + bSize - 1 // one of a and b at a time
		if models.LineageGraphBytes(bigMem.Graph(big.ID)) <= limit {
			t.Fatal("the big graph fits the bound")
		}

		db.SetLineageCache(limit)
		models.SetLineageReloadGap(db, 0)
		for range 2 {
			if _, isCopy := walker(t, db, big.ID); isCopy {
				t.Fatal("a graph larger than the cache was copied")
			}
			models.WaitLineageLoads(db)
		}
		copyOf(t, db, a.ID)
		copyOf(t, db, b.ID)
		if _, isCopy := walker(t, db, a.ID); isCopy {
			t.Fatal("the least recently used copy was kept beyond the cache's bound")
		}
		models.WaitLineageLoads(db) // a back, b out
		if _, isCopy := walker(t, db, b.ID); isCopy {
			t.Fatal("two copies held beyond the cache's bound")
		}
		copyOf(t, db, a.ID)

		models.SetLineageReloadGap(db, time.Hour)
		copyOf(t, db, b.ID)
		if _, err := s.Lineage.EnsureNode(ctx, b.ID, lineage.TypeSource, "new", "new"); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if _, isCopy := walker(t, db, b.ID); isCopy {
				t.Fatal("a copy older than a write was used")
			}
			models.WaitLineageLoads(db)
		}

		db.SetLineageCache(0)
		if _, isCopy := walker(t, db, a.ID); isCopy {
			t.Fatal("a copy was used with the cache off")
		}
		models.WaitLineageLoads(db)
		if _, isCopy := walker(t, db, a.ID); isCopy {
			t.Fatal("a copy was loaded with the cache off")
		}
	})
}

// TestLineageWalkerReadsItsWrites races writers and walkers: a writer's
// walk right after its write, on whatever store Walker gives (the copy or
// SQL), sees the write; and when the writes stop, the copy loaded walks as
// SQL does.
func TestLineageWalkerReadsItsWrites(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		models.SetLineageReloadGap(db, 0)
		_, ids := lineageSynth(t, s, org.ID, 200, 500, 5, 41)
		copyOf(t, db, org.ID)

		const writers, writes = 3, 8
		errc := make(chan error, writers)
		done := make(chan struct{})
		var readers sync.WaitGroup
		for range 2 {
			readers.Add(1)
			go func() { // walkers meanwhile, to load and use copies
				defer readers.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					st, err := s.Lineage.Walker(ctx, org.ID)
					if err == nil {
						_, err = (&lineage.Engine{Store: st}).Neighbourhood(ctx, org.ID, ids[0], lineage.DirBoth, 3)
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		for w := range writers {
			go func() {
				errc <- func() error {
					for i := range writes {
						from, err := s.Lineage.EnsureNode(ctx, org.ID, lineage.TypeSource, fmt.Sprintf("w%d-%d", w, i), "src")
						if err != nil {
							return err
						}
						if err := s.Lineage.EnsureEdge(ctx, org.ID, from.ID, ids[(w*writes+i)%len(ids)]); err != nil {
							return err
						}
						st, err := s.Lineage.Walker(ctx, org.ID)
						if err != nil {
							return err
						}
						es, err := st.Neighbours(ctx, org.ID, []string{from.ID}, lineage.DirDownstream)
						if err != nil {
							return err
						}
						if len(es) != 1 {
							_, isCopy := st.(*lineage.MemStore)
							return fmt.Errorf("a walk right after a write saw %d of its 1 edge (on the copy: %v)", len(es), isCopy)
						}
					}
					return nil
				}()
			}()
		}
		for range writers {
			if err := <-errc; err != nil {
				t.Error(err)
			}
		}
		close(done)
		readers.Wait()
		models.WaitLineageLoads(db)
		sameWalks(t, db, org.ID, copyOf(t, db, org.ID), ids, 5)
		if n, e, err := s.Lineage.Counts(ctx, org.ID); err != nil || n != 200+writers*writes || e != 500+writers*writes {
			t.Fatalf("counts %d nodes %d edges, %v", n, e, err)
		}
	})
}
