package correctionsvc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
)

// Suggestion statuses a listing selects: the fix inbox by default, or
// every state.
const (
	SuggestionsPending = "proposed"
	SuggestionsAll     = "all"
)

// ListSuggestions returns a page of the organisation's suggestions (the
// engine steps of its active pipelines) grouped per pipeline and file:
// pending ones (status proposed) unless status says otherwise, at or above
// minConfidence.
func (s *Service) ListSuggestions(ctx context.Context, orgID string, minConfidence float64, status string, p models.Page) ([]models.SuggestionGroup, int64, error) {
	if math.IsNaN(minConfidence) || minConfidence < 0 || minConfidence > 1 {
		return nil, 0, errs.BadRequest("min_confidence must be a number from 0 to 1")
	}
	var statuses []string
	switch status {
	case "", SuggestionsPending:
		statuses = []string{models.StepProposed}
	case SuggestionsAll:
		statuses = []string{models.StepProposed, models.StepActive, models.StepApplied, models.StepRejected, models.StepFailed}
	case models.StepActive, models.StepApplied, models.StepRejected, models.StepFailed:
		statuses = []string{status}
	default:
		return nil, 0, errs.BadRequest("status must be proposed, active, applied, rejected, failed or all")
	}
	return s.Stores.Suggestions.ListSuggestions(ctx, orgID, models.SuggestionFilter{Statuses: statuses, MinConfidence: minConfidence}, p)
}

// Feedback records whether a suggestion helped, with the user's words, in
// the trust history its engine's later suggestions are calibrated on.
func (s *Service) Feedback(ctx context.Context, orgID, userID, stepID string, helpful *bool, comment string) (*models.TrustEvent, error) {
	if helpful == nil {
		return nil, errs.BadRequest("helpful is required: true or false")
	}
	comment = strings.TrimSpace(comment)
	if len(comment) > models.MaxFeedbackCommentBytes || !utf8.ValidString(comment) || strings.ContainsRune(comment, 0) {
		return nil, errs.BadRequest("comment must be UTF-8 text of at most %d bytes", models.MaxFeedbackCommentBytes)
	}
	st, err := s.Stores.Suggestions.EngineStep(ctx, orgID, stepID)
	if err != nil {
		return nil, err
	}
	kind := models.TrustUnhelpful
	if *helpful {
		kind = models.TrustHelpful
	}
	return s.Stores.Suggestions.Record(ctx, orgID, userID, *st, kind, comment)
}

// Propose adds the engines' proposals for an analysed file to the file's
// fix inbox (its suggestions pipeline, created on the first proposal), as
// proposed engine steps; a proposal equal to a step the pipeline already
// has (same type, column, strategy and parameters, whatever its state) is
// left out, so a re-analysis does not propose what was rejected again.
// It returns the pipeline, nil when there was nothing to propose.
func (s *Service) Propose(ctx context.Context, orgID string, file *models.File, steps []models.CorrectionStep) (*models.Pipeline, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	for i := range steps {
		steps[i].ID, steps[i].Source, steps[i].Status = uuid.NewString(), models.StepSourceAuto, models.StepProposed
	}
	existing, err := s.Stores.Suggestions.InboxPipeline(ctx, orgID, file.ID)
	if err != nil {
		return nil, err
	}
	if existing == nil {
		steps = steps[:min(len(steps), models.MaxCorrectionSteps)]
		p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: file.ID,
			Name: inboxName(file.FileName), Origin: models.OriginSuggestions}, Steps: steps}
		return p, s.Stores.Corrections.Create(ctx, orgID, "", p)
	}
	p, err := s.Stores.Corrections.Edit(ctx, orgID, existing.ID, "", func(ctx context.Context, p *models.Pipeline) (string, error) {
		n := 0
		for _, st := range steps {
			if len(p.Steps) >= models.MaxCorrectionSteps {
				break
			}
			if !hasStep(p.Steps, st) {
				p.Steps = append(p.Steps, st)
				n++
			}
		}
		if n == 0 {
			return "", errNothingToDo
		}
		return fmt.Sprintf("%d step(s) suggested", n), nil
	})
	if errors.Is(err, errNothingToDo) {
		return existing, nil
	}
	return p, err
}

// inboxName is the name of a file's suggestions pipeline, within the
// bound of names.
func inboxName(fileName string) string {
	name := "Suggested fixes: " + strings.Join(strings.Fields(fileName), " ")
	for len(name) > maxNameBytes {
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	return name
}

// hasStep reports whether steps holds one doing what st does.
func hasStep(steps []models.CorrectionStep, st models.CorrectionStep) bool {
	for _, o := range steps {
		if o.CorrectionType == st.CorrectionType && o.ColumnName == st.ColumnName && o.Strategy == st.Strategy && o.Params == st.Params {
			return true
		}
	}
	return false
}
