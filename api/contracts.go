package api

import (
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/dqs/dqs/contracts"
	"github.com/dqs/dqs/contractsvc"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
)

// ruleView is one rule of a contract: column null for a table metric.
type ruleView struct {
	Metric    string  `json:"metric"`
	Column    *string `json:"column"`
	Operator  string  `json:"operator"`
	Threshold float64 `json:"threshold"`
	Severity  string  `json:"severity"`
}

// resultView is one rule's outcome in an evaluation.
type resultView struct {
	ruleView
	Actual  *float64 `json:"actual"`
	Passed  bool     `json:"passed"`
	Skipped bool     `json:"skipped"`
	Reason  *string  `json:"reason"`
}

// evaluationView is a contract's evaluation (DECISIONS.md "Contract":
// contract_id, passed, evaluated_at, scan_id, results), with the counts,
// the violation's alert and what the table feeds.
type evaluationView struct {
	ContractID  int64                `json:"contract_id"`
	Passed      bool                 `json:"passed"`
	EvaluatedAt time.Time            `json:"evaluated_at"`
	ScanID      *string              `json:"scan_id"`
	Evaluated   int                  `json:"evaluated"`
	Failed      int                  `json:"failed"`
	Skipped     int                  `json:"skipped"`
	Results     []resultView         `json:"results"`
	AlertID     *int64               `json:"alert_id"`
	Affected    *lineage.BlastRadius `json:"affected"`
}

// contractView is a contract (DECISIONS.md "Contract") with its latest
// evaluation.
type contractView struct {
	ID             int64           `json:"id"`
	Name           string          `json:"name"`
	SourceID       int64           `json:"source_id"`
	TableName      string          `json:"table_name"`
	Enabled        bool            `json:"enabled"`
	Rules          []ruleView      `json:"rules"`
	LastEvaluation *evaluationView `json:"last_evaluation"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
}

func viewRule(r contracts.Rule) ruleView {
	return ruleView{Metric: r.Metric, Column: strPtr(r.Column), Operator: r.Operator, Threshold: r.Threshold, Severity: r.Severity}
}

func viewEvaluation(ev *contractsvc.Evaluation) *evaluationView {
	if ev == nil {
		return nil
	}
	out := &evaluationView{ContractID: ev.ContractID, Passed: ev.Passed, EvaluatedAt: ev.EvaluatedAt.UTC(), ScanID: ev.ScanID,
		Evaluated: ev.Evaluated, Failed: ev.Failed, Skipped: ev.Skipped, Results: make([]resultView, len(ev.Results)),
		AlertID: ev.AlertID, Affected: ev.Affected}
	for i, r := range ev.Results {
		rule := contracts.Rule{Metric: r.Metric, Column: r.Column, Operator: r.Operator, Threshold: r.Threshold, Severity: r.Severity}
		out.Results[i] = resultView{ruleView: viewRule(rule), Actual: r.Actual, Passed: r.Passed, Skipped: r.Skipped, Reason: strPtr(r.Reason)}
	}
	if out.Affected == nil {
		out.Affected = &lineage.BlastRadius{Nodes: []lineage.Reached{}}
	}
	return out
}

func viewContract(c *contractsvc.Contract) contractView {
	return contractView{ID: c.ID, Name: c.Name, SourceID: c.SourceID, TableName: c.TableName, Enabled: c.Enabled,
		Rules: views(c.RuleList, func(r *contracts.Rule) ruleView { return viewRule(*r) }), LastEvaluation: viewEvaluation(c.Last),
		CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

// ruleRequest is a rule as a request writes it: column empty or null for
// a table metric, severity empty for warning; threshold is required.
type ruleRequest struct {
	Metric    string   `json:"metric"`
	Column    *string  `json:"column"`
	Operator  string   `json:"operator"`
	Threshold *float64 `json:"threshold"`
	Severity  string   `json:"severity"`
}

// contractRequest is the body of a contract's create and update.
type contractRequest struct {
	Name      *string        `json:"name"`
	SourceID  *int64         `json:"source_id"`
	TableName *string        `json:"table_name"`
	Enabled   *bool          `json:"enabled"`
	Rules     *[]ruleRequest `json:"rules"`
}

func (r contractRequest) input() (contractsvc.Input, error) {
	in := contractsvc.Input{Name: r.Name, SourceID: r.SourceID, TableName: r.TableName, Enabled: r.Enabled}
	if r.Rules == nil {
		return in, nil
	}
	rules := make([]contracts.Rule, len(*r.Rules))
	for i, rr := range *r.Rules {
		if rr.Threshold == nil {
			return in, errs.BadRequest("rules[%d].threshold: required", i)
		}
		rules[i] = contracts.Rule{Metric: rr.Metric, Operator: rr.Operator, Threshold: *rr.Threshold, Severity: rr.Severity}
		if rr.Column != nil {
			rules[i].Column = *rr.Column
		}
	}
	in.Rules = &rules
	return in, nil
}

// bindContract reads the body of a contract's create or update.
func bindContract(c *gin.Context) (contractsvc.Input, error) {
	var req contractRequest
	if err := bindJSON(c, &req); err != nil {
		return contractsvc.Input{}, err
	}
	return req.input()
}

// contractID reads the contract id of the path; one that is not a
// positive number is 404.
func contractID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, errs.NotFound("contract")
	}
	return id, nil
}

// createContract adds a contract to a table of a source (member, scope
// write).
func (s *Server) createContract(c *gin.Context) error {
	in, err := bindContract(c)
	if err != nil {
		return err
	}
	p := mustPrincipal(c)
	ct, err := s.Contracts.Create(c.Request.Context(), p.OrgID, p.userID(), in)
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, viewContract(ct))
}

// listContracts lists the organisation's contracts, oldest first, paged;
// filters source_id, table and enabled.
func (s *Server) listContracts(c *gin.Context) error {
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	f := models.ContractFilter{Table: c.Query("table")}
	if raw, ok := c.GetQuery("source_id"); ok {
		if f.SourceID, err = strconv.ParseInt(raw, 10, 64); err != nil || f.SourceID < 1 {
			return errs.BadRequest("source_id must be a positive integer")
		}
	}
	if raw, ok := c.GetQuery("enabled"); ok {
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return errs.BadRequest("enabled must be true or false")
		}
		f.Enabled = &b
	}
	list, total, err := s.Contracts.List(c.Request.Context(), mustPrincipal(c).OrgID, f, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]contractView, len(list))
	for i, ct := range list {
		out[i] = viewContract(ct)
	}
	return respondList(c, out, total, pg)
}

// getContract returns one contract with its latest evaluation.
func (s *Server) getContract(c *gin.Context) error {
	id, err := contractID(c)
	if err != nil {
		return err
	}
	ct, err := s.Contracts.Get(c.Request.Context(), mustPrincipal(c).OrgID, id)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewContract(ct))
}

// updateContract changes a contract's name, table, enabled flag or rules
// (member, scope write).
func (s *Server) updateContract(c *gin.Context) error {
	id, err := contractID(c)
	if err != nil {
		return err
	}
	in, err := bindContract(c)
	if err != nil {
		return err
	}
	ct, err := s.Contracts.Update(c.Request.Context(), mustPrincipal(c).OrgID, id, in)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewContract(ct))
}

// deleteContract removes a contract (member, scope write); its alerts
// stay.
func (s *Server) deleteContract(c *gin.Context) error {
	id, err := contractID(c)
	if err != nil {
		return err
	}
	if err := s.Contracts.Delete(c.Request.Context(), mustPrincipal(c).OrgID, id); err != nil {
		return err
	}
	return respond(c, http.StatusOK, gin.H{"id": id, "deleted": true})
}

// importedView answers an import: the contract made, and the items of the
// document DQS cannot evaluate, each with its reason.
type importedView struct {
	Contract contractView        `json:"contract"`
	Skipped  []contracts.Skipped `json:"skipped"`
	Notes    []contracts.Note    `json:"notes"`
}

// importContract creates a contract from an ODCS v3 document, the request
// body (YAML or JSON, at most contracts.MaxODCSBytes): query source_id
// (required), table (the schema object; optional when the document has
// one), name and enabled (member, scope write).
func (s *Server) importContract(c *gin.Context) error {
	in := contractsvc.ImportInput{Table: c.Query("table")}
	var err error
	if in.SourceID, err = strconv.ParseInt(c.Query("source_id"), 10, 64); err != nil || in.SourceID < 1 {
		return errs.BadRequest("source_id is required: a positive integer")
	}
	if raw, ok := c.GetQuery("name"); ok {
		in.Name = &raw
	}
	if raw, ok := c.GetQuery("enabled"); ok {
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return errs.BadRequest("enabled must be true or false")
		}
		in.Enabled = &b
	}
	// One byte over the bound is read so that the engine says the
	// document is too large rather than seeing it cut.
	in.Document, err = io.ReadAll(io.LimitReader(c.Request.Body, contracts.MaxODCSBytes+1))
	if err != nil {
		return errs.BadRequest("the request body could not be read")
	}
	p := mustPrincipal(c)
	imp, err := s.Contracts.Import(c.Request.Context(), p.OrgID, p.userID(), in)
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, importedView{Contract: viewContract(imp.Contract), Skipped: imp.Skipped, Notes: imp.Notes})
}

// exportContract answers a contract as an ODCS v3 document in YAML.
func (s *Server) exportContract(c *gin.Context) error {
	id, err := contractID(c)
	if err != nil {
		return err
	}
	doc, err := s.Contracts.Export(c.Request.Context(), mustPrincipal(c).OrgID, id)
	if err != nil {
		return err
	}
	c.Header("Content-Disposition", `attachment; filename="contract-`+strconv.FormatInt(id, 10)+`.odcs.yaml"`)
	c.Data(http.StatusOK, "application/yaml; charset=utf-8", doc)
	return nil
}

// publicEvaluateContract evaluates a contract against the latest results
// of its table (scope read): query contract_id. A failed rule raises the
// contract_violation alert and webhook of that scan once.
func (s *Server) publicEvaluateContract(c *gin.Context) error {
	raw, ok := c.GetQuery("contract_id")
	if !ok {
		return errs.BadRequest("contract_id is required")
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || id < 1 {
		return errs.BadRequest("contract_id must be a positive integer")
	}
	ev, err := s.Contracts.Evaluate(c.Request.Context(), mustPrincipal(c).OrgID, id)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewEvaluation(ev))
}
