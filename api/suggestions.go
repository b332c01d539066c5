package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/correctionsvc"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
)

// suggestionGroupView is the suggestions of one file's pipeline
// (DECISIONS.md: grouped per file), kind "file"; or a drift explanation of
// a scanned table, kind "table", whose file and pipeline fields are null.
type suggestionGroupView struct {
	Kind         string     `json:"kind"`
	FileID       *int64     `json:"file_id"`
	FileName     *string    `json:"file_name"`
	PipelineID   *string    `json:"pipeline_id"`
	PipelineName *string    `json:"pipeline_name"`
	SourceID     *int64     `json:"source_id"`
	TableName    *string    `json:"table_name"`
	Suggestions  []stepView `json:"suggestions"`
}

func viewSuggestionGroup(g *models.SuggestionGroup) suggestionGroupView {
	if e := g.Explanation; e != nil {
		return suggestionGroupView{Kind: "table", SourceID: &e.SourceID, TableName: &e.TableName, Suggestions: []stepView{viewExplanation(e)}}
	}
	v := suggestionGroupView{Kind: "file", FileID: &g.Pipeline.FileID, FileName: &g.FileName, PipelineID: &g.Pipeline.ID,
		PipelineName: &g.Pipeline.Name, Suggestions: make([]stepView, len(g.Steps))}
	for i, st := range g.Steps {
		v.Suggestions[i] = viewStep(st)
	}
	return v
}

// viewExplanation is a drift explanation as a suggestion: correction type
// "explanation", engine "anomaly", the cause as its strategy and what to
// check, the metrics that moved and the scan as its params. It has no
// preview and nothing to approve or apply.
func viewExplanation(e *models.DriftExplanation) stepView {
	var checks, metrics []string
	_ = json.Unmarshal([]byte(e.Checks), &checks) // written by the activity from a []string
	_ = json.Unmarshal([]byte(e.Metrics), &metrics)
	engine, conf := models.EngineAnomaly, e.Confidence
	return stepView{ID: e.ID, Position: 1, CorrectionType: models.ExplanationCorrection, Status: models.StepProposed,
		Source: models.StepSourceAuto, Engine: &engine, Confidence: &conf, Preview: json.RawMessage("null"), Explanation: &e.Explanation,
		Config: correctionsvc.StepConfig{Strategy: e.Cause, Params: map[string]any{"checks": checks, "metrics": metrics, "scan_id": e.ScanID}}}
}

// listSuggestions lists the fix inbox: the engines' pending steps, grouped
// per file, paged by group.
func (s *Server) listSuggestions(c *gin.Context) error {
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	minConfidence := 0.0
	if raw, ok := c.GetQuery("min_confidence"); ok {
		if minConfidence, err = strconv.ParseFloat(raw, 64); err != nil {
			return errs.BadRequest("min_confidence must be a number from 0 to 1")
		}
	}
	list, total, err := s.Corrections.ListSuggestions(c.Request.Context(), mustPrincipal(c).OrgID, minConfidence, c.Query("status"), models.Page(pg))
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewSuggestionGroup), total, pg)
}

// feedbackView is a feedback recorded on a suggestion.
type feedbackView struct {
	ID           string    `json:"id"`
	SuggestionID string    `json:"suggestion_id"`
	Helpful      bool      `json:"helpful"`
	Comment      string    `json:"comment"`
	CreatedAt    time.Time `json:"created_at"`
}

// suggestionFeedback records whether a suggestion helped.
func (s *Server) suggestionFeedback(c *gin.Context) error {
	var req struct {
		Helpful *bool  `json:"helpful"`
		Comment string `json:"comment"`
	}
	p := mustPrincipal(c)
	ctx := c.Request.Context()
	// Another organisation's suggestion is 404 whatever the body.
	if _, err := s.Corrections.Suggestion(ctx, p.OrgID, c.Param("suggestion_id")); err != nil {
		return err
	}
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	ev, err := s.Corrections.Feedback(ctx, p.OrgID, p.actorID(), c.Param("suggestion_id"), req.Helpful, req.Comment)
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, feedbackView{ID: ev.ID, SuggestionID: ev.StepID, Helpful: ev.Kind == models.TrustHelpful,
		Comment: ev.Comment, CreatedAt: ev.CreatedAt.UTC()})
}
