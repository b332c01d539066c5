package models

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"sync"
	"time"

	"gorm.io/gorm"

	"github.com/dqs/dqs/lineage"
)

// DefaultLineageCache is the memory a process gives copies of lineage
// graphs by default: a 100,000-node, 300,000-edge graph takes some 72 MB
// (estimated 85 MB by lineageGraphBytes).
const DefaultLineageCache = 256 << 20

// lineageLoadPage is the rows one statement of a graph's load reads: the
// load goes in short statements so that, on SQLite's one connection, the
// service's other queries run between them.
const lineageLoadPage = 10_000

// When an organisation's graph is (re)loaded. A load reads the whole
// graph, more SQL than the walks it spares when the graph changes all the
// time, so after a load the next waits lineageReloadGap (walks read SQL
// meanwhile). A failed load waits lineageLoadRetry, a graph larger than
// the cache lineageTooLargeWait. A copy older than lineageCopyMaxAge is
// reloaded even if its version says it is current: a safety net for rows
// written without the version (by hand, or by a binary from before the
// versions, during a rolling upgrade); it is used while it reloads.
const (
	lineageReloadGap    = 30 * time.Second
	lineageLoadRetry    = time.Minute
	lineageTooLargeWait = 10 * time.Minute
	lineageCopyMaxAge   = 10 * time.Minute
	lineageLoadTimeout  = 5 * time.Minute
)

// lineageCache holds copies of organisations' lineage graphs in memory, so
// that the walks of a large graph (a depth-5 neighbourhood reads tens of
// thousands of edges) run on adjacency lists instead of one SQL statement
// per level and batch. A copy is used only while it is the stored graph:
// every write of a node or an edge adds one to the organisation's row in
// lineage_versions in the writer's transaction (Lineage.changed), and a
// reader compares the copy's version with that row first (one primary-key
// read). A copy that is not current is never used: the walk goes to SQL as
// it would without a cache, and a new copy is loaded in the background, so
// no request waits for a load. The version is read before the rows a copy
// is loaded from, so a write committed during the load leaves the copy
// labelled older than it is, and the next reader reloads it; the reverse,
// a copy missing a write its version claims, cannot happen. The copies of
// every process (API replicas, workers) are checked against the same rows,
// so the cache holds in a cluster too.
//
// Memory: the copies share a bound in bytes (estimated by
// lineageGraphBytes), the least recently used going first; one graph
// loads at a time, and a load stops as soon as its graph is larger than
// the bound, so a process holds at most the bound plus one page of rows.
type lineageCache struct {
	limit     int64
	reloadGap time.Duration
	ctx       context.Context // cancelled by close: stops the loads
	cancel    context.CancelFunc
	loads     sync.WaitGroup
	slot      chan struct{} // one load at a time

	mu     sync.Mutex
	graphs map[string]*cachedGraph // by organisation
	held   int64                   // bytes of the copies held
	clock  uint64                  // ticks at every use, for the LRU order
}

// cachedGraph is what the cache knows of one organisation's graph.
type cachedGraph struct {
	version  int64
	store    *lineage.MemStore // nil: no copy
	size     int64             // estimated bytes of store
	used     uint64            // clock at the last use
	loadedAt time.Time
	loading  bool
	next     time.Time // no load starts before
}

func newLineageCache(limit int64) *lineageCache {
	ctx, cancel := context.WithCancel(context.Background())
	return &lineageCache{limit: limit, reloadGap: lineageReloadGap, ctx: ctx, cancel: cancel,
		slot: make(chan struct{}, 1), graphs: map[string]*cachedGraph{}}
}

// SetLineageCache sets the memory, in bytes, the process may give copies of
// lineage graphs (DQS_LINEAGE_CACHE); 0 turns the copies off, and every
// walk reads SQL. Call it before the DB is used.
func (d *DB) SetLineageCache(limit int64) {
	if d.lineage != nil {
		d.lineage.close()
	}
	d.lineage = nil
	if limit > 0 {
		d.lineage = newLineageCache(limit)
	}
}

// close stops the loads and waits for them. Cancelling under mu orders it
// with startLoad, which adds to loads under mu only before cancellation.
func (c *lineageCache) close() {
	c.mu.Lock()
	c.cancel()
	c.mu.Unlock()
	c.loads.Wait()
}

// changed records a change of organisation orgID's graph: call it in the
// transaction of the change, after the change itself. On PostgreSQL it
// locks the organisation's version row until the transaction ends; the
// transactions that also lock the organisation's row (lockOrg) take that
// one first, and one that bumps the version must not call lockOrg after.
func (s Lineage) changed(ctx context.Context, orgID string) error {
	return s.db.conn(ctx).Exec(`INSERT INTO lineage_versions (org_id, version) VALUES (?, 1)
ON CONFLICT (org_id) DO UPDATE SET version = lineage_versions.version + 1`, orgID).Error
}

// version returns the change count of organisation orgID's graph (0 before
// its first change).
func (s Lineage) version(ctx context.Context, orgID string) (int64, error) {
	var v int64
	err := s.db.conn(ctx).Raw("SELECT version FROM lineage_versions WHERE org_id = ?", orgID).Row().Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// Walker returns the store the walks of organisation orgID's graph should
// read: the in-memory copy when the process holds a current one, otherwise
// the SQL store itself (and a copy is loaded in the background for the
// next walks). Within a transaction it is always the SQL store, which sees
// the transaction's own writes and locks.
func (s Lineage) Walker(ctx context.Context, orgID string) (lineage.Store, error) {
	c := s.db.lineage
	if c == nil {
		return s, nil
	}
	if _, inTx := ctx.Value(txKey{}).(*gorm.DB); inTx {
		return s, nil
	}
	v, err := s.version(ctx, orgID)
	if err != nil {
		return nil, err
	}
	st, load := c.lookup(orgID, v, time.Now())
	if load {
		c.startLoad(s, orgID)
	}
	if st != nil {
		return st, nil
	}
	return s, nil
}

// lookup returns the copy of orgID's graph if it is at version v or newer
// (a copy loaded after the caller read v), and whether a load should
// start: there is no such copy or it is too old, and no load is running
// or waiting out its gap. A starting load is marked, and a copy that is
// no longer current is dropped at once.
func (c *lineageCache) lookup(orgID string, v int64, now time.Time) (*lineage.MemStore, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx.Err() != nil {
		return nil, false
	}
	g := c.graphs[orgID]
	if g == nil {
		g = &cachedGraph{}
		c.graphs[orgID] = g
	}
	var st *lineage.MemStore
	if g.store != nil && g.version >= v {
		c.clock++
		g.used, st = c.clock, g.store
	} else if g.store != nil {
		c.held -= g.size
		g.store, g.size = nil, 0
	}
	stale := st == nil || now.Sub(g.loadedAt) > lineageCopyMaxAge
	if !stale || g.loading || now.Before(g.next) {
		return st, false
	}
	g.loading = true
	c.loads.Add(1)
	return st, true
}

// startLoad loads a copy of orgID's graph in the background, after the
// load running, if any (lookup has marked it and counted it in loads).
func (c *lineageCache) startLoad(s Lineage, orgID string) {
	go func() {
		defer c.loads.Done()
		select {
		case c.slot <- struct{}{}:
		case <-c.ctx.Done():
			c.finishLoad(orgID, 0, nil, 0, c.ctx.Err())
			return
		}
		defer func() { <-c.slot }()
		ctx, cancel := context.WithTimeout(c.ctx, lineageLoadTimeout)
		defer cancel()
		v, g, size, err := s.loadGraph(ctx, orgID, c.limit)
		var st *lineage.MemStore
		if err == nil {
			st = lineage.Snapshot(orgID, g) // outside the lock: walks go on meanwhile
		}
		c.finishLoad(orgID, v, st, size, err)
	}()
}

// errGraphTooLarge stops the load of a graph larger than the cache.
var errGraphTooLarge = errors.New("lineage graph larger than the cache")

// finishLoad stores the outcome of a load: the copy st of size bytes at
// version v, or the load's error.
func (c *lineageCache) finishLoad(orgID string, v int64, st *lineage.MemStore, size int64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.graphs[orgID]
	g.loading = false
	now := time.Now()
	if err != nil {
		if !errors.Is(err, errGraphTooLarge) && c.ctx.Err() == nil {
			slog.Warn("lineage: loading a graph into memory failed; its walks read SQL", "org_id", orgID, "error", err)
		}
		g.next = now.Add(lineageLoadRetry)
		if errors.Is(err, errGraphTooLarge) {
			g.next = now.Add(lineageTooLargeWait)
			c.held -= g.size
			g.store, g.size = nil, 0
		}
		return
	}
	c.held -= g.size
	g.store, g.size = nil, 0
	for c.held+size > c.limit && c.evictOldest() {
	}
	c.clock++
	g.version, g.store, g.size, g.used, g.loadedAt, g.next = v, st, size, c.clock, now, now.Add(c.reloadGap)
	c.held += size
}

// evictOldest drops the least recently used copy; false when none is held.
func (c *lineageCache) evictOldest() bool {
	var oldest *cachedGraph
	for _, g := range c.graphs {
		if g.store != nil && (oldest == nil || g.used < oldest.used) {
			oldest = g
		}
	}
	if oldest == nil {
		return false
	}
	c.held -= oldest.size
	oldest.store, oldest.size = nil, 0
	return true
}

// Estimated bytes of a copy: a node's strings and about 200 bytes of map
// entries, headers and adjacency lists; an edge's id and about 150 bytes
// (its ends share the nodes' strings). Measured: 72 MB for the benchmark's
// 100,000 nodes and 300,000 edges, estimated 85 MB.
const (
	lineageNodeBytes = 200
	lineageEdgeBytes = 150
)

func lineageNodeSize(n lineage.Node) int64 {
	return lineageNodeBytes + int64(len(n.ID)+len(n.Name)+len(n.RefID)+len(n.Type))
}

func lineageEdgeSize(e lineage.Edge) int64 { return lineageEdgeBytes + int64(len(e.ID)) }

// loadGraph reads organisation orgID's whole graph, the version it is at
// least as new as and its estimated size in bytes, in pages of
// lineageLoadPage rows on the organisation's indexes; errGraphTooLarge as
// soon as it is larger than limit bytes.
func (s Lineage) loadGraph(ctx context.Context, orgID string, limit int64) (int64, lineage.Graph, int64, error) {
	v, err := s.version(ctx, orgID)
	if err != nil {
		return 0, lineage.Graph{}, 0, err
	}
	var g lineage.Graph
	var size int64
	// Nodes by (type, ref_hash), the unique index after org_id.
	var lastType, lastHash string
	for first := true; ; first = false {
		q, args := lineagePage("SELECT id, type, name, ref_id, ref_hash FROM lineage_nodes", "type, ref_hash", orgID, first, lastType, lastHash)
		from := len(g.Nodes)
		n, err := s.scanNodePage(ctx, &g.Nodes, &lastType, &lastHash, q, args)
		if err != nil {
			return 0, lineage.Graph{}, 0, err
		}
		for _, nd := range g.Nodes[from:] {
			size += lineageNodeSize(nd)
		}
		if size > limit {
			return v, lineage.Graph{}, 0, errGraphTooLarge
		}
		if n < lineageLoadPage {
			break
		}
	}
	// Edges by (source, target), the unique index after org_id.
	var lastSource, lastTarget string
	for first := true; ; first = false {
		q, args := lineagePage("SELECT "+lineageEdgeColumns+" FROM lineage_edges", "source_node_id, target_node_id", orgID, first, lastSource, lastTarget)
		n := 0
		err := s.scanEdges(ctx, q, args, func(e lineage.Edge) {
			g.Edges = append(g.Edges, e)
			size += lineageEdgeSize(e)
			lastSource, lastTarget = e.Source, e.Target
			n++
		})
		if err != nil {
			return 0, lineage.Graph{}, 0, err
		}
		if size > limit {
			return v, lineage.Graph{}, 0, errGraphTooLarge
		}
		if n < lineageLoadPage {
			break
		}
	}
	return v, g, size, nil
}

// lineagePage is the statement reading the page of organisation orgID's
// rows of sel that follows the key (last1, last2) of the two columns key
// ("a, b", an index after org_id), or the first page.
func lineagePage(sel, key, orgID string, first bool, last1, last2 string) (string, []any) {
	q, args := sel+" WHERE org_id = ?", []any{orgID}
	if !first {
		q += " AND (" + key + ") > (?, ?)"
		args = append(args, last1, last2)
	}
	return q + " ORDER BY " + key + " LIMIT ?", append(args, lineageLoadPage)
}

// scanNodePage runs q, which selects id, type, name, ref_id, ref_hash,
// appends the nodes to out, sets the last row's type and hash, and returns
// the number of rows.
func (s Lineage) scanNodePage(ctx context.Context, out *[]lineage.Node, lastType, lastHash *string, q string, args []any) (int, error) {
	rows, err := s.db.conn(ctx).Raw(q, args...).Rows()
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var nd lineage.Node
		if err := rows.Scan(&nd.ID, lastType, &nd.Name, &nd.RefID, lastHash); err != nil {
			return 0, err
		}
		nd.Type = lineage.NodeType(*lastType)
		*out = append(*out, nd)
		n++
	}
	return n, rows.Err()
}
