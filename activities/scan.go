package activities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/dqs/dqs/analysis"
	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/scanner"
	"github.com/dqs/dqs/scans"
)

// ScanRef names a scan; the workflow id is the scan id. It carries no
// setting of the source: the activities read those (credentials
// included) from the database, so nothing secret enters a workflow's
// history.
type ScanRef struct {
	OrgID  string `json:"org_id"`
	ScanID string `json:"scan_id"`
}

// ScanItem is one table or object a scan reads.
type ScanItem struct {
	Name string `json:"name"`
	// SizeBytes is an object's size from the listing.
	SizeBytes int64 `json:"size_bytes,omitempty"`
	// DiscoveredID is an object's discovered-file id, marked scanned
	// once it is read.
	DiscoveredID int64 `json:"discovered_id,omitempty"`
}

// ScanPlan is what BeginScan found to read.
type ScanPlan struct {
	Objects bool       `json:"objects"`
	Items   []ScanItem `json:"items"`
	// Tally counts what was settled before any item was read (requested
	// tables the source does not have).
	Tally ScanTally `json:"tally"`
}

// ScanTally counts a scan's settled items; the workflow carries it from
// one item to the next, so each activity writes the scan's progress
// without reading the others'.
type ScanTally struct {
	Scanned int   `json:"scanned"`
	Failed  int   `json:"failed"`
	Rows    int64 `json:"rows"`
}

// ScanItemInput is one item of a scan and the tally before it.
type ScanItemInput struct {
	Scan  ScanRef   `json:"scan"`
	Item  ScanItem  `json:"item"`
	Tally ScanTally `json:"tally"`
	// Error, for RecordScanItemFailure, is why the item failed.
	Error string `json:"error,omitempty"`
}

// Error types of the scan activities, which the workflow tells apart:
// ErrTypeSourceDeleted ends a scan whose source was deleted meanwhile (the
// scan's rows went with it; nothing is left to record), ErrTypeBadInput is
// a source's fault a retry will not mend.
const (
	ErrTypeSourceDeleted = "source_deleted"
	ErrTypeBadInput      = "bad_input"
)

// scanGone is the non-retryable error of a scan or source deleted while the
// scan ran.
func scanGone(err error) error {
	if errors.Is(err, errs.ErrNotFound) {
		return temporal.NewNonRetryableApplicationError("the source or the scan was deleted", ErrTypeSourceDeleted, nil)
	}
	return err
}

// openScan returns scan id, or the non-retryable error that ends its
// workflow quietly when the scan was deleted with its source or already
// ended (failed as abandoned while its workflow waited to run: the source
// is another scan's now, and nothing may be read or marked for this one).
func (a *Activities) openScan(ctx context.Context, in ScanRef) (*models.Scan, error) {
	sc, err := a.Stores.Scans.Get(ctx, in.OrgID, in.ScanID)
	if err != nil {
		return nil, scanGone(err)
	}
	if sc.Status == models.ScanCompleted || sc.Status == models.ScanFailed {
		return nil, temporal.NewNonRetryableApplicationError("the scan already ended", ErrTypeSourceDeleted, nil)
	}
	return sc, nil
}

// sourceAtFault reports errors of a source a retry will not mend (wrong
// settings, a bucket or table that is not there, a file that is not
// data, a table too wide, a table that cannot be profiled within the
// profile timeout: a retry would take as long again); their messages,
// which connectors and the engine make safe to show, are the user's
// answer.
func sourceAtFault(err error) bool {
	return errors.Is(err, connectors.ErrInvalid) || errors.Is(err, connectors.ErrNotFound) ||
		errors.Is(err, scanner.ErrBadInput) || errors.Is(err, connectors.ErrTooWide) || errors.Is(err, connectors.ErrTimedOut)
}

// nonRetryable marks the errors sourceAtFault names as final.
func nonRetryable(err error) error {
	if sourceAtFault(err) {
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBadInput, nil)
	}
	return err
}

// BeginScan lists the source, records the listing of an object source
// (discovered files and their sync state), picks the items to read (the
// requested tables, or every table; the objects that changed since they
// were last read) and moves the scan to running. A requested table the
// source does not have is recorded failed at once. Run again after a
// crash, it plans again from the scan as stored.
func (a *Activities) BeginScan(ctx context.Context, in ScanRef) (ScanPlan, error) {
	stop := keepHeartbeat(ctx) // a long listing or sync reports nothing
	defer stop()
	sc, err := a.openScan(ctx, in)
	if err != nil {
		return ScanPlan{}, err
	}
	src, err := a.Stores.Sources.Get(ctx, in.OrgID, sc.SourceID)
	if err != nil {
		return ScanPlan{}, scanGone(err)
	}
	var requested []string
	if err := json.Unmarshal([]byte(sc.Tables), &requested); err != nil {
		return ScanPlan{}, fmt.Errorf("scan %s: stored tables: %w", sc.ID, err)
	}
	conn, err := a.Sources.OpenStored(ctx, src)
	if err != nil {
		return ScanPlan{}, nonRetryable(err)
	}
	defer conn.Close()
	listed, err := conn.List(ctx)
	if err != nil {
		return ScanPlan{}, nonRetryable(err)
	}
	plan := ScanPlan{Objects: connectors.IsObjectStore(src.Type)}
	if plan.Objects {
		stored, err := a.Stores.DiscoveredFiles.Sync(ctx, in.OrgID, src.ID, scans.Listed(listed), time.Now())
		if err != nil {
			return ScanPlan{}, scanGone(err)
		}
		for _, f := range stored {
			if f.NeedsScan() && len(plan.Items) < scans.MaxItems {
				plan.Items = append(plan.Items, ScanItem{Name: f.Key, SizeBytes: f.SizeBytes, DiscoveredID: f.ID})
			}
		}
	} else {
		picked, missing := scans.PickTables(listed, requested)
		for _, t := range picked {
			plan.Items = append(plan.Items, ScanItem{Name: t.Name})
		}
		for _, name := range missing {
			t := &models.ScanTable{ScanID: sc.ID, TableName: name, Error: "the source has no table of this name"}
			if err := a.Stores.Scans.AddTable(ctx, in.OrgID, t); err != nil {
				return ScanPlan{}, scanGone(err)
			}
			plan.Tally.Failed++
		}
	}
	if sc.Status == models.ScanQueued {
		if err := a.Stores.Scans.Start(ctx, in.OrgID, sc.ID, len(plan.Items)+plan.Tally.Failed, time.Now()); err != nil {
			return ScanPlan{}, scanGone(err)
		}
	}
	if plan.Tally.Failed > 0 {
		if err := a.Stores.Scans.Progress(ctx, in.OrgID, sc.ID, 0, plan.Tally.Failed, 0); err != nil {
			return ScanPlan{}, scanGone(err)
		}
	}
	return plan, nil
}

// heartbeatEvery keeps an activity's heartbeat going through work that
// reports no progress of its own (a database computing an aggregate, a
// pipeline of corrections).
const heartbeatEvery = 5 * time.Second

// ScanItem reads one table or object and stores its profile and metric
// points. What the source is at fault for (a table dropped meanwhile, an
// object that is not a data file, a table too wide) fails this item only:
// it is recorded and the scan goes on. Other errors are retried.
func (a *Activities) ScanItem(ctx context.Context, in ScanItemInput) (ScanTally, error) {
	sc, err := a.openScan(ctx, in.Scan)
	if err != nil {
		return in.Tally, err
	}
	src, err := a.Stores.Sources.Get(ctx, in.Scan.OrgID, sc.SourceID)
	if err != nil {
		return in.Tally, scanGone(err)
	}
	stop := keepHeartbeat(ctx)
	defer stop()
	res, err := a.scanItem(ctx, src, in)
	if err != nil {
		if sourceAtFault(err) {
			in.Error = err.Error()
			return a.RecordScanItemFailure(ctx, in)
		}
		return in.Tally, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return in.Tally, err
	}
	metrics := res.Metrics()
	points := make([]models.MetricPoint, len(metrics))
	now := time.Now()
	for i, m := range metrics {
		points[i] = models.MetricPoint{SourceID: src.ID, ColumnName: m.Column, Metric: m.Name, Value: m.Value, RecordedAt: now}
	}
	t := &models.ScanTable{ScanID: sc.ID, TableName: in.Item.Name, Rows: res.Rows, Profile: string(raw)}
	if err := a.Stores.Scans.SaveTable(ctx, in.Scan.OrgID, t, points); err != nil {
		return in.Tally, scanGone(err)
	}
	tally := in.Tally
	tally.Scanned++
	tally.Rows += res.Rows
	return tally, a.settleItem(ctx, in, tally)
}

func (a *Activities) scanItem(ctx context.Context, src *models.Source, in ScanItemInput) (*scanner.Result, error) {
	conn, err := a.Sources.OpenStored(ctx, src)
	if err != nil {
		return nil, nonRetryable(err)
	}
	defer conn.Close()
	org, err := a.Stores.Orgs.Get(ctx, src.OrgID)
	if err != nil {
		return nil, err
	}
	d, err := analysis.WithNullTokens(org.NullTokenList())
	if err != nil { // checked when the setting was saved: a list stored by hand
		return nil, fmt.Errorf("%w: the organisation's null_tokens cannot be used: %w", scanner.ErrBadInput, err)
	}
	opt := scanner.Options{Limits: a.Memory, NullTokens: d.NullTokens, Progress: func(float64) { activity.RecordHeartbeat(ctx) }}
	switch c := conn.(type) {
	case connectors.ObjectSource:
		return scanner.Object(ctx, c, in.Item.Name, in.Item.SizeBytes, opt)
	case connectors.TableSource:
		return scanner.Table(ctx, c, in.Item.Name, opt)
	}
	return nil, fmt.Errorf("source %d: kind %s reads neither tables nor objects", src.ID, src.Type)
}

// RecordScanItemFailure records that an item of a scan failed, with the
// reason for the user, and counts it; the workflow calls it when the
// item's retries are exhausted.
func (a *Activities) RecordScanItemFailure(ctx context.Context, in ScanItemInput) (ScanTally, error) {
	if _, err := a.openScan(ctx, in.Scan); err != nil {
		return in.Tally, err
	}
	t := &models.ScanTable{ScanID: in.Scan.ScanID, TableName: in.Item.Name, Error: in.Error}
	if err := a.Stores.Scans.AddTable(ctx, in.Scan.OrgID, t); err != nil {
		return in.Tally, scanGone(err)
	}
	tally := in.Tally
	tally.Failed++
	return tally, a.settleItem(ctx, in, tally)
}

// settleItem marks an object read (so an unchanged object is not read
// again) and writes the scan's progress.
func (a *Activities) settleItem(ctx context.Context, in ScanItemInput, tally ScanTally) error {
	if in.Item.DiscoveredID != 0 {
		err := a.Stores.DiscoveredFiles.MarkScanned(ctx, in.Scan.OrgID, in.Item.DiscoveredID, nil, time.Now())
		if err != nil {
			return scanGone(err)
		}
	}
	return scanGone(a.Stores.Scans.Progress(ctx, in.Scan.OrgID, in.Scan.ScanID, tally.Scanned, tally.Failed, tally.Rows))
}

// keepHeartbeat heartbeats every heartbeatEvery until stopped.
func keepHeartbeat(ctx context.Context) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(heartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			}
		}
	}()
	return func() { close(done) }
}

// FinishScanInput ends a scan; Error is set when it could not be planned
// (the source unreachable), which fails it.
type FinishScanInput struct {
	Scan  ScanRef   `json:"scan"`
	Error string    `json:"error,omitempty"`
	At    time.Time `json:"at"`
}

// FinishScan charges the tokens of what was read (scans.Charge, never more
// than the balance: the rows were read) and ends the scan, in one
// transaction, so a retry neither charges twice nor ends it twice. The
// scan fails when it could not be planned or every item failed. A
// scheduled scan records its schedule's run; one that failed publishes
// scan_failure.
func (a *Activities) FinishScan(ctx context.Context, in FinishScanInput) error {
	var sc *models.Scan
	err := a.Stores.DB.WithTx(ctx, func(ctx context.Context) error {
		var err error
		if sc, err = a.Stores.Scans.Get(ctx, in.Scan.OrgID, in.Scan.ScanID); err != nil {
			return err
		}
		if sc.Status == models.ScanCompleted || sc.Status == models.ScanFailed {
			return nil // a retry: the event below is published again, once per webhook
		}
		tables, err := a.Stores.Scans.Tables(ctx, in.Scan.OrgID, sc.ID)
		if err != nil {
			return err
		}
		status, msg := scans.Outcome(tables, in.Error)
		charge := scans.Charge(tables)
		if charge > 0 {
			org, err := a.Stores.Orgs.Get(ctx, in.Scan.OrgID)
			if err != nil {
				return err
			}
			if charge = min(charge, org.TokenBalance); charge > 0 {
				if _, err := a.Stores.Orgs.SpendTokens(ctx, in.Scan.OrgID, charge); err != nil {
					return err
				}
			}
		}
		if err := a.Stores.Scans.Finish(ctx, in.Scan.OrgID, sc.ID, status, msg, charge, in.At); err != nil {
			return err
		}
		sc.Status, sc.Error = status, msg
		if sc.ScheduleID != nil {
			return a.Stores.SourceSchedules.RecordRun(ctx, in.Scan.OrgID, *sc.ScheduleID, status, msg, in.At)
		}
		return nil
	})
	if err != nil {
		return scanGone(err)
	}
	if sc.ScheduleID == nil || sc.Status != models.ScanFailed {
		return nil
	}
	return a.raiseScanFailure(ctx, sc.SourceID, scans.FailureEvent(sc, in.At))
}

// raiseScanFailure raises the scan_failure alert of a scheduled scan that
// failed or could not start, and publishes its event; both keyed by the
// event's id, so a retry raises and sends nothing twice.
func (a *Activities) raiseScanFailure(ctx context.Context, sourceID int64, e events.Event) error {
	alert := &models.Alert{DedupKey: e.ID, Severity: models.SeverityWarning, Type: models.AlertScanFailure,
		Message: connectors.Clip(e.Title+": "+e.Text, maxAlertMessage), SourceID: &sourceID, CreatedAt: e.OccurredAt}
	if _, err := a.Stores.Alerts.Raise(ctx, e.OrgID, alert); err != nil {
		return scanGone(err)
	}
	if a.Events == nil {
		return nil
	}
	return a.Events.Publish(ctx, e)
}

// maxAlertMessage bounds an alert's message (a scan's error may quote a
// long reason).
const maxAlertMessage = 2000

// ScheduleRef names a source schedule.
type ScheduleRef struct {
	OrgID      string `json:"org_id"`
	SourceID   int64  `json:"source_id"`
	ScheduleID int64  `json:"schedule_id"`
	// ScanID, set by the run, is the id its scan gets: a retried
	// CreateScheduledScan finds the scan it created.
	ScanID string `json:"scan_id,omitempty"`
}

// CreateScheduledScan creates the scan a schedule's run asks for (the
// tables of its row as it is now), checked, estimated and refused for too
// few tokens as a manual scan is; the refusals are final for this run.
func (a *Activities) CreateScheduledScan(ctx context.Context, in ScheduleRef) (string, error) {
	sc, err := a.Stores.SourceSchedules.Get(ctx, in.OrgID, in.SourceID, in.ScheduleID)
	if err != nil {
		return "", scanGone(err)
	}
	if in.ScanID != "" {
		if _, err := a.Stores.Scans.Get(ctx, in.OrgID, in.ScanID); err == nil {
			return in.ScanID, nil // created by an attempt whose answer was lost
		}
	}
	svc := scans.Service{Stores: a.Stores, Sources: a.Sources, Workflows: a.ScanWorkflows, Logger: a.Logger}
	req := scans.ScheduledRequest(sc)
	req.ScanID = in.ScanID
	scan, err := svc.Create(ctx, in.OrgID, in.SourceID, req)
	if e := (*errs.Error)(nil); errors.As(err, &e) && !errors.Is(err, errs.ErrNotFound) && !errors.Is(err, errs.ErrInternal) {
		return "", temporal.NewNonRetryableApplicationError(e.Message, ErrTypeBadInput, nil)
	}
	if err != nil {
		return "", scanGone(nonRetryable(err))
	}
	return scan.ID, nil
}

// ScheduledRunFailure is a schedule's run that could not start a scan.
type ScheduledRunFailure struct {
	Schedule ScheduleRef `json:"schedule"`
	Error    string      `json:"error"`
	At       time.Time   `json:"at"`
}

// RecordScheduledRunFailure records on the schedule that a run could not
// start its scan, and publishes scan_failure.
func (a *Activities) RecordScheduledRunFailure(ctx context.Context, in ScheduledRunFailure) error {
	err := a.Stores.SourceSchedules.RecordRun(ctx, in.Schedule.OrgID, in.Schedule.ScheduleID, models.ScanFailed, in.Error, in.At)
	if err != nil {
		return scanGone(err)
	}
	return a.raiseScanFailure(ctx, in.Schedule.SourceID, scans.RunFailureEvent(in.Schedule.OrgID, in.Schedule.SourceID, in.Schedule.ScheduleID, in.Error, in.At))
}
