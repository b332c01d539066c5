package models

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
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
	if err := createTables(tx, []table{{"contracts", &contract{}}, {"lineage_nodes", &lineageNode{}}, {"lineage_edges", &lineageEdge{}}}); err != nil {
		return err
	}
	return backfillLineage(tx, func(nodes []lineageNode, edges []lineageEdge) error {
		if err := tx.Table("lineage_nodes").CreateInBatches(nodes, 200).Error; err != nil || len(edges) == 0 {
			return err
		}
		return tx.Table("lineage_edges").CreateInBatches(edges, 200).Error
	}, func(id, org, typ, ref, name string, at time.Time) lineageNode {
		return lineageNode{ID: id, OrgID: org, Type: typ, RefHash: migrationHash(ref), RefID: ref, Name: name, CreatedAt: at}
	}, func(id, org, from, to string, at time.Time) lineageEdge {
		return lineageEdge{ID: id, OrgID: org, SourceNodeID: from, TargetNodeID: to, CreatedAt: at}
	})
}

// backfillLineage gives what was stored before the lineage graph its
// automatic nodes, as the stores now make them: every source, every table
// a scan of it read (with the edge from the source), every uploaded file.
// The node and edge types are the migration's frozen ones, built by node
// and edge; save stores them.
func backfillLineage[N, E any](tx *gorm.DB, save func([]N, []E) error,
	node func(id, org, typ, ref, name string, at time.Time) N, edge func(id, org, from, to string, at time.Time) E) error {
	at := time.Now().UTC().Truncate(time.Microsecond)
	var nodes []N
	var edges []E
	named := func(name, ref string) string {
		if strings.TrimSpace(name) == "" {
			name = ref
		}
		for len(name) > 1024 {
			name = strings.ToValidUTF8(name[:1024], "")
		}
		return name
	}
	var sources []struct {
		ID    int64
		OrgID string
		Name  string
	}
	if err := tx.Table("sources").Select("id, org_id, name").Order("id").Find(&sources).Error; err != nil {
		return err
	}
	sourceNode := map[int64]string{}
	for _, src := range sources {
		id, ref := uuid.NewString(), strconv.FormatInt(src.ID, 10)
		sourceNode[src.ID] = id
		nodes = append(nodes, node(id, src.OrgID, "source", ref, named(src.Name, ref), at))
	}
	var tables []struct {
		OrgID     string
		SourceID  int64
		TableName string
	}
	err := tx.Table("scan_tables").Select("DISTINCT scan_tables.org_id, scans.source_id, scan_tables.table_name").
		Joins("JOIN scans ON scans.id = scan_tables.scan_id AND scans.org_id = scan_tables.org_id").
		Where("scan_tables.status = ?", "completed").Find(&tables).Error
	if err != nil {
		return err
	}
	for _, t := range tables {
		from, ok := sourceNode[t.SourceID]
		if !ok {
			continue
		}
		id, ref := uuid.NewString(), strconv.FormatInt(t.SourceID, 10)+"/"+t.TableName
		nodes = append(nodes, node(id, t.OrgID, "table", ref, named(t.TableName, ref), at))
		edges = append(edges, edge(uuid.NewString(), t.OrgID, from, id, at))
	}
	var files []struct {
		ID       int64
		OrgID    string
		FileName string
	}
	if err := tx.Table("files").Select("id, org_id, file_name").Order("id").Find(&files).Error; err != nil {
		return err
	}
	for _, f := range files {
		ref := strconv.FormatInt(f.ID, 10)
		nodes = append(nodes, node(uuid.NewString(), f.OrgID, "file", ref, named(f.FileName, ref), at))
	}
	if len(nodes) == 0 {
		return nil
	}
	return save(nodes, edges)
}

// migrationHash is the hex SHA-256 the lineage nodes' unique index holds
// of a ref (frozen here: the store's hash may change, this migration's
// rows may not).
func migrationHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
