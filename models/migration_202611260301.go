package models

import (
	"fmt"

	"gorm.io/gorm"
)

// migrateNullTokens adds the null tokens of organisations and jobs, null in
// existing rows: the engine's defaults, which is what their files were
// analysed with.
//
// The tables it alters were created from frozen structs without the column,
// on a new database as on an old one, so it always adds it: a column already
// there would mean an older migration changed, and fails here loudly.
func migrateNullTokens(tx *gorm.DB) error {
	type nullTokens struct {
		NullTokens *string `gorm:"type:text"`
	}
	for _, table := range []string{"organizations", "jobs"} {
		if err := tx.Table(table).Migrator().AddColumn(&nullTokens{}, "NullTokens"); err != nil {
			return fmt.Errorf("add %s.null_tokens: %w", table, err)
		}
	}
	return nil
}
