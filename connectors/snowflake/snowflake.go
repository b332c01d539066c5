// Package snowflake is the table-source connector for Snowflake, on
// github.com/snowflakedb/gosnowflake through database/sql.
//
// Credentials (connectors.Credentials): account (required: the account
// identifier, orgname-account or a locator with its region such as
// xy12345.eu-west-1), username (required), password or private_key (a PEM
// RSA key, PKCS#8 unencrypted or PKCS#1, for key-pair authentication by
// JWT), warehouse (required to run queries), database (required),
// schema (the default of Options.Schema).
//
// The configuration is built as a gosnowflake.Config, never as a DSN
// string that could carry the password into a message. Every HTTP request
// of the driver goes through Options.Dialer (Config.Transporter is a
// transport dialing with it) or Options.HTTPClient's transport; the
// driver's probing of cloud metadata servers (platform detection) is
// turned off, since it would reach them outside the guard.
//
// List reads INFORMATION_SCHEMA.TABLES (ROW_COUNT, BYTES), never
// counting. Profile reads the columns from INFORMATION_SCHEMA.COLUMNS
// (with the table's TABLE_TYPE from INFORMATION_SCHEMA.TABLES, in the
// same query) and sends one aggregate query (TableProfile.Queries is 2); Sample sends one
// query (SAMPLE (n ROWS)), after one catalogue look-up of the schema's
// stored name per Source.
//
// # Sampled profile
//
// With Options.SampledProfile (source config "profile_mode": "sampled")
// Profile of a table reads the whole table only to count its rows: after
// the catalogue query, at most two aggregate queries (sqlprofile.Run):
//
//  1. SELECT COUNT(*) FROM "S"."T": the exact row count, which Snowflake
//     answers from a table's metadata.
//  2. A table of at most sqlprofile.SampleRows(columns) rows (100,000;
//     fewer past 20 columns, so that a sample holds about 2,000,000
//     values) gets the exact aggregate query above: figures exact,
//     ColumnMetrics.Estimated empty. A larger one gets the same query over
//     a block sample of about that many rows, SELECT COUNT(*) AS M0, ...
//     FROM "S"."T" SAMPLE SYSTEM (0.811) SEED (20261127), the probability
//     100·target/rows percent rounded up to three significant digits, a
//     literal the connector computes (identifiers stay quoted, formats
//     stay bind parameters), the seed sqlprofile.SampleSeed (PostgreSQL's
//     too). Its COUNT(*) counts the sampled rows, and it counts each
//     column's distinct values over the sample exactly (COUNT(DISTINCT
//     c)) instead of APPROX_COUNT_DISTINCT.
//  3. Only should the sample hold no rows (a small share of a table of few
//     blocks may draw none): the exact query, a third; or, should it
//     hold more rows than were counted (the table grew in between), the
//     count again (sqlprofile.Run).
//
// TableProfile.Queries counts them, the catalogue's included (3, or 4).
// A sample that counted every row of the table is the table: its figures
// are kept as exact.
//
// The seed makes the sample repeatable: the blocks drawn from a table are
// random but the same from one profile to the next while the table is
// unchanged, so that two scans of an unchanged table report the same
// estimates and the trends between scans are the table's, not the
// sample's. Snowflake takes a seed on tables only, and COUNT(*) of a view
// evaluates it whole (then the sample would evaluate it again, sampled
// costing more than exact): a view, a materialized view, an external or
// event table (any TABLE_TYPE but BASE TABLE or a temporary table) is
// profiled exactly in one aggregate query, as without the option
// (TableProfile.Queries 2).
//
// Precision of a sampled profile. Rows are exact. Every other figure comes
// from the sample and is named in ColumnMetrics.Estimated (nulls, empty
// for text, distinct, min, max, mean, stddev, median, quantiles,
// format_conformance, those that are set): nulls and blanks are the
// sample's counts scaled to the table, round(sampled·rows/sampled rows);
// min and max are the sample's values (the table's min is at most the
// reported one, its max at least: an extreme is found only if its block is
// read); mean, stddev, the quantiles (APPROX_PERCENTILE over the sample)
// and the format share (a share needs no scaling) are the sample's.
// SYSTEM sampling draws whole blocks of rows, each with the probability,
// so the sample's size varies around the target and its precision is that
// of the number of blocks drawn, rows stored together (loaded together,
// or clustered) being drawn together: a share's standard error is about
// sqrt(p(1−p)/rows sampled) for values scattered over the blocks, more
// for values stored together. Distinct is estimated from the sample's
// exact distinct count by sqlprofile.EstimateDistinct (a column unique in
// the sample is reported unique; one whose values all recur keeps the
// sample's count; in between, the estimate for values of equal
// frequencies): good for keys and for columns of few values, it
// under-estimates skewed columns (rare values are missed) and columns
// whose equal values are stored together, possibly by the factor
// rows/sampled rows, and over-estimates a column whose values recur too
// rarely for the sample to hold a repeat.
package snowflake

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"database/sql"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/snowflakedb/gosnowflake"

	"github.com/dqs/dqs/connectors"
)

func init() {
	// The driver probes cloud metadata endpoints (169.254.169.254,
	// metadata.google.internal) with its own HTTP client when it builds
	// its first connection; that would bypass the network guard.
	if os.Getenv("SNOWFLAKE_DISABLE_PLATFORM_DETECTION") == "" {
		os.Setenv("SNOWFLAKE_DISABLE_PLATFORM_DETECTION", "true")
	}
	// The driver otherwise writes an embedded native library to a
	// temporary directory and loads it with dlopen, only to report its
	// version to Snowflake: native code and files on disk a worker does
	// not need (and that a static build cannot load).
	if os.Getenv("SF_DISABLE_MINICORE") == "" {
		os.Setenv("SF_DISABLE_MINICORE", "true")
	}
}

// Source is an open Snowflake schema. It implements
// connectors.TableSource.
type Source struct {
	db      *sql.DB
	account string
	schema  string // as configured
	timeout time.Duration
	// readTimeout bounds Profile and Sample (Options.ProfileTimeout).
	readTimeout time.Duration
	// sampled: Profile counts the table's rows and samples the rest
	// (Options.SampledProfile).
	sampled   bool
	secrets   []string
	transport *http.Transport

	mu       sync.Mutex
	resolved string // the schema's stored name, once known
}

var _ connectors.TableSource = (*Source)(nil)

// endpoint overrides the host an account resolves to (tests: a fake).
type endpoint struct {
	Protocol string
	Host     string
	Port     int
}

// Open checks the settings and prepares the connection pool; it sends
// nothing (List is the connection test).
func Open(ctx context.Context, opts connectors.Options) (*Source, error) {
	return open(ctx, opts, nil)
}

var validAccount = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,254}$`)

func open(_ context.Context, opts connectors.Options, ep *endpoint) (*Source, error) {
	c := opts.Credentials
	account := strings.TrimSpace(c["account"])
	user := strings.TrimSpace(c["username"])
	password := c["password"]
	keyPEM := strings.TrimSpace(c["private_key"])
	database := strings.TrimSpace(c["database"])
	warehouse := strings.TrimSpace(c["warehouse"])
	schema := strings.TrimSpace(opts.Schema)
	if schema == "" {
		schema = strings.TrimSpace(c["schema"])
	}
	switch {
	case account == "":
		return nil, fmt.Errorf("%w: snowflake account is required", connectors.ErrInvalid)
	case !validAccount.MatchString(account) || strings.Contains(account, ".."):
		return nil, fmt.Errorf("%w: snowflake account must be an account identifier (letters, digits, '-', '_', '.')", connectors.ErrInvalid)
	case user == "":
		return nil, fmt.Errorf("%w: snowflake username is required", connectors.ErrInvalid)
	case password == "" && keyPEM == "":
		return nil, fmt.Errorf("%w: snowflake needs a password or a private_key", connectors.ErrInvalid)
	case password != "" && keyPEM != "":
		return nil, fmt.Errorf("%w: snowflake takes a password or a private_key, not both", connectors.ErrInvalid)
	case database == "":
		return nil, fmt.Errorf("%w: snowflake database is required", connectors.ErrInvalid)
	case warehouse == "":
		return nil, fmt.Errorf("%w: snowflake warehouse is required", connectors.ErrInvalid)
	case schema == "":
		return nil, fmt.Errorf("%w: snowflake schema is required", connectors.ErrInvalid)
	case opts.HTTPClient == nil && opts.Dialer == nil:
		return nil, fmt.Errorf("%w: no dialer for snowflake", connectors.ErrInvalid)
	}
	timeout := opts.CallTimeout()
	s := &Source{account: account, schema: schema, timeout: timeout, readTimeout: opts.ProfileCallTimeout(), sampled: opts.SampledProfile, secrets: []string{password, keyPEM}}

	cfg := gosnowflake.Config{
		Account:   account,
		User:      user,
		Database:  database,
		Schema:    schema,
		Warehouse: warehouse,

		LoginTimeout:     timeout,
		RequestTimeout:   timeout,
		ClientTimeout:    timeout,
		JWTClientTimeout: timeout,
		MaxRetryCount:    3,
		Application:      "dqs",

		DisableTelemetry:               true,
		DisableQueryContextCache:       true,
		ClientStoreTemporaryCredential: gosnowflake.ConfigBoolFalse,
		ClientRequestMfaToken:          gosnowflake.ConfigBoolFalse,
		DisableConsoleLogin:            gosnowflake.ConfigBoolTrue,
	}
	if keyPEM != "" {
		key, err := parseKey(keyPEM)
		if err != nil {
			return nil, err
		}
		cfg.Authenticator = gosnowflake.AuthTypeJwt
		cfg.PrivateKey = key
	} else {
		cfg.Authenticator = gosnowflake.AuthTypeSnowflake
		cfg.Password = password
	}
	if ep != nil {
		cfg.Protocol, cfg.Host, cfg.Port = ep.Protocol, ep.Host, ep.Port
	}
	cfg.Transporter, s.transport = connectors.HTTPBase(opts.HTTPClient, func() *http.Transport {
		return newTransport(opts.Dialer, timeout)
	})

	s.db = sql.OpenDB(gosnowflake.NewConnector(gosnowflake.SnowflakeDriver{}, cfg))
	s.db.SetMaxOpenConns(4)
	s.db.SetMaxIdleConns(2)
	s.db.SetConnMaxIdleTime(5 * time.Minute)
	s.db.SetConnMaxLifetime(time.Hour)
	return s, nil
}

// parseKey reads a PEM RSA private key: PKCS#8 ("PRIVATE KEY") or PKCS#1
// ("RSA PRIVATE KEY"), unencrypted. A key pasted with literal \n is
// accepted.
func parseKey(s string) (*rsa.PrivateKey, error) {
	if !strings.Contains(s, "\n") && strings.Contains(s, `\n`) {
		s = strings.ReplaceAll(s, `\n`, "\n")
	}
	block, _ := pem.Decode([]byte(s))
	bad := fmt.Errorf("%w: snowflake private_key must be an unencrypted PEM RSA key (PKCS#8, -----BEGIN PRIVATE KEY-----)", connectors.ErrInvalid)
	if block == nil {
		return nil, bad
	}
	switch block.Type {
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, bad
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, fmt.Errorf("%w: snowflake private_key must be an RSA key", connectors.ErrInvalid)
		}
		return rk, nil
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, bad
		}
		return k, nil
	}
	return nil, bad
}

// dialFailKey carries, in a connect's context, the function a failed dial
// reports to: the driver retries failed logins until its timeout, and a
// port that refuses or a guard that refuses will not change its mind.
type dialFailKey struct{}

// newTransport is the HTTP transport of a source: every connection through
// d, no proxy (a proxy would hide the real address from the guard),
// bounded handshakes and header waits.
func newTransport(d connectors.Dialer, timeout time.Duration) *http.Transport {
	return connectors.NewTransport(func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			err = &connectors.DialError{Cause: err}
			if fail, ok := ctx.Value(dialFailKey{}).(func(error)); ok {
				fail(err)
			}
			return nil, err
		}
		return conn, nil
	}, timeout)
}

// Close closes the pool (and its sessions).
func (s *Source) Close() error {
	err := s.db.Close()
	connectors.CloseIdle(s.transport)
	if err != nil {
		return errors.New("snowflake: closing the connections failed")
	}
	return nil
}

// conn returns a connection of the pool, logging in if need be, within
// cctx; a failure is ErrConnect.
func (s *Source) conn(ctx, cctx context.Context) (*sql.Conn, error) {
	lctx, cancel := context.WithCancelCause(cctx)
	defer cancel(nil)
	lctx = context.WithValue(lctx, dialFailKey{}, func(err error) { cancel(err) })
	conn, err := s.db.Conn(lctx)
	if err == nil {
		return conn, nil
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("snowflake: connecting stopped: %w", context.Cause(ctx))
	}
	var de *connectors.DialError
	if errors.As(context.Cause(lctx), &de) || errors.As(err, &de) {
		return nil, &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake account %q is unreachable", connectors.ErrConnect, s.account), Cause: de.Cause}
	}
	if cctx.Err() != nil {
		return nil, &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake account %q did not answer within %s", connectors.ErrConnect, s.account, s.timeout), Cause: context.DeadlineExceeded}
	}
	var se *gosnowflake.SnowflakeError
	if errors.As(err, &se) {
		switch {
		case se.Number >= 390000 && se.Number < 391000, se.Number == gosnowflake.ErrCodeFailedToConnect:
			return nil, &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake account %q refused the username, password or key (Snowflake error %d)", connectors.ErrConnect, s.account, se.Number), Cause: errors.New("login refused")}
		case se.Number == gosnowflake.ErrCodeServiceUnavailable:
			return nil, &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake account %q is unavailable", connectors.ErrConnect, s.account), Cause: errors.New("unavailable")}
		}
		return nil, &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake account %q refused the login (Snowflake error %d)", connectors.ErrConnect, s.account, se.Number), Cause: errors.New("login failed")}
	}
	return nil, &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake account %q is unreachable or does not speak Snowflake's protocol", connectors.ErrConnect, s.account), Cause: errors.New("login failed")}
}

// Snowflake error numbers.
const (
	errObjectMissing = 2003 // SQL compilation error: object does not exist or not authorized
)

// queryErr maps the error of a query on what ("table X").
func (s *Source) queryErr(ctx, cctx context.Context, what string, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("snowflake: reading %s stopped: %w", what, context.Cause(ctx))
	}
	if connectors.ProfileTimedOut(cctx) {
		return connectors.TimedOut(fmt.Sprintf("snowflake could not finish reading %s", what), s.readTimeout)
	}
	if cctx.Err() != nil {
		return &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake did not answer within %s while reading %s", connectors.ErrConnect, s.timeout, what), Cause: context.DeadlineExceeded}
	}
	var se *gosnowflake.SnowflakeError
	if errors.As(err, &se) {
		if se.Number == errObjectMissing || se.Number == gosnowflake.ErrObjectNotExistOrAuthorized {
			return fmt.Errorf("%w: snowflake %s in schema %q (or no privilege on it)", connectors.ErrNotFound, what, s.schema)
		}
		if se.Number >= 390000 && se.Number < 391000 {
			return &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake ended the session (Snowflake error %d)", connectors.ErrConnect, se.Number), Cause: errors.New("session")}
		}
		// A query Snowflake rejects: its message names the query's
		// problem (a warehouse, a type, a regular expression), scrubbed
		// all the same.
		return connectors.Scrub(fmt.Errorf("snowflake rejected the query on %s: %s (Snowflake error %d)", what, connectors.Clip(se.Message, 300), se.Number), s.secrets...)
	}
	var de *connectors.DialError
	if errors.As(err, &de) {
		return &connectors.ConnectError{Msg: fmt.Sprintf("%v: snowflake account %q is unreachable", connectors.ErrConnect, s.account), Cause: de.Cause}
	}
	return &connectors.ConnectError{Msg: fmt.Sprintf("%v: the connection to snowflake account %q failed while reading %s", connectors.ErrConnect, s.account, what), Cause: errors.New("query failed")}
}
