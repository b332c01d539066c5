package api

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/dqs/dqs/audit"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/sources"
	"github.com/gin-gonic/gin"
)

// sourceTestTimeout bounds a connection test as a whole (connect and
// list), so a source that hangs answers in bounded time.
const sourceTestTimeout = 30 * time.Second

// sourceView is a source as the API shows it: never its credentials.
type sourceView struct {
	ID             int64          `json:"id"`
	Name           string         `json:"name"`
	Type           string         `json:"type"`
	Config         sources.Config `json:"config"`
	Status         string         `json:"status"`
	LastScanAt     *time.Time     `json:"last_scan_at"`
	LastScanStatus *string        `json:"last_scan_status"`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
}

func viewSource(s *models.Source) sourceView {
	var cfg sources.Config
	_ = json.Unmarshal([]byte(s.Config), &cfg) // written by the service; {} when empty
	return sourceView{ID: s.ID, Name: s.Name, Type: s.Type, Config: cfg, Status: s.Status,
		LastScanAt: utcPtr(s.LastScanAt), LastScanStatus: strPtr(s.LastScanStatus),
		CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
}

// sourceRequest is the body of create, update and test-connection.
type sourceRequest struct {
	Name        *string         `json:"name"`
	Type        *string         `json:"type"`
	Credentials json.RawMessage `json:"credentials"`
	Config      json.RawMessage `json:"config"`
}

// settings reads the type, credentials and config of a create or a test.
func (r sourceRequest) settings() (sources.Settings, error) {
	if r.Type == nil {
		return sources.Settings{}, errs.BadRequest("type is required (one of s3, gcs, postgresql, bigquery, snowflake)")
	}
	if len(r.Credentials) == 0 || string(r.Credentials) == "null" {
		return sources.Settings{}, errs.BadRequest("credentials are required")
	}
	creds, err := sources.ParseCredentials(r.Credentials)
	if err != nil {
		return sources.Settings{}, err
	}
	cfg, err := sources.ParseConfig(r.Config)
	if err != nil {
		return sources.Settings{}, err
	}
	return sources.Settings{Type: *r.Type, Credentials: sources.Given(creds), Config: cfg}, nil
}

func actorOf(c *gin.Context, p *principal) audit.Actor {
	return audit.Actor{OrgID: p.OrgID, UserID: p.userID(), IP: clientIP(c)}
}

var errSourceNotFound = errs.NotFound("source")

func sourceID(c *gin.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, errSourceNotFound
	}
	return id, nil
}

// ownedSource reads the path's source id and checks that the caller's
// organisation holds it, before anything else of the request is read: a
// source of another organisation is 404 whatever the body or query, as a
// missing one.
func (s *Server) ownedSource(c *gin.Context) (orgID string, id int64, err error) {
	orgID = mustPrincipal(c).OrgID
	if id, err = sourceID(c); err != nil {
		return "", 0, err
	}
	_, err = s.Stores.Sources.Get(c.Request.Context(), orgID, id)
	return orgID, id, err
}

// ownedSourcePage is ownedSource for a list under a source: the source,
// then the page asked for.
func (s *Server) ownedSourcePage(c *gin.Context) (orgID string, id int64, pg page, err error) {
	if orgID, id, err = s.ownedSource(c); err != nil {
		return "", 0, pg, err
	}
	pg, err = parsePage(c, defaultPageLimit)
	return orgID, id, pg, err
}

// testSourceConnection connects with the given settings without saving
// them and lists what the source holds: 200 with success false and the
// reason when the source cannot be reached (SPEC.md); malformed settings
// and hosts the network policy refuses are 400.
func (s *Server) testSourceConnection(c *gin.Context) error {
	var req sourceRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	st, err := req.settings()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), sourceTestTimeout)
	defer cancel()
	res, err := s.Sources.TestConnection(ctx, st)
	if err != nil {
		if ctx.Err() != nil && c.Request.Context().Err() == nil {
			return respond(c, http.StatusOK, sources.TestResult{Tables: []connectors.Table{},
				Error: "the source did not answer within " + sourceTestTimeout.String()})
		}
		return err
	}
	return respond(c, http.StatusOK, res)
}

// createSource saves a source (member); its credentials are sealed and
// never shown again.
func (s *Server) createSource(c *gin.Context) error {
	p := mustPrincipal(c)
	var req sourceRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Name == nil {
		return errs.BadRequest("name is required")
	}
	st, err := req.settings()
	if err != nil {
		return err
	}
	src, err := s.Sources.Create(c.Request.Context(), actorOf(c, p), *req.Name, st)
	if err != nil {
		return err
	}
	return respond(c, http.StatusCreated, viewSource(src))
}

// listSources lists the organisation's sources, newest first, paged.
func (s *Server) listSources(c *gin.Context) error {
	p := mustPrincipal(c)
	pg, err := parsePage(c, defaultPageLimit)
	if err != nil {
		return err
	}
	list, total, err := s.Stores.Sources.List(c.Request.Context(), p.OrgID, models.Page(pg))
	if err != nil {
		return err
	}
	return respondList(c, views(list, viewSource), total, pg)
}

func (s *Server) getSource(c *gin.Context) error {
	id, err := sourceID(c)
	if err != nil {
		return err
	}
	src, err := s.Stores.Sources.Get(c.Request.Context(), mustPrincipal(c).OrgID, id)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewSource(src))
}

// updateSource changes a source's name, config or credentials (member);
// credentials given replace the stored keys one by one, null removes one.
func (s *Server) updateSource(c *gin.Context) error {
	p := mustPrincipal(c)
	id, err := sourceID(c)
	if err != nil {
		return err
	}
	var req sourceRequest
	if err := bindJSON(c, &req); err != nil {
		return err
	}
	if req.Type != nil {
		return errs.BadRequest("the type of a source cannot change; create a new source")
	}
	var patch sources.Patch
	patch.Name = req.Name
	if len(req.Config) > 0 {
		if patch.Config, err = sources.ParseConfigUpdate(req.Config); err != nil {
			return err
		}
	}
	if len(req.Credentials) > 0 && string(req.Credentials) != "null" {
		if patch.Credentials, err = sources.ParseCredentials(req.Credentials); err != nil {
			return err
		}
		if patch.Credentials == nil {
			patch.Credentials = map[string]*string{}
		}
	}
	src, err := s.Sources.Update(c.Request.Context(), actorOf(c, p), id, patch)
	if err != nil {
		return err
	}
	return respond(c, http.StatusOK, viewSource(src))
}

// deleteSource removes a source with its schedules (and their Temporal
// Schedules), scans, discovered files and metric history (admin).
func (s *Server) deleteSource(c *gin.Context) error {
	p := mustPrincipal(c)
	id, err := sourceID(c)
	if err != nil {
		return err
	}
	// The schedules' Temporal Schedules go first: none is left starting
	// scans of a source that is gone.
	if err := s.Scans.DeleteSchedulesOf(c.Request.Context(), p.OrgID, id); err != nil {
		return err
	}
	if err := s.Sources.Delete(c.Request.Context(), actorOf(c, p), id); err != nil {
		return err
	}
	return respond(c, http.StatusOK, gin.H{"id": id, "deleted": true})
}

type discoveredFileView struct {
	ID            int64      `json:"id"`
	Key           string     `json:"key"`
	SizeBytes     int64      `json:"size_bytes"`
	ETag          string     `json:"etag"`
	LastModified  time.Time  `json:"last_modified"`
	SyncState     string     `json:"sync_state"`
	LastScannedAt *time.Time `json:"last_scanned_at"`
	FileID        *int64     `json:"file_id"`
}

// listSourceFiles lists the objects scans found in an object store
// source, with their sync state; a database or warehouse source has none.
func (s *Server) listSourceFiles(c *gin.Context) error {
	orgID, id, pg, err := s.ownedSourcePage(c)
	if err != nil {
		return err
	}
	ctx := c.Request.Context()
	list, total, err := s.Stores.DiscoveredFiles.List(ctx, orgID, id, models.Page(pg))
	if err != nil {
		return err
	}
	out := make([]discoveredFileView, len(list))
	for i, f := range list {
		out[i] = discoveredFileView{ID: f.ID, Key: f.Key, SizeBytes: f.SizeBytes, ETag: f.ETag,
			LastModified: f.LastModified.UTC(), SyncState: f.SyncState, LastScannedAt: utcPtr(f.LastScannedAt), FileID: f.FileID}
	}
	return respondList(c, out, total, pg)
}
