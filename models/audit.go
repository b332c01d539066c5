package models

import (
	"context"
	"time"
)

// AuditLogs appends and reads audit entries. There is deliberately no
// update or delete method, and the database refuses both.
type AuditLogs struct{ db *DB }

// AppendBatch inserts entries in one statement. Each entry carries its own
// organisation id.
func (s AuditLogs) AppendBatch(ctx context.Context, entries []AuditLog) error {
	if len(entries) == 0 {
		return nil
	}
	for i := range entries {
		if entries[i].ID == "" {
			entries[i].ID = newTimeOrderedID()
		}
		if entries[i].CreatedAt.IsZero() {
			entries[i].CreatedAt = time.Now().UTC()
		}
		if entries[i].Metadata == "" {
			entries[i].Metadata = "{}"
		}
	}
	return s.db.conn(ctx).CreateInBatches(entries, 200).Error
}

// AuditEntry is an audit log row with the acting user's e-mail joined.
type AuditEntry struct {
	AuditLog
	UserEmail *string
}

// List returns the organisation's entries, newest first, optionally of one
// event, and the total.
func (s AuditLogs) List(ctx context.Context, orgID, event string, p Page) ([]AuditEntry, int64, error) {
	q := s.db.conn(ctx).Table("audit_logs").Where("audit_logs.org_id = ?", orgID)
	if event != "" {
		q = q.Where("audit_logs.event = ?", event)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []AuditEntry
	err := q.Select("audit_logs.*, users.email AS user_email").
		Joins("LEFT JOIN users ON users.id = audit_logs.user_id AND users.org_id = audit_logs.org_id").
		Order("audit_logs.created_at DESC, audit_logs.id DESC").Limit(p.Limit).Offset(p.Offset).
		Scan(&out).Error
	return out, total, err
}
