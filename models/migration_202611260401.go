package models

import (
	"fmt"

	"gorm.io/gorm"
)

// migrateFilesCSVDialect adds the CSV dialect an uploader gave a file,
// null in existing rows: they were sniffed, which is what null means.
//
// The migration that creates files builds the table from the live File
// struct, so on a new database the column is already there.
func migrateFilesCSVDialect(tx *gorm.DB) error {
	type file struct {
		CSVDialect *string `gorm:"type:text"`
	}
	m := tx.Table("files").Migrator()
	if m.HasColumn(&file{}, "CSVDialect") {
		return nil
	}
	if err := m.AddColumn(&file{}, "CSVDialect"); err != nil {
		return fmt.Errorf("add files.csv_dialect: %w", err)
	}
	return nil
}
