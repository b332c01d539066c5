package models

import (
	"fmt"

	"gorm.io/gorm"
)

// migrateAuditNoReplace closes the last write path that could change an
// audit entry on SQLite. The triggers of 202611210002_audit_append_only
// refuse UPDATE and DELETE, but INSERT OR REPLACE (and REPLACE INTO)
// removes the row it conflicts with without firing DELETE triggers
// (SQLite fires them for REPLACE only under PRAGMA recursive_triggers, a
// per-connection setting the database file cannot enforce). A BEFORE
// INSERT trigger runs before the conflict is resolved, so refusing an
// insert whose key is already taken covers REPLACE and UPSERT alike; an
// ordinary insert of a new entry is untouched.
//
// The keys are the primary key and the rowid, which an INSERT OR REPLACE
// may name explicitly to replace a row. NEW.rowid is -1 in a BEFORE
// INSERT trigger when the statement does not give one (every insert of
// the service), so -1 is never looked up: a row at rowid -1 can only be
// one forged by an explicit insert, and looking it up would refuse every
// later entry. A unique index added to audit_logs later must be added to
// this trigger's condition.
//
// PostgreSQL has no REPLACE: INSERT ... ON CONFLICT DO UPDATE and MERGE
// fire the row-level BEFORE UPDATE trigger, which already refuses, as do
// DELETE and TRUNCATE; nothing is added there.
func migrateAuditNoReplace(tx *gorm.DB) error {
	if tx.Dialector.Name() == "postgres" {
		return nil
	}
	err := tx.Exec(`CREATE TRIGGER audit_logs_no_replace BEFORE INSERT ON audit_logs
WHEN EXISTS (SELECT 1 FROM audit_logs WHERE id = NEW.id)
  OR (NEW.rowid <> -1 AND EXISTS (SELECT 1 FROM audit_logs WHERE rowid = NEW.rowid))
BEGIN
  SELECT RAISE(ABORT, 'audit_logs is append-only: an entry with this key exists');
END`).Error
	if err != nil {
		return fmt.Errorf("audit no-replace trigger: %w", err)
	}
	return nil
}
