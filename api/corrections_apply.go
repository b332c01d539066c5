package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/errs"
)

// previewRequest is the body of POST /corrections/{id}/preview.
type previewRequest struct {
	FileID          *int64 `json:"file_id"`
	Rows            int    `json:"rows"`
	IncludeProposed bool   `json:"include_proposed"`
}

// previewRowView is a row of a preview before and after the steps, as
// objects keyed by column (a null is null); after is null for a row a
// step removed.
type previewRowView struct {
	Row    int64          `json:"row"`
	Before map[string]any `json:"before"`
	After  map[string]any `json:"after"`
}

// stepChangesView counts what one step did to the sample.
type stepChangesView struct {
	StepID       string `json:"step_id"`
	CellsChanged int64  `json:"cells_changed"`
	RowsRemoved  int64  `json:"rows_removed"`
	Unfixed      int64  `json:"unfixed"`
}

// previewView is a preview: nothing was written.
type previewView struct {
	PipelineID string            `json:"pipeline_id"`
	Version    int               `json:"version"`
	FileID     int64             `json:"file_id"`
	Columns    []string          `json:"columns"`
	RowsRead   int64             `json:"rows_read"`
	RowsKept   int64             `json:"rows_kept"`
	Steps      []stepChangesView `json:"steps"`
	Rows       []previewRowView  `json:"rows"`
}

func viewPreview(pipelineID string, version int, fileID int64, res corrections.PreviewResult) previewView {
	v := previewView{PipelineID: pipelineID, Version: version, FileID: fileID, Columns: res.Columns,
		RowsRead: res.Result.Rows, RowsKept: res.Result.RowsOut, Steps: []stepChangesView{}, Rows: make([]previewRowView, len(res.Rows))}
	for _, ch := range res.Result.Changes {
		v.Steps = append(v.Steps, stepChangesView{StepID: ch.StepID, CellsChanged: ch.CellsChanged, RowsRemoved: ch.RowsRemoved, Unfixed: ch.Unfixed})
	}
	for i, r := range res.Rows {
		v.Rows[i] = previewRowView{Row: r.Row, Before: corrections.RowObject(res.Columns, r.Before)}
		if r.After != nil {
			v.Rows[i].After = corrections.RowObject(res.Columns, *r.After)
		}
	}
	return v
}

// previewPipeline runs the pipeline's steps on the first rows of a file
// and answers them before and after; nothing is written.
func (s *Server) previewPipeline(c *gin.Context) error {
	orgID, _, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req previewRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.FileID == nil {
		return errs.BadRequest("file_id is required: the analysed file to preview the steps on")
	}
	if req.Rows == 0 {
		req.Rows = corrections.DefaultPreviewRows
	}
	p, res, err := s.Corrections.Preview(c.Request.Context(), orgID, id, correctionsvc.PreviewInput{
		FileID: *req.FileID, Rows: req.Rows, IncludeProposed: req.IncludeProposed})
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewPreview(p.ID, p.Version, *req.FileID, res))
}

// applyView is an application started: the corrected copy being written
// (a file, processing until written and analysed) and the pipeline as
// applied.
type applyView struct {
	File     fileView     `json:"file"`
	Pipeline pipelineView `json:"pipeline"`
}

// applyPipeline starts writing a corrected copy of a file with the
// pipeline's active steps.
func (s *Server) applyPipeline(c *gin.Context) error {
	orgID, _, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req struct {
		FileID *int64 `json:"file_id"`
	}
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.FileID == nil {
		return errs.BadRequest("file_id is required: the analysed file to correct (a new corrected copy is written; the file is not changed)")
	}
	f, p, err := s.Corrections.Apply(c.Request.Context(), orgID, id, *req.FileID)
	if err != nil {
		return err
	}
	return respond(c, http.StatusAccepted, applyView{File: viewFile(f, false), Pipeline: viewPipeline(p)})
}
