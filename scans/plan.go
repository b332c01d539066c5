package scans

import (
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dqs/dqs/connectors"
	"github.com/dqs/dqs/events"
	"github.com/dqs/dqs/models"
)

// MaxItems bounds the tables or objects one scan reads, so that a scan's
// plan fits in its workflow's history. An object source with more changed
// objects reads the first MaxItems in key order; the rest stay pending
// and the next scan reads them. A table list longer than this is refused.
const MaxItems = 2000

// rowsPerToken is the rows a token pays for beyond the first of each
// table or object (DECISIONS.md "Organisation settings and tokens").
const rowsPerToken = 100_000

// itemTokens is what reading one table or object of rows rows costs: 1,
// plus 1 per started 100,000 rows.
func itemTokens(rows int64) int64 {
	rows = max(rows, 0)
	return 1 + rows/rowsPerToken + min(rows%rowsPerToken, 1)
}

// addTokens adds without overflowing: a catalogue may report any row
// estimate, and a wrapped sum would pass the balance check.
func addTokens(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// Estimate is the cost of reading tables, from their catalogue row
// estimates.
func Estimate(tables []connectors.Table) int64 {
	var n int64
	for _, t := range tables {
		n = addTokens(n, itemTokens(t.RowEstimate))
	}
	return n
}

// bytesPerObjectRow turns an object's size into the rows its estimate
// prices (a bucket has no catalogue): about what a row of a CSV export
// takes. The charge counts the rows read, so a guess off either way only
// moves the estimate, which is held against the balance while the scan
// runs.
const bytesPerObjectRow = 200

// EstimateObjects is the cost of reading objects, from their sizes.
func EstimateObjects(objects []models.ListedObject) int64 {
	var n int64
	for _, o := range objects {
		n = addTokens(n, itemTokens(o.SizeBytes/bytesPerObjectRow))
	}
	return n
}

// Charge is the cost of a scan's results, from the rows actually read;
// an item that failed costs nothing.
func Charge(tables []models.ScanTable) int64 {
	var n int64
	for _, t := range tables {
		if t.Status == models.ScanCompleted {
			n = addTokens(n, itemTokens(t.Rows))
		}
	}
	return n
}

// PickTables returns the listed tables a scan reads: those requested, in
// the order requested, or every one when none is; and the requested
// names the listing does not have. A name is matched exactly.
func PickTables(listed []connectors.Table, requested []string) (picked []connectors.Table, missing []string) {
	if len(requested) == 0 {
		return listed[:min(len(listed), MaxItems)], nil
	}
	byName := make(map[string]connectors.Table, len(listed))
	for _, t := range listed {
		byName[t.Name] = t
	}
	for _, name := range requested {
		if t, ok := byName[name]; ok {
			picked = append(picked, t)
		} else {
			missing = append(missing, name)
		}
	}
	return picked, missing
}

// Listed is an object listing as the discovered-files store takes it.
func Listed(tables []connectors.Table) []models.ListedObject {
	out := make([]models.ListedObject, len(tables))
	for i, t := range tables {
		out[i] = models.ListedObject{Key: t.Name, SizeBytes: t.SizeBytes, ETag: t.ETag, LastModified: t.LastModified}
	}
	return out
}

// Outcome is a finished scan's status and error: failed when it could not
// be planned (planErr) or every item failed, completed otherwise, its
// error then naming the items that failed, if any.
func Outcome(tables []models.ScanTable, planErr string) (status, msg string) {
	if planErr != "" {
		return models.ScanFailed, planErr
	}
	failed := slices.DeleteFunc(slices.Clone(tables), func(t models.ScanTable) bool { return t.Status != models.ScanFailed })
	switch {
	case len(failed) == 0:
		return models.ScanCompleted, ""
	case len(failed) == len(tables):
		return models.ScanFailed, fmt.Sprintf("every table failed; %s: %s", failed[0].TableName, failed[0].Error)
	}
	return models.ScanCompleted, fmt.Sprintf("%d of %d tables failed; %s: %s", len(failed), len(tables), failed[0].TableName, failed[0].Error)
}

// RunFailureEvent is the scan_failure event of a schedule's run that could
// not start its scan (too few tokens, the source unreachable).
func RunFailureEvent(orgID string, sourceID, scheduleID int64, reason string, at time.Time) events.Event {
	return events.Event{
		ID: fmt.Sprintf("schedule/%d/%s/scan_failure", scheduleID, at.UTC().Format(time.RFC3339)), Type: events.ScanFailure, OrgID: orgID,
		Title:      fmt.Sprintf("Scheduled scan of source %d could not start", sourceID),
		Text:       reason,
		OccurredAt: at,
	}
}

// FailureEvent is the scan_failure event of a scheduled scan that failed.
func FailureEvent(sc *models.Scan, at time.Time) events.Event {
	return events.Event{
		ID: sc.ID + "/scan_failure", Type: events.ScanFailure, OrgID: sc.OrgID,
		Title:      fmt.Sprintf("Scheduled scan %s of source %d failed", sc.ID, sc.SourceID),
		Text:       sc.Error,
		OccurredAt: at,
	}
}
