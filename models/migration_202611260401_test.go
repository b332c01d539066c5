package models_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestMigratingToFilesCSVDialect: files of a database built before CSV
// dialects read as sniffed afterwards, and a dialect given with a new
// upload round-trips in the user's words, per file.
func TestMigratingToFilesCSVDialect(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			db := openMigratedTo(t, d, migrationBefore(t, "202611260401_files_csv_dialect"))
			s := models.NewStores(db)
			org := insertOldOrg(t, db, "A")
			job := &models.Job{Filenames: `["old.csv", "semi.csv", "sniffed.csv"]`, RetentionMode: "short_term", RetentionDays: 30, CreatedAt: time.Now().UTC()}
			if err := s.Jobs.Create(ctx, org.ID, job); err != nil {
				t.Fatal(err)
			}
			// A row as the old release wrote it.
			err := db.Gorm.Table("files").Create(map[string]any{"org_id": org.ID, "job_id": job.ID, "file_name": "old.csv",
				"storage_key": "k", "status": "completed", "created_at": time.Now().UTC()}).Error
			if err != nil {
				t.Fatal(err)
			}
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			files, err := s.Files.ListByJob(ctx, org.ID, job.ID)
			if err != nil || len(files) != 1 || files[0].CSVDialect != nil || files[0].CSVDialectWords() != nil {
				t.Fatalf("old file: %+v, %v", files, err)
			}
			given := models.NewCSVDialect(" semicolon ", "", "2", "latin-1")
			for name, words := range map[string]*models.CSVDialect{"semi.csv": &given, "sniffed.csv": nil} {
				f := &models.File{JobID: job.ID, FileName: name, StorageKey: "k-" + name, CSVDialect: models.EncodeCSVDialect(words), CreatedAt: time.Now().UTC()}
				if err := s.Files.Create(ctx, org.ID, f); err != nil {
					t.Fatal(err)
				}
				back, err := s.Files.Get(ctx, org.ID, f.ID)
				if err != nil || !reflect.DeepEqual(back.CSVDialectWords(), words) {
					t.Errorf("%s: stored %+v, read back %+v (%v)", name, words, back.CSVDialectWords(), err)
				}
				if words == nil && back.CSVDialect != nil {
					t.Errorf("%s: a sniffed file stores %q, want NULL", name, *back.CSVDialect)
				}
			}
			if given != (models.CSVDialect{Delimiter: "semicolon", Header: "2", Encoding: "latin-1"}) {
				t.Errorf("words kept as %+v", given)
			}
		})
	}
}

// TestCSVDialectWords: what is stored for a file and read back.
func TestCSVDialectWords(t *testing.T) {
	if models.EncodeCSVDialect(&models.CSVDialect{}) != nil || models.EncodeCSVDialect(nil) != nil {
		t.Error("a dialect of no words is stored")
	}
	if got := models.NewCSVDialect(" ", "\t", " none ", ""); got != (models.CSVDialect{Delimiter: " ", Quote: "\t", Header: "none"}) {
		t.Errorf("single characters are kept, longer words trimmed: %+v", got)
	}
	for _, stored := range []string{"", "{}", "not json", `{"delimiter": 1}`} {
		f := &models.File{CSVDialect: &stored}
		if w := f.CSVDialectWords(); w != nil {
			t.Errorf("%q read as %+v", stored, w)
		}
	}
	stored := `{"delimiter":";","header":"2"}`
	f := &models.File{CSVDialect: &stored}
	if w := f.CSVDialectWords(); w == nil || *w != (models.CSVDialect{Delimiter: ";", Header: "2"}) {
		t.Errorf("%q read as %+v", stored, w)
	}
}
