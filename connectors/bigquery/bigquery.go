// Package bigquery is the table-source connector for Google BigQuery, on
// cloud.google.com/go/bigquery (REST API: tables.get, jobs.query).
//
// Credentials (connectors.Credentials): project_id (required; the project
// that holds the dataset and is billed for the queries), dataset
// (required; Options.Schema, when set, names the dataset instead),
// service_account_json (required: a service-account key file; other
// credential types are refused). The service account needs
// bigquery.jobs.create on the project and bigquery.tables.get and
// bigquery.tables.getData on the dataset (roles/bigquery.jobUser and
// roles/bigquery.dataViewer).
//
// Every request goes through Options.Dialer (or Options.HTTPClient): the
// key signs its own access tokens (self-signed JWTs), so no token request
// leaves the guard.
//
// List reads the dataset's catalogue (__TABLES__: row_count, size_bytes),
// never counting. Profile reads the table's schema with tables.get (a
// metadata call, not a query) and sends one aggregate query
// (TableProfile.Queries is 1); Sample sends one query.
//
// # Sampled profile
//
// With Options.SampledProfile (source config "profile_mode": "sampled")
// Profile of a table reads the whole table only to count its rows, in at
// most two aggregate queries (sqlprofile.Run):
//
//  1. SELECT COUNT(*) FROM `p`.`d`.`t`: the exact row count, which
//     BigQuery answers from the table's metadata (no bytes billed).
//  2. A table of at most sqlprofile.SampleRows(columns) rows (100,000;
//     fewer past 20 columns, so that a sample holds about 2,000,000
//     values) gets the exact aggregate query above: figures exact,
//     ColumnMetrics.Estimated empty. A larger one gets the same query over
//     a block sample of about that many rows, SELECT COUNT(*) AS m0, ...
//     FROM `p`.`d`.`t` TABLESAMPLE SYSTEM (0.811 PERCENT), the percentage
//     100·target/rows rounded up to three significant digits, a literal
//     the connector computes (identifiers stay quoted, formats stay query
//     parameters). Its COUNT(*) counts the sampled rows, and it counts
//     each column's distinct values over the sample exactly
//     (COUNT(DISTINCT c)) instead of APPROX_COUNT_DISTINCT.
//  3. Only should the sample hold no rows (BigQuery documents that a
//     share above zero of a non-empty table always returns some): the
//     exact query, a third; or, should it hold more rows than were
//     counted (the table grew in between), the count again, to tell a
//     sample that read every block from one that read some
//     (sqlprofile.Run).
//
// TableProfile.Queries counts them (2, or 3). A view, a materialized view,
// a snapshot or an external table is profiled exactly in one query, as
// without the option: TABLESAMPLE samples only a table's storage blocks,
// and COUNT(*) of a view reads it whole.
//
// Precision of a sampled profile. Rows are exact. Every other figure comes
// from the sample and is named in ColumnMetrics.Estimated (nulls, empty
// for text, distinct, min, max, mean, stddev, median, quantiles,
// format_conformance, those that are set): nulls and blanks are the
// sample's counts scaled to the table, round(sampled·rows/sampled rows);
// min and max are the sample's values (the table's min is at most the
// reported one, its max at least: an extreme is found only if its block is
// read); mean, stddev, median, quantiles and the format share (a share
// needs no scaling) are the sample's. BigQuery samples whole storage
// blocks of about 1 GB, not rows: the bytes billed are those of the blocks
// read, and the sample's precision is that of the number of blocks read,
// rows of a block having usually been loaded together (a block of a table
// loaded day by day holds a few days). A table of a single block (under
// about 1 GB) is read whole by its sample and its figures are then exact
// (the sample counted every row; nothing is Estimated), at the cost of
// the whole table's bytes; a larger table's sample holds whole blocks, so
// its size varies around the target. Distinct is estimated from the
// sample's exact distinct count by sqlprofile.EstimateDistinct (a column
// unique in the sample is reported unique; one whose values all recur
// keeps the sample's count; in between, the estimate for values of equal
// frequencies): good for keys and for columns of few values, it
// under-estimates skewed columns (rare values are missed) and columns whose
// equal values are stored together, possibly by the factor rows/sampled
// rows, and over-estimates a column whose values recur too rarely for the
// sample to hold a repeat.
//
// A sample is not repeatable. BigQuery's TABLESAMPLE takes no seed (there
// is no REPEATABLE clause), and BigQuery documents that it does not cache
// the results of a query with TABLESAMPLE, which might return different
// results each time: each scan draws its own blocks, and the estimates of
// a table that has not changed may move a little from one scan to the
// next (within the precision above; a table read whole by its sample does
// not move). A sampled series of a large table thus wobbles around the
// table's figures where an exact one stays flat; the row count is exact
// and does not move. PostgreSQL (TABLESAMPLE ... REPEATABLE) and
// Snowflake (SAMPLE SYSTEM ... SEED) sample with sqlprofile.SampleSeed and
// draw the same blocks of an unchanged table every time.
package bigquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/httptransport"
	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/dqs/dqs/connectors"
)

// Source is an open BigQuery dataset. It implements
// connectors.TableSource.
type Source struct {
	client  *bigquery.Client
	project string
	dataset string
	timeout time.Duration
	// readTimeout bounds Profile and Sample (Options.ProfileTimeout).
	readTimeout time.Duration
	// sampled: Profile counts a table's rows and samples the rest
	// (Options.SampledProfile).
	sampled   bool
	secret    string
	transport *http.Transport
}

var _ connectors.TableSource = (*Source)(nil)

// Open checks the settings and builds the client; it sends nothing (List
// is the connection test).
func Open(ctx context.Context, opts connectors.Options) (*Source, error) {
	return open(ctx, opts, "")
}

// open is Open with an API endpoint (tests: an in-process fake).
func open(ctx context.Context, opts connectors.Options, endpoint string) (*Source, error) {
	c := opts.Credentials
	project := strings.TrimSpace(c["project_id"])
	dataset := strings.TrimSpace(opts.Schema)
	if dataset == "" {
		dataset = strings.TrimSpace(c["dataset"])
	}
	saJSON := strings.TrimSpace(c["service_account_json"])
	switch {
	case project == "":
		return nil, fmt.Errorf("%w: bigquery project_id is required", connectors.ErrInvalid)
	case dataset == "":
		return nil, fmt.Errorf("%w: bigquery dataset is required", connectors.ErrInvalid)
	case saJSON == "":
		return nil, fmt.Errorf("%w: bigquery service_account_json is required", connectors.ErrInvalid)
	case opts.HTTPClient == nil && opts.Dialer == nil:
		return nil, fmt.Errorf("%w: no dialer for bigquery", connectors.ErrInvalid)
	}
	var probe struct {
		Type string `json:"type"`
	}
	if json.Unmarshal([]byte(saJSON), &probe) != nil || probe.Type != "service_account" {
		return nil, fmt.Errorf("%w: bigquery service_account_json must be a service account key file (JSON with \"type\": \"service_account\")", connectors.ErrInvalid)
	}
	timeout := opts.CallTimeout()
	s := &Source{project: project, dataset: dataset, timeout: timeout, readTimeout: opts.ProfileCallTimeout(), sampled: opts.SampledProfile, secret: saJSON}

	var base http.RoundTripper
	base, s.transport = connectors.HTTPBase(opts.HTTPClient, func() *http.Transport {
		return newTransport(opts.Dialer, timeout)
	})
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	creds, err := credentials.NewCredentialsFromJSON(credentials.ServiceAccount, []byte(saJSON), &credentials.DetectOptions{
		Scopes:           []string{bigquery.Scope},
		UseSelfSignedJWT: true,
		// Should a token request be made, it goes to the key file's
		// token_uri: the user's choice, so through the guard.
		Client: &http.Client{Transport: base, CheckRedirect: noRedirect},
	})
	if err != nil {
		connectors.CloseIdle(s.transport)
		return nil, fmt.Errorf("%w: bigquery service_account_json is not a usable service account key", connectors.ErrInvalid)
	}
	hc, err := httptransport.NewClient(&httptransport.Options{
		Credentials:      creds,
		BaseRoundTripper: base,
		DisableTelemetry: true,
	})
	if err != nil {
		connectors.CloseIdle(s.transport)
		return nil, fmt.Errorf("%w: bigquery credentials could not be used", connectors.ErrInvalid)
	}
	hc.CheckRedirect = noRedirect
	clientOpts := []option.ClientOption{option.WithHTTPClient(hc)}
	if endpoint != "" {
		clientOpts = append(clientOpts, option.WithEndpoint(endpoint))
	}
	s.client, err = bigquery.NewClient(ctx, project, clientOpts...)
	if err != nil {
		connectors.CloseIdle(s.transport)
		return nil, connectors.Scrub(fmt.Errorf("%w: bigquery client configuration failed", connectors.ErrInvalid), saJSON)
	}
	return s, nil
}

// newTransport is the HTTP transport of a source: every connection through
// d (its failures made opaque, see connectors.DialError), no proxy (a
// proxy would hide the real address from the guard), bounded handshakes
// and header waits.
func newTransport(d connectors.Dialer, timeout time.Duration) *http.Transport {
	return connectors.NewTransport(func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, &connectors.DialError{Cause: err}
		}
		return conn, nil
	}, timeout)
}

// Close releases the client, then the transport's idle connections.
func (s *Source) Close() error {
	defer connectors.CloseIdle(s.transport)
	if s.client != nil && s.client.Close() != nil {
		return errors.New("bigquery: closing the client failed")
	}
	return nil
}

// call bounds one call by the source's timeout.
func (s *Source) call(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// readCall bounds a Profile or a Sample, which read the table, by the
// profile timeout.
func (s *Source) readCall(ctx context.Context) (context.Context, context.CancelFunc) {
	return connectors.ProfileContext(ctx, s.readTimeout)
}

// mapErr turns a client error into one safe to show: what is the matter
// (unreachable, credentials refused, not found) and never the library's
// message, which may quote the request. what names the object of the
// call ("dataset d", "table t").
func (s *Source) mapErr(parent, call context.Context, what string, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("bigquery: reading %s stopped: %w", what, context.Cause(parent))
	}
	if connectors.ProfileTimedOut(call) {
		return connectors.TimedOut(fmt.Sprintf("bigquery could not finish reading %s", what), s.readTimeout)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(call), context.DeadlineExceeded) {
		return &connectors.ConnectError{Msg: fmt.Sprintf("%v: bigquery did not answer within %s", connectors.ErrConnect, s.timeout), Cause: context.DeadlineExceeded}
	}
	var de *connectors.DialError
	if errors.As(err, &de) {
		return &connectors.ConnectError{Msg: fmt.Sprintf("%v: bigquery is unreachable", connectors.ErrConnect), Cause: de.Cause}
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		// Token errors (auth.Error) and transport failures.
		return &connectors.ConnectError{Msg: fmt.Sprintf("%v: bigquery is unreachable or refused the service account", connectors.ErrConnect), Cause: errors.New("request failed")}
	}
	reason := ""
	if len(ge.Errors) > 0 {
		reason = ge.Errors[0].Reason
	}
	switch {
	case ge.Code == http.StatusNotFound || reason == "notFound":
		return fmt.Errorf("%w: bigquery %s in project %q", connectors.ErrNotFound, what, s.project)
	case ge.Code == http.StatusUnauthorized:
		return &connectors.ConnectError{Msg: fmt.Sprintf("%v: bigquery refused the service account", connectors.ErrConnect), Cause: errors.New("unauthorized")}
	case ge.Code == http.StatusForbidden:
		return &connectors.ConnectError{Msg: fmt.Sprintf("%v: bigquery denied access to %s (the service account needs roles/bigquery.jobUser on project %q and roles/bigquery.dataViewer on the dataset)", connectors.ErrConnect, what, s.project), Cause: errors.New("forbidden")}
	case ge.Code == http.StatusBadRequest:
		// A query BigQuery rejects: its message names the query's
		// problem (a column type, a regular expression), never a
		// credential; scrubbed all the same.
		msg := ge.Message
		if len(ge.Errors) > 0 && ge.Errors[0].Message != "" {
			msg = ge.Errors[0].Message
		}
		return connectors.Scrub(fmt.Errorf("bigquery rejected the query on %s: %s", what, connectors.Clip(msg, 300)), s.secret)
	}
	return &connectors.ConnectError{Msg: fmt.Sprintf("%v: bigquery answered HTTP %d for %s", connectors.ErrConnect, ge.Code, what), Cause: errors.New("http error")}
}
