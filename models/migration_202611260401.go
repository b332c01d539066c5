package models

import (
	"fmt"

	"gorm.io/gorm"
)

// migrateFilesCSVDialect adds the CSV dialect an uploader gave a file,
// null in existing rows: they were sniffed, which is what null means.
//
// 202611210003_jobs_and_files created files from a frozen struct without the
// column, so it is added on a new database as on an old one.
func migrateFilesCSVDialect(tx *gorm.DB) error {
	type file struct {
		CSVDialect *string `gorm:"type:text"`
	}
	if err := tx.Table("files").Migrator().AddColumn(&file{}, "CSVDialect"); err != nil {
		return fmt.Errorf("add files.csv_dialect: %w", err)
	}
	return nil
}
