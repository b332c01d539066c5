package models

import (
	"fmt"

	"gorm.io/gorm"
)

// migrateNullTokens adds the null tokens of organisations and jobs, null in
// existing rows: the engine's defaults, which is what their files were
// analysed with.
//
// The first migration builds organizations from the live Organization
// struct, so on a new database the column is already there.
func migrateNullTokens(tx *gorm.DB) error {
	type nullTokens struct {
		NullTokens *string `gorm:"type:text"`
	}
	for _, table := range []string{"organizations", "jobs"} {
		m := tx.Table(table).Migrator()
		if m.HasColumn(&nullTokens{}, "NullTokens") {
			continue
		}
		if err := m.AddColumn(&nullTokens{}, "NullTokens"); err != nil {
			return fmt.Errorf("add %s.null_tokens: %w", table, err)
		}
	}
	return nil
}
