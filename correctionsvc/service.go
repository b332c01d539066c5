// Package correctionsvc is the service layer of correction pipelines: it
// checks steps against the columns of the file a pipeline was authored on
// (with the engine's own validation, package corrections), and makes
// every change of a pipeline one edit at the next version, kept in its
// history: create, rename, archive, add or edit a step, approve, reject,
// the bulk operations gated by the organisation's trust threshold, and
// revert to an earlier version.
package correctionsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/corrections"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/spool"
)

// Service manages correction pipelines.
type Service struct {
	Stores *models.Stores
	// Blobs and Spool read stored files for previews.
	Blobs blob.Store
	Spool *spool.Dir
	// Workflows starts applications.
	Workflows Workflows
	Logger    *slog.Logger
}

// StepConfig is a step's configuration as the API gives it.
type StepConfig struct {
	Column   string         `json:"column"`
	Strategy string         `json:"strategy"`
	Params   map[string]any `json:"params"`
}

// UnmarshalJSON reads a config keeping the numbers of its params as
// written (corrections.DecodeParams).
func (c *StepConfig) UnmarshalJSON(b []byte) error {
	type plain StepConfig
	var in struct {
		plain
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	params, err := corrections.DecodeParams(in.Params)
	if err != nil {
		return fmt.Errorf("params: %w", err)
	}
	*c = StepConfig(in.plain)
	c.Params = params
	return nil
}

// StepInput is a step to add.
type StepInput struct {
	CorrectionType string
	Config         StepConfig
}

// maxNameBytes bounds a pipeline's name.
const maxNameBytes = 200

// columns returns the columns of the organisation's file, which must be
// analysed: they are the schema steps are checked against.
func (s *Service) columns(ctx context.Context, orgID string, fileID int64) ([]string, error) {
	_, cols, err := s.analysedFile(ctx, orgID, fileID)
	return cols, err
}

// analysedFile returns the organisation's analysed file and its columns.
func (s *Service) analysedFile(ctx context.Context, orgID string, fileID int64) (*models.File, []string, error) {
	f, err := s.Stores.Files.Get(ctx, orgID, fileID)
	if err != nil {
		return nil, nil, err
	}
	if f.Status != models.FileCompleted {
		return nil, nil, errs.Conflict("file %d is %s; a pipeline is authored on an analysed file", fileID, f.Status)
	}
	cols, err := s.Stores.Files.ColumnsOfFiles(ctx, orgID, []int64{fileID})
	if err != nil {
		return nil, nil, err
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return f, out, nil
}

// EngineStep is the engine's view of a stored step.
func EngineStep(st models.CorrectionStep) corrections.Step {
	params, _ := corrections.DecodeParams([]byte(st.Params)) // written by newStep from a map
	return corrections.Step{ID: st.ID, Type: st.CorrectionType, Column: st.ColumnName, Strategy: st.Strategy, Params: params}
}

// newStep checks a step against the columns and returns it stored-shaped.
func newStep(field string, in StepInput, columns []string, source, status string) (models.CorrectionStep, error) {
	params := in.Config.Params
	if params == nil {
		params = map[string]any{}
	}
	// Stored as given: no HTML escaping (a pattern of < and > would
	// triple in size), numbers as written.
	var raw strings.Builder
	enc := json.NewEncoder(&raw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(params); err != nil {
		return models.CorrectionStep{}, errs.BadRequest("%s.config.params: %s", field, err.Error())
	}
	st := models.CorrectionStep{ID: uuid.NewString(), CorrectionType: in.CorrectionType, ColumnName: in.Config.Column,
		Strategy: in.Config.Strategy, Params: strings.TrimSuffix(raw.String(), "\n"), Source: source, Status: status}
	if err := EngineStep(st).Validate(columns); err != nil {
		return st, stepError(field, err)
	}
	return st, nil
}

// stepError is the 400 of a step the engine refuses, naming the field.
func stepError(field string, err error) error {
	var se *corrections.StepError
	if errors.As(err, &se) {
		name := se.Field
		if name != "correction_type" && name != "steps" && !strings.HasPrefix(name, "config") {
			name = "config." + name
		}
		return errs.BadRequest("%s.%s: %s", field, name, se.Message)
	}
	return errs.BadRequest("%s: %s", field, err.Error())
}

// Create stores a pipeline authored on a file with its user steps
// (active).
func (s *Service) Create(ctx context.Context, orgID, userID, name string, fileID int64, steps []StepInput) (*models.Pipeline, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	if len(steps) > models.MaxCorrectionSteps {
		return nil, errs.BadRequest("steps lists %d steps; a pipeline holds at most %d", len(steps), models.MaxCorrectionSteps)
	}
	columns, err := s.columns(ctx, orgID, fileID)
	if err != nil {
		return nil, err
	}
	p := &models.Pipeline{CorrectionPipeline: models.CorrectionPipeline{ID: uuid.NewString(), FileID: fileID, Name: strings.TrimSpace(name)}}
	for i, in := range steps {
		st, err := newStep(fmt.Sprintf("steps[%d]", i), in, columns, models.StepSourceUser, models.StepActive)
		if err != nil {
			return nil, err
		}
		p.Steps = append(p.Steps, st)
	}
	return p, s.Stores.Corrections.Create(ctx, orgID, userID, p)
}

func checkName(name string) error {
	if n := strings.TrimSpace(name); n == "" || len(n) > maxNameBytes || strings.ContainsAny(n, "\x00\r\n") {
		return errs.BadRequest("name must be 1 to %d bytes on one line", maxNameBytes)
	}
	return nil
}

// Update renames or archives (or restores) a pipeline.
func (s *Service) Update(ctx context.Context, orgID, userID, id string, name, status *string) (*models.Pipeline, error) {
	if name == nil && status == nil {
		return nil, errs.BadRequest("give name or status")
	}
	if name != nil {
		if err := checkName(*name); err != nil {
			return nil, err
		}
	}
	if status != nil && *status != models.PipelineActive && *status != models.PipelineArchived {
		return nil, errs.BadRequest("status must be active or archived")
	}
	return s.Stores.Corrections.Edit(ctx, orgID, id, userID, func(ctx context.Context, p *models.Pipeline) (string, error) {
		var what []string
		if name != nil && strings.TrimSpace(*name) != p.Name {
			p.Name, what = strings.TrimSpace(*name), append(what, "renamed")
		}
		if status != nil && *status != p.Status {
			p.Status, what = *status, append(what, *status)
		}
		if len(what) == 0 {
			return "", errs.Conflict("the pipeline already has that name and status")
		}
		return strings.Join(what, ", "), nil
	})
}

// AddStep appends a user step (active).
func (s *Service) AddStep(ctx context.Context, orgID, userID, id string, in StepInput) (*models.Pipeline, error) {
	return s.edit(ctx, orgID, id, userID, func(ctx context.Context, p *models.Pipeline) (string, error) {
		columns, err := s.columns(ctx, orgID, p.FileID)
		if err != nil {
			return "", err
		}
		st, err := newStep("step", in, columns, models.StepSourceUser, models.StepActive)
		if err != nil {
			return "", err
		}
		p.Steps = append(p.Steps, st)
		return "step added", nil
	})
}

// findStep returns the index of step stepID in p, or not found.
func findStep(p *models.Pipeline, stepID string) (int, error) {
	i := slices.IndexFunc(p.Steps, func(st models.CorrectionStep) bool { return st.ID == stepID })
	if i < 0 {
		return 0, errs.NotFound("step")
	}
	return i, nil
}

// EditStep replaces a step's configuration (its type stays). An applied
// or rejected step is not edited (409); a failed one becomes active again.
func (s *Service) EditStep(ctx context.Context, orgID, userID, id, stepID string, cfg StepConfig) (*models.Pipeline, error) {
	return s.edit(ctx, orgID, id, userID, func(ctx context.Context, p *models.Pipeline) (string, error) {
		i, err := findStep(p, stepID)
		if err != nil {
			return "", err
		}
		old := p.Steps[i]
		if old.Status == models.StepApplied || old.Status == models.StepRejected {
			return "", errs.Conflict("step %s is %s and cannot be edited; add a new step", stepID, old.Status)
		}
		columns, err := s.columns(ctx, orgID, p.FileID)
		if err != nil {
			return "", err
		}
		st, err := newStep("config", StepInput{CorrectionType: old.CorrectionType, Config: cfg}, columns, models.StepSourceUser, old.Status)
		if err != nil {
			return "", errs.BadRequest("%s", strings.Replace(err.Error(), "config.config.", "config.", 1))
		}
		// A step the user rewrote is the user's: the engine's confidence,
		// preview and explanation were about another configuration, and
		// must not carry it past the trust threshold.
		st.ID = old.ID
		if st.Status == models.StepFailed {
			st.Status = models.StepActive
		}
		p.Steps[i] = st
		return "step edited", nil
	})
}

// Approve moves a proposed step to active.
func (s *Service) Approve(ctx context.Context, orgID, userID, id, stepID string) (*models.Pipeline, error) {
	return s.moveStep(ctx, orgID, userID, id, stepID, models.StepActive, "step approved", models.StepProposed)
}

// Reject moves a proposed (or active) step to rejected.
func (s *Service) Reject(ctx context.Context, orgID, userID, id, stepID string) (*models.Pipeline, error) {
	return s.moveStep(ctx, orgID, userID, id, stepID, models.StepRejected, "step rejected", models.StepProposed, models.StepActive)
}

func (s *Service) moveStep(ctx context.Context, orgID, userID, id, stepID, to, what string, from ...string) (*models.Pipeline, error) {
	return s.edit(ctx, orgID, id, userID, func(ctx context.Context, p *models.Pipeline) (string, error) {
		i, err := findStep(p, stepID)
		if err != nil {
			return "", err
		}
		if !slices.Contains(from, p.Steps[i].Status) {
			return "", errs.Conflict("step %s is %s; only a %s step can become %s", stepID, p.Steps[i].Status, strings.Join(from, " or "), to)
		}
		if err := s.judged(ctx, orgID, userID, p.Steps[i], to); err != nil {
			return "", err
		}
		p.Steps[i].Status = to
		return what, nil
	})
}

// edit is an edit of an active pipeline's steps: an archived pipeline is
// read-only until PATCH makes it active again (409 otherwise), so what
// was archived stays as it was.
func (s *Service) edit(ctx context.Context, orgID, id, userID string, change func(ctx context.Context, p *models.Pipeline) (string, error)) (*models.Pipeline, error) {
	return s.Stores.Corrections.Edit(ctx, orgID, id, userID, func(ctx context.Context, p *models.Pipeline) (string, error) {
		if p.Status == models.PipelineArchived {
			return "", errs.Conflict("the pipeline is archived; set its status to active to change it")
		}
		return change(ctx, p)
	})
}
