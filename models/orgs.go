package models

import (
	"context"
	"errors"
	"time"

	"github.com/dqs/dqs/errs"
	"gorm.io/gorm"
)

// Defaults of a new organisation (DECISIONS.md).
const (
	InitialTokens             = 100
	DefaultRetentionMode      = "short_term"
	DefaultRetentionDays      = 30
	DefaultAnomalySensitivity = "medium"
	DefaultTrustThreshold     = 0.8
)

// Orgs reads and writes organisations.
type Orgs struct{ db *DB }

// Create inserts org with the defaults filled in.
func (s Orgs) Create(ctx context.Context, org *Organization) error {
	if org.ID == "" {
		org.ID = NewID()
	}
	org.TokenBalance = InitialTokens
	org.RetentionMode = DefaultRetentionMode
	org.RetentionDays = DefaultRetentionDays
	org.AnomalySensitivity = DefaultAnomalySensitivity
	org.TrustThreshold = DefaultTrustThreshold
	org.GDPRCheckEnabled = true
	return s.db.conn(ctx).Create(org).Error
}

// Get returns the organisation orgID.
func (s Orgs) Get(ctx context.Context, orgID string) (*Organization, error) {
	var org Organization
	err := s.db.conn(ctx).Where("id = ?", orgID).Take(&org).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("organization")
	}
	return &org, err
}

// SettingsUpdate holds the settings a PATCH may change; nil leaves a field.
type SettingsUpdate struct {
	RetentionMode       *string
	RetentionDays       *int
	AnomalySensitivity  *string
	TrustThreshold      *float64
	GDPRCheckEnabled    *bool
	AnomalyExplanations *bool
	// SetNullTokens says to replace the null tokens by NullTokens (nil:
	// the engine's defaults).
	SetNullTokens bool
	NullTokens    []string
}

// UpdateSettings applies u to the organisation and returns it.
func (s Orgs) UpdateSettings(ctx context.Context, orgID string, u SettingsUpdate) (*Organization, error) {
	var out *Organization
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		org, err := s.Get(ctx, orgID)
		if err != nil {
			return err
		}
		if u.RetentionMode != nil {
			org.RetentionMode = *u.RetentionMode
		}
		if u.RetentionDays != nil {
			org.RetentionDays = *u.RetentionDays
		}
		if u.AnomalySensitivity != nil {
			org.AnomalySensitivity = *u.AnomalySensitivity
		}
		if u.TrustThreshold != nil {
			org.TrustThreshold = *u.TrustThreshold
		}
		if u.GDPRCheckEnabled != nil {
			org.GDPRCheckEnabled = *u.GDPRCheckEnabled
		}
		if u.AnomalyExplanations != nil {
			org.AnomalyExplanations = *u.AnomalyExplanations
		}
		if u.SetNullTokens {
			org.NullTokens = EncodeNullTokens(u.NullTokens)
		}
		org.UpdatedAt = time.Now().UTC()
		if err := s.db.conn(ctx).Model(&Organization{}).Where("id = ?", orgID).Updates(map[string]any{
			"retention_mode":       org.RetentionMode,
			"retention_days":       org.RetentionDays,
			"anomaly_sensitivity":  org.AnomalySensitivity,
			"trust_threshold":      org.TrustThreshold,
			"gdpr_check_enabled":   org.GDPRCheckEnabled,
			"anomaly_explanations": org.AnomalyExplanations,
			"null_tokens":          org.NullTokens,
			"updated_at":           org.UpdatedAt,
		}).Error; err != nil {
			return err
		}
		out = org
		return nil
	})
	return out, err
}

// AddTokens credits n tokens atomically and returns the new balance.
func (s Orgs) AddTokens(ctx context.Context, orgID string, n int64) (int64, error) {
	var balance int64
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		res := s.db.conn(ctx).Model(&Organization{}).Where("id = ?", orgID).
			Updates(map[string]any{"token_balance": gorm.Expr("token_balance + ?", n), "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.NotFound("organization")
		}
		org, err := s.Get(ctx, orgID)
		if err != nil {
			return err
		}
		balance = org.TokenBalance
		return nil
	})
	return balance, err
}

// SpendTokens debits n tokens atomically, refusing to go below zero.
func (s Orgs) SpendTokens(ctx context.Context, orgID string, n int64) (int64, error) {
	var balance int64
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		res := s.db.conn(ctx).Model(&Organization{}).Where("id = ? AND token_balance >= ?", orgID, n).
			Updates(map[string]any{"token_balance": gorm.Expr("token_balance - ?", n), "updated_at": time.Now().UTC()})
		if res.Error != nil {
			return res.Error
		}
		org, err := s.Get(ctx, orgID)
		if err != nil {
			return err
		}
		if res.RowsAffected == 0 {
			return errs.InsufficientTokens("this needs %d tokens; the balance is %d", n, org.TokenBalance)
		}
		balance = org.TokenBalance
		return nil
	})
	return balance, err
}
