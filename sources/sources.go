// Package sources is the service layer of data sources: it checks what a
// user gives to connect one (kind, credentials, config, and the host
// through the network guard), seals the credentials bound to the
// organisation and the source, tests connections, and records the
// sources' creation, update and deletion in the audit log. Handlers only
// read requests and write answers.
package sources

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/connectors/bigquery"
	"github.com/dqs/dqs/connectors/gcs"
	"github.com/dqs/dqs/connectors/postgresql"
	"github.com/dqs/dqs/connectors/s3"
	"github.com/dqs/dqs/connectors/snowflake"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/netguard"
	"github.com/dqs/dqs/secrets"
)

// Service manages an organisation's sources.
type Service struct {
	Stores  *models.Stores
	Secrets *secrets.Box
	// Guard is the network guard of sources (config.SourceGuard).
	Guard  *netguard.Guard
	Audit  audit.Recorder
	Logger *slog.Logger
	// Timeout bounds each call to a source (connect, list); zero is
	// connectors.DefaultTimeout.
	Timeout time.Duration
}

// MaxNameBytes bounds a source's name.
const MaxNameBytes = 200

// credentialsContext binds a sealed credential to its row: a ciphertext
// copied to another source or organisation does not open.
func credentialsContext(orgID string, id int64) []string {
	return []string{"source-credentials", orgID, strconv.FormatInt(id, 10)}
}

// checkName trims and checks a source's name.
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errs.BadRequest("name is required")
	case len(name) > MaxNameBytes:
		return "", errs.BadRequest("name is longer than %d bytes", MaxNameBytes)
	}
	return name, nil
}

// checkHost passes the source's host or endpoint through the network
// guard, as it is saved (the dialer checks again at each connection).
func (s *Service) checkHost(ctx context.Context, st Settings) error {
	host, port, url := st.Host()
	var err error
	switch {
	case url != "":
		err = s.Guard.CheckURL(ctx, url)
	case host != "":
		err = s.Guard.CheckHost(ctx, host, port)
	}
	if errors.Is(err, netguard.ErrRefused) {
		return errs.BadRequest("%s", err.Error())
	}
	return err
}

// Check is everything a source's settings must pass before they are
// saved or tried.
func (s *Service) Check(ctx context.Context, st Settings) error {
	if err := st.Check(); err != nil {
		return err
	}
	return s.checkHost(ctx, st)
}

// Create checks and stores a new source, its credentials sealed, and
// audits it as source_created.
func (s *Service) Create(ctx context.Context, a audit.Actor, name string, st Settings) (*models.Source, error) {
	name, err := checkName(name)
	if err != nil {
		return nil, err
	}
	if err := s.Check(ctx, st); err != nil {
		return nil, err
	}
	config, _ := json.Marshal(st.Config)
	src := &models.Source{Name: name, Type: st.Type, Config: string(config), CreatedBy: a.UserID}
	// The row's id is part of what the sealed credentials are bound to,
	// so the row is written first and sealed in the same transaction.
	err = s.Stores.DB.WithTx(ctx, func(ctx context.Context) error {
		if err := s.Stores.Sources.Create(ctx, a.OrgID, src); err != nil {
			return err
		}
		sealed, err := s.seal(a.OrgID, src.ID, st.Credentials)
		if err != nil {
			return err
		}
		src.CredentialsSealed = sealed
		_, err = s.Stores.Sources.Update(ctx, a.OrgID, src.ID, models.SourceUpdate{CredentialsSealed: &sealed})
		return err
	})
	if err != nil {
		return nil, err
	}
	s.Audit.Record(a.Entry(audit.SourceCreated, auditMetadata(src)))
	return src, nil
}

// Patch is an update of a source: nil fields stay as they are; Config
// and Credentials keys replace the stored ones, null resets (removes)
// one.
type Patch struct {
	Name        *string
	Config      ConfigUpdate
	Credentials map[string]*string
}

// Update applies a patch after checking the whole result as Create does,
// and audits it as source_updated (naming the fields changed, never their
// values).
func (s *Service) Update(ctx context.Context, a audit.Actor, id int64, p Patch) (*models.Source, error) {
	src, err := s.Stores.Sources.Get(ctx, a.OrgID, id)
	if err != nil {
		return nil, err
	}
	st, err := s.Settings(src)
	if err != nil {
		return nil, err
	}
	var upd models.SourceUpdate
	var changed []string
	if p.Name != nil {
		name, err := checkName(*p.Name)
		if err != nil {
			return nil, err
		}
		upd.Name, changed = &name, append(changed, "name")
	}
	if p.Config != nil {
		if st.Config, err = st.Config.With(p.Config); err != nil {
			return nil, err
		}
		config, _ := json.Marshal(st.Config)
		c := string(config)
		upd.Config, changed = &c, append(changed, "config")
	}
	if p.Credentials != nil {
		st.Credentials = Merge(st.Credentials, p.Credentials)
		changed = append(changed, "credentials")
	}
	if len(changed) == 0 {
		return nil, errs.BadRequest("nothing to update: give name, config or credentials")
	}
	if err := s.Check(ctx, st); err != nil {
		return nil, err
	}
	if p.Credentials != nil {
		sealed, err := s.seal(a.OrgID, id, st.Credentials)
		if err != nil {
			return nil, err
		}
		upd.CredentialsSealed = &sealed
	}
	src, err = s.Stores.Sources.Update(ctx, a.OrgID, id, upd)
	if err != nil {
		return nil, err
	}
	md := auditMetadata(src)
	md["fields"] = changed
	s.Audit.Record(a.Entry(audit.SourceUpdated, md))
	return src, nil
}

// Delete removes a source with everything recorded about it, and audits
// it as source_deleted.
func (s *Service) Delete(ctx context.Context, a audit.Actor, id int64) error {
	src, err := s.Stores.Sources.Get(ctx, a.OrgID, id)
	if err != nil {
		return err
	}
	if err := s.Stores.Sources.Delete(ctx, a.OrgID, id); err != nil {
		return err
	}
	s.Audit.Record(a.Entry(audit.SourceDeleted, auditMetadata(src)))
	return nil
}

func auditMetadata(src *models.Source) map[string]any {
	return map[string]any{"source_id": src.ID, "name": src.Name, "type": src.Type}
}

// Settings opens a stored source's sealed credentials.
func (s *Service) Settings(src *models.Source) (Settings, error) {
	st := Settings{Type: src.Type}
	if src.Config != "" {
		if err := json.Unmarshal([]byte(src.Config), &st.Config); err != nil {
			return st, fmt.Errorf("source %d: stored config: %w", src.ID, err)
		}
	}
	plain, err := s.Secrets.OpenBound(src.CredentialsSealed, credentialsContext(src.OrgID, src.ID)...)
	if err != nil {
		return st, fmt.Errorf("source %d: credentials do not open: %w", src.ID, err)
	}
	if err := json.Unmarshal([]byte(plain), &st.Credentials); err != nil {
		return st, fmt.Errorf("source %d: stored credentials: %w", src.ID, err)
	}
	return st, nil
}

func (s *Service) seal(orgID string, id int64, c connectors.Credentials) (string, error) {
	plain, err := json.Marshal(c)
	if err != nil {
		return "", err
	}
	return s.Secrets.SealBound(string(plain), credentialsContext(orgID, id)...)
}

// Open connects to a source with the given settings, every connection
// through the network guard.
func (s *Service) Open(ctx context.Context, st Settings) (connectors.Connector, error) {
	opts := connectors.Options{Credentials: st.Credentials, Schema: st.Config.Schema, SampledProfile: st.Config.Sampled(), Dialer: s.Guard, Timeout: s.Timeout}
	var c connectors.Connector
	var err error
	switch st.Type {
	case connectors.S3:
		c, err = nilIfErr(s3.Open(ctx, opts))
	case connectors.GCS:
		c, err = nilIfErr(gcs.Open(ctx, opts))
	case connectors.PostgreSQL:
		c, err = nilIfErr(postgresql.Open(ctx, opts))
	case connectors.BigQuery:
		c, err = nilIfErr(bigquery.Open(ctx, opts))
	case connectors.Snowflake:
		c, err = nilIfErr(snowflake.Open(ctx, opts))
	default:
		return nil, errs.BadRequest("type must be one of %s", strings.Join(connectors.Kinds, ", "))
	}
	if err != nil {
		return nil, connectors.Scrub(err, st.Secrets()...)
	}
	return c, nil
}

// OpenStored connects to a stored source with its sealed settings.
func (s *Service) OpenStored(ctx context.Context, src *models.Source) (connectors.Connector, error) {
	st, err := s.Settings(src)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx, st)
}

// nilIfErr makes a typed nil connector a nil interface.
func nilIfErr[T connectors.Connector](c T, err error) (connectors.Connector, error) {
	if err != nil {
		return nil, err
	}
	return c, nil
}

// TestResult is the answer of a connection test.
type TestResult struct {
	Success     bool               `json:"success"`
	TablesFound int                `json:"tables_found"`
	Tables      []connectors.Table `json:"tables"`
	Error       string             `json:"error,omitempty"`
}

// MaxListedTables bounds the tables a connection test returns (all are
// counted in TablesFound).
const MaxListedTables = 1000

// TestConnection checks the settings, connects and lists the tables or
// objects. Settings that are malformed or a host the guard refuses are
// the caller's bad request; a source that cannot be reached, refuses the
// credentials or lacks the bucket is a result with Success false and the
// reason, in words that never quote a credential.
func (s *Service) TestConnection(ctx context.Context, st Settings) (TestResult, error) {
	if err := s.Check(ctx, st); err != nil {
		return TestResult{}, err
	}
	c, err := s.Open(ctx, st)
	if err == nil {
		defer c.Close()
		var tables []connectors.Table
		tables, err = c.List(ctx)
		if err == nil {
			res := TestResult{Success: true, TablesFound: len(tables), Tables: tables}
			if len(res.Tables) > MaxListedTables {
				res.Tables = res.Tables[:MaxListedTables]
			}
			if res.Tables == nil {
				res.Tables = []connectors.Table{}
			}
			return res, nil
		}
	}
	if e := (*errs.Error)(nil); errors.As(err, &e) && e.Status == http.StatusBadRequest {
		return TestResult{}, err
	}
	if errors.Is(err, connectors.ErrInvalid) {
		return TestResult{}, errs.BadRequest("%s", connectors.Scrub(err, st.Secrets()...).Error())
	}
	if ctx.Err() != nil {
		return TestResult{}, ctx.Err()
	}
	return TestResult{Success: false, Tables: []connectors.Table{}, Error: connectors.Scrub(err, st.Secrets()...).Error()}, nil
}
