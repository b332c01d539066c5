package models

import (
	"time"

	"gorm.io/gorm"
)

// migrateContractsLineage creates data contracts (one table of a source
// each) and the lineage graph: nodes, unique per organisation, type and
// ref, and edges, unique per organisation and pair, indexed from both
// ends.
func migrateContractsLineage(tx *gorm.DB) error {
	type contract struct {
		ID              int64   `gorm:"primaryKey;autoIncrement"`
		OrgID           string  `gorm:"size:36;not null;index:idx_contracts_org_source,priority:1"`
		SourceID        int64   `gorm:"not null;index:idx_contracts_org_source,priority:2"`
		TableName       string  `gorm:"size:1024;not null"`
		Name            string  `gorm:"size:200;not null"`
		Enabled         bool    `gorm:"not null"`
		Rules           string  `gorm:"type:text;not null"`
		LastEvaluation  *string `gorm:"type:text"`
		LastEvaluatedAt *time.Time
		CreatedBy       string    `gorm:"size:36;not null;default:''"`
		CreatedAt       time.Time `gorm:"not null"`
		UpdatedAt       time.Time `gorm:"not null"`
	}
	type lineageNode struct {
		ID        string    `gorm:"primaryKey;size:36"`
		OrgID     string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_nodes_org_ref,priority:1"`
		Type      string    `gorm:"size:16;not null;uniqueIndex:idx_lineage_nodes_org_ref,priority:2"`
		RefHash   string    `gorm:"size:64;not null;uniqueIndex:idx_lineage_nodes_org_ref,priority:3"`
		RefID     string    `gorm:"size:1100;not null"`
		Name      string    `gorm:"size:1100;not null"`
		CreatedAt time.Time `gorm:"not null"`
	}
	type lineageEdge struct {
		ID           string    `gorm:"primaryKey;size:36;index:idx_lineage_edges_org_source_cover,priority:4;index:idx_lineage_edges_org_target_cover,priority:4"`
		OrgID        string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_edges_org_pair,priority:1;index:idx_lineage_edges_org_source_cover,priority:1;index:idx_lineage_edges_org_target_cover,priority:1"`
		SourceNodeID string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_edges_org_pair,priority:2;index:idx_lineage_edges_org_source_cover,priority:2;index:idx_lineage_edges_org_target_cover,priority:3"`
		TargetNodeID string    `gorm:"size:36;not null;uniqueIndex:idx_lineage_edges_org_pair,priority:3;index:idx_lineage_edges_org_source_cover,priority:3;index:idx_lineage_edges_org_target_cover,priority:2"`
		CreatedBy    string    `gorm:"size:36;not null;default:''"`
		CreatedAt    time.Time `gorm:"not null;index:idx_lineage_edges_org_source_cover,priority:5;index:idx_lineage_edges_org_target_cover,priority:5"`
	}
	return createTables(tx, []table{{"contracts", &contract{}}, {"lineage_nodes", &lineageNode{}}, {"lineage_edges", &lineageEdge{}}})
}
