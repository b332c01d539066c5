package contractsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dqs/dqs/contracts"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
)

// Evaluate checks a contract against the latest results of its table (the
// latest scan that measured it), stores the evaluation as the contract's
// last, and, when a rule failed, raises the contract_violation alert and
// webhook event of that scan: once per contract and scan however often it
// is read. A table never scanned evaluates to every rule skipped, not
// passed, and raises nothing.
func (s *Service) Evaluate(ctx context.Context, orgID string, id int64) (*Evaluation, error) {
	m, err := s.Stores.Contracts.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	c, err := read(m)
	if err != nil {
		return nil, err
	}
	src, err := s.Stores.Sources.Get(ctx, orgID, m.SourceID)
	if err != nil {
		return nil, err
	}
	scanID, _, err := s.Stores.MetricPoints.LatestTableScan(ctx, orgID, m.SourceID, m.TableName)
	if err != nil {
		return nil, err
	}
	points, err := s.points(ctx, orgID, scanID, c.TableName)
	if err != nil {
		return nil, err
	}
	// Read on demand, a violation is published when its alert is new
	// only: a client polling the evaluation must not resend the message.
	return s.evaluate(ctx, src, c, scanID, points, false)
}

// points are the values scan scanID recorded for table (none for "").
func (s *Service) points(ctx context.Context, orgID, scanID, table string) ([]models.MetricPoint, error) {
	if scanID == "" {
		return nil, nil
	}
	return s.Stores.MetricPoints.ByScanTable(ctx, orgID, scanID, table)
}

// EvaluateScan evaluates, after scan sc completed, the enabled
// contracts of its source whose table the scan measured, each against the
// scan's results (as Evaluate). Only scheduled scans are evaluated
// (SPEC.md: contracts are evaluated when a scheduled scan completes); a
// manual scan returns no evaluations, and its results are evaluated on
// demand. Run again, it raises no alert twice.
func (s *Service) EvaluateScan(ctx context.Context, sc *models.Scan) ([]*Evaluation, error) {
	if sc.ScheduleID == nil {
		return nil, nil
	}
	orgID, scanID := sc.OrgID, sc.ID
	src, err := s.Stores.Sources.Get(ctx, orgID, sc.SourceID)
	if err != nil {
		return nil, err
	}
	list, err := s.Stores.Contracts.Enabled(ctx, orgID, sc.SourceID)
	if err != nil {
		return nil, err
	}
	var out []*Evaluation
	for i := range list {
		c, err := read(&list[i])
		if err != nil {
			return out, err
		}
		points, err := s.points(ctx, orgID, scanID, c.TableName)
		if err != nil {
			return out, err
		}
		if len(points) == 0 {
			continue // the scan did not measure the contract's table
		}
		// A retried activity publishes again: the first attempt may have
		// raised the alert and failed to publish; the event's id delivers
		// it once.
		ev, err := s.evaluate(ctx, src, c, scanID, points, true)
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
	return out, nil
}

// evaluate checks contract c of source src against points, the results
// scan scanID recorded for its table (none: every rule skipped), records
// the evaluation and, for an enabled contract, raises the violation
// (republish: publish its event even when the alert existed).
func (s *Service) evaluate(ctx context.Context, src *models.Source, c *Contract, scanID string, points []models.MetricPoint, republish bool) (*Evaluation, error) {
	metrics := contracts.NewMetrics()
	for _, p := range points {
		metrics.Set(p.ColumnName, p.Metric, p.Value)
	}
	res := contracts.Evaluate(c.RuleList, metrics)
	ev := &Evaluation{ContractID: c.ID, Passed: res.Passed && res.Evaluated > 0, EvaluatedAt: s.now().UTC(),
		Evaluated: res.Evaluated, Failed: res.Failed, Skipped: res.Skipped, Results: res.Results, Affected: &lineage.BlastRadius{Nodes: []lineage.Reached{}}}
	if len(points) > 0 {
		ev.ScanID = &scanID
	}
	// A disabled contract is paused: it answers, and raises nothing.
	if res.Failed > 0 && c.Enabled {
		if err := s.raise(ctx, src, c, scanID, res, ev, republish); err != nil {
			return nil, err
		}
	}
	raw, err := json.Marshal(ev)
	if err != nil {
		return nil, err
	}
	if err := s.Stores.Contracts.RecordEvaluation(ctx, src.OrgID, &c.Contract, string(raw), ev.EvaluatedAt); err != nil {
		return nil, err
	}
	return ev, nil
}

// AlertKey is the dedup key of the violation alert of contract id in scan
// scanID: one alert per contract and scan.
func AlertKey(id int64, scanID string) string {
	return fmt.Sprintf("contract/%d/%s", id, scanID)
}

// raise stores the violation's alert (once per contract and scan), lists
// what the table feeds, and publishes the webhook event when the alert is
// new or when republish says so (a retried activity, whose first attempt
// may have raised the alert and failed to publish; the event's id, the
// alert's key, delivers it once).
func (s *Service) raise(ctx context.Context, src *models.Source, c *Contract, scanID string, res contracts.Evaluation, ev *Evaluation, republish bool) error {
	if s.Affected != nil {
		affected, err := s.Affected(ctx, src.OrgID, src.ID, c.TableName)
		if err != nil {
			return err
		}
		if affected != nil {
			ev.Affected = affected
		}
	}
	sourceID := src.ID
	alert := &models.Alert{DedupKey: AlertKey(c.ID, scanID), Severity: res.WorstSeverity(), Type: models.AlertContractViolation,
		Message: Message(src.Name, c, res, ev.Affected), SourceID: &sourceID, CreatedAt: ev.EvaluatedAt}
	created, err := s.Stores.Alerts.Raise(ctx, src.OrgID, alert)
	if err != nil {
		return err
	}
	ev.AlertID = &alert.ID
	if s.Events == nil || (!created && !republish) {
		return nil
	}
	return s.Events.Publish(ctx, events.Event{ID: alert.DedupKey, Type: events.ContractViolation, OrgID: src.OrgID,
		Title: fmt.Sprintf("Contract %q violated on %s", c.Name, c.TableName), Text: alert.Message, OccurredAt: alert.CreatedAt})
}

// Message says which rules of a contract failed, with their values, and
// what the table feeds: "Contract "orders" on table orders (source shop
// db) failed 2 of 5 rules: email.null_rate <= 0.05 was 0.31; row_count >=
// 1000 was 12. Downstream: 3 nodes (table report_daily, ...)".
func Message(sourceName string, c *Contract, res contracts.Evaluation, affected *lineage.BlastRadius) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Contract %q on table %s (source %s) failed %d of %d rules: ", c.Name, contracts.Clip(c.TableName), sourceName,
		res.Failed, len(res.Results))
	failed := res.Violations()
	for i, r := range failed[:min(len(failed), 5)] {
		if i > 0 {
			b.WriteString("; ")
		}
		rule := contracts.Rule{Metric: r.Metric, Column: contracts.Clip(r.Column), Operator: r.Operator, Threshold: r.Threshold}
		fmt.Fprintf(&b, "%s was %s", rule, num(*r.Actual))
	}
	if len(failed) > 5 {
		fmt.Fprintf(&b, "; and %d more", len(failed)-5)
	}
	b.WriteString(".")
	if n := len(affected.Nodes); n > 0 {
		names := make([]string, 0, min(n, 3))
		for _, a := range affected.Nodes[:min(n, 3)] {
			names = append(names, string(a.Type)+" "+contracts.Clip(a.Name))
		}
		count := fmt.Sprint(n)
		if affected.Truncated {
			count = "more than " + count
		}
		more := ""
		if n > len(names) {
			more = ", ..."
		}
		fmt.Fprintf(&b, " Downstream: %s node(s) (%s%s).", count, strings.Join(names, ", "), more)
	}
	return b.String()
}

func num(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.6g", v), ".0") }
