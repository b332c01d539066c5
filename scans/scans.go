// Package scans is the service layer of scans: it checks a scan request
// against its source, estimates its tokens from the source's catalogue,
// refuses it when the balance is short, and launches it (write the scan,
// start its workflow, undo the scan if the start fails). The helpers in
// plan.go (what a scan reads, what it costs, how it ends) are shared with
// the scan activities, so that the estimate and the charge count alike.
package scans

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/launch"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/sources"
)

// Workflows starts the durable work of scans.
type Workflows interface {
	// ScanSource starts scan scanID (workflow id = scan id).
	ScanSource(ctx context.Context, orgID, scanID string) error
	// ScanRunning reports whether scan scanID's workflow is running; false
	// when it ended or was never started.
	ScanRunning(ctx context.Context, scanID string) (bool, error)
}

// Service starts scans.
type Service struct {
	Stores    *models.Stores
	Sources   *sources.Service
	Workflows Workflows
	// Schedules keeps the source schedules' Temporal Schedules.
	Schedules Schedules
	Logger    *slog.Logger
}

// Request is what a scan is asked to read.
type Request struct {
	// Tables names the tables of a database or warehouse source to read
	// (bare names, in the source's schema); empty reads every table. An
	// object source reads its new and changed objects and takes no list.
	Tables []string
	// Schema, when given, must be the source's schema (config.schema):
	// it lets a caller say which schema it means, and a mismatch is
	// refused rather than scanning another one.
	Schema string
	// ScheduleID is the schedule that started the scan, nil for a manual
	// one.
	ScheduleID *int64
	// ScanID, when set, is the scan's id (a schedule's run chooses it, so
	// that a retry finds its scan); empty draws a new one.
	ScanID string
}

// maxTableNameBytes bounds a requested table name.
const maxTableNameBytes = 1024

func (r Request) check(src *models.Source, schema string) error {
	if len(r.Tables) > MaxItems {
		return errs.BadRequest("tables names %d tables; a scan reads at most %d", len(r.Tables), MaxItems)
	}
	if len(r.Tables) > 0 && connectors.IsObjectStore(src.Type) {
		return errs.BadRequest("a %s source scans its new and changed objects; tables apply to databases and warehouses", src.Type)
	}
	seen := make(map[string]bool, len(r.Tables))
	for _, t := range r.Tables {
		if strings.TrimSpace(t) == "" || len(t) > maxTableNameBytes || strings.ContainsRune(t, 0) {
			return errs.BadRequest("each table must be a non-empty name of at most %d bytes", maxTableNameBytes)
		}
		if seen[t] {
			return errs.BadRequest("table %q is named twice", t)
		}
		seen[t] = true
	}
	if r.Schema != "" && r.Schema != schema {
		return errs.BadRequest("schema %q is not the source's schema (%q): change the source's config.schema, or add a source for that schema", r.Schema, schema)
	}
	return nil
}

// Start checks the request, estimates the scan from the source's
// catalogue, refuses it (402) when the organisation's balance is below
// the estimate, and launches it. A source that cannot be reached or
// listed is a 502 source_unreachable with the connector's reason, which
// never quotes a credential.
func (s *Service) Start(ctx context.Context, orgID string, sourceID int64, req Request) (*models.Scan, error) {
	sc, err := s.prepare(ctx, orgID, sourceID, req)
	if err != nil {
		return nil, err
	}
	err = launch.Run(ctx, launch.Steps{
		Write: func(ctx context.Context) error { return s.store(ctx, orgID, sc) },
		Start: func(ctx context.Context) error { return s.Workflows.ScanSource(ctx, orgID, sc.ID) },
		Undo:  func(ctx context.Context) error { return s.Stores.Scans.Delete(ctx, orgID, sc.ID) },
	})
	if err != nil {
		s.logNotUndone(err, "scan left queued without a workflow", "scan_id", sc.ID)
		return nil, err
	}
	return sc, nil
}

// Create checks and estimates a scan as Start does and stores it queued,
// without starting a workflow: a scheduled run, already in a workflow,
// runs the scan as its child.
func (s *Service) Create(ctx context.Context, orgID string, sourceID int64, req Request) (*models.Scan, error) {
	sc, err := s.prepare(ctx, orgID, sourceID, req)
	if err != nil {
		return nil, err
	}
	if err := s.store(ctx, orgID, sc); err != nil {
		return nil, err
	}
	return sc, nil
}

// launchGrace is how long a queued scan may wait for its workflow to start
// (Start writes the scan, then starts the workflow; a schedule's run creates
// the scan, then starts it as a child) before a missing workflow means it
// was abandoned.
const launchGrace = 10 * time.Minute

// abandonedMessage is the error of a scan whose workflow ended without it.
const abandonedMessage = "the scan's workflow ended before the scan did (it was terminated, or never started); nothing was charged"

// store writes the scan (models.Scans.Create, which refuses a second scan
// of a source and holds the estimates of unfinished scans against the
// balance). Refused for either, it first ends the organisation's scans
// whose workflow is gone, which would otherwise hold the source and the
// tokens forever, and tries once more.
func (s *Service) store(ctx context.Context, orgID string, sc *models.Scan) error {
	err := s.Stores.Scans.Create(ctx, orgID, sc)
	if !errors.Is(err, errs.ErrConflict) && !errors.Is(err, errs.ErrInsufficientTokens) {
		return err
	}
	ended, cerr := s.endAbandoned(ctx, orgID)
	if cerr != nil && s.Logger != nil {
		s.Logger.Warn("could not check the organisation's unfinished scans", "org_id", orgID, "error", cerr)
	}
	if ended == 0 {
		return err
	}
	return s.Stores.Scans.Create(ctx, orgID, sc)
}

// endAbandoned fails the organisation's unfinished scans whose workflow is
// not running (terminated from the Temporal UI, or a start lost in a
// crash), and returns how many it ended. A scan queued less than
// launchGrace ago may still be starting and is left alone.
func (s *Service) endAbandoned(ctx context.Context, orgID string) (int, error) {
	if s.Workflows == nil {
		return 0, nil
	}
	unfinished, err := s.Stores.Scans.Unfinished(ctx, orgID)
	if err != nil {
		return 0, err
	}
	ended := 0
	for _, u := range unfinished {
		if u.Status == models.ScanQueued && time.Since(u.CreatedAt) < launchGrace {
			continue
		}
		running, err := s.Workflows.ScanRunning(ctx, u.ID)
		if err != nil {
			return ended, err
		}
		if running {
			continue
		}
		err = s.Stores.Scans.Finish(ctx, orgID, u.ID, models.ScanFailed, abandonedMessage, 0, time.Now())
		if err != nil && !errors.Is(err, errs.ErrConflict) { // a conflict: it ended meanwhile
			return ended, err
		}
		ended++
	}
	return ended, nil
}

// prepare checks the request against the source, estimates the scan and
// checks the balance; it returns the scan to store.
func (s *Service) prepare(ctx context.Context, orgID string, sourceID int64, req Request) (*models.Scan, error) {
	src, err := s.Stores.Sources.Get(ctx, orgID, sourceID)
	if err != nil {
		return nil, err
	}
	st, err := s.Sources.Settings(src)
	if err != nil {
		return nil, err
	}
	if err := req.check(src, st.Config.Schema); err != nil {
		return nil, err
	}
	estimate, err := s.estimate(ctx, orgID, src, req)
	if err != nil {
		return nil, err
	}
	tables, _ := json.Marshal(req.Tables)
	if req.Tables == nil {
		tables = []byte("[]")
	}
	return &models.Scan{ID: req.ScanID, SourceID: src.ID, ScheduleID: req.ScheduleID, Tables: string(tables), EstimatedTokens: estimate}, nil
}

// estimate lists the source and prices what the scan would read: the
// requested tables (or all) by their catalogue row estimates; the
// objects that changed since they were last read (at most MaxItems, as
// the scan reads) by their sizes.
func (s *Service) estimate(ctx context.Context, orgID string, src *models.Source, req Request) (int64, error) {
	conn, err := s.Sources.OpenStored(ctx, src)
	if err != nil {
		return 0, unreachable(err)
	}
	defer conn.Close()
	listed, err := conn.List(ctx)
	if err != nil {
		return 0, unreachable(err)
	}
	if connectors.IsObjectStore(src.Type) {
		pending, err := s.Stores.DiscoveredFiles.Pending(ctx, orgID, src.ID, Listed(listed))
		return EstimateObjects(pending[:min(len(pending), MaxItems)]), err
	}
	picked, _ := PickTables(listed, req.Tables)
	return Estimate(picked), nil
}

// unreachable is the answer to a scan of a source that cannot be listed.
func unreachable(err error) error {
	var e *errs.Error
	if errors.As(err, &e) || errors.Is(err, context.Canceled) {
		return err
	}
	return errs.SourceUnreachable("%s", err.Error())
}
