package contractsvc

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dqs/dqs/contracts"
	"github.com/dqs/dqs/errs"
)

// ImportInput is a contract read from an ODCS v3 document: the source it
// binds to, the schema object (table) to read ("" for the only one), and
// optionally a name and the enabled flag (default true).
type ImportInput struct {
	SourceID int64
	Table    string
	Name     *string
	Enabled  *bool
	Document []byte
}

// Imported is a contract made from a document, with the items of the
// document it could not evaluate and what it assumed.
type Imported struct {
	Contract *Contract
	Skipped  []contracts.Skipped
	Notes    []contracts.Note
}

// importSlots bounds the documents parsed at once in a process: parsing
// takes about 150 times a document's size (contracts.MaxODCSBytes) in
// memory, and an import is a write any member can send.
var importSlots = make(chan struct{}, 2)

// Import creates a contract from the quality section of an ODCS v3
// document (contracts.Import). Items DQS cannot evaluate, including rules
// on a column the latest scan of the table did not see, are listed as
// skipped with the reason, never dropped silently; a document that
// leaves no rule to evaluate is 400 with the reasons. A document that is
// not ODCS v3 is 400, one over contracts.MaxODCSBytes 413.
func (s *Service) Import(ctx context.Context, orgID, userID string, in ImportInput) (*Imported, error) {
	if _, err := s.Stores.Sources.Get(ctx, orgID, in.SourceID); err != nil {
		return nil, err
	}
	select {
	case importSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	doc, err := contracts.Import(in.Document, in.Table)
	<-importSlots
	switch {
	case errors.Is(err, contracts.ErrTooLarge):
		return nil, errs.PayloadTooLarge("%s", err.Error())
	case errors.Is(err, contracts.ErrODCS):
		return nil, errs.BadRequest("%s", err.Error())
	case err != nil:
		return nil, err
	}
	out := &Imported{Skipped: doc.Skipped, Notes: doc.Notes}
	c := doc.Contract
	_, cols, err := s.tableColumns(ctx, orgID, in.SourceID, c.TableName)
	if err != nil {
		return nil, err
	}
	kept := c.Rules[:0:0]
	for _, r := range c.Rules {
		if cols != nil && r.Column != "" && !slices.Contains(cols, r.Column) {
			out.Skipped = append(out.Skipped, contracts.Skipped{Column: r.Column, Check: r.Metric,
				Reason: fmt.Sprintf("column %q is not in table %q as its latest scan saw it", contracts.Clip(r.Column), contracts.Clip(c.TableName))})
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == 0 {
		return nil, errs.BadRequest("the document has no quality rule DQS can evaluate for table %q: %s", contracts.Clip(c.TableName), reasons(out.Skipped))
	}
	name := c.Name
	if in.Name != nil {
		name = *in.Name
	}
	created, err := s.Create(ctx, orgID, userID, Input{Name: &name, SourceID: &in.SourceID, TableName: &c.TableName,
		Enabled: in.Enabled, Rules: &kept})
	if err != nil {
		return nil, err
	}
	out.Contract = created
	return out, nil
}

// reasons lists up to five skipped items' reasons.
func reasons(skipped []contracts.Skipped) string {
	if len(skipped) == 0 {
		return "it has no quality items"
	}
	var parts []string
	for _, sk := range skipped[:min(len(skipped), 5)] {
		parts = append(parts, fmt.Sprintf("%s (%s): %s", sk.Path, sk.Check, sk.Reason))
	}
	if len(skipped) > 5 {
		parts = append(parts, fmt.Sprintf("and %d more", len(skipped)-5))
	}
	return strings.Join(parts, "; ")
}

// Export renders a contract as an ODCS v3 document (YAML): status active
// when enabled, draft when not; the document id names the contract.
func (s *Service) Export(ctx context.Context, orgID string, id int64) ([]byte, error) {
	c, err := s.Get(ctx, orgID, id)
	if err != nil {
		return nil, err
	}
	status := "active"
	if !c.Enabled {
		status = "draft"
	}
	return contracts.Export(contracts.Contract{Name: c.Name, TableName: c.TableName, Rules: c.RuleList},
		contracts.ExportOptions{ID: fmt.Sprintf("dqs-contract-%d", c.ID), Status: status})
}
