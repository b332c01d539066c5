package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
)

const (
	// maxLineageNameBytes is where a node's name is cut: the longest table
	// name the service keeps, and within the column's 1100 characters
	// whatever the dialect counts.
	maxLineageNameBytes = 1024
	// maxLineageRefBytes is the column's size: a table's ref is
	// "<source id>/<table name>", at most 1024 + 21 bytes.
	maxLineageRefBytes = 1100
	// lineageIDsPerQuery bounds the ids of one statement. The engine
	// passes at most Limits.Batch ids (500 by default), one statement
	// each; a caller with a larger batch gets several statements rather
	// than one over PostgreSQL's 65,535 bind parameters (its DirBoth
	// query binds the list three times; on SQLite a list is one
	// parameter, see inIDs).
	lineageIDsPerQuery = 5000
)

// lineageEdgeColumns are what lineage.Edge holds of a row, in scan order.
const lineageEdgeColumns = "id, source_node_id, target_node_id, created_at"

var _ lineage.Store = Lineage{}

// lineageChunks calls fn with ids in slices of at most lineageIDsPerQuery.
func lineageChunks(ids []string, fn func([]string) error) error {
	for start := 0; start < len(ids); start += lineageIDsPerQuery {
		if err := fn(ids[start:min(start+lineageIDsPerQuery, len(ids))]); err != nil {
			return err
		}
	}
	return nil
}

// Neighbours implements lineage.Store: one indexed query per call (per
// lineageIDsPerQuery ids), on idx_lineage_edges_org_pair (org, source) for
// out-edges and idx_lineage_edges_org_target_cover (org, target, source, id, created_at) for in-edges
// (neighboursQuery). Rows are scanned by hand, without gorm's reflection
// per row: a deep neighbourhood reads tens of thousands of edges.
func (s Lineage) Neighbours(ctx context.Context, orgID string, ids []string, dir lineage.Direction) ([]lineage.Edge, error) {
	if !dir.Valid() {
		return nil, fmt.Errorf("lineage neighbours: bad direction %q", dir)
	}
	var out []lineage.Edge
	// With DirBoth an edge between two ids of one statement is excluded
	// from its in-edge half; between two statements it comes back in
	// both, so several statements are deduplicated by id.
	var seen map[string]struct{}
	if dir == lineage.DirBoth && len(ids) > lineageIDsPerQuery {
		seen = map[string]struct{}{}
	}
	err := lineageChunks(ids, func(ids []string) error {
		q, args := s.neighboursQuery(orgID, ids, dir)
		return s.scanEdges(ctx, q, args, func(e lineage.Edge) {
			if seen != nil {
				if _, dup := seen[e.ID]; dup {
					return
				}
				seen[e.ID] = struct{}{}
			}
			out = append(out, e)
		})
	})
	return out, err
}

// neighboursQuery is the statement of Neighbours for ids. Each direction
// is one SELECT on its own index ((org, source) for out-edges, (org,
// target) for in-edges); DirBoth joins the two with UNION ALL, which keeps
// both indexes usable where an OR of the two lists would scan the
// organisation's edges, and its in-edge half leaves out edges whose source
// is among ids, already answered as out-edges. EXPLAIN QUERY PLAN on
// SQLite: "SEARCH lineage_edges USING INDEX idx_lineage_edges_org_pair
// (org_id=? AND source_node_id=?)", and idx_lineage_edges_org_target_cover for
// the other half.
func (s Lineage) neighboursQuery(orgID string, ids []string, dir lineage.Direction) (string, []any) {
	const sel = "SELECT " + lineageEdgeColumns + " FROM lineage_edges WHERE org_id = ? AND "
	src, srcArg := s.inIDs("source_node_id", ids)
	dst, dstArg := s.inIDs("target_node_id", ids)
	switch dir {
	case lineage.DirDownstream:
		return sel + src, []any{orgID, srcArg}
	case lineage.DirUpstream:
		return sel + dst, []any{orgID, dstArg}
	}
	return sel + src + " UNION ALL " + sel + dst + " AND NOT (" + src + ")", []any{orgID, srcArg, orgID, dstArg, srcArg}
}

// inIDs returns the condition "column IN ids" and its one argument. On
// PostgreSQL it is a plain IN list. On SQLite the list is one JSON
// parameter read by json_each: with hundreds of bound values a statement
// cost more to prepare than to run (parsing, code for each value, and the
// pure-Go port's munmap of the large allocations: most of the SQL time of
// a walk in a profile of the benchmark), and every level of a walk
// prepares one; json_each gives the same plan, the values feeding the
// index, from a short statement.
func (s Lineage) inIDs(column string, ids []string) (string, any) {
	if s.db.Dialect == Postgres {
		return column + " IN ?", ids
	}
	list, _ := json.Marshal(ids) // cannot fail for strings
	return column + " IN (SELECT value FROM json_each(?))", string(list)
}

// scanEdges runs q and passes each row, as an edge, to fn.
func (s Lineage) scanEdges(ctx context.Context, q string, args []any, fn func(lineage.Edge)) error {
	rows, err := s.db.conn(ctx).Raw(q, args...).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var e lineage.Edge
		if err := rows.Scan(&e.ID, &e.Source, &e.Target, &e.CreatedAt); err != nil {
			return err
		}
		e.CreatedAt = e.CreatedAt.UTC()
		fn(e)
	}
	return rows.Err()
}

// Nodes implements lineage.Store: one query per call (per
// lineageIDsPerQuery ids) on the primary key.
func (s Lineage) Nodes(ctx context.Context, orgID string, ids []string) ([]lineage.Node, error) {
	// SQLite's planner, given org_id = ? (the head of the (org, type, ref)
	// index) and id IN a json_each list, prefers the former and scans the
	// organisation's nodes; a unary + keeps the org_id term out of index
	// selection, so the ids are looked up by primary key (EXPLAIN QUERY
	// PLAN: "SEARCH lineage_nodes USING INDEX sqlite_autoindex_lineage_nodes_1
	// (id=?)").
	org := "org_id"
	if s.db.Dialect != Postgres {
		org = "+org_id"
	}
	var out []lineage.Node
	err := lineageChunks(ids, func(ids []string) error {
		in, arg := s.inIDs("id", ids)
		return s.scanNodes(ctx, &out, "SELECT id, type, name, ref_id FROM lineage_nodes WHERE "+org+" = ? AND "+in, orgID, arg)
	})
	return out, err
}

// scanNodes runs q, which selects id, type, name, ref_id, and appends the
// nodes to out.
func (s Lineage) scanNodes(ctx context.Context, out *[]lineage.Node, q string, args ...any) error {
	rows, err := s.db.conn(ctx).Raw(q, args...).Rows()
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var n lineage.Node
		var t string
		if err := rows.Scan(&n.ID, &t, &n.Name, &n.RefID); err != nil {
			return err
		}
		n.Type = lineage.NodeType(t)
		*out = append(*out, n)
	}
	return rows.Err()
}

func (r *LineageNode) node() lineage.Node {
	return lineage.Node{ID: r.ID, Type: lineage.NodeType(r.Type), Name: r.Name, RefID: r.RefID}
}

// cutUTF8 returns s cut to at most n bytes, on a character boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// EnsureNode returns organisation orgID's node of type t for refID (the id
// of the source, table, file, report or pipeline it stands for), creating
// it with a fresh UUID when missing and renaming it when name changed.
// Names are cut to 1024 bytes. Two callers racing to create the same node
// get the same one: the insert is ON CONFLICT DO NOTHING on the unique
// (org, type, ref) index and the loser reads the winner's row. A plain
// insert would do on SQLite, but on PostgreSQL its duplicate-key error
// would abort the caller's transaction, so nothing could be read after it.
func (s Lineage) EnsureNode(ctx context.Context, orgID string, t lineage.NodeType, refID, name string) (lineage.Node, error) {
	if _, err := lineage.ParseNodeType(string(t)); err != nil {
		return lineage.Node{}, err
	}
	if refID == "" || len(refID) > maxLineageRefBytes {
		return lineage.Node{}, fmt.Errorf("lineage node ref %q: want 1 to %d bytes", cutUTF8(refID, 64), maxLineageRefBytes)
	}
	name = cutUTF8(name, maxLineageNameBytes)
	if strings.TrimSpace(name) == "" {
		return lineage.Node{}, errs.BadRequest("name is required")
	}
	var out lineage.Node
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		row, err := s.nodeRow(ctx, orgID, t, refID)
		if errors.Is(err, gorm.ErrRecordNotFound) {
			row = &LineageNode{ID: uuid.NewString(), OrgID: orgID, Type: string(t), RefHash: nameHash(refID),
				RefID: refID, Name: name, CreatedAt: dbTime(time.Now())}
			res := s.db.conn(ctx).Clauses(clause.OnConflict{
				Columns:   []clause.Column{{Name: "org_id"}, {Name: "type"}, {Name: "ref_hash"}},
				DoNothing: true,
			}).Create(row)
			if res.Error != nil {
				return res.Error
			}
			if res.RowsAffected == 1 {
				out = row.node()
				return s.changed(ctx, orgID)
			}
			row, err = s.nodeRow(ctx, orgID, t, refID) // another caller created it first
		}
		if err != nil {
			return err
		}
		out = row.node()
		if row.Name == name {
			return nil
		}
		err = s.db.conn(ctx).Model(&LineageNode{}).Where("org_id = ? AND id = ?", orgID, row.ID).
			UpdateColumn("name", name).Error
		if err != nil {
			return err
		}
		out.Name = name
		return s.changed(ctx, orgID)
	})
	if err != nil {
		return lineage.Node{}, err
	}
	return out, nil
}

// nodeRow reads the node of (org, type, ref) on the unique index; the ref
// itself is compared too, as the anomalies compare a table's name with its
// hash.
func (s Lineage) nodeRow(ctx context.Context, orgID string, t lineage.NodeType, refID string) (*LineageNode, error) {
	var row LineageNode
	err := s.db.conn(ctx).Where("org_id = ? AND type = ? AND ref_hash = ? AND ref_id = ?", orgID, string(t), nameHash(refID), refID).
		Take(&row).Error
	if err != nil {
		return nil, err
	}
	return &row, nil
}

// NodeByRef returns organisation orgID's node of type t for refID: 404
// when there is none.
func (s Lineage) NodeByRef(ctx context.Context, orgID string, t lineage.NodeType, refID string) (lineage.Node, error) {
	row, err := s.nodeRow(ctx, orgID, t, refID)
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return lineage.Node{}, errs.NotFound("lineage node")
	}
	if err != nil {
		return lineage.Node{}, err
	}
	return row.node(), nil
}

// lineageEdgeConflict makes an insert of an edge that is already there a
// no-op, on the unique (org, source, target) index.
var lineageEdgeConflict = clause.OnConflict{
	Columns:   []clause.Column{{Name: "org_id"}, {Name: "source_node_id"}, {Name: "target_node_id"}},
	DoNothing: true,
}

// parseLineageEdge canonicalises the ends of an edge (400 if one is not a
// UUID, or if they are the same node).
func parseLineageEdge(fromID, toID string) (from, to string, err error) {
	if from, err = lineage.ParseID("source_node_id", fromID); err != nil {
		return "", "", err
	}
	if to, err = lineage.ParseID("target_node_id", toID); err != nil {
		return "", "", err
	}
	if from == to {
		return "", "", errs.BadRequest("an edge cannot connect a node to itself")
	}
	return from, to, nil
}

// EnsureEdge adds the automatic edge fromID → toID of organisation orgID
// (a source to its table, a file to its pipeline, a pipeline to the
// corrected copy) unless it is there already; both nodes must be the
// organisation's (404). There is no cycle check and no lock: the service
// links only nodes it has just made downstream of existing ones, which
// cannot close a cycle. Racing callers store one edge (ON CONFLICT DO
// NOTHING, so a caller's PostgreSQL transaction survives the race).
func (s Lineage) EnsureEdge(ctx context.Context, orgID, fromID, toID string) error {
	from, to, err := parseLineageEdge(fromID, toID)
	if err != nil {
		return err
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		var n int64
		if err := s.db.conn(ctx).Model(&LineageNode{}).Where("org_id = ? AND id IN ?", orgID, []string{from, to}).Count(&n).Error; err != nil {
			return err
		}
		if n != 2 {
			return errs.NotFound("lineage node")
		}
		row := LineageEdge{ID: uuid.NewString(), OrgID: orgID, SourceNodeID: from, TargetNodeID: to, CreatedAt: dbTime(time.Now())}
		res := s.db.conn(ctx).Clauses(lineageEdgeConflict).Create(&row)
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		return s.changed(ctx, orgID)
	})
}

// AddEdge adds the edge fromID → toID a user asked for (createdBy), at now,
// after the engine's checks with limits (lineage.Engine.CheckEdge: 400 for
// a bad id, a self-loop or a cycle, naming its path; 404 for an unknown
// node or another organisation's; 409 for a duplicate). The check and the
// insert run in one transaction holding the organisation's lock, so two
// concurrent edges cannot close a cycle together (a → b and b → a racing:
// the second waits for the first and then sees it).
func (s Lineage) AddEdge(ctx context.Context, orgID, fromID, toID, createdBy string, now time.Time, limits lineage.Limits) (lineage.Edge, error) {
	var out lineage.Edge
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		// The engine passes this ctx on to s, so its reads join the
		// transaction and see the state the lock protects.
		eng := &lineage.Engine{Store: s, Limits: limits}
		if err := eng.CheckEdge(ctx, orgID, fromID, toID); err != nil {
			return err
		}
		from, to, err := parseLineageEdge(fromID, toID)
		if err != nil {
			return err
		}
		e := lineage.NewEdge(from, to, dbTime(now))
		row := LineageEdge{ID: e.ID, OrgID: orgID, SourceNodeID: from, TargetNodeID: to, CreatedBy: createdBy, CreatedAt: e.CreatedAt}
		res := s.db.conn(ctx).Clauses(lineageEdgeConflict).Create(&row)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			// An automatic edge (EnsureEdge takes no lock) got in since
			// the check: check again for the engine's own 409, which
			// names the edge and carries it.
			if err := eng.CheckEdge(ctx, orgID, from, to); err != nil {
				return err
			}
			return errs.Conflict("the edge already exists")
		}
		out = e
		return s.changed(ctx, orgID)
	})
	return out, err
}

// lineageImportBatch is Import's default rows per INSERT. On SQLite
// (100,000 nodes, 300,000 edges) 1,000 rows spent 6 of 25 s binding: the
// driver matches each of a statement's parameters against all of its
// arguments, quadratic in their number (7,000 here); 100 rows spent more
// in the statement journal, which saves a page again for each statement
// that changes it. 300 was the fastest.
const lineageImportBatch = 300

// Import stores g as organisation orgID's nodes and edges, with their
// ids, in one transaction and batches of batch rows (≤ 0:
// lineageImportBatch): for loading a graph known to be valid (benchmarks,
// tests), without EnsureNode's look-ups or AddEdge's checks; a node or
// edge already there is a unique-index error. Every node needs a RefID
// (the unique index is on it).
func (s Lineage) Import(ctx context.Context, orgID string, g lineage.Graph, batch int) error {
	if batch <= 0 {
		batch = lineageImportBatch
	}
	now := dbTime(time.Now())
	nodes := make([]LineageNode, len(g.Nodes))
	for i, n := range g.Nodes {
		id, err := lineage.ParseID("id", n.ID)
		if err != nil {
			return err
		}
		nodes[i] = LineageNode{ID: id, OrgID: orgID, Type: string(n.Type), RefHash: nameHash(n.RefID), RefID: n.RefID,
			Name: cutUTF8(n.Name, maxLineageNameBytes), CreatedAt: now}
	}
	edges := make([]LineageEdge, len(g.Edges))
	for i, e := range g.Edges {
		id, err := lineage.ParseID("id", e.ID)
		if err != nil {
			return err
		}
		from, to, err := parseLineageEdge(e.Source, e.Target)
		if err != nil {
			return err
		}
		edges[i] = LineageEdge{ID: id, OrgID: orgID, SourceNodeID: from, TargetNodeID: to, CreatedAt: dbTime(e.CreatedAt)}
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if len(nodes) > 0 {
			if err := s.db.conn(ctx).CreateInBatches(nodes, batch).Error; err != nil {
				return err
			}
		}
		if len(edges) > 0 {
			if err := s.db.conn(ctx).CreateInBatches(edges, batch).Error; err != nil {
				return err
			}
		}
		return s.changed(ctx, orgID)
	})
}

// Graph returns organisation orgID's graph: at most maxNodes nodes, by
// type (sources, tables, pipelines, reports, files) then name (byte order
// on both databases) then id, and at most
// maxEdges of the edges between them, by creation then id; truncated when
// a node or an edge was left out. The edges are read as the returned
// nodes' out-edges, on the (org, source) index, so they always match the
// nodes, and cost in proportion to what is returned rather than to the
// organisation's whole graph.
func (s Lineage) Graph(ctx context.Context, orgID string, maxNodes, maxEdges int) (lineage.Graph, bool, error) {
	maxNodes, maxEdges = max(maxNodes, 0), max(maxEdges, 0)
	g := lineage.Graph{Nodes: []lineage.Node{}, Edges: []lineage.Edge{}}
	// Sources and their tables first, then pipelines, reports and files:
	// a cut graph keeps the warehouse's shape rather than the many uploads.
	const byType = "CASE type WHEN 'source' THEN 0 WHEN 'table' THEN 1 WHEN 'pipeline' THEN 2 WHEN 'report' THEN 3 ELSE 4 END"
	order := byType + ", name, id"
	if s.db.Dialect == Postgres {
		order = byType + `, name COLLATE "C", id`
	}
	err := s.scanNodes(ctx, &g.Nodes, "SELECT id, type, name, ref_id FROM lineage_nodes WHERE org_id = ? ORDER BY "+order+" LIMIT ?",
		orgID, maxNodes+1)
	if err != nil {
		return lineage.Graph{}, false, err
	}
	truncated := len(g.Nodes) > maxNodes
	g.Nodes = g.Nodes[:min(len(g.Nodes), maxNodes)]
	ids := make([]string, len(g.Nodes))
	in := make(map[string]struct{}, len(g.Nodes))
	for i, n := range g.Nodes {
		ids[i] = n.ID
		in[n.ID] = struct{}{}
	}
	es, err := s.Neighbours(ctx, orgID, ids, lineage.DirDownstream)
	if err != nil {
		return lineage.Graph{}, false, err
	}
	for _, e := range es {
		if _, ok := in[e.Target]; ok {
			g.Edges = append(g.Edges, e)
		}
	}
	slices.SortFunc(g.Edges, func(a, b lineage.Edge) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(g.Edges) > maxEdges {
		g.Edges, truncated = g.Edges[:maxEdges], true
	}
	return g, truncated, nil
}

// Counts returns the numbers of nodes and edges of organisation orgID.
func (s Lineage) Counts(ctx context.Context, orgID string) (nodes, edges int64, err error) {
	if err = s.db.conn(ctx).Model(&LineageNode{}).Where("org_id = ?", orgID).Count(&nodes).Error; err != nil {
		return 0, 0, err
	}
	err = s.db.conn(ctx).Model(&LineageEdge{}).Where("org_id = ?", orgID).Count(&edges).Error
	return nodes, edges, err
}

// DeleteByRefs removes organisation orgID's nodes of type t for refIDs and
// every edge touching them (a deleted source's node: type source, ref its
// id), in the caller's transaction if ctx carries one.
func (s Lineage) DeleteByRefs(ctx context.Context, orgID string, t lineage.NodeType, refIDs []string) error {
	hashes := make([]string, len(refIDs))
	for i, r := range refIDs {
		hashes[i] = nameHash(r)
	}
	return s.deleteNodes(ctx, orgID, func(ctx context.Context) ([]string, error) {
		var ids []string
		err := lineageChunks(hashes, func(hs []string) error {
			var part []string
			err := s.db.conn(ctx).Model(&LineageNode{}).Where("org_id = ? AND type = ? AND ref_hash IN ?", orgID, string(t), hs).
				Pluck("id", &part).Error
			ids = append(ids, part...)
			return err
		})
		return ids, err
	})
}

// DeleteByRefPrefix removes organisation orgID's nodes of type t whose ref
// starts with prefix, and every edge touching them (a deleted source's
// tables: type table, prefix "<source id>/"), in the caller's transaction
// if ctx carries one. The prefix is compared with substr, not LIKE, which
// SQLite matches without regard to case and which would need its
// wildcards escaped; an empty prefix, which would match every node of the
// type, is refused.
func (s Lineage) DeleteByRefPrefix(ctx context.Context, orgID string, t lineage.NodeType, prefix string) error {
	if prefix == "" {
		return errors.New("lineage: delete by ref prefix: empty prefix")
	}
	return s.deleteNodes(ctx, orgID, func(ctx context.Context) ([]string, error) {
		var ids []string
		// Both databases count substr's length in characters.
		err := s.db.conn(ctx).Model(&LineageNode{}).
			Where("org_id = ? AND type = ? AND substr(ref_id, 1, ?) = ?", orgID, string(t), utf8.RuneCountInString(prefix), prefix).
			Pluck("id", &ids).Error
		return ids, err
	})
}

// deleteNodes removes the nodes find returns and the edges touching them,
// in one transaction (the caller's, if ctx carries one) holding the
// organisation's lock, so an AddEdge running meanwhile cannot link a
// removed node (it checks the nodes under the same lock).
func (s Lineage) deleteNodes(ctx context.Context, orgID string, find func(ctx context.Context) ([]string, error)) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		ids, err := find(ctx)
		if err != nil {
			return err
		}
		if len(ids) == 0 {
			return nil
		}
		c := s.db.conn(ctx)
		err = lineageChunks(ids, func(ids []string) error {
			// Two statements rather than one with OR, so each runs on its
			// index.
			if err := c.Where("org_id = ? AND source_node_id IN ?", orgID, ids).Delete(&LineageEdge{}).Error; err != nil {
				return err
			}
			if err := c.Where("org_id = ? AND target_node_id IN ?", orgID, ids).Delete(&LineageEdge{}).Error; err != nil {
				return err
			}
			return c.Where("org_id = ? AND id IN ?", orgID, ids).Delete(&LineageNode{}).Error
		})
		if err != nil {
			return err
		}
		return s.changed(ctx, orgID)
	})
}
