package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// auditRow is an audit entry as stored, with SQLite's rowid (0 on
// PostgreSQL), so a replaced row shows even when its values come back.
type auditRow struct {
	RowID     int64
	ID        string
	OrgID     string
	Event     string
	IPAddress string
	Metadata  string
	CreatedAt time.Time
}

func auditRows(t *testing.T, db *models.DB) []auditRow {
	t.Helper()
	rowid := "0"
	if db.Dialect == models.SQLite {
		rowid = "rowid"
	}
	var out []auditRow
	err := db.Gorm.Raw("SELECT " + rowid + " AS row_id, id, org_id, event, ip_address, metadata, created_at FROM audit_logs ORDER BY id").Scan(&out).Error
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestAuditLogRefusesEveryRewrite tries each way the database offers to
// change or remove an audit entry, in SQL and through gorm: each is
// refused and leaves the entry as it was; appending still works.
func TestAuditLogRefusesEveryRewrite(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		org := newOrg(t, s, "Acme")
		entries := []models.AuditLog{
			{OrgID: org.ID, Event: "login", IPAddress: "192.0.2.1", Metadata: `{"a":1}`, CreatedAt: testNow()},
			{OrgID: org.ID, Event: "logout", IPAddress: "192.0.2.2", Metadata: `{"b":2}`, CreatedAt: testNow()},
		}
		if err := s.Audit.AppendBatch(ctx, entries); err != nil {
			t.Fatal(err)
		}
		before := auditRows(t, db)
		id, other := entries[0].ID, entries[1].ID
		const cols = "(id, org_id, event, ip_address, metadata, created_at)"
		forged := []any{id, org.ID, "forged", "203.0.113.9", "{}", testNow()}

		type attempt struct {
			name string
			run  func(g *gorm.DB) error
		}
		sql := func(name, stmt string, args ...any) attempt {
			return attempt{name, func(g *gorm.DB) error { return g.Exec(stmt, args...).Error }}
		}
		attempts := []attempt{
			sql("UPDATE", "UPDATE audit_logs SET event = 'forged' WHERE id = ?", id),
			sql("DELETE", "DELETE FROM audit_logs WHERE id = ?", id),
			sql("DELETE all", "DELETE FROM audit_logs"),
			sql("UPSERT", "INSERT INTO audit_logs "+cols+" VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET event = excluded.event, metadata = excluded.metadata", forged...),
			sql("UPSERT moving the key", "INSERT INTO audit_logs "+cols+" VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET id = 'moved'", forged...),
			{"gorm Delete", func(g *gorm.DB) error { return g.Where("id = ?", id).Delete(&models.AuditLog{}).Error }},
			{"gorm Delete all", func(g *gorm.DB) error {
				return g.Session(&gorm.Session{AllowGlobalUpdate: true}).Delete(&models.AuditLog{}).Error
			}},
			{"gorm Save", func(g *gorm.DB) error {
				return g.Save(&models.AuditLog{ID: id, OrgID: org.ID, Event: "forged", Metadata: "{}", CreatedAt: testNow()}).Error
			}},
			{"gorm Updates", func(g *gorm.DB) error {
				return g.Model(&models.AuditLog{}).Where("id = ?", id).Updates(map[string]any{"event": "forged"}).Error
			}},
			{"gorm upsert", func(g *gorm.DB) error {
				return g.Clauses(clause.OnConflict{UpdateAll: true}).
					Create(&models.AuditLog{ID: id, OrgID: org.ID, Event: "forged", Metadata: "{}", CreatedAt: testNow()}).Error
			}},
		}
		if db.Dialect == models.SQLite {
			attempts = append(attempts,
				sql("INSERT OR REPLACE", "INSERT OR REPLACE INTO audit_logs "+cols+" VALUES (?, ?, ?, ?, ?, ?)", forged...),
				sql("REPLACE INTO", "REPLACE INTO audit_logs "+cols+" VALUES (?, ?, ?, ?, ?, ?)", forged...),
				sql("INSERT OR REPLACE by rowid", "INSERT OR REPLACE INTO audit_logs (rowid, id, org_id, event, ip_address, metadata, created_at) VALUES (?, 'new-id', ?, 'forged', '', '{}', ?)",
					before[0].RowID, org.ID, testNow()),
				sql("REPLACE INTO by rowid", "REPLACE INTO audit_logs (rowid, id, org_id, event, ip_address, metadata, created_at) VALUES (?, 'new-id', ?, 'forged', '', '{}', ?)",
					before[1].RowID, org.ID, testNow()),
				sql("UPDATE OR REPLACE onto another key", "UPDATE OR REPLACE audit_logs SET id = ? WHERE id = ?", other, id),
				sql("UPSERT on rowid", "INSERT INTO audit_logs (rowid, id, org_id, event, ip_address, metadata, created_at) VALUES (?, 'new-id', ?, 'forged', '', '{}', ?) ON CONFLICT DO UPDATE SET event = 'forged'",
					before[0].RowID, org.ID, testNow()),
			)
		} else {
			attempts = append(attempts,
				sql("TRUNCATE", "TRUNCATE audit_logs"),
				sql("TRUNCATE CASCADE", "TRUNCATE audit_logs RESTART IDENTITY CASCADE"),
				sql("MERGE update", "MERGE INTO audit_logs a USING (SELECT ?::text AS id) s ON a.id = s.id WHEN MATCHED THEN UPDATE SET event = 'forged'", id),
				sql("MERGE delete", "MERGE INTO audit_logs a USING (SELECT ?::text AS id) s ON a.id = s.id WHEN MATCHED THEN DELETE", id),
			)
		}
		for _, a := range attempts {
			if err := a.run(db.Gorm); err == nil {
				t.Errorf("%s on audit_logs succeeded; the table must be append-only", a.name)
			}
			after := auditRows(t, db)
			if len(after) != len(before) {
				t.Fatalf("after %s: %d rows, want %d: %+v", a.name, len(after), len(before), after)
			}
			for i := range before {
				if after[i] != before[i] || !after[i].CreatedAt.Equal(before[i].CreatedAt) {
					t.Fatalf("after %s: row %+v, want %+v", a.name, after[i], before[i])
				}
			}
		}

		// Appending is untouched: the service's batches, and a plain insert.
		more := []models.AuditLog{{OrgID: org.ID, Event: "login", CreatedAt: testNow()}, {OrgID: org.ID, Event: "login", CreatedAt: testNow()}}
		if err := s.Audit.AppendBatch(ctx, more); err != nil {
			t.Fatalf("append after the refused writes: %v", err)
		}
		if err := db.Gorm.Exec("INSERT INTO audit_logs "+cols+" VALUES ('plain-new', ?, 'login', '', '{}', ?)", org.ID, testNow()).Error; err != nil {
			t.Fatalf("plain insert: %v", err)
		}
		if n := len(auditRows(t, db)); n != len(before)+3 {
			t.Fatalf("%d rows after appending 3, want %d", n, len(before)+3)
		}
	})
}
