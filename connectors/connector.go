// Package connectors reaches the places users keep their data: object
// stores (s3, gcs) and databases or warehouses (postgresql, bigquery,
// snowflake). Each kind lives in a sub-package behind the small interfaces
// below, so that scans, reports and corrections speak to all of them the
// same way; connectortest holds the conformance suite every kind passes.
//
// A connector never decides on its own where it may connect: the caller
// hands it a Dialer (the network guard's) and every connection, HTTP ones
// included, goes through it. Every call takes a context and honours its
// deadline and cancellation, so a source that hangs never holds a worker.
//
// Errors returned by a connector are safe to show a user: they never
// carry a credential, a DSN or a driver message that may echo one (see
// Scrub).
package connectors

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/dqs/dqs/records"
)

// Kinds of source.
const (
	S3         = "s3"
	GCS        = "gcs"
	PostgreSQL = "postgresql"
	BigQuery   = "bigquery"
	Snowflake  = "snowflake"
)

// Kinds lists every kind, object stores first.
var Kinds = []string{S3, GCS, PostgreSQL, BigQuery, Snowflake}

// IsObjectStore reports whether a kind holds objects (files) rather than
// tables.
func IsObjectStore(kind string) bool { return kind == S3 || kind == GCS }

// Credentials are a source's decrypted credential fields, with the wire
// names of DECISIONS.md (s3: bucket, prefix, region, access_key_id,
// secret_access_key, endpoint; gcs: bucket, prefix, service_account_json,
// endpoint; postgresql: host, port, database, username, password, sslmode;
// bigquery: project_id, dataset, service_account_json; snowflake: account,
// warehouse, database, schema, username, password or private_key).
// Numbers (a port) arrive as their decimal text.
type Credentials map[string]string

// Dialer opens network connections; the caller's is the network guard's,
// which refuses addresses the operator has not allowed at dial time.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Options open a connector.
type Options struct {
	Credentials Credentials
	// Schema is the database schema of a table source (source config
	// "schema"; postgresql defaults to "public", snowflake to its
	// credential's schema). Unused by object stores.
	Schema string
	// Dialer carries every connection the connector makes. Required.
	Dialer Dialer
	// HTTPClient, when set, is used for HTTP-based kinds (s3, gcs,
	// bigquery, snowflake) instead of a client built on Dialer; tests set
	// it for in-process servers. Its transport must also dial through the
	// guard in production.
	HTTPClient *http.Client
	// Timeout bounds each call (connect, list, a query); zero is
	// DefaultTimeout. A table source's Profile and Sample are bounded by
	// ProfileTimeout instead.
	Timeout time.Duration
	// ProfileTimeout bounds a table source's Profile and Sample, which
	// read a whole table (or sample it) and may take far longer than a
	// call to the catalogue; zero is DefaultProfileTimeout.
	ProfileTimeout time.Duration
	// SampledProfile makes a table source's Profile read the whole table
	// only to count its rows, and take every other figure (nulls, blanks,
	// min and max included) from its sample, scaled to the table's rows
	// where it is a count, and named in ColumnMetrics.Estimated: a profile
	// then costs little more than a count(*), or bytes of a sample in a
	// warehouse that bills bytes scanned. A table no larger than the sample
	// is read whole and its figures stay exact. Source config
	// "profile_mode": "sampled"; the default, "exact", counts nulls,
	// blanks and extremes over every row.
	SampledProfile bool
}

// DefaultTimeout bounds one call to a source when Options.Timeout is zero.
const DefaultTimeout = 2 * time.Minute

// DefaultProfileTimeout bounds a table source's Profile or Sample when
// Options.ProfileTimeout is zero: a table of a hundred million rows takes
// minutes to profile, not the seconds a catalogue query does.
const DefaultProfileTimeout = time.Hour

// Table is a table or an object as its source's catalogue describes it,
// never counted: RowEstimate is the catalogue's estimate (0 when it has
// none, and for objects), SizeBytes its size on storage.
type Table struct {
	Schema      string `json:"schema"`
	Name        string `json:"table_name"`
	RowEstimate int64  `json:"row_estimate"`
	SizeBytes   int64  `json:"size_bytes"`
	// Objects only: the entity tag and modification time that tell a
	// modified object from an unchanged one.
	ETag         string    `json:"-"`
	LastModified time.Time `json:"-"`
}

// Connector is what every kind does.
type Connector interface {
	// List returns the tables (or objects) of the source, from catalogue
	// metadata. Listing also tests the connection: a source that lists
	// is reachable with these credentials.
	List(ctx context.Context) ([]Table, error)
	Close() error
}

// ObjectSource is a connector over files: s3, gcs. NewRemoteFile makes
// one of its objects a file the readers take, read by ranges.
type ObjectSource interface {
	Connector
	// Open streams length bytes of one object listed by List from byte
	// offset; key is Table.Name. length < 0 streams to the end of the
	// object; offset 0 with length < 0 is the whole object. A range
	// running past the end stops at the end. An offset at or beyond the
	// end (the store's "range not satisfiable", S3's 416 InvalidRange),
	// and length 0, give an empty stream (its first Read returns io.EOF),
	// never an error; the object must still exist. A negative offset is
	// refused (ErrInvalid). A key outside the configured prefix is
	// refused (ErrNotFound), as is a missing object.
	Open(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error)
}

// TableSource is a connector over tables: postgresql, bigquery,
// snowflake.
type TableSource interface {
	Connector
	// Profile computes a table's column metrics where the table lives, in
	// at most two aggregate queries. formats, when given, maps a column
	// to the regular expression its values are expected to match (the
	// dominant format of the sample); its conformance is then measured
	// where the dialect has regular expressions, over the whole table or
	// over a sample (ColumnMetrics.Estimated says which).
	Profile(ctx context.Context, table string, formats map[string]string) (*TableProfile, error)
	// Sample returns a bounded random sample of at most limit rows
	// (TABLESAMPLE or the dialect's equivalent), each value rendered as
	// text, for the classifier. One query.
	Sample(ctx context.Context, table string, limit int) (records.Reader, error)
}

// TableProfile is a table's push-down profile.
type TableProfile struct {
	Rows    int64           `json:"rows"`
	Columns []ColumnMetrics `json:"columns"`
	// Queries is the number of queries the profile sent, for tests and
	// the scan's record.
	Queries int `json:"-"`
}

// ColumnMetrics are the metrics of one column SQL can compute. Pointers
// are nil where the metric does not apply (mean of a text column) or the
// dialect cannot compute it.
type ColumnMetrics struct {
	Name string `json:"name"`
	// DataType is the column's type as the database names it.
	DataType string `json:"data_type"`
	// Numeric is true for number types; Mean, StdDev, Median and
	// Quantiles are then set.
	Numeric bool  `json:"numeric"`
	Nulls   int64 `json:"nulls"`
	// Empty counts non-null text values that are "" or only whitespace.
	Empty int64 `json:"empty"`
	// Distinct is the approximate number of distinct non-null values.
	Distinct  int64              `json:"distinct"`
	Min       *string            `json:"min,omitempty"`
	Max       *string            `json:"max,omitempty"`
	Mean      *float64           `json:"mean,omitempty"`
	StdDev    *float64           `json:"stddev,omitempty"`
	Median    *float64           `json:"median,omitempty"`
	Quantiles map[string]float64 `json:"quantiles,omitempty"`
	// FormatConformance is the share of non-empty values matching the
	// column's expected format (Profile's formats); nil when no format
	// was given or the dialect has no regular expressions.
	FormatConformance *float64 `json:"format_conformance,omitempty"`
	// Estimated names (by their JSON names) the figures above that are
	// estimates, from a sample or the database's statistics, rather than
	// exact over the whole table; empty when every figure is exact.
	Estimated []string `json:"estimated,omitempty"`
}

// Errors a connector wraps, so that callers can tell them apart without
// reading messages.
var (
	// ErrConnect: the source could not be reached or refused the
	// credentials. The message reads the same whether a port is closed,
	// filtered or not speaking the protocol.
	ErrConnect = errors.New("could not connect to the source")
	// ErrNotFound: the bucket, table or object does not exist (or is
	// outside the configured prefix).
	ErrNotFound = errors.New("not found in the source")
	// ErrInvalid: the credentials or config are incomplete or malformed.
	ErrInvalid = errors.New("invalid source settings")
	// ErrTooWide: a table has more columns than a scan profiles.
	ErrTooWide = errors.New("table has too many columns")
	// ErrTimedOut: a Profile or Sample ran past its bound
	// (Options.ProfileTimeout) and the source stopped it. Retrying it
	// would take as long again: callers treat it as final.
	ErrTimedOut = errors.New("the source did not finish in time")
)

// MaxColumns bounds the columns of a table a scan profiles; a wider one
// fails that table with ErrTooWide.
const MaxColumns = 2000
