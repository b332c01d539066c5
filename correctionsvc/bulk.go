package correctionsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
)

// Skipped is a step a bulk operation left as it was, and why.
type Skipped struct {
	StepID string `json:"step_id"`
	Reason string `json:"reason"`
}

// BulkResult is what a bulk operation did.
type BulkResult struct {
	Processed []string  `json:"processed"`
	Skipped   []Skipped `json:"skipped"`
	Pipeline  *models.Pipeline
	// Copy is the corrected copy a bulk apply started writing; nil when
	// it processed no step, and for the other actions.
	Copy *models.File
}

// Bulk actions.
const (
	ActionApprove = "approve"
	ActionReject  = "reject"
	ActionApply   = "apply"
)

// MaxBulkSteps bounds the step ids of one bulk request.
const MaxBulkSteps = models.MaxCorrectionSteps

// Bulk approves or rejects the listed steps as one edit. An engine step
// whose confidence is under the organisation's trust threshold is
// skipped with the reason; user steps carry no confidence and are never
// skipped by it. A step not in the pipeline, or not in a state the action
// moves, is skipped too. Nothing processed: no new version.
func (s *Service) Bulk(ctx context.Context, orgID, userID, id string, stepIDs []string, action string) (*BulkResult, error) {
	var to string
	var from []string
	switch action {
	case ActionApprove:
		to, from = models.StepActive, []string{models.StepProposed}
	case ActionReject:
		to, from = models.StepRejected, []string{models.StepProposed, models.StepActive}
	case ActionApply:
		// Approved on the way (proposed ones), then applied: the listed
		// steps only, to the pipeline's file.
		to, from = models.StepActive, []string{models.StepProposed, models.StepActive, models.StepApplied}
	default:
		return nil, errs.BadRequest("action must be approve, reject or apply")
	}
	if len(stepIDs) == 0 || len(stepIDs) > MaxBulkSteps {
		return nil, errs.BadRequest("step_ids must list 1 to %d step ids", MaxBulkSteps)
	}
	if action == ActionApply {
		// What would refuse the copy refuses the request before any step
		// is approved.
		if err := s.canApply(ctx, orgID, id); err != nil {
			return nil, err
		}
	}
	threshold, err := s.trustThreshold(ctx, orgID)
	if err != nil {
		return nil, err
	}
	res, err := s.bulk(ctx, orgID, userID, id, action, func(p *models.Pipeline) (picked []int, skipped []Skipped) {
		seen := map[string]bool{}
		for _, sid := range stepIDs {
			if seen[sid] {
				continue
			}
			seen[sid] = true
			i, err := findStep(p, sid)
			switch {
			case err != nil:
				skipped = append(skipped, Skipped{sid, "not a step of this pipeline"})
			case !slices.Contains(from, p.Steps[i].Status):
				skipped = append(skipped, Skipped{sid, fmt.Sprintf("the step is %s", p.Steps[i].Status)})
			case action != ActionReject && below(p.Steps[i], threshold):
				skipped = append(skipped, Skipped{sid, belowReason(p.Steps[i], threshold)})
			default:
				picked = append(picked, i)
			}
		}
		return picked, skipped
	}, to)
	if err != nil || action != ActionApply {
		return res, err
	}
	return s.bulkApply(ctx, orgID, res)
}

// canApply checks the pipeline can be applied to its file: active, and
// its file analysed with its raw file stored.
func (s *Service) canApply(ctx context.Context, orgID, id string) error {
	p, err := s.Stores.Corrections.Get(ctx, orgID, id)
	if err != nil {
		return err
	}
	if err := applicable(p); err != nil {
		return err
	}
	_, _, err = s.storedInput(ctx, orgID, p.FileID, nil)
	return err
}

// bulkApply applies the steps a bulk apply processed to the pipeline's
// file, as a new corrected copy.
func (s *Service) bulkApply(ctx context.Context, orgID string, res *BulkResult) (*BulkResult, error) {
	if len(res.Processed) == 0 {
		return res, nil
	}
	p := res.Pipeline
	cp, err := s.apply(ctx, p, ApplyRef{OrgID: orgID, PipelineID: p.ID, Version: p.Version, FileID: p.FileID, StepIDs: res.Processed})
	res.Copy = cp
	return res, err
}

// ApproveAllHighConfidence approves every proposed engine step whose
// confidence reaches both the organisation's trust threshold and
// minConfidence (when given); the other proposed engine steps are skipped
// with the reason.
func (s *Service) ApproveAllHighConfidence(ctx context.Context, orgID, userID, id string, minConfidence *float64) (*BulkResult, error) {
	threshold, err := s.trustThreshold(ctx, orgID)
	if err != nil {
		return nil, err
	}
	if minConfidence != nil {
		if *minConfidence < 0 || *minConfidence > 1 || math.IsNaN(*minConfidence) {
			return nil, errs.BadRequest("min_confidence must be a number from 0 to 1")
		}
		threshold = math.Max(threshold, *minConfidence)
	}
	return s.bulk(ctx, orgID, userID, id, "approve all high confidence", func(p *models.Pipeline) (picked []int, skipped []Skipped) {
		for i, st := range p.Steps {
			switch {
			case st.Status != models.StepProposed || st.Source != models.StepSourceAuto:
				// "High confidence" is the engines': a proposed step
				// without one is approved by hand.
			case below(st, threshold):
				skipped = append(skipped, Skipped{st.ID, belowReason(st, threshold)})
			default:
				picked = append(picked, i)
			}
		}
		return picked, skipped
	}, models.StepActive)
}

// bulk moves the steps pick chooses to state to, as one edit; when it
// picks none, the pipeline is read and left at its version.
func (s *Service) bulk(ctx context.Context, orgID, userID, id, what string, pick func(p *models.Pipeline) ([]int, []Skipped), to string) (*BulkResult, error) {
	res := &BulkResult{Processed: []string{}, Skipped: []Skipped{}}
	p, err := s.edit(ctx, orgID, id, userID, func(ctx context.Context, p *models.Pipeline) (string, error) {
		picked, skipped := pick(p)
		res.Skipped = append(res.Skipped, skipped...)
		if len(picked) == 0 {
			return "", errNothingToDo
		}
		for _, i := range picked {
			if err := s.judged(ctx, orgID, userID, p.Steps[i], to); err != nil {
				return "", err
			}
			p.Steps[i].Status = to
			res.Processed = append(res.Processed, p.Steps[i].ID)
		}
		return fmt.Sprintf("bulk %s of %d step(s)", what, len(picked)), nil
	})
	if errors.Is(err, errNothingToDo) {
		p, err = s.Stores.Corrections.Get(ctx, orgID, id)
	}
	res.Pipeline = p
	return res, err
}

// judged records in the trust history that a user moved engine step st to
// state to: approved (proposed → active) or rejected. Other moves (a step
// already active, a user's step) say nothing about the engine.
func (s *Service) judged(ctx context.Context, orgID, userID string, st models.CorrectionStep, to string) error {
	if st.Source != models.StepSourceAuto || st.Status == to {
		return nil
	}
	var kind string
	switch {
	case to == models.StepRejected:
		kind = models.TrustRejected
	case to == models.StepActive && st.Status == models.StepProposed:
		kind = models.TrustApproved
	default:
		return nil
	}
	_, err := s.Stores.Suggestions.Record(ctx, orgID, userID, st, kind, "")
	return err
}

// errNothingToDo ends an edit that would change nothing, so no version is
// made.
var errNothingToDo = errs.Conflict("nothing to change")

// below reports whether an engine step's confidence is under the
// threshold; user steps never are.
func below(st models.CorrectionStep, threshold float64) bool {
	return st.Source == models.StepSourceAuto && (st.Confidence == nil || *st.Confidence < threshold)
}

func belowReason(st models.CorrectionStep, threshold float64) string {
	if st.Confidence == nil {
		return fmt.Sprintf("no confidence; the trust threshold is %.2f", threshold)
	}
	return fmt.Sprintf("confidence %.2f is below the trust threshold %.2f", *st.Confidence, threshold)
}

func (s *Service) trustThreshold(ctx context.Context, orgID string) (float64, error) {
	org, err := s.Stores.Orgs.Get(ctx, orgID)
	if err != nil {
		return 0, err
	}
	return org.TrustThreshold, nil
}

// Revert makes a new version whose steps are version v's (name and status
// stay as they are); every version in between is kept.
func (s *Service) Revert(ctx context.Context, orgID, userID, id string, v int) (*models.Pipeline, error) {
	if v < 1 {
		return nil, errs.BadRequest("to_version must be a version number (1 or more)")
	}
	if _, err := s.Stores.Corrections.Get(ctx, orgID, id); err != nil {
		return nil, err
	}
	target, err := s.Stores.Corrections.Version(ctx, orgID, id, v)
	if err != nil {
		return nil, err
	}
	var steps []models.CorrectionStep
	if err := json.Unmarshal([]byte(target.Steps), &steps); err != nil {
		return nil, fmt.Errorf("pipeline %s version %d: stored steps: %w", id, v, err)
	}
	return s.edit(ctx, orgID, id, userID, func(ctx context.Context, p *models.Pipeline) (string, error) {
		p.Steps = steps
		return fmt.Sprintf("reverted to version %d", v), nil
	})
}
