// Command dqs-lineagebench measures the lineage engine (package lineage)
// on a seeded random layered DAG held in lineage.MemStore: 100,000 nodes
// and 300,000 edges by default. It times depth-5 neighbourhoods of random
// nodes (both directions, downstream, upstream), blast radii and cycle
// checks, and prints p50/p95/max latency, the size of the answers, the peak
// heap, and PASS/MISS against the target: a depth-5 neighbourhood in under
// 100 ms.
//
//	go run ./cmd/dqs-lineagebench [-nodes N] [-edges N] [-layers N] [-seed N]
//	                              [-queries N] [-depth N] [-maxnodes N]
//
// The in-memory store shows the engine's own cost (its walk, maps and
// sorting); a SQL store adds one query per BFS level and per batch of 500
// ids, which this command does not measure.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dqs/dqs/lineage"
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
	flag.Parse()
	if err := run(*nodes, *edges, *layers, *seed, *queries, *depth, *maxNodes, *maxEdges); err != nil {
		fmt.Fprintln(os.Stderr, "dqs-lineagebench:", err)
		os.Exit(1)
	}
}

func run(nNodes, nEdges, layers int, seed uint64, queries, depth, maxNodes, maxEdges int) error {
	ctx := context.Background()
	const org = "bench-org"
	fmt.Printf("lineage bench: %d nodes, %d edges, %d layers, seed %d, %d queries per kind, depth %d, GOMAXPROCS %d\n",
		nNodes, nEdges, layers, seed, queries, depth, runtime.GOMAXPROCS(0))
	fmt.Printf("limits: MaxNodes %d, MaxEdges %d, batch %d; load average at start: %s\n", maxNodes, maxEdges, lineage.DefaultBatch, loadavg())
	fmt.Println("store: lineage.MemStore (in memory): this measures the engine's cost only;")
	fmt.Println("       the SQL store (one indexed IN-list query per BFS level and per 500 ids) is to be measured separately")

	t0 := time.Now()
	store, ids, err := lineage.Synthesize(lineage.SynthConfig{Org: org, Nodes: nNodes, Edges: nEdges, Layers: layers, Seed: seed})
	if err != nil {
		return err
	}
	runtime.GC()
	fmt.Printf("graph built in %v; live heap after build %s\n", time.Since(t0).Round(time.Millisecond), mb(heapNow()))

	stop, peak := sampleHeap()
	rng := rand.New(rand.NewPCG(seed, 42))
	pick := func() string { return ids[rng.IntN(len(ids))] }
	eng := &lineage.Engine{Store: store, Limits: lineage.Limits{MaxNodes: maxNodes, MaxEdges: maxEdges}}
	open := &lineage.Engine{Store: store, Limits: lineage.Limits{MaxNodes: nNodes + 1, MaxEdges: 2*nEdges + 1}}

	// Warm up the code paths and the allocator.
	for range 20 {
		if _, err := eng.Neighbourhood(ctx, org, pick(), lineage.DirBoth, depth); err != nil {
			return err
		}
	}

	verdict := true
	fmt.Printf("\n%-44s %9s %9s %9s %9s %9s %6s\n", "query", "p50", "p95", "max", "nodes", "max", "trunc")
	nb := func(label string, e *lineage.Engine, dir lineage.Direction, judged bool, n int) error {
		lat := make([]time.Duration, 0, n)
		var sum, most, trunc int
		cpu := make([]time.Duration, 0, n)
		for range n {
			id := pick()
			c, t := cpuNow(), time.Now()
			g, err := e.Neighbourhood(ctx, org, id, dir, depth)
			lat = append(lat, time.Since(t))
			cpu = append(cpu, cpuNow()-c)
			if err != nil {
				return err
			}
			sum += len(g.Nodes)
			most = max(most, len(g.Nodes))
			if g.Truncated {
				trunc++
			}
		}
		ok := line(label, lat, sum/n, most, trunc, judged)
		slices.Sort(cpu)
		fmt.Printf("  %-42s %9s %9s %9s\n", "process CPU per query", ms(cpu[len(cpu)/2]), ms(cpu[min(len(cpu)-1, len(cpu)*95/100)]), ms(cpu[len(cpu)-1]))
		verdict = verdict && ok
		return nil
	}
	for _, c := range []struct {
		dir    lineage.Direction
		e      *lineage.Engine
		suffix string
		judged bool
		n      int
	}{
		{lineage.DirBoth, eng, "", true, queries},
		{lineage.DirDownstream, eng, "", true, queries},
		{lineage.DirUpstream, eng, "", true, queries},
		{lineage.DirBoth, open, " (no limits, info)", false, max(1, queries/10)},
	} {
		if err := nb(fmt.Sprintf("neighbourhood depth %d %s%s", depth, c.dir, c.suffix), c.e, c.dir, c.judged, c.n); err != nil {
			return err
		}
	}

	for _, limit := range []int{1000, lineage.MaxDownstreamLimit} {
		lat := make([]time.Duration, 0, queries)
		var sum, most, trunc int
		for range queries {
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
		line(fmt.Sprintf("blast radius of 3 nodes, limit %d", limit), lat, sum/queries, most, trunc, false)
	}

	lat := make([]time.Duration, 0, queries)
	var cycles, dups, refused int
	for range queries {
		from, to := pick(), pick()
		t := time.Now()
		err := eng.CheckEdge(ctx, org, from, to)
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
	line(fmt.Sprintf("cycle check of a random edge (%d would cycle)", cycles), lat, 0, 0, 0, false)
	if dups+refused > 0 {
		fmt.Printf("  (%d duplicates, %d other refusals)\n", dups, refused)
	}

	stop()
	fmt.Printf("\npeak heap during the queries: %s (the graph itself: see above)\n", mb(peak()))
	fmt.Printf("load average at end: %s (%d CPUs): wall-clock latency includes waiting for the CPU\n", loadavg(), runtime.NumCPU())
	fmt.Println("when the load is above the CPU count; the process-CPU rows show the work itself (GC included).")
	if verdict {
		fmt.Printf("PASS: every depth-%d neighbourhood kind has p95 and max under %v (in-memory store)\n", depth, target)
	} else {
		fmt.Printf("MISS: a depth-%d neighbourhood kind is at or above %v at p95 or max (in-memory store)\n", depth, target)
	}
	return nil
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
