package api

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
)

// stepView is a correction step (DECISIONS.md "Corrections and
// suggestions"): confidence for engine steps only, preview for proposed
// engine steps, error for a failed one.
type stepView struct {
	ID             string                   `json:"id"`
	Position       int                      `json:"position"`
	CorrectionType string                   `json:"correction_type"`
	Config         correctionsvc.StepConfig `json:"config"`
	Status         string                   `json:"status"`
	Source         string                   `json:"source"`
	Engine         *string                  `json:"engine"`
	Confidence     *float64                 `json:"confidence"`
	Preview        json.RawMessage          `json:"preview"`
	Explanation    *string                  `json:"explanation"`
	Error          *string                  `json:"error"`
}

// pipelineView is a correction pipeline with its steps in order.
type pipelineView struct {
	ID        string     `json:"id"`
	Name      string     `json:"name"`
	FileID    int64      `json:"file_id"`
	Status    string     `json:"status"`
	Version   int        `json:"version"`
	Steps     []stepView `json:"steps"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
}

func viewStep(st models.CorrectionStep) stepView {
	params, _ := corrections.DecodeParams([]byte(st.Params)) // stored from a map
	cfg := correctionsvc.StepConfig{Column: st.ColumnName, Strategy: st.Strategy, Params: params}
	v := stepView{ID: st.ID, Position: st.Position, CorrectionType: st.CorrectionType, Config: cfg, Status: st.Status,
		Source: st.Source, Engine: strPtr(st.Engine), Confidence: st.Confidence, Preview: json.RawMessage("null"), Explanation: strPtr(st.Explanation), Error: strPtr(st.Error)}
	if st.Preview != "" {
		v.Preview = json.RawMessage(st.Preview)
	}
	return v
}

func viewSteps(steps []models.CorrectionStep) []stepView {
	out := make([]stepView, len(steps))
	for i, st := range steps {
		out[i] = viewStep(st)
		out[i].Position = i + 1
	}
	return out
}

func viewPipeline(p *models.Pipeline) pipelineView {
	return pipelineView{ID: p.ID, Name: p.Name, FileID: p.FileID, Status: p.Status, Version: p.Version, Steps: viewSteps(p.Steps),
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
}

// stepRequest is a step as a request gives it.
type stepRequest struct {
	CorrectionType string                   `json:"correction_type"`
	Config         correctionsvc.StepConfig `json:"config"`
}

func (r stepRequest) input() correctionsvc.StepInput {
	return correctionsvc.StepInput{CorrectionType: r.CorrectionType, Config: r.Config}
}

// pipelineRequest is the body of POST /corrections.
type pipelineRequest struct {
	Name   string        `json:"name"`
	FileID *int64        `json:"file_id"`
	Steps  []stepRequest `json:"steps"`
}

// createPipeline stores a pipeline authored on an analysed file, with
// its user steps (active).
func (s *Server) createPipeline(c *gin.Context) error {
	var req pipelineRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.FileID == nil {
		return errs.BadRequest("file_id is required: the analysed file whose columns the steps use")
	}
	steps := make([]correctionsvc.StepInput, len(req.Steps))
	for i, st := range req.Steps {
		steps[i] = st.input()
	}
	p := mustPrincipal(c)
	pl, err := s.Corrections.Create(c.Request.Context(), p.OrgID, p.actorID(), req.Name, *req.FileID, steps)
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, viewPipeline(pl))
}

// listPipelines lists active pipelines, or archived ones with
// ?status=archived, newest first, paged.
func (s *Server) listPipelines(c *gin.Context) error {
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	status := c.DefaultQuery("status", models.PipelineActive)
	if status != models.PipelineActive && status != models.PipelineArchived {
		return errs.BadRequest("status must be active or archived")
	}
	list, total, err := s.Stores.Corrections.List(c.Request.Context(), mustPrincipal(c).OrgID, status, models.Page(pg))
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewPipeline), total, pg)
}

// pendingCount counts the proposed steps of the active pipelines.
func (s *Server) pendingCount(c *gin.Context) error {
	n, err := s.Stores.Corrections.PendingCount(c.Request.Context(), mustPrincipal(c).OrgID)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, map[string]int64{"pending_count": n})
}

// getPipeline returns a pipeline with its steps.
func (s *Server) getPipeline(c *gin.Context) error {
	p, err := s.Stores.Corrections.Get(c.Request.Context(), mustPrincipal(c).OrgID, c.Param("id"))
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewPipeline(p))
}

// ownedPipeline checks the path's pipeline is the caller's before the
// body is read: another organisation's is 404 whatever the body.
func (s *Server) ownedPipeline(c *gin.Context) (orgID, userID, id string, err error) {
	p := mustPrincipal(c)
	if _, err := s.Stores.Corrections.Get(c.Request.Context(), p.OrgID, c.Param("id")); err != nil {
		return "", "", "", err
	}
	return p.OrgID, p.actorID(), c.Param("id"), nil
}

// updatePipeline renames, archives or restores a pipeline.
func (s *Server) updatePipeline(c *gin.Context) error {
	orgID, userID, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req struct {
		Name   *string `json:"name"`
		Status *string `json:"status"`
	}
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	p, err := s.Corrections.Update(c.Request.Context(), orgID, userID, id, req.Name, req.Status)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewPipeline(p))
}

// addStep appends a user step (201 with the pipeline).
func (s *Server) addStep(c *gin.Context) error {
	orgID, userID, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req stepRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	p, err := s.Corrections.AddStep(c.Request.Context(), orgID, userID, id, req.input())
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, viewPipeline(p))
}

// editStep replaces a step's config.
func (s *Server) editStep(c *gin.Context) error {
	orgID, userID, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req struct {
		Config *correctionsvc.StepConfig `json:"config"`
	}
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Config == nil {
		return errs.BadRequest("config is required")
	}
	p, err := s.Corrections.EditStep(c.Request.Context(), orgID, userID, id, c.Param("step_id"), *req.Config)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewPipeline(p))
}

// approveStep moves a proposed step to active.
func (s *Server) approveStep(c *gin.Context) error {
	p := mustPrincipal(c)
	pl, err := s.Corrections.Approve(c.Request.Context(), p.OrgID, p.actorID(), c.Param("id"), c.Param("step_id"))
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewPipeline(pl))
}

// rejectStep moves a proposed or active step to rejected.
func (s *Server) rejectStep(c *gin.Context) error {
	p := mustPrincipal(c)
	pl, err := s.Corrections.Reject(c.Request.Context(), p.OrgID, p.actorID(), c.Param("id"), c.Param("step_id"))
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewPipeline(pl))
}

// bulkView is the answer of a bulk operation.
type bulkView struct {
	Processed []string                `json:"processed"`
	Skipped   []correctionsvc.Skipped `json:"skipped"`
	Pipeline  pipelineView            `json:"pipeline"`
	// File is the corrected copy a bulk apply started; null otherwise.
	File *fileView `json:"file"`
}

func viewBulk(r *correctionsvc.BulkResult) bulkView {
	v := bulkView{Processed: r.Processed, Skipped: r.Skipped, Pipeline: viewPipeline(r.Pipeline)}
	if r.Copy != nil {
		f := viewFile(r.Copy, false)
		v.File = &f
	}
	return v
}

// bulkSteps approves or rejects the listed steps.
func (s *Server) bulkSteps(c *gin.Context) error {
	orgID, userID, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req struct {
		StepIDs []string `json:"step_ids"`
		Action  string   `json:"action"`
	}
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	r, err := s.Corrections.Bulk(c.Request.Context(), orgID, userID, id, req.StepIDs, req.Action)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewBulk(r))
}

// approveAllHighConfidence approves the proposed steps at or above the
// trust threshold (and min_confidence).
func (s *Server) approveAllHighConfidence(c *gin.Context) error {
	orgID, userID, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req struct {
		MinConfidence *float64 `json:"min_confidence"`
	}
	if c.Request.ContentLength != 0 {
		if err := bindJSON(c, &req); err != nil {
			return err
		}
	}
	r, err := s.Corrections.ApproveAllHighConfidence(c.Request.Context(), orgID, userID, id, req.MinConfidence)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewBulk(r))
}

// versionView is one version of a pipeline.
type versionView struct {
	Version   int        `json:"version"`
	Name      string     `json:"name"`
	Status    string     `json:"status"`
	Change    string     `json:"change"`
	Steps     []stepView `json:"steps"`
	CreatedBy string     `json:"created_by"`
	CreatedAt time.Time  `json:"created_at"`
}

func viewVersion(v *models.CorrectionVersion) versionView {
	var steps []models.CorrectionStep
	_ = json.Unmarshal([]byte(v.Steps), &steps) // written by the store
	return versionView{Version: v.Version, Name: v.Name, Status: v.Status, Change: v.Change, Steps: viewSteps(steps),
		CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt.UTC()}
}

// listVersions lists a pipeline's versions, newest first, paged.
func (s *Server) listVersions(c *gin.Context) error {
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	list, total, err := s.Stores.Corrections.Versions(c.Request.Context(), mustPrincipal(c).OrgID, c.Param("id"), models.Page(pg))
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewVersion), total, pg)
}

// revertPipeline makes a new version with an earlier version's steps.
func (s *Server) revertPipeline(c *gin.Context) error {
	orgID, userID, id, err := s.ownedPipeline(c)
	if err != nil {
		return err
	}
	var req struct {
		ToVersion *int `json:"to_version"`
	}
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.ToVersion == nil {
		return errs.BadRequest("to_version is required")
	}
	p, err := s.Corrections.Revert(c.Request.Context(), orgID, userID, id, *req.ToVersion)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewPipeline(p))
}
