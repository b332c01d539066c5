package models

import (
	"context"
	"fmt"
	"time"

	"github.com/go-gormigrate/gormigrate/v2"
	"gorm.io/gorm"
)

// migrations are explicit and ordered; an applied migration is never edited,
// a change is a new one. Each creates tables from structs frozen inside it,
// copies of the live models as they were when it was written (never aliases
// of them), so later edits of the live models cannot change what an old
// migration did: a database built from scratch and one upgraded release by
// release go through the same statements and end up the same. A field or
// index tag added to a live model therefore needs a new migration adding the
// column or index; TestMigrationsBuildTheLiveSchema fails until it has one.
// The live models in turn describe the whole schema, indexes made by
// hand-written SQL included, since that test compares what the migrations
// build with what AutoMigrate builds from LiveModels.
var migrations = []*gormigrate.Migration{
	{
		ID: "202611210001_accounts",
		Migrate: func(tx *gorm.DB) error {
			type organization struct {
				ID                 string    `gorm:"primaryKey;size:36"`
				Name               string    `gorm:"size:200;not null"`
				TokenBalance       int64     `gorm:"not null"`
				RetentionMode      string    `gorm:"size:32;not null"`
				RetentionDays      int       `gorm:"not null"`
				AnomalySensitivity string    `gorm:"size:16;not null"`
				TrustThreshold     float64   `gorm:"not null"`
				GDPRCheckEnabled   bool      `gorm:"column:gdpr_check_enabled;not null"`
				CreatedAt          time.Time `gorm:"not null"`
				UpdatedAt          time.Time `gorm:"not null"`
			}
			// Email is unique across the service until
			// 202611260201_users_email_per_org.
			type user struct {
				ID                string `gorm:"primaryKey;size:36"`
				OrgID             string `gorm:"size:36;not null;index"`
				Email             string `gorm:"size:320;not null;uniqueIndex"`
				PasswordHash      string `gorm:"size:200;not null"`
				Role              string `gorm:"size:16;not null"`
				EmailVerifiedAt   *time.Time
				TOTPSecret        string    `gorm:"column:totp_secret;size:300;not null;default:''"`
				TOTPPendingSecret string    `gorm:"column:totp_pending_secret;size:300;not null;default:''"`
				TOTPEnabled       bool      `gorm:"column:totp_enabled;not null;default:false"`
				TOTPLastStep      int64     `gorm:"column:totp_last_step;not null;default:0"`
				CreatedAt         time.Time `gorm:"not null"`
				UpdatedAt         time.Time `gorm:"not null"`
			}
			type refreshToken struct {
				ID        string    `gorm:"primaryKey;size:36"`
				OrgID     string    `gorm:"size:36;not null;index"`
				UserID    string    `gorm:"size:36;not null;index"`
				FamilyID  string    `gorm:"size:36;not null;index"`
				TokenHash string    `gorm:"size:64;not null;uniqueIndex"`
				ExpiresAt time.Time `gorm:"not null;index"`
				RotatedAt *time.Time
				RevokedAt *time.Time
				CreatedAt time.Time `gorm:"not null"`
			}
			type emailVerification struct {
				ID        string    `gorm:"primaryKey;size:36"`
				OrgID     string    `gorm:"size:36;not null;index"`
				UserID    string    `gorm:"size:36;not null;index"`
				TokenHash string    `gorm:"size:64;not null;uniqueIndex"`
				ExpiresAt time.Time `gorm:"not null;index"`
				UsedAt    *time.Time
				CreatedAt time.Time `gorm:"not null"`
			}
			type apiKey struct {
				ID         string    `gorm:"primaryKey;size:36"`
				OrgID      string    `gorm:"size:36;not null;index"`
				Name       string    `gorm:"size:200;not null"`
				Scope      string    `gorm:"size:16;not null"`
				KeyPrefix  string    `gorm:"size:32;not null"`
				KeyHash    string    `gorm:"size:64;not null;uniqueIndex"`
				CreatedBy  string    `gorm:"size:36;not null"`
				CreatedAt  time.Time `gorm:"not null"`
				LastUsedAt *time.Time
				RevokedAt  *time.Time
			}
			type auditLog struct {
				ID        string    `gorm:"primaryKey;size:36"`
				OrgID     string    `gorm:"size:36;not null;index:idx_audit_org_created,priority:1"`
				UserID    *string   `gorm:"size:36"`
				Event     string    `gorm:"size:64;not null;index"`
				IPAddress string    `gorm:"size:64;not null;default:''"`
				Metadata  string    `gorm:"type:text;not null"`
				CreatedAt time.Time `gorm:"not null;index:idx_audit_org_created,priority:2"`
			}
			return createTables(tx, []table{
				{"organizations", &organization{}},
				{"users", &user{}},
				{"refresh_tokens", &refreshToken{}},
				{"email_verifications", &emailVerification{}},
				{"api_keys", &apiKey{}},
				{"audit_logs", &auditLog{}},
			})
		},
	},
	{
		ID: "202611210002_audit_append_only",
		Migrate: func(tx *gorm.DB) error {
			for _, stmt := range appendOnlyTriggers(tx.Dialector.Name(), "audit_logs") {
				if err := tx.Exec(stmt).Error; err != nil {
					return fmt.Errorf("audit append-only trigger: %w", err)
				}
			}
			return nil
		},
	},
	{
		ID: "202611210003_jobs_and_files",
		Migrate: func(tx *gorm.DB) error {
			type job struct {
				ID            string    `gorm:"primaryKey;size:32"`
				OrgID         string    `gorm:"size:36;not null;index:idx_jobs_org_created,priority:1"`
				CreatedBy     string    `gorm:"size:36;not null;default:''"`
				Status        string    `gorm:"size:16;not null"`
				Stage         string    `gorm:"size:16;not null;default:''"`
				Progress      int       `gorm:"not null;default:0"`
				Filenames     string    `gorm:"type:text;not null"`
				RetentionMode string    `gorm:"size:32;not null"`
				RetentionDays int       `gorm:"not null"`
				Error         string    `gorm:"type:text;not null;default:''"`
				CreatedAt     time.Time `gorm:"not null;index:idx_jobs_org_created,priority:2"`
				StartedAt     *time.Time
				CompletedAt   *time.Time
				FileDeletedAt *time.Time
			}
			type file struct {
				ID              int64  `gorm:"primaryKey;autoIncrement"`
				OrgID           string `gorm:"size:36;not null;index"`
				JobID           string `gorm:"size:32;not null;index"`
				FileName        string `gorm:"size:512;not null"`
				StorageKey      string `gorm:"size:1024;not null;default:''"`
				ContentType     string `gorm:"size:128;not null;default:''"`
				SizeBytes       int64  `gorm:"not null;default:0"`
				Status          string `gorm:"size:16;not null"`
				Progress        int    `gorm:"not null;default:0"`
				Format          string `gorm:"size:16;not null;default:''"`
				RowCount        int64  `gorm:"not null;default:0"`
				ColumnCount     int    `gorm:"not null;default:0"`
				QualityScore    *float64
				Profile         string `gorm:"type:text;not null;default:''"`
				Error           string `gorm:"type:text;not null;default:''"`
				ParentFileID    *int64
				PipelineID      *string `gorm:"size:36"`
				PipelineVersion *int
				CreatedAt       time.Time `gorm:"not null"`
				CompletedAt     *time.Time
			}
			type fileColumn struct {
				ID             int64   `gorm:"primaryKey;autoIncrement"`
				OrgID          string  `gorm:"size:36;not null;index"`
				FileID         int64   `gorm:"not null;index"`
				Position       int     `gorm:"not null"`
				Name           string  `gorm:"size:512;not null"`
				InferredType   string  `gorm:"size:16;not null"`
				Classification string  `gorm:"size:64;not null"`
				GDPRCategory   string  `gorm:"column:gdpr_category;size:32;not null"`
				Confidence     float64 `gorm:"not null"`
			}
			return createTables(tx, []table{{"jobs", &job{}}, {"files", &file{}}, {"file_columns", &fileColumn{}}})
		},
	},
	{
		ID: "202611210004_job_retention_expiry",
		Migrate: func(tx *gorm.DB) error {
			type job struct {
				RetentionExpiresAt *time.Time `gorm:"index:idx_jobs_retention_due,priority:2"`
				FileDeletedAt      *time.Time `gorm:"index:idx_jobs_retention_due,priority:1"`
			}
			m := tx.Table("jobs").Migrator()
			if err := m.AddColumn(&job{}, "RetentionExpiresAt"); err != nil {
				return fmt.Errorf("add jobs.retention_expires_at: %w", err)
			}
			if err := m.CreateIndex(&job{}, "idx_jobs_retention_due"); err != nil {
				return fmt.Errorf("index jobs retention: %w", err)
			}
			return backfillRetentionExpiry(tx)
		},
	},
	{
		ID: "202611210005_webhooks",
		Migrate: func(tx *gorm.DB) error {
			type webhook struct {
				ID                  string `gorm:"primaryKey;size:36"`
				OrgID               string `gorm:"size:36;not null;index"`
				Name                string `gorm:"size:200;not null"`
				Platform            string `gorm:"size:16;not null"`
				URLSealed           string `gorm:"column:url_sealed;type:text;not null"`
				URLTail             string `gorm:"column:url_tail;size:16;not null"`
				URLLength           int    `gorm:"column:url_length;not null"`
				EventTypes          string `gorm:"type:text;not null"`
				Enabled             bool   `gorm:"not null"`
				ConsecutiveFailures int    `gorm:"not null;default:0"`
				LastDeliveryAt      *time.Time
				LastDeliveryStatus  string    `gorm:"size:32;not null;default:''"`
				CreatedBy           string    `gorm:"size:36;not null;default:''"`
				CreatedAt           time.Time `gorm:"not null"`
				UpdatedAt           time.Time `gorm:"not null"`
			}
			return createTables(tx, []table{{"webhooks", &webhook{}}})
		},
	},
	{ID: "202611260101_files_one_upload_per_name", Migrate: migrateOneUploadPerName},
	{ID: "202611260102_audit_no_replace", Migrate: migrateAuditNoReplace},
	{ID: "202611260201_users_email_per_org", Migrate: migrateEmailPerOrganization},
	{ID: "202611260202_second_factor_guard", Migrate: migrateSecondFactorGuard},
	{ID: "202611260301_null_tokens", Migrate: migrateNullTokens},
	{ID: "202611260401_files_csv_dialect", Migrate: migrateFilesCSVDialect},
	{ID: "202611270101_sources", Migrate: migrateSources},
	{ID: "202611270201_anomalies_alerts", Migrate: migrateAnomaliesAlerts},
	{ID: "202611280101_contracts_lineage", Migrate: migrateContractsLineage},
	{ID: "202611290101_reports", Migrate: migrateReports},
	{ID: "202611290102_corrections", Migrate: migrateCorrections},
	{ID: "202611300101_suggestions", Migrate: migrateSuggestions},
	{ID: "202612010101_lineage_versions", Migrate: migrateLineageVersions},
}

// LiveModels returns a value of every model the service stores, one per
// table. The tables the migrations create are exactly these, and
// TestMigrationsBuildTheLiveSchema holds the two to the same columns and
// indexes, so a model added here needs its migration and a migration
// creating a table needs its model here.
func LiveModels() []any {
	return []any{
		&Organization{}, &User{}, &RefreshToken{}, &EmailVerification{}, &APIKey{}, &AuditLog{},
		&Job{}, &File{}, &FileColumn{}, &Webhook{}, &TOTPChallenge{}, &TOTPAttempt{},
		&Source{}, &SourceSchedule{}, &Scan{}, &ScanTable{}, &DiscoveredFile{}, &MetricPoint{},
		&Anomaly{}, &Alert{}, &Contract{}, &LineageNode{}, &LineageEdge{}, &LineageVersion{},
		&Report{}, &Certificate{}, &ReportSchedule{}, &CorrectionPipeline{}, &CorrectionStep{}, &CorrectionVersion{},
		&TrustEvent{}, &DriftExplanation{},
	}
}

// backfillRetentionExpiry gives jobs that ended before expiry times were
// stored theirs (completion plus 24-hour days), so the sweep finds them.
func backfillRetentionExpiry(tx *gorm.DB) error {
	var rows []struct {
		ID            string
		RetentionMode string
		RetentionDays int
		CompletedAt   time.Time
	}
	err := tx.Table("jobs").Select("id, retention_mode, retention_days, completed_at").
		Where("completed_at IS NOT NULL AND file_deleted_at IS NULL AND retention_mode <> ?", "full_retention").Find(&rows).Error
	if err != nil {
		return err
	}
	for _, r := range rows {
		days := r.RetentionDays
		if r.RetentionMode == "analysis_only" {
			days = 1
		}
		at := r.CompletedAt.UTC().Add(time.Duration(days) * 24 * time.Hour)
		if err := tx.Table("jobs").Where("id = ?", r.ID).Update("retention_expires_at", at).Error; err != nil {
			return err
		}
	}
	return nil
}

// table is a table a migration creates from a frozen struct.
type table struct {
	name  string
	model any
}

func createTables(tx *gorm.DB, tables []table) error {
	for _, t := range tables {
		if err := tx.Table(t.name).Migrator().CreateTable(t.model); err != nil {
			return fmt.Errorf("create %s: %w", t.name, err)
		}
	}
	return nil
}

// appendOnlyTriggers returns the statements that make table refuse UPDATE
// and DELETE in the database itself, so not even a bug or a hand-written
// query in the service can rewrite history.
func appendOnlyTriggers(dialect, table string) []string {
	if dialect == "postgres" {
		return []string{
			`CREATE OR REPLACE FUNCTION dqs_append_only() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION 'table % is append-only', TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql`,
			fmt.Sprintf(`CREATE TRIGGER %[1]s_append_only BEFORE UPDATE OR DELETE ON %[1]s FOR EACH ROW EXECUTE FUNCTION dqs_append_only()`, table),
			fmt.Sprintf(`CREATE TRIGGER %[1]s_no_truncate BEFORE TRUNCATE ON %[1]s FOR EACH STATEMENT EXECUTE FUNCTION dqs_append_only()`, table),
		}
	}
	return []string{
		fmt.Sprintf(`CREATE TRIGGER %[1]s_no_update BEFORE UPDATE ON %[1]s BEGIN SELECT RAISE(ABORT, '%[1]s is append-only'); END`, table),
		fmt.Sprintf(`CREATE TRIGGER %[1]s_no_delete BEFORE DELETE ON %[1]s BEGIN SELECT RAISE(ABORT, '%[1]s is append-only'); END`, table),
	}
}

// Migrate applies every pending migration in order. It is what `dqs migrate`
// runs and what `dqs dev` runs at start.
//
// Every pending migration runs in one transaction, which on PostgreSQL first
// takes an advisory lock: replicas starting at once against an empty database
// wait for each other instead of racing (SQLite transactions already take
// the write lock when they begin).
func (d *DB) Migrate(ctx context.Context) error { return d.MigrateTo(ctx, "") }

// MigrateTo applies the pending migrations up to and including id (all of
// them when id is empty); tests use it to build a database as an older
// release left it.
func (d *DB) MigrateTo(ctx context.Context, id string) error {
	err := d.Gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if d.Dialect == Postgres {
			if err := tx.Exec("SELECT pg_advisory_xact_lock(?)", migrationLockKey).Error; err != nil {
				return err
			}
		}
		m := gormigrate.New(tx, &gormigrate.Options{
			TableName:                 "schema_migrations",
			IDColumnName:              "id",
			IDColumnSize:              100,
			UseTransaction:            false, // the surrounding transaction
			ValidateUnknownMigrations: true,
		}, migrations)
		if id != "" {
			return m.MigrateTo(id)
		}
		return m.Migrate()
	})
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// migrationLockKey is the PostgreSQL advisory lock id of migrations.
const migrationLockKey = 0x445153 // "DQS"

// MigrationIDs lists the migrations in order (for tests and `dqs migrate`).
func MigrationIDs() []string {
	ids := make([]string, len(migrations))
	for i, m := range migrations {
		ids[i] = m.ID
	}
	return ids
}
