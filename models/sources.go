package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/dqs/dqs/errs"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Limits of data sources.
const (
	// MaxSources is the number of data sources an organisation may hold.
	MaxSources = 100
	// MaxSchedulesPerSource is the number of scan schedules a source may hold.
	MaxSchedulesPerSource = 20
)

// SourceActive is the status of a source that may be scanned.
const SourceActive = "active"

// Scan statuses (DECISIONS.md): queued → running → completed | failed. A
// scanned table's or object's status (ScanTable.Status) is completed or
// failed.
const (
	ScanQueued    = "queued"
	ScanRunning   = "running"
	ScanCompleted = "completed"
	ScanFailed    = "failed"
)

// Sync states of a discovered file (DECISIONS.md).
const (
	SyncNew       = "new"
	SyncModified  = "modified"
	SyncUnchanged = "unchanged"
	SyncDeleted   = "deleted"
)

// Source is a database, warehouse or bucket an organisation scans. Its
// credentials are stored sealed (secrets.Box.SealBound, bound to the
// organisation and source) and never leave the service. A name is unique
// within an organisation (idx_sources_org_name), compared exactly.
type Source struct {
	ID                int64  `gorm:"primaryKey;autoIncrement"`
	OrgID             string `gorm:"size:36;not null;uniqueIndex:idx_sources_org_name,priority:1"`
	Name              string `gorm:"size:200;not null;uniqueIndex:idx_sources_org_name,priority:2"`
	Type              string `gorm:"size:16;not null"`
	Config            string `gorm:"type:text;not null"` // JSON object
	CredentialsSealed string `gorm:"type:text;not null"`
	Status            string `gorm:"size:16;not null;default:'active'"`
	LastScanAt        *time.Time
	LastScanStatus    string `gorm:"size:16;not null;default:''"`
	// ScheduleSensitivity is the sensitivity SourceSchedules.SetSensitivity
	// last set: schedules created later take it. Empty means the
	// organisation's anomaly sensitivity.
	ScheduleSensitivity string    `gorm:"size:8;not null;default:''"`
	CreatedBy           string    `gorm:"size:36;not null;default:''"`
	CreatedAt           time.Time `gorm:"not null"`
	UpdatedAt           time.Time `gorm:"not null"`
}

// SourceSchedule is a cron schedule of scans of one source.
type SourceSchedule struct {
	ID             int64  `gorm:"primaryKey;autoIncrement"`
	OrgID          string `gorm:"size:36;not null;index:idx_source_schedules_org_source,priority:1"`
	SourceID       int64  `gorm:"not null;index:idx_source_schedules_org_source,priority:2"`
	CronExpression string `gorm:"size:120;not null"`
	Tables         string `gorm:"type:text;not null"` // JSON array; "[]" is every table
	Enabled        bool   `gorm:"not null"`
	Sensitivity    string `gorm:"size:8;not null"`
	NextRunAt      *time.Time
	LastRunAt      *time.Time
	LastRunStatus  string    `gorm:"size:16;not null;default:''"`
	LastRunError   string    `gorm:"type:text;not null;default:''"`
	CreatedAt      time.Time `gorm:"not null"`
	UpdatedAt      time.Time `gorm:"not null"`
}

// Scan is one scan of a source, manual or scheduled (ScheduleID).
type Scan struct {
	ID              string `gorm:"primaryKey;size:36"`
	OrgID           string `gorm:"size:36;not null;index:idx_scans_org_source_created,priority:1"`
	SourceID        int64  `gorm:"not null;index:idx_scans_org_source_created,priority:2"`
	ScheduleID      *int64
	Status          string    `gorm:"size:16;not null"`
	Progress        int       `gorm:"not null;default:0"`
	Tables          string    `gorm:"type:text;not null"` // JSON array requested; "[]" is every table
	TablesTotal     int       `gorm:"not null;default:0"`
	TablesScanned   int       `gorm:"not null;default:0"`
	TablesFailed    int       `gorm:"not null;default:0"`
	RowsRead        int64     `gorm:"not null;default:0"`
	EstimatedTokens int64     `gorm:"not null;default:0"`
	ChargedTokens   int64     `gorm:"not null;default:0"`
	Error           string    `gorm:"type:text;not null;default:''"`
	CreatedAt       time.Time `gorm:"not null;index:idx_scans_org_source_created,priority:3"`
	StartedAt       *time.Time
	CompletedAt     *time.Time
}

// ScanTable is the result of one table or object of a scan.
type ScanTable struct {
	ID        int64     `gorm:"primaryKey;autoIncrement"`
	OrgID     string    `gorm:"size:36;not null;index:idx_scan_tables_org_scan,priority:1"`
	ScanID    string    `gorm:"size:36;not null;index:idx_scan_tables_org_scan,priority:2"`
	TableName string    `gorm:"size:1024;not null"`
	Status    string    `gorm:"size:16;not null"` // ScanCompleted or ScanFailed
	Error     string    `gorm:"type:text;not null;default:''"`
	Rows      int64     `gorm:"not null;default:0"`
	Profile   string    `gorm:"type:text;not null;default:''"` // JSON
	CreatedAt time.Time `gorm:"not null"`
}

// DiscoveredFile is an object of an object-storage source as the last
// listing saw it. A key is unique within a source; the unique index is on
// its SHA-256 (KeyHash), since keys of up to 1024 characters are too long
// for a PostgreSQL index entry.
type DiscoveredFile struct {
	ID           int64     `gorm:"primaryKey;autoIncrement"`
	OrgID        string    `gorm:"size:36;not null;index"`
	SourceID     int64     `gorm:"not null;uniqueIndex:idx_discovered_files_source_key,priority:1"`
	Key          string    `gorm:"size:1024;not null"`
	KeyHash      string    `gorm:"size:64;not null;uniqueIndex:idx_discovered_files_source_key,priority:2"`
	SizeBytes    int64     `gorm:"not null;default:0"`
	ETag         string    `gorm:"column:etag;size:200;not null;default:''"`
	LastModified time.Time `gorm:"not null"`
	SyncState    string    `gorm:"size:16;not null"`
	// ChangedAt is when a sync last found the object new or modified.
	ChangedAt     time.Time `gorm:"not null"`
	LastScannedAt *time.Time
	// FileID is the analysed file of the last scan of the object.
	FileID    *int64
	CreatedAt time.Time `gorm:"not null"`
	UpdatedAt time.Time `gorm:"not null"`
}

// NeedsScan reports whether the object changed since it was last scanned
// (or was never scanned) and still exists. Unlike SyncState, which says
// what the last sync saw, it stays true across syncs until MarkScanned.
func (f *DiscoveredFile) NeedsScan() bool {
	return f.SyncState != SyncDeleted && (f.LastScannedAt == nil || f.LastScannedAt.Before(f.ChangedAt))
}

// MetricPoint is one value of one metric of a table (ColumnName empty) or
// column, recorded by a scan. A series is (source, metric, table, column);
// idx_metric_points_series serves its latest values. Table and column names
// go into the index as SHA-256 hashes (TableHash, ColumnHash) since the
// names may be too long for an index entry; queries match both hash and
// name.
type MetricPoint struct {
	ID         int64     `gorm:"primaryKey;autoIncrement"`
	OrgID      string    `gorm:"size:36;not null;index:idx_metric_points_series,priority:1;index:idx_metric_points_org_scan,priority:1"`
	SourceID   int64     `gorm:"not null;index:idx_metric_points_series,priority:2"`
	ScanID     string    `gorm:"size:36;not null;default:'';index:idx_metric_points_org_scan,priority:2"`
	TableName  string    `gorm:"size:1024;not null"`
	ColumnName string    `gorm:"size:1024;not null;default:''"`
	Metric     string    `gorm:"size:64;not null;index:idx_metric_points_series,priority:3"`
	TableHash  string    `gorm:"size:64;not null;index:idx_metric_points_series,priority:4"`
	ColumnHash string    `gorm:"size:64;not null;index:idx_metric_points_series,priority:5"`
	Value      float64   `gorm:"not null"`
	RecordedAt time.Time `gorm:"not null;index:idx_metric_points_series,priority:6"`
}

// NameHash is the hex SHA-256 of s, what the indexes hold of long names.
func NameHash(s string) string { return nameHash(s) }

// nameHash is the hex SHA-256 of s, what the indexes hold of long names.
func nameHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// dbTime is t as both databases keep it: UTC, to the microsecond.
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func dbTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := dbTime(*t)
	return &u
}

// emptyJSONArray stands for "every table" in Tables fields.
const emptyJSONArray = "[]"

// lockSource returns source id of the organisation, holding its row until
// the transaction ends on PostgreSQL (SQLite transactions already hold the
// write lock), so writes that count or sync a source's rows are serialised.
func (d *DB) lockSource(ctx context.Context, orgID string, id int64) (*Source, error) {
	q := d.conn(ctx)
	if d.Dialect == Postgres {
		q = q.Clauses(clause.Locking{Strength: "UPDATE"})
	}
	var src Source
	err := q.Where("org_id = ? AND id = ?", orgID, id).Take(&src).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("source")
	}
	if err != nil {
		return nil, err
	}
	return &src, nil
}

// --- Sources -----------------------------------------------------------------

// Sources stores the organisations' data sources.
type Sources struct{ db *DB }

func sourceNameTaken(name string) error {
	return errs.Conflict("a source named %q already exists in this organization", name)
}

// Create stores src in the organisation with a new id, status active
// (unless src says otherwise) and config "{}" when empty. A name the
// organisation already uses is a conflict (the unique index decides, so of
// concurrent creations of one name exactly one succeeds), and an
// organisation holding MaxSources sources is refused.
func (s Sources) Create(ctx context.Context, orgID string, src *Source) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		c := s.db.conn(ctx)
		var n int64
		if err := c.Model(&Source{}).Where("org_id = ?", orgID).Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxSources {
			return errs.LimitExceeded("an organization may hold at most %d data sources; delete one first", MaxSources)
		}
		var taken int64
		if err := c.Model(&Source{}).Where("org_id = ? AND name = ?", orgID, src.Name).Count(&taken).Error; err != nil {
			return err
		}
		if taken > 0 {
			return sourceNameTaken(src.Name)
		}
		src.ID = 0
		src.OrgID = orgID
		if src.Status == "" {
			src.Status = SourceActive
		}
		if src.Config == "" {
			src.Config = "{}"
		}
		src.LastScanAt, src.LastScanStatus = nil, ""
		now := dbTime(time.Now())
		src.CreatedAt, src.UpdatedAt = now, now
		if err := c.Create(src).Error; err != nil {
			if isUniqueViolation(err) {
				return sourceNameTaken(src.Name)
			}
			return err
		}
		_, err := s.db.linkSource(ctx, src)
		return err
	})
}

// Get returns source id of the organisation.
func (s Sources) Get(ctx context.Context, orgID string, id int64) (*Source, error) {
	var src Source
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&src).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("source")
	}
	if err != nil {
		return nil, err
	}
	return &src, nil
}

// List returns a page of the organisation's sources, newest first, and
// their total.
func (s Sources) List(ctx context.Context, orgID string, p Page) ([]Source, int64, error) {
	q := s.db.conn(ctx).Model(&Source{}).Where("org_id = ?", orgID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Source
	err := q.Order("created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// SourceUpdate holds the fields an update may change; nil leaves a field.
type SourceUpdate struct {
	Name              *string
	Config            *string
	CredentialsSealed *string
	Status            *string
}

// Update changes the given fields of source id and returns the source. A
// name another source of the organisation has is a conflict.
func (s Sources) Update(ctx context.Context, orgID string, id int64, fields SourceUpdate) (*Source, error) {
	updates := map[string]any{}
	if fields.Name != nil {
		updates["name"] = *fields.Name
	}
	if fields.Config != nil {
		updates["config"] = *fields.Config
	}
	if fields.CredentialsSealed != nil {
		updates["credentials_sealed"] = *fields.CredentialsSealed
	}
	if fields.Status != nil {
		updates["status"] = *fields.Status
	}
	var out *Source
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if len(updates) > 0 {
			if fields.Name != nil {
				var taken int64
				err := s.db.conn(ctx).Model(&Source{}).Where("org_id = ? AND name = ? AND id <> ?", orgID, *fields.Name, id).
					Count(&taken).Error
				if err != nil {
					return err
				}
				if taken > 0 {
					return sourceNameTaken(*fields.Name)
				}
			}
			updates["updated_at"] = dbTime(time.Now())
			res := s.db.conn(ctx).Model(&Source{}).Where("org_id = ? AND id = ?", orgID, id).Updates(updates)
			if res.Error != nil {
				if fields.Name != nil && isUniqueViolation(res.Error) {
					return sourceNameTaken(*fields.Name)
				}
				return res.Error
			}
			if res.RowsAffected == 0 {
				return errs.NotFound("source")
			}
		}
		var err error
		if out, err = s.Get(ctx, orgID, id); err != nil || fields.Name == nil {
			return err
		}
		_, err = s.db.linkSource(ctx, out)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Delete removes source id of the organisation with, in the same
// transaction, its schedules, discovered files, scans, scans' tables and
// metric points.
func (s Sources) Delete(ctx context.Context, orgID string, id int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		// The organisation's lock first, as every other writer takes it
		// before a source's (Scans.Create, the lineage graph's edits), or
		// two of them would wait for each other.
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		c := s.db.conn(ctx)
		res := c.Where("org_id = ? AND id = ?", orgID, id).Delete(&Source{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.NotFound("source")
		}
		scans := c.Model(&Scan{}).Select("id").Where("org_id = ? AND source_id = ?", orgID, id)
		if err := c.Where("org_id = ? AND scan_id IN (?)", orgID, scans).Delete(&ScanTable{}).Error; err != nil {
			return fmt.Errorf("delete scan tables: %w", err)
		}
		for _, m := range []any{&Scan{}, &SourceSchedule{}, &DiscoveredFile{}, &MetricPoint{}, &Anomaly{}, &Alert{}, &Contract{}} {
			if err := c.Where("org_id = ? AND source_id = ?", orgID, id).Delete(m).Error; err != nil {
				return fmt.Errorf("delete %T: %w", m, err)
			}
		}
		return s.db.unlinkSource(ctx, orgID, id)
	})
}

// RecordScan records the end of a scan of source id: its status and time.
// An end older than the one recorded is ignored, so scans finishing out of
// order leave the latest.
func (s Sources) RecordScan(ctx context.Context, orgID string, id int64, status string, at time.Time) error {
	at = dbTime(at)
	res := s.db.conn(ctx).Model(&Source{}).
		Where("org_id = ? AND id = ? AND (last_scan_at IS NULL OR last_scan_at <= ?)", orgID, id, at).
		UpdateColumns(map[string]any{"last_scan_at": at, "last_scan_status": status})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		_, err := s.Get(ctx, orgID, id)
		return err
	}
	return nil
}

// --- Scan schedules ------------------------------------------------------------

// SourceSchedules stores the scan schedules of sources.
type SourceSchedules struct{ db *DB }

// Create stores sc as a new schedule of source sc.SourceID of the
// organisation. Tables defaults to "[]" (every table); an empty sensitivity
// takes the source's schedule sensitivity (SetSensitivity), else the
// organisation's anomaly sensitivity. A source holds at most
// MaxSchedulesPerSource schedules; a source missing from the organisation
// is not found.
func (s SourceSchedules) Create(ctx context.Context, orgID string, sc *SourceSchedule) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		src, err := s.db.lockSource(ctx, orgID, sc.SourceID)
		if err != nil {
			return err
		}
		c := s.db.conn(ctx)
		var n int64
		if err := c.Model(&SourceSchedule{}).Where("org_id = ? AND source_id = ?", orgID, sc.SourceID).Count(&n).Error; err != nil {
			return err
		}
		if n >= MaxSchedulesPerSource {
			return errs.LimitExceeded("a source may hold at most %d schedules; delete one first", MaxSchedulesPerSource)
		}
		if sc.Sensitivity == "" {
			sc.Sensitivity = src.ScheduleSensitivity
		}
		if sc.Sensitivity == "" {
			var org Organization
			err := c.Select("anomaly_sensitivity").Where("id = ?", orgID).Take(&org).Error
			if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
				return err
			}
			sc.Sensitivity = org.AnomalySensitivity
		}
		if sc.Sensitivity == "" {
			sc.Sensitivity = DefaultAnomalySensitivity
		}
		if sc.Tables == "" {
			sc.Tables = emptyJSONArray
		}
		sc.ID = 0
		sc.OrgID = orgID
		sc.NextRunAt = dbTimePtr(sc.NextRunAt)
		sc.LastRunAt, sc.LastRunStatus, sc.LastRunError = nil, "", ""
		now := dbTime(time.Now())
		sc.CreatedAt, sc.UpdatedAt = now, now
		return c.Create(sc).Error
	})
}

// Get returns schedule id of source sourceID of the organisation.
func (s SourceSchedules) Get(ctx context.Context, orgID string, sourceID, id int64) (*SourceSchedule, error) {
	var sc SourceSchedule
	err := s.db.conn(ctx).Where("org_id = ? AND source_id = ? AND id = ?", orgID, sourceID, id).Take(&sc).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("schedule")
	}
	if err != nil {
		return nil, err
	}
	return &sc, nil
}

// List returns the schedules of source sourceID, oldest first (none for a
// source of another organisation).
func (s SourceSchedules) List(ctx context.Context, orgID string, sourceID int64) ([]SourceSchedule, error) {
	var out []SourceSchedule
	err := s.db.conn(ctx).Where("org_id = ? AND source_id = ?", orgID, sourceID).Order("id ASC").Find(&out).Error
	return out, err
}

// Update saves the mutable fields of schedule sc.ID of source sc.SourceID
// (cron expression, tables, enabled, sensitivity, next run) and reloads sc.
// The run record (RecordRun's) is left alone.
func (s SourceSchedules) Update(ctx context.Context, orgID string, sc *SourceSchedule) error {
	if sc.Tables == "" {
		sc.Tables = emptyJSONArray
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		res := c.Model(&SourceSchedule{}).Where("org_id = ? AND source_id = ? AND id = ?", orgID, sc.SourceID, sc.ID).
			Updates(map[string]any{
				"cron_expression": sc.CronExpression, "tables": sc.Tables, "enabled": sc.Enabled,
				"sensitivity": sc.Sensitivity, "next_run_at": dbTimePtr(sc.NextRunAt), "updated_at": dbTime(time.Now()),
			})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.NotFound("schedule")
		}
		return c.Where("org_id = ? AND id = ?", orgID, sc.ID).Take(sc).Error
	})
}

// Delete removes schedule id of source sourceID.
func (s SourceSchedules) Delete(ctx context.Context, orgID string, sourceID, id int64) error {
	res := s.db.conn(ctx).Where("org_id = ? AND source_id = ? AND id = ?", orgID, sourceID, id).Delete(&SourceSchedule{})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return errs.NotFound("schedule")
	}
	return nil
}

// SetSensitivity sets the sensitivity of every schedule of source sourceID
// and, for schedules created later, of the source.
func (s SourceSchedules) SetSensitivity(ctx context.Context, orgID string, sourceID int64, sensitivity string) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.lockSource(ctx, orgID, sourceID); err != nil {
			return err
		}
		c := s.db.conn(ctx)
		now := dbTime(time.Now())
		err := c.Model(&Source{}).Where("org_id = ? AND id = ?", orgID, sourceID).
			Updates(map[string]any{"schedule_sensitivity": sensitivity, "updated_at": now}).Error
		if err != nil {
			return err
		}
		return c.Model(&SourceSchedule{}).Where("org_id = ? AND source_id = ?", orgID, sourceID).
			Updates(map[string]any{"sensitivity": sensitivity, "updated_at": now}).Error
	})
}

// RecordRun records a run of schedule id: when, its status and error text.
func (s SourceSchedules) RecordRun(ctx context.Context, orgID string, id int64, status, errText string, at time.Time) error {
	res := s.db.conn(ctx).Model(&SourceSchedule{}).Where("org_id = ? AND id = ?", orgID, id).
		UpdateColumns(map[string]any{"last_run_at": dbTime(at), "last_run_status": status, "last_run_error": errText})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return errs.NotFound("schedule")
	}
	return nil
}

// --- Scans -------------------------------------------------------------------

// Scans stores the scans of sources and their tables' results.
type Scans struct{ db *DB }

// Create stores sc, a scan of source sc.SourceID (and of schedule
// sc.ScheduleID, when set, which must be the source's), in status queued
// with an id NewShortID("scn") unless it has one. Tables defaults to "[]"
// (every table); EstimatedTokens is kept, the progress fields start at zero.
//
// A source is read by one scan at a time: while another scan of it is
// queued or running, Create is a conflict (two scans of a bucket would
// read, and charge, the same objects). The estimate of every unfinished
// scan of the organisation is held against its balance until the scan is
// charged, so scans started together cannot spend the same tokens: Create
// is insufficient_tokens when the balance less what is held is below
// sc.EstimatedTokens. The organisation's and the source's rows are locked
// for both checks.
func (s Scans) Create(ctx context.Context, orgID string, sc *Scan) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.db.lockOrg(ctx, orgID); err != nil {
			return err
		}
		if _, err := s.db.lockSource(ctx, orgID, sc.SourceID); err != nil {
			return err
		}
		if sc.ScheduleID != nil {
			if _, err := (SourceSchedules{s.db}).Get(ctx, orgID, sc.SourceID, *sc.ScheduleID); err != nil {
				return err
			}
		}
		unfinished, err := s.Unfinished(ctx, orgID)
		if err != nil {
			return err
		}
		var held int64
		for _, u := range unfinished {
			if u.SourceID == sc.SourceID {
				return errs.Conflict("scan %s of this source is %s; a source is read by one scan at a time, start this one when it ends", u.ID, u.Status)
			}
			held += u.EstimatedTokens
		}
		org, err := Orgs{s.db}.Get(ctx, orgID)
		if err != nil {
			return err
		}
		if available := org.TokenBalance - held; available < sc.EstimatedTokens {
			msg := fmt.Sprintf("this scan is estimated at %d tokens; the balance is %d", sc.EstimatedTokens, org.TokenBalance)
			if held > 0 {
				msg += fmt.Sprintf(", of which %d are held by unfinished scans (%d)", held, len(unfinished))
			}
			return errs.InsufficientTokens("%s", msg)
		}
		if sc.ID == "" {
			sc.ID = NewShortID("scn")
		}
		if sc.Tables == "" {
			sc.Tables = emptyJSONArray
		}
		sc.OrgID = orgID
		sc.Status = ScanQueued
		sc.Progress, sc.TablesTotal, sc.TablesScanned, sc.TablesFailed = 0, 0, 0, 0
		sc.RowsRead, sc.ChargedTokens, sc.Error = 0, 0, ""
		sc.StartedAt, sc.CompletedAt = nil, nil
		sc.CreatedAt = dbTime(time.Now())
		return s.db.conn(ctx).Create(sc).Error
	})
}

// Unfinished returns the organisation's scans that are queued or running,
// oldest first.
func (s Scans) Unfinished(ctx context.Context, orgID string) ([]Scan, error) {
	var out []Scan
	err := s.db.conn(ctx).Where("org_id = ? AND status IN ?", orgID, []string{ScanQueued, ScanRunning}).
		Order("created_at ASC, id ASC").Find(&out).Error
	return out, err
}

// Get returns scan id of the organisation.
func (s Scans) Get(ctx context.Context, orgID, id string) (*Scan, error) {
	var sc Scan
	err := s.db.conn(ctx).Where("org_id = ? AND id = ?", orgID, id).Take(&sc).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, errs.NotFound("scan")
	}
	if err != nil {
		return nil, err
	}
	return &sc, nil
}

// ListBySource returns a page of the scans of source sourceID, newest
// first, and their total.
func (s Scans) ListBySource(ctx context.Context, orgID string, sourceID int64, p Page) ([]Scan, int64, error) {
	q := s.db.conn(ctx).Model(&Scan{}).Where("org_id = ? AND source_id = ?", orgID, sourceID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []Scan
	err := q.Order("created_at DESC, id DESC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Delete removes scan id and its tables' results (a scan whose workflow
// could not be started).
func (s Scans) Delete(ctx context.Context, orgID, id string) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		c := s.db.conn(ctx)
		res := c.Where("org_id = ? AND id = ?", orgID, id).Delete(&Scan{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.NotFound("scan")
		}
		return c.Where("org_id = ? AND scan_id = ?", orgID, id).Delete(&ScanTable{}).Error
	})
}

// Start moves queued scan id to running with the number of tables it will
// scan. Any other status is a conflict: a scan starts once.
func (s Scans) Start(ctx context.Context, orgID, id string, tablesTotal int, at time.Time) error {
	res := s.db.conn(ctx).Model(&Scan{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, ScanQueued).
		UpdateColumns(map[string]any{"status": ScanRunning, "tables_total": tablesTotal, "progress": 0, "started_at": dbTime(at)})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected > 0 {
		return nil
	}
	sc, err := s.Get(ctx, orgID, id)
	if err != nil {
		return err
	}
	return errs.Conflict("scan %s was already started (status %s)", id, sc.Status)
}

// Progress records how many tables of running scan id were scanned and
// failed so far and the rows read; the percentage follows from the total
// Start recorded (at most 99 until Finish). A scan that is not running is a
// conflict.
func (s Scans) Progress(ctx context.Context, orgID, id string, scanned, failed int, rows int64) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		sc, err := s.Get(ctx, orgID, id)
		if err != nil {
			return err
		}
		if sc.Status != ScanRunning {
			return errs.Conflict("scan %s is %s, not running", id, sc.Status)
		}
		progress := 0
		if sc.TablesTotal > 0 {
			progress = min(99, max(0, (scanned+failed)*100/sc.TablesTotal))
		}
		return s.db.conn(ctx).Model(&Scan{}).Where("org_id = ? AND id = ? AND status = ?", orgID, id, ScanRunning).
			UpdateColumns(map[string]any{"tables_scanned": scanned, "tables_failed": failed, "rows_read": rows, "progress": progress}).Error
	})
}

// AddTable stores the result of one table or object of scan t.ScanID,
// replacing an earlier result of the same table (an activity retried after
// a crash writes it again instead of duplicating it). An empty status is
// completed without an error, failed with one.
func (s Scans) AddTable(ctx context.Context, orgID string, t *ScanTable) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		sc, err := s.Get(ctx, orgID, t.ScanID)
		if err != nil {
			return err
		}
		// Holding the source's row keeps a delete of the source from
		// committing between the check above and the rows written below,
		// which would leave them orphaned; a delete that committed first
		// makes this a not-found.
		if _, err := s.db.lockSource(ctx, orgID, sc.SourceID); err != nil {
			return err
		}
		c := s.db.conn(ctx)
		err = c.Where("org_id = ? AND scan_id = ? AND table_name = ?", orgID, t.ScanID, t.TableName).Delete(&ScanTable{}).Error
		if err != nil {
			return err
		}
		if t.Status == "" {
			t.Status = ScanCompleted
			if t.Error != "" {
				t.Status = ScanFailed
			}
		}
		t.ID = 0
		t.OrgID = orgID
		t.CreatedAt = dbTime(time.Now())
		return c.Create(t).Error
	})
}

// SaveTable stores the result of one table or object of scan t.ScanID
// (AddTable) with the metric points it measured, in one transaction: a
// retried activity replaces both rather than duplicating the points.
func (s Scans) SaveTable(ctx context.Context, orgID string, t *ScanTable, points []MetricPoint) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if err := s.AddTable(ctx, orgID, t); err != nil {
			return err
		}
		sc, err := s.Get(ctx, orgID, t.ScanID)
		if err != nil {
			return err
		}
		src, err := Sources{s.db}.Get(ctx, orgID, sc.SourceID)
		if err != nil {
			return err
		}
		if err := s.db.linkTable(ctx, src, t.TableName); err != nil {
			return err
		}
		err = s.db.conn(ctx).Where("org_id = ? AND scan_id = ? AND table_hash = ? AND table_name = ?",
			orgID, t.ScanID, nameHash(t.TableName), t.TableName).Delete(&MetricPoint{}).Error
		if err != nil {
			return err
		}
		for i := range points {
			points[i].ScanID, points[i].TableName = t.ScanID, t.TableName
		}
		return MetricPoints{s.db}.Record(ctx, orgID, points)
	})
}

// Tables returns the tables' results of scan scanID in the order they were
// stored, without their profiles (Profile is empty): a scan holds up to
// thousands of results, each profile up to thousands of columns, and a
// status or a charge needs none of them. Results pages the profiles.
func (s Scans) Tables(ctx context.Context, orgID, scanID string) ([]ScanTable, error) {
	if _, err := s.Get(ctx, orgID, scanID); err != nil {
		return nil, err
	}
	var out []ScanTable
	err := s.db.conn(ctx).Omit("profile").Where("org_id = ? AND scan_id = ?", orgID, scanID).Order("id ASC").Find(&out).Error
	return out, err
}

// Results returns a page of the tables' results of scan scanID with their
// profiles, in the order they were stored, and their total; table, when
// not empty, keeps the result of that table or object only.
func (s Scans) Results(ctx context.Context, orgID, scanID, table string, p Page) ([]ScanTable, int64, error) {
	if _, err := s.Get(ctx, orgID, scanID); err != nil {
		return nil, 0, err
	}
	q := s.db.conn(ctx).Model(&ScanTable{}).Where("org_id = ? AND scan_id = ?", orgID, scanID)
	if table != "" {
		q = q.Where("table_name = ?", table)
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []ScanTable
	err := q.Order("id ASC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Finish records the end of scan id, completed or failed with errText, the
// tokens charged and when; a completed scan's progress becomes 100. In the
// same transaction it stamps the source's last scan (Sources.RecordScan).
// Finishing a finished scan again with the same status changes nothing (a
// retried activity); with another status it is a conflict.
func (s Scans) Finish(ctx context.Context, orgID, id, status, errText string, charged int64, at time.Time) error {
	if status != ScanCompleted && status != ScanFailed {
		return fmt.Errorf("scan %s: finish status %q is neither %s nor %s", id, status, ScanCompleted, ScanFailed)
	}
	at = dbTime(at)
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		sc, err := s.Get(ctx, orgID, id)
		if err != nil {
			return err
		}
		switch sc.Status {
		case status:
			return nil
		case ScanCompleted, ScanFailed:
			return errs.Conflict("scan %s already ended (status %s)", id, sc.Status)
		}
		updates := map[string]any{"status": status, "error": errText, "charged_tokens": charged, "completed_at": at}
		if status == ScanCompleted {
			updates["progress"] = 100
		}
		err = s.db.conn(ctx).Model(&Scan{}).Where("org_id = ? AND id = ? AND status IN ?", orgID, id, []string{ScanQueued, ScanRunning}).
			UpdateColumns(updates).Error
		if err != nil {
			return err
		}
		return Sources{s.db}.RecordScan(ctx, orgID, sc.SourceID, status, at)
	})
}

// --- Discovered files ------------------------------------------------------------

// DiscoveredFiles stores the objects found in object-storage sources.
type DiscoveredFiles struct{ db *DB }

// ListedObject is an object as a bucket listing shows it.
type ListedObject struct {
	Key          string
	SizeBytes    int64
	ETag         string
	LastModified time.Time
}

// syncChunk bounds the ids of one UPDATE ... WHERE id IN.
const syncChunk = 500

// Sync records a listing of source sourceID in one transaction (holding
// the source, so syncs of one source do not interleave): an object not seen
// before is new; one seen with another ETag, modification time or size is
// modified; one seen as it was is unchanged; a stored object missing from
// the listing (and not already deleted) is deleted, and a deleted object
// that reappears is new again (its scan record cleared). It returns every
// stored object of the source after the sync, in key order. Modification
// times are kept to the microsecond.
func (s DiscoveredFiles) Sync(ctx context.Context, orgID string, sourceID int64, listed []ListedObject, at time.Time) ([]DiscoveredFile, error) {
	at = dbTime(at)
	var out []DiscoveredFile
	err := s.db.WithTx(ctx, func(ctx context.Context) error {
		if _, err := s.db.lockSource(ctx, orgID, sourceID); err != nil {
			return err
		}
		c := s.db.conn(ctx)
		var stored []DiscoveredFile
		if err := c.Where("org_id = ? AND source_id = ?", orgID, sourceID).Find(&stored).Error; err != nil {
			return err
		}
		byKey := make(map[string]*DiscoveredFile, len(stored))
		for i := range stored {
			byKey[stored[i].Key] = &stored[i]
		}
		seen := make(map[string]bool, len(listed))
		var created []DiscoveredFile
		var unchanged, deleted []int64
		for _, o := range listed {
			if seen[o.Key] {
				continue
			}
			seen[o.Key] = true
			lm := dbTime(o.LastModified)
			row := byKey[o.Key]
			switch {
			case row == nil:
				created = append(created, DiscoveredFile{OrgID: orgID, SourceID: sourceID, Key: o.Key, KeyHash: nameHash(o.Key),
					SizeBytes: o.SizeBytes, ETag: o.ETag, LastModified: lm, SyncState: SyncNew, ChangedAt: at, CreatedAt: at, UpdatedAt: at})
			case row.SyncState == SyncDeleted:
				err := c.Model(&DiscoveredFile{}).Where("org_id = ? AND id = ?", orgID, row.ID).Updates(map[string]any{
					"size_bytes": o.SizeBytes, "etag": o.ETag, "last_modified": lm, "sync_state": SyncNew, "changed_at": at,
					"last_scanned_at": nil, "file_id": nil, "updated_at": at,
				}).Error
				if err != nil {
					return err
				}
			case row.changedFrom(o):
				err := c.Model(&DiscoveredFile{}).Where("org_id = ? AND id = ?", orgID, row.ID).Updates(map[string]any{
					"size_bytes": o.SizeBytes, "etag": o.ETag, "last_modified": lm, "sync_state": SyncModified, "changed_at": at,
					"updated_at": at,
				}).Error
				if err != nil {
					return err
				}
			case row.SyncState != SyncUnchanged:
				unchanged = append(unchanged, row.ID)
			}
		}
		for i := range stored {
			if !seen[stored[i].Key] && stored[i].SyncState != SyncDeleted {
				deleted = append(deleted, stored[i].ID)
			}
		}
		for _, set := range []struct {
			state string
			ids   []int64
		}{{SyncUnchanged, unchanged}, {SyncDeleted, deleted}} {
			for chunk := range slices.Chunk(set.ids, syncChunk) {
				err := c.Model(&DiscoveredFile{}).Where("org_id = ? AND id IN ?", orgID, chunk).
					Updates(map[string]any{"sync_state": set.state, "updated_at": at}).Error
				if err != nil {
					return err
				}
			}
		}
		if len(created) > 0 {
			if err := c.CreateInBatches(created, 200).Error; err != nil {
				return err
			}
		}
		if err := c.Where("org_id = ? AND source_id = ?", orgID, sourceID).Find(&out).Error; err != nil {
			return err
		}
		slices.SortFunc(out, func(a, b DiscoveredFile) int { return strings.Compare(a.Key, b.Key) })
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// changedFrom reports whether a listing shows the stored object changed:
// another ETag, modification time or size.
func (f *DiscoveredFile) changedFrom(o ListedObject) bool {
	return f.ETag != o.ETag || !f.LastModified.Equal(dbTime(o.LastModified)) || f.SizeBytes != o.SizeBytes
}

// Pending returns the objects of a listing of source sourceID that a scan
// would read, without recording the listing: those new to it, changed
// since they were stored, or never scanned since they changed
// (DiscoveredFile.NeedsScan). A token estimate counts them.
func (s DiscoveredFiles) Pending(ctx context.Context, orgID string, sourceID int64, listed []ListedObject) ([]ListedObject, error) {
	var stored []DiscoveredFile
	if err := s.db.conn(ctx).Where("org_id = ? AND source_id = ?", orgID, sourceID).Find(&stored).Error; err != nil {
		return nil, err
	}
	byKey := make(map[string]*DiscoveredFile, len(stored))
	for i := range stored {
		byKey[stored[i].Key] = &stored[i]
	}
	seen := make(map[string]bool, len(listed))
	var out []ListedObject
	for _, o := range listed {
		if seen[o.Key] {
			continue
		}
		seen[o.Key] = true
		if row := byKey[o.Key]; row == nil || row.changedFrom(o) || row.NeedsScan() {
			out = append(out, o)
		}
	}
	return out, nil
}

// List returns a page of the stored objects of source sourceID, deleted
// ones included, in key order (byte order on both databases), and their
// total.
func (s DiscoveredFiles) List(ctx context.Context, orgID string, sourceID int64, p Page) ([]DiscoveredFile, int64, error) {
	q := s.db.conn(ctx).Model(&DiscoveredFile{}).Where("org_id = ? AND source_id = ?", orgID, sourceID)
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	order := `"key" ASC, id ASC`
	if s.db.Dialect == Postgres {
		order = `"key" COLLATE "C" ASC, id ASC`
	}
	var out []DiscoveredFile
	err := q.Order(order).Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// MarkScanned records that object id was scanned at at, and the analysed
// file of that scan (nil: none), which must be the organisation's.
func (s DiscoveredFiles) MarkScanned(ctx context.Context, orgID string, id int64, fileID *int64, at time.Time) error {
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		if fileID != nil {
			if _, err := (Files{s.db}).Get(ctx, orgID, *fileID); err != nil {
				return err
			}
		}
		res := s.db.conn(ctx).Model(&DiscoveredFile{}).Where("org_id = ? AND id = ?", orgID, id).
			UpdateColumns(map[string]any{"last_scanned_at": dbTime(at), "file_id": fileID})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errs.NotFound("discovered file")
		}
		return nil
	})
}

// --- Metric points -------------------------------------------------------------------

// MetricPoints stores the metric values scans record, the history anomaly
// detection and contracts read.
type MetricPoints struct{ db *DB }

// Record stores points in batches, in the organisation, filling their
// OrgID, hashes and ids in place; a point without a time is recorded now.
// Every point's source must be the organisation's.
func (s MetricPoints) Record(ctx context.Context, orgID string, points []MetricPoint) error {
	if len(points) == 0 {
		return nil
	}
	return s.db.WithTx(ctx, func(ctx context.Context) error {
		var ids []int64
		for i := range points {
			if !slices.Contains(ids, points[i].SourceID) {
				ids = append(ids, points[i].SourceID)
			}
		}
		var n int64
		if err := s.db.conn(ctx).Model(&Source{}).Where("org_id = ? AND id IN ?", orgID, ids).Count(&n).Error; err != nil {
			return err
		}
		if n != int64(len(ids)) {
			return errs.NotFound("source")
		}
		now := dbTime(time.Now())
		for i := range points {
			p := &points[i]
			p.ID = 0
			p.OrgID = orgID
			p.TableHash, p.ColumnHash = nameHash(p.TableName), nameHash(p.ColumnName)
			if p.RecordedAt.IsZero() {
				p.RecordedAt = now
			} else {
				p.RecordedAt = dbTime(p.RecordedAt)
			}
		}
		return s.db.conn(ctx).CreateInBatches(points, 500).Error
	})
}

// MetricFilter selects metric points of one source. An empty Metric or
// Table and a nil Column or Since select any; Column "" selects
// table-level metrics; Since keeps points recorded at or after it.
type MetricFilter struct {
	SourceID int64
	Metric   string
	Table    string
	Column   *string
	Since    *time.Time
}

// History returns a page of the points f selects, oldest first (by
// recorded_at, then id), and their total.
func (s MetricPoints) History(ctx context.Context, orgID string, f MetricFilter, p Page) ([]MetricPoint, int64, error) {
	q := s.db.conn(ctx).Model(&MetricPoint{}).Where("org_id = ? AND source_id = ?", orgID, f.SourceID)
	if f.Metric != "" {
		q = q.Where("metric = ?", f.Metric)
	}
	if f.Table != "" {
		q = q.Where("table_hash = ? AND table_name = ?", nameHash(f.Table), f.Table)
	}
	if f.Column != nil {
		q = q.Where("column_hash = ? AND column_name = ?", nameHash(*f.Column), *f.Column)
	}
	if f.Since != nil {
		q = q.Where("recorded_at >= ?", dbTime(*f.Since))
	}
	var total int64
	if err := q.Count(&total).Error; err != nil {
		return nil, 0, err
	}
	var out []MetricPoint
	err := q.Order("recorded_at ASC, id ASC").Limit(p.Limit).Offset(p.Offset).Find(&out).Error
	return out, total, err
}

// Last returns the latest n points of one series (column "" for a
// table-level metric), oldest first.
func (s MetricPoints) Last(ctx context.Context, orgID string, sourceID int64, table, column, metric string, n int) ([]MetricPoint, error) {
	if n <= 0 {
		return nil, nil
	}
	var out []MetricPoint
	err := s.db.conn(ctx).
		Where("org_id = ? AND source_id = ? AND metric = ? AND table_hash = ? AND column_hash = ? AND table_name = ? AND column_name = ?",
			orgID, sourceID, metric, nameHash(table), nameHash(column), table, column).
		Order("recorded_at DESC, id DESC").Limit(n).Find(&out).Error
	if err != nil {
		return nil, err
	}
	slices.Reverse(out)
	return out, nil
}

// TableHistory returns the metric points of table recorded by the last
// scans completed scans of source sourceID created before scan beforeID
// (oldest first), and those scans' ids: a table's series for anomaly
// detection, read in one query however many columns it has.
func (s MetricPoints) TableHistory(ctx context.Context, orgID string, sourceID int64, table, beforeID string, scans int) ([]MetricPoint, []string, error) {
	before, err := Scans{s.db}.Get(ctx, orgID, beforeID)
	if err != nil {
		return nil, nil, err
	}
	var ids []string
	err = s.db.conn(ctx).Model(&Scan{}).
		Where("org_id = ? AND source_id = ? AND status = ? AND created_at < ?", orgID, sourceID, ScanCompleted, before.CreatedAt).
		Order("created_at DESC, id DESC").Limit(scans).Pluck("id", &ids).Error
	if err != nil || len(ids) == 0 {
		return nil, ids, err
	}
	var out []MetricPoint
	err = s.db.conn(ctx).Where("org_id = ? AND scan_id IN ? AND table_hash = ? AND table_name = ?", orgID, ids, nameHash(table), table).
		Order("recorded_at ASC, id ASC").Find(&out).Error
	return out, ids, err
}

// ByScanTable returns the points scan scanID recorded for table, in the
// order recorded.
func (s MetricPoints) ByScanTable(ctx context.Context, orgID, scanID, table string) ([]MetricPoint, error) {
	var out []MetricPoint
	err := s.db.conn(ctx).Where("org_id = ? AND scan_id = ? AND table_hash = ? AND table_name = ?", orgID, scanID, nameHash(table), table).
		Order("id ASC").Find(&out).Error
	return out, err
}

// ByScan returns the points scan scanID recorded, in the order recorded.
func (s MetricPoints) ByScan(ctx context.Context, orgID, scanID string) ([]MetricPoint, error) {
	var out []MetricPoint
	err := s.db.conn(ctx).Where("org_id = ? AND scan_id = ?", orgID, scanID).Order("id ASC").Find(&out).Error
	return out, err
}
