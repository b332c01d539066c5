package models

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"gorm.io/gorm"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
)

// The lineage graph's automatic nodes are written by the stores, in the
// transaction that writes what they stand for: a source's node with the
// source, a table's node and its edge from the source with the table's
// first scan result, a file's node with the uploaded file. So a node never
// outlives its thing, nor lags behind it, and no service can forget one.

// SourceRef is the ref_id of a source's node: its id.
func SourceRef(id int64) string { return strconv.FormatInt(id, 10) }

// TableRef is the ref_id of the node of table of a source: "<source
// id>/<table name>" (an object's key for a bucket).
func TableRef(sourceID int64, table string) string { return SourceRef(sourceID) + "/" + table }

// FileRef is the ref_id of an uploaded file's node: its id.
func FileRef(id int64) string { return strconv.FormatInt(id, 10) }

// ReportRef is the ref_id of a report's node: its id.
func ReportRef(id string) string { return id }

// NodeRef names the node of a thing by its type and ref_id.
type NodeRef struct {
	Type lineage.NodeType
	Ref  string
}

// linkReport writes the node of a complete report and an edge to it from
// the node of each dataset it covered that has one (a file, a scanned
// table): what the report was made from.
func (d *DB) linkReport(ctx context.Context, orgID, reportID, name string, covered []NodeRef) error {
	to, err := Lineage{d}.EnsureNode(ctx, orgID, lineage.TypeReport, ReportRef(reportID), name)
	if err != nil {
		return err
	}
	for _, c := range covered {
		from, err := Lineage{d}.NodeByRef(ctx, orgID, c.Type, c.Ref)
		if errors.Is(err, errs.ErrNotFound) {
			continue // deleted since the report read it
		}
		if err != nil {
			return err
		}
		if err := (Lineage{d}).EnsureEdge(ctx, orgID, from.ID, to.ID); err != nil {
			return err
		}
	}
	return nil
}

// linkSource writes (or renames) the node of src.
func (d *DB) linkSource(ctx context.Context, src *Source) (lineage.Node, error) {
	return Lineage{d}.EnsureNode(ctx, src.OrgID, lineage.TypeSource, SourceRef(src.ID), src.Name)
}

// linkTable writes the node of table of src and the edge from src's node
// to it.
func (d *DB) linkTable(ctx context.Context, src *Source, table string) error {
	from, err := d.linkSource(ctx, src)
	if err != nil {
		return err
	}
	name := table
	if strings.TrimSpace(name) == "" { // an object key of blanks: named by its ref
		name = TableRef(src.ID, table)
	}
	to, err := Lineage{d}.EnsureNode(ctx, src.OrgID, lineage.TypeTable, TableRef(src.ID, table), name)
	if err != nil {
		return err
	}
	return Lineage{d}.EnsureEdge(ctx, src.OrgID, from.ID, to.ID)
}

// unlinkSource removes the nodes of source id and of its tables, with
// every edge that touches them.
func (d *DB) unlinkSource(ctx context.Context, orgID string, id int64) error {
	if err := (Lineage{d}).DeleteByRefs(ctx, orgID, lineage.TypeSource, []string{SourceRef(id)}); err != nil {
		return err
	}
	return Lineage{d}.DeleteByRefPrefix(ctx, orgID, lineage.TypeTable, TableRef(id, ""))
}

// TableNode returns the node of table of source sourceID (404 before the
// table's first scan result).
func (s Lineage) TableNode(ctx context.Context, orgID string, sourceID int64, table string) (lineage.Node, error) {
	return s.NodeByRef(ctx, orgID, lineage.TypeTable, TableRef(sourceID, table))
}

// DeleteEdge removes edge id of the organisation that a user added (404
// when there is none); the automatic edges (a source to its tables) are
// the service's and are refused with a conflict, for the next scan would
// put them back and a user's edge could close a cycle with them meanwhile.
func (s Lineage) DeleteEdge(ctx context.Context, orgID, id string) error {
	id, err := lineage.ParseID("edge id", id)
	if err != nil {
		return errs.NotFound("lineage edge")
	}
	var e LineageEdge
	err = s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&e).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return errs.NotFound("lineage edge")
	}
	if err != nil {
		return err
	}
	if e.CreatedBy == "" {
		return errs.Conflict("edge %s is kept by DQS itself (a source and its table); only edges users added can be removed", id)
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		res := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Delete(&LineageEdge{})
		if res.Error != nil || res.RowsAffected == 0 {
			return res.Error
		}
		return s.changed(ctx, orgID)
	})
}

// PipelineRef is the ref_id of the node of a correction pipeline as
// applied to file fileID: "<pipeline id>/<file id>". One node per input
// file, not per pipeline: a pipeline applied to its own corrected copy
// then gets a new node downstream of the copy instead of an edge back
// into its first node, which would close a cycle.
func PipelineRef(id string, fileID int64) string { return id + "/" + FileRef(fileID) }

// LinkCorrection writes what an applied pipeline did: the edges from the
// node of the file it read to the pipeline's node, and from there to the
// node of the corrected copy it wrote (the files' nodes were written with
// their rows).
func (s Lineage) LinkCorrection(ctx context.Context, orgID, pipelineID, pipelineName string, fileID, copyID int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		pipe, err := s.EnsureNode(ctx, orgID, lineage.TypePipeline, PipelineRef(pipelineID, fileID), pipelineName)
		if err != nil {
			return err
		}
		from, err := s.NodeByRef(ctx, orgID, lineage.TypeFile, FileRef(fileID))
		if err != nil {
			return err
		}
		to, err := s.NodeByRef(ctx, orgID, lineage.TypeFile, FileRef(copyID))
		if err != nil {
			return err
		}
		if err := s.EnsureEdge(ctx, orgID, from.ID, pipe.ID); err != nil {
			return err
		}
		return s.EnsureEdge(ctx, orgID, pipe.ID, to.ID)
	})
}
