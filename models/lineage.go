package models

import "time"

// LineageNode is a vertex of an organisation's lineage graph (package
// lineage): a source, a table, a file, a report or a pipeline. Nodes are
// made by the service for what it knows, one per (type, ref): RefHash is
// the hex SHA-256 of RefID, which may be longer than an index holds (a
// table's ref is "<source id>/<table name>").
type LineageNode struct {
	ID        string    `gorm:"primaryKey;size:36"`
	OrgID     string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_nodes_org_ref,priority:1"`
	Type      string    `gorm:"size:16;not null;uniqueIndex:idx_lineage_nodes_org_ref,priority:2"`
	RefHash   string    `gorm:"size:64;not null;uniqueIndex:idx_lineage_nodes_org_ref,priority:3"`
	RefID     string    `gorm:"size:1100;not null"`
	Name      string    `gorm:"size:1100;not null"`
	CreatedAt time.Time `gorm:"not null"`
}

// LineageEdge is a directed edge of an organisation's lineage graph: data
// flows from SourceNodeID to TargetNodeID. An edge is unique per
// organisation and pair; the two indexes serve walks in both directions.
type LineageEdge struct {
	ID           string    `gorm:"primaryKey;size:36;index:idx_lineage_edges_org_source_cover,priority:4;index:idx_lineage_edges_org_target_cover,priority:4"`
	OrgID        string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_edges_org_pair,priority:1;index:idx_lineage_edges_org_source_cover,priority:1;index:idx_lineage_edges_org_target_cover,priority:1"`
	SourceNodeID string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_edges_org_pair,priority:2;index:idx_lineage_edges_org_source_cover,priority:2;index:idx_lineage_edges_org_target_cover,priority:3"`
	TargetNodeID string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_edges_org_pair,priority:3;index:idx_lineage_edges_org_source_cover,priority:3;index:idx_lineage_edges_org_target_cover,priority:2"`
	CreatedBy    string    `gorm:"size:36;not null;default:''"`
	CreatedAt    time.Time `gorm:"not null;index:idx_lineage_edges_org_source_cover,priority:5;index:idx_lineage_edges_org_target_cover,priority:5"`
}

// LineageVersion counts the changes of an organisation's lineage graph:
// every write of a node or an edge adds one, in the writer's transaction.
// A process holding a copy of the graph in memory (lineageCache) compares
// the copy's version with this one before it answers from the copy.
type LineageVersion struct {
	OrgID   string `gorm:"primaryKey;size:36"`
	Version int64  `gorm:"not null"`
}

// Lineage stores the organisations' lineage graphs.
type Lineage struct{ db *DB }
