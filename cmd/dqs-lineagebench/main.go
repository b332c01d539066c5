// Command dqs-lineagebench measures the lineage engine (package lineage)
// on a seeded random layered DAG: 100,000 nodes and 300,000 edges by
// default. It times depth-5 neighbourhoods of random nodes (both
// directions, downstream, upstream), blast radii and cycle checks, and
// prints p50/p95/max latency, the size of the answers, the peak heap, and
// PASS/MISS against the target: a depth-5 neighbourhood in under 100 ms.
//
//	go run ./cmd/dqs-lineagebench [-nodes N] [-edges N] [-layers N] [-seed N]
//	                              [-queries N] [-depth N] [-maxnodes N]
//	                              [-maxedges N] [-batch N] [-sqlite=false]
//	                              [-sqlqueries N] [-sqlbatch N]
//	                              [-sqlitepragma 'name=value;…'] [-cpuprofile FILE]
//
// The graph is held in lineage.MemStore, which shows the engine's own cost
// (its walk, maps and sorting), and loaded through the models (migrations,
// then Lineage.Import in batches) into a temporary SQLite database, where
// the same neighbourhoods run against the models.Lineage store: one
// indexed IN-list query per BFS level and per 500 ids. With
// $DQS_TEST_POSTGRES_URL set the graph is also loaded into the schema
// dqs_lineagebench of that PostgreSQL server (made afresh, dropped at the
// end) and measured there. The SQL rows sit under the in-memory ones, over
// the same query nodes, and every SQL answer must have the size of the
// in-memory one. Rows under the in-memory ones count the edges the store
// answered and its calls, the work a SQL store has to do.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/lineagesvc"
)

const target = 100 * time.Millisecond

func main() {
	nodes := flag.Int("nodes", 100_000, "nodes of the graph")
	edges := flag.Int("edges", 300_000, "edges of the graph")
	layers := flag.Int("layers", 25, "layers of the DAG")
	seed := flag.Uint64("seed", 1, "seed of the graph and of the queries")
	queries := flag.Int("queries", 200, "queries per kind")
	depth := flag.Int("depth", 5, "depth of the neighbourhoods")
	maxNodes := flag.Int("maxnodes", lineage.DefaultMaxNodes, "Limits.MaxNodes of the engine")
	maxEdges := flag.Int("maxedges", lineage.DefaultMaxEdges, "Limits.MaxEdges of the engine")
	batch := flag.Int("batch", lineage.DefaultBatch, "Limits.Batch of the engine (ids per store call)")
	sqlite := flag.Bool("sqlite", true, "also measure the models.Lineage store on a temporary SQLite database")
	sqlQueries := flag.Int("sqlqueries", 100, "queries per kind against each SQL store (the first ones of the in-memory run's)")
	sqlBatch := flag.Int("sqlbatch", 0, "rows per INSERT when loading a SQL store (0: models.Lineage.Import's default)")
	sqlitePragma := flag.String("sqlitepragma", "", "SQLite pragmas to set after loading, e.g. 'mmap_size=268435456;cache_size=-65536' (default: the service's settings)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the queries (not of the loading) to `file`")
	flag.Parse()
	cfg := config{nodes: *nodes, edges: *edges, layers: *layers, seed: *seed, queries: *queries, depth: *depth,
		maxNodes: *maxNodes, maxEdges: *maxEdges, batch: *batch, sqlite: *sqlite, sqlQueries: max(1, min(*sqlQueries, *queries)),
		sqlBatch: *sqlBatch, sqlitePragma: *sqlitePragma, postgres: os.Getenv("DQS_TEST_POSTGRES_URL"), cpuProfile: *cpuProfile}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "dqs-lineagebench:", err)
		os.Exit(1)
	}
}

type config struct {
	nodes, edges, layers int
	seed                 uint64
	queries, depth       int
	maxNodes, maxEdges   int
	batch                int
	sqlite               bool
	sqlQueries, sqlBatch int
	sqlitePragma         string
	postgres             string // URL of a server to measure too; empty: none
	cpuProfile           string
}

// store is one store the queries run against.
type store struct {
	name string // "" for the in-memory store, else a suffix of the labels
	eng  *lineage.Engine
	// svc, when set, answers the neighbourhoods as the service does: on
	// its in-memory copy of the graph (models.Lineage.Walker) once loaded.
	svc     *lineagesvc.Service
	queries int
	ok      bool // every judged row passed (true until one misses)
}

// neighbourhood answers one neighbourhood on st.
func (st *store) neighbourhood(ctx context.Context, org, id string, dir lineage.Direction, depth int) (*lineage.Subgraph, error) {
	if st.svc != nil {
		return st.svc.Neighbourhood(ctx, org, id, dir, depth)
	}
	return st.eng.Neighbourhood(ctx, org, id, dir, depth)
}

func run(cfg config) error {
	ctx := context.Background()
	const org = "bench-org"
	fmt.Printf("lineage bench: %d nodes, %d edges, %d layers, seed %d, %d queries per kind, depth %d, GOMAXPROCS %d\n",
		cfg.nodes, cfg.edges, cfg.layers, cfg.seed, cfg.queries, cfg.depth, runtime.GOMAXPROCS(0))
	fmt.Printf("limits: MaxNodes %d, MaxEdges %d, batch %d; load average at start: %s\n", cfg.maxNodes, cfg.maxEdges, cfg.batch, loadavg())
	fmt.Println("store: lineage.MemStore (in memory): the engine's own cost;")
	fmt.Printf("       models.Lineage on SQL (one indexed IN-list query per BFS level and per %d ids): rows marked with the database\n", cfg.batch)

	t0 := time.Now()
	mem, ids, err := lineage.Synthesize(lineage.SynthConfig{Org: org, Nodes: cfg.nodes, Edges: cfg.edges, Layers: cfg.layers, Seed: cfg.seed})
	if err != nil {
		return err
	}
	runtime.GC()
	fmt.Printf("graph built in %v; live heap after build %s\n", time.Since(t0).Round(time.Millisecond), mb(heapNow()))

	limits := lineage.Limits{MaxNodes: cfg.maxNodes, MaxEdges: cfg.maxEdges, Batch: cfg.batch}
	work := &counting{Store: mem}
	stores := []*store{{eng: &lineage.Engine{Store: work, Limits: limits}, queries: cfg.queries, ok: true}}
	var g lineage.Graph
	if cfg.sqlite || cfg.postgres != "" {
		g = mem.Graph(org)
	}
	sql, closeSQL, err := sqlStores(ctx, cfg, org, g, limits)
	g = lineage.Graph{}
	defer closeSQL()
	if err != nil {
		return err
	}
	stores = append(stores, sql...)
	runtime.GC()

	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	stop, peak := sampleHeap()
	rng := rand.New(rand.NewPCG(cfg.seed, 42))
	pick := func() string { return ids[rng.IntN(len(ids))] }
	picks := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = pick()
		}
		return out
	}
	open := &lineage.Engine{Store: mem, Limits: lineage.Limits{MaxNodes: cfg.nodes + 1, MaxEdges: 2*cfg.edges + 1, Batch: cfg.batch}}

	// Warm up the code paths, the allocator and the databases' caches.
	for _, st := range stores {
		for _, id := range picks(20) {
			if _, err := st.neighbourhood(ctx, org, id, lineage.DirBoth, cfg.depth); err != nil {
				return err
			}
		}
	}

	fmt.Printf("\n%-44s %9s %9s %9s %9s %9s %6s\n", "query", "p50", "p95", "max", "nodes", "max", "trunc")
	// nb times the neighbourhoods of qs and returns their sizes.
	nb := func(label string, st *store, dir lineage.Direction, judged bool, qs []string) ([]int, bool, error) {
		var cw *counting
		if st.svc == nil {
			cw, _ = st.eng.Store.(*counting)
		}
		var edgesRead, calls []int
		lat := make([]time.Duration, 0, len(qs))
		cpu := make([]time.Duration, 0, len(qs))
		sizes := make([]int, 0, len(qs))
		var sum, most, trunc int
		for _, id := range qs {
			if cw != nil {
				cw.edges, cw.calls = 0, 0
			}
			c, t := cpuNow(), time.Now()
			g, err := st.neighbourhood(ctx, org, id, dir, cfg.depth)
			lat = append(lat, time.Since(t))
			cpu = append(cpu, cpuNow()-c)
			if err != nil {
				return nil, false, err
			}
			if cw != nil {
				edgesRead, calls = append(edgesRead, cw.edges), append(calls, cw.calls)
			}
			sizes = append(sizes, len(g.Nodes))
			sum += len(g.Nodes)
			most = max(most, len(g.Nodes))
			if g.Truncated {
				trunc++
			}
		}
		ok := line(label, lat, sum/len(qs), most, trunc, judged)
		slices.Sort(cpu)
		fmt.Printf("  %-42s %9s %9s %9s\n", "process CPU per query", ms(cpu[len(cpu)/2]), ms(cpu[min(len(cpu)-1, len(cpu)*95/100)]), ms(cpu[len(cpu)-1]))
		if cw != nil {
			// The same for every store: what a SQL store must answer.
			fmt.Printf("  %-42s %9s %9s %9s\n", append([]any{"edges read from the store per query"}, quantiles(edgesRead)...)...)
			fmt.Printf("  %-42s %9s %9s %9s\n", append([]any{"store calls (statements) per query"}, quantiles(calls)...)...)
		}
		return sizes, ok, nil
	}
	for _, dir := range []lineage.Direction{lineage.DirBoth, lineage.DirDownstream, lineage.DirUpstream} {
		// The same nodes for every store, so the rows compare.
		qs := picks(cfg.queries)
		var want []int
		for _, st := range stores {
			label := fmt.Sprintf("neighbourhood depth %d %s", cfg.depth, dir)
			if st.name != "" {
				label += ", " + st.name
			}
			sizes, ok, err := nb(label, st, dir, true, qs[:st.queries])
			if err != nil {
				return fmt.Errorf("%s: %w", label, err)
			}
			st.ok = st.ok && ok
			if want == nil {
				want = sizes
			} else if !slices.Equal(sizes, want[:len(sizes)]) {
				return fmt.Errorf("%s: the answers differ in size from the in-memory store's", label)
			}
		}
	}
	if _, _, err := nb(fmt.Sprintf("neighbourhood depth %d both (no limits, info)", cfg.depth), &store{eng: open}, lineage.DirBoth, false, picks(max(1, cfg.queries/10))); err != nil {
		return err
	}
	eng := stores[0].eng

	for _, limit := range []int{1000, lineage.MaxDownstreamLimit} {
		lat := make([]time.Duration, 0, cfg.queries)
		var sum, most, trunc int
		for range cfg.queries {
			starts := []string{pick(), pick(), pick()}
			t := time.Now()
			br, err := eng.Downstream(ctx, org, starts, limit)
			lat = append(lat, time.Since(t))
			if err != nil {
				return err
			}
			sum += len(br.Nodes)
			most = max(most, len(br.Nodes))
			if br.Truncated {
				trunc++
			}
		}
		line(fmt.Sprintf("blast radius of 3 nodes, limit %d", limit), lat, sum/cfg.queries, most, trunc, false)
	}

	pairs := picks(2 * cfg.queries)
	for _, st := range stores {
		if st.svc != nil {
			continue // cycle checks always read SQL, in the edge's transaction
		}
		// A SQL check that misses may walk a large part of the graph (up
		// to Limits.MaxVisited nodes): half as many keep the run short.
		n := st.queries
		if st.name != "" {
			n = max(1, n/2)
		}
		lat := make([]time.Duration, 0, n)
		var cycles, dups, refused int
		for i := range n {
			from, to := pairs[2*i], pairs[2*i+1]
			t := time.Now()
			err := st.eng.CheckEdge(ctx, org, from, to)
			lat = append(lat, time.Since(t))
			var ce *lineage.CycleError
			var de *lineage.DuplicateEdgeError
			switch {
			case err == nil:
			case asCycle(err, &ce):
				cycles++
			case asDup(err, &de):
				dups++
			default:
				refused++
			}
		}
		label := fmt.Sprintf("cycle check of a random edge (%d would cycle)", cycles)
		if st.name != "" {
			label = fmt.Sprintf("cycle check, %s (%d would cycle)", st.name, cycles)
		}
		line(label, lat, 0, 0, 0, false)
		if dups+refused > 0 {
			fmt.Printf("  (%d duplicates, %d other refusals)\n", dups, refused)
		}
	}

	stop()
	fmt.Printf("\npeak heap during the queries: %s (the graph itself: see above)\n", mb(peak()))
	fmt.Printf("load average at end: %s (%d CPUs): wall-clock latency includes waiting for the CPU\n", loadavg(), runtime.NumCPU())
	fmt.Println("when the load is above the CPU count; the process-CPU rows show the work itself (GC included;")
	fmt.Println("SQLite runs in the process, PostgreSQL's own CPU is not counted).")
	for _, st := range stores {
		where := "in-memory store"
		switch {
		case st.svc != nil:
			where = "the service's path: models.Lineage's in-memory copy of the graph from " + strings.TrimSuffix(st.name, ", in-memory copy")
		case st.name != "":
			where = "models.Lineage on " + st.name
		}
		if st.ok {
			fmt.Printf("PASS: every depth-%d neighbourhood kind has p95 and max under %v (%s)\n", cfg.depth, target, where)
		} else {
			fmt.Printf("MISS: a depth-%d neighbourhood kind is at or above %v at p95 or max (%s)\n", cfg.depth, target, where)
		}
	}
	return nil
}

// counting is a Store that counts the edges it answers and the calls made
// to it, between two resets (one neighbourhood). Not safe for concurrent
// use: the bench runs one query at a time.
type counting struct {
	lineage.Store
	edges, calls int
}

func (c *counting) Neighbours(ctx context.Context, orgID string, ids []string, dir lineage.Direction) ([]lineage.Edge, error) {
	es, err := c.Store.Neighbours(ctx, orgID, ids, dir)
	c.edges += len(es)
	c.calls++
	return es, err
}

func (c *counting) Nodes(ctx context.Context, orgID string, ids []string) ([]lineage.Node, error) {
	c.calls++
	return c.Store.Nodes(ctx, orgID, ids)
}

// quantiles formats the p50, p95 and max of counts.
func quantiles(counts []int) []any {
	slices.Sort(counts)
	return []any{fmt.Sprint(counts[len(counts)/2]), fmt.Sprint(counts[min(len(counts)-1, len(counts)*95/100)]), fmt.Sprint(counts[len(counts)-1])}
}

// line prints one row and reports whether p95 and max are under target.
func line(label string, lat []time.Duration, mean, most, trunc int, judged bool) bool {
	slices.Sort(lat)
	p := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	p50, p95, mx := p(0.50), p(0.95), lat[len(lat)-1]
	ok := p95 < target && mx < target
	mark := ""
	if judged {
		mark = "  PASS"
		if !ok {
			mark = "  MISS"
		}
	}
	sizes := fmt.Sprintf("%9d %9d %6d", mean, most, trunc)
	if mean == 0 && most == 0 {
		sizes = fmt.Sprintf("%9s %9s %6s", "", "", "")
	}
	fmt.Printf("%-44s %9s %9s %9s %s%s\n", label, ms(p50), ms(p95), ms(mx), sizes, mark)
	return ok
}

// cpuNow is the CPU time (user + system) of the whole process so far.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

func mb(b uint64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

const heapMetric = "/memory/classes/heap/objects:bytes"

func heapNow() uint64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap polls the heap every millisecond (runtime/metrics, no
// stop-the-world) until stop is called; peak returns the highest reading.
func sampleHeap() (stop func(), peak func() uint64) {
	var hi atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if h := heapNow(); h > hi.Load() {
				hi.Store(h)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }, hi.Load
}
