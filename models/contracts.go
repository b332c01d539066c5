package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/dqs/dqs/errs"
)

// Contract is a data contract of one table of a source: rules over the
// metrics its scans record (package contracts), evaluated when a scheduled
// scan completes and on demand. Rules holds the JSON of the rules, their
// severities filled in (contracts.Normalize).
type Contract struct {
	ID        int64  `gorm:"primaryKey;autoIncrement"`
	OrgID     string `gorm:"size:36;not null;index:idx_contracts_org_source,priority:1"`
	SourceID  int64  `gorm:"not null;index:idx_contracts_org_source,priority:2"`
	TableName string `gorm:"size:1024;not null"`
	Name      string `gorm:"size:200;not null"`
	Enabled   bool   `gorm:"not null"`
	Rules     string `gorm:"type:text;not null"`
	// LastEvaluation is the JSON of the latest evaluation (nil before the
	// first), so a dashboard shows a contract's state without evaluating.
	LastEvaluation  *string `gorm:"type:text"`
	LastEvaluatedAt *time.Time
	CreatedBy       string    `gorm:"size:36;not null;default:''"`
	CreatedAt       time.Time `gorm:"not null"`
	UpdatedAt       time.Time `gorm:"not null"`
}

// MaxContractsPerSource bounds the contracts of one source, so that the
// evaluation after a scan stays a bounded piece of work.
const MaxContractsPerSource = 200

// Contracts stores the organisations' data contracts.
type Contracts struct{ db *DB }

// Create stores c for source c.SourceID of the organisation, holding the
// source's row so a source deleted meanwhile leaves no contract behind
// (not found) and two creates cannot pass the bound together.
func (s Contracts) Create(ctx context.Context, orgID string, c *Contract) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.lockSource(ctx, orgID, c.SourceID); err != nil {
			return err
		}
		var n int64
		q := s.db.conn(ctx).Model(&Contract{}).Where("org_id = ? AND source_id = ?", orgID, c.SourceID)
		if err := q.Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxContractsPerSource {
			return errs.LimitExceeded("a source may hold at most %d contracts; delete one first", MaxContractsPerSource)
		}
		now := dbTime(time.Now())
		c.ID, c.OrgID, c.CreatedAt, c.UpdatedAt = 0, orgID, now, now
		c.LastEvaluation, c.LastEvaluatedAt = nil, nil
		return s.db.conn(ctx).Create(c).Error
	})
}

// Get returns contract id of the organisation.
func (s Contracts) Get(ctx context.Context, orgID string, id int64) (*Contract, error) {
	var c Contract
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&c).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("contract")
	}
	return &c, err
}

// GetForUpdate returns contract id of the organisation, holding its row
// until the transaction in ctx ends (PostgreSQL; SQLite transactions hold
// the write lock), so an edit reads what it changes without another edit
// in between.
func (s Contracts) GetForUpdate(ctx context.Context, orgID string, id int64) (*Contract, error) {
	q := s.db.conn(ctx)
	if s.db.Dialect == Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var c Contract
	err := q.Where("org_id = ? AND id = ?", orgID, id).Take(&c).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("contract")
	}
	return &c, err
}

// ContractFilter narrows a contract list; zero fields do not filter.
type ContractFilter struct {
	SourceID int64
	Table    string
	Enabled  *bool
}

// List returns a page of the organisation's contracts, oldest first, and
// their total.
func (s Contracts) List(ctx context.Context, orgID string, f ContractFilter, p Page) ([]Contract, int64, error) {
	q := s.db.conn(ctx).Model(&Contract{}).Where("org_id = ?", orgID)
	if f.SourceID != 0 {
		q = q.Where("source_id = ?", f.SourceID)
	}
	if f.Table != "" {
		q = q.Where("table_name = ?", f.Table)
	}
	if f.Enabled != nil {
		q = q.Where("enabled = ?", *f.Enabled)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Contract
	err := q.Order("id ASC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Enabled returns the enabled contracts of source sourceID, oldest first
// (at most MaxContractsPerSource).
func (s Contracts) Enabled(ctx context.Context, orgID string, sourceID int64) ([]Contract, error) {
	var out []Contract
	err := s.db.conn(ctx).Where("org_id = ? AND source_id = ? AND enabled = ?", orgID, sourceID, true).
		Order("id ASC").Limit(MaxContractsPerSource).Find(&out).Error
	return out, err
}

// Update saves the editable fields of c (name, table, enabled, rules;
// the source stays) and reloads it. A contract whose table or rules
// changed forgets its last evaluation: it was of other rules.
func (s Contracts) Update(ctx context.Context, orgID string, c *Contract) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		old, err := s.Get(ctx, orgID, c.ID)
		if err != nil {
			return err
		}
		fields := map[string]any{"name": c.Name, "table_name": c.TableName, "enabled": c.Enabled, "rules": c.Rules,
			"updated_at": dbTime(time.Now())}
		if old.TableName != c.TableName || old.Rules != c.Rules {
			fields["last_evaluation"], fields["last_evaluated_at"] = nil, nil
		}
		if err := s.db.conn(ctx).Model(&Contract{}).Where("org_id = ? AND id = ?", orgID, c.ID).Updates(fields).Error; err != nil {
			return err
		}
		fresh, err := s.Get(ctx, orgID, c.ID)
		if err == nil {
			*c = *fresh
		}
		return err
	})
}

// RecordEvaluation stores the JSON of the latest evaluation of contract
// c (its table and rules as evaluated), made at at, unless a later one is
// stored already (two evaluations finishing out of order keep the later)
// or the contract's table or rules changed meanwhile (the evaluation is of
// rules it no longer has).
func (s Contracts) RecordEvaluation(ctx context.Context, orgID string, c *Contract, evaluation string, at time.Time) error {
	at = dbTime(at)
	return s.db.conn(ctx).Model(&Contract{}).
		Where("org_id = ? AND id = ? AND table_name = ? AND rules = ? AND (last_evaluated_at IS NULL OR last_evaluated_at <= ?)",
			orgID, c.ID, c.TableName, c.Rules, at).
		UpdateColumns(map[string]any{"last_evaluation": evaluation, "last_evaluated_at": at}).Error
}

// Delete removes contract id of the organisation.
func (s Contracts) Delete(ctx context.Context, orgID string, id int64) error {
	res := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Delete(&Contract{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return errs.NotFound("contract")
	}
	return nil
}

// LatestTableScan returns the id of the latest scan of source sourceID
// that measured table, and when; "" when no scan has. Every measured table
// records its row_count, so the series index finds it.
func (s MetricPoints) LatestTableScan(ctx context.Context, orgID string, sourceID int64, table string) (string, time.Time, error) {
	var p MetricPoint
	err := s.db.conn(ctx).Select("scan_id", "recorded_at").
		Where("org_id = ? AND source_id = ? AND metric = ? AND table_hash = ? AND column_hash = ? AND table_name = ? AND column_name = ?",
			orgID, sourceID, "row_count", nameHash(table), nameHash(""), table, "").
		Order("recorded_at DESC, id DESC").Take(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return "", time.Time{}, nil
	}
	return p.ScanID, p.RecordedAt, err
}
