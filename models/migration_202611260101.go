package models

import (
	"fmt"
	"path/filepath"

	"gorm.io/gorm"
)

// uploadNameIndex is the unique index that stores one upload per declared
// name and job; Files.Create recognises its violation by this name.
const uploadNameIndex = "idx_files_job_upload_name"

// migrateOneUploadPerName lets the database, not a check before the insert,
// decide that a job holds one upload of each declared name: of concurrent
// uploads of one name exactly one row can be inserted. Corrected copies
// (parent_file_id set) are not uploads and stay outside the index.
//
// Before the index existed, concurrent uploads could store one name more
// than once, and the index cannot be built over such rows. Nothing is
// deleted: each was stored and analysed, and its results are the user's.
// The oldest keeps the name; each later one is renamed
// "<name> (duplicate <file id>)<extension>", which keeps the extension the
// readers detect the format by.
func migrateOneUploadPerName(tx *gorm.DB) error {
	if err := renameDuplicateUploads(tx); err != nil {
		return fmt.Errorf("rename duplicate uploads: %w", err)
	}
	err := tx.Exec("CREATE UNIQUE INDEX " + uploadNameIndex + " ON files (job_id, file_name) WHERE parent_file_id IS NULL").Error
	if err != nil {
		return fmt.Errorf("index files upload name: %w", err)
	}
	return nil
}

func renameDuplicateUploads(tx *gorm.DB) error {
	var groups []struct {
		JobID    string
		FileName string
	}
	err := tx.Table("files").Select("job_id, file_name").Where("parent_file_id IS NULL").
		Group("job_id, file_name").Having("COUNT(*) > 1").Order("job_id, file_name").Find(&groups).Error
	if err != nil {
		return err
	}
	for _, g := range groups {
		var names []string
		if err := tx.Table("files").Where("job_id = ?", g.JobID).Pluck("file_name", &names).Error; err != nil {
			return err
		}
		taken := make(map[string]bool, len(names))
		for _, n := range names {
			taken[n] = true
		}
		var ids []int64
		err := tx.Table("files").Where("job_id = ? AND file_name = ? AND parent_file_id IS NULL", g.JobID, g.FileName).
			Order("id ASC").Pluck("id", &ids).Error
		if err != nil {
			return err
		}
		for _, id := range ids[1:] {
			name := duplicateUploadName(g.FileName, id, taken)
			taken[name] = true
			if err := tx.Table("files").Where("id = ?", id).Update("file_name", name).Error; err != nil {
				return err
			}
		}
	}
	return nil
}

// duplicateUploadName names the later copy id of name, unlike any name in
// taken.
func duplicateUploadName(name string, id int64, taken map[string]bool) string {
	ext := filepath.Ext(name)
	stem := name[:len(name)-len(ext)]
	out := fmt.Sprintf("%s (duplicate %d)%s", stem, id, ext)
	for n := 2; taken[out]; n++ {
		out = fmt.Sprintf("%s (duplicate %d-%d)%s", stem, id, n, ext)
	}
	return out
}
