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

// DefaultLineageCache is the nodes and edges, all organisations together,
// a process keeps of lineage graphs in memory by default (about 180 bytes
// each: a 100,000-node, 300,000-edge graph takes some 72 MB).
const DefaultLineageCache = 1_000_000

// lineageLoadPage is the rows one statement of a graph's load reads: the
// load goes in short statements so that, on SQLite's one connection, the
// service's other queries run between them.
const lineageLoadPage = 10_000

// How long a graph whose load failed, or which was larger than the cache,
// is answered from SQL before a new load is tried, whatever its writes
// meanwhile: a graph too large for the cache would otherwise be read up
// to the cache's size after every change.
const (
	lineageLoadRetry    = time.Minute
	lineageTooLargeWait = 10 * time.Minute
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
// The copies share a bound of nodes and edges (the limit), the least
// recently used going first; a graph larger than the bound is not copied.
type lineageCache struct {
	limit  int
	ctx    context.Context // cancelled by DB.Close: stops the loads
	cancel context.CancelFunc
	loads  sync.WaitGroup

	mu     sync.Mutex
	graphs map[string]*cachedGraph // by organisation
	held   int                     // nodes and edges of the copies held
	clock  uint64                  // ticks at every use, for the LRU order
}

// cachedGraph is what the cache knows of one organisation's graph.
type cachedGraph struct {
	version int64
	store   *lineage.MemStore // nil: none held at this version (loading, too large, or failed)
	size    int               // nodes and edges of store
	used    uint64            // clock at the last use
	loading bool
	// retry is when a graph whose load failed, or which was too large,
	// may be loaded again.
	retry time.Time
}

func newLineageCache(limit int) *lineageCache {
	ctx, cancel := context.WithCancel(context.Background())
	return &lineageCache{limit: limit, ctx: ctx, cancel: cancel, graphs: map[string]*cachedGraph{}}
}

// SetLineageCache sets the nodes and edges of lineage graphs the process
// may hold in memory (DQS_LINEAGE_CACHE); 0 turns the copies off, and every
// walk reads SQL. Call it before the DB is used.
func (d *DB) SetLineageCache(limit int) {
	if d.lineage != nil {
		d.lineage.close()
	}
	d.lineage = nil
	if limit > 0 {
		d.lineage = newLineageCache(limit)
	}
}

// close stops the loads and waits for them.
func (c *lineageCache) close() {
	c.cancel()
	c.loads.Wait()
}

// changed records a change of organisation orgID's graph: call it in the
// transaction of the change, after the change itself.
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
// read: the in-memory copy when the process holds the current one,
// otherwise the SQL store itself (and a copy is loaded in the background
// for the next walks). Within a transaction it is always the SQL store,
// which sees the transaction's own writes and locks.
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
	if st := c.current(orgID, v); st != nil {
		return st, nil
	}
	c.startLoad(s, orgID, v)
	return s, nil
}

// current returns the copy of orgID's graph at version v, if held.
func (c *lineageCache) current(orgID string, v int64) *lineage.MemStore {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.graphs[orgID]
	if g == nil || g.version != v || g.store == nil {
		return nil
	}
	c.clock++
	g.used = c.clock
	return g.store
}

// startLoad loads a copy of orgID's graph at version v or later in the
// background, unless one is loading or a load failed (or found the graph
// too large) too recently.
func (c *lineageCache) startLoad(s Lineage, orgID string, v int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ctx.Err() != nil {
		return
	}
	g := c.graphs[orgID]
	if g != nil && (g.loading || (g.store == nil && time.Now().Before(g.retry))) {
		return
	}
	if g != nil && g.store != nil {
		c.held -= g.size // stale: dropped now rather than after the load
	}
	c.graphs[orgID] = &cachedGraph{version: v, loading: true}
	c.loads.Add(1)
	go func() {
		defer c.loads.Done()
		ctx, cancel := context.WithTimeout(c.ctx, 5*time.Minute)
		defer cancel()
		v, graph, err := s.loadGraph(ctx, orgID, c.limit)
		c.finishLoad(orgID, v, graph, err)
	}()
}

// errGraphTooLarge stops the load of a graph larger than the cache.
var errGraphTooLarge = errors.New("lineage graph larger than the cache")

// finishLoad stores the outcome of a load.
func (c *lineageCache) finishLoad(orgID string, v int64, g lineage.Graph, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		if !errors.Is(err, errGraphTooLarge) && c.ctx.Err() == nil {
			slog.Warn("lineage: loading a graph into memory failed; its walks read SQL", "org_id", orgID, "error", err)
		}
		retry := time.Now().Add(lineageLoadRetry)
		if errors.Is(err, errGraphTooLarge) {
			retry = time.Now().Add(lineageTooLargeWait)
		}
		c.graphs[orgID] = &cachedGraph{version: v, retry: retry}
		return
	}
	size := len(g.Nodes) + len(g.Edges)
	for c.held+size > c.limit {
		if !c.evictOldest(orgID) {
			break
		}
	}
	c.clock++
	c.graphs[orgID] = &cachedGraph{version: v, store: lineage.Snapshot(orgID, g), size: size, used: c.clock}
	c.held += size
}

// evictOldest drops the least recently used copy other than keep's; false
// when there is none.
func (c *lineageCache) evictOldest(keep string) bool {
	var oldest string
	var at uint64
	for org, g := range c.graphs {
		if org != keep && g.store != nil && (oldest == "" || g.used < at) {
			oldest, at = org, g.used
		}
	}
	if oldest == "" {
		return false
	}
	c.held -= c.graphs[oldest].size
	delete(c.graphs, oldest)
	return true
}

// loadGraph reads organisation orgID's whole graph and the version it is
// at least as new as, in pages of lineageLoadPage rows on the
// organisation's indexes; errGraphTooLarge when it has more than limit
// nodes and edges.
func (s Lineage) loadGraph(ctx context.Context, orgID string, limit int) (int64, lineage.Graph, error) {
	v, err := s.version(ctx, orgID)
	if err != nil {
		return 0, lineage.Graph{}, err
	}
	var g lineage.Graph
	// Nodes by (type, ref_hash), the unique index after org_id.
	var lastType, lastHash string
	for first := true; ; first = false {
		q, args := lineagePage("SELECT id, type, name, ref_id, ref_hash FROM lineage_nodes", "type, ref_hash", orgID, first, lastType, lastHash)
		n, err := s.scanNodePage(ctx, &g.Nodes, &lastType, &lastHash, q, args)
		if err != nil {
			return 0, lineage.Graph{}, err
		}
		if len(g.Nodes) > limit {
			return v, lineage.Graph{}, errGraphTooLarge
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
			lastSource, lastTarget = e.Source, e.Target
			n++
		})
		if err != nil {
			return 0, lineage.Graph{}, err
		}
		if len(g.Nodes)+len(g.Edges) > limit {
			return v, lineage.Graph{}, errGraphTooLarge
		}
		if n < lineageLoadPage {
			break
		}
	}
	return v, g, nil
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
