package models

import "gorm.io/gorm"

// migrateLineageVersions creates the change counter of each
// organisation's lineage graph, which tells a process whether the copy of
// a graph it holds in memory is still the stored graph (lineageCache).
func migrateLineageVersions(tx *gorm.DB) error {
	type lineageVersion struct {
		OrgID   string `gorm:"primaryKey;size:36"`
		Version int64  `gorm:"not null"`
	}
	return createTables(tx, []table{{"lineage_versions", &lineageVersion{}}})
}
