package correctionsvc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
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
	groups, total, err := s.Stores.Suggestions.ListSuggestions(ctx, orgID, models.SuggestionFilter{Statuses: statuses, MinConfidence: minConfidence}, p)
	if err != nil || !slices.Contains(statuses, models.StepProposed) {
		return groups, total, err
	}
	// Drift explanations (always proposed) follow the files' groups: the
	// page goes on into them where the files' end.
	page := models.Page{Limit: p.Limit - len(groups), Offset: max(0, p.Offset-int(total))}
	explained, n, err := s.Stores.Suggestions.ListExplanations(ctx, orgID, minConfidence, page)
	if err != nil {
		return nil, 0, err
	}
	for i := range explained {
		groups = append(groups, models.SuggestionGroup{Explanation: &explained[i]})
	}
	return groups, total + n, nil
}

// Suggestion checks id names one of the organisation's suggestions (an
// engine step or a drift explanation) and returns it as the trust history
// sees it: its id, engine and correction type.
func (s *Service) Suggestion(ctx context.Context, orgID, id string) (*models.CorrectionStep, error) {
	st, err := s.Stores.Suggestions.EngineStep(ctx, orgID, id)
	if !errors.Is(err, errs.ErrNotFound) {
		return st, err
	}
	e, err := s.Stores.Suggestions.Explanation(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	return &models.CorrectionStep{ID: e.ID, Engine: models.EngineAnomaly, CorrectionType: models.ExplanationCorrection}, nil
}

// Feedback records whether a suggestion helped, with the user's words, in
// the trust history its engine's later suggestions are calibrated on; a
// user's later feedback on the same suggestion replaces theirs.
func (s *Service) Feedback(ctx context.Context, orgID, userID, stepID string, helpful *bool, comment string) (*models.TrustEvent, error) {
	if helpful == nil {
		return nil, errs.BadRequest("helpful is required: true or false")
	}
	comment = strings.TrimSpace(comment)
	if len(comment) > models.MaxFeedbackCommentBytes || !utf8.ValidString(comment) || strings.ContainsRune(comment, 0) {
		return nil, errs.BadRequest("comment must be UTF-8 text of at most %d bytes", models.MaxFeedbackCommentBytes)
	}
	st, err := s.Suggestion(ctx, orgID, stepID)
	if err != nil {
		return nil, err
	}
	kind := models.TrustUnhelpful
	if *helpful {
		kind = models.TrustHelpful
	}
	return s.Stores.Suggestions.Feedback(ctx, orgID, userID, *st, kind, comment)
}

// Propose adds the engines' proposals for an analysed file to the file's
// fix inbox (its suggestions pipeline, created on the first proposal), as
// proposed engine steps; a proposal equal to a step the pipeline already
// has (same type, column, strategy and parameters, whatever its state) is
// left out, so a re-analysis does not propose what was rejected again.
// It returns the pipeline, nil when there was nothing to propose. Proposals
// for one organisation are made one at a time, so two analyses of a file
// finishing together share one pipeline.
func (s *Service) Propose(ctx context.Context, orgID string, file *models.File, steps []models.CorrectionStep) (*models.Pipeline, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	for i := range steps {
		steps[i].ID, steps[i].Source, steps[i].Status = uuid.NewString(), models.StepSourceAuto, models.StepProposed
	}
	var out *models.Pipeline
	err := s.Stores.Suggestions.WithProposalLock(ctx, orgID, func(ctx context.Context) error {
		existing, err := s.Stores.Suggestions.InboxPipeline(ctx, orgID, file.ID)
		if err != nil {
			return err
		}
		if existing == nil {
			out = &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: file.ID,
				Name: inboxName(file.FileName), Origin: models.OriginSuggestions}, Steps: fitting(nil, steps)}
			return s.Stores.Corrections.Create(ctx, orgID, "", out)
		}
		out, err = s.Stores.Corrections.Edit(ctx, orgID, existing.ID, "", func(ctx context.Context, p *models.Pipeline) (string, error) {
			var fresh []models.CorrectionStep
			for _, st := range steps {
				if !hasStep(p.Steps, st) {
					fresh = append(fresh, st)
				}
			}
			fresh = fitting(p.Steps, fresh)
			p.Steps = append(p.Steps, fresh...)
			n := len(fresh)
			if n == 0 {
				return "", errNothingToDo
			}
			return fmt.Sprintf("%d step(s) suggested", n), nil
		})
		if errors.Is(err, errNothingToDo) {
			out, err = existing, nil
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// fitting returns the first of steps that fit beside held within the
// bounds of a pipeline (models.MaxCorrectionSteps steps,
// models.MaxPipelineBytes of configuration); the rest are left out, so
// that an inbox grown over many analyses never refuses what still fits.
func fitting(held, steps []models.CorrectionStep) []models.CorrectionStep {
	size := func(st models.CorrectionStep) int { return len(st.Params) + len(st.Preview) + len(st.Explanation) }
	total := 0
	for _, st := range held {
		total += size(st)
	}
	n := len(held)
	var out []models.CorrectionStep
	for _, st := range steps {
		if n >= models.MaxCorrectionSteps || size(st) > models.MaxStepBytes || total+size(st) > models.MaxPipelineBytes {
			continue
		}
		out = append(out, st)
		total += size(st)
		n++
	}
	return out
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
