// Package contractsvc is the service of data contracts: it checks a
// contract against what the scans of its table know, stores it, evaluates
// it against the table's latest results (after a scheduled scan and on
// demand), and raises the contract_violation alert and webhook event of a
// failed evaluation once per scan. The rules and their evaluation are the
// pure engine's (package contracts).
package contractsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dqs/dqs/contracts"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
)

// Service manages the organisations' contracts.
type Service struct {
	Stores *models.Stores
	// Events publishes the webhook event of a violation; nil publishes
	// nothing.
	Events events.Publisher
	// Affected lists what a table feeds (its lineage blast radius) for a
	// violation's evaluation; nil lists nothing.
	Affected func(ctx context.Context, orgID string, sourceID int64, table string) (*lineage.BlastRadius, error)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Input is what a create or an update sets; nil fields are left as they
// are (an update) or take their default (a create: enabled true).
type Input struct {
	Name      *string
	SourceID  *int64
	TableName *string
	Enabled   *bool
	Rules     *[]contracts.Rule
}

// Contract is a stored contract with its rules read.
type Contract struct {
	models.Contract
	RuleList []contracts.Rule
	// Last is the latest evaluation, nil before the first.
	Last *Evaluation
}

// Evaluation is the outcome of a contract against one scan's results
// (DECISIONS.md "Contract": contract_id, passed, evaluated_at, scan_id,
// results), with the engine's counts. Passed is true when at least one
// rule was evaluated and none failed: a contract whose table was never
// scanned, or whose rules all had to be skipped, has not passed.
type Evaluation struct {
	ContractID  int64              `json:"contract_id"`
	Passed      bool               `json:"passed"`
	EvaluatedAt time.Time          `json:"evaluated_at"`
	ScanID      *string            `json:"scan_id"`
	Evaluated   int                `json:"evaluated"`
	Failed      int                `json:"failed"`
	Skipped     int                `json:"skipped"`
	Results     []contracts.Result `json:"results"`
	AlertID     *int64             `json:"alert_id"`
	// Affected is what the table feeds (a violation's blast radius).
	Affected *lineage.BlastRadius `json:"affected"`
}

// read decodes a stored contract.
func read(m *models.Contract) (*Contract, error) {
	c := &Contract{Contract: *m}
	if err := json.Unmarshal([]byte(m.Rules), &c.RuleList); err != nil {
		return nil, fmt.Errorf("contract %d: stored rules: %w", m.ID, err)
	}
	if m.LastEvaluation != nil {
		var ev Evaluation
		if err := json.Unmarshal([]byte(*m.LastEvaluation), &ev); err == nil {
			c.Last = &ev
		}
	}
	return c, nil
}

// Create checks and stores a new contract of the caller's organisation:
// name, source_id, table_name and rules are required; the source must be
// the organisation's (404 otherwise); every rule must be valid
// (contracts.Validate) and name a column the latest scan of the table saw,
// when it has been scanned (400 naming the rule otherwise).
func (s *Service) Create(ctx context.Context, orgID, userID string, in Input) (*Contract, error) {
	switch {
	case in.Name == nil:
		return nil, errs.BadRequest("name is required")
	case in.SourceID == nil:
		return nil, errs.BadRequest("source_id is required")
	case in.TableName == nil:
		return nil, errs.BadRequest("table_name is required")
	case in.Rules == nil:
		return nil, errs.BadRequest("rules is required")
	}
	m := &models.Contract{SourceID: *in.SourceID, Enabled: true, CreatedBy: userID}
	if err := s.apply(ctx, orgID, m, in); err != nil {
		return nil, err
	}
	if err := s.Stores.Contracts.Create(ctx, orgID, m); err != nil {
		return nil, err
	}
	return read(m)
}

// Update changes a contract's name, table, enabled flag or rules, checked
// as Create checks them; its source cannot change (400).
func (s *Service) Update(ctx context.Context, orgID string, id int64, in Input) (*Contract, error) {
	var m *models.Contract
	// Read, check and write in one transaction holding the contract's
	// row: two edits at once (one renames, one disables) both land.
	err := s.Stores.DB.WithTx(ctx, func(ctx context.Context) error {
		var err error
		if m, err = s.Stores.Contracts.GetForUpdate(ctx, orgID, id); err != nil {
			return err
		}
		if in.SourceID != nil && *in.SourceID != m.SourceID {
			return errs.BadRequest("source_id cannot change; create a contract for the other source")
		}
		if err := s.apply(ctx, orgID, m, in); err != nil {
			return err
		}
		return s.Stores.Contracts.Update(ctx, orgID, m)
	})
	if err != nil {
		return nil, err
	}
	return read(m)
}

// apply sets the fields of in on m and checks the result.
func (s *Service) apply(ctx context.Context, orgID string, m *models.Contract, in Input) error {
	if _, err := s.Stores.Sources.Get(ctx, orgID, m.SourceID); err != nil {
		return err
	}
	rules := []contracts.Rule{}
	if m.Rules != "" {
		if err := json.Unmarshal([]byte(m.Rules), &rules); err != nil {
			return fmt.Errorf("contract %d: stored rules: %w", m.ID, err)
		}
	}
	if in.Name != nil {
		m.Name = strings.TrimSpace(*in.Name)
	}
	if in.TableName != nil {
		m.TableName = *in.TableName
	}
	if in.Enabled != nil {
		m.Enabled = *in.Enabled
	}
	if in.Rules != nil {
		rules = *in.Rules
	}
	c := contracts.Contract{Name: m.Name, TableName: m.TableName, Rules: rules}
	if err := c.Validate(); err != nil {
		return invalid(err)
	}
	rules = contracts.Normalize(rules)
	// Columns are checked when the rules or their table are set, not on
	// every edit: a contract whose column was dropped since must still be
	// renamed or disabled.
	if in.Rules != nil || in.TableName != nil {
		if err := s.checkColumns(ctx, orgID, m.SourceID, m.TableName, rules); err != nil {
			return err
		}
	}
	raw, err := json.Marshal(rules)
	if err != nil {
		return err
	}
	m.Rules = string(raw)
	return nil
}

// invalid maps the engine's validation error to a 400 saying where.
func invalid(err error) error {
	if errors.Is(err, contracts.ErrInvalid) {
		return errs.BadRequest("%s", err.Error())
	}
	return err
}

// tableColumns returns the columns the latest scan of table saw, and that
// scan's id ("" and nil when no scan measured the table).
func (s *Service) tableColumns(ctx context.Context, orgID string, sourceID int64, table string) (string, []string, error) {
	scanID, _, err := s.Stores.MetricPoints.LatestTableScan(ctx, orgID, sourceID, table)
	if err != nil || scanID == "" {
		return "", nil, err
	}
	points, err := s.Stores.MetricPoints.ByScanTable(ctx, orgID, scanID, table)
	if err != nil {
		return "", nil, err
	}
	var cols []string
	for _, p := range points {
		if p.ColumnName != "" && !slices.Contains(cols, p.ColumnName) {
			cols = append(cols, p.ColumnName)
		}
	}
	return scanID, cols, nil
}

// checkColumns refuses a rule naming a column the latest scan of table
// did not see. A table not scanned yet is not checked: its rules are
// evaluated (or skipped, with the reason) once it is.
func (s *Service) checkColumns(ctx context.Context, orgID string, sourceID int64, table string, rules []contracts.Rule) error {
	_, cols, err := s.tableColumns(ctx, orgID, sourceID, table)
	if err != nil || cols == nil {
		return err
	}
	for i, r := range rules {
		if r.Column != "" && !slices.Contains(cols, r.Column) {
			return errs.BadRequest("rules[%d].column: column %q is not in table %q as its latest scan saw it; its columns are %s",
				i, contracts.Clip(r.Column), contracts.Clip(table), listColumns(cols))
		}
	}
	return nil
}

// listColumns names up to 20 columns.
func listColumns(cols []string) string {
	shown := make([]string, 0, min(len(cols), 20))
	for _, c := range cols[:min(len(cols), 20)] {
		shown = append(shown, fmt.Sprintf("%q", contracts.Clip(c)))
	}
	out := strings.Join(shown, ", ")
	if len(cols) > len(shown) {
		out += fmt.Sprintf(" and %d more", len(cols)-len(shown))
	}
	return out
}

// Get returns a contract of the organisation.
func (s *Service) Get(ctx context.Context, orgID string, id int64) (*Contract, error) {
	m, err := s.Stores.Contracts.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	return read(m)
}

// List returns a page of the organisation's contracts and their total;
// a source_id filter naming another organisation's source is 404.
func (s *Service) List(ctx context.Context, orgID string, f models.ContractFilter, p models.Page) ([]*Contract, int64, error) {
	if f.SourceID != 0 {
		if _, err := s.Stores.Sources.Get(ctx, orgID, f.SourceID); err != nil {
			return nil, 0, err
		}
	}
	list, total, err := s.Stores.Contracts.List(ctx, orgID, f, p)
	if err != nil {
		return nil, 0, err
	}
	out := make([]*Contract, len(list))
	for i := range list {
		if out[i], err = read(&list[i]); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

// Delete removes a contract; its alerts stay.
func (s *Service) Delete(ctx context.Context, orgID string, id int64) error {
	return s.Stores.Contracts.Delete(ctx, orgID, id)
}
