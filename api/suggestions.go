package api

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
)

// suggestionGroupView is the suggestions of one file's pipeline
// (DECISIONS.md: grouped per file).
type suggestionGroupView struct {
	FileID       int64      `json:"file_id"`
	FileName     string     `json:"file_name"`
	PipelineID   string     `json:"pipeline_id"`
	PipelineName string     `json:"pipeline_name"`
	Suggestions  []stepView `json:"suggestions"`
}

func viewSuggestionGroup(g *models.SuggestionGroup) suggestionGroupView {
	v := suggestionGroupView{FileID: g.Pipeline.FileID, FileName: g.FileName, PipelineID: g.Pipeline.ID, PipelineName: g.Pipeline.Name,
		Suggestions: make([]stepView, len(g.Steps))}
	for i, st := range g.Steps {
		v.Suggestions[i] = viewStep(st)
	}
	return v
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
	if _, err := s.Stores.Suggestions.EngineStep(ctx, p.OrgID, c.Param("suggestion_id")); err != nil {
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
